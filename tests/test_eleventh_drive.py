"""What users said in Mandarin and English (2026-12-06, eleventh test drive) and was misread.

- The table: "change it from 7 to 8.30" held 8 pm (a decimal said of a time held is its hour and minutes);
  "Make the booking for eight in the evening", asked what time, was a party of eight.
- The car: "set the fan to three", 风量调到三档, "volume to 15", 音量调到二十 set nothing or only "up" (a control
  set to a level holds the level; a step then moves it; "what's the fan on?" is answered with it).
- The car: 车里还是有点冷，再暖和一点 and 有点热，凉快一点 with no temperature set asked "温度调到多少度？" and the
  cabin was never warmed or cooled (a change with nothing held is a step from wherever the car is).
- The car: "can you set the temperature" was "Hi! What can I do for you?" and "can you adjust the seat" was not
  understood (a control named to be set, with no value, is asked about).
- The car: "roll down my window halfway" opened the windows all the way (part of the way is a value of its own).
- The car: "can we pick up my sister in Truckee on the way" and "drop my wife off at Union Station" added no stop (the
  second withdrew the air conditioning); "drop by a pharmacy" withdrew the pharmacy; "fan two" and "set the cabin to
  seventy four" did nothing; 风速开大一档 and 音量调低两格 (once levels were read) set level 1 and level 2.
- Customer service: "it was eighty nine ninety nine", "I paid forty two fifty", 六十九块五, 钱是三千二百九十九 lost the
  sum or its cents; "can I cancel order 5 5 1 9 0 7" withdrew the order number; "order is 6 0 0 4 1 8, hmm no sorry,
  6 0 0 4 8 1" kept the first; 电话打13912340000，哦不对，最后四位是5678 rewrote the order number held.
- The table: "name Brandt", "the reservation is for Fitzgerald" and 大人两个，再带一个小孩 were not read;
  "we're thinking Korean barbecue tonight" was "Hi! What can I do for you?".
- The car: "mute it for a sec, I gotta take a call" asked "Do you mean the volume?" and "unmute it" was "I see.";
  "let's skip the freeway" kept nothing; "avoid highways", then "wait, highways are fine, just no tolls" kept no
  highways; 放首摇滚提提神 played "摇滚提提神"; "recline it a little" was "moved the seat recline"; an arrival time was
  said as "the route for home at 6:30 pm". Customer service: "great, thanks, submit" opened no ticket.
- The car: "I'm heading over to my mom's, it's on Birchwood Lane in Fairview" set no route. The table: 下个月三号 was
  no date. Customer service: "priya underscore r ninety nine at hotmail dot com" was nine@hotmail.com; "call me
  tomorrow at 10am" was a call at 10 pm, and 明天上午十点打电话给我 made tomorrow the delivery date.
- A review of these fixes found them too wide; these must stay as they were: "a bit more", "are we halfway there",
  还有一半路 move no window; "close the window it's a bit cold" closes it; "don't make it warmer", 温度别太高, "the
  engine is too hot", "let's drop it" move no cabin, and "turn up the heat on my seat" is the seat's; "pick up my mom
  in Oakland and then go to the airport" still goes to the airport; "three hundred twenty" is 320; "it was 5 items",
  一共两件 are no sums; "the name escapes me", "the reservation is for dinner" name nobody; 两个大人，孩子三个月大 is
  two; "fan up two notches" guesses no level; "the temperature is fine, don't change it" asks nothing; "a table for
  eight in the evening" is still a party; "turn the radio back on" is the music.
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


# --- a control set to a level -----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "key", "expected"), [
    ("set the fan to three", "fan_level", 3),
    ("fan on level 2 please", "fan_level", 2),
    ("turn the fan up to 4", "fan_level", 4),
    ("volume to 15", "volume_level", 15),
    ("turn the volume up to twenty", "volume_level", 20),
    ("风量调到三档", "fan_level", 3),
    ("空调风开到二档", "fan_level", 2),
    ("音量调大到二十", "volume_level", 20),
    ("声音开到15", "volume_level", 15),
])
def test_a_control_set_to_a_level(text: str, key: str, expected: int) -> None:
    read = rules_read("in_car", text)
    assert read[key] == [expected]
    assert "fan_speed" not in read and "volume" not in read     # the step said on the way is no second change


def test_each_control_keeps_its_own_level() -> None:
    read = rules_read("in_car", "turn the fan up and the volume to 10")
    assert read == {"fan_speed": ["up"], "volume_level": [10]}
    assert rules_read("in_car", "温度调到24度，风量调到2档") == {"temperature": [24], "fan_level": [2]}


def test_a_number_named_for_another_control_is_still_not_the_temperature() -> None:
    assert rules_read("in_car", "turn the fan on for 5 minutes") == {}


async def test_a_step_moves_the_level_held() -> None:
    replies = await _chat("en", ["set the fan to three", "a bit more", "turn the fan down", "what's the fan on?",
                                 "volume to 15 please", "louder", "mute it"], "in_car")
    said = [r.text for r in replies]
    assert "level 3" in said[0] and "level 4" in said[1] and "level 3" in said[2]
    assert "3" in said[3] and "haven't" not in said[3]
    assert "15" in said[4] and "17" in said[5]
    assert "mute" in said[6] and "cancel" not in said[6]


async def test_a_step_moves_the_level_held_in_chinese() -> None:
    lines = ["风量调到三档", "再大一点", "音量调到二十", "声音小一点", "风量现在是几档？"]
    replies = await _chat("zh", lines, "in_car")
    said = [r.text for r in replies]
    assert "3档" in said[0] and "4档" in said[1] and "20" in said[2] and "18" in said[3] and "4档" in said[4]


# --- warmer or cooler with no temperature held ------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["车里还是有点冷，再暖和一点", "再暖一点"], ["车内调暖一度", "车内调暖一度"]),
    ("zh", ["有点热，凉快一点"], ["车内调凉一度"]),
    ("en", ["it's a bit chilly in here", "warmer"], ["a degree warmer", "a degree warmer"]),
    ("en", ["can you cool it down a little"], ["a degree cooler"]),
])
async def test_warmer_with_no_temperature_held_is_a_step(language: str, lines: list[str], said: list[str]) -> None:
    replies = await _chat(language, lines, "in_car")
    for reply, words in zip(replies, said, strict=True):
        assert words in reply.text


async def test_a_temperature_said_after_a_step_takes_its_place() -> None:
    replies = await _chat("zh", ["有点冷，暖和一点", "温度调到24度", "再高一点"], "in_car")
    assert "24度" in replies[1].text and "25度" in replies[2].text


async def test_a_feeling_met_by_another_command_is_no_step() -> None:
    replies = await _chat("en", ["it's stuffy, open the window"], "in_car")
    assert "window" in replies[0].text and "cooler" not in replies[0].text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["it's a bit chilly in here", "what's the temperature now?"], "made the cabin a degree warmer"),
    ("zh", ["有点冷", "现在温度是多少？"], "车内调暖一度"),
])
async def test_asked_the_temperature_after_a_step_says_the_step(language: str, lines: list[str], said: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert said in replies[-1].text
    assert "don't have" not in replies[-1].text and "还没" not in replies[-1].text


# --- a control named to be set, with no value ----------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "asked", "then"), [
    ("en", ["can you set the temperature", "up to you"], "What temperature would you like?", "22 degrees"),
    ("zh", ["帮我调一下温度", "随便吧，你看着办"], "温度调到多少度？", "22度"),
    ("en", ["can you adjust the seat", "back a bit"], "How should I move the seat?", "further back"),
])
async def test_a_control_named_to_be_set_is_asked_about(language: str, lines: list[str], asked: str,
                                                        then: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[0].text == asked
    assert then in replies[1].text


async def test_asking_what_a_control_is_set_to_is_no_request_to_set_it() -> None:
    replies = await _chat("en", ["set the temperature to 21", "what's the temperature set to?"], "in_car")
    assert replies[-1].text == "The cabin temperature is 21 degrees."


# --- a window part of the way -----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("roll down the window halfway", "partly_open"),
    ("open the windows a bit", "partly_open"),
    ("crack the windows", "partly_open"),
    ("open the windows", "open"),
    ("roll the windows all the way down", "open"),
    ("把车窗打开一点", "partly_open"),
    ("窗户开一半", "partly_open"),
    ("把窗户打开", "open"),
])
def test_a_window_opened_part_of_the_way(text: str, expected: str) -> None:
    assert rules_read("in_car", text)["window"] == [expected]


@pytest.mark.parametrize(("language", "lines", "said", "answer"), [
    ("en", ["roll down the window halfway", "are the windows open?"], "partway down", "The windows are partway down."),
    ("zh", ["车窗开条缝", "车窗开着吗"], "车窗已经开了一点", "车窗开了一点。"),
])
async def test_a_window_part_of_the_way_is_said_so(language: str, lines: list[str], said: str, answer: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert said in replies[0].text
    assert replies[1].text == answer


# --- the car: stops, terse levels, steps ------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("can we pick up my sister in Truckee on the way", {"stops": ["Truckee"]}),
    ("I need to drop my wife off at Union Station on the way", {"stops": ["Union Station"]}),
    ("I need to drop by a pharmacy, a CVS on the way", {"stops": ["pharmacy"]}),
    ("swing by a gas station", {"stops": ["fuel"]}),
    ("fan two", {"fan_level": [2]}),
    ("fan 2 and volume 10", {"fan_level": [2], "volume_level": [10]}),
    ("风速开大一档", {"fan_speed": ["up"]}),
    ("音量调低两格", {"volume": ["down"]}),
])
def test_the_car_reads_what_the_driver_meant(text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text) == expected


def test_dropping_a_stop_is_still_dropping_it() -> None:
    assert "stops" not in rules_read("in_car", "drop the pharmacy")


async def test_the_cabin_in_fahrenheit_is_offered_in_celsius() -> None:
    replies = await _chat("en", ["set the cabin to seventy four", "yes"], "in_car")
    assert "about 23 degrees" in replies[0].text and "23 degrees" in replies[1].text


# --- customer service: sums, codes --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("it was eighty nine ninety nine", 89.99),
    ("I paid forty two fifty for it", 42.5),
    ("it costs twelve fifty", 12.5),
    ("it's a standing desk, it cost three hundred and forty nine dollars", 349),
    ("能不能退一部分钱，六十九块五就行", 69.5),
    ("十二块五毛", 12.5),
    ("算了，还是取消吧，钱是三千二百九十九", 3299),
])
def test_a_sum_said_as_it_is_read_out(text: str, expected: float) -> None:
    assert rules_read("customer_service", text)["amount"] == [expected]


@pytest.mark.parametrize("text", ["I paid one fifty nine", "it cost me 3 weeks of waiting", "128块一个"])
def test_a_sum_that_could_be_two_is_not_guessed(text: str) -> None:
    assert rules_read("customer_service", text).get("amount", [128]) in ([128], [])


def test_cancelling_an_order_by_its_number_gives_both() -> None:
    read = rules_read("customer_service", "hi, quick question, can I cancel order 5 5 1 9 0 7")
    assert read["order_id"] == ["551907"] and read["resolution"] == ["cancel"]


def test_a_code_put_right_after_a_pause_is_the_one_meant() -> None:
    assert rules_read("customer_service", "order is 6 0 0 4 1 8, hmm no sorry, 6 0 0 4 8 1")["order_id"] == ["600481"]


def test_the_last_digits_put_right_are_the_number_just_said() -> None:
    read = rules_read("customer_service", "电话打13912340000，哦不对，最后四位是5678", {"order_id": "TM20251130556"})
    assert read == {"contact_phone": ["13912345678"]}
    assert rules_read("customer_service", "订单号最后四位是0557",
                      {"order_id": "TM20251130556"})["order_id"] == ["TM20251130557"]


# --- the table: names, a party said by who comes ------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("name Brandt", ["Brandt"]),
    ("the reservation is for Fitzgerald, F I T Z G E R A L D, and my number is 781 555 0462", ["Fitzgerald"]),
    ("the booking is for my wife's birthday", None),
    ("same name as before", None),
])
def test_a_name_said_plainly(text: str, expected: list[str] | None) -> None:
    assert rules_read("restaurant", text).get("guest_name") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("这周五中午十一点半，大人两个，再带一个小孩", 3),
    ("大人三个", 3),
    ("我们三个人，两个大人一个孩子", 3),
])
def test_a_party_counted_after_who_comes(text: str, expected: int) -> None:
    assert rules_read("restaurant", text)["party_size"] == [expected]


# --- the twelfth batch: the rest of the drive -----------------------------------------------------------

def test_a_cuisine_said_with_its_dish_is_the_cuisine() -> None:
    assert rules_read("restaurant", "hi there, we're thinking Korean barbecue tonight")["cuisine"] == ["korean"]
    assert "cuisine" not in rules_read("restaurant", "I love Italian opera")


@pytest.mark.parametrize(("text", "expected"), [
    ("and let's skip the freeway, she lives up in the hills", {"route_preference": ["avoid_highways"]}),
    ("放首摇滚提提神，大声点", {"music_choice": ["摇滚"], "volume": ["up"], "media": ["playing"]}),
    ("play some rock to keep me awake", {"music_choice": ["rock"], "media": ["playing"]}),
])
def test_what_the_driver_asked_for_without_its_reason(text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text) == expected


async def test_muted_for_a_call_and_back_on() -> None:
    replies = await _chat("en", ["play some jazz", "mute it for a sec, I gotta take a call",
                                 "okay you can unmute it now"], "in_car")
    assert "mute" in replies[1].text and "?" not in replies[1].text
    assert "back up from mute" in replies[2].text


async def test_a_lasting_wish_taken_back_at_once_is_gone() -> None:
    replies = await _chat("en", ["navigate to Costco in San Leandro", "avoid highways",
                                 "wait, highways are fine, just no tolls"], "in_car")
    assert "no tolls" in replies[-1].text and "no highways" not in replies[-1].text
    replies = await _chat("zh", ["导航去天津，不走高速", "算了，高速也行，不走收费就好"], "in_car")
    assert "不走收费" in replies[-1].text and "不走高速" not in replies[-1].text


async def test_the_seat_reclined_and_the_time_to_arrive_are_said_as_such() -> None:
    replies = await _chat("en", ["recline my seat a bit", "take me home", "I need to be there by six thirty"], "in_car")
    assert "moved the seat into a recline" in replies[0].text
    assert "arriving by 6:30 pm" in replies[-1].text


@pytest.mark.parametrize(("text", "go"), [
    ("great, thanks, submit", True), ("ok submit", True), ("how do I submit a claim?", False),
    ("I will submit the form later", False),
])
def test_submit_alone_is_a_go_ahead(text: str, go: bool) -> None:
    from monologue.memory.language.cues import GO_AHEAD
    assert bool(GO_AHEAD.search(text)) == go


@pytest.mark.parametrize(("text", "expected"), [
    ("my email is priya underscore r ninety nine at hotmail dot com", "priya_r99@hotmail.com"),
    ("bob seven at gmail dot com", "bob7@gmail.com"),
    ("t kim 88 at yahoo dot com", "tkim88@yahoo.com"),
    ("jenna dot price at gmail dot com", "jenna.price@gmail.com"),
])
def test_an_email_with_its_number_said_in_words(text: str, expected: str) -> None:
    assert rules_read("customer_service", text)["contact_email"] == [expected]


@pytest.mark.parametrize(("text", "expected"), [
    ("call me tomorrow at 10am", {"contact_time": ["10:00"], "contact_day": ["tomorrow"], "contact_method": ["phone"]}),
    ("明天上午十点打电话给我", {"contact_time": ["10:00"], "contact_day": ["tomorrow"], "contact_method": ["phone"]}),
])
def test_the_day_of_a_call_back_is_no_delivery_date(text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("customer_service", text) == expected


def test_the_place_after_whose_place_it_is() -> None:
    read = rules_read("in_car", "hey there, so um, I'm heading over to my mom's, it's on Birchwood Lane in Fairview")
    assert read["destination"] == ["Birchwood Lane in Fairview"]
    assert rules_read("in_car", "take me to my sister's place on Elm Street")["destination"] == ["Elm Street"]


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["下个月三号晚上七点，朝阳区找家川菜，两个人", "我刚才说的是几号？"], "下个月3号"),
    ("en", ["a table for two on the 3rd of next month at 7pm", "what day did I say?"], "the 3rd of next month"),
])
async def test_a_day_of_next_month(language: str, lines: list[str], said: str) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert said in replies[0].text and said in replies[1].text


# --- what the review found too wide ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("a bit more", {}),
    ("are we halfway there", {}),
    ("还有一半路", {}),
    ("close the window it's a bit cold", {"window": ["closed"]}),
    ("don't make it warmer", {}),
    ("温度别太高", {}),
    ("the engine is too hot", {}),
    ("let's drop it", {}),
    ("turn up the heat on my seat", {"seat_heating": ["on"]}),
    ("windows all the way up", {"window": ["closed"]}),
    ("turn the radio back on", {"media": ["playing"]}),
    ("it's way too hot in here", {"temperature_step": ["cooler"]}),
])
def test_the_car_reads_no_more_than_was_said(text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text) == expected


@pytest.mark.parametrize("text", ["pick up my mom in Oakland and then go to the airport",
                                  "take me to the airport but pick up my mom in Oakland first"])
def test_a_stop_picked_up_at_leaves_the_destination(text: str) -> None:
    read = rules_read("in_car", text)
    assert read["stops"] == ["Oakland"] and read["destination"] == ["airport"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I paid three hundred twenty", [320]),
    ("it cost a hundred twenty", [120]),
    ("it cost two thousand fifty", [2050]),
    ("it was 5 items", None),
    ("一共两件", None),
    ("我花了三天时间等快递", None),
])
def test_counts_are_no_sums(text: str, expected: list[object] | None) -> None:
    assert rules_read("customer_service", text).get("amount") == expected


@pytest.mark.parametrize("text", ["the name escapes me", "the name doesn't matter", "the name of the place is Nopa",
                                  "the reservation is for us", "the reservation is for dinner",
                                  "booking is for brunch"])
def test_no_name_where_none_is_given(text: str) -> None:
    assert "guest_name" not in rules_read("restaurant", text)


@pytest.mark.parametrize(("text", "expected"), [
    ("大人两个小孩两个", 4), ("大人两个小孩一个", 3), ("成人三名儿童一名", 4), ("两个大人，孩子三个月大", 2),
    ("三个大人两个小孩", 5),
])
def test_a_party_counted_by_who_comes_without_commas(text: str, expected: int) -> None:
    assert rules_read("restaurant", text)["party_size"] == [expected]


async def test_a_step_said_with_how_far_guesses_no_level() -> None:
    # (with a level held, "two notches" is two of its units: the fourteenth drive, "the fan down two notches")
    replies = await _chat("en", ["set the fan to three", "fan up two notches", "what's the fan on?"], "in_car")
    assert "level 5" in replies[1].text and "5" in replies[2].text
    replies = await _chat("en", ["turn the fan up a couple of notches", "what's the fan on?"], "in_car")
    assert "turned the fan up" in replies[0].text and "level" not in replies[0].text


async def test_leaving_a_control_as_it_is_asks_nothing() -> None:
    replies = await _chat("en", ["the temperature is fine, don't change it"], "in_car")
    assert "What temperature" not in replies[0].text


async def test_a_table_for_eight_asked_the_time_is_still_a_party() -> None:
    replies = await _chat("en", ["I want Luigi's tomorrow", "a table for eight in the evening"], "restaurant")
    assert "How many" not in replies[1].text



# --- the held-out drive (what a fresh user said) -----------------------------------------------------------

@pytest.mark.parametrize(("domain", "text", "key", "expected"), [
    ("in_car", "I need the train station", "destination", ["station"]),
    ("in_car", "okay so we're heading up to Yosemite Valley Lodge today", "destination", ["Yosemite Valley Lodge"]),
    ("restaurant", "预订人写郭晓燕", "guest_name", ["郭晓燕"]),
    ("restaurant", "我想吃韩国烤肉", "cuisine", ["korean"]),
])
def test_what_a_fresh_user_said_is_read(domain: str, text: str, key: str, expected: list[object]) -> None:
    assert rules_read(domain, text)[key] == expected


def test_the_gas_station_needed_is_still_a_stop() -> None:
    assert rules_read("in_car", "I need the gas station on the way") == {"stops": ["fuel"]}


async def test_make_that_one_degree_warmer_is_no_choice_of_that_one() -> None:
    replies = await _chat("en", ["set the heat to twenty one", "make that one degree warmer"], "in_car")
    assert "22 degrees" in replies[-1].text
