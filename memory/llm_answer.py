"""The LLM's JSON answers as typed models: one source for the schema that constrains
decoding and for the check of what comes back.

Both rooms ask the LLM for JSON: working memory for operations (`working/llm_ops.py`),
long-term memory for importance, insights, contradictions and summaries
(`longterm/llm_help.py`). Each answer is a subclass of `LLMAnswer`.

A schema travels as OpenAI's ``json_schema`` response format through litellm and, for the
in-process model, into llama.cpp's grammar (`models/llm.py`). llama.cpp falls back to
unconstrained JSON, silently, on a schema its converter cannot read, so `LLMAnswer.json_schema`
gives plain ``type``/``properties``/``required``/``enum``: pydantic's ``$defs`` inlined, and the
titles, defaults and descriptions (docstrings, written for people; the prompt tells the LLM
what to write) left out.
"""

from __future__ import annotations

import json
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

# Schema keywords that describe a field to a reader; decoding needs none of them.
_FOR_READERS = ("title", "default", "description")


class AnswerError(ValueError):
    """The LLM's answer is not a JSON object, or does not fit the model it was asked for."""


class LLMAnswer(BaseModel):
    """Base of every answer the LLM gives as JSON.

    Keys the model does not know are ignored, and a key whose value is ``null`` or ``""``
    counts as absent: small models write ``"key": null`` for what they have nothing for.
    Numbers are accepted where text is expected.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", coerce_numbers_to_str=True)

    @model_validator(mode="before")
    @classmethod
    def _empty_is_absent(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None and value != ""}
        return data

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The schema to constrain decoding with: no ``$ref``, ``$defs``, titles or descriptions."""
        schema = cls.model_json_schema()
        return _plain(schema, schema.get("$defs", {}))

    @classmethod
    def from_text(cls, raw: str) -> Self:
        """The JSON object in `raw` (models wrap it in prose or code fences), validated."""
        start, end = raw.find("{"), raw.rfind("}")
        if start < 0 or end <= start:
            raise AnswerError(f"the LLM's answer is not a JSON object: {raw[:200]!r}")
        try:
            data = json.loads(raw[start:end + 1])
        except json.JSONDecodeError as exc:
            raise AnswerError(f"the LLM's answer is not valid JSON ({exc.msg}): {raw[:200]!r}") from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
                                 for e in exc.errors())
            raise AnswerError(f"the LLM's answer does not fit {cls.__name__}: {problems}") from None


def _plain(node: Any, defs: dict[str, Any]) -> Any:
    # Answers are small trees; a model that refers to itself would recurse forever here.
    if isinstance(node, list):
        return [_plain(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = _plain(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {**target, **_plain({k: v for k, v in node.items() if k != "$ref"}, defs)}
    plain: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs" or key in _FOR_READERS:
            continue
        if key == "properties":     # its keys are field names, not keywords: keep every one
            plain[key] = {name: _plain(spec, defs) for name, spec in value.items()}
        else:
            plain[key] = _plain(value, defs)
    return plain
