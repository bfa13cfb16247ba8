"""What users said in English and Mandarin (2026-12-07, seventeenth test drive) and was misread.

- "Italian or Sichuan, either is fine", "we'd like Italian or maybe Mexican" kept the last named: of values
  said as alternatives, one is enough, the one the option on offer already has, else the first said.
"""

from __future__ import annotations

import pytest

from fakes import policy_replies, rules_read

# --- alternatives ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "cuisine"), [
    ("Italian or Sichuan, either is fine", "italian"),
    ("we'd like Italian or maybe Mexican", "italian"),
    ("either Thai or Indian, whatever's easier", "thai"),
    ("川菜或者粤菜都可以", "sichuan"),
    ("Italian, or no, Mexican", "mexican"),
])
def test_of_values_said_as_alternatives_one_is_kept(said: str, cuisine: str) -> None:
    assert rules_read("restaurant", said, {"date": "tomorrow", "party_size": 2}).get("cuisine") == [cuisine]


async def test_an_alternative_the_offered_place_has_keeps_the_offer() -> None:
    replies = await policy_replies("en", ["a table for two tomorrow at 7", "Italian or Sichuan, either is fine",
                                          "yes please"], "restaurant")
    assert "Chili House" in replies[0].text and "Chili House" in replies[-1].text


# --- a place said alone after the held one is refused ---------------------------------------------------------


@pytest.mark.parametrize(("said", "read"), [
    ("别火车站了，家吧", ["home"]), ("家吧", ["home"]), ("这家吧", None), ("大家都饿了", None), ("家里冷不冷", None),
])
def test_home_said_alone_is_where_to_go(said: str, read: list[str] | None) -> None:
    assert rules_read("in_car", said, {"destination": "station"}).get("destination") == read


async def test_a_place_wanted_after_the_held_one_is_refused_is_a_change() -> None:
    replies = await policy_replies("zh", ["导航去火车站", "别火车站了，家吧"], "in_car")
    assert "家" in replies[-1].text and "取消" not in replies[-1].text and "要改成" not in replies[-1].text


@pytest.mark.parametrize("said", ["不要退款了，给我换个大一号的", "I don't want a refund, a size up would be great"])
def test_a_resolution_refused_leaves_room_for_the_one_wanted(said: str) -> None:
    read = rules_read("customer_service", said, {"order_id": "A12345", "resolution": "refund"})
    assert read.get("resolution") == ["exchange"]


# --- a stop taken off the route -------------------------------------------------------------------------------


@pytest.mark.parametrize("said", ["forget about the stop, it does not matter", "skip the stop", "cancel the stop",
                                  "we don't need that stop anymore", "no need to stop anymore", "中途不用停了",
                                  "不用停了"])
def test_a_stop_taken_back_in_the_singular_or_by_not_stopping(said: str) -> None:
    from fakes import rules_ops
    assert ("withdraw", "stops") in rules_ops("in_car", said, {"destination": "school", "stops": "charging"})


def test_no_need_to_stop_with_music_and_no_stop_held_is_still_the_music() -> None:
    from fakes import rules_ops
    assert ("withdraw", "media") in rules_ops("in_car", "不用停了", {"destination": "school", "media": "playing"})


@pytest.mark.parametrize(("language", "lines", "said", "not_said"), [
    ("en", ["navigate to school, arriving by 11:30, with a stop at a charging station",
            "forget about the stop, it does not matter"], "The route is now for school, arriving by 11:30 am", "Done"),
    ("zh", ["导航去学校，中途在充电站停一下", "中途不用停了"], "路线现在是：去学校", "途经充电站"),
])
async def test_the_route_is_set_again_without_the_stop_taken_off(language: str, lines: list[str], said: str,
                                                                 not_said: str) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert said in replies[-1].text and not_said not in replies[-1].text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["navigate to school, arriving by 11:30, with a stop at a charging station", "what route do you have?"],
     ["school", "11:30", "charging"]),
    ("zh", ["导航去学校，十一点半前到，中途在充电站停一下", "路线是怎么设的？"], ["学校", "11点半", "充电站"]),
])
async def test_a_question_about_the_route_says_all_of_it(language: str, lines: list[str], said: list[str]) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert all(word in replies[-1].text for word in said)


# --- one more coming; a question of "you guys" ---------------------------------------------------------------


@pytest.mark.parametrize("said", ["my brother's coming too", "actually my brother's gonna tag along too",
                                  "my sister will join us", "my wife's coming along",
                                  "oh and my dad is gonna come as well"])
def test_one_more_coming_in_everyday_words(said: str) -> None:
    assert rules_read("restaurant", said, {"date": "friday", "party_size": 2, "time": "20:00"}).get(
        "party_size") == [3]


@pytest.mark.parametrize("said", ["is my brother coming?", "my brother's coming to pick us up"])
def test_someone_coming_for_another_reason_is_no_one_more(said: str) -> None:
    assert "party_size" not in rules_read("restaurant", said, {"date": "friday", "party_size": 2, "time": "20:00"})


@pytest.mark.parametrize(("said", "place"), [("do you guys know any good italian places?", "Luigi's Trattoria"),
                                             ("hi, do you guys know any good sushi places around here?", "Sakura"),
                                             ("do y'all have any Thai places?", "Bangkok Garden")])
async def test_a_question_asked_of_you_guys_asks_for_a_place(said: str, place: str) -> None:
    replies = await policy_replies("en", [said], "restaurant")
    assert place in replies[-1].text
