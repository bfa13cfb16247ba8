"""What new users said in Mandarin and English (2026-12-06, seventh test drive) and was misread.

- A stop on the way put right: "actually make that a gas station instead" (a charging stop held)
  changed nothing, and 算了，那还是加油站吧 added the petrol station beside the charger; "oh and a
  coffee too", 再加个咖啡 added no stop.
- "I need to get to union station" (small letters, after "get to") was a wish, not where to go.
- Customer service: "I was charged twice for order 55123" and "my order 55123 arrived broken" kept
  the order but not what went wrong (the rest of the clause is the domain's own words), so the
  ticket had no notes; 这个不错 was noted as a fault (错).
- The table: 有没有便宜点的，人均五十左右 was answered "海底捞人均83元" and the place at 83 a head was
  booked (a budget was never read against a place's price per person); 预算一共三百 was a budget
  of 1 (一共); "around 30 bucks a head" was a location; 十二个 to 几点钟合适？ was noon, not twelve
  people; 刘女士, 陈先生 said as the name for the booking were not kept.
- The car: 算了不去机场了，改去北京南站 dropped the petrol stop with the airport; 座椅加热关了吧，太热
  also turned the cabin down a degree.
- Customer service: 给我换成黑色的 was no exchange, so the ticket was never opened; 我要的是黑色的
  was noted as 的是黑色的; "the last digit is 3, not 2", 最后一位是八，不是七 changed nothing.
- In English: "oh shoot, we can't make it tomorrow, can you cancel that" after booking set the
  day to tomorrow and said "all set" (the booking stood); "forget it, we're just gonna cook at
  home" was not calling it off; "that's all thanks" to "shall I book it?" said goodbye as if done;
  "ok maybe somewhere quieter then" to a place the user had named booked it ("ok" a yes, and
  "quieter" no match for "quiet"); "volume to like 15" set the arrival time to 3 pm; "put it back
  on" after a pause, "heat up the seats and play…", "my seat's freezing, can you warm it up"
  were not carried out as meant; "never mind the gas station, skip it" also skipped the song;
  "couple degrees warmer" was one degree; "trader joe's on 9th avenue", "forget all of it, I'm
  just gonna walk" changed nothing where they should. ("I meant the golden gate bridge" still
  changes nothing: "I meant the" also leads to songs and stations.)
- Customer service in English: "I'd like that back" after an overcharge, "I meant replace them,
  not refund" were no resolution; "what's the status on my refund?" read back the missing
  resolution; "name for the booking is Chen" and a phone said bare ("ok name's Rodriguez, 555 201
  3344") at the table were lost.
- A review of these fixes found them too wide; these must stay as they were: 再加个咖啡吧 and "and the
  gas is fine" add a stop (they had replaced the one held); "yes, book it. is there anything else
  you need?", 好的，订吧，别的没了 book the place; "put it back on" after the seat heating was turned off
  turns it on again; "never mind, I'm going to the office first" goes to the office; "it's too hot
  in here, play some jazz" still cools; 银行卡最后四位是8876, 最后是四个人 change no code; "could you
  read that back to me?" is no refund; 换成W138011 is no exchange; 每人一份套餐就行, 不超过两个小时 are no
  budget; "I meant the jazz station" is no route; "the upper level at around 7" keeps the time;
  "I might need to cancel, and can you text me the details?" cancels nothing; 人均一百左右吗 is
  answered; "好，高先生" is no name; "I'm going to the store later" is no route.
- A second drive: "ok and actually one more person is coming so make it five" booked a table for
  one; a phone said in groups (一五八零零，嗯，零零零，一二一二) overwrote the order number; "turn the seat
  heating back on" also moved the seat back; "can we stop by a Starbucks on the way" was "I see.",
  and "swing by the bakery on the way there" was "all set" with no stop.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- the car --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("en", ["take me to the airport", "stop at a charging station on the way",
            "actually make that a gas station instead"], "with a stop at a petrol station."),
    ("en", ["take me to the airport", "stop at a charging station on the way",
            "no, a gas station, not a charger"], "with a stop at a petrol station."),
    ("zh", ["导航去机场", "路上找个充电站", "算了，那还是加油站吧"], "途经加油站。"),
    ("zh", ["导航去机场", "路上找个充电站", "不去充电站了，改去加油站"], "途经加油站。"),
])
async def test_a_stop_said_instead_replaces_the_last_one(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[-1].text.endswith(expected)


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("en", ["take me to the airport", "stop at a charging station on the way", "oh and a coffee too"],
     "with a stop at a charging station and a coffee place."),
    ("zh", ["导航去机场", "路上找个充电站", "再加个咖啡"], "途经充电站、咖啡店。"),
])
async def test_one_more_stop_said_bare(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[-1].text.endswith(expected)


@pytest.mark.parametrize(("held", "text", "expected"), [
    ({"stops": "charging"}, "the coffee there was great and cheap too", {}),      # a remark, not a stop
    ({}, "and a coffee too", {}),                                                 # nothing held to add to
])
def test_a_value_beside_a_word_of_adding_needs_some_held(held: dict[str, object], text: str,
                                                         expected: dict[str, list[object]]) -> None:
    assert {k: v for k, v in rules_read("in_car", text, held).items() if k != "wishes"} == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I need to get to union station", "union station"),
    ("go to 42 baker street", "42 baker street"),
    ("I want to go to sleep", None),
])
def test_a_place_in_small_letters_after_get_to(text: str, expected: str | None) -> None:
    assert rules_read("in_car", text).get("destination") == ([expected] if expected else None)


# --- customer service -----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("hi, I was charged twice for order 55123", ["I was charged twice"]),
    ("my order 55123 arrived broken", ["arrived broken"]),
    ("I was double charged on my order number 55123", ["I was double charged"]),
    ("我的订单55123扣了两次钱", ["扣了两次钱"]),
    ("order 55123 please", None),
    ("这个不错", None),
    ("没错，就是这个订单", None),
])
def test_what_went_wrong_beside_the_order_is_noted(text: str, expected: list[str] | None) -> None:
    read = rules_read("customer_service", text)
    assert read.get("problem_details") == expected
    if "55123" in text:
        assert read["order_id"] == ["55123"]


async def test_the_ticket_notes_a_double_charge() -> None:
    replies = await _chat("en", ["hi, I was charged twice for order 55123", "a refund please", "yes"],
                          "customer_service")
    assert replies[-1].text.endswith("for order 55123, a refund, noting you were charged twice.")


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["我要去机场，路上找个充电站"], "途经充电站。"),
    ("zh", ["去首都机场，路上加个油", "算了不去机场了，改去北京南站"], "设好了路线：去北京南站，途经加油站。"),
])
async def test_a_place_given_up_for_another_keeps_its_stops(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[-1].text.endswith(expected)


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["空调调到23度，打开座椅加热", "座椅加热关了吧，太热"], "好了，座椅加热已经关闭。"),
    ("en", ["set it to 23 and turn on my seat heater", "turn off the seat heater, it's too hot"],
     "Done: I've turned the seat heating off."),
    # …but a change asked for as well is made
    ("en", ["set it to 23 and turn on my seat heater", "it's too hot, make it cooler and open the window"],
     "Done: I've set the cabin to 22 degrees and put the windows down."),
    ("zh", ["空调调到23度", "太热了，开窗，再调低一点"], "好了，车内温度调到22度了，车窗已经打开。"),
    ("zh", ["空调调到23度", "太热了"], "好了，车内温度调到22度了。"),
])
async def test_a_feeling_given_as_the_reason_for_a_command(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[-1].text == expected


# --- the table ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    ("有没有便宜点的，人均五十左右", "赛百味"),
    ("人均五十左右的", "赛百味"),
    ("人均别超过三十", "大顺斋"),
])
async def test_a_price_per_head_leaves_out_the_dearer_place(line: str, expected: str) -> None:
    replies = await _chat("zh", ["周日晚上七点半，六个人", line], "restaurant")
    assert "海底捞" in replies[0].text
    assert replies[-1].text.startswith(f"我推荐{expected}")


async def test_the_price_is_still_answered_when_asked() -> None:
    replies = await _chat("zh", ["周日晚上七点半，六个人", "这家人均多少？"], "restaurant")
    assert replies[-1].text.startswith("海底捞火锅西单店人均83元")


def test_a_budget_for_the_party_is_read_per_head() -> None:
    from monologue.memory.domain.catalogue import per_item
    from monologue.memory.working.state import Comparator, Condition, SessionState

    state = SessionState("s")
    state.constraints["party_size"] = Condition("party_size", Comparator.EQ, 6, "六个人", 1)
    amounts = {"budget": {"attribute": "price_per_person", "heads": "party_size"}}

    def limit(words: str, value: float) -> object:
        return per_item(Condition("budget", Comparator.LE, value, words, 1), state, amounts).value
    assert limit("预算一共三百", 300) == 50
    assert limit("人均一百", 100) == 100
    assert limit("人均五十左右", 50) == pytest.approx(60)
    assert limit("under 40 per person", 40) == 40


@pytest.mark.parametrize(("text", "expected"), [
    ("预算一共三百", 300), ("人均别超过三十", 30), ("人均一百", 100), ("around 30 bucks a head", 30),
    ("人均多少", None),
])
def test_amounts_said_per_head_or_in_all(text: str, expected: int | None) -> None:
    read = rules_read("restaurant", text)
    assert read.get("budget") == ([expected] if expected else None)
    assert "location" not in read


async def test_a_count_with_its_measure_word_answers_no_time() -> None:
    replies = await _chat("zh", ["帮我订个包间，周五晚上，十来个人", "十二个", "七点吧"], "restaurant")
    assert "中午" not in replies[1].text and replies[1].text.endswith("几点钟合适？")
    assert "晚上7点，12个人" in replies[-1].text


@pytest.mark.parametrize(("text", "expected"), [
    ("陈先生", ["陈先生"]), ("没问题，订吧，刘女士，电话18600001234", ["刘女士"]), ("我是李先生", ["李先生"]),
    ("Mr. Chen", ["Mr. Chen"]), ("yes, it's Ms Lopez, thanks", ["Ms Lopez"]),
    ("张先生说他晚点到", None),        # someone spoken of, not the name given
])
def test_a_surname_with_its_title_is_the_name_for_the_booking(text: str, expected: list[str] | None) -> None:
    assert rules_read("restaurant", text).get("guest_name") == expected


# --- customer service, again ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("给我换成黑色的", ["exchange"]), ("想换大一码的", ["exchange"]), ("can I get the black one instead", ["exchange"]),
    ("不要退款了，换成维修", ["repair"]), ("还是换成退款吧", ["refund"]),
    ("换个地址", None), ("换成邮件联系", None), ("can I get it in writing", None),
])
def test_an_exchange_said_by_what_is_wanted(text: str, expected: list[str] | None) -> None:
    assert rules_read("customer_service", text).get("resolution") == expected


def test_what_was_wanted_is_no_fragment_of_a_note() -> None:
    # (what came is a note: 寄来个白色的; what was wanted, 我要的是黑色的, is no fragment of one)
    notes = rules_read("customer_service", "你们发错货了，我要的是黑色的，寄来个白色的").get("problem_details", [])
    assert not any("我要的是" in str(note) for note in notes)


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["订单号是JD9988776655，我想退款", "联系电话就用一八八零一二三四五六七", "不对，最后一位是八，不是七"],
     "电话18801234568"),
    ("zh", ["订单号是JD9988776655，我想退款", "联系电话就用一八八零一二三四五六七", "订单号最后一位是四"],
     "订单JD9988776654"),
    ("en", ["order 55123, I want a refund", "my phone is 415 555 0192", "sorry, the last digit is 3, not 2"],
     "phone 4155550193"),
    ("en", ["order 55123, I want a refund", "my phone is 415 555 0192", "the last two digits of the order are 3 2"],
     "order 55132"),
])
async def test_digits_put_right_by_where_they_are(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "customer_service")
    assert expected in replies[-1].text



# --- in English -----------------------------------------------------------------------------------

async def test_a_booking_made_is_cancelled_when_asked_in_passing() -> None:
    replies = await _chat("en", ["hi can you book sakura for tomorrow at 7 for 2, name is Olivia Grant", "yes please",
                                 "oh shoot, actually we can't make it tomorrow, can you cancel that"], "restaurant")
    assert replies[-1].text.startswith("Shall I cancel the booking: Sakura tomorrow")


@pytest.mark.parametrize(("lines", "expected"), [
    (["yo I need a spot for like six people friday around 7", "ah actually forget it, we're just gonna cook at home"],
     "Okay, I won't book it then."),
    (["hey so I wanna grab dinner tonight, table for four around seven thirty?", "that's all thanks"],
     "I won't book it then, goodbye!"),
])
async def test_leaving_before_the_booking_is_made_says_so(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "restaurant")
    assert expected in replies[-1].text


async def test_leaving_in_chinese_after_calling_it_off_asks_nothing_more() -> None:
    replies = await _chat("zh", ["今晚七点半四个人", "没事了，谢谢，再见"], "restaurant")
    assert replies[-1].text == "好的，那就先不订了，再见！"


@pytest.mark.parametrize("line", ["ok maybe somewhere quieter then, same time and everything", "hmm, somewhere else"])
async def test_a_place_named_and_turned_down_is_replaced(line: str) -> None:
    replies = await _chat("en", ["table for 4 at fire pot saturday 8pm please", line], "restaurant")
    assert replies[-1].text.startswith("Fire Pot doesn't fit that;")
    assert "Done" not in replies[-1].text


async def test_somewhere_quieter_ranks_the_quiet_place_first() -> None:
    replies = await _chat("en", ["table for 4 saturday 8pm please", "somewhere quieter please"], "restaurant")
    assert replies[-1].text.startswith("Luigi's Trattoria")


@pytest.mark.parametrize(("text", "expected"), [
    ("name for the booking is Chen, and push it to 7:15 actually", {"guest_name": ["Chen"], "time": ["19:15"]}),
    ("ok name's Rodriguez, 555 201 3344", {"guest_name": ["Rodriguez"], "contact_phone": ["5552013344"]}),
])
def test_a_name_and_a_phone_said_plainly_at_the_table(text: str, expected: dict[str, list[object]]) -> None:
    read = rules_read("restaurant", text)
    assert {k: read.get(k) for k in expected} == expected


@pytest.mark.parametrize(("lines", "expected"), [
    (["play some music", "volume to like 15"], "Done: I've set the volume to 15."),
    (["play some music", "pause the radio for a sec, I gotta take a call", "ok you can put it back on"],
     "Done: I've got the music playing."),
    (["hey can you heat up the seats and play my driving playlist"], "turned the seat heating on"),
    (["set the temp to 21", "my seat's freezing, can you warm it up"], "Done: I've turned the seat heating on."),
    (["put the ac on and set it to 19", "hmm that's a bit much, couple degrees warmer"], "the cabin to 21 degrees"),
    (["also I wanna go to trader joe's on 9th avenue"], "the route for trader joe's on 9th avenue"),
    (["take me to trader joe's on 9th avenue", "oh and a quick stop at the atm before that",
      "ok actually forget all of it, I'm just gonna park here and walk"], "Okay, I've cancelled the route."),
])
async def test_the_car_does_what_was_meant(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "in_car")
    assert expected in replies[-1].text


async def test_skip_it_after_dropping_a_stop_skips_no_song() -> None:
    from fakes import rules_read as read
    held: dict[str, object] = {"destination": "airport", "stops": "fuel", "media": "playing"}
    assert "media" not in read("in_car", "never mind the gas station, skip it", held)
    assert read("in_car", "skip this song", held).get("media") == ["next"]


@pytest.mark.parametrize(("lines", "expected"), [
    (["hi, I got overcharged, you charged me an extra $25 on order 30877", "I'd like that back please"],
     "So that's order 30877, a refund"),
    (["hi, I got overcharged, you charged me an extra $25 on order 30877", "I'd like that back please",
      "what's the status on my refund?"], "I can't see where that stands from here"),
    (["my headphones stopped working, order 77120", "actually you know what, just refund it",
      "no wait, sorry, I meant replace them, not refund"], "order 77120, an exchange"),
])
async def test_customer_service_in_everyday_words(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "customer_service")
    assert expected in replies[-1].text



# --- kept as they were (a review of the fixes above) ----------------------------------------------

@pytest.mark.parametrize(("held", "text", "expected"), [
    ({"destination": "机场", "stops": "charging"}, "再加个咖啡吧", {"stops": ["coffee"]}),
    ({"route_preference": "avoid_tolls"}, "and the fastest is fine", {"route_preference": ["fastest"]}),
    ({}, "I'm going to the store later to pick up milk", {}),
    ({}, "I meant the jazz station", {}),
])
def test_what_adds_and_what_is_told_stays_so(held: dict[str, object], text: str,
                                             expected: dict[str, list[object]]) -> None:
    read = rules_read("in_car", text, held)
    assert {k: v for k, v in read.items() if k not in ("wishes", "media")} == expected
    assert not any(op for op in read if op == "destination") or "destination" in expected


@pytest.mark.parametrize(("domain", "held", "text", "key"), [
    ("customer_service", {"order_id": "55123"}, "银行卡最后四位是8876", "order_id"),
    ("restaurant", {"contact_phone": "13812345678"}, "最后是四个人", "contact_phone"),
    ("customer_service", {"order_id": "55123"}, "could you read that back to me?", "resolution"),
    ("customer_service", {"order_id": "W982029", "resolution": "repair"}, "换成W138011。", "resolution"),
    ("restaurant", {}, "每人一份套餐就行", "budget"),
    ("restaurant", {}, "不超过两个小时", "budget"),
    ("restaurant", {}, "好，高先生", "guest_name"),
    ("restaurant", {}, "thanks, Mr. Chen.", "guest_name"),
    ("customer_service", {"order_id": "77854321"}, "我电话是一五八零零，嗯，零零零，一二一二", "order_id"),
])
def test_near_misses_write_nothing_there(domain: str, held: dict[str, object], text: str, key: str) -> None:
    assert key not in rules_read(domain, text, held)


def test_a_time_beside_a_level_of_the_room_is_still_the_time() -> None:
    assert rules_read("restaurant", "book a table on the upper level at around 7 tomorrow for 2")["time"] == ["19:00"]


@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("en", ["book a table for tonight at 8 for four people", "yes, book it. is there anything else you need?"], "Done"),
    ("en", ["table for 4 at fire pot saturday 8pm please", "sure, anything closer to 7:30 would be better though"],
     "So that's Fire Pot on Saturday at 7:30 pm"),
    ("zh", ["我想订海底捞火锅西单店，周六晚上八点，四个人", "好的，订吧，别的没了"], "好了，订好了海底捞火锅西单店"),
    ("en", ["book a table for tonight at 8 for four people",
            "I might need to cancel, and can you text me the details?"],
     "book it"),
    ("zh", ["周日晚上七点半，六个人", "人均一百左右吗？"], "海底捞火锅西单店人均83元"),
    ("en", ["book a table for tonight at 8 for four people",
            "ok and actually one more person is coming so make it five"],
     "Still Chili House then, today at 8 pm for 5 people; shall I book it?"),
])
async def test_the_table_kept_as_it_was(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert replies[-1].text.startswith(expected) or expected in replies[-1].text
    assert "cancel" not in replies[-1].text.lower()


@pytest.mark.parametrize(("lines", "expected"), [
    (["turn off the seat heating", "put it back on"], "Done: I've turned the seat heating on."),
    (["turn off the seat heating", "turn the seat heating back on"], "Done: I've turned the seat heating on."),
    (["take me to the mall", "stop at the atm", "never mind, I'm going to the office first"],
     "Done: I've set the route for the office"),
    (["set it to 22", "it's too hot in here, play some jazz"], "Done: I've set the cabin to 21 degrees"),
    (["take me to the airport", "stop at a charging station on the way", "and the gas is fine"],
     "Done: I've set the route for the airport with a stop at a charging station and a petrol station."),
])
async def test_the_car_kept_as_it_was(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "in_car")
    assert replies[-1].text.startswith(expected)



@pytest.mark.parametrize(("text", "expected"), [
    ("oh and can we stop by a Starbucks on the way", ["Starbucks"]),
    ("also swing by the bakery on the way there", ["bakery"]),
    ("can we stop at the bank on the way", ["bank"]),
    ("stop at the pharmacy", ["pharmacy"]),
    ("stop at a gas station", ["fuel"]),
])
def test_a_stop_asked_for_by_a_word_of_stopping(text: str, expected: list[str]) -> None:
    assert rules_read("in_car", text, {"destination": "Central Park"}).get("stops") == expected


def test_a_street_is_still_part_of_the_place() -> None:
    assert rules_read("in_car", "take me to Starbucks on Main Street")["destination"] == ["Starbucks on Main Street"]
