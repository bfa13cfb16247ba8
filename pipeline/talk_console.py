"""What `monologue talk` shows while it runs: the devices, each turn (heard, state change,
said) and the summary. Colour on a terminal, plain lines when stdout is a file or a pipe."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from monologue.memory.working.engine import WorkingMemory
from monologue.processors.frames import Turn

_OP_WORDS = {"set": "set", "withdraw": "withdrew", "confirm": "confirmed", "reject": "rejected",
             "ask": "asks", "resolve": "resolved", "set_goal": "goal", "note_action": "did",
             "propose": "proposes", "offer": "offers"}


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None or value == "" else str(value)


def describe_operation(op: dict[str, Any]) -> str:
    """`set party_size = 4 (rules)`: what one operation did, with its key, value and source."""
    name = str(op.get("op", "?"))
    parts = [_OP_WORDS.get(name, name)]
    if op.get("key"):
        parts.append(str(op["key"]))
    if "value" in op and op.get("value") not in (None, "", []):
        parts += [str(op.get("comparator") or "="), _value(op["value"])]
    elif op.get("question"):
        parts.append(repr(op["question"]))
    source = f" ({op['source']})" if op.get("source") else ""
    return " ".join(parts) + source


def describe_change(key: str, change: Any) -> str:
    """`party_size: — → party size = 4 (to_confirm)`: one line of the state diff, with status."""
    if isinstance(change, dict):  # pending questions
        added = "; ".join(f"+ {q}" for q in change.get("added", []))
        resolved = "; ".join(f"✓ {q}" for q in change.get("resolved", []))
        return f"{key}: " + "  ".join(p for p in (added, resolved) if p)
    if isinstance(change, (list, tuple)) and len(change) == 2:
        return f"{key}: {_value(change[0])} → {_value(change[1])}"
    return f"{key}: {_value(change)}"


class TalkConsole:
    """One job: print a talk session for the person at the desk, one turn at a time."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        # soft_wrap: a long line stays one line in a log file instead of wrapping at 80 columns.
        self.out = Console(file=out or sys.stdout, soft_wrap=True, highlight=False, emoji=False)
        self.err = Console(file=err or sys.stderr, soft_wrap=True, highlight=False, emoji=False)
        self._listening = False

    def _line(self, label: str, style: str, text: str, text_style: str = "") -> None:
        line = Text()
        line.append(f"{label:<6}", style=style)
        line.append(text, style=text_style)
        self.out.print(line)

    def devices(self, mic: str, mic_rate: int, speaker: str, speaker_rate: int, *, barge_in: bool) -> None:
        mode = ("barge-in: your voice interrupts the agent (use headphones)" if barge_in else
                "half-duplex: the microphone is muted while the agent speaks (--barge-in to interrupt it)")
        self.out.print(Text(f"microphone {mic!r} at {mic_rate} Hz, speaker {speaker!r} at {speaker_rate} Hz; {mode}",
                            style="dim"))

    def note(self, text: str) -> None:
        self.out.print(Text(text, style="dim"))

    def session(self, session_id: str, opening: str) -> None:
        if session_id:
            self.note(f"session {session_id}")
        if opening:
            self._line("agent", "bold green", opening)

    def listening(self) -> None:
        """Both devices are open and the microphone delivers audio."""
        if not self._listening:
            self._listening = True
            self.out.print(Text("Listening — speak, and press Ctrl-C to stop.", style="bold"))

    def turn(self, turn: Turn, _memory: WorkingMemory | None = None) -> None:
        """A turn was answered: what was heard, what it changed in the state, what was said."""
        if not turn.text and not turn.reply.text:
            return
        if turn.text:
            self._line("you", "bold cyan", turn.text)
        for line, style in self._state_lines(turn):
            self._line("", "", line, style)
        if turn.reply.text:
            self._line("agent", "bold green", turn.reply.text)
        elif turn.reply.error:
            self._line("agent", "bold red", f"(no reply: {turn.reply.error})", "red")

    def _state_lines(self, turn: Turn) -> list[tuple[str, str]]:
        outcome = turn.monologue
        if outcome is None:
            return []
        if outcome.error:
            return [(f"state: not updated ({outcome.error})", "red")]
        update = outcome.update
        if update is None:
            return [(f"state: unchanged ({outcome.reason})", "dim")] if outcome.reason else []
        lines: list[tuple[str, str]] = []
        diff = update.get("diff") or {}
        version = update.get("version")
        head = f"state v{version}" if version is not None else "state"
        if not diff:
            lines.append((f"{head}: no change", "dim"))
        else:
            lines.append((f"{head}:", "magenta"))
            lines += [(f"  {describe_change(k, v)}", "magenta") for k, v in diff.items()]
        operations = [describe_operation(op) for op in update.get("operations") or []]
        if operations:
            lines.append(("  ops: " + " · ".join(operations), "dim"))
        for rejected in update.get("rejected") or []:
            op = rejected.get("operation") if isinstance(rejected, dict) else rejected
            what = describe_operation(op) if isinstance(op, dict) else str(op)
            why = rejected.get("reason", "") if isinstance(rejected, dict) else ""
            lines.append((f"  refused: {what}" + (f" — {why}" if why else ""), "yellow"))
        return lines

    def summary(self, turns: int, wall_secs: float, out_dir: Path | None) -> None:
        self.out.print()
        text = f"{turns} turn(s) in {wall_secs:.0f} s"
        if out_dir is not None:
            files = [out_dir / name for name in ("trace.jsonl", "transcript.txt", "reply.wav", "heard.wav")]
            text += "; " + ", ".join(str(f) for f in files if f.exists())
        self.out.print(Text(text))

    def error(self, text: str) -> None:
        self.err.print(Text(f"monologue: {text}"))
