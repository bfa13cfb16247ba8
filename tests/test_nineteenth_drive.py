"""What users said in English and Mandarin (2026-12-07, nineteenth test drive) and was misread.

- Left from the eighteenth drive: the sides of the car were one. "crack the driver's window a little" put every
  window partway down; 把副驾的窗户关上，主驾的打开 closed all the windows; 我这边的窗户开条缝透透气，副驾那边别动
  opened them all; 我媳妇说她那边座椅加热开一下 switched on the driver's seat heating.
"""

from __future__ import annotations

import pytest

from monologue.memory.domain.schema import load_schema

from fakes import policy_replies, rules_read

# --- one side of the car ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "read"), [
    ("can you crack the driver's window a little", {"driver_window": ["partly_open"]}),
    ("open my window a bit", {"driver_window": ["partly_open"]}),
    ("roll down the back windows for the dog", {"rear_windows": ["open"]}),
    ("the passenger side window, can you put it down a bit", {"passenger_window": ["partly_open"]}),
    ("close the passenger window and open mine", {"passenger_window": ["closed"], "driver_window": ["open"]}),
    ("把副驾的窗户关上，主驾的打开", {"passenger_window": ["closed"], "driver_window": ["open"]}),
    ("我这边的窗户开条缝透透气，副驾那边别动", {"driver_window": ["partly_open"]}),
    ("后排的窗户开一半", {"rear_windows": ["partly_open"]}),
    ("我媳妇说她那边座椅加热开一下", {"passenger_seat_heating": ["on"]}),
    ("and heat the passenger seat too", {"passenger_seat_heating": ["on"]}),
    ("the kids in the back are freezing, can you turn on their seat heating", {"rear_seat_heating": ["on"]}),
    ("把副驾的座椅往后挪一挪", {"passenger_seat": ["back"]}),
    # (the whole, said plainly or as all of it, is every side: the driver's own seat is the seat)
    ("close the windows", {"window": ["closed"]}),
    ("两边都关上", {}),
    ("主驾座椅往前一点", {"seat_position": ["forward"]}),
    ("turn on my seat heater", {"seat_heating": ["on"]}),
])
def test_a_command_for_one_side_of_the_car_is_that_sides(said: str, read: dict[str, list[object]]) -> None:
    got = rules_read("in_car", said)
    assert got == read


async def test_each_side_is_done_and_said_apart_and_the_whole_lets_the_sides_go() -> None:
    zh = await policy_replies("zh", ["把副驾的窗户关上，主驾的打开", "两边都关上"], "in_car")
    assert "主驾车窗已经打开" in zh[0].text and "副驾车窗已经关上" in zh[0].text, zh[0].text
    assert "车窗已经关上" in zh[1].text and "主驾" not in zh[1].text, zh[1].text
    lines = ["open the passenger window halfway", "close it again", "is the passenger window up?", "shut all of them",
             "are the windows open?"]
    en = await policy_replies("en", lines, "in_car")
    assert "passenger window partway down" in en[0].text, en[0].text
    assert "passenger window up" in en[1].text, en[1].text
    assert en[2].text.startswith("Yes") and "passenger window" in en[2].text, en[2].text
    assert "I've put the windows up" in en[3].text, en[3].text
    assert "up" in en[4].text and "passenger" not in en[4].text, en[4].text


async def test_a_side_is_asked_about_by_its_own_name() -> None:
    en = await policy_replies("en", ["heat the passenger seat", "is the passenger seat heating on?"], "in_car")
    assert en[1].text.startswith("Yes") and "passenger seat heating" in en[1].text, en[1].text
    zh = await policy_replies("zh", ["副驾的座椅加热开一下", "副驾座椅加热开着吗"], "in_car")
    assert "副驾座椅加热" in zh[1].text and zh[1].text.startswith("对"), zh[1].text


def test_a_sides_key_and_action_are_said_of_that_side() -> None:
    schema = load_schema("in_car")
    passenger = schema.key("passenger_window")
    assert passenger.side_of == "window" and passenger.values == schema.key("window").values
    assert passenger.phrase("=", "zh") == "副驾车窗{value}"
    action = schema.actions["set_windows:passenger_window"]
    assert action.triggers == ("passenger_window",)
    assert action.said["en"] == "put the passenger window {passenger_window}"
    assert "passenger_window" not in schema.keys        # (no reader reads a side by itself)
    assert not schema.key("passenger_seat").durable     # (the passenger's seat is no lasting wish of the driver's)
