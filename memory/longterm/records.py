"""What long-term memory keeps: memories, profile facts, audit entries, retention tiers.

Plain records, shared by the engine and the stores; no behaviour beyond what a record
can say about itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from monologue.memory.language.numbers import DAY
from monologue.memory.longterm.sensitivity import Tier, tier_of
from monologue.memory.working.state import Comparator

__all__ = ["DAY", "AuditEntry", "MemoryKind", "MemoryRecord", "MemorySource", "ProfileFact", "RetentionPolicy",
           "SOURCES", "UserProfile"]



class MemorySource(StrEnum):
    """Who a memory comes from; recall trusts them in this order."""

    USER_STATED = "user_stated"
    INFERRED = "inferred"
    REFLECTION = "reflection"
    PLAN = "plan"          # the agent's proposal: a user fact only once accepted


class MemoryKind(StrEnum):
    MEMORY = "memory"              # what the user said about themselves or their task
    REFLECTION = "reflection"
    EVENT = "event"                # a request to the agent ("turn on the heater"): what happened, not a fact


SOURCES = tuple(MemorySource)


@dataclass(frozen=True)
class RetentionPolicy:
    keep_forever_from: int = 8        # importance ≥ this: kept until deleted
    decay_from: int = 4               # importance in [decay_from, keep_forever_from): decays after decay_days
    decay_days: float = 30.0
    archive_days: float = 7.0         # importance < decay_from: archived after this

    def expires_at(self, importance: int, created_at: float) -> float | None:
        if importance >= self.keep_forever_from:
            return None
        days = self.decay_days if importance >= self.decay_from else self.archive_days
        return created_at + days * DAY


@dataclass
class MemoryRecord:
    id: str
    user_id: str
    text: str
    importance: int
    source: MemorySource
    created_at: float
    last_accessed_at: float
    expires_at: float | None
    kind: MemoryKind = MemoryKind.MEMORY
    access_count: int = 0
    context: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    session_id: str = ""
    confirmed: bool = False
    archived: bool = False
    merged: int = 1
    superseded_by: str = ""            # a later memory replaced this one (kept as history, not recalled)
    held: bool = False                 # contradicts a high-risk memory: not used until the user confirms
    notes: list[str] = field(default_factory=list)   # annotations: rejection reasons, misstatement marks
    # None (or "" in a row written before tiers existed): the rules set it from the text, so a
    # record once built always has one, and that is what the store writes.
    tier: Tier | None = None

    def __post_init__(self) -> None:
        # Records read back from JSON carry plain strings.
        self.source = MemorySource(self.source)
        self.kind = MemoryKind(self.kind)
        if not self.tier:       # a new record, or one written before tiers existed
            self.tier = tier_of(self.text)

    @property
    def current(self) -> bool:
        return not (self.superseded_by or self.held or self.archived)

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def outdated(self, now: float) -> bool:
        """A time-bound statement ("tomorrow at 3") whose time has passed."""
        return bool(self.context.get("valid_until")) and now >= self.context["valid_until"]


@dataclass
class ProfileFact:
    key: str
    comparator: Comparator
    value: Any
    words: str
    session_id: str
    updated_at: float

    def __post_init__(self) -> None:
        self.comparator = Comparator(self.comparator)   # read back from JSON as plain text


@dataclass
class UserProfile:
    user_id: str
    facts: dict[str, ProfileFact] = field(default_factory=dict)    # slot → fact
    last_session: dict[str, Any] = field(default_factory=dict)     # id, ended_at, goal, conditions
    version: int = 0


class AuditEntry(NamedTuple):
    """One change to memory, appended to the audit log and never rewritten (U6)."""

    what: str              # "memory:<id>" or a profile slot
    before: Any
    after: Any
    reason: str
    session_id: str
