"""Voice activity detection analyzers.

- silero: the ONNX model bundled in the pipecat-ai wheel (MIT, snakers4/silero-vad).
- webrtc: Google's WebRTC VAD via `webrtcvad-wheels` (MIT/BSD). Much cheaper, but it
  flags stationary noise as speech: keep silero for anything but clean audio.
"""

from __future__ import annotations

import importlib

from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams

from monologue.models.errors import ModelUnavailable

WEBRTC_REQUIREMENT = "webrtcvad-wheels==2.0.14.post1"
SILERO_REQUIREMENT = "pipecat-ai[silero]==1.14.0"


class WebRTCVADAnalyzer(VADAnalyzer):
    """pipecat VADAnalyzer on top of webrtcvad: 30 ms windows, confidence 0 or 1."""

    def __init__(self, *, sample_rate: int | None = None, params: VADParams | None = None,
                 aggressiveness: int = 2) -> None:
        try:
            webrtcvad = importlib.import_module("webrtcvad")
        except ImportError:
            raise ModelUnavailable("webrtcvad", WEBRTC_REQUIREMENT) from None
        self._vad = webrtcvad.Vad(int(aggressiveness))
        super().__init__(sample_rate=sample_rate, params=params)

    def set_sample_rate(self, sample_rate: int) -> None:
        if sample_rate not in (8000, 16000, 32000, 48000):
            raise ValueError(f"webrtcvad needs 8, 16, 32 or 48 kHz audio, got {sample_rate} Hz")
        super().set_sample_rate(sample_rate)

    def num_frames_required(self) -> int:
        return int(self.sample_rate * 0.03)

    def voice_confidence(self, buffer: bytes) -> float:
        return 1.0 if self._vad.is_speech(buffer, self.sample_rate) else 0.0


def load_vad(engine: str, sample_rate: int, params: VADParams, aggressiveness: int = 2) -> VADAnalyzer:
    if engine == "webrtc":
        return WebRTCVADAnalyzer(sample_rate=sample_rate, params=params, aggressiveness=aggressiveness)
    if engine == "silero":
        try:
            from pipecat.audio.vad.silero import SileroVADAnalyzer
        except Exception as exc:  # onnxruntime missing or the bundled model gone
            raise ModelUnavailable("silero VAD", SILERO_REQUIREMENT, str(exc)) from None
        return SileroVADAnalyzer(sample_rate=sample_rate, params=params)
    raise ValueError(f"vad.engine must be 'silero' or 'webrtc', got {engine!r}")


def silero_model_path() -> str:
    from importlib import resources
    return str(resources.files("pipecat.audio.vad.data").joinpath("silero_vad.onnx"))
