"""What users said in Mandarin and English (2026-12-06, eleventh test drive) and was misread.

- The table: "change it from 7 to 8.30" held 8 pm (a decimal said of a time held is its hour and minutes);
  "Make the booking for eight in the evening", asked what time, was a party of eight.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- times ----------------------------------------------------------------------------------------

async def test_a_decimal_put_in_place_of_a_time_held_is_a_time() -> None:
    replies = await _chat("en", ["book Luigi's for 4 people tomorrow at 7 pm", "change it from 7 to 8.30",
                                 "actually move it from 8.30 to 9.15"], "restaurant")
    assert "8:30 pm" in replies[1].text
    assert "9:15 pm" in replies[2].text


def test_a_decimal_alone_is_still_no_time() -> None:
    assert "time" not in rules_read("restaurant", "the bill was 8.30 I think")


async def test_for_n_in_the_evening_answers_what_time() -> None:
    replies = await _chat("en", ["I want Luigi's tomorrow", "Make the booking for eight in the evening",
                                 "and it's a table for four"], "restaurant")
    assert "How many" in replies[1].text
    assert "8 pm for 4 people" in replies[2].text


def test_a_table_for_n_in_the_evening_unasked_is_still_a_party() -> None:
    read = rules_read("restaurant", "a table for two in the evening")
    assert read["party_size"] == [2]
    assert "time" not in read
