"""Where a turn's voice-to-voice time went, told honestly: one account for the page and the report.

Times are milliseconds after the end of the user's speech. `Turn.latencies_ms()` counts its
marks from the moment the agent began on the turn: the draft's start (`start_wait` of
silence), or the turn's close (`turn_end_wait`). So a stage ends at `start_wait + mark`,
never at `turn_end_wait + mark`, which would move a drafted turn's stages later than they
ran. What a turn did not do is said, not drawn as a zero: a transcript finished during the
pause ("ready while you paused", not "ASR 0 ms"), no state update for small talk, no model
for a reply the policy worded (its time is "reply and voice", not a long "first audio"),
no audio for a typed turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

StageName = Literal["silence", "transcript", "state", "model", "words", "voice", "reply_voice"]

# The stages' names and colours (the report's legend and the page's bar use the same).
STAGE_LABELS: dict[str, dict[str, str]] = {
    "en": {"silence": "waiting for the turn to end", "transcript": "transcript",
           "transcript_early": "transcript, done during the pause", "state": "state update",
           "model": "model, to its first words", "words": "reply, to its first words",
           "voice": "first words to speech",
           "reply_voice": "reply worded by rules, then speech"},
    "zh": {"silence": "等这一轮说完", "transcript": "转写", "transcript_early": "转写（停顿时已完成）",
           "state": "更新状态", "model": "模型（到第一个词）", "words": "措辞（到第一句）",
           "voice": "合成语音", "reply_voice": "按规则措辞并合成语音"},
}
STAGE_COLOURS = {"silence": "#b8c2cc", "transcript": "#4e79a7", "state": "#59a14f", "model": "#f28e2b",
                 "words": "#edc948",
                 "voice": "#9c755f", "reply_voice": "#9c755f"}

_NOTES = {
    "en": {"draft": "started after a {began} pause, before the turn's end was sure (at {confirmed})",
           "no_state": "no state update this turn",
           "no_transcript": "transcript time not measured",
           "typed": "typed: no silence, speech recognition or voice", "no_voice": "no voice: nothing was said"},
    "zh": {"draft": "停顿{began}后就开始了，{confirmed}时才确认说完",
           "no_state": "这一轮没有更新状态", "no_transcript": "没有测到转写时间",
           "typed": "文字输入：没有静默、语音识别和语音", "no_voice": "没有语音：什么也没说"},
}


def seconds(ms: float | None) -> str:
    """'480 ms', '1.25 s'."""
    if ms is None:
        return "—"
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


@dataclass(frozen=True)
class Stage:
    name: StageName
    start_ms: float
    end_ms: float
    parallel: bool = False      # ran beside the stages after it (a transcript finished during the pause)

    @property
    def label_key(self) -> str:
        """A transcript finished during the pause is told as such, not as a stage waited for."""
        return "transcript_early" if self.name == "transcript" and self.parallel else self.name

    @property
    def took_ms(self) -> float:
        return max(self.end_ms - self.start_ms, 0.0)


@dataclass
class Breakdown:
    """Voice to voice (None: the agent's voice never came) and the stages that make it up."""

    total_ms: float | None
    stages: list[Stage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)       # what the turn did not do, or did early, in words

    def to_dict(self, language: str = "en") -> dict[str, object]:
        labels = STAGE_LABELS.get(language, STAGE_LABELS["en"])
        return {"total_ms": self.total_ms, "notes": self.notes,
                "stages": [{"name": s.name, "label": labels[s.label_key], "start_ms": round(s.start_ms, 1),
                            "end_ms": round(s.end_ms, 1), "took": seconds(s.took_ms), "parallel": s.parallel,
                            "colour": STAGE_COLOURS[s.name]} for s in self.stages]}


def breakdown(latency_ms: Mapping[str, float], *, typed: bool = False, drafted: bool = False,
              unsaid: bool = False, language: str = "en") -> Breakdown:
    """The stages of one turn from its `latency_ms` (a trace line's, or `Turn.latencies_ms()`).
    `unsaid`: the user went on before the reply's voice began (the caller says so)."""
    notes = _NOTES.get(language, _NOTES["en"])
    out = Breakdown(latency_ms.get("voice_to_voice"))
    confirmed = 0.0 if typed else latency_ms.get("turn_end_wait", 0.0)
    began = 0.0 if typed else latency_ms.get("start_wait", confirmed)
    if typed:
        out.notes.append(notes["typed"])
    elif began > 0:
        out.stages.append(Stage("silence", 0.0, began))
    if drafted and confirmed > began:
        out.notes.append(notes["draft"].format(began=seconds(began), confirmed=seconds(confirmed)))
    at = began
    if "asr_done" in latency_ms:
        taken = began + latency_ms["asr_done"]
        ready = latency_ms.get("asr_after_speech")
        if ready is not None and ready <= taken:
            # The final pass started at the end of speech and ran during the pause.
            out.stages.append(Stage("transcript", 0.0, ready, parallel=ready <= began))
        else:
            out.stages.append(Stage("transcript", began, taken))
        at = max(at, taken)
    elif not typed:
        out.notes.append(notes["no_transcript"])
    if "monologue_done" in latency_ms:
        done = began + latency_ms["monologue_done"]
        out.stages.append(Stage("state", at, max(done, at)))
        at = max(at, done)
    else:
        out.notes.append(notes["no_state"])
    voice = out.total_ms
    # The model's first token; else the reply's first clause (worded by rules after the model,
    # or by a model stopped before a token was marked).
    name: StageName = "model" if "llm_first_token" in latency_ms else "words"
    words = latency_ms.get("llm_first_token", latency_ms.get("llm_first_clause"))
    if words is not None:
        first = began + words
        out.stages.append(Stage(name, at, max(first, at)))
        at = max(at, first)
        if voice is not None:
            out.stages.append(Stage("voice", at, max(voice, at)))
    elif voice is not None:
        out.stages.append(Stage("reply_voice", at, max(voice, at)))     # its label says: no model
    if voice is None and not typed and not unsaid:
        out.notes.append(notes["no_voice"])
    return out
