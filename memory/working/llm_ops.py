"""The LLM's part of the monologue: operations the rules could not read.

It always receives the previous state with the utterance, answers JSON constrained
by a schema where the provider supports it, and its answer is validated before any
of it is applied: invalid JSON, an unknown operation, a timeout — the LLM's answer
is dropped whole and the reason is reported.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

from pydantic import AfterValidator, AliasChoices, Field, WithJsonSchema, model_validator
from pydantic.json_schema import SkipJsonSchema

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import TRUE_WORDS
from monologue.memory.language.numbers import normalise_date, normalise_time, to_int
from monologue.memory.llm_answer import AnswerError, LLMAnswer
from monologue.memory.working.state import COMPARATORS, InvalidOperation, Operation, OpSource

# The operations the LLM may write (a part of state.OPERATIONS): it adds what the rules
# could not read. Confirming, rejecting and resolving follow the user's own words, which
# the rules read.
LLM_OPERATIONS: tuple[str, ...] = ("set", "withdraw", "set_goal", "ask")
COMPARATOR_NAMES: tuple[str, ...] = tuple(str(c) for c in COMPARATORS)


def _allow_operation(name: str) -> str:
    if name not in LLM_OPERATIONS:
        raise ValueError(f"the LLM may not use operation {name!r}; it may use {', '.join(LLM_OPERATIONS)}")
    return name


def _known_comparator(name: str) -> str:
    if name not in COMPARATOR_NAMES:
        raise ValueError(f"unknown comparator {name!r}; known: {', '.join(COMPARATOR_NAMES)}")
    return name


class LLMOperation(LLMAnswer):
    """One change the LLM read from the utterance; becomes an `Operation` once checked."""

    op: Annotated[str, AfterValidator(_allow_operation),
                  WithJsonSchema({"type": "string", "enum": list(LLM_OPERATIONS)})]
    key: str = ""
    # "operator" is what models trained on other schemas often write for it.
    comparator: Annotated[str, AfterValidator(_known_comparator),
                          WithJsonSchema({"type": "string", "enum": list(COMPARATOR_NAMES)})] = Field(
        default="=", validation_alias=AliasChoices("comparator", "operator"))
    # A null value is read as absent, so the schema offers none: a `set` without a value is refused.
    value: Annotated[str | int | float | bool | None,
                     WithJsonSchema({"type": ["string", "number", "boolean"]})] = None
    correction: bool = False
    question: str = ""
    # The user's own words this change comes from, copied exactly: grounding checks them
    # against the utterance (an answer without them is located by its value instead).
    words: str = ""
    # Not asked for, but kept when a model volunteers it.
    reason: SkipJsonSchema[str] = ""


class OperationsAnswer(LLMAnswer):
    """The LLM's whole answer for a turn: the changes, and a sentence for the monologue."""

    operations: list[LLMOperation]
    note: str = ""

    @model_validator(mode="before")
    @classmethod
    def _no_operations_is_no_change(cls, data: Any) -> Any:
        # The schema asks for the list; an answer without it changes nothing, as an empty one.
        if isinstance(data, dict) and data.get("operations") is None:
            return {**data, "operations": []}
        return data


OPERATIONS_SCHEMA: dict[str, Any] = OperationsAnswer.json_schema()

SYSTEM_PROMPT = (
    "You keep the working memory of a voice assistant. From the user's new utterance, list only the "
    "changes it makes, as JSON: {\"operations\": [...], \"note\": \"one short sentence\"}. Operations: "
    "{\"op\": \"set\", \"key\": K, \"comparator\": \"=\"|\"!=\"|\"<=\"|\">=\"|\"includes\"|\"excludes\", \"value\": V, "
    "\"correction\": true if it replaces an earlier value, \"words\": the user's exact words it comes from}; "
    "{\"op\": \"withdraw\", \"key\": K, \"words\": ...}; "
    "{\"op\": \"set_goal\", \"value\": \"what the user wants\"}. Known keys: {keys}. Never repeat conditions the "
    "utterance does not mention; never invent values; a question changes nothing. "
    "If nothing changes, answer {\"operations\": []}."
)


class JsonLLM(Protocol):
    async def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str: ...


@dataclass
class LLMOps:
    operations: list[Operation] = field(default_factory=list)
    note: str = ""
    error: str = ""
    raw: str = ""


def normalise_value(op: Operation, schema: DomainSchema) -> Operation:
    """Bring an LLM-written value to the form the rules produce ('four' → 4, '7pm' → '19:00')."""
    spec = schema.key(op.key)
    value = op.value
    if isinstance(value, str):
        text = value.strip()
        if spec.type in ("int", "money"):
            digits = re.search(r"\d+(?:\.\d+)?", text)
            number = int(float(digits.group(0))) if digits else to_int(text)
            if number is None:
                raise InvalidOperation(f"{op.key} needs a number, got {value!r}")
            value = number
        elif spec.type == "time":
            value = normalise_time(text) or text
        elif spec.type == "date":
            value = normalise_date(text) or text.lower()
        elif spec.type == "enum":
            lowered = text.lower()
            for word, key, enum_value in schema.enum_lexicon("zh") + schema.enum_lexicon("en"):
                if key == op.key and (word == lowered or lowered == enum_value):
                    value = enum_value
                    break
            else:
                value = lowered.replace(" ", "_")
        elif spec.type == "bool":
            value = lowered_bool(text)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    return Operation(op.op, op.key, op.comparator, value, op.words, reason=op.reason, question=op.question,
                     correction=op.correction, source=op.source)


def lowered_bool(text: str) -> bool:
    return bool(TRUE_WORDS.fullmatch(text.strip().lower()))


def parse_llm_answer(raw: str, schema: DomainSchema, utterance: str) -> LLMOps:
    """Validate an LLM answer; raises InvalidOperation (nothing applied) if any part is off."""
    text = raw.strip()
    try:
        answer = OperationsAnswer.from_text(text)
    except AnswerError as exc:
        raise InvalidOperation(str(exc)) from None
    operations = []
    for item in answer.operations:
        op = Operation.from_dict(item.model_dump(), source=OpSource.LLM)
        if op.op == "set":
            op = normalise_value(op, schema)
        # No words given: left empty, so grounding finds the user's words for the value or refuses it.
        operations.append(Operation(op.op, op.key, op.comparator, op.value, op.words,
                                    reason=op.reason or "read by the LLM", question=op.question,
                                    correction=op.correction, source=OpSource.LLM))
    return LLMOps(operations=operations, note=answer.note[:300], raw=text[:2000])


def build_messages(state_text: str, rule_ops: list[Operation], utterance: str,
                   schema: DomainSchema) -> list[dict[str, str]]:
    keys = ", ".join(schema.keys) or "any short snake_case name"
    already = "; ".join(f"{o.op} {o.key} {o.comparator} {o.value}" for o in rule_ops if o.op == "set") or "nothing"
    return [
        {"role": "system", "content": SYSTEM_PROMPT.replace("{keys}", keys)},
        {"role": "user", "content": f"Current state:\n{state_text}\n\nAlready read by rules: {already}\n\n"
                                    f"New utterance: {utterance}"},
    ]


async def llm_operations(llm: JsonLLM, state_text: str, rule_ops: list[Operation], utterance: str,
                         schema: DomainSchema, timeout_secs: float) -> LLMOps:
    messages = build_messages(state_text, rule_ops, utterance, schema)
    try:
        raw = await asyncio.wait_for(llm.complete_json(messages, OPERATIONS_SCHEMA), timeout_secs)
    except TimeoutError:
        return LLMOps(error=f"LLM gave no operations within {timeout_secs:.0f} s")
    except Exception as exc:  # provider errors come in many types
        return LLMOps(error=f"LLM call failed: {type(exc).__name__}: {exc}"[:300])
    try:
        parsed = parse_llm_answer(raw, schema, utterance)
    except InvalidOperation as exc:
        return LLMOps(error=str(exc), raw=raw[:2000])
    # Rules win on what they read: the LLM only adds keys the rules did not touch.
    ruled = {o.key for o in rule_ops if o.key}
    parsed.operations = [o for o in parsed.operations if o.op == "set_goal" or o.key not in ruled]
    return parsed
