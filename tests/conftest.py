"""Shared fixtures: real models loaded once per session, fakes for everything timing-related."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DEMO = ROOT / "assets" / "demo_session" / "demo.flac"
DEMO_TEXT = ROOT / "assets" / "demo_session" / "demo.txt"
SHARED_SPEECH = ROOT.parent / "shared" / "data" / "speech" / "en-real"


class FakeTranscriber:
    """Returns scripted transcripts in order; records the audio it was given."""

    def __init__(self, texts: list[str], confidence: float = 0.9) -> None:
        self._texts = list(texts)
        self.confidence = confidence
        self.seen: list[np.ndarray] = []

    def transcribe(self, audio: np.ndarray):
        from models.asr import Transcript

        self.seen.append(audio)
        text = self._texts.pop(0) if self._texts else ""
        return Transcript(text, "en", self.confidence, -0.1, 0.01, audio.size / 16000)


class FakeSynthesizer:
    """One 100 ms tone per clause at 22,050 Hz."""

    sample_rate = 22050

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def synthesize(self, text: str) -> Iterator[bytes]:
        self.spoken.append(text)
        t = np.arange(int(0.1 * self.sample_rate)) / self.sample_rate
        yield (np.sin(2 * np.pi * 220 * t) * 8000).astype(np.int16).tobytes()


@pytest.fixture
def mock_config():
    """The embedded defaults with a canned LLM reply (no model call)."""
    from configs import load_config

    return load_config(overrides={"llm": {"model": "openai/gpt-4o-mini", "fallback": None,
                                          "mock_response": "Sure, I can do that. Anything else?"}},
                       environ={})


@pytest.fixture(scope="session")
def real_models():
    """Real whisper tiny.en and piper, a mock LLM: loaded once for the whole run."""
    from configs import load_config
    from pipeline.builder import load_models

    config = load_config(overrides={"llm": {"model": "openai/gpt-4o-mini", "fallback": None,
                                            "mock_response": "Sure, I can do that. Anything else?"}},
                         environ={})
    return load_models(config)


def word_overlap(expected: str, got: str) -> float:
    norm = lambda s: [w.strip(".,!?'\"").lower() for w in s.split() if w.strip(".,!?'\"")]  # noqa: E731
    want, have = norm(expected), set(norm(got))
    return sum(w in have for w in want) / max(len(want), 1)
