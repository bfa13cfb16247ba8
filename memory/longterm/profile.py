"""The user profile (seed 001, L8): lasting preferences carried from one session to the next.

At the end of a session, the working state's durable conditions (the schema marks them:
dietary, seating, route preference, …) update the profile; at the start of the next, the
profile seeds the new working state with them as "to confirm", so they are honoured
(options are filtered by them) and checked rather than silently assumed. Every change
to a profile appends an audit record that is never rewritten (U6).
"""


from __future__ import annotations

import time
from collections.abc import Iterable, Set
from typing import Any

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import THIS_TIME_ONLY
from monologue.memory.language.phrases import join, say
from monologue.memory.longterm.records import AuditEntry, ProfileFact, UserProfile
from monologue.memory.longterm.speech import (
    changed_since,
    conditions_of,
    done_words,
    joined_sentences,
    said_conditions,
    spoken,
    spoken_list,
    task_words,
    unsettled_labels,
)
from monologue.memory.working.render import spoken_condition
from monologue.memory.working.state import Condition, Operation, SessionState, describe_condition

SESSION_STATUSES = ("NOT_STARTED", "IN_PROGRESS", "WAITING_FOR_USER", "COMPLETED", "ARCHIVED")
ARCHIVE_AFTER_DAYS = 30.0


def session_status(state: SessionState | None, ended_at: float | None = None, now: float | None = None) -> str:
    """Where a task stands across sessions (seed 001): nothing said yet; being worked on;
    waiting for the user's answer; done; or old enough to archive.

    Done means the agent carried out an action that completes the task (`state.done`)
    and nothing it was done with has changed since; confirming details is not doing."""
    if state is None or not state.version:
        return "NOT_STARTED"
    now = time.time() if now is None else now
    if ended_at is not None and now - ended_at > ARCHIVE_AFTER_DAYS * 86400:
        return "ARCHIVED"
    if state.pending:
        return "WAITING_FOR_USER"
    live = list(state.constraints.values())
    if any(entry.completes and not changed_since(entry.args, live) for entry in state.done):
        return "COMPLETED"
    return "IN_PROGRESS"


def unsettled_keys(state: SessionState) -> list[str]:
    """What the session asked about and never settled: open questions about a key, and a
    last act that asked for one still missing."""
    keys = [p.key for p in state.pending if p.key]
    asked = state.last_act
    if asked.act == "ask" and asked.key:
        keys.append(asked.key)
    have = {c.key for c in state.constraints.values()}
    return [k for k in dict.fromkeys(keys) if k not in have or k in {p.key for p in state.pending}]


def _fact_view(fact: ProfileFact | Condition) -> str:
    return f"{fact.key} {fact.comparator} {fact.value}"


def drawn_from(words: str, session_id: str, said: Iterable[tuple[str, str]]) -> bool:
    """Whether a value's words come from one of these memories (text, session)."""
    words = words.strip().casefold()
    return bool(words) and any(session_id == sid and words in text.casefold() for text, sid in said)


def forget_drawn_from(profile: UserProfile, said: list[tuple[str, str]], session_id: str) -> list[AuditEntry]:
    """Take out of the profile the values drawn from memories the user has just forgotten
    (`said`: each memory's text and the session it was said in): a value whose words the
    memory holds, from the same session ("forget what I told you about my back" also forgets
    the seat setting that sentence gave). Returns the audit entries to append."""
    audit = []
    for slot, fact in list(profile.facts.items()):
        if drawn_from(fact.words, fact.session_id, said):
            profile.facts.pop(slot)
            audit.append(AuditEntry(slot, _fact_view(fact), None, "forgotten with the memory it was drawn from",
                                    session_id))
    return audit


def lasting_conditions(state: SessionState, schema: DomainSchema,
                       forgotten: Iterable[tuple[str, str]] = ()) -> dict[str, Condition]:
    """The session's lasting preferences (slot → condition) a profile learns: of a durable key, active,
    not drawn from words the user asked to forget, and not said for this time only ("no highways today",
    今天别走高速: the trip is served so, the next one is not)."""
    forgotten = list(forgotten)
    return {slot: c for slot, c in state.constraints.items() if schema.key(c.key).durable and c.status == "active"
            and not drawn_from(c.words, state.session_id, forgotten) and not THIS_TIME_ONLY.search(c.words)}


def update_profile(profile: UserProfile, state: SessionState, schema: DomainSchema,
                   withdrawn_keys: Set[str], now: float | None = None,
                   forgotten: Iterable[tuple[str, str]] = ()) -> list[AuditEntry]:
    """Fold a finished session into the profile; returns the audit entries it implies."""
    now = time.time() if now is None else now
    audit: list[AuditEntry] = []
    forgotten = list(forgotten)
    # A value whose words the user has since asked to forget is not folded in again.
    live = lasting_conditions(state, schema, forgotten)
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
        "domain": state.domain, "said": said_conditions(state), "done": [d.to_dict() for d in state.done],
        "unsettled": unsettled_keys(state),
    }
    profile.version += 1
    return audit


def seed_operations(profile: UserProfile) -> list[Operation]:
    """Operations that bring the profile's preferences into a new session's state."""
    return [Operation("set", f.key, f.comparator, f.value, f.words, reason="from the user's profile",
                      source="profile") for f in profile.facts.values()]


def _last_time(last: dict[str, Any], schema: DomainSchema, language: str) -> tuple[str, set[str]]:
    """The sentence about the last session, and the keys it already spoke."""
    conditions = conditions_of(last)
    status = last.get("status", "IN_PROGRESS")
    done = [d for d in last.get("done") or [] if done_words(d, language)]
    if done:
        entry = next((d for d in reversed(done) if d.get("completes")), done[-1])
        changes = changed_since(entry.get("args") or {}, conditions)
        spoken_keys = set((entry.get("args") or {}).keys())
        if changes and status != "COMPLETED":
            return say("opening.done_then_changed", language, done=done_words(entry, language),
                       changes=spoken(changes, schema, language)), spoken_keys
        return say("opening.done", language, done=done_words(entry, language)), spoken_keys
    if not conditions and not last.get("goal") and not last.get("conditions") and not last.get("unsettled"):
        return "", set()        # a session where nothing was asked for
    labels = unsettled_labels(last, schema, language)
    standing = (say("opening.unsettled", language, labels=labels) if labels
                else say("opening.waiting", language) if status == "WAITING_FOR_USER" or last.get("open")
                else "" if status == "COMPLETED" else say("opening.unfinished", language))
    details = spoken(conditions, schema, language)
    shown = sorted(conditions, key=lambda c: schema.key(c.key).durable)[:3]
    return say("opening.planning", language, goal=task_words(schema, language),
               conditions=say("opening.with", language, conditions=details) if details else "",
               standing=standing), {c.key for c in shown}


def opening_line(profile: UserProfile, schema: DomainSchema, language: str = "en", now: float | None = None) -> str:
    """Recall the last session and where it stands, and check the lasting preferences (L10),
    in at most three short sentences a person would say; a first session asks about key
    preferences instead (cold start, L16)."""
    last = profile.last_session
    if not last:
        keys = [spec.label(language) for spec in schema.keys.values() if spec.durable][:2]
        if not keys:
            return say("opening.hello", language)
        return say("opening.first", language, keys=join(keys, language, "opening.first.or"))
    status = last.get("status", "IN_PROGRESS")
    now = time.time() if now is None else now
    parts = [say("opening.welcome", language)]
    said: set[str] = set()
    if status == "ARCHIVED" or (last.get("ended_at") and now - last["ended_at"] > ARCHIVE_AFTER_DAYS * 86400):
        parts.append(say("opening.archived", language))      # too old to pick up: greet, keep the preferences
    else:
        sentence, said = _last_time(last, schema, language)
        parts.append(sentence)
    prefs = [spoken_condition(Condition(f.key, f.comparator, f.value, f.words, 0), schema, language)
             for f in profile.facts.values() if f.key not in said][:3]
    if prefs:
        parts.append(say("opening.preferences", language, preferences=spoken_list(prefs, language)))
    elif len(parts) == 1 or status == "ARCHIVED":
        parts.append(say("opening.help", language))
    elif status != "COMPLETED":
        parts.append(say("opening.pick_up", language))
    return joined_sentences(parts, language)
