"""A session's trace.jsonl, read back into the turns a report shows.

The trace is written by `processors/trace.py` (`trace_line`); this reader is its mirror
and must never fail on it: a line from an older or newer version, a half-written last
line after a crash, or a section of an unexpected shape is skipped or shown in part,
with a note saying which line and why. Nothing here imports pipecat or a model, so
`monologue report` starts at once and a report can be written after any session.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The trace version this reader was written against (processors/trace.py TRACE_VERSION).
KNOWN_TRACE_VERSION = 3   # 2 added the barge_in section, which the page reads; 3 turn_end and reply.tokens
# Working memory keeps the agent's last action cut to this many characters (engine.py).
STATE_ACTION_CHARS = 200


@dataclass
class BargeIn:
    """Where the user cut the agent's reply: the words that were spoken, and those that were not."""

    cut_at_secs: float | None = None
    spoken: str = ""
    unspoken: str = ""
    stop_ms: float | None = None

    @property
    def unstarted(self) -> bool:
        """Not a sound of it played: the user went on before the voice began (`BargeIn.unstarted`)."""
        return not self.spoken and not self.stop_ms

    @property
    def shown(self) -> bool:
        """A cut worth telling: it was never said, or something of it was left unsaid (a reply
        stopped over its last syllable was heard whole)."""
        return self.unstarted or bool(self.unspoken)


@dataclass
class StateUpdate:
    """What working memory did with one turn: its operations and the state before and after."""

    version: int | None
    operations: list[dict[str, Any]]
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    diff: dict[str, Any]
    summary: str


@dataclass
class TurnView:
    """One user turn and the agent's answer, as the report shows them."""

    line: int                               # line of trace.jsonl it came from
    number: int
    user_text: str = ""
    start_secs: float | None = None         # session time the user began; None for typed turns
    end_secs: float | None = None
    heard_confidence: float | None = None
    asr_error: str = ""
    turn_class: str = ""
    reply_text: str = ""
    reply_at_secs: float | None = None      # session time the reply began playing
    reply_at_estimated: bool = False        # no playout timeline: end of speech + voice-to-voice
    reply_error: str = ""
    reply_source: str = ""
    act: str = ""                           # the dialogue policy's act (ask, propose, act, …)
    state_version: int | None = None        # the state version the reply was built on
    barge_in: BargeIn | None = None
    update: StateUpdate | None = None
    monologue_skipped: str = ""             # why the update did not run (chit-chat, off)
    monologue_error: str = ""
    memories: dict[str, Any] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    typed: bool = False                     # a typed turn: no silence, speech recognition or voice
    drafted: bool = False                   # answered from a draft begun before the turn's end was sure


@dataclass
class SessionTrace:
    """A whole session: its turns in trace order, and what could not be read."""

    path: Path
    turns: list[TurnView]
    notes: list[str]
    session_id: str = ""
    started_at: dt.datetime | None = None
    domain: str = ""
    language: str = ""
    opening: str = ""                       # what the agent said before the first turn, if kept
    opening_cut: bool = False               # only its first characters were kept (the state's note)
    opening_barge_in: BargeIn | None = None  # the user cut the opening line (the trace's `opening`)

    @property
    def timed(self) -> bool:
        """Whether the turns sit on a session timeline (audio), not typed one after another."""
        return any(t.start_secs is not None for t in self.turns)


def read_trace(path: Path) -> SessionTrace:
    """Every readable turn of `path`; unreadable lines become notes, never exceptions."""
    notes: list[str] = []
    turns: list[TurnView] = []
    try:
        raw = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        return SessionTrace(path, [], [f"{path} could not be read: {exc.strerror or exc}"])
    newer = False
    header: dict[str, Any] = {}
    heard_opening: dict[str, Any] | None = None     # the first line's `opening` section
    for index, text in enumerate(raw.splitlines(), 1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            notes.append(f"line {index} skipped: not JSON ({exc.msg}; a line cut off by a crash looks like this)")
            continue
        if not isinstance(data, dict):
            notes.append(f"line {index} skipped: a {type(data).__name__}, not a turn object")
            continue
        version = data.get("v")
        if isinstance(version, int) and version > KNOWN_TRACE_VERSION:
            newer = True
        if "turn" not in data and isinstance(data.get("session"), dict):
            header = data["session"]
            continue
        opening = data.get("opening")
        if isinstance(opening, dict) and isinstance(opening.get("text"), str) and heard_opening is None:
            heard_opening = opening
        try:
            turns.append(_turn(index, data, notes))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # A field of an unexpected shape (a hand-edited or foreign line): skip the turn.
            notes.append(f"line {index} skipped: {type(exc).__name__}: {exc}")
    if newer:
        notes.append(f"some lines were written by a newer trace format (v > {KNOWN_TRACE_VERSION}); "
                     "what this version understands is shown")
    session = SessionTrace(path, turns, notes)
    _describe_session(session)
    _read_header(session, header)
    if heard_opening is not None and heard_opening.get("text"):
        # The opening as the trace writer saw it end: whole, and how the user cut it, if they did.
        session.opening, session.opening_cut = str(heard_opening["text"]), False
        session.opening_barge_in = _barge_in(heard_opening)
    return session


def _read_header(session: SessionTrace, header: dict[str, Any]) -> None:
    """A session line, where the trace has one, overrides what the states suggest:
    `{"v": 1, "session": {"id", "started_at" (ISO or epoch seconds), "opening", "domain", "language"}}`."""
    if isinstance(header.get("id"), str) and header["id"]:
        session.session_id = header["id"]
    for name in ("domain", "language"):
        if isinstance(header.get(name), str) and header[name]:
            setattr(session, name, header[name])
    if isinstance(header.get("opening"), str) and header["opening"]:
        session.opening, session.opening_cut = header["opening"], False
    started = header.get("started_at")
    stamp = _number(started)
    try:
        if isinstance(started, str) and started:
            session.started_at = dt.datetime.fromisoformat(started)
        elif stamp is not None:
            session.started_at = dt.datetime.fromtimestamp(stamp)
    except (ValueError, OverflowError, OSError):
        session.notes.append(f"the session line's started_at {started!r} is not a date; the file's date is shown")


def _turn(line: int, data: dict[str, Any], notes: list[str]) -> TurnView:
    number = data.get("turn")
    if isinstance(number, bool) or not isinstance(number, int):
        raise ValueError(f"no turn number (turn={number!r})")
    vad, asr, reply, tts = (_section(data, name, line, notes) for name in ("vad", "asr", "reply", "tts"))
    turn = TurnView(line=line, number=number)
    turn.user_text = _text(asr.get("text"))
    turn.heard_confidence = _number(asr.get("confidence"))
    turn.asr_error = _text(asr.get("error"))
    if vad.get("engine") not in ("text", None, ""):
        turn.start_secs = _number(vad.get("start_secs"))
        turn.end_secs = _number(vad.get("end_secs"))
    turn.typed = vad.get("engine") == "text" or asr.get("source") == "text"
    turn.drafted = bool(_section(data, "turn_end", line, notes).get("drafted"))
    turn.turn_class = _text(data.get("turn_class"))
    turn.reply_text = _text(reply.get("text"))
    turn.reply_error = _text(reply.get("error"))
    turn.reply_source = _text(reply.get("source"))
    decision = reply.get("decision")
    turn.act = _text(decision.get("act")) if isinstance(decision, dict) else ""
    version = reply.get("state_version")
    turn.state_version = version if isinstance(version, int) else None
    latency = {k: _number(v) for k, v in _section(data, "latency_ms", line, notes).items()}
    turn.latency_ms = {k: v for k, v in latency.items() if v is not None}
    turn.reply_at_secs = _number(tts.get("session_start_secs"))
    if turn.reply_at_secs is None and turn.end_secs is not None and "voice_to_voice" in turn.latency_ms:
        turn.reply_at_secs = turn.end_secs + turn.latency_ms["voice_to_voice"] / 1000
        turn.reply_at_estimated = True
    turn.barge_in = _barge_in(data.get("barge_in"))
    turn.memories = _section(data, "memories", line, notes)
    _read_monologue(turn, _section(data, "monologue", line, notes))
    return turn


def _barge_in(barge: Any) -> BargeIn | None:
    """A cut, as the trace's `barge_in` section tells it (a backchannel's record is not a cut)."""
    if not isinstance(barge, dict) or not barge.get("cut"):
        return None
    return BargeIn(_number(barge.get("cut_at_secs")), _text(barge.get("spoken")), _text(barge.get("unspoken")),
                   _number(barge.get("stop_ms")))


def _read_monologue(turn: TurnView, section: dict[str, Any]) -> None:
    if section.get("skipped"):
        turn.monologue_skipped = _text(section.get("reason")) or "skipped"
        return
    if section.get("error"):
        turn.monologue_error = _text(section.get("error"))
    after = section.get("state_after")
    if not isinstance(after, dict):
        return
    before = section.get("state_before")
    operations = section.get("operations")
    diff = section.get("diff")
    version = section.get("version")
    turn.update = StateUpdate(
        version=version if isinstance(version, int) else None,
        operations=[op for op in operations if isinstance(op, dict)] if isinstance(operations, list) else [],
        state_before=before if isinstance(before, dict) else {},
        state_after=after,
        diff=diff if isinstance(diff, dict) else {},
        summary=_text(section.get("text")))


def _describe_session(session: SessionTrace) -> None:
    """Session id, date, domain and language, from the first state a turn carries."""
    for turn in session.turns:
        if turn.update is None:
            continue
        state = turn.update.state_after
        session.session_id = _text(state.get("session_id"))
        session.domain = _text(state.get("domain"))
        stamp = _number(turn.update.state_before.get("updated_at")) or _number(state.get("updated_at"))
        if stamp is not None:
            try:
                session.started_at = dt.datetime.fromtimestamp(stamp)
            except (OverflowError, OSError, ValueError):
                session.started_at = None
        before = turn.update.state_before
        if turn is session.turns[0] and before.get("turn") == 0:
            session.opening = _text(before.get("last_turn_action"))
            session.opening_cut = len(session.opening) >= STATE_ACTION_CHARS
        break
    if session.started_at is None:
        try:
            session.started_at = dt.datetime.fromtimestamp(session.path.stat().st_mtime)
        except OSError:
            pass
    languages = [t for t in (_language_of(turn) for turn in session.turns) if t]
    session.language = max(set(languages), key=languages.count) if languages else ""


def _language_of(turn: TurnView) -> str:
    if any("\u4e00" <= ch <= "\u9fff" for ch in turn.user_text):
        return "zh"
    return "en" if turn.user_text else ""


def _section(data: dict[str, Any], name: str, line: int, notes: list[str]) -> dict[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        notes.append(f"line {line}: section {name!r} is a {type(value).__name__}, not an object; left out")
        return {}
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _number(value: Any) -> float | None:
    """A finite number, or None (JSON from Python may carry NaN and Infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
