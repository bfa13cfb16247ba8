"""Session state (seed 000 §2.3) and the vocabulary of the operations that change it (§4.2).

The records (`SessionState`, `Condition`, `PendingQuestion`, `Change`, `Operation`) and
their words (`Op`, `Comparator`, …) live here; `apply.py` applies operations to a state.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from monologue.memory.domain.schema import DEFAULT_DOMAIN, DomainSchema

STATE_FORMAT = 1
MAX_PENDING = 5


class Op(StrEnum):
    """What an operation does to the state."""

    SET = "set"
    WITHDRAW = "withdraw"
    CONFIRM = "confirm"
    REJECT = "reject"
    ASK = "ask"
    RESOLVE = "resolve"
    SET_GOAL = "set_goal"
    NOTE_ACTION = "note_action"
    PROPOSE = "propose"
    OFFER = "offer"              # the options the agent offered (for "the other one")


class Comparator(StrEnum):
    """How a condition's value binds: equal, not, at most, at least, one of a set, none of it."""

    EQ = "="
    NE = "!="
    LE = "<="
    GE = ">="
    INCLUDES = "includes"
    EXCLUDES = "excludes"


class OpSource(StrEnum):
    """Where an operation came from."""

    RULES = "rules"
    LLM = "llm"
    CONFIRMED = "confirmed"              # the candidate of a question the user said yes to
    AGENT_PROPOSAL = "agent proposal"    # the agent's read-back, confirmed by a yes
    PROFILE = "profile"                  # a lasting preference seeded from the user's profile
    REFERENCE = "reference"              # "the earlier time", "the other place": resolved against the state
    RELATIVE = "relative"                # "two more people": computed from the value held and the change said


class ConditionStatus(StrEnum):
    ACTIVE = "active"
    TO_CONFIRM = "to_confirm"            # not mentioned for a while: check it still holds


class QuestionKind(StrEnum):
    CLARIFY = "clarify"                  # misheard: asked before writing
    CONFLICT = "conflict"                # a new value may replace an old one: asked first
    OPEN = "open"


class ChangeAction(StrEnum):
    """What happened to a slot, as the change history records it."""

    GOAL = "goal"
    ADDED = "added"
    REPLACED = "replaced"
    REAFFIRMED = "reaffirmed"
    MAYBE_CHANGED = "maybe_changed"
    WITHDRAWN = "withdrawn"
    CONFIRMED = "confirmed"
    EXPIRED = "expired"
    TO_CONFIRM = "to_confirm"
    ASKED = "asked"
    QUESTION_REPLACED = "question_replaced"
    QUESTION_DROPPED = "question_dropped"
    RESOLVED = "resolved"


OPERATIONS: tuple[Op, ...] = tuple(Op)
COMPARATORS: tuple[Comparator, ...] = tuple(Comparator)
OPPOSITE = {Comparator.INCLUDES: Comparator.EXCLUDES, Comparator.EXCLUDES: Comparator.INCLUDES,
            Comparator.EQ: Comparator.NE, Comparator.NE: Comparator.EQ}


class InvalidOperation(ValueError):
    """An operation is malformed; the whole batch is refused and the state kept."""


_V = TypeVar("_V", bound=StrEnum)


def _word(vocabulary: type[_V], raw: str, what: str) -> _V:
    """`raw` as a member of `vocabulary`; an unknown word refuses the operation."""
    try:
        return vocabulary(raw)
    except ValueError:
        raise InvalidOperation(f"unknown {what} {raw!r}; known: {', '.join(vocabulary)}") from None


@dataclass(frozen=True, init=False)
class Operation:
    """One explicit change to the state. Built from rules, an LLM's JSON or a caller's
    plain strings alike: each word is checked against its vocabulary on the way in, so a
    malformed operation is refused before anything is applied."""

    op: Op
    key: str = ""
    comparator: Comparator = Comparator.EQ
    value: Any = None
    words: str = ""
    reason: str = ""
    question: str = ""
    correction: bool = False     # the user explicitly corrected an earlier value
    source: OpSource = OpSource.RULES
    hedged: bool = False         # said with "maybe"/"or": not a firm change

    def __init__(self, op: Op | str, key: str = "", comparator: Comparator | str = Comparator.EQ, value: Any = None,
                 words: str = "", reason: str = "", question: str = "", correction: bool = False,
                 source: OpSource | str = OpSource.RULES, hedged: bool = False) -> None:
        values = dict(op=_word(Op, op, "operation"), key=key,
                      comparator=_word(Comparator, comparator, "comparator"), value=value, words=words,
                      reason=reason, question=question, correction=correction,
                      source=_word(OpSource, source, "source"), hedged=hedged)
        for name, value_ in values.items():
            object.__setattr__(self, name, value_)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in ("", None, False) or k == "op"}

    @staticmethod
    def from_dict(data: dict[str, Any], source: OpSource = OpSource.LLM) -> Operation:
        if not isinstance(data, dict):
            raise InvalidOperation(f"an operation must be an object, got {data!r}")
        op = str(data.get("op", ""))
        comparator = str(data.get("comparator") or data.get("operator") or "=")
        key = str(data.get("key") or "").strip().lower().replace(" ", "_")
        if op in (Op.SET, Op.WITHDRAW) and not key:
            raise InvalidOperation(f"operation {op} needs a key")
        if op == Op.SET and data.get("value") in (None, ""):
            raise InvalidOperation(f"set {key} needs a value")
        return Operation(op=op, key=key, comparator=comparator, value=data.get("value"),
                         words=str(data.get("words") or ""), reason=str(data.get("reason") or ""),
                         question=str(data.get("question") or ""),
                         correction=bool(data.get("correction", False)), source=source)


@dataclass
class Condition:
    key: str
    comparator: Comparator
    value: Any
    words: str
    turn: int
    asr_confidence: float | None = None
    status: ConditionStatus = ConditionStatus.ACTIVE
    confirmed: bool = False
    last_mentioned: int = 0
    multi: bool = False

    def __post_init__(self) -> None:
        self.comparator = Comparator(self.comparator)
        self.status = ConditionStatus(self.status)

    @property
    def slot(self) -> str:
        return slot_of(self.key, self.value, self.multi)


@dataclass
class PendingQuestion:
    id: int
    kind: QuestionKind
    question: str
    key: str = ""
    turn: int = 0
    candidate: dict[str, Any] | None = None   # the operation to apply if the user says yes

    def __post_init__(self) -> None:
        self.kind = QuestionKind(self.kind)


@dataclass
class Change:
    """One entry of the change history (kept beside the state, not inside it)."""

    version: int
    turn: int
    action: ChangeAction
    slot: str
    before: Any = None
    after: Any = None
    reason: str = ""
    at: float = 0.0

    def __post_init__(self) -> None:
        self.action = ChangeAction(self.action)


@dataclass
class SessionState:
    session_id: str
    domain: str = DEFAULT_DOMAIN
    version: int = 0
    turn: int = 0
    goal: str = ""
    constraints: dict[str, Condition] = field(default_factory=dict)
    pending: list[PendingQuestion] = field(default_factory=list)
    last_turn_action: str = ""
    last_monologue: str = ""
    updated_at: float = 0.0
    next_question_id: int = 1
    proposal: list[dict[str, Any]] = field(default_factory=list)   # values the agent read back last
    options: list[dict[str, Any]] = field(default_factory=list)    # the options the agent offered last (key → value)
    previous: dict[str, Any] = field(default_factory=dict)         # slot → the value it held before its last change
    # What the agent did (dialogue policy): its last few acts (ask, propose, confirm, act…,
    # each a mapping with "act" and its arguments), and the actions it carried out, each
    # {"action", "args" (key → value), "record" (the tool's record id), "turn", "completes",
    # "said" (language → what was done, in the past tense: "booked Luigi's Trattoria for 4 people")}.
    acts: list[dict[str, Any]] = field(default_factory=list)
    done: list[dict[str, Any]] = field(default_factory=list)

    @property
    def confirmed(self) -> list[str]:
        return [slot for slot, c in self.constraints.items() if c.confirmed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT, "session_id": self.session_id, "domain": self.domain,
            "version": self.version, "turn": self.turn, "goal": self.goal,
            "constraints": {slot: asdict(c) for slot, c in self.constraints.items()},
            "confirmed": self.confirmed,
            "pending": [asdict(p) for p in self.pending],
            "last_turn_action": self.last_turn_action, "last_monologue": self.last_monologue,
            "updated_at": self.updated_at, "next_question_id": self.next_question_id,
            "proposal": self.proposal, "options": self.options, "previous": self.previous,
            "acts": self.acts, "done": self.done,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> SessionState:
        state = SessionState(session_id=str(data["session_id"]))
        state.domain = str(data.get("domain", DEFAULT_DOMAIN))
        state.version = int(data.get("version", 0))
        state.turn = int(data.get("turn", 0))
        state.goal = str(data.get("goal", ""))
        state.constraints = {slot: Condition(**c) for slot, c in (data.get("constraints") or {}).items()}
        state.pending = [PendingQuestion(**p) for p in data.get("pending") or []]
        state.last_turn_action = str(data.get("last_turn_action", ""))
        state.last_monologue = str(data.get("last_monologue", ""))
        state.updated_at = float(data.get("updated_at", 0.0))
        state.next_question_id = int(data.get("next_question_id", 1))
        state.proposal = list(data.get("proposal") or [])
        state.options = [dict(o) for o in data.get("options") or []]
        state.previous = dict(data.get("previous") or {})
        state.acts = [dict(a) for a in data.get("acts") or []]
        state.done = [dict(d) for d in data.get("done") or []]
        return state

    def copy(self) -> SessionState:
        return copy.deepcopy(self)

    def find(self, key: str) -> list[Condition]:
        return [c for c in self.constraints.values() if c.key == key]


def slot_of(key: str, value: Any, multi: bool) -> str:
    return f"{key}:{value}" if multi else key


def _view(c: Condition) -> str:
    """A condition with its status and confirmation, as the diff shows it."""
    status = "" if c.status == ConditionStatus.ACTIVE else f" ({c.status})"
    return describe_condition(c) + status + (" ✓" if c.confirmed else "")


def state_diff(before: SessionState, after: SessionState) -> dict[str, Any]:
    """Field-by-field difference, for the trace (what this turn changed)."""
    diff: dict[str, Any] = {}
    if before.domain != after.domain:
        diff["domain"] = [before.domain, after.domain]
    if before.goal != after.goal:
        diff["goal"] = [before.goal, after.goal]
    for slot in sorted(set(before.constraints) | set(after.constraints)):
        old, new = before.constraints.get(slot), after.constraints.get(slot)
        old_view = None if old is None else _view(old)
        new_view = None if new is None else _view(new)
        if old_view != new_view:
            diff[slot] = [old_view, new_view]
    old_q = {p.id: p.question for p in before.pending}
    new_q = {p.id: p.question for p in after.pending}
    if old_q != new_q:
        diff["pending"] = {"added": [q for i, q in new_q.items() if i not in old_q],
                           "resolved": [q for i, q in old_q.items() if i not in new_q]}
    return diff


def display_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("_", " ")


_SYMBOLS = {Comparator.EQ: "=", Comparator.NE: "≠", Comparator.LE: "≤", Comparator.GE: "≥"}


def describe_condition(c: Condition, schema: DomainSchema | None = None, language: str = "en") -> str:
    label = schema.key(c.key).label(language) if schema else c.key.replace("_", " ")
    symbol = _SYMBOLS.get(c.comparator, c.comparator)
    return f"{label} {symbol} {display_value(c.value)}"
