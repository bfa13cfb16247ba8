"""What users said in English and Mandarin (2026-12-07, twelfth test drive) and was misread.

- The car: "no wait, the Getty Center after all" and 算了，还是颐和园吧 went back to nothing (a place chosen again,
  by its name alone, with a word of choosing); "forget the station, take me to the airport" cancelled the route
  (a new value in a clause of its own after the one dropped is the replacement), though "cancel the route, I'll
  drive home myself" still sets no route home; "take off the pharmacy, I'll do it tomorrow" kept the stop and
  dated the trip tomorrow; "close the windows, actually open them halfway" opened them all the way.
- Customer service: "I paid one fifty nine" was "I see." ($1.59 or $159: asked which); "I paid a hundred and
  fifty nine dollars" was not heard as a sum at all (its whole number was not found in the words); "how much did
  I pay?" was "I'm not sure about that"; "just cancel the order and refund me" took the resolution back (the
  cancellation is asked for, and brings the money back); 多扣了一百九十九块九 was ¥99.
- Codes said with their letters apart: "H X, five five oh seven two one" was 550721, "K L nine three zero zero six
  one" L930061, "B T 44912, no wait, B T 44913" T44912, "R V G four four one nine" nothing, A K 幺零二四 七七八三
  K1024; W X 七 三 零 五 八 二 一 and 订单号 五 五 二 零 九 一 三 四 六 八 (each digit apart) were not read, and
  八六零三 二九一七 五五 lost its last two.
- The table: "where's that one?" booked the place offered (a question about the offer is no yes).
- The read-back: "So far I have you down order 739908, …" and "…down with a stop at a pharmacy" now say "for".
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- going back, dropping and replacing ---------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["take me to the Getty Center", "actually Santa Monica Pier instead", "no wait, the Getty Center after all",
            "where to?"], "Getty Center"),
    ("en", ["take me to the Getty Center", "actually Santa Monica Pier instead", "hmm, let's do the Getty Center",
            "where to?"], "Getty Center"),
    ("zh", ["去颐和园", "还是去故宫吧", "算了，还是颐和园吧", "目的地是哪"], "颐和园"),
])
async def test_a_place_chosen_again_by_its_name_is_where_to(language: str, lines: list[str], said: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert said in replies[2].text
    assert said in replies[3].text


async def test_chosen_again_is_no_place_where_none_is_said() -> None:
    replies = await _chat("zh", ["去颐和园", "还是快一点吧", "目的地是哪"], "in_car")
    assert "颐和园" in replies[2].text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["take me to the train station", "forget the station, take me to the airport"], "the airport"),
    ("zh", ["去火车站", "火车站不去了，去机场"], "机场"),
])
async def test_a_place_said_after_the_one_dropped_replaces_it(language: str, lines: list[str], said: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert said in replies[1].text


@pytest.mark.parametrize(("language", "lines"), [
    ("en", ["take me to the train station", "cancel the route, I'll drive home myself"]),
    ("zh", ["去火车站", "导航取消吧，我自己回家"]),
])
async def test_going_on_ones_own_sets_no_route(language: str, lines: list[str]) -> None:
    replies = await _chat(language, lines, "in_car")
    assert "home" not in replies[1].text and "家" not in replies[1].text


async def test_a_stop_taken_off_for_another_day_dates_no_trip() -> None:
    replies = await _chat("en", ["take me to Union Square, with a stop at a pharmacy",
                                 "take off the pharmacy, I'll do it tomorrow", "what's the plan?"], "in_car")
    assert "tomorrow" not in replies[2].text and "pharmacy" not in replies[2].text
    assert "Union Square" in replies[2].text


def test_the_errands_day_is_no_trip_date() -> None:
    assert "trip_date" not in rules_read("in_car", "药店不去了，明天再去")
    assert rules_read("in_car", "let's go tomorrow morning") == {"trip_date": ["tomorrow"]}


@pytest.mark.parametrize("text", ["close the windows, actually open them halfway", "open them halfway",
                                  "open it a little"])
def test_a_window_opened_part_of_the_way_by_a_pronoun(text: str) -> None:
    assert rules_read("in_car", text, {"window": "open"}).get("window") == ["partly_open"]


def test_halfway_there_is_still_no_window() -> None:
    assert "window" not in rules_read("in_car", "are we halfway there", {"window": "open"})


# --- sums -----------------------------------------------------------------------------------------

async def test_a_sum_that_reads_two_ways_is_asked_about() -> None:
    replies = await _chat("en", ["my order 551907 came broken, I want a refund", "I paid one fifty nine",
                                 "one hundred fifty nine dollars", "how much did I pay?"], "customer_service")
    assert "$1.59 or $159" in replies[1].text
    assert "$159" in replies[2].text
    assert "$159" in replies[3].text


@pytest.mark.parametrize("text", ["I paid a hundred and fifty nine bucks", "it cost me one hundred fifty nine dollars"])
async def test_a_sum_with_its_hundreds_in_words_is_heard(text: str) -> None:
    replies = await _chat("en", ["my order 551907 came broken, I want a refund", text], "customer_service")
    assert "$159" in replies[1].text


@pytest.mark.parametrize(("language", "line", "said"), [
    ("en", "how much did I pay?", "I don't have the amount yet"),
    ("zh", "我花了多少钱来着？", "金额还没定"),
])
async def test_asked_what_was_paid_with_none_said(language: str, line: str, said: str) -> None:
    first = "my order 551907 came broken, I want a refund" if language == "en" else "订单551907坏了，我要退款"
    replies = await _chat(language, [first, line], "customer_service")
    assert said in replies[1].text


@pytest.mark.parametrize(("text", "expected"), [("多扣了一百九十九块九", 199.9), ("多收了我两百块", 200),
                                                ("六十九块五", 69.5)])
def test_an_extra_charge_in_chinese_keeps_its_hundreds_and_tenths(text: str, expected: float) -> None:
    assert rules_read("customer_service", text).get("amount") == [expected]


# --- what the customer wants done ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["you know what, just cancel the order and refund me",
                                  "cancel the order, and give me my money back"])
async def test_cancelling_with_the_money_back_is_a_cancellation(text: str) -> None:
    replies = await _chat("en", ["my telescope never arrived, order 739908, can you trace it?", text,
                                 "what are you doing for me?"], "customer_service")
    assert "cancellation" in replies[1].text
    assert "So far I have you down for order 739908" in replies[2].text


def test_forgetting_a_resolution_still_takes_it_back() -> None:
    assert "resolution" not in rules_read("customer_service", "forget the exchange", {"resolution": "exchange"})


# --- codes ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("the order number is H X, five five oh seven two one", "HX550721"),
    ("the order number is K L nine three zero zero six one", "KL930061"),
    ("order B T 44912, no wait, B T 44913", "BT44913"),
    ("order is R U G, no sorry, it's R V G four four one nine", "RVG4419"),
    ("订单号是 A K 幺零二四 七七八三", "AK10247783"),
    ("订单号 W X 七 三 零 五 八 二 一", "WX7305821"),
    ("订单号 五 五 二 零 九 一 三 四 六 八", "5520913468"),
    ("订单号八六零三 二九一七 五五", "8603291755"),
])
def test_a_code_said_with_its_letters_or_digits_apart(text: str, expected: str) -> None:
    assert rules_read("customer_service", text).get("order_id") == [expected]


@pytest.mark.parametrize("text", ["Terminal B, 5 minutes away", "我电话一三九零零，两个人"])
def test_a_letter_or_a_count_beside_digits_joins_no_code(text: str) -> None:
    assert rules_read("customer_service", text).get("order_id") in (None, [])


async def test_a_code_with_its_letters_apart_opens_the_ticket_on_it() -> None:
    replies = await _chat("en", ["my headphones crackle in the left ear", "the order number is H X, five five oh "
                                 "seven two one", "can you get them repaired?", "yep, open it"], "customer_service")
    assert "order HX550721" in replies[3].text


# --- the offer ----------------------------------------------------------------------------------------

async def test_a_question_about_the_offer_books_nothing() -> None:
    replies = await _chat("en", ["Indian food for 12 on the 22nd of next month around 8 pm", "where's that one?",
                                 "that one sounds good, book it"], "restaurant")
    assert "booked" not in replies[1].text and "Midtown" in replies[1].text
    assert "booked" in replies[2].text


async def test_a_summary_of_a_stop_alone_reads_for_it() -> None:
    replies = await _chat("en", ["stop at a pharmacy on the way", "what's the plan?"], "in_car")
    assert "So far I have you down for a stop at a pharmacy" in replies[1].text
