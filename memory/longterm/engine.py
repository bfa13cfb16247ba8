"""Long-term memory as the pipeline uses it: an async adapter over `LongTermCore`.

The core (core.py) does the work in plain blocking methods. This adapter gives it to
an event loop: worker threads, the latency budget on the reply's path, one lock so the
core runs one call at a time, background writes that are retried when they fail, and
the failures counted for the trace.

Long-term memory does not call working memory. Its methods take plain data (a
`SessionSnapshot`) and return what the session should change (`AfterReply`,
`Opening`); the reply processor applies those. `start_session`/`end_session` remain
for the session code that hands over a working memory: they take the snapshot and
seed the state here, through the small `WorkingSession` protocol.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from typing import Any, Protocol

from loguru import logger

from monologue.memory.domain.schema import DomainSchema, load_schema
from monologue.memory.longterm.checks import PreConversationChecks
from monologue.memory.longterm.core import LongTermCore
from monologue.memory.longterm.exchange import AfterReply, Awaiting, BeforeReply, Opening, Prepared, SessionSnapshot
from monologue.memory.longterm.pending import turn_inputs
from monologue.memory.longterm.records import UserProfile
from monologue.memory.longterm.reflection import ReflectionReport
from monologue.memory.longterm.stream import Embed, MemoryStream
from monologue.memory.longterm.user_memory import (
    RECALL_WEIGHTS,
    LongTermLLM,
    LongTermOptions,
    MemoryTools,
    SpeakerOptions,
)
from monologue.memory.longterm.writing import restore_after
from monologue.memory.stores.journal import JournalEntry, SqlTurnJournal, evidence_id
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.protocols import MemoryStore, ProfileStore
from monologue.memory.working.state import Change, Operation, SessionState
from monologue.memory.working.turn_classes import TurnClass

__all__ = ["RECALL_WEIGHTS", "AfterReply", "AnsweredTurn", "Awaiting", "BeforeReply", "JournalEntry",
           "LongTermMemory", "LongTermOptions", "LongTermStores", "LoopBoundLLM", "MemoryTools", "Opening",
           "SessionSnapshot", "SpeakerOptions", "WorkingSession", "session_snapshot"]


class LoopBoundLLM(LongTermLLM, Protocol):
    """The core's LLM, answering from worker threads through the loop it is bound to (`MemoryLLM`)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None: ...


class _SessionSettings(Protocol):
    @property
    def language(self) -> str: ...


class WorkingSession(Protocol):
    """What `start_session`/`end_session` use of a working memory (`WorkingMemory` fits)."""

    @property
    def session_id(self) -> str: ...
    @property
    def schema(self) -> DomainSchema: ...
    @property
    def settings(self) -> _SessionSettings: ...
    @property
    def state(self) -> SessionState: ...
    def history(self) -> list[Change]: ...
    async def seed(self, ops: list[Operation], note: str) -> bool: ...


def session_snapshot(memory: WorkingSession) -> SessionSnapshot:
    """The session as long-term memory reads it. Blocking (store reads): run it off the loop."""
    return SessionSnapshot(memory.state, memory.schema, SessionSnapshot.withdrawn_keys(memory.history()),
                           memory.settings.language)


def _failure(task: asyncio.Future[Any], session_id: str, what: str) -> bool:
    """Whether a finished task failed; a failure is logged with the session id (nobody
    awaits these tasks, so this is where their errors are seen)."""
    if task.cancelled() or task.exception() is None:
        return False
    exc = task.exception()
    logger.bind(session=session_id).opt(exception=exc).warning(
        "session {}: {} failed: {}: {}", session_id, what, type(exc).__name__, exc)
    return True


@dataclass(frozen=True)
class AnsweredTurn:
    """A turn as it was said and answered: what `after_reply` writes in the background, and
    keeps to retry with the next turn when the write fails."""
    before: BeforeReply                     # what long-term memory added to the reply
    text: str                               # what the user said
    session_id: str
    turn: int
    turn_class: str
    reply_text: str = ""                    # what the agent said back
    session: SessionSnapshot | None = None  # the session's state after this turn (`session_snapshot`)
    pending: JournalEntry | None = None     # its journal entry (`journal_turn`), deleted once the write has landed
    retried: bool = False                   # an earlier try may have landed its memory: it is not written twice


@dataclass(frozen=True)
class LongTermStores:
    """Where long-term memory keeps what is not the stream. `profiles`: profiles, summaries
    and the audit log (None: in memory only). `journal`: where a turn's writes wait until
    they have landed (`journal_turn`); None: the memory store's own database (none for a
    store that is not SQL)."""
    profiles: ProfileStore | None = None
    journal: SqlTurnJournal | None = None


class LongTermMemory:
    """One user's long-term memory across sessions (seed 002's memory stream), for an event loop."""

    def __init__(self, store: MemoryStore, user_id: str, tools: MemoryTools | None = None,
                 options: LongTermOptions | None = None, llm: LoopBoundLLM | None = None,
                 speaker: SpeakerOptions | None = None, stores: LongTermStores | None = None) -> None:
        stores = stores or LongTermStores()
        journal = stores.journal
        self.core = LongTermCore(store, user_id, tools=tools, options=options, profiles=stores.profiles,
                                 llm=llm, speaker=speaker)
        self._llm = llm
        self.options = self.core.options
        self.failed_writes: list[str] = []
        self._retry: list[AnsweredTurn] = []
        self._failed_recalls = 0           # worker failures, abandoned or not
        self._failed_background = 0        # background tasks (`spawn`) that raised
        # The core runs one call at a time. One lock per event loop: a `chat` script with
        # several sessions runs each in its own loop, and a lock is bound to the loop it
        # was first awaited in.
        self._lock_and_loop: tuple[asyncio.Lock, asyncio.AbstractEventLoop] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        # A turn's own writes (`spawn(..., turn_writes=True)`): the next recall waits for them,
        # so a correction said in one turn is what the next turn's question is answered from.
        self._turn_writes: set[asyncio.Task[Any]] = set()
        self._folder = ""                  # where this session's trace files go (`start_session`)
        self.journal = journal if journal is not None else (
            SqlTurnJournal(store.db) if isinstance(store, SqlMemoryStore) else None)
        self.replayed: list[int] = []      # journal entries of dead writers replayed here

    # --- the core's parts, for inspection and tests --------------------------------------

    @property
    def user_id(self) -> str:
        return self.core.user_id

    @property
    def embed(self) -> Embed | None:
        """The sentence encoder memories are recalled with (the dialogue reuses it)."""
        return self.core.embed

    @property
    def stream(self) -> MemoryStream:
        return self.core.stream

    @property
    def profiles(self) -> ProfileStore:
        return self.core.profiles

    @property
    def reports(self) -> list[ReflectionReport]:
        return self.core.reports

    @property
    def checks(self) -> PreConversationChecks:
        return self.core.checks

    @property
    def awaiting(self) -> Awaiting | None:
        """The question the agent asked that the user's next turn answers."""
        return self.core.awaiting

    @property
    def situation(self) -> dict[str, Any]:
        return self.core.situation

    @situation.setter
    def situation(self, situation: dict[str, Any]) -> None:
        self.core.situation = situation

    def profile(self) -> UserProfile:
        return self.core.profile()

    def warm_up(self) -> float:
        return self.core.warm_up()

    def failures(self) -> dict[str, int]:
        """Failures so far, by kind (only those that happened): each fell back to the
        rules or was kept to retry, and each was logged with its session."""
        counts = {
            "writes": len(self.failed_writes),
            "recalls": self._failed_recalls,
            "background": self._failed_background,
            "reflections": sum(1 for r in self.core.reports if r.errors),
            "summaries": self.core.pyramid.failures,
            "importance": self.core.stream.scorer_failures,
        }
        return {kind: n for kind, n in counts.items() if n}

    # --- before the reply (on its critical path) ---------------------------------------


    @property
    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock_and_loop is None or self._lock_and_loop[1] is not loop:
            self._lock_and_loop = (asyncio.Lock(), loop)
        return self._lock_and_loop[0]

    async def before_reply(self, text: str, *, session_id: str, turn_class: str,
                           schema: DomainSchema | None = None, language: str = "en") -> BeforeReply:
        """Everything long-term memory adds to this reply — never longer than the budget
        once the previous turn's writes are done (they hold the lock).

        A worker thread cannot be stopped. Work still running at the budget is abandoned
        whole: its result is dropped, so it changes nothing (the core's `prepare` only
        reads; the question awaiting an answer is kept only from a result that arrived in
        time), and the lock stays held until its thread ends, so it never runs beside the
        writes that follow."""
        started = time.perf_counter()
        if not await self._writes_done_within(self.options.writes_wait_secs, session_id):
            out = BeforeReply(timed_out=True)
            out.ms = (time.perf_counter() - started) * 1000
            out.failures = self.failures()
            return out
        work = asyncio.ensure_future(asyncio.to_thread(
            self._prepare, text, session_id, turn_class, schema, language, self.core.awaiting))
        try:
            prepared = await asyncio.wait_for(asyncio.shield(work), self.options.budget_ms / 1000)
        except TimeoutError:
            self._release_when_done(work, session_id)
            out = BeforeReply(timed_out=True)
        except Exception:         # the store failed (out of reach): the reply goes on without recall
            self._release_when_done(work, session_id)
            out = BeforeReply(timed_out=True)
        except BaseException:     # the reply was cancelled while it ran
            self._release_when_done(work, session_id)
            raise
        else:
            try:
                self.core.awaiting = prepared.awaiting
                if prepared.no_history and session_id:
                    self.core.no_history.add(session_id)
                if prepared.introduced:
                    self.core.introduce(prepared.introduced)
                    if session_id:       # the session is theirs too: an erase of theirs finds its files
                        await asyncio.to_thread(self.core.profiles.record_session, prepared.introduced, session_id,
                                                self._folder)
            finally:
                self._lock.release()     # also when the reply is cancelled during that write
            out = prepared.before
        out.ms = (time.perf_counter() - started) * 1000
        out.failures = self.failures()
        return out

    def _prepare(self, text: str, session_id: str, turn_class: str, schema: DomainSchema | None, language: str,
                 awaiting: Awaiting | None) -> Prepared:
        """The worker thread's half of `before_reply`."""
        return self.core.prepare(text, session_id=session_id, turn_class=turn_class, schema=schema,
                                 language=language, awaiting=awaiting)

    async def _writes_done_within(self, secs: float, session_id: str) -> bool:
        """The earlier turns' writes landed and the lock taken, within `secs` in all. A write
        task spawned just before may not have taken the lock yet: waiting for the lock alone
        could read the profile before the turn's correction reached it."""
        deadline = time.perf_counter() + secs
        loop = asyncio.get_running_loop()     # a `chat` script runs each session in its own loop
        pending = [t for t in self._turn_writes if not t.done() and t.get_loop() is loop]
        if pending:
            await asyncio.wait(pending, timeout=secs)
        return await self._lock_within(max(0.0, deadline - time.perf_counter()), session_id)

    async def _lock_within(self, secs: float, session_id: str) -> bool:
        """Take the lock, or give up after `secs`: the previous turn's writes hold it, and a
        store out of reach can hold them for its whole retry budget. Given up, the lock is
        released again the moment it is got, so nothing is left holding it."""
        acquiring = asyncio.ensure_future(self._lock.acquire())
        release_when_got = lambda got: None if got.cancelled() else self._lock.release()  # noqa: E731
        try:
            done, _ = await asyncio.wait({acquiring}, timeout=secs)
        except asyncio.CancelledError:
            acquiring.add_done_callback(release_when_got)
            raise
        if done:
            return True
        acquiring.add_done_callback(release_when_got)
        logger.warning(f"session {session_id}: the previous turn's memory writes did not finish within {secs:.0f} s "
                       "(is the memory database reachable?); this reply goes without recall")
        return False

    def _release_when_done(self, work: asyncio.Future[Prepared], session_id: str) -> None:
        """Hold the lock until the worker's thread ends; its result, if any, is dropped."""
        def done(task: asyncio.Future[Prepared]) -> None:
            self._lock.release()
            if _failure(task, session_id, "long-term recall"):
                self._failed_recalls += 1

        work.add_done_callback(done)

    async def recall(self, query: str, *, exclude_session: str = "") -> tuple[list[str], float, bool]:
        """(memory texts, ms spent, timed out) — recall alone, within the budget."""
        out = await self.before_reply(query, session_id=exclude_session, turn_class=TurnClass.CHIT_CHAT)
        return out.recalled, out.ms, out.timed_out

    # --- after the reply (in the background) -------------------------------------------

    async def journal_turn(self, before: BeforeReply, text: str, *, session_id: str, turn: int, turn_class: str,
                           reply_text: str = "", language: str = "en") -> JournalEntry | None:
        """Before the turn is acknowledged: its inputs, journaled durably (one small insert),
        so that its writes (`after_reply`, in the background) survive this process dying.
        The entry's `turn` is the store's number for the turn; pass the entry to `after_reply`.
        None: nothing to journal (no journal, a turn that writes nothing), or the journal
        failed or did not answer within `journal_wait_secs` (logged and counted; the write
        still runs, but the turn is not durable until it lands)."""
        if self.journal is None or (session_id and session_id in self.core.no_history) \
                or (before.command is not None and before.answered is None):
            return None
        inputs = turn_inputs(before, text, turn_class=turn_class, reply_text=reply_text, language=language)
        work = asyncio.ensure_future(asyncio.to_thread(self.journal.add, self.user_id, session_id, turn, inputs))
        try:
            return await asyncio.wait_for(asyncio.shield(work), self.options.journal_wait_secs)
        except TimeoutError:
            # Left running: once the store answers, the entry is there for the next writer, whose
            # replay finds this turn's memory already written and only deletes the entry.
            self.failed_writes.append(f"turn {turn}: journal: no answer within {self.options.journal_wait_secs} s")
            logger.bind(session=session_id).warning(
                "session {}: the journal did not answer within {} s (is the memory database reachable?); "
                "turn {} is acknowledged before its memory is durable", session_id, self.options.journal_wait_secs,
                turn)
            return None
        except Exception as exc:
            self.failed_writes.append(f"turn {turn}: journal: {type(exc).__name__}: {exc}")
            logger.bind(session=session_id).opt(exception=exc).warning(
                "session {}: journaling turn {} failed; its memory is written but not durable until then: {}: {}",
                session_id, turn, type(exc).__name__, exc)
            return None

    async def after_reply(self, answered: AnsweredTurn) -> AfterReply:
        """The background half of a turn; returns what the session should change.

        `answered.session`: the session's state after this turn (see `session_snapshot`), so
        a lasting change reaches the profile at once. `answered.pending`: the turn's journal
        entry (`journal_turn`): its number is the turn's, and it is deleted once the writes
        have landed. A failed write is logged, counted and kept to retry with the next turn
        and at the end of the session (and by the next worker, from the journal): an
        acknowledged turn is not lost."""
        if answered.pending is not None:
            answered = replace(answered, turn=answered.pending.turn)
        async with self._lock:
            written = await self._run_writes(self._retried(answered.session) + [answered])
        return AfterReply(written[-1] or [], restore_after(answered.before))

    def after_reply_now(self, answered: AnsweredTurn) -> list[str]:
        """The worker thread's half of `after_reply`; returns the ids written. `retried`: an
        earlier try may have landed its memory before it failed: it is not written twice."""
        a = answered
        if a.retried and self.core.wrote(evidence_id(a.session_id, a.turn)):
            written: list[str] = []
        else:
            written = self.core.after_reply(a.before, a.text, session_id=a.session_id, turn=a.turn,
                                            turn_class=a.turn_class, reply_text=a.reply_text, session=a.session)
        if a.pending is not None and self.journal is not None:
            self.journal.done(a.pending.id)
        return written

    def _retried(self, session: SessionSnapshot | None) -> list[AnsweredTurn]:
        """The failed writes to try again, reading the session as it is now: the state they
        saw when they failed may since have changed."""
        return [replace(w, session=session, retried=True) if session is not None else replace(w, retried=True)
                for w in self._retry]

    async def _run_writes(self, writes: list[AnsweredTurn]) -> list[list[str] | None]:
        """Run the writes in order (the caller holds the lock); the ids each wrote (None: it failed)."""
        self._retry = []
        written: list[list[str] | None] = []
        for w in writes:
            try:
                written.append(await asyncio.to_thread(self.after_reply_now, w))
            except Exception as exc:
                written.append(None)
                self.failed_writes.append(f"turn {w.turn}: {type(exc).__name__}: {exc}")
                self._retry.append(w)
                logger.bind(session=w.session_id).opt(exception=exc).warning(
                    "session {}: long-term write for turn {} failed, kept to retry: {}: {}",
                    w.session_id, w.turn, type(exc).__name__, exc)
        return written

    # --- the journal of a dead writer ----------------------------------------------------

    async def replay_pending(self) -> int:
        """Replay the journaled turns that a writer left unfinished (it died, or its lease
        ran out: `journal_lease_secs`), oldest first; returns how many were replayed. Each is
        claimed first, so two workers opening the same user do not both replay it, and a
        turn whose writes had landed is not written again (`LongTermCore.replay`)."""
        if self.journal is None:
            return 0
        async with self._lock:
            try:
                return await asyncio.to_thread(self._replay_now)
            except Exception as exc:     # the store out of reach: the session opens; the next start replays
                self.failed_writes.append(f"journal replay: {type(exc).__name__}: {exc}")
                logger.opt(exception=exc).warning(
                    f"long-term memory of {self.user_id!r}: the journal could not be replayed now "
                    f"({type(exc).__name__}: {exc}); kept for the next start")
                return 0

    def _replay_now(self) -> int:
        assert self.journal is not None
        replayed = 0
        for entry in self.journal.pending(self.user_id, stale_before=time.time() - self.options.journal_lease_secs):
            if not self.journal.claim(entry):
                continue        # another worker took it, or an erase (replayed just before) deleted it
            try:
                self.core.replay(entry.inputs, session_id=entry.session_id, turn=entry.turn)
            except Exception as exc:        # left in the journal: the next start tries again
                self.failed_writes.append(f"replay of turn {entry.turn}: {type(exc).__name__}: {exc}")
                logger.bind(session=entry.session_id).opt(exception=exc).warning(
                    "session {}: replaying turn {} from the journal failed, kept for the next start: {}: {}",
                    entry.session_id, entry.turn, type(exc).__name__, exc)
                continue
            self.journal.done(entry.id)
            self.replayed.append(entry.id)
            replayed += 1
        if replayed:
            logger.info(f"long-term memory of {self.user_id!r}: {replayed} journaled turn(s) of an unfinished "
                        "writer replayed")
        return replayed

    # --- sessions ----------------------------------------------------------------------

    async def open_session(self, session_id: str, *, schema: DomainSchema | None = None,
                           language: str = "en") -> Opening:
        """Run the pre-conversation checks, reflect if the schedule says so (in the
        background), and return the opening line (with a plan) and the profile's
        preferences to seed the session's state with."""
        if self._llm is not None:
            self._llm.bind(asyncio.get_running_loop())
        await self.replay_pending()      # before the checks and the opening read the stream
        profile = await asyncio.to_thread(self.core.profile)
        async with self._lock:
            opening = await asyncio.to_thread(self.core.open_session, profile, schema or load_schema(),
                                              language, session_id)
        if self.core.reflection_due(profile):
            self.spawn(self._reflect_later("scheduled", session_id), session_id=session_id)
        return opening

    async def start_session(self, memory: WorkingSession | None, session_id: str = "", folder: str = "") -> str:
        """`open_session` for a session with a working memory: its state is seeded with
        the profile's preferences here. Returns the opening line. `folder`: where the
        session writes its trace files (an erase deletes them)."""
        session_id = session_id or (memory.session_id if memory else "")
        self._folder = folder
        if session_id:
            await asyncio.to_thread(self.core.profiles.record_session, self.user_id, session_id, folder)
        opening = await self.open_session(session_id, schema=memory.schema if memory else None,
                                          language=memory.settings.language if memory else "en")
        if memory is not None and opening.seed:
            await memory.seed(opening.seed, opening.seed_note)
        return opening.line

    async def _reflect_later(self, trigger: str, session_id: str) -> None:
        async with self._lock:
            await asyncio.to_thread(self.core.reflect, trigger, session_id)

    async def close_session(self, session_id: str, session: SessionSnapshot | None = None) -> int:
        """Finish the background writes (retrying failed ones), then fold the session into
        the profile and the summary pyramid; returns audit entries written."""
        await self.drain()
        if self._retry:
            async with self._lock:
                await self._run_writes(self._retried(session))
        await self.replay_pending()      # a writer that died during this session (its lease has run out)
        async with self._lock:
            return await asyncio.to_thread(self.core.close_session, session_id, session)

    async def end_session(self, memory: WorkingSession | None, session_id: str = "") -> int:
        """`close_session` for a session with a working memory: its state is read here,
        after the background work (which may still change it) is done."""
        await self.drain()
        session = await asyncio.to_thread(session_snapshot, memory) if memory is not None else None
        return await self.close_session(session_id or (memory.session_id if memory else ""), session)

    # --- background work ----------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], *, session_id: str = "", turn_writes: bool = False) -> None:
        """Run background memory work, kept referenced until it finishes; a failure is
        logged and counted. `turn_writes`: a turn's writes, which the next recall waits for
        (within `writes_wait_secs`); other work (reflection) nothing waits for."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        if turn_writes:
            self._turn_writes.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            self._background.discard(task)
            self._turn_writes.discard(task)
            if _failure(task, session_id, "background memory work"):
                self._failed_background += 1

        task.add_done_callback(done)

    async def drain(self) -> None:
        """Wait for the background work (its failures are reported by `spawn`)."""
        if self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
