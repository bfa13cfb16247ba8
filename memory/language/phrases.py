"""What the agent says in its own words, one table per language.

Every sentence memory or the state speaks (a clarifying question, a conflict, the
opening line…) is a template here, looked up by key: code never branches on the
language to build a sentence. A language is a table; a missing key falls back to
English. Placeholders are `str.format` fields, the same in every table (a test checks).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")

EN: dict[str, str] = {
    # --- working memory -------------------------------------------------------------
    "list.and": " and ",
    "list.sep": "; ",
    # --- long-term memory -----------------------------------------------------------
}

ZH: dict[str, str] = {
    # --- working memory -------------------------------------------------------------
    "list.and": "、",
    "list.sep": "；",
    # --- long-term memory -----------------------------------------------------------
}

TABLES: dict[str, dict[str, str]] = {"en": EN, "zh": ZH}


def say(key: str, language: str, **values: object) -> str:
    """The sentence `key` in `language` (English when that language lacks it)."""
    table = TABLES.get(language, EN)
    template = table.get(key) or EN[key]
    return template.format(**values)


def join(items: Iterable[str], language: str, separator: str = "list.and") -> str:
    """Items joined the way the language lists them ("a and b", "甲、乙")."""
    return say(separator, language).join(items)
