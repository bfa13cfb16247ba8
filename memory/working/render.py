"""Text views of the state: the compact block in the reply prompt, and the monologue."""

from __future__ import annotations

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.working.state import Change, Condition, Operation, SessionState, describe_condition, display_value

MAX_MONOLOGUE_CHARS = 900   # ≈ 200–300 tokens: the monologue states changes, it is not an essay


def _condition_line(c: Condition, schema: DomainSchema, language: str) -> str:
    flags = []
    if c.confirmed:
        flags.append("confirmed" if language != "zh" else "已确认")
    if c.status == "to_confirm":
        flags.append("to confirm" if language != "zh" else "待确认")
    return describe_condition(c, schema, language) + (f" ({', '.join(flags)})" if flags else "")


def render_state(state: SessionState, schema: DomainSchema, language: str = "en") -> str:
    """The state as a few short lines for the reply prompt; empty parts are left out."""
    lines = []
    if state.goal:
        lines.append(("目标: " if language == "zh" else "goal: ") + state.goal)
    for condition in state.constraints.values():
        lines.append("- " + _condition_line(condition, schema, language))
    for pending in state.pending:
        lines.append(("待问: " if language == "zh" else "open question: ") + pending.question)
    if state.last_turn_action:
        lines.append(("上一步: " if language == "zh" else "last action: ") + state.last_turn_action)
    return "\n".join(lines) if lines else ("(还没有条件)" if language == "zh" else "(nothing yet)")


def _change_phrase(change: Change) -> str | None:
    if change.action == "replaced":
        return f"{change.before} → {change.after} ({change.reason})"
    if change.action == "withdrawn":
        return f"dropped {change.before}"
    if change.action == "added":
        return f"added {change.after}"
    if change.action == "maybe_changed":
        return f"{change.after} instead of {change.before}? asking first"
    if change.action == "confirmed":
        return f"confirmed {change.after}"
    if change.action == "expired":
        return f"{change.before} expired ({change.reason})"
    if change.action == "to_confirm":
        return f"{change.slot} needs re-confirming ({change.reason})"
    return None


def render_monologue(state: SessionState, changes: list[Change], schema: DomainSchema,
                     language: str = "en", note: str = "") -> str:
    """What the user wants now, what is settled, what is open, what this turn corrected."""
    settled = [describe_condition(c, schema, language) for c in state.constraints.values() if c.status == "active"]
    unsure = [describe_condition(c, schema, language) for c in state.constraints.values() if c.status != "active"]
    opened = [p.question for p in state.pending]
    this_turn = [p for p in (_change_phrase(c) for c in changes) if p]
    if language == "zh":
        parts = [f"用户想要: {state.goal or '还不清楚'}。",
                 f"已定: {'；'.join(settled) or '无'}。"]
        if unsure:
            parts.append(f"待确认: {'；'.join(unsure)}。")
        parts.append(f"未决: {'；'.join(opened) or '无'}。")
        parts.append(f"本轮: {'；'.join(this_turn) or '没有改动'}。")
    else:
        parts = [f"User wants: {state.goal or 'not clear yet'}.",
                 f"Settled: {'; '.join(settled) or 'nothing'}."]
        if unsure:
            parts.append(f"To confirm: {'; '.join(unsure)}.")
        parts.append(f"Open: {'; '.join(opened) or 'nothing'}.")
        parts.append(f"This turn: {'; '.join(this_turn) or 'no change'}.")
    if note:
        parts.append(note.strip())
    text = " ".join(p.replace("?.", "?").replace("？。", "？") for p in parts)
    return text if len(text) <= MAX_MONOLOGUE_CHARS else text[: MAX_MONOLOGUE_CHARS - 1] + "…"


def clarify_question(ops: list[Operation], schema: DomainSchema, language: str = "en") -> str:
    """Ask back instead of writing what may have been misheard (W8)."""
    heard = []
    for op in ops:
        spec = schema.key(op.key)
        value = display_value(op.value)
        if op.key == "party_size":
            heard.append(f"{value}个人" if language == "zh" else f"{value} people")
        elif spec.type in ("time", "date"):
            heard.append(value)
        else:
            heard.append(f"{spec.label(language)} {value}")
    joined = "、".join(heard) if language == "zh" else " and ".join(heard)
    return f"抱歉，我没听清，你是说{joined}吗？" if language == "zh" else f"Sorry, I didn't catch that clearly — did you say {joined}?"


def _phrase(c: Condition, schema: DomainSchema) -> str:
    """A condition as words a small model follows ("no spicy food", "for 4 people")."""
    spec = schema.key(c.key)
    value = display_value(c.value)
    if c.key == "party_size":
        return f"for {value} people"
    if spec.type == "date":
        return f"on {value.title() if value.isalpha() else value}"
    if spec.type == "time":
        return f"at {value}"
    if c.comparator == "excludes":
        return f"no {value} food" if c.key == "dietary" else f"no {value}"
    if c.comparator == "includes":
        return f"{value} options" if c.key == "dietary" else f"with {value}"
    if c.comparator == "<=":
        return f"{spec.label()} at most {value}"
    if c.comparator == ">=":
        return f"{spec.label()} at least {value}"
    if c.comparator == "!=":
        return f"not {value} ({spec.label()})"
    if spec.type == "enum":
        return f"{value} {spec.label()}"
    return f"{spec.label()}: {value}"


def render_state_for_reply(state: SessionState, schema: DomainSchema, language: str = "en") -> str:
    """The state as plain sentences for the reply prompt (English; Chinese uses the lines)."""
    if language == "zh":
        return render_state(state, schema, language)
    live = [_phrase(c, schema) for c in state.constraints.values() if c.status == "active"]
    unsure = [_phrase(c, schema) for c in state.constraints.values() if c.status != "active"]
    parts = []
    if state.goal or live:
        parts.append(f"The user wants to {state.goal or 'get help'}" + (f": {', '.join(live)}." if live else "."))
    if unsure:
        parts.append(f"Not mentioned for a while, check it still holds: {', '.join(unsure)}.")
    for pending in state.pending:
        parts.append(f"Ask the user: {pending.question}")
    return "\n".join(parts) if parts else "The user has not asked for anything specific yet."
