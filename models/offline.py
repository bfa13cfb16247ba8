"""Offline guarantees: no hub downloads, no price-list fetches, a local cache folder."""

from __future__ import annotations

import os
from pathlib import Path

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


def enforce_offline() -> None:
    """Set the variables that keep every library from reaching a model hub.

    Called before any model library is imported; values a user set explicitly to
    stay offline are kept, and HF_HUB_OFFLINE is forced on whatever was set.
    """
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    os.environ["HF_HUB_OFFLINE"] = "1"


def cache_dir() -> Path:
    """Writable folder for assembled model files (joined GGUF parts, whisper base)."""
    root = os.environ.get("MONOLOGUE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "monologue"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


enforce_offline()
