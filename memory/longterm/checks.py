"""Before each conversation (seed 001, L11): is the profile current, are there open
to-dos, were promises kept, has time-sensitive information expired?

The answers shape the opening line; nothing here is spoken as fact without asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from monologue.memory.language.phrases import say
from monologue.memory.longterm.records import DAY, MemoryRecord
from monologue.memory.longterm.stream import MemoryStream
from monologue.memory.stores.protocols import ProfileStore

STALE_AFTER_DAYS = 90.0


@dataclass
class PreConversationChecks:
    stale_facts: list[str] = field(default_factory=list)        # profile facts not confirmed for a long time
    open_todos: list[str] = field(default_factory=list)         # unanswered questions, proposed plans
    promises: list[dict[str, Any]] = field(default_factory=list)  # what the agent said it would do, not yet done
    expired: list[MemoryRecord] = field(default_factory=list)   # time-sensitive memories past their date

    def lines(self, language: str = "en") -> list[str]:
        out = []
        if self.promises:
            out.append(say("checks.promise", language, promise=self.promises[0]["text"]))
        if self.expired:
            out.append(say("checks.expired", language, memory=self.expired[0].text))
        if self.stale_facts:
            out.append(say("checks.stale", language, facts="; ".join(self.stale_facts[:2])))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"stale_facts": self.stale_facts, "open_todos": self.open_todos,
                "promises": [p["text"] for p in self.promises], "expired": [e.text for e in self.expired]}


def run_checks(profiles: ProfileStore, stream: MemoryStream, now: float,
               stale_after_days: float = STALE_AFTER_DAYS, profile: Any = None) -> PreConversationChecks:
    """`profile`: the one the caller already loaded (else it is read here)."""
    profile = profile if profile is not None else profiles.load(stream.user_id)
    checks = PreConversationChecks()
    for fact in profile.facts.values():
        if now - fact.updated_at > stale_after_days * DAY:
            checks.stale_facts.append(f"{fact.key} {fact.comparator} {fact.value}")
    checks.open_todos += list(profile.last_session.get("open", []))
    records, _ = stream.records()
    checks.open_todos += [r.text for r in records
                          if r.source == "plan" and r.current and r.context.get("status") == "proposed"]
    checks.open_todos += [f"unsettled: {r.text}" for r in records if r.held and not r.superseded_by]
    checks.promises = profiles.open_commitments(stream.user_id)
    checks.expired = [r for r in records if r.current and r.kind == "memory" and not r.confirmed
                      and r.outdated(now)]
    return checks
