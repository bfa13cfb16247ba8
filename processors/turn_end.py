"""When a user's turn is over: by meaning, not by a fixed silence (E3).

At each pause the VAD asks `TurnEndJudge` whether what was said so far is finished:
pipecat's smart-turn model listens to the intonation, and the pause's transcript is
read for an unfinished ending ("…for four, um", "and", "然后"). A finished turn ends
after a short silence (`end_after_secs`); an unfinished one waits (`hold_secs`) for the
user to go on. Meanwhile the turn may be *drafted*: the agent starts thinking on the
provisional transcript, and drops the draft cleanly if the user goes on.

`PartialTranscriber` transcribes the turn while it is spoken: a pass on the growing
audio every `partial_every_secs`, and one at the very end of speech, so the final
transcript is ready about one short pass after the last word.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
from loguru import logger

from monologue.models.asr import PartialPasses, Transcriber, Transcript
from monologue.models.model_threads import run_on

TurnEndBy = Literal["meaning", "silence"]


class EndProbability(Protocol):
    def probability(self, audio: np.ndarray) -> float: ...


@dataclass(frozen=True)
class TurnEndOptions:
    by: TurnEndBy = "meaning"
    judge_after_secs: float = 0.15    # a pause this long is judged (the VAD's own stop time)
    end_after_secs: float = 0.35      # a finished turn ends after this much silence
    unsure_secs: float = 0.7          # the words are complete but the voice sounds unfinished
    hold_secs: float = 1.2            # the words are unfinished ("for, um"): the user gets this long
    silence_secs: float = 0.5         # by: silence — every turn ends after this much (the old rule)
    complete_threshold: float = 0.5   # smart-turn's probability from which a turn counts as finished
    draft: bool = True                # start answering a finished-sounding turn before it is confirmed
    partial_every_secs: float = 0.5   # a partial transcript this often while the user speaks; 0: none
    # At a pause the judge reads the end-of-speech transcript and waits this long for it (live it
    # is long done; a fast replay reaches the pause sooner than the pass ends).
    transcript_wait_secs: float = 1.0
    unfinished_en: tuple[str, ...] = ()
    unfinished_zh: tuple[str, ...] = ()

    def unfinished_words(self, language: str) -> tuple[str, ...]:
        return self.unfinished_zh if language == "zh" else self.unfinished_en


@dataclass
class Verdict:
    """What the judge made of a pause: finished (voice and words agree), unsure (complete words,
    an unfinished-sounding voice) or unfinished (the words stop mid-phrase)."""

    finished: bool
    probability: float | None = None     # smart-turn's; None without the model
    cue: str = ""                        # the unfinished ending read in the transcript ("um", "and")
    text: str = ""                       # the transcript it read (may lag the audio)
    ms: float = 0.0

    @property
    def words_complete(self) -> bool:
        return not self.cue

    def wait_secs(self, options: TurnEndOptions) -> float:
        """The silence after which the turn is over."""
        if self.finished:
            return options.end_after_secs
        return options.unsure_secs if self.words_complete else options.hold_secs

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"finished": self.finished, "ms": round(self.ms, 1)}
        if self.probability is not None:
            out["probability"] = round(self.probability, 3)
        if self.cue:
            out["cue"] = self.cue
        return out


_TRAILING = re.compile(r"[\s,.…!?;:，。！？；：、\-–—]+$")


def unfinished_ending(text: str, words: Sequence[str], language: str) -> str:
    """The word an unfinished utterance ends on ("um", "and", "for", 然后), or "".

    Whisper writes a trailing "..." where speech trails off; that counts too."""
    stripped = text.strip()
    if not stripped:
        return ""
    if stripped.endswith(("...", "…")):
        return "…"
    body = _TRAILING.sub("", stripped)
    if language == "zh":
        for word in sorted(words, key=len, reverse=True):
            if body.endswith(word):
                return word
        return ""
    tokens = body.lower().split()
    if not tokens:
        return ""
    last_two = " ".join(tokens[-2:])
    for word in sorted(words, key=lambda w: -w.count(" ")):     # "i'd like" before "like"
        if word == tokens[-1] or (" " in word and word == last_two):
            return word
    return ""


class TurnEndJudge:
    """Finished or not: smart-turn on the audio, vetoed by an unfinished ending in the words.

    The words weigh most: an unfinished ending waits longest whatever the voice says, and
    complete words with an unfinished-sounding voice wait a little (smart-turn hears flat
    synthetic or tired voices as unfinished). Without the model (`model=None`: tests, or
    smart-turn switched off) the words alone decide."""

    def __init__(self, model: EndProbability | None, options: TurnEndOptions, language: str = "en",
                 thread: str = "smart-turn") -> None:
        self._model = model
        self._options = options
        self._language = language
        self._thread = thread

    async def judge(self, audio: np.ndarray, text: str) -> Verdict:
        started = time.perf_counter()
        cue = unfinished_ending(text, self._options.unfinished_words(self._language), self._language)
        probability: float | None = None
        if self._model is not None:
            try:
                probability = await run_on(self._thread, self._model.probability, audio)
            except Exception as exc:     # the words and the silence still decide
                logger.opt(exception=exc).warning("the end-of-turn model failed; judging by the words: {}", exc)
        finished = not cue and (probability is None or probability >= self._options.complete_threshold)
        return Verdict(finished, probability, cue, text, (time.perf_counter() - started) * 1000)


@dataclass
class _Pass:
    samples: int
    result: asyncio.Future[Transcript]
    started: float = field(default_factory=time.perf_counter)
    finished_at: list[float] = field(default_factory=list)   # set by the ASR thread when it finishes

    @property
    def finished(self) -> float | None:
        """Wall time the ASR thread finished this pass."""
        return self.finished_at[0] if self.finished_at else None


class PartialTranscriber:
    """Transcribes a turn while it is spoken, one pass at a time on the ASR thread.

    `partial(audio)`: a pass on the audio so far, unless one is running (the latest audio
    matters, not every step of it). `final(audio)`: the pass the turn's transcript comes
    from — run at the end of speech, and reused by the ASR stage when the turn closes on
    exactly that audio. Passes are keyed by their length in samples within one turn.
    """

    def __init__(self, transcriber: Transcriber, *, thread: str = "whisper") -> None:
        self._transcriber = transcriber
        # A partial pass skips the second passes a final one may make, where the transcriber can.
        self._partial_pass = transcriber.transcribe_partial if isinstance(transcriber, PartialPasses) \
            else transcriber.transcribe
        self._thread = thread
        self._running: _Pass | None = None
        self._final: _Pass | None = None
        self.latest: Transcript | None = None      # the newest finished pass of this turn
        self.latest_samples = 0
        self.passes = 0
        self._generation = 0                       # which turn a pass belongs to

    def reset(self) -> None:
        """A new turn: earlier passes no longer apply."""
        self._generation += 1
        self._final = None
        self.latest, self.latest_samples = None, 0
        self.passes = 0

    def partial(self, audio: bytes, every_secs: float) -> None:
        """A pass on the audio so far, if the transcriber is idle and `every_secs` of wall time
        have passed since the last pass began: on a fast replay, whose audio arrives faster than
        real time, partials would only queue up in front of the pass that matters."""
        for one in (self._running, self._final):
            if one is not None and not one.result.done():
                return
        if self._running is not None and time.perf_counter() - self._running.started < every_secs:
            return
        self._running = self._start(audio, partial=True)

    def final(self, audio: bytes) -> asyncio.Future[Transcript]:
        """The pass on exactly this audio: started now, or the one already started on it.
        A final pass on other audio (the user went on after a dip) is no longer wanted: if it
        has not started yet, it never runs."""
        samples = len(audio) // 2
        if self._final is not None and self._final.samples == samples:
            return self._final.result
        if self._final is not None and not self._final.result.done():
            self._final.result.cancel()
        self._final = self._start(audio)
        return self._final.result

    def final_for(self, audio: bytes) -> asyncio.Future[Transcript] | None:
        """The final pass on exactly this audio, if one was started."""
        if self._final is not None and self._final.samples == len(audio) // 2:
            return self._final.result
        return None

    def when_ready(self, transcript: asyncio.Future[Transcript], record: Callable[[float], None]) -> None:
        """`record(t)` with the wall time the final pass behind `transcript` finished on the
        ASR thread: at once if it has, else when it does (never, if it fails)."""
        one = self._final
        if one is None or one.result is not transcript:
            return
        if one.finished is not None:
            record(one.finished)
            return

        def finished(_: asyncio.Future[Transcript]) -> None:
            if one.finished is not None:
                record(one.finished)

        transcript.add_done_callback(finished)

    def _start(self, audio: bytes, *, partial: bool = False) -> _Pass:
        samples = len(audio) // 2
        floats = np.frombuffer(audio, dtype=np.int16).astype(np.float32) / 32768.0
        finished_at: list[float] = []
        heard = self._partial_pass if partial else self._transcriber.transcribe

        def transcribe() -> Transcript:
            result = heard(floats)
            finished_at.append(time.perf_counter())
            return result

        future = asyncio.ensure_future(run_on(self._thread, transcribe))
        one = _Pass(samples, future, finished_at=finished_at)
        self.passes += 1
        generation = self._generation

        def done(task: asyncio.Future[Transcript]) -> None:
            if task.cancelled() or task.exception() is not None or generation != self._generation:
                return
            if samples >= self.latest_samples:
                self.latest, self.latest_samples = task.result(), samples

        future.add_done_callback(done)
        return one
