"""Session state (seed 000 §2.3) and the vocabulary of the operations that change it (§4.2).

The records (`SessionState`, `Condition`, `PendingQuestion`, `Change`, `Operation`, and
what the agent did: `AgentAct`, `ActionDone`, `OfferedOption`) and their words (`Op`,
`Comparator`, …) live here; `apply.py` applies operations to a state.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypedDict, TypeVar, Unpack

from monologue.memory.domain.schema import DEFAULT_DOMAIN, DomainSchema
from monologue.memory.language.spoken import spoken_date

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
    # A task of the same kind asked for while one is under way ("oh, and book us the duck place on Sunday
    # too"), kept in the user's words until that one is done (value: the words; none lets it go).
    LATER = "later"


class Comparator(StrEnum):
    """How a condition's value binds: equal, not, at most, at least, one of a set, none of it."""

    EQ = "="
    NE = "!="
    LE = "<="
    GE = ">="
    INCLUDES = "includes"
    EXCLUDES = "excludes"


def as_bound(comparator: Comparator, value: Any) -> str:
    """A value held as a bound, as an action's argument carries it: ">=17:00" (a call back after 5)."""
    return f"{comparator.value}{value}"


def bound_of(value: Any) -> tuple[Comparator, Any]:
    """The comparator and value of an action's argument (`as_bound`); a plain value is "="."""
    if isinstance(value, str) and value[:2] in (Comparator.LE.value, Comparator.GE.value):
        return Comparator(value[:2]), value[2:]
    return Comparator.EQ, value


def as_member(comparator: Comparator, value: Any, default: Comparator) -> Any:
    """A value of a set-valued key, as an action's argument carries it: plain where it binds as `default`
    (included, for an action), else with its comparator ("excludes:beef" beside "vegetarian")."""
    return value if comparator == default else f"{comparator.value}:{value}"


def member_of(value: Any, default: Comparator) -> tuple[Comparator, Any]:
    """The comparator and value of a set-valued key's argument (`as_member`)."""
    for comparator in (Comparator.INCLUDES, Comparator.EXCLUDES):
        if isinstance(value, str) and value.startswith(f"{comparator.value}:"):
            return comparator, value[len(comparator.value) + 1:]
    return default, value


class OpSource(StrEnum):
    """Where an operation came from."""

    RULES = "rules"
    LLM = "llm"
    CONFIRMED = "confirmed"              # the candidate of a question the user said yes to
    AGENT_PROPOSAL = "agent proposal"    # the agent's read-back, confirmed by a yes
    PROFILE = "profile"                  # a lasting preference seeded from the user's profile
    REFERENCE = "reference"              # "the earlier time", "the other place": resolved against the state
    RELATIVE = "relative"                # "two more people": computed from the value held and the change said
                                         # ("a bit more": the control's last command, again)
    RELAXED = "relaxed"                  # given up for this task at the agent's asking: nothing fitted
    CATALOGUE = "catalogue"              # a name the catalogue knows, kept as the session says it ("Green
                                         # Table" said in a Chinese session: 绿桌素食; 朝阳 said: 朝阳区)


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
    RELAXED = "relaxed"                  # set aside for this task because nothing fitted: the wish itself stands
    CONFIRMED = "confirmed"
    EXPIRED = "expired"
    TO_CONFIRM = "to_confirm"
    ASKED = "asked"
    QUESTION_REPLACED = "question_replaced"
    QUESTION_DROPPED = "question_dropped"
    RESOLVED = "resolved"
    LATER = "later"                      # a task asked for next, kept for when this one is done


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


class OperationDetails(TypedDict, total=False):
    """What an `Operation` may say beyond the change itself: why, and how it was said."""

    reason: str
    question: str
    correction: bool             # the user explicitly corrected an earlier value
    source: OpSource | str
    hedged: bool                 # said with "maybe"/"or": not a firm change


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
                 words: str = "", **details: Unpack[OperationDetails]) -> None:
        unknown = details.keys() - OperationDetails.__optional_keys__
        if unknown:
            raise TypeError(f"Operation got unexpected keyword arguments {sorted(unknown)}")
        values = dict(op=_word(Op, op, "operation"), key=key,
                      comparator=_word(Comparator, comparator, "comparator"), value=value, words=words,
                      reason=details.get("reason", ""), question=details.get("question", ""),
                      correction=details.get("correction", False),
                      source=_word(OpSource, details.get("source", OpSource.RULES), "source"),
                      hedged=details.get("hedged", False))
        for name, value_ in values.items():
            object.__setattr__(self, name, value_)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in ("", None, False) or k == "op"}

    @staticmethod
    def stored(data: Mapping[str, Any]) -> Operation:
        """An operation as `to_dict` wrote it (a read-back kept in the state), field for field;
        unlike `from_dict`, nothing is normalised or defaulted to the LLM as its source."""
        return Operation(**data)

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


INTERRUPTED = "interrupted"     # the act kept when the user cut the agent's first reply before its point


@dataclass(frozen=True)
class AgentAct:
    """One of the agent's recent acts, as the state keeps it for the dialogue policy's next
    decision: what it did last (`act`, the last step of its decision: ask, propose,
    confirm…) and what the decision opened with (`first`: an aside such as small talk)."""

    act: str                              # a `dialogue.policy.Act` value, or INTERRUPTED
    turn: int
    first: str                            # the first step's act
    refused: tuple[str, ...] = ()         # options the user turned down this session
    action: str = ""                      # the domain action it served ("book")
    key: str = ""                         # the slot it asked about
    option: str = ""                      # the option it offered
    args: dict[str, Any] = field(default_factory=dict)   # the action's arguments (key → value)
    kept: dict[str, str] = field(default_factory=dict)   # slot → value the user would not drop when nothing fitted

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"act": self.act, "turn": self.turn, "first": self.first, "refused": list(self.refused)}
        if self.act != INTERRUPTED:     # an interruption serves no task step: stored without one
            out |= {"action": self.action, "key": self.key, "option": self.option, "args": dict(self.args)}
        if self.kept:                   # absent when empty: states written before it read the same
            out["kept"] = dict(self.kept)
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> AgentAct:
        return AgentAct(act=str(data.get("act") or ""), turn=int(data.get("turn") or 0),
                        first=str(data.get("first") or ""),
                        refused=tuple(str(r) for r in data.get("refused") or ()),
                        action=str(data.get("action") or ""), key=str(data.get("key") or ""),
                        option=str(data.get("option") or ""), args=dict(data.get("args") or {}),
                        kept={str(k): str(v) for k, v in (data.get("kept") or {}).items()})


NO_ACT = AgentAct(act="", turn=0, first="")     # before the agent's first act: none of the policy's acts
# The key of the agent's question "which should I change?", asked of a control's verb said with no
# control named ("turn it down a notch"); its args keep what was said ("said").
WHICH_CONTROL = "which_control"


@dataclass(frozen=True)
class ActionDone:
    """An action the agent carried out (a tool ran): booked, set the route, opened a ticket."""

    action: str
    args: dict[str, Any]                  # key → value it was done with
    record: str = ""                      # the tool's record id
    completes: bool = False               # it finishes the domain's task
    said: dict[str, str] = field(default_factory=dict)   # language → what was done, in the past tense
    turn: int = -1                        # the state's turn when it was done (-1: not known)

    def to_dict(self) -> dict[str, Any]:
        # (a record stored before the turn was kept stays as it was stored)
        return {"action": self.action, "args": dict(self.args), "record": self.record,
                "completes": self.completes, "said": dict(self.said), **({"turn": self.turn} if self.turn >= 0 else {})}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> ActionDone:
        return ActionDone(action=str(data.get("action") or ""), args=dict(data.get("args") or {}),
                          record=str(data.get("record") or ""), completes=bool(data.get("completes")),
                          said={str(k): str(v) for k, v in (data.get("said") or {}).items()},
                          turn=int(data.get("turn", -1)))


@dataclass(frozen=True)
class OfferedOption:
    """One option the agent offered ("Luigi's Trattoria"), as the values taking it would set, and
    what it is (`about`: its catalogue's words for it, french, pricey), which taking it does not
    set: "something a notch cheaper" steps down from its price, "the first French place you
    said" is the first offered that is French."""

    values: dict[str, Any]                # key → value
    about: dict[str, Any] = field(default_factory=dict)   # key → the option's own value (a list for a set)

    def to_dict(self) -> dict[str, Any]:
        # (Stored as the values alone where nothing is known about it, as states were written before.)
        return {"values": dict(self.values), "about": dict(self.about)} if self.about else dict(self.values)

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> OfferedOption:
        values, about = data.get("values"), data.get("about")
        if isinstance(values, Mapping) and isinstance(about, Mapping):
            return OfferedOption(dict(values), dict(about))
        return OfferedOption(dict(data))


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
    proposal: list[Operation] = field(default_factory=list)        # the values the agent read back last
    offered: list[OfferedOption] = field(default_factory=list)     # the options it offered last (stored as "options")
    previous: dict[str, Any] = field(default_factory=dict)         # slot → the value it held before its last change
    # What the agent did (dialogue policy): its last few acts, and the actions it carried out.
    acts: list[AgentAct] = field(default_factory=list)
    done: list[ActionDone] = field(default_factory=list)
    # Tasks of the same kind asked for while this one was under way, in the user's words (`Op.LATER`).
    later: list[str] = field(default_factory=list)

    @property
    def confirmed(self) -> list[str]:
        return [slot for slot, c in self.constraints.items() if c.confirmed]

    @property
    def asked_key(self) -> str:
        """The key the agent's last act asked for ("What day?": date), or ""."""
        return self.last_act.key if self.last_act.act == "ask" else ""

    @property
    def last_act(self) -> AgentAct:
        """The agent's last act (`NO_ACT` before its first)."""
        return self.acts[-1] if self.acts else NO_ACT

    @property
    def option_in_view(self) -> OfferedOption | None:
        """The offered option last spoken of: the one the agent's last act about an option named
        ("Le Jardin is pricey"), else the last it offered; None when it offered none."""
        named = next((act.option for act in reversed(self.acts) if act.option), "")
        return next((o for o in reversed(self.offered) if named and named in map(str, o.values.values())),
                    self.offered[-1] if self.offered else None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT, "session_id": self.session_id, "domain": self.domain,
            "version": self.version, "turn": self.turn, "goal": self.goal,
            "constraints": {slot: asdict(c) for slot, c in self.constraints.items()},
            "confirmed": self.confirmed,
            "pending": [asdict(p) for p in self.pending],
            "last_turn_action": self.last_turn_action, "last_monologue": self.last_monologue,
            "updated_at": self.updated_at, "next_question_id": self.next_question_id,
            "proposal": [op.to_dict() for op in self.proposal],
            "options": [option.to_dict() for option in self.offered], "previous": self.previous,
            "acts": [act.to_dict() for act in self.acts], "done": [entry.to_dict() for entry in self.done],
            **({"later": list(self.later)} if self.later else {}),
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
        state.proposal = [Operation.stored(p) for p in data.get("proposal") or []]
        state.offered = [OfferedOption.from_dict(o) for o in data.get("options") or []]
        state.previous = dict(data.get("previous") or {})
        state.acts = [AgentAct.from_dict(a) for a in data.get("acts") or []]
        state.done = [ActionDone.from_dict(d) for d in data.get("done") or []]
        state.later = [str(t) for t in data.get("later") or []]
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
# (A Chinese state line says 包括, not "includes".)
_SYMBOLS_ZH = {Comparator.INCLUDES: "包括", Comparator.EXCLUDES: "不要"}


def describe_condition(c: Condition, schema: DomainSchema | None = None, language: str = "en") -> str:
    label = schema.key(c.key).label(language) if schema else c.key.replace("_", " ")
    symbol = (_SYMBOLS_ZH if language == "zh" else {}).get(c.comparator) or _SYMBOLS.get(c.comparator, c.comparator)
    value = display_value(c.value)
    if schema is not None and language != "en" and isinstance(c.value, str):
        # A listed value in the session's language (目的地 = 公司, not "work"; 日期 = 周六, not
        # "saturday"); English keeps its ids, which are English words already.
        spec = schema.key(c.key)
        if spec.type == "date":
            value = spoken_date(c.value, language)
        else:
            value = next(iter(spec.value_words(c.value, language)), value)
    return f"{label} {symbol} {value}"
