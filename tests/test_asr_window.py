"""The ASR encoder window: whisper's encoder sees max(window, turn + tail) seconds instead of 30,
and a windowed result that looks invented is transcribed again with the full window."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from monologue.configs import ConfigError, load_config
from monologue.models import asr
from monologue.models.asr import hallucination_reason, window_frames

from fakes import DEMO, SHARED_SPEECH

FULL_FRAMES = 3000


def _segment(start: float, end: float, text: str = "", avg_logprob: float = -0.3) -> SimpleNamespace:
    return SimpleNamespace(start=start, end=end, text=text, avg_logprob=avg_logprob, no_speech_prob=0.01)


# --- the guard's heuristic ----------------------------------------------------------------------

@pytest.mark.parametrize("text, secs", [
    ("Hi, I'd like to book a table for four people on Saturday evening.", 4.0),
    ("Thank you so much.", 0.6),                 # fast and short: judged over one second
    ("我想订一张四个人的桌子。", 2.5),
    ("", 1.0),
])
def test_ordinary_speech_is_not_a_hallucination(text, secs):
    assert hallucination_reason(text, secs, [_segment(0.0, secs, text)]) is None


@pytest.mark.parametrize("text, secs, reason", [
    ("No. Thanks. " * 12, 14.0, "repetitive"),
    ("one two three four five six seven eight nine ten eleven twelve thirteen", 2.0, "13 words"),
    ("我想订一张四个人的桌子我想要七点钟的", 1.5, "18 CJK characters"),
])
def test_repetitive_or_too_long_text_is_a_hallucination(text, secs, reason):
    assert reason in (hallucination_reason(text, secs) or "")


def test_text_after_the_audio_ends_is_a_hallucination():
    segments = [_segment(0.0, 13.0, "Remind me to call Dr. Newton tomorrow at 9am."), _segment(14.5, 15.5, "Thanks.")]
    assert "after the audio's end" in (hallucination_reason("Remind me ... Thanks.", 14.4, segments) or "")


def test_a_late_end_stamp_alone_is_not_a_hallucination():
    # With a short window whisper often stamps a good one-segment turn's end seconds late.
    segments = [_segment(0.0, 7.0, "Turn the temperature up to 22 degrees.")]
    assert hallucination_reason("Turn the temperature up to 22 degrees.", 2.8, segments) is None


def test_a_segment_whisper_is_unsure_of_is_retried():
    assert "unsure" in (hallucination_reason("Okay.", 1.0, [_segment(0.0, 1.0, "Okay.", avg_logprob=-1.05)]) or "")


# --- how much the encoder sees ---------------------------------------------------------------

@pytest.mark.parametrize("audio_secs, window_secs, frames", [
    (1.0, 10.0, 1000),
    (7.9, 10.0, 1000),
    (9.0, 10.0, 1100),                           # the turn plus TAIL_SECS (2 s) of padding
    (12.345, 10.0, 1436),                        # 14.345 s: 1434.5 frames, up to 1435, up to even
    (5.0, 30.0, None),
    (5.0, 0.0, None),
    (29.0, 10.0, FULL_FRAMES),
    (31.0, 10.0, None),                          # longer than one window: whisper's own windows
])
def test_window_frames(audio_secs, window_secs, frames):
    assert window_frames(audio_secs, window_secs) == frames
    assert frames is None or frames % 2 == 0


def test_window_secs_is_configured_and_checked():
    assert load_config(environ={}).asr.window_secs == 10.0
    assert load_config(environ={"MONOLOGUE__ASR__WINDOW_SECS": "0"}).asr.window_secs == 0.0
    with pytest.raises(ConfigError, match="asr.window_secs"):
        load_config(environ={"MONOLOGUE__ASR__WINDOW_SECS": "-1"})


# --- the real tiny.en model (slow) ---------------------------------------------------------------

def _words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower()).split()


def _read(path: Any, seconds: float | None = None) -> np.ndarray:
    audio, rate = sf.read(str(path), dtype="float32")
    assert rate == 16000
    return audio if seconds is None else audio[: int(seconds * rate)]


@pytest.fixture(scope="module")
def whisper() -> asr.WhisperASR:
    return asr.WhisperASR("en", window_secs=10.0)


@pytest.fixture
def encoder_frames(monkeypatch) -> Iterator[list[int]]:
    """Frames each encoder call received, after the window's trim."""
    import faster_whisper

    seen: list[int] = []
    encode = faster_whisper.WhisperModel.encode

    def spy(self: Any, features: np.ndarray) -> Any:
        seen.append(int(features.shape[-1]))
        return encode(self, features)

    monkeypatch.setattr(faster_whisper.WhisperModel, "encode", spy)
    yield seen


def _clips() -> list[Any]:
    librivox = SHARED_SPEECH / "sense_and_sensibility_01_austen_64kb-0870.wav"
    return [
        pytest.param(DEMO, 5.0, id="demo-turn-1"),
        pytest.param(librivox, None, id="librivox-0870", marks=pytest.mark.skipif(
            not librivox.is_file(), reason=f"{librivox} is not on this machine")),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("path, seconds", _clips())
def test_a_real_clip_reads_the_same_with_a_10_s_window(whisper, encoder_frames, monkeypatch, path, seconds):
    audio = _read(path, seconds)
    monkeypatch.setattr(whisper, "window_secs", 10.0)
    windowed = whisper.transcribe(audio)
    assert encoder_frames == [1000] and not windowed.full_window_retry
    monkeypatch.setattr(whisper, "window_secs", 30.0)
    full = whisper.transcribe(audio)
    assert _words(windowed.text) == _words(full.text) and len(_words(full.text)) >= 8
    assert windowed.confidence > 0.5


@pytest.mark.slow
@pytest.mark.parametrize("window_secs", [30.0, 0.0])
def test_the_full_window_trims_nothing(whisper, encoder_frames, monkeypatch, window_secs):
    monkeypatch.setattr(whisper, "window_secs", window_secs)
    result = whisper.transcribe(_read(DEMO, 5.0))
    assert encoder_frames == [FULL_FRAMES] and whisper._model.keep_frames is None
    assert not result.full_window_retry and "table" in _words(result.text)


@pytest.mark.slow
def test_a_hallucinating_window_is_retried_with_the_full_window(whisper, encoder_frames, monkeypatch):
    judged: list[str] = []

    def always_invented(text: str, audio_secs: float, segments: Any = ()) -> str:
        judged.append(text)
        return "forced by the test"

    monkeypatch.setattr(asr, "hallucination_reason", always_invented)
    monkeypatch.setattr(whisper, "window_secs", 10.0)
    result = whisper.transcribe(_read(DEMO, 5.0))
    assert encoder_frames == [1000, FULL_FRAMES]   # the windowed pass, then the full one
    assert result.full_window_retry and len(judged) == 1   # the full window's text is not judged again
    assert "table" in _words(result.text)


@pytest.mark.slow
def test_a_partial_pass_is_never_retried_and_drops_text_that_looks_made_up(whisper, encoder_frames, monkeypatch):
    """A pass on a turn still being spoken must not hold the whisper thread for a second,
    full-window pass: the turn's final pass waits behind it once the user stops."""
    monkeypatch.setattr(asr, "hallucination_reason", lambda text, audio_secs, segments=(): "forced by the test")
    monkeypatch.setattr(whisper, "window_secs", 10.0)
    result = whisper.transcribe_partial(_read(DEMO, 5.0))
    assert encoder_frames == [1000]                     # the windowed pass only
    assert result.text == "" and not result.full_window_retry
    assert "forced by the test" in result.dropped and "book a" in result.dropped


@pytest.mark.slow
def test_a_partial_pass_reads_ordinary_speech_like_the_final_one(whisper, encoder_frames):
    audio = _read(DEMO, 5.0)
    assert _words(whisper.transcribe_partial(audio).text) == _words(whisper.transcribe(audio).text)
    assert encoder_frames == [1000, 1000]
