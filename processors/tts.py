"""TTS: speaks each reply clause with piper as soon as it arrives, off the event loop."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Protocol

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.models.model_threads import run_on
from monologue.processors.frames import ReplyAudioFrame, ReplyTextFrame


class Synthesizer(Protocol):
    sample_rate: int

    def synthesize(self, text: str) -> Iterator[bytes]: ...


class TTSProcessor(FrameProcessor):
    """One job: `ReplyTextFrame` in, `ReplyAudioFrame` out (int16 mono)."""

    def __init__(self, synthesizer: Synthesizer) -> None:
        super().__init__()
        self._tts = synthesizer

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ReplyTextFrame):
            await self._speak(frame)
            return
        await self.push_frame(frame, direction)

    async def _speak(self, frame: ReplyTextFrame) -> None:
        turn = frame.turn
        started = time.perf_counter()
        timed = getattr(self._tts, "synthesize_timed", None)
        try:
            if timed is not None:     # with where each word ends: a cut is remembered to the word
                chunks = await run_on("piper", lambda: list(timed(frame.text)))
            else:
                plain = await run_on("piper", lambda: list(self._tts.synthesize(frame.text)))
                chunks = [(audio, None) for audio in plain]
        except Exception as exc:    # this clause goes unspoken; the next may still be
            logger.opt(exception=exc).error("turn {}: speech synthesis failed for {!r}: {}", turn.turn_id,
                                            frame.text, exc)
            turn.tts.errors.append(f"{type(exc).__name__}: {exc}")
            return
        elapsed = time.perf_counter() - started
        turn.compute.setdefault("tts_first_clause", elapsed)
        speech = turn.tts
        speech.compute_secs = round((speech.compute_secs or 0.0) + elapsed, 4)
        speech.clauses += 1
        index = speech.clauses - 1
        for audio, ends in chunks:
            speech.audio_secs = round((speech.audio_secs or 0.0) + len(audio) / 2 / self._tts.sample_rate, 3)
            await self.push_frame(ReplyAudioFrame(audio=audio, sample_rate=self._tts.sample_rate,
                                                  num_channels=1, turn=turn,
                                                  clause=frame.text, clause_index=index, word_ends=ends))
