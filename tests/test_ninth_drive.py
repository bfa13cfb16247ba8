"""What new users said in Mandarin and English (2026-12-06, ninth test drive) and was misread.

- The car: 调到交通广播, 帮我看看 were "嗯，明白" / "好的。" and nothing was done: a request in which nothing
  was read is said not to be understood, never nodded at as if done; said twice, the user is asked to
  say it another way (it had been "再确认一下：抱歉，我没太听明白…").
- The car: "ok cool", 好吧, "let's go" after the seat heating went on were "I didn't quite get what you
  need": a nod after what was done is nodded back.
- The car: 开到最热, "put it on the hottest" just after the seat heating went on were "嗯，明白": the
  seat heating is only on or off, and is told so.
- The car in English: "hmm actually make that 23, my wife's cold" just after the cabin was set to 21 set the
  route for "23" (a number alone is no address; a bare number put right is the quantity said last, in its
  range); "make it a coffee shop instead" after the gas station was "all set"; "close them actually" after
  the windows went down asked "do you mean the windows?"; "that's too loud, bring it down to like 5" just
  after the music asked for a cabin temperature; "let's do tolls, I'm in a hurry" kept no tolls, and the
  one-off "toll road" was read back beside "no tolls".
- The table: "oh wait, 8 is too late, make it 7" made the party 7 (the value named before the number is
  the one put right).
- Customer service: "oh wait, it's 503 555 1289" just after phone 503 555 1288 became the order number;
  "order number A as in apple, 7 7 3 9 1" lost the A; "okay just cancel it then" after the ticket was called
  off (a cancellation held) was "I won't open a ticket"; "yes, please process it" was a note, not a yes;
  "forget it, … cancel the request" to "…or shall I have the order cancelled?" chose a cancellation;
  "could I just get a new one instead of a repair" kept the repair ("instead of a repair" had been read as
  "a" put right to "repair").
- The car: "tune to NPR", "tune into 98.5", 收听交通广播 ask for a station; 98.5 had been 98. "switch to the
  radio", 换成电台吧 put it on, and "change the station", 换个台 move on.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- the car --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "unclear", "again"), [
    ("zh", ["座椅加热开一下", "调到交通广播", "帮我看看"], "没太听明白", "换个说法"),
    ("en", ["turn the seat heater on", "set it up for me", "can you set that up"], "didn't quite get", "another way"),
])
async def test_a_request_not_understood_is_not_nodded_at(language: str, lines: list[str], unclear: str,
                                                         again: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert unclear in replies[1].text
    assert again in replies[2].text and "再确认" not in replies[2].text and "check again" not in replies[2].text


@pytest.mark.parametrize(("language", "lines"), [
    ("zh", ["座椅加热开一下", "好吧"]),
    ("zh", ["座椅加热开一下", "走吧"]),
    ("en", ["turn the seat heater on", "ok cool"]),
    ("en", ["turn the seat heater on", "let's go"]),
])
async def test_a_nod_after_a_control_is_nodded_back(language: str, lines: list[str]) -> None:
    replies = await _chat(language, lines, "in_car")
    assert "没太听明白" not in replies[-1].text and "didn't quite get" not in replies[-1].text
    assert len(replies[-1].text) < 30


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["座椅加热开一下", "开到最热"], "只能开或关"),
    ("en", ["turn the seat heater on", "put it on the hottest"], "only on or off"),
])
async def test_the_hottest_for_a_switch_is_told_it_has_no_levels(language: str, lines: list[str],
                                                                 expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert expected in replies[-1].text


@pytest.mark.parametrize(("language", "text", "expected"), [
    ("en", "tune to NPR", "NPR"),
    ("en", "tune into 98.5 please", "98.5"),
    ("zh", "收听交通广播", "交通广播"),
    ("en", "switch to the radio", "music"),
    ("zh", "换成电台吧", "音乐"),
])
async def test_a_station_asked_for_is_played(language: str, text: str, expected: str) -> None:
    replies = await _chat(language, [text], "in_car")
    assert expected in replies[-1].text
    assert "playing" in replies[-1].text or "播放" in replies[-1].text


@pytest.mark.parametrize(("language", "text"), [("en", "change the station"), ("zh", "换个台")])
async def test_another_station_moves_on(language: str, text: str) -> None:
    replies = await _chat(language, ["play some jazz", text] if language == "en" else ["放点爵士乐", text], "in_car")
    assert "next song" in replies[-1].text or "下一首" in replies[-1].text


@pytest.mark.parametrize(("lines", "expected", "not_expected"), [
    (["take me to 450 Market Street", "set the temperature to 21 please", "hmm actually make that 23, my wife's cold"],
     "23 degrees", "route for 23"),
    (["set the temperature to 21 please", "actually 24"], "24 degrees", "route"),
    (["take me to the nearest gas station", "actually no wait, make it a coffee shop instead"], "coffee shop",
     "all set"),
    (["can you crack the windows", "close them actually, it's raining"], "windows up", "Do you mean"),
    (["play some jazz", "turn it up a little", "no, that's too loud, bring it down to like 5"], "volume down",
     "temperature"),
    (["find me a route to Boston, avoid tolls if you can", "actually, let's do tolls, I'm in a hurry"],
     "toll road this time", "no tolls"),
])
async def test_what_the_driver_put_right_is_put_right(lines: list[str], expected: str, not_expected: str) -> None:
    replies = await _chat("en", lines, "in_car")
    assert expected in replies[-1].text and not_expected not in replies[-1].text


async def test_a_number_alone_is_no_address_and_the_cabin_is_still_asked_warmer() -> None:
    replies = await _chat("en", ["set the temperature to 22", "bring it down"], "in_car")
    assert "21 degrees" in replies[-1].text
    replies = await _chat("en", ["play some jazz", "warm it up"], "in_car")
    assert "temperature" in replies[-1].text


async def test_the_zh_one_off_toll_road_is_read_back_alone() -> None:
    replies = await _chat("zh", ["导航去天津，不走收费", "今天走收费的路吧"], "in_car")
    assert "这次走收费的路" in replies[-1].text and "不走收费" not in replies[-1].text


# --- the table ------------------------------------------------------------------------------------

async def test_the_value_named_before_a_bare_number_is_the_one_put_right() -> None:
    replies = await _chat("en", ["I need a French restaurant on February 14th", "two people, 8 pm",
                                 "oh wait, 8 is too late, make it 7"], "restaurant")
    args = replies[-1].decision["args"]
    assert args["time"] == "19:00" and args["party_size"] == 2


# --- customer service -----------------------------------------------------------------------------

async def test_a_phone_put_right_by_a_digit_stays_the_phone() -> None:
    replies = await _chat("en", ["so I ordered headphones and they never arrived",
                                 "order number A as in apple, 7 7 3 9 1", "I just want my money back",
                                 "can you send the confirmation to my phone, it's 503 555 1288",
                                 "oh wait, it's 503 555 1289"], "customer_service")
    assert "order A77391" in replies[-1].text and "phone 5035551289" in replies[-1].text


async def test_cancel_it_after_the_ticket_was_called_off_takes_the_cancellation_up_again() -> None:
    replies = await _chat("en", ["hey I need to cancel an order", "it's order 55902",
                                 "uh, I changed my mind, I don't need it anymore", "okay just cancel it then",
                                 "yes, confirm the cancellation"], "customer_service")
    assert "a cancellation; shall I open a ticket?" in replies[-2].text
    assert "opened ticket" in replies[-1].text


async def test_please_process_it_is_a_yes() -> None:
    replies = await _chat("en", ["I was charged twice for order 12873", "I just want the extra charge refunded",
                                 "and phone 617 555 4402", "yes, please process it"], "customer_service")
    assert "opened ticket" in replies[-1].text and "process it" not in replies[-1].text


async def test_cancel_the_request_calls_it_off_and_chooses_no_cancellation() -> None:
    replies = await _chat("en", ["my package came with a missing part", "order 40088",
                                 "hmm, actually, forget it, I'll buy one myself, cancel the request"],
                          "customer_service")
    assert "won't open a ticket" in replies[-1].text


async def test_a_new_one_instead_of_a_repair_is_an_exchange() -> None:
    replies = await _chat("en", ["order number is 30417", "can you get it repaired",
                                 "hmm actually, could I just get a new one instead of a repair"], "customer_service")
    assert "exchange" in replies[-1].text and "repair" not in replies[-1].text
