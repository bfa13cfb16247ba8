"""The end-of-turn model: pipecat's bundled smart-turn v3 (ONNX, in the pipecat-ai wheel).

It listens to the last 8 s of the user's turn and says how likely the turn is finished
(a falling intonation, a complete phrase) rather than paused mid-sentence ("for… um").
About 40 ms per call on this 2-core machine, on its own worker thread.

Licence: smart-turn v3 (weights and code) is BSD-2-Clause, Daily / pipecat-ai.
"""

from __future__ import annotations

import numpy as np

from monologue.models.errors import ModelUnavailable

SMART_TURN_REQUIREMENT = "pipecat-ai==1.14.0"
SMART_TURN_THREAD = "smart-turn"


class SmartTurn:
    """`probability(audio)`: how likely 16 kHz float32 audio ends a finished turn (0–1). Blocking."""

    def __init__(self, sample_rate: int = 16000, cpu_threads: int = 1) -> None:
        try:
            from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
        except Exception as exc:     # onnxruntime or the bundled model missing
            raise ModelUnavailable("smart-turn v3", SMART_TURN_REQUIREMENT, str(exc)) from None
        self._analyzer = LocalSmartTurnAnalyzerV3(cpu_count=cpu_threads)
        self._analyzer.set_sample_rate(sample_rate)

    def probability(self, audio: np.ndarray) -> float:
        if audio.size == 0:
            return 0.0
        # The analyzer's public API (append_audio / analyze_end_of_turn) keeps its own
        # buffers and silence timers, which the turn-end rule already owns; its one
        # prediction call is what is needed here.
        result = self._analyzer._predict_endpoint(audio.astype(np.float32, copy=False))
        return float(result["probability"])
