"""Long-term memory's synchronous core (seeds 001, 002): plain blocking methods, no event loop.

Before a reply (`prepare`): recall what earlier sessions remember, answer exact
questions from records, find the plan a "last week" request names, notice a
contradiction with what the user said before — a high-risk one is asked about instead
of answered — and settle a question asked on the previous turn. After the reply
(`after_reply`): write the utterance, resolve conflicts by risk, apply a time-travel
change, feed the user's answer back into a plan, record the agent's promises, and
reflect when an event calls for it. Sessions open (`open_session`) with the profile,
the pre-conversation checks and a plan in the opening line, and close
(`close_session`) with the profile, a summary in the pyramid and retention.

`LongTermMemory` (engine.py) runs these in worker threads, one at a time, within its
latency budget. The core never calls working memory: it reads a `SessionSnapshot` and
returns what the session should change.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from loguru import logger

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import PAST_CUES, PROMISE_CUES, yes_or_no
from monologue.memory.language.memory_cues import NAME_QUESTION, SHARED, introduced_name
from monologue.memory.language.numbers import time_window
from monologue.memory.language.phrases import say
from monologue.memory.longterm.answers import about_user, has_topic, memory_answer, name_answer
from monologue.memory.longterm.checks import PreConversationChecks, run_checks
from monologue.memory.longterm.commands import (
    command_language,
    forget_question,
    last_said,
    listing_words,
    matching,
    read_command,
    remembered,
)
from monologue.memory.longterm.conflicts import HIGH_RISK, PREFERENCE, Conflict, find_conflict
from monologue.memory.longterm.consolidation import ConsolidationLLM, consolidate
from monologue.memory.longterm.exchange import Awaiting, BeforeReply, Opening, Prepared, Recalled, SessionSnapshot
from monologue.memory.longterm.household import is_household
from monologue.memory.longterm.importance import remember_as, worth_remembering
from monologue.memory.longterm.pending import awaiting_from
from monologue.memory.longterm.planning import Plan, Planner
from monologue.memory.longterm.profile import (
    drawn_from,
    forget_drawn_from,
    opening_line,
    seed_operations,
    update_profile,
)
from monologue.memory.longterm.records import MemoryKind, MemoryRecord, RetentionPolicy, UserProfile
from monologue.memory.longterm.reflection import ReflectionOptions, ReflectionReport, Reflector
from monologue.memory.longterm.retrieval import RetrievalWeights, Retriever
from monologue.memory.longterm.speech import joined_sentences
from monologue.memory.longterm.stream import Embed, MemoryStream
from monologue.memory.longterm.structured import exact_answer
from monologue.memory.longterm.summaries import SummaryPyramid, session_summary
from monologue.memory.longterm.timetravel import match as time_travel_match
from monologue.memory.stores.journal import evidence_id
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.protocols import MemoryStore, ProfileStore
from monologue.memory.working.state import Condition
from monologue.memory.working.turn_classes import TurnClass

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


def restore_after(before: BeforeReply) -> str | None:
    """The earlier statement the user kept ("No, I still am"), which this session's
    state should hold again; None when the turn kept nothing."""
    if before.answered is None:
        return None
    awaiting, yes = before.answered
    if awaiting.kind != "conflict" or awaiting.conflict is None or yes:
        return None
    return awaiting.conflict.old.text


@dataclass(frozen=True)
class _Command:
    """What a memory command leaves: a question awaiting the user's yes, and whether the
    session is off the record from now on."""
    awaiting: Awaiting | None
    no_history: bool


class LongTermCore:
    """One user's long-term memory across sessions (seed 002's memory stream)."""

    def __init__(self, store: MemoryStore, user_id: str, *, embed: Embed | None = None,
                 options: LongTermOptions | None = None, clock: Callable[[], float] = time.time,
                 profiles: ProfileStore | None = None, llm: LongTermLLM | None = None,
                 household: str = "", speaker_known: bool = True) -> None:
        """`household`: the id of the household the user belongs to (U5): what is stated as
        shared goes there, and recall reads it beside the user's own. `speaker_known=False`:
        nobody is known to be speaking (`user_id` is then the household's): recall reads the
        household only, and only what is stated as shared is written."""
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
                            retention=self.options.retention,
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

    # --- reading ---------------------------------------------------------------------

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

    def prepare(self, text: str, *, session_id: str, turn_class: str, schema: DomainSchema | None,
                language: str, awaiting: Awaiting | None) -> Prepared:
        """What long-term memory adds to this reply, and the question left open after it.

        Changes nothing (`awaiting` is the question open now; the caller keeps the one
        returned only if the reply used the result): work abandoned at the latency
        budget must leave memory as it found it."""
        out = BeforeReply()
        now = self.clock()
        records, vectors = self.stream.records()
        shared_records = self.shared.records()[0] if self.shared is not None else []
        out.local_only = [r.text for r in [*records, *shared_records] if r.tier == "local_only" and not r.archived]
        if not self.verified:
            # Known only by their word: their local-only memories stay out of this session.
            keep = [i for i, r in enumerate(records) if r.tier != "local_only"]
            records, vectors = [records[i] for i in keep], vectors[keep]
        if not self.speaker_known and self.members and awaiting is None:
            name = introduced_name(text)
            member = next((m for m in sorted(self.members) if m.lower() == name.lower()), "") if name else ""
            if member:
                out.say = say("memory.introduced", command_language(text, language), name=name)
                out.command = {"kind": "introduce", "member": member}
                return Prepared(out, awaiting, introduced=member)
        if awaiting is not None:
            answer = yes_or_no(text)
            if answer is not None:
                out.answered = (awaiting, answer)
                out.say, note = self._answer_words(
                    awaiting, answer, command_language(text, language) if awaiting.kind in ("forget", "erase")
                    else language)
                if note:
                    out.notes.append(note)
            if answer is not None and awaiting.kind in ("forget", "erase"):
                return Prepared(out, None)      # the answer to a command: nothing to recall
            if answer is not None or awaiting.kind in ("plan", "forget", "erase"):
                awaiting = None     # an unanswered contradiction stays open (and held) for later
        if out.say is None:
            command = self._command(text, records, session_id, schema, language, out)
            if command is not None:
                return Prepared(out, command.awaiting if command.awaiting is not None else awaiting,
                                command.no_history)
        if session_id and session_id in self.no_history:
            return Prepared(out, awaiting)      # off the record: nothing is recalled
        if out.say is None:
            out.travel = time_travel_match(text, records, now, session_id)
            if out.travel is not None:
                out.say = out.travel.confirmation()
        vector = self.stream.embed([text])[0] if self.stream.embed and text.strip() else None
        if out.say is None and worth_remembering(text, turn_class):
            out.conflict = find_conflict(text, vector, records, vectors)
            if out.conflict is not None and out.conflict.risk == HIGH_RISK:
                # Ask and hold: the reply does not reason on either version until the user answers.
                out.say = out.conflict.question(language)
                awaiting = Awaiting("conflict", conflict=out.conflict)
            elif out.conflict is not None:
                out.notes.append(f"This updates what the user said before (\"{out.conflict.old.text}\").")
        held = {out.conflict.old.id} if out.conflict and out.conflict.risk == HIGH_RISK else set()
        # touch=False: access counts are a write, done after the reply (`after_reply`).
        result = self.retriever.retrieve(text, k=self.options.recall_k + 3, touch=False, query_vector=vector)
        if self.shared_retriever is not None:
            # The household's memories beside the user's own, ranked together (each list is
            # scored on its own scale, normalised the same way).
            shared = self.shared_retriever.retrieve(text, k=self.options.recall_k, touch=False, query_vector=vector)
            result.memories = sorted([*result.memories, *shared.memories], key=lambda m: m.score, reverse=True)
        # Only what the user said or accepted: a proposed plan is the agent's own words.
        items = [m for m in result.memories
                 if m.record.session_id != session_id and m.record.id not in held
                 and (self.verified or m.record.tier != "local_only" or is_household(m.record.user_id))
                 and (m.record.source != "plan" or m.record.context.get("status") == "accepted")]
        out.recalled = [m.record.text for m in items[: self.options.recall_k]]
        out.sources = [Recalled(m.record.text, m.record.created_at, m.record.session_id, str(m.record.source),
                                m.record.tier, "household" if is_household(m.record.user_id) else "personal")
                       for m in items[: self.options.recall_k]]
        # Reflections are drawn from the user's memories: an unverified speaker gets none that
        # the rules find local-only (an insight about a health need or an address).
        reflections = [m for m in result.reflections if self.verified or m.record.tier != "local_only"]
        result.reflections = reflections
        out.reflections = [m.record.text for m in reflections[:1]]      # the second channel
        out.used = [m.record.id for m in items[: self.options.recall_k] + result.reflections[:1]]
        if schema is not None:
            out.exact = self.exact_answer(text, schema, language)
        out.about_user = about_user(text)
        # "What's my name?": the name the user asked to be called by, from any session, not
        # the memories that happen to rank first.
        # (Only a name question reads every record: this runs before each reply.)
        named = name_answer(text, [Recalled(r.text, r.created_at, r.session_id, str(r.source)) for r in records
                                   if r.current and r.kind == MemoryKind.MEMORY and r.source == "user_stated"],
                            now) if NAME_QUESTION.search(text) else None
        if out.exact:
            out.answer = out.exact
        elif named:
            out.answer, out.about_user = named, True
        elif out.about_user:
            # What the user said or was inferred about them: never a plan, and the latest
            # earlier session's words for a question with no topic of its own.
            said = [m.record for m in items if m.record.source in ("user_stated", "inferred")]
            if not has_topic(text, schema) and PAST_CUES.search(text):
                earlier = [r for r in records if r.session_id and r.session_id != session_id and r.current
                           and r.kind == MemoryKind.MEMORY and r.source == "user_stated"]
                latest = max((r.created_at, r.session_id) for r in earlier)[1] if earlier else ""
                said = [r for r in earlier if r.session_id == latest]
            out.answer = memory_answer(text, [Recalled(r.text, r.created_at, r.session_id, str(r.source))
                                              for r in said], now, schema)
        if (PAST_CUES.search(text) or time_window(text, now)) and self.verified:
            # Summaries mix every kind of memory: not for a speaker known only by their word.
            summaries = self.pyramid.load().render(self.options.summary_chars)
            if summaries:
                out.notes.append("Earlier sessions (summaries, newest first):\n" + summaries)
        return Prepared(out, awaiting)

    def _command(self, text: str, records: list[MemoryRecord], session_id: str, schema: DomainSchema | None,
                 language: str, out: BeforeReply) -> _Command | None:
        """A memory command: the words for it in `out`, and what it leaves open. Reads only."""
        command = read_command(text)
        if command is None:
            return None
        language = command_language(text, language)
        items = remembered(records)
        awaiting: Awaiting | None = None
        if not self.speaker_known and command.kind in ("list", "forget", "forget_last", "erase"):
            # Nobody is known to be speaking: the household's memories are not one person's to
            # list, forget or erase by voice.
            out.say = say("memory.unknown_speaker", language)
            out.command = command.trace()
            return _Command(None, False)
        if not self.verified and command.kind in ("forget", "forget_last", "erase"):
            out.say = say("memory.unverified", language)
            out.command = command.trace()
            return _Command(None, False)
        if command.kind == "list":
            out.say = listing_words(items, language)
            out.listed = [r.text for r in items]
            out.listed_items = [Recalled(r.text, r.created_at, r.session_id, str(r.source), r.tier) for r in items]
        elif command.kind in ("forget", "forget_last"):
            chosen = (matching(command.topic, items, schema, self._similarity(command.topic, records))
                      if command.kind == "forget" else last_said(items, session_id))
            if not chosen and (command.kind == "forget_last" or command.tentative):
                return None     # "forget that", "forget my window seat": the task's own words
            out.say = forget_question(chosen, language) if chosen else say("memory.forget.none", language)
            out.listed = [r.text for r in chosen]
            if chosen:
                awaiting = Awaiting("forget", memory_ids=tuple(r.id for r in chosen))
        elif command.kind == "erase":
            out.say = say("memory.erase.ask", language)
            awaiting = Awaiting("erase")
        else:
            out.say = say("memory.no_history", language)
        out.command = command.trace()
        return _Command(awaiting, command.kind == "no_history")

    def _similarity(self, text: str, records: list[MemoryRecord]) -> dict[str, float]:
        """Cosine similarity of `text` to each memory, by id (empty without an encoder)."""
        _, vectors = self.stream.records()
        if self.stream.embed is None or not records or vectors.shape[1] == 0:
            return {}
        sims = vectors @ self.stream.embed([text])[0]
        return {r.id: float(sims[i]) for i, r in enumerate(records)}

    def _answer_words(self, awaiting: Awaiting, yes: bool, language: str) -> tuple[str | None, str]:
        """What to say to the user's answer (a settled contradiction, a forget or an erase
        confirmed or not), or a note for the reply's prompt (an accepted or declined plan)."""
        if awaiting.kind == "forget":
            return say("memory.forget.done" if yes else "memory.forget.kept", language), ""
        if awaiting.kind == "erase":
            return say("memory.erase.done" if yes else "memory.erase.kept", language), ""
        if awaiting.kind == "conflict" and awaiting.conflict is not None:
            new, old = awaiting.conflict.new_text, awaiting.conflict.old.text
            return (say("conflict.updated", language, new=new) if yes else say("conflict.kept", language, old=old)), ""
        plan = self.stream.get(awaiting.memory_id)
        what = plan.text if plan else "the suggestion"
        return None, (f"The user accepted your suggestion ({what}); go ahead with it." if yes
                      else f"The user declined your suggestion ({what}); ask what they would prefer.")

    # --- writing (after the reply) ----------------------------------------------------

    def after_reply(self, before: BeforeReply, text: str, *, session_id: str, turn: int, turn_class: str,
                    reply_text: str = "", session: SessionSnapshot | None = None) -> list[str]:
        """Apply what this turn changes; returns the ids written.

        `session`: the session's state after this turn, when the caller has it: a
        lasting change reaches the profile at once (L8)."""
        written: list[str] = []
        evidence = [evidence_id(session_id, turn)]
        if before.answered is not None:
            self._settle(*before.answered, text, session_id, evidence)
        if before.command is not None or read_command(text) is not None \
                or (session_id and session_id in self.no_history):
            return written      # a command is not a fact about the user; off the record, nothing is
        self.stream.touch(before.used)
        # An answer to a contradiction question settles it; it says nothing new to remember.
        answered_conflict = before.answered is not None and before.answered[0].kind == "conflict"
        if before.travel is not None:
            old = before.travel.item
            new = self.stream.add(before.travel.new_text, source="user_stated", importance=max(old.importance, 6),
                                  evidence=old.evidence + evidence, session_id=session_id,
                                  context={"revises": old.id}, merge=False)
            self.stream.supersede(old, new, f"changed on the user's request: \"{text}\"", session_id)
            written.append(new.id)
        elif not answered_conflict:
            kind = remember_as(text, turn_class)
            shared = SHARED.search(text) is not None
            if kind is MemoryKind.MEMORY and self.shared is not None and shared:
                # Stated as shared by a member: the household's, read by every member's recall.
                written.append(self.shared.add(text, source="user_stated", session_id=session_id, evidence=evidence,
                                               context=self.context_now()).id)
            elif not self.speaker_known and not shared:
                pass        # an unknown speaker's personal words belong to nobody here: not kept
            elif kind is MemoryKind.MEMORY:
                written += self._remember(text, before.conflict, session_id, evidence)
            elif kind is MemoryKind.EVENT:      # a request: kept a week, merged when repeated, never a fact
                written.append(self.stream.add(text, source="user_stated", kind=kind, session_id=session_id,
                                               evidence=evidence, context=self.context_now()).id)
        for promise in PROMISE_CUES.findall(reply_text or ""):
            self.profiles.add_commitment(self.user_id, session_id, promise.strip(), self.clock())
        holding = self.awaiting is not None and self.awaiting.kind == "conflict"
        if session is not None and turn_class == TurnClass.INFORMATION_CHANGE and not holding:
            self.refresh_profile(session)     # a contradiction being asked about waits for the answer
        return written

    def wrote(self, evidence: str) -> bool:
        """Whether a memory (the user's or the household's) cites this turn: its writes landed."""
        streams = [self.stream, *([self.shared] if self.shared is not None else [])]
        return any(evidence in r.evidence for stream in streams for r in stream.records()[0])

    def replay(self, inputs: dict[str, Any], *, session_id: str, turn: int) -> list[str]:
        """Redo a journaled turn's writes (`pending.py`), unless they landed before the crash;
        returns the ids written. The question left open by the replay is not this session's:
        the one open now is kept."""
        if self.wrote(evidence_id(session_id, turn)):
            return []
        text, turn_class = inputs["text"], inputs.get("turn_class", TurnClass.CHIT_CHAT)
        open_now = self.awaiting
        try:
            prepared = self.prepare(text, session_id=session_id, turn_class=turn_class, schema=None,
                                    language=inputs.get("language", "en"),
                                    awaiting=awaiting_from(inputs.get("awaiting"), self.stream))
            self.awaiting = prepared.awaiting
            if prepared.no_history:
                self.no_history.add(session_id)
            return self.after_reply(prepared.before, text, session_id=session_id, turn=turn, turn_class=turn_class,
                                    reply_text=inputs.get("reply_text", ""))
        finally:
            self.awaiting = open_now

    def refresh_profile(self, session: SessionSnapshot) -> int:
        """An important change — a lasting preference set or withdrawn — reaches the
        profile at once, not only at the end of the session (L8); returns audit entries."""
        if not self.speaker_known:
            return 0
        state, schema, withdrawn = session.state, session.schema, session.withdrawn
        profile = self.profiles.load(self.user_id)
        live = {slot: c for slot, c in state.constraints.items() if schema.key(c.key).durable and c.status == "active"
                and not drawn_from(c.words, state.session_id, self.forgotten)}
        unchanged = all(slot in profile.facts and profile.facts[slot].value == c.value
                        and profile.facts[slot].comparator == c.comparator for slot, c in live.items())
        if unchanged and not any(f.key in withdrawn and s not in live for s, f in profile.facts.items()):
            return 0
        now = self.clock()
        earlier = profile.last_session
        audit = update_profile(profile, state, schema, withdrawn, now=now, forgotten=self.forgotten)
        if earlier.get("id") != state.session_id:
            # This session is not the "last" one until it ends: "what did I book last
            # time?" asked now is about the one before.
            profile.last_session = earlier
        self.profiles.save(profile, audit, at=now)
        return len(audit)

    def _remember(self, text: str, conflict: Conflict | None, session_id: str, evidence: list[str]) -> list[str]:
        record = self.stream.add(text, source="user_stated", session_id=session_id, evidence=evidence,
                                 merge=conflict is None, context=self.context_now())
        if conflict is not None and conflict.old.id != record.id:
            if conflict.risk == HIGH_RISK:
                record.held = True
                self.stream.save(record, f"held: contradicts \"{conflict.old.text}\"; the user was asked",
                                 session_id)
                if self.awaiting is not None and self.awaiting.conflict is conflict:
                    self.awaiting.memory_id = record.id
                elif self.awaiting is None:
                    self.awaiting = Awaiting("conflict", record.id, conflict)
            elif conflict.risk == PREFERENCE:
                self.stream.supersede(conflict.old, record, "preference updated; the earlier one is kept as history",
                                      session_id)
            else:
                self.stream.supersede(conflict.old, record, "factual correction; the earlier statement is kept "
                                      "as a misstatement", session_id, misstatement=True)
        if conflict is None and record.merged == 1:
            self._to_consolidate.append(record.id)   # scored (if the rules abstained) and judged at session end
        if self.reflector.event_due(record):
            self.reports.append(self.reflector.reflect("event", session_id))
        return [record.id]

    def _settle(self, awaiting: Awaiting, yes: bool, text: str, session_id: str, evidence: list[str]) -> None:
        if awaiting.kind == "forget":
            if yes:
                said = [(r.text, r.session_id) for i in awaiting.memory_ids if (r := self.stream.get(i)) is not None]
                self.forgotten += said
                self.stream.forget_with_derived(list(awaiting.memory_ids), session_id)
                profile = self.profiles.load(self.user_id)
                audit = forget_drawn_from(profile, said, session_id)
                if audit:
                    self.profiles.save(profile, audit, at=self.clock())
            return
        if awaiting.kind == "erase":
            if yes:
                self.erase()
                # What this session holds came partly from what was just erased (the
                # state seeded from the profile): none of it is written back.
                self.no_history.add(session_id)
            return
        if awaiting.kind == "plan":
            if yes:
                self.planner.accept(awaiting.memory_id, session_id)
            else:
                self.planner.reject(awaiting.memory_id, text, session_id)
            return
        conflict = awaiting.conflict
        if conflict is None:
            return
        new = self.stream.get(awaiting.memory_id) if awaiting.memory_id else None
        if new is None:       # the held statement was not written (yet): write it now
            new = self.stream.add(conflict.new_text, source="user_stated", session_id=session_id, evidence=evidence,
                                  merge=False)
        if yes:
            new.held = False
            new.confirmed = True
            self.stream.save(new, "the user confirmed the change", session_id)
            self.stream.supersede(conflict.old, new, "high-risk correction confirmed by the user; the earlier "
                                  "statement is kept as a misstatement", session_id, misstatement=True)
        else:
            conflict.old.confirmed = True
            self.stream.save(conflict.old, "the user confirmed the earlier statement", session_id)
            new.held = False
            self.stream.supersede(new, conflict.old, "the user kept the earlier statement", session_id,
                                  misstatement=True)

    # --- sessions ----------------------------------------------------------------------

    def open_session(self, profile: UserProfile, schema: DomainSchema, language: str, session_id: str) -> Opening:
        """Apply retention, run the pre-conversation checks, and open with the last
        session, the checks' findings and a plan; the profile's preferences seed the
        session's state, to confirm."""
        now = self.clock()
        self.stream.maintain()
        self.checks = run_checks(self.profiles, self.stream, now, profile=profile)
        parts = [opening_line(profile, schema, language, now=now)]
        # The opening line already asks about every lasting preference: the stale ones too.
        parts += self.checks.lines(language, schema, stale=not profile.facts)
        for promise in self.checks.promises[:1]:
            self.profiles.keep_commitment(self.user_id, promise["id"], now)
        last = profile.last_session
        # The plan is looked up by what the last session was about (its goal as the state
        # held it, only as a query) and said in the domain's own task words.
        query = " ".join([last.get("goal") or "", schema.goal_text.get("en", "")]).strip() if last else ""
        keeping = [Condition(f.key, f.comparator, f.value, f.words, 0) for f in profile.facts.values()]
        plan: Plan | None = (self.planner.propose(query, session_id, language, schema=schema, keeping=keeping)
                             if query else None)
        if plan is not None:
            # The opening already read the preferences back: the plan's "because you told me" would say them twice.
            parts.append(plan.spoken(language, with_reason=not profile.facts))
            self.awaiting = Awaiting("plan", plan.record.id)
        line = joined_sentences(parts, language)
        if not profile.facts:
            return Opening(line)
        note = "Loaded from the profile, to confirm: " + ", ".join(
            f"{f.key} {f.comparator} {f.value}" for f in profile.facts.values())
        return Opening(line, seed_operations(profile), note)

    def reflection_due(self, profile: UserProfile) -> bool:
        """The scheduled reflection: the first session of a day, or a week since the last."""
        return self.reflector.scheduled_due(profile.last_session.get("reflected_at"), self.clock())

    def reflect(self, trigger: str, session_id: str) -> ReflectionReport:
        """Reflect now; a failure is logged and reported (the next schedule tries again)."""
        try:
            report = self.reflector.reflect(trigger, session_id)
        except Exception as exc:
            logger.bind(session=session_id).opt(exception=exc).warning(
                "session {}: {} reflection failed: {}: {}", session_id, trigger, type(exc).__name__, exc)
            report = ReflectionReport(trigger, errors=[f"{type(exc).__name__}: {exc}"])
        self.reports.append(report)
        return report

    def consolidate(self, session_id: str, max_calls: int = 10) -> dict[str, int]:
        """Session-end work that needs the LLM (blocking; off any voice turn): importance
        for what the rules could not score and the contradiction judge for this session's
        new memories. Each call is bounded; a failure leaves the rule result in place."""
        pending, self._to_consolidate = self._to_consolidate, []
        if self.llm is None:
            return {"scored": 0, "judged": 0, "conflicts": 0}
        return consolidate(self.stream, self.llm, pending, session_id, max_calls)

    def erase(self) -> int:
        """Forget the user entirely (U1): every memory and its vector, the profile, summaries,
        commitments and the audit log (a content-free tombstone stays). Returns the memories
        erased; the sessions' states and files are listed in `erased_sessions`."""
        self.erased_sessions += self.profiles.sessions_of(self.user_id)
        count = self.stream.erase()
        self.profiles.erase(self.user_id, keep_sessions=True)   # the index goes once states and files have
        self.awaiting, self._to_consolidate, self.reports = None, [], []
        return count

    def close_session(self, session_id: str, session: SessionSnapshot | None) -> int:
        """Fold the session into the profile and the summary pyramid; returns audit entries written.
        A session the user asked not to be remembered is not folded in, nor one with nobody
        known to be speaking (a household's profile is not one person's preferences)."""
        if (session_id and session_id in self.no_history) or not self.speaker_known:
            return 0
        self.consolidate(session_id)
        if self.llm is not None and any(r.trigger == "scheduled" for r in self.reports):
            # The day's scheduled reflection ran with rule wording at session start;
            # new patterns found now get the LLM's words.
            self.reflector.insight = self.llm.insight
            try:
                self.reports.append(self.reflector.reflect("scheduled", session_id))
            finally:
                self.reflector.insight = None
        now = self.clock()
        written = 0
        profile = self.profiles.load(self.user_id)
        if session is not None and session.state.version:
            audit = update_profile(profile, session.state, session.schema, session.withdrawn, now=now,
                                   forgotten=self.forgotten)
            written = len(audit)
        else:
            audit = []
            if not session_id:
                return 0
            profile.last_session = {"id": session_id, "ended_at": now, "goal": "", "status": "IN_PROGRESS",
                                    "conditions": [], "open": []}
        reports = [r for r in self.reports if r.trigger == "scheduled" and not r.errors]
        profile.last_session["reflected_at"] = now if reports else profile.last_session.get("reflected_at")
        self.profiles.save(profile, audit, at=now)
        said = [r.text for r in self.stream.records()[0]
                if r.session_id == session_id and r.kind == "memory" and r.current and r.source == "user_stated"]
        said.sort(key=len)
        language = session.language if session is not None else "en"
        schema = session.schema if session is not None else None
        self.pyramid.add_session(session_id, session_summary(profile.last_session, said, language, schema), now)
        return written
