"""Audio files and rates: reading recorded sessions (checks, down-mixing, resampling to what
VAD/ASR need), writing WAV files, and resampling a stream chunk by chunk.

soxr and soundfile load native libraries, so they are imported where they are first used.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from monologue.memory.stores.private_files import private_file, private_folder

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".oga", ".aiff", ".aif")


class AudioInputError(ValueError):
    """A recording cannot be replayed; the message says which file and why."""


@dataclass(frozen=True)
class SessionAudio:
    """A session as one int16 mono stream at `sample_rate`, with the turn files it came from."""

    samples: np.ndarray
    sample_rate: int
    sources: tuple[str, ...]
    original_rate: int
    original_channels: int

    @property
    def duration_secs(self) -> float:
        return self.samples.size / self.sample_rate


def to_mono_int16(data: np.ndarray, rate: int, target_rate: int) -> np.ndarray:
    """float or int audio (frames × channels) → int16 mono at `target_rate`."""
    audio = np.asarray(data, dtype=np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    if rate != target_rate:
        import soxr

        audio = soxr.resample(audio, rate, target_rate, quality="HQ")
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype(np.int16)


def _read_one(path: Path, target_rate: int, max_secs: float) -> tuple[np.ndarray, int, int]:
    import soundfile as sf

    if not path.exists():
        raise AudioInputError(f"{path} does not exist")
    if path.stat().st_size == 0:
        raise AudioInputError(f"{path} is empty (0 bytes): record the session again or pick another file")
    try:
        info = sf.info(str(path))
    except Exception as exc:
        raise AudioInputError(
            f"{path} is not a readable audio file ({exc}); replay takes WAV, FLAC or OGG"
        ) from None
    if info.frames <= 0 or info.samplerate <= 0:
        raise AudioInputError(f"{path} holds no audio samples")
    secs = info.frames / info.samplerate
    if secs > max_secs:
        raise AudioInputError(
            f"{path} lasts {secs / 60:.1f} min, more than the {max_secs / 60:.0f} min replay allows; "
            f"split it into turn files, or raise replay.max_seconds "
            f"(MONOLOGUE__REPLAY__MAX_SECONDS={int(secs) + 1})"
        )
    try:
        data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except Exception as exc:
        raise AudioInputError(f"{path} could not be decoded ({exc}); is the file truncated?") from None
    if data.size == 0:
        raise AudioInputError(f"{path} holds no audio samples")
    if not np.all(np.isfinite(data)):
        raise AudioInputError(f"{path} contains invalid samples (NaN or infinity)")
    return to_mono_int16(data, rate, target_rate), rate, data.shape[1]


def load_session(path: str | Path, *, sample_rate: int = 16000, max_secs: float = 1800.0,
                 gap_secs: float = 1.5) -> SessionAudio:
    """Load a whole-session file, or a folder of turn files joined by `gap_secs` of silence."""
    root = Path(path).expanduser()
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix.lower() in AUDIO_SUFFIXES)
        if not files:
            raise AudioInputError(
                f"{root} has no audio files ({', '.join(AUDIO_SUFFIXES)}); a folder session "
                "holds one file per user turn, replayed in name order"
            )
    else:
        files = [root]
    gap = np.zeros(int(gap_secs * sample_rate), dtype=np.int16)
    pieces: list[np.ndarray] = []
    budget = max_secs
    first_rate, first_channels = 0, 0
    for index, file in enumerate(files):
        samples, rate, channels = _read_one(file, sample_rate, budget)
        if index == 0:
            first_rate, first_channels = rate, channels
        if pieces:
            pieces.append(gap)
        pieces.append(samples)
        budget -= samples.size / sample_rate + gap_secs
    joined = np.concatenate(pieces)
    return SessionAudio(joined, sample_rate, tuple(str(f) for f in files), first_rate, first_channels)


def write_wav(path: Path, samples: np.ndarray, sample_rate: int) -> None:
    import soundfile as sf

    private_folder(path.parent)
    sf.write(str(private_file(path)), samples, sample_rate, subtype="PCM_16")


class Resampler:
    """Streaming resampler (soxr keeps filter state across chunks)."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        import soxr

        self.in_rate = in_rate
        self._stream = None if in_rate == out_rate else soxr.ResampleStream(in_rate, out_rate, 1, dtype="int16")

    def __call__(self, samples: np.ndarray, last: bool = False) -> np.ndarray:
        if self._stream is None:   # same rate
            return samples
        return self._stream.resample_chunk(samples, last=last)


class WavRecorder:
    """One job: write int16 mono chunks to a WAV file from a thread of its own, so that an
    audio callback only hands a chunk over and never waits on the disk."""

    def __init__(self, path: Path, sample_rate: int) -> None:
        import soundfile as sf

        private_folder(path.parent)
        self.path = path
        self.rate = sample_rate
        self.written = 0            # samples handed over so far
        self._file = sf.SoundFile(str(private_file(path)), "w", samplerate=sample_rate, channels=1, subtype="PCM_16")
        self._chunks: queue.SimpleQueue[np.ndarray | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name=f"record-{path.name}", daemon=True)
        self._thread.start()

    def put(self, samples: np.ndarray) -> None:
        self._chunks.put(samples)
        self.written += samples.size

    def put_at(self, samples: np.ndarray, at: int) -> None:
        """`samples` from `at` samples into the recording: a recording on the session's clock,
        with silence where nothing was said (what came late is written after what came before)."""
        if at > self.written:
            self.put(np.zeros(at - self.written, dtype=np.int16))
        self.put(samples)

    def _write(self) -> None:
        while (chunk := self._chunks.get()) is not None:
            self._file.write(chunk)

    def close(self) -> None:
        if self._file.closed:
            return
        self._chunks.put(None)
        self._thread.join(timeout=5.0)
        self._file.close()
