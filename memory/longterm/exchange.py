"""What long-term memory and a session hand each other: plain data, no behaviour.

Long-term memory never calls working memory. It reads a `SessionSnapshot` the caller
took, and returns what the session should change (`AfterReply.restore_text`,
`Opening.seed`); the reply processor and the session start apply it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.longterm.conflicts import Conflict
from monologue.memory.longterm.sensitivity import Tier
from monologue.memory.longterm.timetravel import TimeTravelMatch
from monologue.memory.working.state import Change, Operation, SessionState


@dataclass
class Awaiting:
    """A question the agent asked that the user's next turn answers."""
    kind: Literal["conflict", "plan", "forget", "erase"]
    memory_id: str = ""       # the plan, or the held new statement (written after the reply)
    conflict: Conflict | None = None
    memory_ids: tuple[str, ...] = ()    # "forget": the memories shown to the user, to forget on a yes


@dataclass(frozen=True)
class Recalled:
    """A recalled memory with its source: when it was said, in which session, and whether
    the user said it or it was inferred."""
    text: str
    at: float
    session_id: str = ""
    source: str = "user_stated"
    tier: Tier | None = None       # None: not known, shown as "private" (U3)
    scope: str = "personal"        # personal | household (U5)

    def shown(self) -> dict[str, str]:
        """How the page and the trace show it."""
        return {"text": self.text, "tier": self.tier or "private", "scope": self.scope}


@dataclass
class BeforeReply:
    """What long-term memory gives one reply; `say` replaces the LLM's answer.

    `about_user`: this turn asks about the user or the past ("what temperature do I
    like?"); `answer`: then, what memory says to it, in the second person with its source
    ("You told me on Wednesday that you like the seat further back.") — an exact answer
    from the records first — or None when memory holds nothing relevant. `sources`: the
    recalled memories (`recalled`'s texts) with when and in which session they were said."""
    recalled: list[str] = field(default_factory=list)
    sources: list[Recalled] = field(default_factory=list)
    about_user: bool = False
    answer: str | None = None
    reflections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    say: str | None = None
    exact: str | None = None
    conflict: Conflict | None = None
    travel: TimeTravelMatch | None = None
    answered: tuple[Awaiting, bool] | None = None
    used: list[str] = field(default_factory=list)     # memory ids recalled: their access counts are written later
    ms: float = 0.0
    timed_out: bool = False
    failures: dict[str, int] = field(default_factory=dict)   # long-term memory's failures so far, by kind
    command: dict[str, str] | None = None     # a memory command this turn gave ("forget my address")
    listed: list[str] = field(default_factory=list)   # "what do you remember about me?": everything, in full
    listed_items: list[Recalled] = field(default_factory=list)   # the same, with tier and scope
    # The user's local-only memories (U3): kept out of any prompt for a remote provider.
    local_only: list[str] = field(default_factory=list)

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"recalled": self.recalled, "ms": round(self.ms, 1), "timed_out": self.timed_out}
        if self.reflections:
            out["reflections"] = self.reflections
        if self.exact:
            out["exact"] = self.exact
        if self.about_user:
            out["about_user"] = True
        if self.answer:
            out["answer"] = self.answer
        if self.conflict:
            out["conflict"] = {"with": self.conflict.old.text, "kind": self.conflict.kind, "risk": self.conflict.risk}
        if self.travel:
            out["time_travel"] = {"before": self.travel.item.text, "after": self.travel.new_text,
                                  "session": self.travel.item.session_id}
        if self.answered:
            out["answered"] = {"question": self.answered[0].kind, "yes": self.answered[1]}
        if self.command:
            out["command"] = self.command
        if self.listed:
            out["listed"] = self.listed
        if self.listed_items:
            out["listed_items"] = [r.shown() for r in self.listed_items]
        if self.sources:
            out["sources"] = [r.shown() for r in self.sources]
        if self.say:
            out["said"] = self.say
        if self.failures:
            out["failures"] = self.failures
        return out


@dataclass(frozen=True)
class Prepared:
    """The core's answer for one reply: what the reply gets, and the question left open
    afterwards. Nothing is changed until the caller keeps it (a recall abandoned at its
    budget is dropped whole)."""
    before: BeforeReply
    awaiting: Awaiting | None
    no_history: bool = False    # the user asked that this session be forgotten from here on
    introduced: str = ""        # a household member said who they are (nobody was known to be speaking)


@dataclass(frozen=True)
class AfterReply:
    """What one turn's writes ask of the session.

    `restore_text`: the user kept an earlier statement ("No, I still am"): say it to
    working memory again, so this session's state holds it too."""
    written: list[str] = field(default_factory=list)
    restore_text: str | None = None


@dataclass(frozen=True)
class Opening:
    """How a session starts: the opening line, and the profile's preferences to seed the
    new session's state with (each "to confirm")."""
    line: str
    seed: list[Operation] = field(default_factory=list)
    seed_note: str = ""


@dataclass(frozen=True)
class SessionSnapshot:
    """The session as long-term memory reads it, taken by the caller (a store read)."""
    state: SessionState
    schema: DomainSchema
    withdrawn: frozenset[str] = frozenset()     # keys the user withdrew during the session
    language: str = "en"

    @staticmethod
    def withdrawn_keys(history: Iterable[Change]) -> frozenset[str]:
        return frozenset(c.slot.split(":")[0] for c in history if c.action == "withdrawn")
