"""Session state (seed 000 §2.3) and the explicit operations that change it (§4.2).

The state changes only through `apply_operations`: each operation names what it
touches, so a turn can never drop a condition it did not mention ("the pit" of
wholesale rewrites). Conflicts are resolved before writing (§3.2), conditions not
mentioned for a while fall back to "to confirm" and then leave the live state, and
every change is recorded with its reason and turn.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from monologue.memory.domain.schema import DEFAULT_DOMAIN, DomainSchema, KeySpec
from monologue.memory.language.phrases import say

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
            "proposal": self.proposal,
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


@dataclass
class Applied:
    state: SessionState
    changes: list[Change]
    clarify: str = ""                   # a question to ask instead of answering (W8)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


class _Applier:
    def __init__(self, state: SessionState, schema: DomainSchema, turn: int, asr_confidence: float | None,
                 now: float, language: str) -> None:
        self.state = state
        self.schema = schema
        self.turn = turn
        self.confidence = asr_confidence
        self.now = now
        self.language = language
        self.changes: list[Change] = []
        self.mentioned: set[str] = set()

    def record(self, action: ChangeAction, slot: str, before: Any = None, after: Any = None, reason: str = "") -> None:
        self.changes.append(Change(self.state.version + 1, self.turn, action, slot, before, after, reason, self.now))

    def ask(self, kind: QuestionKind, question: str, key: str = "", candidate: dict[str, Any] | None = None) -> None:
        # One open question per key: a newer one replaces the older.
        for old in [p for p in self.state.pending if key and p.key == key]:
            self.state.pending.remove(old)
            self.record(ChangeAction.QUESTION_REPLACED, f"pending:{old.id}", old.question, question)
        pending = PendingQuestion(self.state.next_question_id, kind, question, key, self.turn, candidate)
        self.state.next_question_id += 1
        self.state.pending.append(pending)
        self.record(ChangeAction.ASKED, f"pending:{pending.id}", None, question, kind)
        while len(self.state.pending) > MAX_PENDING:
            dropped = self.state.pending.pop(0)
            self.record(ChangeAction.QUESTION_DROPPED, f"pending:{dropped.id}", dropped.question, None,
                        "too many open questions")

    def resolve(self, pending: PendingQuestion, reason: str) -> None:
        if pending in self.state.pending:
            self.state.pending.remove(pending)
            self.record(ChangeAction.RESOLVED, f"pending:{pending.id}", pending.question, None, reason)

    def apply(self, op: Operation) -> None:
        getattr(self, f"_op_{op.op}")(op)

    # --- operations -------------------------------------------------------------------

    def _op_set_goal(self, op: Operation) -> None:
        goal = str(op.value or op.words).strip()
        if goal and goal != self.state.goal:
            self.record(ChangeAction.GOAL, "goal", self.state.goal or None, goal, op.reason or "user stated the goal")
            self.state.goal = goal

    def _op_note_action(self, op: Operation) -> None:
        self.state.last_turn_action = str(op.value or op.words)

    def _op_set(self, op: Operation) -> None:
        spec: KeySpec = self.schema.key(op.key)
        comparator = op.comparator if op.comparator != Comparator.EQ else Comparator(spec.default_op)
        slot = slot_of(op.key, op.value, spec.multi)
        new = Condition(op.key, comparator, op.value, op.words, self.turn, self.confidence,
                        last_mentioned=self.turn, multi=spec.multi)
        self.mentioned.add(slot)
        waiting = [p for p in self.state.pending
                   if p.key == op.key and p.kind in (QuestionKind.CONFLICT, QuestionKind.CLARIFY)]
        existing = self.state.constraints.get(slot)
        if existing is None:
            self.state.constraints[slot] = new
            self.record(ChangeAction.ADDED, slot, None, describe_condition(new), op.reason or "user stated it")
            for pending in waiting:
                self.resolve(pending, "answered")
            return
        same = existing.value == new.value and existing.comparator == new.comparator
        if same:
            existing.last_mentioned = self.turn
            existing.words = op.words or existing.words
            if existing.status != ConditionStatus.ACTIVE:
                existing.status = ConditionStatus.ACTIVE
                self.record(ChangeAction.REAFFIRMED, slot, ConditionStatus.TO_CONFIRM, ConditionStatus.ACTIVE,
                            "user mentioned it again")
            for pending in waiting:
                self.resolve(pending, "user restated the same value")
            return
        # A new value replaces the old one (with the reason recorded) unless the turn is
        # ambiguous: said with a hedge ("maybe six?") or overriding something the user
        # had confirmed without saying it is a correction. Then it is asked about first.
        ambiguous = not op.correction and not waiting and (op.hedged or existing.confirmed)
        if not ambiguous:
            before = describe_condition(existing)
            self.state.constraints[slot] = new
            reason = op.reason or ("user corrected it" if op.correction else
                                   "user answered the question" if waiting else "user gave a new value")
            self.record(ChangeAction.REPLACED, slot, before, describe_condition(new), reason)
            for pending in waiting:
                self.resolve(pending, "answered")
            return
        # The user may have changed their mind, or been misheard: keep the old value and ask.
        old_text, new_text = display_value(existing.value), display_value(new.value)
        label = self.schema.key(op.key).label(self.language)
        question = say("state.changed_question", self.language, old=old_text, new=new_text, label=label)
        candidate = dict(op.to_dict(), correction=True)
        self.ask(QuestionKind.CONFLICT, question, op.key, candidate)
        self.record(ChangeAction.MAYBE_CHANGED, slot, describe_condition(existing), describe_condition(new),
                    "user may have changed their mind: asked before writing")

    def _op_withdraw(self, op: Operation) -> None:
        targets = [c for c in self.state.find(op.key) if op.value in (None, "") or c.value == op.value]
        for condition in targets:
            del self.state.constraints[condition.slot]
            self.record(ChangeAction.WITHDRAWN, condition.slot, describe_condition(condition), None,
                        op.reason or "user withdrew it")
        for pending in [p for p in self.state.pending if p.key == op.key]:
            self.resolve(pending, "condition withdrawn")

    def _op_confirm(self, op: Operation) -> None:
        pending = self._pending_for(op.key)
        if pending is not None and pending.candidate is not None:
            self.resolve(pending, "user said yes")
            self.apply(Operation.from_dict(pending.candidate, source=OpSource.CONFIRMED))
            candidate_key = pending.candidate.get("key", "")
            for condition in self.state.find(candidate_key):
                condition.confirmed = True
            return
        if pending is not None:
            self.resolve(pending, "user confirmed")
        elif self.state.proposal and not op.key:
            # "Yes" to the agent's read-back ("a table for 2 at 11:30 today?") takes its values.
            proposal, self.state.proposal = self.state.proposal, []
            for item in proposal:
                self.apply(Operation.from_dict(dict(item, correction=True), source=OpSource.AGENT_PROPOSAL))
        targets = self.state.find(op.key) if op.key else list(self.state.constraints.values())
        for condition in targets:
            condition.last_mentioned = self.turn
            self.mentioned.add(condition.slot)
            if condition.status != ConditionStatus.ACTIVE:
                condition.status = ConditionStatus.ACTIVE
            if not condition.confirmed:
                condition.confirmed = True
                self.record(ChangeAction.CONFIRMED, condition.slot, None, describe_condition(condition),
                            "user confirmed")

    def _op_propose(self, op: Operation) -> None:
        self.state.proposal = list(op.value or [])

    def _op_reject(self, op: Operation) -> None:
        self.state.proposal = []
        pending = self._pending_for(op.key)
        if pending is not None:
            self.resolve(pending, "user said no")

    def _op_ask(self, op: Operation) -> None:
        # An ask may carry the operation to apply if the user says yes (a clarification).
        candidate = op.value if isinstance(op.value, dict) else None
        if op.question:
            self.ask(QuestionKind.CLARIFY if candidate else QuestionKind.OPEN, op.question, op.key, candidate)

    def _op_resolve(self, op: Operation) -> None:
        for pending in [p for p in self.state.pending if not op.key or p.key == op.key]:
            self.resolve(pending, op.reason or "resolved")

    def _pending_for(self, key: str) -> PendingQuestion | None:
        candidates = [p for p in self.state.pending if not key or p.key == key]
        return candidates[-1] if candidates else None

    # --- every update compares all fields -------------------------------------------------

    def sweep(self, expire_after: int) -> None:
        if expire_after <= 0:
            return
        for slot, condition in list(self.state.constraints.items()):
            if slot in self.mentioned or condition.confirmed:
                continue  # confirmed conditions stay until the user changes them
            idle = self.turn - condition.last_mentioned
            if idle >= 2 * expire_after:
                del self.state.constraints[slot]
                self.record(ChangeAction.EXPIRED, slot, describe_condition(condition), None,
                            f"not mentioned for {idle} turns")
            elif idle >= expire_after and condition.status == ConditionStatus.ACTIVE:
                condition.status = ConditionStatus.TO_CONFIRM
                self.record(ChangeAction.TO_CONFIRM, slot, ConditionStatus.ACTIVE, ConditionStatus.TO_CONFIRM,
                            f"not mentioned for {idle} turns")


def apply_operations(state: SessionState, ops: list[Operation], schema: DomainSchema, *, turn: int,
                     asr_confidence: float | None = None, expire_after: int = 8, now: float | None = None,
                     language: str = "en") -> Applied:
    """Apply `ops` to a copy of `state`; the original is never modified.

    An `Operation` is validated when it is built, so a malformed one never gets here.
    """
    applier = _Applier(state.copy(), schema, turn, asr_confidence, time.time() if now is None else now, language)
    for op in ops:
        applier.apply(op)
    applier.sweep(expire_after)
    new = applier.state
    new.turn = turn
    if applier.changes or new.goal != state.goal or new.last_turn_action != state.last_turn_action:
        new.version = state.version + 1
        new.updated_at = applier.now
    for change in applier.changes:
        change.version = new.version
    return Applied(new, applier.changes)
