"""How long-term memory says a session aloud: the task, its conditions, what was done.

The opening line, exact answers, the plan and the summaries all speak a past session
from the same record (`UserProfile.last_session`): the domain's task in words
(`schema.goal_text`, never the state's free-text goal, which a model may have filled
with the user's command), its conditions as a person says them ("for 4 people", "at
7 pm", never `party_size = 4`), and what the agent did (`done[…]["said"]`, written in
each language when the action ran).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.phrases import say
from monologue.memory.language.spoken import absolute_date
from monologue.memory.working.render import spoken_condition
from monologue.memory.working.state import Comparator, Condition, SessionState, member_of


def spoken_list(items: Iterable[str], language: str) -> str:
    """"a, b and c" / "甲、乙和丙"."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return say("speech.sep", language).join(items[:-1]) + say("speech.and", language) + items[-1]


def joined_sentences(parts: Iterable[str], language: str) -> str:
    """Sentences one after another, spaced the way the language spaces them."""
    return say("clause.join", language).join(p.strip() for p in parts if p and p.strip())


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def task_words(schema: DomainSchema | None, language: str) -> str:
    """The domain's task as a verb phrase ("book a restaurant table", 预订餐厅)."""
    text = schema.goal_text if schema is not None else {}
    return text.get(language) or (text.get("en") if language == "en" else "") or say("opening.some_task", language)


def said_conditions(state: SessionState) -> list[dict[str, Any]]:
    """The state's conditions as plain data, to be spoken in a later session."""
    return [{"key": c.key, "comparator": str(c.comparator), "value": c.value} for c in state.constraints.values()]


def conditions_of(last: dict[str, Any]) -> list[Condition]:
    """The last session's conditions; a relative day ("tomorrow") becomes the weekday it meant then."""
    out = []
    ended = float(last.get("ended_at") or 0.0)
    for item in last.get("said") or []:
        try:
            value = absolute_date(item["value"], ended) if ended and isinstance(item["value"], str) else item["value"]
            out.append(Condition(str(item["key"]), Comparator(item.get("comparator", "=")), value, "", 0))
        except (KeyError, ValueError):
            continue
    return out


def spoken(conditions: Iterable[Condition], schema: DomainSchema, language: str, limit: int = 3) -> str:
    """The task's details first, then lasting preferences: "for 4 people, on Saturday, at 7 pm"."""
    ordered = sorted(conditions, key=lambda c: schema.key(c.key).durable)[:limit]
    return say("spoken.join", language).join(spoken_condition(c, schema, language) for c in ordered)


def done_words(entry: dict[str, Any], language: str) -> str:
    """What the agent did, in the past tense, in `language` ("booked Luigi's Trattoria…");
    "" when the action was not worded in that language."""
    said = entry.get("said") or {}
    return str(said.get(language) or "") if isinstance(said, dict) else ""


def _values(value: Any) -> set[str]:
    """A value or an action's argument as its values ("excludes:beef" is beef: how it binds aside)."""
    items = value if isinstance(value, list | tuple | set | frozenset) else [value]
    return {str(member_of(v, Comparator.INCLUDES)[1]).strip().lower() for v in items}


def changed_since(args: Mapping[str, Any], conditions: Iterable[Condition]) -> list[Condition]:
    """The live conditions that no longer match the arguments (key → value) an action was done with."""
    live: dict[str, list[Condition]] = {}
    for c in conditions:
        live.setdefault(c.key, []).append(c)
    changed = []
    for key, value in args.items():
        now = live.get(key)
        if now and set().union(*(_values(c.value) for c in now)) != _values(value):
            changed += now
    return changed


def unsettled_labels(last: dict[str, Any], schema: DomainSchema, language: str) -> str:
    """The things the last session asked about and never settled: "the date and time"."""
    keys = list(dict.fromkeys(k for k in last.get("unsettled") or [] if k))
    return spoken_list([schema.key(k).label(language) for k in keys[:2]], language)
