"""TTS: speaks each reply clause as soon as it arrives, off the event loop, in the voice of
the clause's language (piper for English, a Mandarin voice for Chinese)."""

from __future__ import annotations

import time

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.models.model_threads import run_on
from monologue.models.tts import Synthesizer, Voices
from monologue.processors.frames import ReplyAudioFrame, ReplyTextFrame

__all__ = ["Synthesizer", "TTSProcessor", "Voices"]


class TTSProcessor(FrameProcessor):
    """One job: `ReplyTextFrame` in, `ReplyAudioFrame` out (int16 mono, one rate per session)."""

    def __init__(self, synthesizer: Synthesizer | Voices) -> None:
        super().__init__()
        # A single voice (a test's fake, a voice given by hand) is a session of one voice.
        self._voices = synthesizer if isinstance(synthesizer, Voices) else Voices(
            str(getattr(synthesizer, "language", "en")), {str(getattr(synthesizer, "language", "en")): synthesizer})

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ReplyTextFrame):
            await self._speak(frame)
            return
        await self.push_frame(frame, direction)

    async def _speak(self, frame: ReplyTextFrame) -> None:
        turn = frame.turn
        started = time.perf_counter()
        try:
            # With where each word (or Chinese character) ends: a cut is remembered to the word.
            voice, chunks = await run_on("tts", self._voices.speak, frame.text)
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
        if voice not in speech.voices:
            speech.voices.append(voice)
        index = speech.clauses - 1
        for audio, ends in chunks:
            rate = self._voices.sample_rate
            speech.audio_secs = round((speech.audio_secs or 0.0) + len(audio) / 2 / rate, 3)
            await self.push_frame(ReplyAudioFrame(audio=audio, sample_rate=rate,
                                                  num_channels=1, turn=turn,
                                                  clause=frame.text, clause_index=index, word_ends=ends))
