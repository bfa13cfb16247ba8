"""What new users said in Mandarin and English (2026-12-06, eighth test drive) and was misread.

- The car: "put the heat up a couple degrees" was no change ("put … up", "crank … down" are).
- The table: 帮我找个吃饭的地方，今天晚上 asked 想订哪一天？ on every turn (今天 beside 晚上 was taken
  for small talk); "that's too far, anything closer?", 太远了，有没有近一点的 were "I see" or a fact
  the listing lacks: the area answers it (`complaints` in the YAML), asked for while not known,
  and the offer turned down once it is; "could we do closer to 8 maybe" was no time.
- Customer service: "I'd rather get a replacement than a refund", 与其退款，我更想换一个新的 were a
  refund: of two values said with a word of preferring, the one preferred over is not wanted.
- Two questions in one turn (订的是几点来着？几个人？, "so is it booked? what time did I say again?")
  got one answer: each question in a sentence of its own is answered, in order.
- "hmm no, ok, go ahead and cancel" after "don't cancel it actually" called the ticket off (a
  cancellation gone back to, `said_again`); 确认换货, 确认退款 read back again instead of filing.
- Codes said in groups with a pause or a filler ("5 5 1 2, 0 0 9 8", "4 5 7... uh 7 2 9 1",
  三八二，嗯，五一九零) kept only the first group, or nothing.
- The table: 太贵了 after roast duck offered 赛百味, whose food is not known (a kind asked for needs
  a place known to serve it); 还是刚才那家吧 was "not something I can do" and booked the sandwich
  shop; 第一家是哪个？ chose the first place; 换一家看看 stored 看看 as a wish; 涮羊肉 was no hotpot.
- The car: 去颐和园怎么走, "how do I get to Union Square?" asked where to go; 不对，我说的是圆明园 changed
  nothing; 那边好停车吗？ said the stops were not set; "find me the nearest hospital" was "Hi!";
  "take the toll-free route" took the toll road.
- In English: "hmm actually no, don't book it yet, let me check with my team" booked ("book it");
  "is there a kids menu? never mind we don't need that" called the booking off; "six of us,
  actually scratch that, eight" kept six; "that's kinda pricey, got something cheaper?" asked for a
  pricey place; "I want the extra charge back" was no refund; "actually make it a KFC" after a
  McDonald's stop made KFC where to go.
- The car in Chinese: 音量调低点 and 这首不好听，切了 were "嗯，明白" and nothing was done; 我屁股有点冷，开一下座椅加热
  also asked what temperature the cabin should be.
- A review of these fixes found them too wide; these must stay as they were: 确认地址, 确认不了, 确认人数 are
  no yes; "I'd prefer you take me to the airport" goes to the airport; 今晚不如吃火锅吧 is tonight;
  别订刚才那家, "the previous one was too expensive", "what was the previous one called?" choose nothing;
  "put the roof up" moves no temperature; "order 12345, 15 kg" is order 12345; "is it still open?
  never mind, we don't need it anymore" calls it off; "yes book it, don't send me emails though"
  books; "is it far from the station?" asks no area; "what? how many people did I say?" has no "I'm
  not sure"; "somewhere we don't have to wait" is a wish; 那就取消吧，不弄了 calls the ticket off.
- 好的没问题，订，我是孙经理，电话13088887777 booked with no name: a surname with a title of work (经理, 老师,
  王总) is a name as 陈先生 is.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- the car --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("en", ["set the temperature to 20", "put the heat up a couple degrees"], "22 degrees"),
    ("en", ["set the temperature to 20", "crank it down a bit"], "19 degrees"),
])
async def test_a_change_said_with_put_or_crank(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert expected in replies[-1].text


async def test_a_temperature_said_is_still_itself() -> None:
    replies = await _chat("en", ["set the temperature to 19"], "in_car")
    assert "19 degrees" in replies[-1].text


# --- the table ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text"), [
    ("zh", "帮我找个吃饭的地方，今天晚上"),
    ("en", "need somewhere to eat, today in the evening"),
])
async def test_the_day_said_with_a_part_of_the_day_is_the_day(language: str, text: str) -> None:
    replies = await _chat(language, [text], "restaurant")
    assert (replies[-1].decision or {}).get("key") == "time"


@pytest.mark.parametrize(("language", "lines"), [
    ("en", ["I'm so tired today", "book a table for 2 at 7 pm"]),
    ("zh", ["今天好累啊", "订个位子，两个人，晚上七点"]),
])
async def test_a_day_in_small_talk_is_still_no_day(language: str, lines: list[str]) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert (replies[-1].decision or {}).get("key") == "date"


@pytest.mark.parametrize(("language", "lines", "asked", "then"), [
    ("zh", ["今晚七点四个人吃饭", "太远了，有没有近一点的", "我在朝阳区"], "想在哪一带吃？", "朝阳区"),
    ("zh", ["今晚七点四个人吃饭", "离我近一点的有吗", "海淀"], "想在哪一带吃？", "海淀区"),
    ("en", ["table for 4 tonight at 7", "hmm that's a bit far from us", "Riverside"],
     "Which area would be handy for you?", "Riverside"),
])
async def test_too_far_asks_where(language: str, lines: list[str], asked: str, then: str) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert replies[1].text.endswith(asked)
    assert (replies[2].decision or {}).get("act") == "propose" and then in replies[2].text


async def test_too_far_with_the_area_known_offers_another_there() -> None:
    replies = await _chat("en", ["table for 4 tonight at 7 in Riverside", "too far", "yes"], "restaurant")
    assert (replies[0].decision or {}).get("option") == "Sakura"
    assert (replies[1].decision or {}).get("option") == "Green Table" and "Riverside" in replies[1].text
    assert (replies[2].decision or {}).get("act") == "act"


async def test_closer_to_a_time_is_the_time() -> None:
    replies = await _chat("en", ["table for 4 tonight at 7", "could we do closer to 8 maybe"], "restaurant")
    assert "8 pm" in replies[-1].text and "area" not in replies[-1].text


# --- customer service -----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("I'd rather get a replacement than a refund I think", ["exchange"]),
    ("I'd prefer an exchange over a refund", ["exchange"]),
    ("I'd prefer a refund over an exchange", ["refund"]),
    ("I'd prefer to get a refund", ["refund"]),
    ("与其退款，我更想换一个新的", ["exchange"]),
    ("退款不如换货吧", ["exchange"]),
    ("比起退款我更想换货", ["exchange"]),
])
def test_one_preferred_over_another(text: str, expected: list[str]) -> None:
    assert rules_read("customer_service", text).get("resolution") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("与其吃火锅不如吃烤鸭", ["roast_duck"]),
    ("比起川菜，我更想吃粤菜", ["cantonese"]),
])
def test_one_kind_of_food_preferred_over_another(text: str, expected: list[str]) -> None:
    assert rules_read("restaurant", text).get("cuisine") == expected


# --- several questions in one turn ---------------------------------------------------------------

@pytest.mark.parametrize(("language", "domain", "lines", "expected"), [
    ("zh", "restaurant", ["今晚七点四个人吃饭", "订的是几点来着？几个人？"], ["晚上7点", "4个人", "要我接着订吗？"]),
    ("zh", "restaurant", ["今晚七点四个人吃饭", "人均多少？有没有包间？"], ["人均83元", "没写这个"]),
    ("zh", "in_car", ["导航去机场", "温度调到24度", "现在温度是多少？目的地是哪儿？"], ["24摄氏度", "机场"]),
    ("en", "restaurant", ["table for 4 tonight at 7", "so is it booked? what time did I say again?"],
     ["Not yet", "7 pm", "Shall I"]),
    ("en", "in_car", ["take me to the airport", "is there parking near there? and how long till we get there"],
     ["can't see parking", "how long"]),
])
async def test_each_question_in_a_turn_is_answered(language: str, domain: str, lines: list[str],
                                                   expected: list[str]) -> None:
    reply = (await _chat(language, lines, domain))[-1].text
    at = [reply.find(part) for part in expected]
    assert all(i >= 0 for i in at) and at == sorted(at), reply


async def test_one_question_asked_twice_is_answered_once() -> None:
    reply = (await _chat("en", ["table for 4 tonight at 7", "what time is it for? what time?"], "restaurant"))[-1].text
    assert reply.count("7 pm") == 1, reply


# --- a value come back to -------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("en", ["hi, I need to cancel an order, it's order 55120098",
            "oh hold on, don't cancel it actually, I'll just return it when it comes",
            "hmm no, ok, go ahead and cancel, that's easier", "yes"], "a cancellation."),
    ("zh", ["我要取消订单12345678", "等等，先别取消，我还是退款吧", "嗯，算了，还是取消吧", "对"], "取消订单。"),
])
async def test_a_cancellation_come_back_to_is_no_calling_off(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "customer_service")
    assert (replies[-1].decision or {}).get("act") == "act" and replies[-1].text.endswith(expected)


async def test_a_bare_cancel_with_no_cancellation_before_still_calls_off() -> None:
    replies = await _chat("en", ["I want a refund for order 55120098", "actually, cancel it"], "customer_service")
    assert (replies[-1].decision or {}).get("act") == "called_off"


# --- codes said in groups -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "key", "expected"), [
    ("it's order 5 5 1 2, 0 0 9 8", "order_id", "55120098"),
    ("the order is 4 5 7... uh 7 2 9 1", "order_id", "4577291"),
    ("订单号是三八二，嗯，五一九零", "order_id", "3825190"),
    ("my number is 0 7 7 0 0, 9 0 0, 1 2 3", "contact_phone", "07700900123"),
    ("我电话是一五八零零，嗯，零零零，一二一二", "contact_phone", "158000001212"),
])
def test_a_code_said_in_groups_is_one_code(text: str, key: str, expected: str) -> None:
    assert rules_read("customer_service", text).get(key) == [expected]


@pytest.mark.parametrize("text", ["table for 4, 7 pm", "order 12345, 22 people", "$12.50, 13.20"])
def test_numbers_apart_are_no_code(text: str) -> None:
    from monologue.memory.language.digits import digits_said_en
    assert digits_said_en(text) == text


# --- going back to an earlier offer -----------------------------------------------------------------

async def test_back_to_the_place_before_gives_way_over_the_price() -> None:
    replies = await _chat("zh", ["你好，帮我找个吃烤鸭的地方", "明天中午，十二点", "两个人，我跟我老婆",
                                 "太贵了，有没有便宜点的", "还是刚才那家吧", "好，订吧"], "restaurant")
    assert "赛百味" not in replies[3].text                  # no place not known to serve roast duck
    assert "金百万烤鸭店顺义店" in replies[4].text
    assert (replies[5].decision or {}).get("act") == "act" and "金百万烤鸭店顺义店" in replies[5].text


@pytest.mark.parametrize(("language", "lines", "booked"), [
    ("zh", ["想周五晚上吃涮羊肉，三个大人", "傍晚六点左右吧", "第一家是哪个？人均多少？", "换一家看看",
            "不行，还是第一个好，就订第一个", "嗯嗯，就这么定了"], "海底捞火锅西单店"),
    ("en", ["table for 2 tomorrow at 7", "anything else?", "hmm, the previous one was better actually", "yes"],
     "Chili House"),
])
async def test_an_earlier_offer_gone_back_to_is_booked(language: str, lines: list[str], booked: str) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert (replies[-1].decision or {}).get("act") == "act" and booked in replies[-1].text
    assert "看看" not in " ".join(r.text for r in replies)


async def test_which_was_the_first_asks_and_chooses_nothing() -> None:
    replies = await _chat("zh", ["想周五晚上吃涮羊肉，三个大人", "傍晚六点左右吧", "第一家是哪个？人均多少？"],
                          "restaurant")
    assert (replies[-1].decision or {}).get("act") != "confirm" and "人均83元" in replies[-1].text


@pytest.mark.parametrize(("lines", "expected"), [
    (["你好，我买的鞋子码数不对，想换一双", "订单号 DD77001234", "确认换货"], "换货。"),
    (["电饭煲坏了，订单号 88990011，能退吗？", "算了，还是退吧", "确认退款"], "退款。"),
])
async def test_confirm_with_the_resolution_files_it(lines: list[str], expected: str) -> None:
    replies = await _chat("zh", lines, "customer_service")
    # (what it files says the resolution; the fault noted may follow it: 换货，备注：你买的鞋子码数不对)
    assert (replies[-1].decision or {}).get("act") == "act" and expected.rstrip("。") in replies[-1].text


# --- the car: the way somewhere asked -------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["去颐和园怎么走"], "去颐和园。"),
    ("zh", ["去颐和园怎么走", "不对，我说的是圆明园"], "去圆明园。"),
    ("en", ["how do I get to Union Square?"], "for Union Square."),
    ("en", ["find me the nearest hospital"], "for the hospital."),
    ("zh", ["去圆明园", "那边好停车吗？"], "那边停车情况我这里看不到。"),
])
async def test_the_way_somewhere_asked_is_the_route(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert replies[-1].text.endswith(expected)


# --- held off, and what a "never mind" is of ---------------------------------------------------------

@pytest.mark.parametrize(("language", "lines"), [
    ("en", ["book me a table for ten people on Sunday at 1 pm at Chili House",
            "hmm actually no, don't book it yet, let me check with my team"]),
    ("zh", ["明天晚上七点四个人，海底捞", "先别订，我问问朋友"]),
])
async def test_not_yet_books_nothing(language: str, lines: list[str]) -> None:
    replies = await _chat(language, lines, "restaurant")
    assert (replies[-1].decision or {}).get("act") not in ("act", "called_off"), replies[-1].text


async def test_never_mind_after_a_question_is_of_the_question() -> None:
    replies = await _chat("en", ["I'd like to book for the 14th at 6 in the evening, four people",
                                 "is there a kids menu? never mind we don't need that", "ok book it"], "restaurant")
    assert (replies[1].decision or {}).get("act") != "called_off"
    assert (replies[2].decision or {}).get("act") == "act"


async def test_we_dont_need_that_alone_still_calls_it_off() -> None:
    replies = await _chat("en", ["table for two tomorrow at 8", "we don't need that anymore, thanks"], "restaurant")
    assert (replies[-1].decision or {}).get("act") == "called_off"


async def test_a_toll_free_route_avoids_tolls() -> None:
    replies = await _chat("en", ["take me home", "take the toll-free route"], "in_car")
    assert "toll road" not in replies[-1].text and "toll" in replies[-1].text


# --- a third look ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("there'll be six of us, actually scratch that, eight", [8]),
    ("six of us actually make it eight", [8]),
])
def test_a_count_put_right_after_actually(text: str, expected: list[int]) -> None:
    assert rules_read("restaurant", text).get("party_size") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("that's kinda pricey, got something cheaper?", ["cheap"]),
    ("这家有点贵，有没有便宜点的", ["cheap"]),
])
def test_what_the_offer_is_said_to_be_is_no_wish(text: str, expected: list[str]) -> None:
    assert rules_read("restaurant", text).get("price_range") == expected


def test_the_extra_charge_back_is_a_refund() -> None:
    assert rules_read("customer_service", "I want the extra charge back obviously").get("resolution") == ["refund"]


async def test_make_it_after_a_stop_replaces_the_stop() -> None:
    replies = await _chat("en", ["I wanna go home", "stop at a McDonald's on the way", "actually make it a KFC"],
                          "in_car")
    assert replies[-1].text.endswith("for home with a stop at KFC.")


async def test_make_it_after_where_to_is_where_to() -> None:
    replies = await _chat("en", ["take me to the airport", "switch to Union Station"], "in_car")
    assert replies[-1].text.endswith("for Union Station.")


@pytest.mark.parametrize(("lines", "expected"), [
    (["想听陈奕迅", "音量调低点"], "音量调小了。"),
    (["想听陈奕迅", "这首不好听，切了"], "切到下一首。"),
    (["温度调到22度", "再调低一点"], "21度了。"),
])
async def test_the_music_said_to_in_chinese(lines: list[str], expected: str) -> None:
    replies = await _chat("zh", lines, "in_car")
    assert replies[-1].text.endswith(expected)


@pytest.mark.parametrize(("language", "text", "expected"), [
    ("zh", "我屁股有点冷，开一下座椅加热", "好了，座椅加热已经打开。"),
    ("zh", "把座椅加热关了，有点热", "好了，座椅加热已经关闭。"),
    ("en", "I'm freezing, turn on the seat heating", "Done: I've turned the seat heating on."),
])
async def test_a_feeling_met_by_a_command_asks_nothing_more(language: str, text: str, expected: str) -> None:
    replies = await _chat(language, [text], "in_car")
    assert replies[-1].text == expected


# --- kept as they were (the review) -----------------------------------------------------------------

@pytest.mark.parametrize("line", ["确认地址", "确认不了", "确认人数"])
async def test_confirm_with_anything_else_is_no_yes(line: str) -> None:
    replies = await _chat("zh", ["我要退款，订单号55120098", line], "customer_service")
    assert (replies[-1].decision or {}).get("act") != "act", replies[-1].text


@pytest.mark.parametrize(("domain", "text", "key", "expected"), [
    ("in_car", "I'd prefer you take me to the airport", "destination", ["airport"]),
    ("restaurant", "I'd rather sit outside, we are more than 6 people", "party_size", [6]),
    ("restaurant", "今晚不如吃火锅吧，四个人，七点", "date", ["today"]),
    ("customer_service", "order 12345, 15 kg, arrived broken", "order_id", ["12345"]),
    ("customer_service", "the order is 12345, 99 was the price", "order_id", ["12345"]),
])
def test_no_preference_and_no_code_read_where_none_is_said(domain: str, text: str, key: str,
                                                            expected: list[object]) -> None:
    assert rules_read(domain, text).get(key) == expected


@pytest.mark.parametrize(("language", "line"), [
    ("en", "the previous one was too expensive though"),
    ("en", "what was the previous one called?"),
    ("zh", "别订刚才那家"),
    ("zh", "上一家不行，太贵"),
])
async def test_the_earlier_one_turned_down_or_asked_about_is_not_chosen(language: str, line: str) -> None:
    first = ["table for 2 tomorrow at 7", "anything else?"] if language == "en" \
        else ["明天晚上七点两个人吃火锅", "换一家"]
    replies = await _chat(language, [*first, line], "restaurant")
    assert (replies[-1].decision or {}).get("act") != "confirm", replies[-1].text


async def test_putting_the_roof_up_moves_no_temperature() -> None:
    replies = await _chat("en", ["set the temperature to 20", "put the roof up"], "in_car")
    assert "degrees" not in replies[-1].text


@pytest.mark.parametrize(("lines", "act"), [
    (["table for 4 tonight at 7", "is it still open? never mind, we don't need it anymore"], "called_off"),
    (["table for 4 tonight at 7", "yes book it, don't send me emails though"], "act"),
])
async def test_a_question_or_a_side_request_beside_the_answer(lines: list[str], act: str) -> None:
    replies = await _chat("en", lines, "restaurant")
    assert (replies[-1].decision or {}).get("act") == act, replies[-1].text


async def test_a_question_of_distance_asks_no_area() -> None:
    replies = await _chat("en", ["table for 4 tonight at 7", "is it far from the station?"], "restaurant")
    assert "area" not in replies[-1].text


async def test_what_alone_adds_no_answer() -> None:
    replies = await _chat("en", ["table for 4 tonight at 7", "what? how many people did I say?"], "restaurant")
    assert replies[-1].text.startswith("The party size you gave me is 4 people.")


async def test_a_wish_not_to_wait_is_kept() -> None:
    replies = await _chat("en", ["table for 4 tonight at 7", "we'd like somewhere we don't have to wait"], "restaurant")
    assert "wait" in replies[-1].text


async def test_cancel_with_a_word_of_dropping_it_calls_the_ticket_off() -> None:
    replies = await _chat("zh", ["我要取消订单12345678", "等等，先别取消，我还是退款吧", "那就取消吧，不弄了"],
                          "customer_service")
    assert (replies[-1].decision or {}).get("act") == "called_off"


async def test_hold_on_after_a_pause_plays_nothing() -> None:
    replies = await _chat("en", ["pause the song", "hold on."], "in_car")
    assert "playing" not in replies[-1].text


async def test_a_question_of_the_task_itself_then_a_drop_calls_it_off() -> None:
    replies = await _chat("en", ["table for two tomorrow at 8", "do we even need this? forget it, we don't need that"],
                          "restaurant")
    assert (replies[-1].decision or {}).get("act") == "called_off"


@pytest.mark.parametrize(("line", "name"), [
    ("好的没问题，订，我是孙经理，电话13088887777", "孙经理"),
    ("就写王总吧", "王总"),
])
async def test_a_surname_with_a_title_of_work_is_the_name(line: str, name: str) -> None:
    replies = await _chat("zh", ["周三晚上七点五个人，日料", line], "restaurant")
    assert name in replies[-1].text, replies[-1].text
