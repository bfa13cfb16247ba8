"""A room's recordings, as `talk` writes them: what the agent said (`reply.wav`) and what the
room heard (`heard.wav`), on one clock, so the two line up with each other and the trace.

`heard.wav` is every 16 kHz sample the transport gave the VAD: its length is the session's
clock. `reply.wav` is the agent's voice as the playout let it out to the transport, each
piece placed at its wall-clock time since the first sample heard, with silence between
(`WavRecorder.put_at`, as `talk`'s speaker writes its own).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from pipecat.frames.frames import CancelFrame, EndFrame, Frame, InputAudioRawFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.pipeline.audio_io import WavRecorder
from monologue.pipeline.talk import HEARD_WAV, REPLY_WAV
from monologue.processors.frames import ReplyAudioFrame


class RoomRecording:
    """The two recorders of one room: `heard` goes after the transport's input, `voice`
    before its output."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.started: float | None = None      # wall time of the first sample heard
        self.heard = _Recorder(self, HEARD_WAV, heard=True)
        self.voice = _Recorder(self, REPLY_WAV, heard=False)

    def close(self) -> None:
        self.heard.close()
        self.voice.close()


class _Recorder(FrameProcessor):
    """One job: write the audio it sees go by to one WAV file, and pass everything on."""

    def __init__(self, recording: RoomRecording, name: str, *, heard: bool) -> None:
        super().__init__()
        self._recording = recording
        self._name = name
        self._heard = heard
        self.wav: WavRecorder | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if self._heard and isinstance(frame, InputAudioRawFrame):
            self._write(frame.audio, frame.sample_rate)
        elif not self._heard and isinstance(frame, ReplyAudioFrame):
            self._write(frame.audio, frame.sample_rate)
        elif isinstance(frame, (EndFrame, CancelFrame)):
            self.close()
        await self.push_frame(frame, direction)

    def _write(self, audio: bytes, rate: int) -> None:
        now = time.monotonic()
        if self._recording.started is None:
            self._recording.started = now
        if self.wav is None:
            self.wav = WavRecorder(self._recording.out_dir / self._name, rate)
        samples = np.frombuffer(audio, dtype=np.int16)
        if self._heard:
            self.wav.put(samples)
        else:
            self.wav.put_at(samples, int((now - self._recording.started) * rate))

    def close(self) -> None:
        if self.wav is None:
            return
        heard = self._recording.heard.wav
        if not self._heard and heard is not None:
            # Both files end together: the agent's ends with the silence after its last words.
            self.wav.put_at(np.zeros(0, dtype=np.int16), heard.written * self.wav.rate // heard.rate)
        self.wav.close()

    async def cleanup(self) -> None:
        self.close()
        await super().cleanup()
