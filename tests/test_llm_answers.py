"""The LLM's JSON answers: schemas generated from typed models, answers checked by them,
and long-term memory's LLM failures logged and counted instead of swallowed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from loguru import logger

from monologue.memory.domain.schema import load_schema
from monologue.memory.longterm.llm_help import Contradiction, Importance, Insight, MemoryLLM, Summary
from monologue.memory.working.llm_ops import OPERATIONS_SCHEMA, parse_llm_answer
from monologue.memory.working.state import COMPARATORS, OPERATIONS, InvalidOperation


def _keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keys(item)


def test_operations_schema_is_the_plain_one_decoding_reads():
    assert OPERATIONS_SCHEMA == {
        "type": "object",
        "properties": {
            "operations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": ["set", "withdraw", "set_goal", "ask"]},
                        "key": {"type": "string"},
                        "comparator": {"type": "string", "enum": [str(c) for c in COMPARATORS]},
                        "value": {"type": ["string", "number", "boolean"]},
                        "correction": {"type": "boolean"},
                        "question": {"type": "string"},
                        "words": {"type": "string"},
                    },
                    "required": ["op"],
                },
            },
            "note": {"type": "string"},
        },
        "required": ["operations"],
    }
    allowed = {str(op) for op in OPERATIONS}
    assert set(OPERATIONS_SCHEMA["properties"]["operations"]["items"]["properties"]["op"]["enum"]) <= allowed


@pytest.mark.parametrize("answer, name, kind", [
    (Importance, "importance", "integer"),
    (Insight, "insight", "string"),
    (Contradiction, "contradicts", "boolean"),
    (Summary, "summary", "string"),
])
def test_memory_schemas_are_flat(answer, name, kind):
    assert answer.json_schema() == {"type": "object", "properties": {name: {"type": kind}}, "required": [name]}


@pytest.mark.parametrize("schema", [OPERATIONS_SCHEMA, Importance.json_schema(), Contradiction.json_schema()])
def test_llama_cpp_reads_every_schema(schema):
    assert not {"$ref", "$defs", "title", "anyOf"} & set(_keys(schema))
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    converter = grammar.SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(schema, "")
    assert "root ::=" in converter.format_grammar()


@pytest.fixture(scope="module")
def restaurant():
    return load_schema("restaurant")


def test_an_answer_is_checked_by_the_same_model(restaurant):
    raw = "Sure! ```json\n" + json.dumps({"operations": [
        {"op": "set", "key": "Party Size", "operator": "=", "value": "four", "question": None},
        {"op": "set_goal", "key": None, "value": "book a table"},
        {"op": "withdraw", "key": "budget", "comparator": ""},
    ], "note": "Four people."}) + "\n```"
    parsed = parse_llm_answer(raw, restaurant, "Four of us, and forget the budget.")
    assert [(o.op, o.key, o.comparator, o.value) for o in parsed.operations] == [
        ("set", "party_size", "=", 4), ("set_goal", "", "=", "book a table"), ("withdraw", "budget", "=", None)]
    # No words given: left empty for grounding to find (or refuse), never the whole utterance.
    assert all(o.source == "llm" and not o.words for o in parsed.operations)
    assert parsed.note == "Four people."


@pytest.mark.parametrize("raw, fragment", [
    ("no JSON here", "not a JSON object"),
    ("{operations: [}", "not valid JSON"),
    ('{"operations": [{"op": "confirm", "key": "time"}]}', "may not use operation 'confirm'"),
    ('{"operations": [{"op": "set", "key": "time", "comparator": "~", "value": "7pm"}]}', "unknown comparator"),
    ('{"operations": [{"op": "set", "key": "time", "value": ["7pm", "8pm"]}]}', "operations.0.value"),
    ('{"operations": [{"op": "set", "key": "time"}]}', "needs a value"),
])
def test_an_answer_off_the_schema_is_refused_whole(restaurant, raw, fragment):
    with pytest.raises(InvalidOperation, match=fragment):
        parse_llm_answer(raw, restaurant, "whatever")


@pytest.mark.parametrize("raw", ['{"note": "nothing to do"}', '{"operations": null, "note": "nothing to do"}'])
def test_an_answer_without_operations_changes_nothing(restaurant, raw):
    parsed = parse_llm_answer(raw, restaurant, "whatever")
    assert parsed.operations == [] and parsed.note == "nothing to do"


@pytest.fixture
def warnings() -> Iterator[list[str]]:
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(str(message)), level="WARNING")
    yield messages
    logger.remove(sink)


def _memory_llm(answers: list[Any], timeout_secs: float = 5.0) -> MemoryLLM:
    async def complete_json(messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, float):          # seconds to take: longer than the timeout
            await asyncio.sleep(answer)
            return '{"importance": 5}'
        return json.dumps(answer)

    llm = MemoryLLM(complete_json, timeout_secs=timeout_secs)
    llm.bind(asyncio.get_running_loop())
    return llm


async def test_good_answers_record_no_failure(warnings):
    llm = _memory_llm([{"importance": 7}, {"contradicts": False}, {"summary": " Likes Thai food. "},
                       {"insight": "The user avoids spicy food."}])
    assert await asyncio.to_thread(llm.importance, "I am allergic to peanuts.") == 7
    assert await asyncio.to_thread(llm.contradicts, "I like tea.", "I like coffee.") is False
    assert await asyncio.to_thread(llm.summarize, ["s1", "s2"]) == "Likes Thai food."
    assert await asyncio.to_thread(llm.insight, ["a", "b", "c"]) == "The user avoids spicy food."
    assert llm.failures == [] and warnings == []


async def test_failures_fall_back_to_the_rules_and_are_logged_and_counted(warnings):
    llm = _memory_llm([ConnectionError("provider down"), 60.0, {"contradicts": "yes"}, {"importance": 12},
                       {"summary": ""}], timeout_secs=2.0)
    assert await asyncio.to_thread(llm.importance, "I am allergic to peanuts.") is None
    assert await asyncio.to_thread(llm.importance, "I am allergic to peanuts.") is None
    assert await asyncio.to_thread(llm.contradicts, "I like tea.", "I like coffee.") is None
    assert await asyncio.to_thread(llm.importance, "It rained.") is None
    assert await asyncio.to_thread(llm.summarize, ["s1"]) is None
    assert [f.kind for f in llm.failures] == ["importance", "importance", "contradicts", "importance", "summary"]
    assert llm.failures[0].error == "ConnectionError: provider down"
    assert llm.failures[1].error == "no answer within 2 s"
    assert "contradicts" in llm.failures[2].error and "importance" in llm.failures[3].error
    assert len(warnings) == 5
    assert "importance failed" in warnings[0] and "provider down" in warnings[0]
    assert "no answer within" in warnings[1]


async def test_a_failed_insight_is_counted_and_still_raised(warnings):
    llm = _memory_llm([TimeoutError()])
    with pytest.raises(TimeoutError):
        await asyncio.to_thread(llm.insight, ["a", "b", "c"])
    assert [(f.kind, f.error) for f in llm.failures] == [("insight", "no answer within 5 s")]
    assert len(warnings) == 1
