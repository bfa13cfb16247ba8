"""Whose long-term memory the core reads and writes: the user's stream (and their household's
beside it), with the recall, reflection, planning and summaries bound to it, and what the
user has asked of it during this process (a session off the record, memories forgotten).

`UserMemory` is the state the core's jobs share. Each job is a class of its own module over
it: `Preparing` (before a reply), `Writing` (after it) and `SessionEnds` (opening and
closing a session); `LongTermCore` (core.py) is all three.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.longterm.checks import PreConversationChecks
from monologue.memory.longterm.consolidation import ConsolidationLLM
from monologue.memory.longterm.exchange import Awaiting
from monologue.memory.longterm.planning import Planner
from monologue.memory.longterm.records import RetentionPolicy, UserProfile
from monologue.memory.longterm.reflection import ReflectionOptions, ReflectionReport, Reflector
from monologue.memory.longterm.retrieval import RetrievalWeights, Retriever
from monologue.memory.longterm.stream import Embed, MemoryStream, StreamOptions
from monologue.memory.longterm.structured import exact_answer
from monologue.memory.longterm.summaries import SummaryPyramid
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.protocols import MemoryStore, ProfileStore

RECALL_WEIGHTS = RetrievalWeights(recency=0.05, importance=0.10, relevance=0.85)


class LongTermLLM(ConsolidationLLM, Protocol):
    """What the core asks an LLM, all of it off the voice turn (`MemoryLLM` answers)."""

    def insight(self, texts: list[str]) -> str | None: ...
    def summarize(self, texts: list[str]) -> str | None: ...


@dataclass(frozen=True)
class LongTermOptions:
    recall_k: int = 3
    budget_ms: float = 250.0
    # Recall waits this long for the previous turn's memory writes (they hold the lock) before the
    # reply goes without it: writes are normally milliseconds, but a database out of reach holds
    # them for its retry budget, and the user must not wait for that.
    writes_wait_secs: float = 2.0
    summary_chars: int = 500
    # A journaled turn whose writer has not finished it for this long is taken to be a dead
    # writer's, and replayed by whoever opens the user's memory next (a live writer normally
    # finishes in milliseconds; one whose store is out of reach retries for a few seconds).
    journal_lease_secs: float = 30.0
    # The reply waits this long for its journal entry (normally about a millisecond). A store
    # out of reach must not silence the agent: past this the turn goes out not yet durable
    # (logged and counted), its write still queued, and the entry lands when the store answers.
    journal_wait_secs: float = 2.0
    reflection: ReflectionOptions = field(default_factory=ReflectionOptions)
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)


@dataclass(frozen=True)
class MemoryTools:
    """What memory measures what it keeps with: meaning (the sentence encoder; None: words
    alone) and time (the clock; tests fix it)."""

    embed: Embed | None = None
    clock: Callable[[], float] = time.time


@dataclass(frozen=True)
class SpeakerOptions:
    """Who may be speaking when several people share a device (U5, household.py).

    `household`: the id of the household the user belongs to: what is stated as shared goes
    there, and recall reads it beside the user's own. `speaker_known=False`: nobody is known
    to be speaking (`user_id` is then the household's): recall reads the household only, and
    only what is stated as shared is written."""

    household: str = ""
    speaker_known: bool = True


class UserMemory:
    """One user's long-term memory across sessions (seed 002's memory stream), bound."""

    def __init__(self, store: MemoryStore, user_id: str, *, tools: MemoryTools | None = None,
                 options: LongTermOptions | None = None, profiles: ProfileStore | None = None,
                 llm: LongTermLLM | None = None, speaker: SpeakerOptions | None = None) -> None:
        """`speaker`: who may be speaking (see `SpeakerOptions`)."""
        tools = tools or MemoryTools()
        speaker = speaker or SpeakerOptions()
        embed, clock = tools.embed, tools.clock
        household, speaker_known = speaker.household, speaker.speaker_known
        self.speaker_known = speaker_known
        # A speaker known only by what they said ("it's Anna"), not by the transport: their
        # local-only memories are not recalled, and nothing is forgotten or erased by voice.
        self.verified = speaker_known
        self.members: frozenset[str] = frozenset()      # who may introduce themselves (household members)
        self.clock = clock
        self.profiles = profiles or SqlProfileStore(":memory:")
        self.options = options or LongTermOptions()
        self.llm = llm
        self._store, self._embed = store, embed
        self._bind(user_id)
        self.household = household if household and household != user_id else ""
        self.shared: MemoryStream | None = None
        self.shared_retriever: Retriever | None = None
        if self.household:
            self.shared = self._stream(self.household)
            self.shared_retriever = Retriever(self.shared, RECALL_WEIGHTS)
        self._to_consolidate: list[str] = []    # this session's new memories, for the LLM at session end
        self.awaiting: Awaiting | None = None
        # Sessions the user asked not to be remembered (U2): from that turn on they
        # neither read nor write long-term memory.
        self.no_history: set[str] = set()
        # What the user had forgotten this process (its text and session): what the working
        # state still holds from those words never reaches the profile again.
        self.forgotten: list[tuple[str, str]] = []
        # What an erase by voice found of the user's sessions (id, trace folder): their states
        # and files are deleted by whoever holds them once the session ends.
        self.erased_sessions: list[tuple[str, str]] = []
        self.checks = PreConversationChecks()
        self.reports: list[ReflectionReport] = []
        # What the transport knows about the moment (passengers, weather, place…), stored
        # with each memory beside the time of day and weekday (L1).
        self.situation: dict[str, Any] = {}

    @property
    def embed(self) -> Embed | None:
        return self._embed

    def _stream(self, user_id: str) -> MemoryStream:
        return MemoryStream(self._store, user_id, embed=self._embed, clock=self.clock,
                            options=StreamOptions(retention=self.options.retention),
                            audit=lambda what, before, after, reason, session: self.profiles.append_audit(
                                user_id, what, before, after, reason, session, at=self.clock()),
                            importance_fn=None)

    def _bind(self, user_id: str) -> None:
        """Read and write `user_id`'s memory from now on."""
        self.user_id = user_id
        self.stream = self._stream(user_id)
        # Recall favours relevance: the seed's recency/importance weights bury the
        # answer on question-style queries (LoCoMo R@10 .48 vs .76, scripts/bench_locomo.py).
        self.retriever = Retriever(self.stream, RECALL_WEIGHTS)
        # The LLM's part (importance, contradiction judge, reflection wording) waits for
        # `consolidate` at session end: see consolidation.py.
        self.reflector = Reflector(self.stream, self.options.reflection)
        self.planner = Planner(self.stream, self.retriever)
        self.pyramid = SummaryPyramid(self.profiles, user_id, summarize=self.llm.summarize if self.llm else None)

    def introduce(self, member: str) -> None:
        """Nobody was known to be speaking, and a household member said who they are: their
        memory is read and written from now on, the household's beside it, unverified."""
        household = self.user_id
        shared = self.stream
        self._bind(member)
        self.household, self.shared = household, shared
        self.shared_retriever = Retriever(shared, RECALL_WEIGHTS)
        self.speaker_known, self.verified = True, False

    def exact_answer(self, question: str, schema: DomainSchema, language: str = "en") -> str | None:
        """Exact questions ("when did I last change the seat?") answered from records."""
        return exact_answer(question, self.profiles, self.user_id, schema, language, now=self.clock())

    def profile(self) -> UserProfile:
        return self.profiles.load(self.user_id)

    def warm_up(self) -> float:
        """Load the stream, build its index and run the encoder once, before the first
        turn: a cold first recall would spend its whole budget on start-up work."""
        started = time.perf_counter()
        self.retriever.retrieve("warm up", k=1, touch=False)
        return time.perf_counter() - started

    def context_now(self) -> dict[str, Any]:
        moment = dt.datetime.fromtimestamp(self.clock())
        hour = moment.hour
        part = "morning" if 5 <= hour < 12 else "afternoon" if hour < 17 else "evening" if hour < 22 else "night"
        return {"time_of_day": part, "weekday": moment.strftime("%A").lower(), **self.situation}
