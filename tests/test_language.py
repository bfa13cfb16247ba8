"""The language tables: every language says every phrase, with the same placeholders."""

from __future__ import annotations

import string

from monologue.memory.language.phrases import EN, TABLES, join, say


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_table_has_every_phrase_with_the_same_placeholders():
    for language, table in TABLES.items():
        assert set(table) == set(EN), f"{language}: missing {set(EN) - set(table)}, extra {set(table) - set(EN)}"
        for key, template in table.items():
            assert _fields(template) == _fields(EN[key]), (language, key)


def test_lists_are_joined_the_languages_way():
    assert join(["a", "b"], "en") == "a and b"
    assert join(["甲", "乙"], "zh") == "甲、乙"
    assert say("list.sep", "fr") == "; "      # unknown language: English
