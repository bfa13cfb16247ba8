"""The LLM's JSON answers: schemas generated from typed models, answers checked by them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from monologue.memory.domain.schema import load_schema
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


@pytest.mark.parametrize("schema", [OPERATIONS_SCHEMA])
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
    assert all(o.source == "llm" and o.words for o in parsed.operations)
    assert parsed.note == "Four people."


@pytest.mark.parametrize("raw, fragment", [
    ("no JSON here", "not a JSON object"),
    ("{operations: [}", "not valid JSON"),
    ('{"operations": [{"op": "confirm", "key": "time"}]}', "may not use operation 'confirm'"),
    ('{"operations": [{"op": "set", "key": "time", "comparator": "~", "value": "7pm"}]}', "unknown comparator"),
    ('{"operations": [{"op": "set", "key": "time", "value": ["7pm", "8pm"]}]}', "operations.0.value"),
    ('{"operations": [{"op": "set", "key": "time"}]}', "needs a value"),
    ('{"note": "nothing to do"}', "operations"),
])
def test_an_answer_off_the_schema_is_refused_whole(restaurant, raw, fragment):
    with pytest.raises(InvalidOperation, match=fragment):
        parse_llm_answer(raw, restaurant, "whatever")
