"""Where the agent's voice goes: a session-timeline recording (replay) or a speaker."""

from __future__ import annotations

import time

import numpy as np
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.processors.frames import ReplyAudioFrame


class ReplyRecorder(FrameProcessor):
    """One job: lay the agent's audio on the session timeline.

    A reply starts where a live agent would have started it: the end of the user's
    speech, plus the turn-end wait, plus the measured processing time to first
    audio; it never overlaps the agent's previous reply.
    """

    def __init__(self) -> None:
        super().__init__()
        self.sample_rate: int | None = None
        self._pieces: list[tuple[float, np.ndarray]] = []
        self._cursor = 0.0
        self._turn_starts: dict[int, float] = {}
        self.opening: list[np.ndarray] = []    # turn 0, the greeting: kept off the recorded timeline

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ReplyAudioFrame):
            self._place(frame)
        await self.push_frame(frame, direction)

    def _place(self, frame: ReplyAudioFrame) -> None:
        turn = frame.turn
        now = time.perf_counter()
        turn.mark("first_audio", now)
        self.sample_rate = self.sample_rate or frame.sample_rate
        if turn.turn_id == 0:
            self.opening.append(np.frombuffer(frame.audio, dtype=np.int16))
            return
        if turn.turn_id not in self._turn_starts:
            start = turn.end_pts + turn.end_wait_secs + (turn.marks["first_audio"] - turn.detected_at)
            self._turn_starts[turn.turn_id] = max(start, self._cursor)
            turn.tts.session_start_secs = round(self._turn_starts[turn.turn_id], 3)
            self._cursor = self._turn_starts[turn.turn_id]
        samples = np.frombuffer(frame.audio, dtype=np.int16)
        self._pieces.append((self._cursor, samples))
        self._cursor += samples.size / frame.sample_rate

    @property
    def end_secs(self) -> float:
        return self._cursor

    def render(self, min_secs: float = 0.0, sample_rate: int | None = None) -> tuple[np.ndarray, int]:
        """The agent's channel as int16 mono, at least `min_secs` long."""
        rate = sample_rate or self.sample_rate or 22050
        total = int(max(self._cursor, min_secs) * rate) + 1
        out = np.zeros(total, dtype=np.int32)
        for start, samples in self._pieces:
            if self.sample_rate and rate != self.sample_rate:
                import soxr
                samples = soxr.resample(samples, self.sample_rate, rate)
                samples = np.asarray(samples, dtype=np.int16)
            begin = int(start * rate)
            out[begin: begin + samples.size] += samples[: max(total - begin, 0)]
        return np.clip(out, -32768, 32767).astype(np.int16), rate


