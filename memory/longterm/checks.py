"""Before each conversation (seed 001, L11): is the profile current, are there open
to-dos, were promises kept, has time-sensitive information expired?

The answers shape the opening line; nothing here is spoken as fact without asking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.person import second_person, when_said
from monologue.memory.language.phrases import say
from monologue.memory.longterm.records import DAY, MemoryRecord, ProfileFact
from monologue.memory.longterm.speech import capitalized, spoken_list
from monologue.memory.longterm.stream import MemoryStream
from monologue.memory.stores.protocols import ProfileStore
from monologue.memory.working.render import spoken_condition
from monologue.memory.working.state import Condition

STALE_AFTER_DAYS = 90.0


def _promised(text: str) -> str:
    """The agent's own promise, reported: "I'll remind you about the dentist" → "I'd remind you about the dentist"."""
    return re.sub(r"^I(?:'ll| will)\b", "I'd", text.strip().rstrip(".!"), flags=re.IGNORECASE)


@dataclass
class PreConversationChecks:
    stale_facts: list[str] = field(default_factory=list)        # profile facts not confirmed for a long time
    open_todos: list[str] = field(default_factory=list)         # unanswered questions, proposed plans
    promises: list[dict[str, Any]] = field(default_factory=list)  # what the agent said it would do, not yet done
    expired: list[MemoryRecord] = field(default_factory=list)   # time-sensitive memories past their date
    stale: list[ProfileFact] = field(default_factory=list)      # the stale facts themselves, to be spoken
    now: float = 0.0

    def lines(self, language: str = "en", schema: DomainSchema | None = None, stale: bool = True) -> list[str]:
        """The findings as sentences to say before the conversation. `stale`: False where the
        opening line already asks about every preference."""
        out = []
        if self.promises:
            promise = self.promises[0]["text"]
            out.append(say("checks.promise", language, promise=_promised(promise))
                       if language_of(promise) == language else say("checks.promise.unquoted", language))
        if self.expired:
            memory = self.expired[0]
            moment = when_said(memory.created_at, self.now or memory.created_at, language)
            out.append(capitalized(say("checks.expired", language, when=moment,
                                       memory=second_person(memory.text, language)))
                       if language_of(memory.text) == language
                       else say("checks.expired.unquoted", language, when=moment))
        if self.stale and schema is not None and stale:
            facts = [spoken_condition(Condition(f.key, f.comparator, f.value, f.words, 0), schema, language)
                     for f in self.stale[:2]]
            out.append(say("checks.stale", language, facts=spoken_list(facts, language)))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"stale_facts": self.stale_facts, "open_todos": self.open_todos,
                "promises": [p["text"] for p in self.promises], "expired": [e.text for e in self.expired]}


def run_checks(profiles: ProfileStore, stream: MemoryStream, now: float,
               stale_after_days: float = STALE_AFTER_DAYS, profile: Any = None) -> PreConversationChecks:
    """`profile`: the one the caller already loaded (else it is read here)."""
    profile = profile if profile is not None else profiles.load(stream.user_id)
    checks = PreConversationChecks(now=now)
    for fact in profile.facts.values():
        if now - fact.updated_at > stale_after_days * DAY:
            checks.stale_facts.append(f"{fact.key} {fact.comparator} {fact.value}")
            checks.stale.append(fact)
    checks.open_todos += list(profile.last_session.get("open", []))
    records, _ = stream.records()
    checks.open_todos += [r.text for r in records
                          if r.source == "plan" and r.current and r.context.get("status") == "proposed"]
    checks.open_todos += [f"unsettled: {r.text}" for r in records if r.held and not r.superseded_by]
    checks.promises = profiles.open_commitments(stream.user_id)
    checks.expired = [r for r in records if r.current and r.kind == "memory" and not r.confirmed
                      and r.outdated(now)]
    return checks
