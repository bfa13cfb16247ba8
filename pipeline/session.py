"""One conversation's lifecycle, written once for every way in (chat, talk, replay, a server).

    working memory → processors → long-term memory's opening line → the worker runs
    → trace closed → long-term session ended (also when the run fails or is stopped)

A way in brings only what it alone knows: where the user's turns come from (the source
processor), where the agent's voice goes (the sink), and what to show the person while
the session runs (hooks). Everything else about a session happens here, in one order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pipecat.processors.frame_processor import FrameProcessor

from monologue.configs import MonologueConfig
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.stores.protocols import ActionStore, StateStore
from monologue.memory.working.conversation import ConversationLog, StoredTranscript, Utterance
from monologue.memory.working.engine import WorkingMemory
from monologue.pipeline.builder import (
    AgentModels,
    AgentProcessors,
    SessionMemories,
    TurnGate,
    TurnHooks,
    action_store,
    build_processors,
    make_worker,
    run_worker,
    session_memory,
)
from monologue.processors.frames import Turn
from monologue.processors.playout import PlayoutClock

SessionMode = Literal["speech", "text"]


def _write_report(out_dir: Path) -> None:
    """report.html beside the trace (E4): written after every session, in milliseconds."""
    from loguru import logger

    from monologue.pipeline.report import write_report

    try:
        write_report(out_dir / "trace.jsonl")
    except OSError as exc:       # a full disk must not turn a finished session into a failure
        logger.warning("could not write the session report in {}: {}", out_dir, exc)


def _erase_sessions(spec: SessionSpec, long_term: LongTermMemory, session_id: str) -> None:
    """After "forget everything about me": the user's session states (this one's included, now
    that it has ended), what was done for them, and their sessions' files."""
    from loguru import logger

    from monologue.memory.stores.erasure import remove_session_files

    sessions, long_term.core.erased_sessions = long_term.core.erased_sessions, []
    ids = sorted({s for s, _ in sessions} | {session_id})
    if spec.store is not None:
        spec.store.erase_sessions(ids)
    (spec.actions or action_store(spec.store)).erase(long_term.user_id)
    files = remove_session_files([folder for _, folder in sessions])
    if long_term.journal is not None:
        long_term.journal.forget_sessions(ids)
    long_term.core.profiles.forget_sessions(long_term.user_id)
    logger.info(f"erase: {len(ids)} session state(s) and {len(files)} file(s) of {long_term.user_id!r} deleted")


def _said_before(transcript: StoredTranscript) -> list[Utterance]:
    """What was said in this session by the worker that had it before (none if unreadable)."""
    from loguru import logger

    try:
        return transcript.load()
    except Exception as exc:    # the state still continues; only the prompt window starts empty
        logger.warning(f"session {transcript.session_id}: what was said before could not be read "
                       f"({type(exc).__name__}: {exc}); the conversation continues without it")
        return []


def _last_turn(memory: WorkingMemory) -> int:
    try:
        return memory.state.turn
    except Exception:           # unreadable now: the commit that follows says so
        return 0


@runtime_checkable
class NumbersTurns(Protocol):
    """A stage that numbers the user's turns (the VAD; a text source): a continued session's
    turns are numbered on from its last one."""

    def continue_after(self, last_turn: int) -> None: ...


@dataclass
class SessionSpec:
    """What a session runs on and where its record goes."""

    config: MonologueConfig
    models: AgentModels
    out_dir: Path | None = None              # trace.jsonl and transcript.txt; None writes no files
    session_id: str | None = None            # None: a new one; an existing id continues its stored state
    store: StateStore | None = None          # working memory's store; None keeps the state in this process
    memory: WorkingMemory | None = None      # working memory made by the caller (tests); None: made from config
    long_term: LongTermMemory | None = None  # the user's memory across sessions; None: nothing is kept
    actions: ActionStore | None = None       # where actions are recorded; None: beside the states (or in memory)
    mode: SessionMode = "speech"             # text: typed turns in, text out (no VAD, ASR or TTS)
    handle_sigint: bool = False              # Ctrl-C ends the worker gracefully (the command line)
    # Processors of the way in that watch a turn go by (a room's state panel): placed after the
    # monologue stage, where each `UserTurnFrame` carries its state update, before the reply.
    taps: tuple[FrameProcessor, ...] = ()
    clock: PlayoutClock = "live"             # the agent's voice: played live, or laid on a replay's timeline


@dataclass
class Session:
    """One conversation: its id, memories, processors and opening line.

    The hooks see it while it runs; `run_session` returns it once it has ended.
    """

    session_id: str
    memory: WorkingMemory | None
    long_term: LongTermMemory | None
    processors: AgentProcessors
    opening: str = ""        # long-term memory's greeting, spoken before the user's first turn
    wall_secs: float = 0.0   # from the worker's start to the end of the long-term session
    transcript: StoredTranscript | None = None   # what was said, kept beside the state (with a store)

    @property
    def turns(self) -> list[Turn]:
        """The turns answered and traced so far."""
        return self.processors.trace.turns

    @property
    def triggered_share(self) -> float:
        return self.processors.classifier.triggered_share


@dataclass
class SessionHooks:
    """How a way in follows its session. All optional; each runs on the event loop, so keep it short."""

    # Memories started and the opening line known; the worker is about to run.
    on_start: Callable[[Session], None] | None = None
    # A turn was answered and traced (with the working memory it may have changed).
    on_turn: Callable[[Turn, WorkingMemory | None], None] | None = None
    # The session is over and its long-term session ended; also after an error or Ctrl-C.
    on_end: Callable[[Session], None] | None = None


def session_pipeline(processors: AgentProcessors, source: FrameProcessor, sink: FrameProcessor | None,
                     mode: SessionMode = "speech", taps: tuple[FrameProcessor, ...] = ()) -> list[FrameProcessor]:
    """source → the agent's stages → sink → trace. Text mode has no audio stages and no sink.
    `taps` watch each turn between the monologue and the reply."""
    if mode == "speech":
        stages: list[FrameProcessor] = processors.before_output()
    else:
        stages = [processors.classifier, processors.monologue, processors.reply]
    at = stages.index(processors.reply)
    stages = [*stages[:at], *taps, *stages[at:]]
    return [source, *stages, *([sink] if sink is not None else []), processors.trace]


async def run_session(spec: SessionSpec, source: FrameProcessor, sink: FrameProcessor | None = None, *,
                      gate: TurnGate | None = None, hooks: SessionHooks | None = None) -> Session:
    """Run one conversation from `source` to `sink` until the source ends it or it is stopped.

    `gate` counts the turns the agent has not finished answering, for a source that feeds
    the next turn only once the last one was answered (replay, chat): the VAD opens a turn
    (a text source opens its own), the trace closes it.
    """
    hooks = hooks or SessionHooks()
    memory = spec.memory or session_memory(spec.config, spec.models, spec.session_id, spec.store)
    # Without working memory no state is stored, but long-term memory still files the session under an id.
    session_id = memory.session_id if memory is not None else spec.session_id or ""

    spoken = spec.mode == "speech"
    # With a store, what each side says is kept beside the state: a session continued (its id
    # given again, on this worker or another) carries on with the same conversation window,
    # numbers its turns on from the last one, and is not greeted again.
    transcript = StoredTranscript(memory.store, session_id) if memory is not None and spec.store is not None else None
    log = ConversationLog(on_add=transcript)
    resumed_after = 0
    if transcript is not None and spec.session_id:
        log.restore(await asyncio.to_thread(_said_before, transcript))
        resumed_after = max(log.last_turn, await asyncio.to_thread(_last_turn, memory) if memory else 0)
    continued = resumed_after > 0 or len(log) > 0      # only the opening was said: still continued

    def turn_done(turn: Turn) -> None:
        if hooks.on_turn is not None:
            hooks.on_turn(turn, memory)
        if gate is not None and not spoken:
            gate.turn_done(turn)

    # With a voice the next turn may come once the reply is made: how much of it is heard
    # depends on when the user speaks next, and it is traced (turn_done) only then.
    processors = build_processors(
        spec.config, spec.models, spec.out_dir, clock=spec.clock,
        memories=SessionMemories(memory, spec.long_term, spec.actions or action_store(spec.store), log, continued),
        hooks=TurnHooks(on_turn_end=gate.turn_started if gate is not None else None, on_turn_done=turn_done,
                        on_reply_produced=gate.turn_done if gate is not None and spoken else None))
    if resumed_after:
        for numbering in (processors.vad, source):
            if isinstance(numbering, NumbersTurns):
                numbering.continue_after(resumed_after)
    worker = make_worker(session_pipeline(processors, source, sink, spec.mode, spec.taps))
    session = Session(session_id, memory, spec.long_term, processors, transcript=transcript)
    if spec.long_term is not None:
        opening = await spec.long_term.start_session(
            memory, session_id=session_id, folder=str(spec.out_dir.resolve()) if spec.out_dir is not None else "")
        if not continued:      # a continued conversation is not greeted again
            session.opening = opening
            # Committed (to the log and the state) as far as it is heard; the first turn waits for it.
            processors.monologue.after_opening(processors.reply.set_opening(session.opening))
    if hooks.on_start is not None:
        hooks.on_start(session)
    started = time.perf_counter()
    try:
        await run_worker(worker, handle_sigint=spec.handle_sigint)
    finally:
        processors.trace.close()
        if transcript is not None:
            await asyncio.to_thread(transcript.close)
        if spec.out_dir is not None and spec.config.trace.enabled:
            await asyncio.to_thread(_write_report, spec.out_dir)   # file work, off the rooms' event loop
        if spec.long_term is not None:
            await spec.long_term.end_session(memory, session_id=session_id)
            if spec.long_term.core.erased_sessions:
                await asyncio.to_thread(_erase_sessions, spec, spec.long_term, session_id)
        session.wall_secs = time.perf_counter() - started
        if hooks.on_end is not None:
            hooks.on_end(session)
    return session
