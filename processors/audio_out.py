"""Where the agent's voice goes: a session-timeline recording (replay) or a speaker."""

from __future__ import annotations

import numpy as np
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.processors.frames import ReplyAudioFrame


class ReplyRecorder(FrameProcessor):
    """One job: lay the agent's audio on the session timeline, where the playout placed it.

    The playout (timeline clock) gives each piece its `at_secs` — where a live agent would
    have said it — and passes on only what the user would have heard before cutting in.
    """

    def __init__(self) -> None:
        super().__init__()
        self.sample_rate: int | None = None
        self._pieces: list[tuple[float, np.ndarray]] = []
        self._cursor = 0.0
        self.opening: list[np.ndarray] = []    # turn 0, the greeting: kept off the recorded timeline

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ReplyAudioFrame):
            self._place(frame)
        await self.push_frame(frame, direction)

    def _place(self, frame: ReplyAudioFrame) -> None:
        self.sample_rate = self.sample_rate or frame.sample_rate
        samples = np.frombuffer(frame.audio, dtype=np.int16)
        if frame.turn.turn_id == 0 or frame.at_secs is None:
            self.opening.append(samples)
            return
        self._pieces.append((frame.at_secs, samples))
        self._cursor = max(self._cursor, frame.at_secs + samples.size / frame.sample_rate)

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


