"""What whisper makes up is never the user's words: its own prompt, the stock phrases of its
training subtitles, sound labels. The filter on scripted outputs, the ASR stage's handling of a
dropped transcript, and the real models on noise and unclear speech in both languages."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from pipecat.frames.frames import TranscriptionFrame
from pipecat.tests.utils import run_test

from monologue.configs import ASROptions
from monologue.models import asr
from monologue.models.asr import INVENTED_PHRASES, MIN_PHRASE_CHARS, Transcript, invented_text
from monologue.processors.asr import ASRProcessor
from monologue.processors.frames import AgentTurnEndFrame, SpeechSegmentFrame, Turn

from fakes import SHARED_SPEECH

PROMPT = ASROptions().initial_prompt_zh
RATE = 16000


def _segments(text: str, no_speech_prob: float = 0.05, avg_logprob: float = -0.3) -> list[SimpleNamespace]:
    return [SimpleNamespace(start=0.0, end=1.0, text=text, avg_logprob=avg_logprob, no_speech_prob=no_speech_prob)]


# --- the filter, on what whisper wrote ------------------------------------------------------------

@pytest.mark.parametrize("heard, words", [
    pytest.param("以下是普通话的句子。", "", id="the prompt alone"),
    pytest.param("以下是普通话的句子。 以下是普通话的句子。", "", id="the prompt twice"),
    pytest.param("这位是普通话的句子。", "", id="a near copy of the prompt, seen on pink noise"),
    pytest.param("喔 朮朮朮朮 以下是普通話的句子。", "喔 朮朮朮朮", id="the prompt in traditional characters"),
    pytest.param("謝謝觀看", "", id="a stock phrase in traditional characters"),
    pytest.param("以下是普通话的句子。一共四位，对吗？", "一共四位，对吗？", id="the prompt, then real words"),
    pytest.param("以下是普通话的句子我要订位", "我要订位", id="the prompt run into real words"),
    pytest.param("《King 314》 《Into 3》 以下是普通话。", "《King 314》 《Into 3》",
                 id="part of the prompt, seen on espeak-ng"),
    pytest.param("好的，以下是普通话的句子。七点半", "好的，七点半", id="the prompt between real words"),
    pytest.param("请不吝点赞 订阅 转发 打赏支持明镜与点点栏目", "", id="明镜与点点"),
    pytest.param("字幕由Amara.org社区提供", "", id="Amara zh"),
    pytest.param("谢谢观看。", "", id="谢谢观看"),
    pytest.param("(音乐)", "", id="a sound label"),
    pytest.param("[BLANK_AUDIO]", "", id="a sound label en"),
    pytest.param("Thanks for watching!", "", id="thanks for watching"),
    pytest.param("Book a table for two. Thanks for watching!", "Book a table for two.", id="en real words kept"),
    pytest.param("谢谢，我要订四个人的位子", "谢谢，我要订四个人的位子", id="a real 谢谢"),
    pytest.param("谢谢。", "谢谢。", id="a lone 谢谢 whisper heard as speech"),
    pytest.param("Thank you.", "Thank you.", id="a lone thank-you whisper heard as speech"),
    pytest.param("Thank you for waiting, a table for four please.",
                 "Thank you for waiting, a table for four please.", id="near a stock phrase, but real"),
    pytest.param("我想听音乐", "我想听音乐", id="music asked for, not a label"),
    pytest.param("以下是三家餐厅的评分。", "以下是三家餐厅的评分。", id="starts like the prompt"),
])
def test_whisper_s_own_words_are_taken_out_and_the_user_s_kept(heard, words):
    kept, dropped = invented_text(heard, PROMPT, _segments(heard))
    assert kept == words
    assert bool(dropped) == (words != heard)


@pytest.mark.parametrize("heard", ["Thank you.", "谢谢。", "you"])
def test_a_lone_stock_phrase_is_dropped_when_whisper_heard_no_speech(heard):
    kept, dropped = invented_text(heard, PROMPT, _segments(heard, no_speech_prob=0.8))
    assert kept == "" and "no_speech_prob 0.80" in dropped


def test_every_stock_phrase_is_long_enough_to_take_out_of_real_words():
    assert all(len(asr._bare(p)) >= MIN_PHRASE_CHARS for p in INVENTED_PHRASES)
    for phrase in INVENTED_PHRASES:
        assert invented_text(phrase)[0] == "", phrase


def test_a_short_prompt_is_not_cut_out_of_real_words():
    assert invented_text("普通话说得很好", "普通话")[0] == "普通话说得很好"


# --- the ASR, with a scripted model -----------------------------------------------------------------

class ScriptedWhisper:
    """Stands in for faster-whisper: writes `with_prompt` when given a prompt, else `without`."""

    calls: list[str | None] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.keep_frames: int | None = None

    with_prompt = PROMPT
    without = ""
    without_logprob = -0.3

    def transcribe(self, audio: np.ndarray, **options: Any) -> tuple[Any, Any]:
        prompt = options.get("initial_prompt")
        ScriptedWhisper.calls.append(prompt)
        text = self.with_prompt if prompt else self.without
        logprob = -0.3 if prompt else self.without_logprob
        return iter(_segments(text, avg_logprob=logprob) if text else []), SimpleNamespace(language="zh")


@pytest.fixture
def scripted(monkeypatch) -> type[ScriptedWhisper]:
    monkeypatch.setattr(asr, "model_path_for", lambda language, model="auto": Path("scripted"))
    monkeypatch.setattr(asr, "_windowed_model_class", lambda: ScriptedWhisper)
    ScriptedWhisper.calls = []
    monkeypatch.setattr(asr.WhisperASR, "retry_without_prompt", True)
    return ScriptedWhisper


def test_the_prompt_heard_as_words_is_heard_again_without_it(scripted, monkeypatch):
    monkeypatch.setattr(scripted, "without", "一共四位，对吗？")
    result = asr.WhisperASR("zh", initial_prompt_zh=PROMPT).transcribe(np.zeros(RATE, np.float32))
    assert result.text == "一共四位，对吗？" and result.confidence > 0
    assert "whisper's own prompt" in result.dropped and "heard again without the prompt" in result.dropped
    assert scripted.calls == [PROMPT, None]


def test_the_prompt_on_noise_leaves_no_words(scripted):
    result = asr.WhisperASR("zh", initial_prompt_zh=PROMPT).transcribe(np.zeros(RATE, np.float32))
    assert result.text == "" and result.confidence == 0.0 and "whisper's own prompt" in result.dropped


def test_what_whisper_is_unsure_of_without_the_prompt_is_not_kept(scripted, monkeypatch):
    monkeypatch.setattr(scripted, "without", "1.444way,U4m5")   # espeak-ng's Mandarin, heard without it
    monkeypatch.setattr(scripted, "without_logprob", -1.4)
    result = asr.WhisperASR("zh", initial_prompt_zh=PROMPT).transcribe(np.zeros(RATE, np.float32))
    assert result.text == "" and "without the prompt: unsure" in result.dropped


def test_a_full_window_that_repeats_itself_is_not_kept(scripted, monkeypatch):
    monkeypatch.setattr(scripted, "with_prompt", "轮" * 100)   # seen once on 0.6 s of quiet hum
    result = asr.WhisperASR("zh", initial_prompt_zh=PROMPT, window_secs=0).transcribe(np.zeros(RATE, np.float32))
    assert result.text == "" and "repetitive" in result.dropped


def test_real_words_cost_no_second_pass(scripted, monkeypatch):
    monkeypatch.setattr(scripted, "with_prompt", "一共四位，对吗？")
    result = asr.WhisperASR("zh", initial_prompt_zh=PROMPT).transcribe(np.zeros(RATE, np.float32))
    assert result.text == "一共四位，对吗？" and result.dropped == "" and scripted.calls == [PROMPT]


# --- the ASR stage ------------------------------------------------------------------------------------

async def test_a_dropped_transcript_ends_the_turn_unanswered_and_says_why():
    class Inventing:
        def transcribe(self, audio: np.ndarray) -> Transcript:
            return Transcript("", "zh", 0.0, -0.9, 0.86, 1.0, dropped=f"whisper's own prompt: {PROMPT!r}")

    turn = Turn(turn_id=1, start_pts=0.0, end_pts=1.0, end_wait_secs=0.5, detected_at=0.0)
    await run_test(ASRProcessor(Inventing()), frames_to_send=[SpeechSegmentFrame(turn=turn, audio=b"\0\0" * 1600)],
                   expected_down_frames=[AgentTurnEndFrame])
    assert turn.asr is not None and turn.asr.text == ""
    assert turn.asr.error == f"dropped: whisper's own prompt: {PROMPT!r}"
    assert "dropped" in str(turn.asr.trace())


async def test_words_left_after_the_prompt_is_taken_out_go_on_and_the_trace_says_what_was_taken():
    class Leaking:
        def transcribe(self, audio: np.ndarray) -> Transcript:
            return Transcript("一共四位，对吗？", "zh", 0.7, -0.3, 0.05, 1.0,
                              dropped=f"whisper's own prompt: {PROMPT!r}")

    turn = Turn(turn_id=1, start_pts=0.0, end_pts=1.0, end_wait_secs=0.5, detected_at=0.0)
    down, _ = await run_test(ASRProcessor(Leaking()),
                             frames_to_send=[SpeechSegmentFrame(turn=turn, audio=b"\0\0" * 1600)])
    assert [f.text for f in down if isinstance(f, TranscriptionFrame)] == ["一共四位，对吗？"]
    assert turn.asr is not None and turn.asr.text == "一共四位，对吗？" and turn.asr.error is None
    assert turn.asr.trace()["dropped"] == f"whisper's own prompt: {PROMPT!r}"


# --- the real models, on noise and unclear speech ------------------------------------------------

def _noise(kind: str, seconds: float = 1.5, level: float = 0.03, seed: int = 26) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    if kind == "white":
        wave = rng.standard_normal(n)
    elif kind in ("pink", "brown"):
        spectrum = np.fft.rfft(rng.standard_normal(n))
        f = np.maximum(np.arange(spectrum.size), 1)
        wave = np.fft.irfft(spectrum / (np.sqrt(f) if kind == "pink" else f), n)
    elif kind == "hum":
        wave = np.sum([np.sin(2 * np.pi * 50 * k * t) / k for k in (1, 2, 3, 5)], axis=0)
    elif kind == "clicks":
        wave = np.zeros(n)
        for start in rng.integers(0, n - 200, size=int(4 * seconds)):
            wave[start:start + 200] += np.exp(-np.arange(200) / 20) * rng.choice([-1, 1])
    else:
        wave = np.zeros(n)
    peak = float(np.abs(wave).max()) or 1.0
    return (wave / peak * level).astype(np.float32)


def _low_passed(audio: np.ndarray, hz: float) -> np.ndarray:
    spectrum = np.fft.rfft(audio)
    spectrum[int(hz * audio.size / RATE):] = 0
    return np.fft.irfft(spectrum, audio.size).astype(np.float32)


def _buried(audio: np.ndarray, snr_db: float) -> np.ndarray:
    noise = _noise("pink", audio.size / RATE, seed=3)
    gain = np.sqrt(np.mean(audio ** 2) / np.mean(noise ** 2) / 10 ** (snr_db / 10))
    return (audio + gain * noise).astype(np.float32)


def _unclear(speech: np.ndarray) -> dict[str, np.ndarray]:
    return {"reversed": speech[::-1].copy(), "low-passed 250 Hz": _low_passed(speech, 250),
            "in pink noise at -10 dB": _buried(speech, -10.0)}


def _english_speech() -> np.ndarray:
    path = SHARED_SPEECH / "sense_and_sensibility_01_austen_64kb-0870.wav"
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine")
    audio, rate = sf.read(str(path), dtype="float32")
    assert rate == RATE
    return audio[: 4 * RATE]


def _espeak_mandarin(tmp_path: Path) -> np.ndarray:
    """espeak-ng's Mandarin: whisper base hears it as unclear speech (and wrote its prompt)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    wav = tmp_path / "cmn.wav"
    subprocess.run(["espeak-ng", "-v", "cmn", "-w", str(wav), "一共四位，对吗？"], check=True)
    audio, rate = sf.read(str(wav), dtype="float32")
    at = np.arange(int(audio.size * RATE / rate)) * rate / RATE
    return np.interp(at, np.arange(audio.size), audio).astype(np.float32)


def _nothing_invented(result: Transcript, prompt: str | None, clip: str = "") -> None:
    bare = asr._bare(result.text)
    assert prompt is None or asr._bare(prompt) not in bare, (clip, result)
    assert not any(asr._bare(p) in bare for p in INVENTED_PHRASES), (clip, result)
    assert invented_text(result.text, prompt, _segments(result.text, result.no_speech_prob))[1] == "", (clip, result)


NOISES = ["silence", "white", "pink", "brown", "hum", "clicks"]


@pytest.fixture(scope="module")
def whisper_en() -> asr.WhisperASR:
    return asr.WhisperASR("en", cpu_threads=1)


@pytest.fixture(scope="module")
def whisper_zh() -> asr.WhisperASR:
    return asr.WhisperASR("zh", cpu_threads=1, initial_prompt_zh=PROMPT)


@pytest.mark.slow
@pytest.mark.parametrize("kind", NOISES)
def test_noise_is_not_heard_as_english_words(whisper_en, kind):
    _nothing_invented(whisper_en.transcribe(_noise(kind)), None)


@pytest.mark.slow
@pytest.mark.parametrize("kind", NOISES)
@pytest.mark.parametrize("level", [0.003, 0.2])
def test_noise_is_not_heard_as_chinese_words(whisper_zh, kind, level):
    _nothing_invented(whisper_zh.transcribe(_noise(kind, level=level)), PROMPT)


@pytest.mark.slow
def test_unclear_english_speech_is_not_passed_off_as_stock_phrases(whisper_en):
    for name, audio in _unclear(_english_speech()).items():
        _nothing_invented(whisper_en.transcribe(audio), None, name)


@pytest.mark.slow
def test_unclear_chinese_speech_is_not_passed_off_as_the_prompt(whisper_zh, tmp_path):
    speech = _espeak_mandarin(tmp_path)
    pad = np.zeros(int(0.3 * RATE), np.float32)
    clips = {"espeak-ng": np.concatenate([pad, speech, pad]), **_unclear(speech),
             "English to the Chinese model": _english_speech()}
    for name, audio in clips.items():
        _nothing_invented(whisper_zh.transcribe(audio), PROMPT, name)
