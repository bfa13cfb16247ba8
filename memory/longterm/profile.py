"""The user profile (seed 001, L8): lasting preferences carried from one session to the next.

At the end of a session, the working state's durable conditions (the schema marks them:
dietary, seating, route preference, …) update the profile; at the start of the next, the
profile seeds the new working state with them as "to confirm", so they are honoured
(options are filtered by them) and checked rather than silently assumed. Every change
to a profile appends an audit record that is never rewritten (U6).
"""


from __future__ import annotations

import time
from collections.abc import Set

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.phrases import join, say
from monologue.memory.longterm.records import AuditEntry, ProfileFact, UserProfile
from monologue.memory.working.state import Condition, Operation, SessionState, describe_condition

SESSION_STATUSES = ("NOT_STARTED", "IN_PROGRESS", "WAITING_FOR_USER", "COMPLETED", "ARCHIVED")
ARCHIVE_AFTER_DAYS = 30.0


def session_status(state: SessionState | None, ended_at: float | None = None, now: float | None = None) -> str:
    """Where a task stands across sessions (seed 001): nothing said yet; being worked on;
    waiting for the user's answer; done (everything confirmed); or old enough to archive."""
    if state is None or not state.version:
        return "NOT_STARTED"
    now = time.time() if now is None else now
    if ended_at is not None and now - ended_at > ARCHIVE_AFTER_DAYS * 86400:
        return "ARCHIVED"
    if state.pending:
        return "WAITING_FOR_USER"
    live = list(state.constraints.values())
    if live and all(c.confirmed for c in live):
        return "COMPLETED"
    return "IN_PROGRESS"




def _fact_view(fact: ProfileFact | Condition) -> str:
    return f"{fact.key} {fact.comparator} {fact.value}"


def update_profile(profile: UserProfile, state: SessionState, schema: DomainSchema,
                   withdrawn_keys: Set[str], now: float | None = None) -> list[AuditEntry]:
    """Fold a finished session into the profile; returns the audit entries it implies."""
    now = time.time() if now is None else now
    audit: list[AuditEntry] = []
    live = {slot: c for slot, c in state.constraints.items() if schema.key(c.key).durable and c.status == "active"}
    for slot, condition in live.items():
        old = profile.facts.get(slot)
        if old is not None and old.value == condition.value and old.comparator == condition.comparator:
            old.updated_at, old.session_id = now, state.session_id
            continue
        profile.facts[slot] = ProfileFact(condition.key, condition.comparator, condition.value, condition.words,
                                          state.session_id, now)
        audit.append(AuditEntry(slot, None if old is None else _fact_view(old), _fact_view(condition),
                                "preference updated" if old else "new preference", state.session_id))
    for slot in [s for s, f in profile.facts.items() if f.key in withdrawn_keys and s not in live]:
        old = profile.facts.pop(slot)
        audit.append(AuditEntry(slot, _fact_view(old), None, "the user withdrew it", state.session_id))
    profile.last_session = {
        "id": state.session_id, "ended_at": now, "goal": state.goal, "status": session_status(state, now, now),
        "conditions": [describe_condition(c, schema) for c in state.constraints.values()],
        "open": [p.question for p in state.pending],
    }
    profile.version += 1
    return audit


def seed_operations(profile: UserProfile) -> list[Operation]:
    """Operations that bring the profile's preferences into a new session's state."""
    return [Operation("set", f.key, f.comparator, f.value, f.words, reason="from the user's profile",
                      source="profile") for f in profile.facts.values()]


def opening_line(profile: UserProfile, schema: DomainSchema, language: str = "en", now: float | None = None) -> str:
    """Recall the last session and offer the next step (L10); a first session asks about
    key preferences instead (cold start, L16)."""
    last = profile.last_session
    prefs = [describe_condition(Condition(f.key, f.comparator, f.value, f.words, 0), schema, language)
             for f in profile.facts.values()]
    if not last:
        keys = [spec.label(language) for spec in schema.keys.values() if spec.durable][:2]
        if not keys:
            return say("opening.hello", language)
        return say("opening.first", language, keys=join(keys, language, "opening.first.or"))
    status = last.get("status", "IN_PROGRESS")
    now = time.time() if now is None else now
    if status == "ARCHIVED" or (last.get("ended_at") and now - last["ended_at"] > ARCHIVE_AFTER_DAYS * 86400):
        last = {"goal": "", "conditions": []}   # too old to pick up: greet, keep the preferences
    conditions = last.get("conditions")
    return say("opening.back", language,
               where=last.get("goal") or say("opening.last_conversation", language),
               conditions=say("opening.conditions", language, conditions=join(conditions[:3], language, "list.sep"))
               if conditions else "",
               status=say("opening.completed", language) if status == "COMPLETED" else "",
               still_open=say("opening.still_open", language, question=last["open"][0]) if last.get("open") else "",
               follow_up=say("opening.preferences", language, preferences=join(prefs, language, "list.sep"))
               if prefs else say("opening.pick_up", language))
