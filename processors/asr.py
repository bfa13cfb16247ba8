"""ASR: transcribes each user-turn segment with faster-whisper, off the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import numpy as np
from loguru import logger
from pipecat.frames.frames import Frame, TranscriptionFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.utils.time import time_now_iso8601

from monologue.memory.language.plain_text import plain_text
from monologue.models.asr import Transcriber
from monologue.models.model_threads import run_on
from monologue.processors.frames import (
    AgentTurnEndFrame,
    SpeechSegmentFrame,
    Transcription,
    Turn,
    UserTurnFrame,
)


class ASRProcessor(FrameProcessor):
    """One job: `SpeechSegmentFrame` in, `TranscriptionFrame` + `UserTurnFrame` out.

    A segment with no words (noise, a cough) ends the turn right here with an
    `AgentTurnEndFrame`, so the agent does not answer silence. So does one whose words the
    transcriber made up (its prompt, a stock phrase: `Transcript.dropped`); the trace's
    `asr.error` says "dropped: " and what and why.
    """

    def __init__(self, transcriber: Transcriber, *, user_id: str = "user",
                 low_confidence: float = 0.45, respell: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self._transcriber = transcriber
        self._user_id = user_id
        self._low_confidence = low_confidence
        # The domain's words the ASR wrote by sound, written as the domain writes them (Chinese:
        # 打开做一家热 → 打开座椅加热; memory/working/heard.py). The trace keeps what was heard.
        self._respell = respell

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, SpeechSegmentFrame):
            await self._transcribe(frame)
            return
        await self.push_frame(frame, direction)

    async def _transcribe(self, frame: SpeechSegmentFrame) -> None:
        turn = frame.turn
        audio = np.frombuffer(frame.audio, dtype=np.int16).astype(np.float32) / 32768.0
        started = time.perf_counter()
        try:
            if frame.transcript is not None:
                # Started at the end of speech on exactly this audio (streaming): usually done by now.
                try:
                    result = await asyncio.shield(frame.transcript)
                except asyncio.CancelledError:
                    if not frame.transcript.cancelled():
                        raise
                    # Superseded: the user went on, so this was a draft that is now dropped.
                    await self._end_unanswered(turn)
                    return
            else:
                # Whisper runs to completion inside the worker thread, segment list included.
                result = await run_on("whisper", self._transcriber.transcribe, audio)
        except Exception as exc:    # the turn is closed unanswered and the session goes on
            logger.opt(exception=exc).error("turn {}: speech recognition failed: {}", turn.turn_id, exc)
            turn.asr = Transcription(text="", error=f"{type(exc).__name__}: {exc}")
            turn.mark("asr_done", time.perf_counter())
            await self._end_unanswered(turn)
            return
        done = time.perf_counter()
        turn.compute["asr"] = done - started      # what the turn waited for its transcript here
        turn.mark("asr_done", done)
        text = plain_text(result.text)          # what is stored and printed: no controls, no bidi overrides
        heard_as = None
        if self._respell is not None and text and result.language in (None, "", "zh"):
            respelled = self._respell(text)
            if respelled is not None:
                heard_as, text = text, respelled
        turn.asr = Transcription(
            text=text,
            language=result.language,
            confidence=result.confidence,
            avg_logprob=result.avg_logprob,
            no_speech_prob=result.no_speech_prob,
            audio_secs=round(result.audio_secs, 3),
            low_confidence=result.confidence < self._low_confidence,
            error=f"dropped: {result.dropped}" if result.dropped and not text else None,
            dropped=result.dropped or None,     # also when real words were left ("以下是…。一共四位")
            heard_as=heard_as,
        )
        if result.dropped:
            logger.info("turn {}: not the user's words, dropped: {}", turn.turn_id, result.dropped)
        if not text:
            await self._end_unanswered(turn)
            return
        await self.push_frame(
            TranscriptionFrame(text=text, user_id=self._user_id,
                               timestamp=time_now_iso8601(), language=None, result=result)
        )
        await self.push_frame(UserTurnFrame(turn=turn))

    async def _end_unanswered(self, turn: Turn) -> None:
        # A draft ends only once its silence is confirmed; one the user talked on through
        # leaves no trace (the turn it belonged to is still going on).
        if await turn.stands():
            await self.push_frame(AgentTurnEndFrame(turn=turn))
