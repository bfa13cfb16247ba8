"""Text views of the state: the compact block in the reply prompt, and the monologue.

Every sentence comes from the language's phrase table (`memory/language/phrases.py`);
a key's own wording ("for 4 people", "no spicy food") comes from its domain YAML.
"""

from __future__ import annotations

import re
from typing import Any

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.person import second_person
from monologue.memory.language.phrases import join, say
from monologue.memory.language.spoken import spoken_date, spoken_time
from monologue.memory.working.readers import OutOfRange
from monologue.memory.working.state import (
    Change,
    ChangeAction,
    Comparator,
    Condition,
    ConditionStatus,
    Operation,
    SessionState,
    describe_condition,
    display_value,
)

MAX_MONOLOGUE_CHARS = 900   # ≈ 200–300 tokens: the monologue states changes, it is not an essay

# How this turn's changes read in the monologue.
_CHANGE_PHRASES = {
    ChangeAction.REPLACED: "change.replaced", ChangeAction.WITHDRAWN: "change.withdrawn",
    ChangeAction.RELAXED: "change.relaxed",
    ChangeAction.ADDED: "change.added", ChangeAction.MAYBE_CHANGED: "change.maybe_changed",
    ChangeAction.CONFIRMED: "change.confirmed", ChangeAction.EXPIRED: "change.expired",
    ChangeAction.TO_CONFIRM: "change.to_confirm",
}


def _condition_line(c: Condition, schema: DomainSchema, language: str) -> str:
    flags = []
    if c.confirmed:
        flags.append(say("state.confirmed", language))
    if c.status == ConditionStatus.TO_CONFIRM:
        flags.append(say("state.to_confirm", language))
    return describe_condition(c, schema, language) + (f" ({say('list.comma', language).join(flags)})" if flags else "")


def render_state(state: SessionState, schema: DomainSchema, language: str = "en") -> str:
    """The state as a few short lines for the reply prompt; empty parts are left out."""
    lines = []
    if state.goal:
        lines.append(say("state.goal", language, goal=state.goal))
    for condition in state.constraints.values():
        lines.append("- " + _condition_line(condition, schema, language))
    for pending in state.pending:
        lines.append(say("state.open_question", language, question=pending.question))
    for words in state.later:       # (asked for while this task was under way: it comes next)
        lines.append(say("state.later", language, words=words))
    if state.last_turn_action:
        lines.append(say("state.last_action", language, action=state.last_turn_action))
    return "\n".join(lines) if lines else say("state.empty", language)


def _change_phrase(change: Change, language: str) -> str | None:
    key = _CHANGE_PHRASES.get(change.action)
    if key is None:
        return None
    return say(key, language, before=change.before, after=change.after, reason=change.reason, slot=change.slot)


def render_monologue(state: SessionState, changes: list[Change], schema: DomainSchema,
                     language: str = "en", note: str = "") -> str:
    """What the user wants now, what is settled, what is open, what this turn corrected."""
    settled = [describe_condition(c, schema, language) for c in state.constraints.values()
               if c.status == ConditionStatus.ACTIVE]
    unsure = [describe_condition(c, schema, language) for c in state.constraints.values()
              if c.status != ConditionStatus.ACTIVE]
    opened = [p.question for p in state.pending]
    this_turn = [p for p in (_change_phrase(c, language) for c in changes) if p]
    nothing = say("monologue.nothing", language)
    parts = [say("monologue.wants", language, goal=state.goal or say("monologue.goal_unclear", language)),
             say("monologue.settled", language, items=join(settled, language, "list.sep") or nothing)]
    if unsure:
        parts.append(say("monologue.to_confirm", language, items=join(unsure, language, "list.sep")))
    parts.append(say("monologue.open", language, items=join(opened, language, "list.sep") or nothing))
    parts.append(say("monologue.this_turn", language,
                     items=join(this_turn, language, "list.sep") or say("monologue.no_change", language)))
    if note:
        parts.append(note.strip())
    text = " ".join(p.replace("?.", "?").replace("？。", "？") for p in parts)
    return text if len(text) <= MAX_MONOLOGUE_CHARS else text[: MAX_MONOLOGUE_CHARS - 1] + "…"


def clarify_question(ops: list[Operation], schema: DomainSchema, language: str = "en") -> str:
    """Ask back instead of writing what may have been misheard (W8)."""
    heard = []
    for op in ops:
        spec = schema.key(op.key)
        value = display_value(op.value)
        if language in spec.heard:
            heard.append(spec.heard[language].format(value=value))
        elif spec.type in ("time", "date"):
            heard.append(value)
        else:
            heard.append(say("clarify.labelled", language, label=spec.label(language), value=value))
    return say("clarify.question", language, heard=join(heard, language))


def _phrase(c: Condition, schema: DomainSchema, language: str) -> str:
    """A condition as words a small model follows ("no spicy food", "for 4 people")."""
    spec = schema.key(c.key)
    value = display_value(c.value)
    label = spec.label(language)
    own = spec.phrase(c.comparator, language)
    if own is not None:
        return own.format(value=value, label=label)
    if spec.type == "date":
        return say("condition.date", language, value=value.title() if value.isalpha() else value)
    if spec.type == "time":
        return say("condition.time", language, value=value)
    generic = {Comparator.EXCLUDES: "condition.excludes", Comparator.INCLUDES: "condition.includes",
               Comparator.LE: "condition.at_most", Comparator.GE: "condition.at_least",
               Comparator.NE: "condition.not"}.get(c.comparator)
    if generic is None:
        generic = "condition.enum" if spec.type == "enum" else "condition.other"
    return say(generic, language, value=value, label=label)


def render_state_for_reply(state: SessionState, schema: DomainSchema, language: str = "en") -> str:
    """The state as plain sentences for the reply prompt.

    Chinese prompts carry the state as lines (`render_state`): the sentence form was
    written and measured for English small models only.
    """
    if language == "zh":
        return render_state(state, schema, language)
    live = [_phrase(c, schema, language) for c in state.constraints.values() if c.status == ConditionStatus.ACTIVE]
    unsure = [_phrase(c, schema, language) for c in state.constraints.values() if c.status != ConditionStatus.ACTIVE]
    comma = say("list.comma", language)
    parts = []
    if state.goal or live:
        parts.append(say("reply.wants", language, goal=state.goal or say("reply.default_goal", language))
                     + (say("reply.conditions", language, items=comma.join(live)) if live
                        else say("reply.no_conditions", language)))
    if unsure:
        parts.append(say("reply.check_still_holds", language, items=comma.join(unsure)))
    for pending in state.pending:
        parts.append(say("reply.ask", language, question=pending.question))
    return "\n".join(parts) if parts else say("reply.nothing_yet", language)


# A note that opens with its verb: the order or the thing it was said of was read as its own key.
_NO_SUBJECT_EN = re.compile(r"(?:came|arrived|was|is|got|has|had|stopped|won'?t|doesn'?t|didn'?t|hasn'?t|wasn'?t|"
                            r"isn'?t|never|keeps|broke|leaks|showed up|turned up|still hasn'?t|still isn'?t)\b",
                            re.IGNORECASE)


def spoken_value(spec: KeySpec, value: Any, language: str) -> str:
    """A listed value as the user would say it ("window", 靠窗, "no tolls"); other values as stored."""
    if spec.reader == Reader.FREE_TEXT:
        said = second_person(str(value), language)     # the user's words, in the agent's mouth
        # ("order 55231 came broken": the note kept is "came broken", read back "noting it came broken")
        return f"it {said}" if language == "en" and _NO_SUBJECT_EN.match(said) else said
    words = spec.value_words(str(value), language) or spec.value_words(str(value), "en")
    if spec.type == "date":
        return spoken_date(str(value), language)
    if spec.type == "time":
        return spoken_time(str(value), language)
    if spec.type == "money" and isinstance(value, float) and not value.is_integer():
        return f"{value:.2f}"        # 65.5 is said "65.50": a sum keeps its cents
    return words[0] if words else display_value(value)


def spoken_condition(c: Condition, schema: DomainSchema, language: str = "en") -> str:
    """A condition as said aloud in a read-back or the opening line: "for 4 people",
    "at 7 pm", "no spicy food", 晚上7点 — never a key, an "=" or a stored form."""
    spec = schema.key(c.key)
    value = spoken_value(spec, c.value, language)
    own = spec.phrase(c.comparator, language)
    if own is not None:
        return own.format(value=value, label=spec.label(language))
    if language in spec.heard:
        return spec.heard[language].format(value=value)
    if spec.reader == Reader.QUANTITY:
        value = with_unit(spec, value, language)
    kind = {Comparator.EXCLUDES: "spoken.excludes", Comparator.NE: "spoken.not",
            Comparator.LE: "spoken.at_most", Comparator.GE: "spoken.at_least"}.get(c.comparator)
    if kind is not None:
        return say(kind, language, value=value, label=spec.label(language))
    if spec.type == "date":
        # "on Saturday", "on March 9th", but "tomorrow", "next Friday"
        named = value[:1].isupper() or value.startswith("the ")
        return say("spoken.date", language, value=value) if named else value
    if spec.type == "time":
        return say("spoken.time", language, value=value)
    if spec.type == "enum" and not spec.multi:
        return say("spoken.enum", language, value=value, label=spec.label(language))
    return value


def with_unit(spec: KeySpec, value: str, language: str) -> str:
    """A quantity with the key's first unit: "22 degrees", 22度, "$40"."""
    units = spec.reading.units.get(language) or spec.reading.units.get("en") or ()
    if not units:
        return value
    unit = units[0]
    if not unit[0].isalnum():
        return f"{unit}{value}"            # "$40", "¥40"
    return f"{value}{unit}" if language == "zh" else f"{value} {unit}"


def out_of_range_question(missed: OutOfRange, schema: DomainSchema, language: str = "en") -> str:
    """What the agent says to a number outside the key's range: the number converted from the
    key's other scale, offered for a yes ("72 degrees Fahrenheit is about 22 degrees. Shall I
    set the cabin temperature to 22 degrees?"), or the range and a question."""
    spec = schema.key(missed.key)
    label = spec.label(language)
    scale = spec.reading.other_scale
    if missed.offered is not None and scale is not None:
        said = (scale.said.get(language) or scale.said.get("en") or "{n}").format(n=_plain(missed.number))
        return say("clarify.other_scale", language, said=said, label=label,
                   value=with_unit(spec, _plain(missed.offered), language))
    low, high = spec.reading.value_range or (missed.number, missed.number)
    return say("clarify.out_of_range", language, label=label, low=_plain(low),
               high=with_unit(spec, _plain(high), language))


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def spoken_conditions(conditions: list[Condition], schema: DomainSchema, language: str = "en") -> str:
    """Several conditions in one breath: "for 4 people on Saturday at 7 pm" / "4个人，周六，晚上7点"."""
    # A lasting value set aside for now by a one-off one is not said beside it ("no tolls, taking the toll road").
    aside = {schema.key(c.key).reading.sets_aside.get(str(c.value)) for c in conditions if c.key in schema.keys}
    conditions = [c for c in conditions if not (c.comparator != Comparator.EXCLUDES and str(c.value) in aside)]
    # Several free-text wishes are said under one phrase ("noting the screen is cracked and
    # this is the second time"), not each with its own.
    free = [c for c in conditions if schema.key(c.key).reader == Reader.FREE_TEXT]
    if len(free) > 1:
        joined = join([str(c.value) for c in free], language)
        first = free[0]
        conditions = [c for c in conditions if c not in free[1:]]
        conditions[conditions.index(first)] = Condition(first.key, first.comparator, joined, first.words, first.turn,
                                                        multi=first.multi)
    # So are several values of one set-valued key with its own phrase ("with a stop at Walmart
    # and Joe's Diner", 途经幼儿园和东直门), not "with a stop at Walmart with a stop at Joe's Diner".
    grouped: list[Condition] = []
    for c in conditions:
        spec = schema.key(c.key)
        same = [d for d in conditions if d.key == c.key and d.comparator == c.comparator]
        if len(same) < 2 or not spec.multi or spec.phrase(c.comparator, language) is None:
            grouped.append(c)
        elif c is same[0]:
            joined = join([spoken_value(spec, d.value, language) for d in same], language)
            grouped.append(Condition(c.key, c.comparator, joined, c.words, c.turn, multi=True))
    parts = [spoken_condition(c, schema, language) for c in grouped]
    out = parts[0] if parts else ""
    for at, (before, part) in enumerate(zip(parts, parts[1:], strict=False)):
        # "for 4 people on Saturday at 7 pm": a phrase that starts with its preposition runs on,
        # but not onto a refusal ("no tolls, with a stop at a petrol station": run on, the stop
        # was heard refused too).
        run_on = language == "en" and part.split(" ", 1)[0] in _RUNS_ON \
            and not re.match(r"(?:no|not|without|avoid\w*)\b", before, re.IGNORECASE)
        # (明天下午3点以后: a day said just before the time it is the day of runs on in Chinese too)
        day_then_time = schema.key(grouped[at].key).day_of == grouped[at + 1].key
        out += (" " if run_on else "" if day_then_time and language == "zh" else say("spoken.join", language)) + part
    return out


_RUNS_ON = frozenset({"on", "at", "for", "to", "by", "with", "in", "near", "after", "before"})
