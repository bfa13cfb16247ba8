"""VAD: cuts the incoming audio stream into user turns, and decides when each is over.

Consumes `InputAudioRawFrame`s (16 kHz mono int16), runs a pipecat `VADAnalyzer`
(silero or webrtcvad; the analyzer runs the model in its own thread), and pushes
`UserStoppedSpeakingFrame` and a `SpeechSegmentFrame` with the turn's audio when a
turn ends. Everything else passes through unchanged.

When a turn ends is decided by meaning (`turn.end_by: meaning`): each pause
of `judge_after_secs` is judged (`TurnEndJudge`: smart-turn on the audio, the pause's
transcript for an unfinished ending); a finished turn ends after `end_after_secs` of
silence, an unfinished one after `hold_secs` unless the user goes on. A finished-sounding
pause is also *drafted*: its segment goes downstream at once as a draft (`Turn.start_draft`),
so transcription, the monologue and the reply start while the silence is confirmed; if
the user goes on, the VAD drops the draft (`drop_draft`) and every stage drops it unsaid
and unwritten. With `end_by: silence` every turn ends after the fixed `silence_secs`.

While the user speaks, `PartialTranscriber` transcribes the growing turn, and once more
at the very end of speech: the turn's transcript is then ready one short pass after the
last word, not after the turn-end silence plus a whole pass. Each newer pass goes downstream
as pipecat's `InterimTranscriptionFrame` (a room's page shows the words as they are said).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADState
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InterimTranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.utils.time import time_now_iso8601

from monologue.memory.language.plain_text import plain_text
from monologue.processors.frames import SpeechSegmentFrame, SpeechStartedFrame, Turn, TurnEnd, TurnEndRule
from monologue.processors.turn_end import PartialTranscriber, TurnEndJudge, TurnEndOptions, Verdict


@dataclass(frozen=True)
class SegmentOptions:
    """How the VAD cuts the user's audio into turns: the engine's name (for the trace), the
    audio's rate, the audio kept from before speech was sure, and the longest turn kept whole."""

    engine: str = "silero"
    sample_rate: int = 16000
    pre_roll_secs: float = 0.3
    max_segment_secs: float = 30.0


class VADProcessor(FrameProcessor):
    """One job: turn a stream of audio frames into user-turn segments.

    `on_turn_end` is called synchronously when a turn closes (a draft, when it is
    confirmed); replay uses it to hold the source until the agent has answered. Runs in
    direct mode so the source's push returns only after the chunk was analysed: replay
    can then stop exactly at a turn boundary instead of racing ahead.
    """

    def __init__(self, analyzer: VADAnalyzer, segments: SegmentOptions | None = None, *,
                 on_turn_end: Callable[[Turn], None] | None = None,
                 turn_end: TurnEndOptions | None = None, judge: TurnEndJudge | None = None,
                 partials: PartialTranscriber | None = None) -> None:
        super().__init__(enable_direct_mode=True)
        segments = segments or SegmentOptions()
        engine, sample_rate = segments.engine, segments.sample_rate
        pre_roll_secs, max_segment_secs = segments.pre_roll_secs, segments.max_segment_secs
        self._analyzer = analyzer
        self._analyzer.set_sample_rate(sample_rate)
        self._engine = engine
        self._rate = sample_rate
        self._start_secs = analyzer.params.start_secs
        # Without options the analyzer's own stop time ends every turn (the fixed-silence rule).
        self._options = turn_end or TurnEndOptions(by="silence", silence_secs=analyzer.params.stop_secs)
        self._by_meaning = self._options.by == "meaning"
        self._judge = judge if self._by_meaning else None
        self._partials = partials
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
        self._turn_began = (0.0, 0.0)      # wall time and session time the turn began
        self._reset_turn()

    def _reset_turn(self) -> None:
        self._last_voice_pts = 0.0
        self._cut: int | None = None               # bytes of the segment up to the end of speech
        self._speech_end_at: float | None = None   # wall time of the end of speech
        self._verdict: Verdict | None = None       # the judge's verdict on the current pause
        self._draft: Turn | None = None
        self._drafts_dropped = 0
        self._partial_bytes = 0
        self._told_samples = 0                      # the partial transcript told downstream, by its length
        if self._partials is not None:
            self._partials.reset()

    @property
    def turns(self) -> int:
        return self._turn_count

    def continue_after(self, last_turn: int) -> None:
        """Number turns on from `last_turn` (a session another worker began)."""
        self._turn_count = max(self._turn_count, last_turn)

    def _now_pts(self) -> float:
        return self._samples_seen / self._rate

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame) and direction == FrameDirection.DOWNSTREAM:
            await self._handle_audio(frame)
            return
        if isinstance(frame, EndFrame) and self._speaking:
            # The input ended mid-turn: close it so the last words are answered.
            await self._close_turn("input ended")
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
        if not self._speaking:
            self._remember(audio)
            if state == VADState.SPEAKING:
                self._begin_turn(b"".join(self._pre_roll))
                await self.push_frame(UserStartedSpeakingFrame())
                await self._speech_started()
            return
        self._segment.extend(audio)
        if state == VADState.SPEAKING:
            await self._voiced()
        elif state == VADState.STOPPING:
            self._speech_ended()
        elif state == VADState.QUIET:
            self._speech_ended()
            await self._paused()
        # STARTING inside a turn: the user may be going on; the turn waits to see.
        if self._speaking:
            await self._tell_partial()
        if self._speaking and len(self._segment) >= self._max_bytes:
            await self._close_turn("longest")
            self._begin_turn(b"")
            await self._speech_started()      # the user is still talking

    async def _voiced(self) -> None:
        if self._draft is not None:
            # The user went on after a finished-sounding pause: the draft is dropped unsaid.
            self._draft.drop_draft()
            self._draft = None
            self._drafts_dropped += 1
        self._last_voice_pts = self._now_pts()
        self._cut, self._speech_end_at, self._verdict = None, None, None
        every = int(self._options.partial_every_secs * self._rate) * 2
        # Partials while the user speaks need the user to take real time speaking: audio fed
        # faster than that (a fast replay) gets only the pass at the end of speech.
        real_time = self._now_pts() - self._turn_began[1] <= time.perf_counter() - self._turn_began[0] + 0.25
        if self._partials is not None and every > 0 and real_time \
                and len(self._segment) - self._partial_bytes >= every:
            self._partial_bytes = len(self._segment)
            self._partials.partial(bytes(self._segment), self._options.partial_every_secs)

    async def _tell_partial(self) -> None:
        """The newest transcript of the turn being spoken, once, if a pass has finished since."""
        latest = self._partials.latest if self._partials is not None else None
        if latest is None or self._partials is None or self._partials.latest_samples <= self._told_samples:
            return
        self._told_samples = self._partials.latest_samples
        text = plain_text(latest.text)
        if text:
            await self.push_frame(InterimTranscriptionFrame(text=text, user_id="", timestamp=time_now_iso8601()))

    def _speech_ended(self) -> None:
        """The first quiet frame after speech: the turn's words end here (maybe for good)."""
        if self._cut is not None:
            return
        self._cut = len(self._segment)
        quiet_secs = self._now_pts() - self._last_voice_pts
        self._speech_end_at = time.perf_counter() - quiet_secs
        if self._partials is not None:
            self._partials.final(bytes(self._segment))

    async def _paused(self) -> None:
        silence = self._now_pts() - self._last_voice_pts
        if not self._by_meaning:
            if silence >= self._options.silence_secs:
                await self._close_turn("silence")
            return
        if self._verdict is None:
            self._verdict = await self._judge_pause()
            # Complete words are worth a head start, even where the voice leaves it open: a
            # dropped draft costs a little compute and nothing the user hears. No words heard
            # yet (a breath, a first syllable whisper left out) are nothing to answer: the
            # draft could only be dropped, or end the turn unanswered.
            if self._verdict.words_complete and self._verdict.text.strip() and self._options.draft \
                    and self._partials is not None:
                await self._start_draft(silence)
        if silence >= self._verdict.wait_secs(self._options):
            await self._close_turn("meaning")

    async def _judge_pause(self) -> Verdict:
        assert self._cut is not None
        text = ""
        if self._partials is not None:
            final = self._partials.final_for(bytes(self._segment[: self._cut]))
            if final is not None:
                try:
                    text = (await asyncio.wait_for(asyncio.shield(final), self._options.transcript_wait_secs)).text
                except Exception:       # a slow or failed pass: the last partial, or the audio alone
                    text = self._partials.latest.text if self._partials.latest is not None else ""
        if self._judge is None:
            return Verdict(finished=True, text=text)
        audio = np.frombuffer(bytes(self._segment), dtype=np.int16).astype(np.float32) / 32768.0
        return await self._judge.judge(audio, text)

    async def _start_draft(self, silence: float) -> None:
        turn = self._new_turn(silence)
        turn.start_draft()
        turn.turn_end.draft_wait_secs = round(silence, 3)
        self._draft = turn
        await self._push_segment(turn)

    def _new_turn(self, silence: float) -> Turn:
        end_pts = self._last_voice_pts if self._cut is not None else self._now_pts()
        return Turn(
            turn_id=self._turn_count + 1,
            start_pts=round(self._segment_start_pts, 3),
            end_pts=round(end_pts, 3),
            end_wait_secs=round(silence, 3),
            detected_at=time.perf_counter(),
            vad_engine=self._engine,
            turn_end=TurnEnd(verdict=self._verdict.trace() if self._verdict is not None else None,
                             speech_end_at=self._speech_end_at),
        )

    async def _push_segment(self, turn: Turn) -> None:
        audio = bytes(self._segment[: self._cut]) if self._cut is not None else bytes(self._segment)
        transcript = self._partials.final(audio) if self._partials is not None else None
        if transcript is not None and self._partials is not None:
            def ready(at: float, end: TurnEnd = turn.turn_end) -> None:
                end.transcript_ready_at = at

            self._partials.when_ready(transcript, ready)
        turn.turn_end.partials = self._partials.passes if self._partials is not None else 0
        await self.push_frame(SpeechSegmentFrame(turn=turn, audio=audio, sample_rate=self._rate,
                                                 transcript=transcript))

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
        self._reset_turn()
        self._last_voice_pts = self._now_pts()
        self._turn_began = (time.perf_counter(), self._now_pts())
        self._partial_bytes = len(pre_roll)       # the first partial comes once there is speech to read

    async def _close_turn(self, rule: TurnEndRule) -> None:
        self._speaking = False
        if rule in ("input ended", "longest"):
            self._speech_ended()
        silence = self._now_pts() - self._last_voice_pts if rule not in ("input ended", "longest") else 0.0
        draft, self._draft = self._draft, None
        if draft is not None:
            # The silence confirmed the draft: the agent's reply, already under way, may now be heard.
            turn = draft
            turn.end_wait_secs, turn.detected_at = round(silence, 3), time.perf_counter()
            turn.turn_end.drafted = True
        else:
            turn = self._new_turn(silence)
        turn.turn_end.rule = rule
        turn.turn_end.drafts_dropped = self._drafts_dropped
        self._turn_count += 1
        if self._on_turn_end is not None:
            self._on_turn_end(turn)
        await self.push_frame(UserStoppedSpeakingFrame())
        if draft is not None:
            draft.confirm_draft()
        else:
            await self._push_segment(turn)
        self._segment = bytearray()
        self._reset_turn()
