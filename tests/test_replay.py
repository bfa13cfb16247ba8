"""End to end: recorded speech through the real VAD, ASR and TTS (LLM mocked here;
test_local_llm.py runs the real one)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from monologue.pipeline.audio_io import AudioInputError, load_session
from monologue.pipeline.replay import replay_audio, replay_path

from fakes import DEMO, DEMO_TEXT, SHARED_SPEECH, word_overlap

pytestmark = pytest.mark.slow


async def test_demo_session_end_to_end(real_models, mock_config, tmp_path):
    result = await replay_path(DEMO, mock_config, real_models, tmp_path)
    expected = DEMO_TEXT.read_text().splitlines()
    heard = [t.text for t in result.turns]
    assert len(heard) == len(expected)
    for want, got in zip(expected, heard, strict=True):
        assert word_overlap(want, got) >= 0.7, (want, got)
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [line["turn"] for line in lines] == [1, 2, 3, 4, 5]
    for line in lines:
        assert line["asr"]["confidence"] > 0.3
        # The (mocked) model's words lead, or — said the turn before — are stopped by the check;
        # the policy's template says what they left out.
        assert line["reply"]["source"] in ("model+template", "template") and line["reply"]["text"]
        assert line["reply"]["text"].startswith("Sure, I can do that.") or line["reply"]["check"]
        assert line["reply"]["prompt"][-1]["content"].startswith(line["asr"]["text"])
        # A drafted reply is held until the silence confirms the turn: never heard sooner.
        assert line["latency_ms"]["voice_to_voice"] >= line["latency_ms"]["turn_end_wait"]
        assert line["vad"]["end_secs"] > line["vad"]["start_secs"]
    assert [line["turn_class"] for line in lines] == [
        "information_change", "information_change", "chit_chat", "information_change", "confirmation"]
    # The demo's task is done: the time asked for, one place offered, small talk, six people, booked.
    assert [line["reply"]["decision"]["act"] for line in lines] == ["ask", "propose", "small_talk", "propose", "act"]
    reply, rate = sf.read(tmp_path / "reply.wav", dtype="int16")
    assert rate == 22050 and reply.size / rate >= result.audio_secs
    # the agent speaks after each user turn, not over it
    for line in lines:
        start = line["tts"]["session_start_secs"]
        assert start > line["vad"]["end_secs"]
        assert np.abs(reply[int(start * rate): int((start + 0.5) * rate)]).max() > 500
    conversation, _ = sf.read(tmp_path / "conversation.wav", dtype="int16")
    assert conversation.ndim == 2 and conversation.shape[1] == 2
    transcript = (tmp_path / "transcript.txt").read_text()
    assert transcript.count("user:") == 5 and transcript.count("agent:") == 5
    assert 0 < result.wall_secs                  # how fast is scripts/bench_latency.py's business
    assert result.triggered_share == pytest.approx(0.8)


async def test_webrtc_vad_finds_the_same_turns(real_models, mock_config, tmp_path):
    config = mock_config.with_overrides({"vad": {"engine": "webrtc"}})
    result = await replay_path(DEMO, config, real_models, tmp_path)
    assert len([t for t in result.turns if t.text]) == 5
    assert json.loads((tmp_path / "trace.jsonl").read_text().splitlines()[0])["vad"]["engine"] == "webrtc"


async def test_folder_of_turn_files_at_48k_stereo(real_models, mock_config, tmp_path):
    audio, rate = sf.read(DEMO, dtype="float32")
    turns = tmp_path / "turns"
    turns.mkdir()
    first = audio[int(0.4 * rate): int(4.8 * rate)]
    import soxr

    upsampled = soxr.resample(first, rate, 48000)
    sf.write(turns / "01.wav", np.stack([upsampled, upsampled * 0.5], axis=1), 48000)
    sf.write(turns / "02.flac", audio[int(9.0 * rate): int(13.5 * rate)], rate)
    session = load_session(turns)
    assert session.original_rate == 48000 and session.original_channels == 2
    result = await replay_audio(session, mock_config, real_models, tmp_path / "out")
    heard = [t.text for t in result.turns]
    assert len(heard) == 2
    assert word_overlap("I'd like to book a table for four people on Saturday evening", heard[0]) >= 0.7


async def test_pure_silence_gives_no_turns_and_no_hang(real_models, mock_config, tmp_path):
    path = tmp_path / "silence.wav"
    sf.write(path, np.zeros(16000 * 5, dtype=np.int16), 16000)
    result = await replay_path(path, mock_config, real_models, tmp_path / "out")
    assert result.turns == []
    assert (tmp_path / "out" / "trace.jsonl").read_text() == ""
    assert (tmp_path / "out" / "reply.wav").exists()


@pytest.mark.skipif(not SHARED_SPEECH.is_dir(), reason="../shared/data/speech/en-real is not on this machine")
async def test_real_human_speech(real_models, mock_config, tmp_path):
    """LibriVox clips read by a person: one turn per clip, words as read."""
    expected = {}
    for line in (SHARED_SPEECH / "transcription").read_text().splitlines():
        words, _, file_id = line.rpartition("(")
        expected[file_id.strip(") ")] = words.replace("<s>", "").replace("</s>", "").strip()
    result = await replay_path(SHARED_SPEECH, mock_config, real_models, tmp_path)
    heard = " ".join(t.text for t in result.turns)
    assert len(result.turns) >= len(expected)  # a long clip may be cut at a breath
    assert word_overlap(" ".join(expected[k] for k in sorted(expected)), heard) >= 0.85, heard


def test_bad_files_get_clear_messages(tmp_path):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(AudioInputError, match="empty"):
        load_session(empty)
    corrupt = tmp_path / "corrupt.wav"
    corrupt.write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt garbage garbage" * 10)
    with pytest.raises(AudioInputError, match="not a readable audio file"):
        load_session(corrupt)
    with pytest.raises(AudioInputError, match="does not exist"):
        load_session(tmp_path / "nowhere.wav")
    folder = tmp_path / "no_audio"
    folder.mkdir()
    (folder / "notes.txt").write_text("hi")
    with pytest.raises(AudioInputError, match="no audio files"):
        load_session(folder)
    header_only = tmp_path / "header_only.wav"
    sf.write(header_only, np.zeros(0, dtype=np.int16), 16000)
    with pytest.raises(AudioInputError, match="no audio samples"):
        load_session(header_only)


def test_two_hour_file_is_refused_quickly(tmp_path):
    import time

    path = tmp_path / "two_hours.flac"
    with sf.SoundFile(path, "w", samplerate=8000, channels=1, subtype="PCM_16") as f:
        block = np.zeros(8000 * 600, dtype=np.int16)
        for _ in range(12):
            f.write(block)
    started = time.perf_counter()
    with pytest.raises(AudioInputError, match=r"120\.0 min.*replay\.max_seconds"):
        load_session(path, max_secs=1800)
    assert time.perf_counter() - started < 2.0
