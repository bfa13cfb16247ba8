"""The state timeline: each condition's life, from the turn that set it to the one that ended it.

Built from the states a trace already carries: every working-memory update traces the
whole state before and after it (`UpdateResult.trace()`), so comparing consecutive
states gives every change, including those made between updates (a condition the agent's
confirmed proposal added after its reply, or a lasting preference seeded from the
user's profile before the first turn). How a condition ended is read from the update
that removed it: a `withdraw` operation for its key is a withdrawal; a condition that
was waiting to be confirmed and vanished without one expired (the engine's sweep drops
conditions not mentioned for a while); a new value in the same slot replaced it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from monologue.pipeline.report.reading import SessionTrace, TurnView

Ending = Literal["replaced", "withdrawn", "expired", "removed", "holds"]


@dataclass
class Mark:
    """Something that happened to a condition while it held: confirmed, or put back in doubt."""

    turn: int
    kind: Literal["confirmed", "to_confirm", "reaffirmed"]


@dataclass
class Span:
    """One value of one slot, from the turn that set it to the turn it stopped holding."""

    slot: str
    label: str                       # "party size = 4"
    value: str                       # "= 4", "excludes spicy"
    words: str                       # the words that set it, as working memory kept them
    said: str                        # the whole user turn that set it ("" when set between turns)
    start: int                       # first turn whose state holds it (0: before the first turn)
    end: int | None = None           # first turn whose state no longer holds it; None: held to the end
    ending: Ending = "holds"
    ended_by: str = ""               # the user turn that ended it
    # Set by the user's turn; between two updates (the agent's read-back the user said yes
    # to, or a profile preference); or before this trace began (a continued session).
    origin: Literal["turn", "between", "before"] = "turn"
    marks: list[Mark] = field(default_factory=list)


@dataclass
class Lane:
    slot: str
    title: str
    spans: list[Span]


@dataclass
class Timeline:
    lanes: list[Lane]
    first_turn: int
    last_turn: int


GOAL = "goal"


def build_timeline(session: SessionTrace) -> Timeline:
    """One lane per slot (and one for the goal), in the order slots were first set."""
    lanes: dict[str, Lane] = {}
    holding: dict[str, tuple[dict[str, Any], Span]] = {}
    numbers = [t.number for t in session.turns]
    last_seen = 0                       # the turn of the last state compared

    def compare(state: dict[str, Any], at: int, turn: TurnView | None) -> None:
        """Bring `holding` to `state`; changes found happened at turn `at` (`turn` None: between turns)."""
        current = _conditions(state)
        for slot in list(holding):
            if slot not in current:
                condition, span = holding.pop(slot)
                _end(span, at, _why_gone(condition, turn), turn)
        for slot, condition in current.items():
            start = at if turn is not None else _between(condition, last_seen, at)
            if slot in holding:
                old, span = holding[slot]
                if _value_of(old) != _value_of(condition):
                    _end(span, start, "replaced", turn)
                    holding[slot] = (condition, _open(lanes, slot, condition, start, session, turn is None))
                    continue
                _note_status(span, old, condition, start)
                holding[slot] = (condition, span)
            else:
                holding[slot] = (condition, _open(lanes, slot, condition, start, session, turn is None))

    for turn in session.turns:
        if turn.update is None:
            continue
        if turn.update.state_before:
            compare(turn.update.state_before, turn.number, None)
        compare(turn.update.state_after, turn.number, turn)
        last_seen = turn.number
    ordered = sorted(lanes.values(), key=lambda lane: (lane.slot != GOAL, lane.spans[0].start))
    starts = [span.start for lane in ordered for span in lane.spans]
    first = min([*numbers, *starts], default=1)
    return Timeline(ordered, first, max([*numbers, *starts], default=first))


def _conditions(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The state's conditions by slot, with the goal as one more (so it gets a lane too)."""
    out: dict[str, dict[str, Any]] = {}
    constraints = state.get("constraints")
    if isinstance(constraints, dict):
        out.update({str(slot): c for slot, c in constraints.items() if isinstance(c, dict)})
    goal = state.get("goal")
    if isinstance(goal, str) and goal:
        out[GOAL] = {"key": GOAL, "comparator": "=", "value": goal, "words": "", "turn": None}
    return out


def _value_of(condition: dict[str, Any]) -> tuple[str, str]:
    return str(condition.get("comparator", "=")), repr(condition.get("value"))


def _between(condition: dict[str, Any], last_seen: int, at: int) -> int:
    """The turn a change found between two updates happened at: the condition's own turn,
    if it lies in that gap; else the turn just before the update that found it."""
    turn = condition.get("turn")
    if isinstance(turn, int) and not isinstance(turn, bool) and last_seen <= turn < at:
        return turn
    return max(at - 1, last_seen)


def _open(lanes: dict[str, Lane], slot: str, condition: dict[str, Any], start: int,
          session: SessionTrace, between: bool) -> Span:
    value = describe_value(condition)
    name = GOAL if slot == GOAL else slot_title(slot)
    first = session.turns[0].number if session.turns else 1
    origin: Literal["turn", "between", "before"] = "turn"
    if between:
        origin = "before" if start < first else "between"
    said = next((t.user_text for t in session.turns if t.number == start), "") if origin == "turn" else ""
    key = str(condition.get("key") or slot.split(":", 1)[0]).replace("_", " ")
    span = Span(slot=slot, label=f"{key} {value}" if slot != GOAL else str(condition.get("value")),
                value=value if slot != GOAL else str(condition.get("value")),
                words=str(condition.get("words") or ""), said=said, start=start,
                origin=origin)
    if condition.get("confirmed"):
        span.marks.append(Mark(start, "confirmed"))
    if condition.get("status") == "to_confirm":
        span.marks.append(Mark(start, "to_confirm"))
    lanes.setdefault(slot, Lane(slot, name, [])).spans.append(span)
    return span


def _note_status(span: Span, old: dict[str, Any], new: dict[str, Any], at: int) -> None:
    if new.get("confirmed") and not old.get("confirmed"):
        span.marks.append(Mark(at, "confirmed"))
    if new.get("status") == "to_confirm" and old.get("status") != "to_confirm":
        span.marks.append(Mark(at, "to_confirm"))
    elif old.get("status") == "to_confirm" and new.get("status") != "to_confirm":
        span.marks.append(Mark(at, "reaffirmed"))


def _why_gone(condition: dict[str, Any], turn: TurnView | None) -> Ending:
    if turn is None or turn.update is None:
        return "removed"
    key = condition.get("key")
    if condition.get("key") == GOAL:
        return "replaced" if turn.update.state_after.get("goal") else "withdrawn"
    for op in turn.update.operations:
        if op.get("op") == "withdraw" and op.get("key") == key:
            return "withdrawn"
    if condition.get("status") == "to_confirm":
        return "expired"
    return "removed"


def _end(span: Span, at: int, ending: Ending, turn: TurnView | None) -> None:
    span.end = max(at, span.start + 1) if ending != "replaced" else max(at, span.start)
    span.ending = ending
    # Only a replacement or a withdrawal is the user's doing; an expiry is the engine's sweep.
    span.ended_by = turn.user_text if turn is not None and ending in ("replaced", "withdrawn") else ""


def slot_title(slot: str) -> str:
    """'party_size' → 'party size'; a multi-valued slot 'dietary:spicy' → 'dietary · spicy'."""
    return slot.replace(":", " · ").replace("_", " ")


_COMPARATOR_WORDS = {"=": "=", "!=": "≠", "<=": "≤", ">=": "≥", "includes": "includes", "excludes": "excludes"}


def describe_value(condition: dict[str, Any]) -> str:
    """'= 4', '≤ 300', 'excludes spicy': the condition's comparator and value as a person reads them."""
    comparator = str(condition.get("comparator", "="))
    value = condition.get("value")
    shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return f"{_COMPARATOR_WORDS.get(comparator, comparator)} {shown.replace('_', ' ')}"
