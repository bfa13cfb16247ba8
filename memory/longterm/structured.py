"""Exact questions answered from records, not by similarity (seed 002 §5.5, L15).

"When did I last change the seat?" and "what did I book last time?" have one right
answer: it is looked up in the profile's audit log and the last session's record. If
there is no record, the answer says so instead of guessing (L14).
"""

from __future__ import annotations

import re
import time
from typing import Any

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.person import when_said
from monologue.memory.language.phrases import say
from monologue.memory.longterm.answers import about_user
from monologue.memory.longterm.speech import conditions_of, done_words, spoken, task_words
from monologue.memory.stores.protocols import ProfileStore
from monologue.memory.working.render import spoken_condition
from monologue.memory.working.state import Comparator, Condition

_WHEN_EN = re.compile(r"\bwhen did (?:i|we) (?:last |most recently )?"
                      r"(?:change|set|move|adjust|update|switch|pick|choose)\s+(?:the |my |our )?(?P<what>[\w ]{2,30})",
                      re.IGNORECASE)
_WHEN_ZH = re.compile(r"(?:我|我们)?上次(?:是)?什么时候(?:改|调|换|设置)(?:的|了)?(?P<what>[\u4e00-\u9fff]{1,6})"
                      r"|(?:我|我们)?上次(?:改|调|换)(?P<what2>[\u4e00-\u9fff]{1,6}?)是什么时候")
_LAST_TIME_EN = re.compile(
    r"\b(?:what|where|which (?:place|restaurant|one)|who) (?:did|was it) (?:i|we) "
    r"(?:order|book|reserve|choose|pick|get|ask for|want|go|end up)\b"
    r".*\b(?:last time|last week|the other day|previously|before)\b|"
    r"\b(?:last time|last week)\b.*\b(?:what|where) did (?:i|we)\b", re.IGNORECASE)
_LAST_TIME_ZH = re.compile(r"上次(?:我|我们)?(?:订|点|选|要)了?(?:什么|哪)|上次(?:我|我们)?去了?哪|"
                           r"上次(?:我|我们)?(?:是)?去的哪")


def _condition(view: Any) -> Condition | None:
    """A profile change as the audit log keeps it ("seat_position = back", the form
    `profile._fact_view` writes and `profile show` prints), read back to be spoken."""
    parts = str(view or "").split(" ", 2)
    if len(parts) < 3:
        return None
    try:
        return Condition(parts[0], Comparator(parts[1]), parts[2], "", 0)
    except ValueError:
        return None


def _value_said(condition: Condition, schema: DomainSchema, language: str) -> str:
    """The new value as a person says it: a listed value by its word ("further back", 靠后),
    anything else as its condition is said ("the cabin at 21 degrees")."""
    spec = schema.key(condition.key)
    words = spec.value_words(str(condition.value), language)
    if words and condition.comparator == Comparator.EQ:
        return words[0]
    return spoken_condition(condition, schema, language)


def _bare_value(condition: Condition, schema: DomainSchema, language: str) -> str:
    """A value alone, with its unit ("22 degrees", 22度, "further back"): what it was changed from."""
    spec = schema.key(condition.key)
    words = spec.value_words(str(condition.value), language)
    if words:
        return words[0]
    heard = spec.heard.get(language)
    if heard:
        return heard.format(value=condition.value)
    units = spec.reading.units.get(language) or ()
    if units and spec.type in ("int", "money"):
        unit = units[0]
        return f"{unit}{condition.value}" if not unit[0].isalnum() else (
            f"{condition.value}{unit}" if language == "zh" else f"{condition.value} {unit}")
    return _value_said(condition, schema, language)


def _key_of(phrase: str, schema: DomainSchema, language: str) -> str | None:
    phrase = phrase.lower()
    for alias, key in schema.alias_lexicon(language):
        if (alias in phrase) if language == "zh" else re.search(r"\b" + re.escape(alias) + r"\b", phrase):
            return key
    return None


def exact_answer(question: str, profiles: ProfileStore, user_id: str, schema: DomainSchema,
                 language: str = "en", now: float | None = None) -> str | None:
    """An answer from the records, or None when the question is not an exact one.

    It is given in the question's language, in the second person, with when it happened
    ("You last changed the seat on Tuesday evening: further back.")."""
    asked_in = language_of(question)
    zh = asked_in == "zh"
    now = time.time() if now is None else now
    when = (_WHEN_ZH if zh else _WHEN_EN).search(question)
    if when:
        what = (when.groupdict().get("what") or when.groupdict().get("what2") or "").strip()
        key = _key_of(what, schema, asked_in)
        if key is None:
            return None
        changes = [e for e in profiles.audit(user_id) if e["what"].split(":")[0] == key]
        label = schema.key(key).label(asked_in)
        if not changes:
            return say("exact.no_change", asked_in, label=label)
        last = changes[-1]
        moment = when_said(last["at"], now, asked_in, part_of_day=True)
        after = _condition(last["after"])
        if after is None:
            return say("exact.removed", asked_in, label=label, when=moment)
        return say("exact.changed", asked_in, label=label, when=moment, after=_value_said(after, schema, asked_in))
    if (_LAST_TIME_ZH if zh else _LAST_TIME_EN).search(question):
        last = profiles.load(user_id).last_session
        if not last:
            return say("exact.no_last_session", asked_in)
        moment = when_said(float(last.get("ended_at") or now), now, asked_in)
        done = [d for d in last.get("done") or [] if done_words(d, asked_in)]
        if done:
            entry = next((d for d in reversed(done) if d.get("completes")), done[-1])
            return say("exact.last_done", asked_in, when=moment, done=done_words(entry, asked_in))
        details = spoken(conditions_of(last), schema, asked_in)
        return say("exact.last_planned", asked_in, when=moment, goal=task_words(schema, asked_in),
                   conditions=say("opening.with", asked_in, conditions=details) if details else "")
    if about_user(question):
        return profile_answer(question, profiles, user_id, schema, asked_in, now)
    return None


def profile_answer(question: str, profiles: ProfileStore, user_id: str, schema: DomainSchema, language: str,
                   now: float) -> str | None:
    """A lasting preference asked about ("what temperature do I like?", 我喜欢几度), answered
    from the profile's value, not a quote of the user's words: the value first, then where it
    came from ("The cabin at 21 degrees: you changed it from 22 on Wednesday."). None when the
    question names no key the profile holds."""
    key = _key_of(question, schema, language)
    if key is None:
        return None
    facts = [f for f in profiles.load(user_id).facts.values() if f.key == key]
    if not facts:
        return None
    latest = max(facts, key=lambda f: f.updated_at)
    values = [_value_said(Condition(f.key, f.comparator, f.value, "", 0), schema, language) for f in facts]
    value = say("list.and", language).join(values)
    value = value[:1].upper() + value[1:] if language == "en" else value
    moment = when_said(latest.updated_at, now, language)
    changes = [e for e in profiles.audit(user_id) if e["what"].split(":")[0] == key and e["before"]]
    before = _condition(changes[-1]["before"]) if changes else None
    if before is not None and len(facts) == 1 and str(before.value) != str(latest.value):
        return say("profile.changed", language, value=value, when=moment, before=_bare_value(before, schema, language))
    return say("profile.value", language, value=value, when=moment)
