"""Replay a recorded session through the full pipeline (P5)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from loguru import logger
from pipecat.frames.frames import CancelFrame, EndWorkerFrame, Frame, InputAudioRawFrame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.configs import MonologueConfig
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.stores.protocols import StateStore
from monologue.pipeline.audio_io import SessionAudio, load_session, write_wav
from monologue.pipeline.builder import AgentModels, TurnGate
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session
from monologue.processors.audio_out import ReplyRecorder
from monologue.processors.frames import Turn

TURN_STALL_SECS = 180.0


class ReplaySource(FrameProcessor):
    """One job: feed a recorded session into the pipeline as 16 kHz audio frames.

    Paced: in real time, as a microphone would. Fast: as fast as the machine
    allows, but each user turn waits until the agent has answered the previous
    one (`TurnGate`), so the conversation unfolds as it did live.
    """

    def __init__(self, session: SessionAudio, gate: TurnGate, *, chunk_ms: int = 20,
                 paced: bool = False, tail_silence_secs: float = 1.0) -> None:
        super().__init__()
        self._session = session
        self._gate = gate
        self._chunk = int(session.sample_rate * chunk_ms / 1000)
        self._paced = paced
        self._tail = np.zeros(int(tail_silence_secs * session.sample_rate), dtype=np.int16)
        self.finished = asyncio.Event()
        self._feeder: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, CancelFrame):
            await self._stop_feeding()
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self._feeder = self.create_task(self._feed(), name="replay-feed")

    async def _stop_feeding(self) -> None:
        if self._feeder is not None and not self._feeder.done():
            await self.cancel_task(self._feeder)
        self._feeder = None

    async def cleanup(self) -> None:
        await self._stop_feeding()
        await super().cleanup()

    async def _feed(self) -> None:
        samples = np.concatenate([self._session.samples, self._tail])
        rate = self._session.sample_rate
        started = time.perf_counter()
        for offset in range(0, samples.size, self._chunk):
            if self._paced:
                delay = started + offset / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            elif self._gate.busy and not await self._gate.wait_idle():
                logger.warning(f"a turn got no answer within {TURN_STALL_SECS:.0f} s; replay goes on")
            chunk = samples[offset: offset + self._chunk]
            await self.push_frame(InputAudioRawFrame(audio=chunk.tobytes(), sample_rate=rate, num_channels=1))
        if not await self._gate.wait_idle():
            logger.warning("the last turn got no answer in time; ending the replay")
        self.finished.set()
        await self.push_frame(EndWorkerFrame(reason="replay finished"))


@dataclass(frozen=True)
class ReplayResult:
    out_dir: Path
    turns: list[Turn]
    audio_secs: float
    wall_secs: float
    triggered_share: float
    interrupted: bool = False
    session_id: str = ""
    opening: str = ""

    @property
    def realtime_factor(self) -> float:
        return self.wall_secs / self.audio_secs if self.audio_secs else 0.0


@dataclass(frozen=True)
class ReplayOptions:
    """How a recording is replayed, and which session's state and memory it goes to."""

    paced: bool = False                        # fed at the speed it was spoken, not as fast as turns are answered
    handle_sigint: bool = False                # Ctrl-C ends the replay gracefully (the command line)
    session_id: str | None = None              # None: a new session
    store: StateStore | None = None            # working memory's store; None keeps the state in this process
    long_term: LongTermMemory | None = None    # the user's memory across sessions; None: nothing is kept


async def replay_audio(session: SessionAudio, config: MonologueConfig, models: AgentModels,
                       out_dir: Path, options: ReplayOptions | None = None) -> ReplayResult:
    options = options or ReplayOptions()
    gate = TurnGate(stall_secs=TURN_STALL_SECS)
    source = ReplaySource(session, gate, chunk_ms=config.audio.chunk_ms, paced=options.paced,
                          tail_silence_secs=config.replay.tail_silence_secs)
    recorder = ReplyRecorder()
    spec = SessionSpec(config, models, out_dir, session_id=options.session_id, store=options.store,
                       long_term=options.long_term, handle_sigint=options.handle_sigint, clock="timeline")

    def log_opening(conversation: Session) -> None:
        if conversation.long_term is not None:
            logger.info(f"opening line: {conversation.opening}")

    conversation = await run_session(spec, source, recorder, gate=gate, hooks=SessionHooks(on_start=log_opening))
    _write_audio(out_dir, session, recorder)
    if recorder.opening:
        write_wav(out_dir / "opening.wav", np.concatenate(recorder.opening), recorder.sample_rate or 22050)
    # An id is reported only where working memory stored a state under it.
    state_id = conversation.session_id if conversation.memory is not None else ""
    return ReplayResult(out_dir, conversation.turns, session.duration_secs, conversation.wall_secs,
                        conversation.triggered_share, interrupted=not source.finished.is_set(),
                        session_id=state_id, opening=conversation.opening)


def _write_audio(out_dir: Path, session: SessionAudio, recorder: ReplyRecorder) -> None:
    """reply.wav: the agent alone on the session timeline; conversation.wav: user left, agent right."""
    reply, rate = recorder.render(min_secs=session.duration_secs)
    write_wav(out_dir / "reply.wav", reply, rate)
    agent16, _ = recorder.render(min_secs=session.duration_secs, sample_rate=session.sample_rate)
    user = np.zeros(agent16.size, dtype=np.int16)
    user[: session.samples.size] = session.samples[: agent16.size]
    write_wav(out_dir / "conversation.wav", np.stack([user, agent16], axis=1), session.sample_rate)


async def replay_path(path: str | Path, config: MonologueConfig, models: AgentModels,
                      out_dir: Path, options: ReplayOptions | None = None) -> ReplayResult:
    session = load_session(path, sample_rate=config.audio.sample_rate,
                           max_secs=config.replay.max_seconds)
    return await replay_audio(session, config, models, out_dir, options)
