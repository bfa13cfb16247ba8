"""The language tables: every language says every phrase, with the same placeholders."""

from __future__ import annotations

import string

import pytest

from monologue.memory.language.cues import language_of
from monologue.memory.language.phrases import EN, TABLES, join, say
from monologue.memory.language.stances import asks, disliked_after, refused_before


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


def _at(text: str, word: str) -> tuple[int, int]:
    start = text.lower().index(word)
    return start, start + len(word)


@pytest.mark.parametrize("text, word, refused", [
    ("Please don't put us by the window.", "window", True),
    ("Anywhere but the patio.", "patio", True),
    ("No, the window is fine.", "window", False),            # the no answers something else
    ("I don't mind the highway.", "highway", False),
    ("I'm not sure about the patio.", "patio", False),
    ("Not the bar but the window.", "window", False),         # 'but' ends the refusal's reach
    ("别给我们安排靠窗的位子。", "靠窗", True),
    ("千万别安排在吧台。", "吧台", True),
    ("我不要包间要靠窗。", "靠窗", False),
    ("我不要包间，靠窗就行。", "靠窗", False),                 # another clause
])
def test_a_refusal_reaches_its_value_within_the_clause(text, word, refused):
    lang = language_of(text)
    assert refused_before(text, _at(text, word)[0], lang) is refused


@pytest.mark.parametrize("text, word, disliked", [
    ("Highways make me nervous.", "highways", True),
    ("高速太吓人了。", "高速", True),
    ("The highway was quiet this morning.", "highway", False),
])
def test_a_dislike_after_its_value(text, word, disliked):
    assert disliked_after(text, _at(text, word)[1], language_of(text)) is disliked


@pytest.mark.parametrize("text, word, asked", [
    ("Do I avoid highways?", "highways", True),
    ("还走高速吗？", "高速", True),
    ("Could you set it to 21 degrees?", "21", False),        # a request worded as a question
    ("我妈妈坐轮椅，你们那边方便吗？", "轮椅", False),           # the question is the other clause
    ("Keep it at 21 degrees.", "21", False),
])
def test_a_question_is_told_from_a_request(text, word, asked):
    assert asks(text, *_at(text, word), language_of(text)) is asked
