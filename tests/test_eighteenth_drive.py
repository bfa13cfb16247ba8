"""What users said in English and Mandarin (2026-12-07, eighteenth test drive) and was misread.

- Left from the seventeenth drive: "a little more, like two degrees" moved the cabin one degree; "pick up my
  buddy Mike on Oak Street" added no stop, and "my phone's on the back seat" moved the seat back and turned its
  heating on; "grab coffee on the way, stop at a Starbucks" made two stops of one; "I need gas" was no stop;
  "turn the heater on" switched the seat heating on, and "put the heat on", 暖风开一下 did nothing;
  订单JD88213取消吧 cancelled nothing (the number said inside 订单取消); 换货要多久？运费谁出？ got the same
  explanation twice; 鞋子小了想换大一号 noted 鞋子小了想; 不太辣的 was kept as 不太辣的.
"""

from __future__ import annotations

import pytest

from fakes import policy_replies, rules_read

# --- how much, said in a clause of its own -------------------------------------------------------------------


@pytest.mark.parametrize(("said", "held", "read"), [
    ("hmm, a little more, like two degrees", {"temperature": 21}, {"temperature": [23]}),
    ("cooler please, maybe three degrees or so", {"temperature": 21}, {"temperature": [18]}),
    ("再低点，三度左右", {"temperature": 21}, {"temperature": [18]}),
    ("温度调高一点，大概两度", {"temperature": 21}, {"temperature": [23]}),
    ("a bit warmer, say two degrees", {}, {"temperature_step": ["two_warmer"]}),
    ("有点冷，两度吧", {}, {"temperature_step": ["two_warmer"]}),
    # (a number in the key's range is the value wanted, not how much it moves)
    ("warmer, 24 degrees", {"temperature": 21}, {"temperature": [24]}),
])
def test_an_amount_said_after_the_change_is_how_much_it_moves(said: str, held: dict[str, object],
                                                             read: dict[str, list[object]]) -> None:
    got = rules_read("in_car", said, held)
    assert {key: got.get(key) for key in read} == read


# --- stops said with whom they are for -----------------------------------------------------------------------


@pytest.mark.parametrize(("said", "stops"), [
    ("pick up my buddy Mike on Oak Street", ["Oak Street"]),
    ("we have to pick Sarah up at the library on the way", ["library"]),
    ("collect my daughter from Lincoln Elementary first", ["Lincoln Elementary"]),
    ("oh and we need to grab coffee on the way, stop at a Starbucks", ["Starbucks"]),
    ("路上买杯咖啡，在星巴克停一下", ["星巴克"]),
    ("I need gas", ["fuel"]),
    ("we're running low on gas", ["fuel"]),
])
def test_a_stop_said_with_what_it_is_for(said: str, stops: list[str]) -> None:
    assert rules_read("in_car", said).get("stops") == stops


@pytest.mark.parametrize("said", ["grab coffee and then stop at Walmart", "I need gas, then a stop at Walmart"])
def test_a_kind_of_place_and_one_more_named_are_two_stops(said: str) -> None:
    assert len(rules_read("in_car", said).get("stops") or []) == 2


@pytest.mark.parametrize("said", ["pick up my jacket on the back seat", "my phone is on the back seat",
                                  "grab my bag from the back seat", "手机在后座上"])
def test_the_back_seat_is_a_place_in_the_car_not_a_command(said: str) -> None:
    assert rules_read("in_car", said) == {}


# --- the heater ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "read"), [
    ("turn the heater on", {"heating": ["on"]}),
    ("put the heat on", {"heating": ["on"]}),
    ("turn off the heat", {"heating": ["off"]}),
    ("暖风开一下", {"heating": ["on"]}),
    ("暖气关了吧", {"heating": ["off"]}),
    ("seat heater on", {"seat_heating": ["on"]}),
    ("turn up the heat on my seat", {"seat_heating": ["on"]}),
    ("turn the heater and the seat heating on", {"heating": ["on"], "seat_heating": ["on"]}),
    ("turn the seat heater and the AC off", {"air_conditioning": ["off"], "seat_heating": ["off"]}),
    ("turn the heat up", {"temperature_step": ["warmer"]}),
])
def test_the_heater_is_a_control_of_its_own(said: str, read: dict[str, list[str]]) -> None:
    assert rules_read("in_car", said) == read


async def test_the_heater_switched_on_is_said_so() -> None:
    replies = await policy_replies("zh", ["暖风开一下"], "in_car")
    assert "暖风" in replies[-1].text and "打开" in replies[-1].text


# --- an order's number inside the words of what is wanted ----------------------------------------------------


@pytest.mark.parametrize("said", ["订单JD88213取消吧", "订单JD88213取消吧，把钱退我", "单子 88213 要取消"])
def test_a_number_said_inside_the_words_of_a_cancellation(said: str) -> None:
    read = rules_read("customer_service", said)
    assert read.get("resolution") == ["cancel"] and read.get("order_id")


# --- two questions it cannot answer, one explanation ---------------------------------------------------------


@pytest.mark.parametrize(("language", "lines", "said", "once"), [
    ("zh", ["我的订单JD77120，鞋子小了想换大一号", "换货要多久？运费谁出？"], ["处理要多久和费用"], "同事会告诉你"),
    ("en", ["my order 55123 arrived with a cracked screen, I want an exchange",
            "how long will the exchange take? and do I have to pay for shipping?"],
     ["how long that takes or what that costs"], "will tell you"),
])
async def test_two_things_it_cannot_see_are_said_in_one_sentence(language: str, lines: list[str], said: list[str],
                                                                 once: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert all(s in replies[-1].text for s in said) and replies[-1].text.count(once) == 1


# --- what is noted -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "notes"), [
    ("我的订单JD77120，鞋子小了想换大一号", ["换大一号", "鞋子小了"]),
    ("衣服颜色不对所以想换货", ["衣服颜色不对"]),
])
def test_the_want_that_leads_to_a_value_is_no_part_of_the_note(said: str, notes: list[str]) -> None:
    assert rules_read("customer_service", said).get("problem_details") == notes


@pytest.mark.parametrize(("said", "wish"), [("要不太辣的", ["不太辣"]), ("最好是安静一点的", ["安静一点"])])
def test_a_wish_said_as_the_one_that_is_so_keeps_what_it_is(said: str, wish: list[str]) -> None:
    assert rules_read("restaurant", said).get("wishes") == wish
