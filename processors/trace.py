"""Trace: one JSON line per user turn with what every layer saw and produced (P8)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TextIO

from pipecat.frames.frames import CancelFrame, EndFrame, Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.memory.stores.private_files import open_private, private_folder
from monologue.processors.frames import AgentTurnEndFrame, BargeIn, Turn

# 2: a `barge_in` section (a reply cut by the user, or a backchannel); 3: a `turn_end` section
# (how the end was decided, drafts) and `latency_ms` counted from when the agent began (a draft).
TRACE_VERSION = 3


def trace_line(turn: Turn) -> dict[str, Any]:
    compute = {k: round(v * 1000, 1) for k, v in turn.compute.items()}
    return {
        "v": TRACE_VERSION,
        "turn": turn.turn_id,
        "vad": {"engine": turn.vad_engine, "start_secs": turn.start_pts, "end_secs": turn.end_pts,
                "turn_end_wait_secs": turn.end_wait_secs},
        "asr": turn.asr.trace() if turn.asr is not None else {},
        "turn_class": turn.turn_class or "",
        "classifier": turn.classifier.trace() if turn.classifier is not None else {},
        "monologue": turn.monologue.trace() if turn.monologue is not None else {},
        "memories": turn.memories.trace() if turn.memories is not None else {},
        "reply": turn.reply.trace(),
        "tts": turn.tts.trace(),
        "latency_ms": turn.latencies_ms(),
        "compute_ms": compute,
        "barge_in": turn.barge_in.trace() if turn.barge_in is not None else {},
        "turn_end": turn.turn_end.trace(),
    }


def format_clock(secs: float) -> str:
    minutes, seconds = divmod(max(secs, 0.0), 60)
    return f"{int(minutes):02d}:{seconds:04.1f}"


def said_line(text: str, barge_in: BargeIn | None, at: float, *, opening: bool = False) -> str:
    """A reply as transcript.txt tells it: what was said, and how a cut happened — the user
    went on (or, over the opening, spoke first) before a sound of it played, or spoke over it
    (what was left unsaid follows). A reply stopped over its last syllable was heard whole."""
    if barge_in is None or not barge_in.cut:
        return text
    if barge_in.unstarted:
        worded = barge_in.unspoken or text
        why = "the user spoke first" if opening else "the user went on"
        return f"(not said: {why})" + (f" [worded: {worded}]" if worded else "")
    if not barge_in.unspoken:
        return text
    when = format_clock(barge_in.cut_at_secs if barge_in.cut_at_secs is not None else at)
    spoken = barge_in.spoken or "(its first word cut short)"
    return f"{spoken} [cut by the user at {when}, speaking over it; not said: {barge_in.unspoken}]"


class TraceWriter(FrameProcessor):
    """One job: write the finished turn to `trace.jsonl` and `transcript.txt`.

    Each line is flushed as soon as the turn ends, so Ctrl-C or a crash loses at
    most the turn in flight. `on_turn_done` tells the source the agent is free.
    """

    def __init__(self, out_dir: Path | None, *,
                 on_turn_done: Callable[[Turn], None] | None = None, append: bool = False) -> None:
        """`append`: a continued session (taken up again, here or by another worker sharing
        the folder) adds its turns to the record instead of starting it over."""
        super().__init__()
        self.turns: list[Turn] = []
        self._on_turn_done = on_turn_done
        self._trace: TextIO | None = None
        self._transcript: TextIO | None = None
        self._opening: dict[str, Any] | None = None    # the opening line as heard, until a turn's line carries it
        if out_dir is not None:
            private_folder(out_dir)
            mode: Literal["w", "a"] = "a" if append else "w"
            self._trace = open_private(out_dir / "trace.jsonl", mode)
            self._transcript = open_private(out_dir / "transcript.txt", mode)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, AgentTurnEndFrame):
            if frame.turn.turn_id > 0:
                self._write(frame.turn)
            elif frame.turn.reply.text:
                self._write_opening(frame.turn)
        elif isinstance(frame, (EndFrame, CancelFrame)):
            self.close()
        await self.push_frame(frame, direction)

    def _write_opening(self, turn: Turn) -> None:
        """The opening line (turn 0), as heard: in transcript.txt now, and in trace.jsonl as the
        `opening` section of the first user turn's line (a line is a user turn: readers count them)."""
        self._opening = {"text": turn.reply.text, **(turn.barge_in.trace() if turn.barge_in is not None else {})}
        if self._transcript is not None:
            # "agent (opening)": a reader counting the agent's answers ("agent:") counts replies to turns.
            self._transcript.write(f"[{format_clock(0.0)}] agent (opening): "
                                   f"{said_line(turn.reply.text, turn.barge_in, 0.0, opening=True)}\n")
            self._transcript.flush()

    def _write(self, turn: Turn) -> None:
        self.turns.append(turn)
        if self._trace is not None:
            line = trace_line(turn)
            if self._opening is not None:
                line["opening"], self._opening = self._opening, None
            self._trace.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._trace.flush()
        if self._transcript is not None:
            if turn.text:
                self._transcript.write(f"[{format_clock(turn.start_pts)}] user: {turn.text}\n")
            cut = turn.barge_in is not None and turn.barge_in.cut \
                and (turn.barge_in.unstarted or bool(turn.barge_in.unspoken))
            if turn.reply.text or cut:
                at = turn.tts.session_start_secs if turn.tts.session_start_secs is not None else turn.end_pts
                if cut and turn.barge_in is not None and turn.barge_in.cut_at_secs is not None:
                    at = min(at, turn.barge_in.cut_at_secs)    # cut before it started: when it was dropped
                self._transcript.write(f"[{format_clock(at)}] agent: {said_line(turn.reply.text, turn.barge_in, at)}\n")
            if turn.barge_in is not None and turn.barge_in.backchannel:
                self._transcript.write(f"[{format_clock(turn.start_pts)}]   (a backchannel: not answered)\n")
            self._transcript.flush()
        if self._on_turn_done is not None:
            self._on_turn_done(turn)

    def close(self) -> None:
        for handle in (self._trace, self._transcript):
            if handle is not None and not handle.closed:
                handle.close()

    async def cleanup(self) -> None:
        self.close()
        await super().cleanup()
