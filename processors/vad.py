"""VAD: cuts the incoming audio stream into user turns.

Consumes `InputAudioRawFrame`s (16 kHz mono int16), runs a pipecat `VADAnalyzer`
(silero or webrtcvad; the analyzer runs the model in its own thread), and when a
turn ends pushes `UserStoppedSpeakingFrame` and a `SpeechSegmentFrame` with the
turn's audio. Everything else passes through unchanged.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADState
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InputAudioRawFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.processors.frames import SpeechSegmentFrame, SpeechStartedFrame, TurnRecord


class VADProcessor(FrameProcessor):
    """One job: turn a stream of audio frames into user-turn segments.

    `on_turn_end` is called synchronously when a turn closes; replay uses it to
    hold the source until the agent has answered. Runs in direct mode so the
    source's push returns only after the chunk was analysed: replay can then stop
    exactly at a turn boundary instead of racing ahead.
    """

    def __init__(self, analyzer: VADAnalyzer, *, engine: str = "silero", sample_rate: int = 16000,
                 pre_roll_secs: float = 0.3, max_segment_secs: float = 30.0,
                 on_turn_end: Callable[[TurnRecord], None] | None = None) -> None:
        super().__init__(enable_direct_mode=True)
        self._analyzer = analyzer
        self._analyzer.set_sample_rate(sample_rate)
        self._engine = engine
        self._rate = sample_rate
        self._start_secs = analyzer.params.start_secs
        self._stop_secs = analyzer.params.stop_secs
        self._max_bytes = int(max_segment_secs * sample_rate) * 2
        self._pre_roll: deque[bytes] = deque()
        self._pre_roll_bytes = 0
        self._pre_roll_limit = int((pre_roll_secs + self._start_secs) * sample_rate) * 2
        self._segment = bytearray()
        self._segment_start_pts = 0.0
        self._speaking = False
        self._samples_seen = 0
        self._turn_count = 0
        self._on_turn_end = on_turn_end

    @property
    def turns(self) -> int:
        return self._turn_count

    def _now_pts(self) -> float:
        return self._samples_seen / self._rate

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame) and direction == FrameDirection.DOWNSTREAM:
            await self._handle_audio(frame)
            return
        if isinstance(frame, EndFrame) and self._speaking:
            # The input ended mid-turn: close it so the last words are answered.
            await self._close_turn(trailing_silence=0.0)
        await self.push_frame(frame, direction)

    async def _handle_audio(self, frame: InputAudioRawFrame) -> None:
        if frame.sample_rate != self._rate or frame.num_channels != 1:
            raise ValueError(
                f"VAD expects {self._rate} Hz mono audio, got {frame.sample_rate} Hz × "
                f"{frame.num_channels}; resample in the source"
            )
        audio = frame.audio
        self._samples_seen += len(audio) // 2
        state = await self._analyzer.analyze_audio(audio)
        if self._speaking:
            self._segment.extend(audio)
            if state == VADState.QUIET:
                await self._close_turn(trailing_silence=self._stop_secs)
            elif len(self._segment) >= self._max_bytes:
                await self._close_turn(trailing_silence=0.0)
                self._begin_turn(b"")
                await self._speech_started()      # the user is still talking
            return
        self._remember(audio)
        if state == VADState.SPEAKING:
            self._begin_turn(b"".join(self._pre_roll))
            await self.push_frame(UserStartedSpeakingFrame())
            await self._speech_started()

    async def _speech_started(self) -> None:
        # Speech began `start_secs` before the VAD was sure of it.
        await self.push_frame(SpeechStartedFrame(start_pts=round(self._now_pts() - self._start_secs, 3),
                                                 detected_pts=round(self._now_pts(), 3),
                                                 detected_at=time.perf_counter()))

    def _remember(self, audio: bytes) -> None:
        self._pre_roll.append(audio)
        self._pre_roll_bytes += len(audio)
        while self._pre_roll_bytes - len(self._pre_roll[0]) >= self._pre_roll_limit:
            self._pre_roll_bytes -= len(self._pre_roll.popleft())

    def _begin_turn(self, pre_roll: bytes) -> None:
        self._speaking = True
        self._segment = bytearray(pre_roll)
        self._segment_start_pts = self._now_pts() - len(pre_roll) / 2 / self._rate
        self._pre_roll.clear()
        self._pre_roll_bytes = 0

    async def _close_turn(self, trailing_silence: float) -> None:
        self._speaking = False
        # Keep 0.15 s of the trailing silence: whisper clips the last word without it.
        keep_tail = max(trailing_silence - 0.15, 0.0)
        cut = len(self._segment) - int(keep_tail * self._rate) * 2
        audio = bytes(self._segment[: max(cut, 0)])
        self._segment = bytearray()
        self._turn_count += 1
        end_pts = self._now_pts() - trailing_silence
        turn = TurnRecord(
            turn_id=self._turn_count,
            start_pts=round(self._segment_start_pts, 3),
            end_pts=round(end_pts, 3),
            end_wait_secs=trailing_silence,
            detected_at=time.perf_counter(),
            vad_engine=self._engine,
        )
        if self._on_turn_end is not None:
            self._on_turn_end(turn)
        await self.push_frame(UserStoppedSpeakingFrame())
        await self.push_frame(SpeechSegmentFrame(turn=turn, audio=audio, sample_rate=self._rate))
