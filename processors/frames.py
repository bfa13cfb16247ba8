"""Frames Monologue adds to pipecat's, and the per-turn record they carry.

A `TurnRecord` is created by the VAD when a user turn ends and travels with the
turn's frames; each stage writes its own section, and the trace writer serialises
it once the agent has finished answering. Times are `time.perf_counter()` seconds
(wall) or session seconds (`*_pts`, position on the input's own timeline).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipecat.frames.frames import DataFrame, TextFrame, TTSAudioRawFrame


@dataclass
class TurnRecord:
    turn_id: int
    start_pts: float                 # session seconds where speech began
    end_pts: float                   # session seconds where speech ended
    end_wait_secs: float             # silence the VAD waited before closing the turn
    detected_at: float               # wall time the VAD closed the turn
    vad_engine: str = ""
    asr: dict[str, Any] = field(default_factory=dict)
    turn_class: str = ""
    classifier: dict[str, Any] = field(default_factory=dict)
    monologue: dict[str, Any] = field(default_factory=dict)
    reply_prompt: list[dict[str, str]] = field(default_factory=list)
    reply_model: str = ""
    reply_text: str = ""
    reply_error: str = ""
    tts: dict[str, Any] = field(default_factory=dict)
    state_update: Any = None         # asyncio future of the working-memory update, if one runs
    state_version: int | None = None  # the state version the reply was built on
    memories: dict[str, Any] = field(default_factory=dict)   # long-term memories recalled for the reply
    marks: dict[str, float] = field(default_factory=dict)     # wall time of each stage's end
    compute: dict[str, float] = field(default_factory=dict)   # seconds inside each model call

    @property
    def text(self) -> str:
        return str(self.asr.get("text", ""))

    def mark(self, name: str, at: float) -> None:
        self.marks.setdefault(name, at)

    def latencies_ms(self) -> dict[str, float]:
        """Stage latencies measured from the moment the VAD closed the turn."""
        start = self.detected_at
        out: dict[str, float] = {"turn_end_wait": round(self.end_wait_secs * 1000, 1)}
        for name in ("asr_done", "classified", "monologue_done", "llm_first_token",
                     "llm_first_clause", "llm_done", "first_audio"):
            if name in self.marks:
                out[name] = round((self.marks[name] - start) * 1000, 1)
        if "first_audio" in self.marks:
            out["voice_to_voice"] = round(out["first_audio"] + out["turn_end_wait"], 1)
        return out


@dataclass
class SpeechSegmentFrame(DataFrame):
    """One user turn's audio (int16 mono PCM at `sample_rate`), cut by the VAD."""

    turn: TurnRecord = field(default=None)  # type: ignore[assignment]
    audio: bytes = b""
    sample_rate: int = 16000


@dataclass
class UserTurnFrame(DataFrame):
    """A transcribed user turn on its way through classifier, monologue and reply."""

    turn: TurnRecord = field(default=None)  # type: ignore[assignment]


@dataclass
class ReplyTextFrame(TextFrame):
    """A clause of the agent's reply, ready to be spoken."""

    turn: TurnRecord = field(default=None)  # type: ignore[assignment]


@dataclass
class ReplyAudioFrame(TTSAudioRawFrame):
    """Speech for one clause of the reply to `turn`."""

    turn: TurnRecord = field(default=None)  # type: ignore[assignment]


@dataclass
class AgentTurnEndFrame(DataFrame):
    """The agent is done with this turn (all its clauses were sent, or there were none)."""

    turn: TurnRecord = field(default=None)  # type: ignore[assignment]
