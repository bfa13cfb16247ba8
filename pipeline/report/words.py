"""The session in the user's words: conditions, this turn's changes, memories and cuts.

What the room page and the report show a person, never the plumbing behind it: a key's
label from the domain YAML in the session's language ("party size", 人数), a value as the
user would say it ("8 pm", 靠窗), a status in words ("to confirm"), a change as a sentence
("time set to 8 pm, from “eight”"), a recalled memory by what it means ("at 8 pm"), not
the utterance it was kept from with its recognition errors. Everything reads the trace's
plain data (`Operation.to_dict()`, `SessionState.to_dict()`), so the live panel and a
report written from trace.jsonl say the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.phrases import EN, say
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.render import spoken_conditions, spoken_value
from monologue.memory.working.state import Comparator, Condition, Op


def word(name: str, language: str, **values: Any) -> str:
    """The page's and the report's own words (`page.*` in the phrase tables)."""
    return say(f"page.{name}", language, **values)


def label_of(key: str, schema: DomainSchema | None, language: str) -> str:
    """The key's label from the domain YAML ("party size", 人数); never snake_case."""
    if schema is not None:
        return schema.key(key).label(language)
    return key.split(".")[-1].replace("_", " ")


def value_of(key: str, comparator: str, value: Any, schema: DomainSchema | None, language: str) -> str:
    """A condition's value as the user would say it, with how it binds: "8 pm", "no seafood", "at most 300"."""
    if isinstance(value, list):
        shown = word("sep", language).join(_one_value(key, v, schema, language) for v in value)
    else:
        shown = _one_value(key, value, schema, language)
    if comparator in ("", "=", Comparator.EQ):
        return shown
    return word(f"cmp.{comparator}", language, value=shown) if f"page.cmp.{comparator}" in EN else shown


def _one_value(key: str, value: Any, schema: DomainSchema | None, language: str) -> str:
    if isinstance(value, bool):
        return {"en": ("yes", "no"), "zh": ("是", "否")}.get(language, ("yes", "no"))[0 if value else 1]
    if schema is None:
        return str(value).replace("_", " ")
    try:
        return spoken_value(schema.key(key), value, language)
    except (TypeError, ValueError, KeyError):    # a value of a shape the YAML does not describe
        return str(value).replace("_", " ")


@dataclass(frozen=True)
class ConditionView:
    """One row of the conditions table: what, its value, and its status in words."""

    slot: str
    label: str
    value: str
    status: str              # in words: "noted", "to confirm", "confirmed"
    heard: str = ""          # the words it was set from


def condition_view(slot: str, condition: Mapping[str, Any], schema: DomainSchema | None,
                   language: str) -> ConditionView:
    key = str(condition.get("key") or slot.split(":", 1)[0])
    status = str(condition.get("status") or "active")
    if condition.get("confirmed") and status == "active":
        status = "confirmed"
    known = f"page.status.{status}" in EN
    shown = word(f"status.{status}", language) if known else status.replace("_", " ")
    value = value_of(key, str(condition.get("comparator") or "="), condition.get("value"), schema, language)
    return ConditionView(slot, label_of(key, schema, language), value, shown, str(condition.get("words") or ""))


ChangeKind = Literal["set", "changed", "withdraw", "confirm", "goal", "ask", "reject", "refused"]


@dataclass(frozen=True)
class ChangeLine:
    """One change of this turn as a sentence; `why`: the engine's own reason, for a hover."""

    kind: ChangeKind
    text: str
    why: str = ""


def change_lines(operations: Iterable[Mapping[str, Any]], rejected: Iterable[Mapping[str, Any]],
                 before: Mapping[str, Any], schema: DomainSchema | None, language: str) -> list[ChangeLine]:
    """This turn's operations as sentences. The agent's own bookkeeping (a read-back cleared,
    options offered, its last words noted) changes nothing the user said and is left out."""
    constraints = before.get("constraints")
    held: Mapping[str, Any] = constraints if isinstance(constraints, dict) else {}
    lines: list[ChangeLine] = []
    for op in operations:
        line = _change_line(op, held, schema, language)
        if line is not None:
            lines.append(line)
    for refusal in rejected:
        operation = refusal.get("operation")
        refused: Mapping[str, Any] = operation if isinstance(operation, dict) else {}
        key = str(refused.get("key") or "")
        if not key:
            continue
        value = value_of(key, str(refused.get("comparator") or "="), refused.get("value"), schema, language)
        lines.append(ChangeLine("refused", word("refused", language, label=label_of(key, schema, language),
                                                value=value), str(refusal.get("reason") or "")))
    return lines


def _change_line(op: Mapping[str, Any], held: Mapping[str, Any], schema: DomainSchema | None,
                 language: str) -> ChangeLine | None:
    kind, key = str(op.get("op") or ""), str(op.get("key") or "")
    label = label_of(key, schema, language) if key else ""
    words = str(op.get("words") or "").strip()
    heard = word("heard", language, words=words) if words else ""

    def sentence(text: str) -> str:
        return word("sep", language).join(part for part in (text, heard) if part)

    if kind == Op.SET and key:
        value = value_of(key, str(op.get("comparator") or "="), op.get("value"), schema, language)
        old = [c for slot, c in held.items() if isinstance(c, dict) and (c.get("key") or slot) == key
               and str(c.get("comparator") or "=") == str(op.get("comparator") or "=")]
        if old and old[0].get("value") != op.get("value") and str(op.get("comparator") or "=") in ("=", "<=", ">="):
            was = value_of(key, str(old[0].get("comparator") or "="), old[0].get("value"), schema, language)
            return ChangeLine("changed", sentence(word("changed", language, label=label, value=value, old=was)))
        return ChangeLine("set", sentence(word("set", language, label=label, value=value)))
    if kind == Op.WITHDRAW and key:
        return ChangeLine("withdraw", sentence(word("withdraw", language, label=label)))
    if kind == Op.CONFIRM and key:
        return ChangeLine("confirm", sentence(word("confirm", language, label=label)))
    if kind == Op.SET_GOAL and op.get("value"):
        return ChangeLine("goal", word("goal", language, value=str(op.get("value"))))
    if kind == Op.ASK and key:
        # The question itself is among the pending questions; the engine's reason is a hover.
        why = " · ".join(str(part) for part in (op.get("question"), op.get("reason")) if part)
        return ChangeLine("ask", word("ask", language, label=label), why)
    if kind == Op.REJECT:
        return ChangeLine("reject", sentence(word("reject", language)))
    return None     # propose, offer, note_action, resolve: the agent's bookkeeping


def memory_meaning(text: str, schema: DomainSchema | None, language: str) -> str:
    """What a kept utterance means, as the domain's rules read it ("at 8 pm" for "at eight in
    the evening place."); one the rules cannot read is quoted in the user's own words."""
    said = " ".join(text.split())
    if schema is not None and said:
        try:
            operations = RuleExtractor(schema).extract(said).operations
        except Exception:      # a reading that fails is a quote, never a broken page
            operations = []
        order = list(schema.keys)      # said in the YAML's order: "for 4 people on Saturday at 8 pm"
        conditions = sorted((Condition(op.key, op.comparator, op.value, op.words, 0) for op in operations
                             if op.op == Op.SET and op.key),
                            key=lambda c: order.index(c.key) if c.key in order else len(order))
        if conditions:
            try:
                return spoken_conditions(conditions, schema, language)
            except (TypeError, ValueError, KeyError):
                pass
    return word("quote", language, words=re.sub(r"[\s.。]+$", "", said))


CutKind = Literal["spoke_over", "went_on", ""]


def cut_kind(barge_in: Mapping[str, Any] | None) -> CutKind:
    """How a reply was cut (`BargeIn.trace()`): the user went on before a sound of it played
    (the voice then stopped in 0 ms: `BargeIn.unstarted`), or spoke over it; "" when it was
    heard whole (no cut, or stopped over its last syllable)."""
    if not barge_in or not barge_in.get("cut"):
        return ""
    if not barge_in.get("spoken") and not barge_in.get("stop_ms"):
        return "went_on"
    return "spoke_over" if barge_in.get("unspoken") else ""
