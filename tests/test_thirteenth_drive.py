"""What users said in English and Mandarin (2026-12-07, thirteenth test drive) and was misread.

- A call back: "call me back after five" was no time at all, "call me before noon" was noon itself, and
  明天下午三点以后给我回电话 kept only 15:00 (the day was lost and "after" with it): a time the key takes as a
  bound is held as one (>= 17:00, <= 12:00) and read back so ("after 5 pm", 下午3点以后), and a day said of
  the call back is its own (`day_of`), not the delivery date.
- Codes: "seven seven four, three oh two, one nine" (a two-digit last group), "Q Z nine one, uh, five five oh
  three" and "W R dash two zero seven seven five eight" (letters spelled apart) were lost or lost their letters;
  "555 201 8890", said alone after "phone is best", replaced the order number; "phone is best" was not heard.
- A question that offered a value ("should I change it to 1 pm?") stayed open for four turns and a later
  "Correct. Start navigation." agreed to it; "Take it down by one" (the fan) had offered 1 pm to begin with.
- "make it a quarter past seven, the sitter only gets there at half six" booked 6:30; 插上电按了半天，一点不热
  was a call back at 1 pm; 哦不对，航班改了，是三号航站楼，不是二号 drove to 航班.
- "Could you read back what you have for the trip?" was "I don't have the seat yet."; "what did you put down
  for when to call me?" named the contact method; "So far I have noting it still hasn't come"; "no idea" to
  "What's the order number?" was kept as a note on the ticket.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


def _read_with_comparators(domain: str, text: str, held: dict[str, object] | None = None) -> dict[str, tuple[str, Any]]:
    """key → (comparator, value) of what the rules set from `text`."""
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor
    from monologue.memory.working.state import Comparator, Condition, Op, SessionState

    state = SessionState("drive")
    for key, value in (held or {}).items():
        state.constraints[key] = Condition(key, Comparator.EQ, value, str(value), 1, 1.0)
    return {op.key: (op.comparator.value, op.value) for op in RuleExtractor(load_schema(domain)).extract(text, state)
            .operations if op.op == Op.SET and op.key}


# --- a call back: a bound, and its own day -----------------------------------------------------------

@pytest.mark.parametrize(("text", "time", "day"), [
    ("call me back after five", (">=", "17:00"), None),
    ("any time after 3pm is fine for a callback", (">=", "15:00"), None),
    ("call me before noon", ("<=", "12:00"), None),
    ("you can reach me by 4", ("<=", "16:00"), None),
    ("call me at 5", ("=", "17:00"), None),
    ("call me back tomorrow after five", (">=", "17:00"), ("=", "tomorrow")),
    ("明天下午三点以后给我回电话", (">=", "15:00"), ("=", "tomorrow")),
    ("回电话打我手机，明天下午三点以后都行", (">=", "15:00"), ("=", "tomorrow")),
    ("十二点之前打给我", ("<=", "12:00"), None),
    ("三点回电", ("=", "15:00"), None),
])
def test_a_call_back_time_said_with_after_or_before_is_a_bound(text: str, time: tuple[str, str],
                                                               day: tuple[str, str] | None) -> None:
    read = _read_with_comparators("customer_service", text)
    assert read["contact_time"] == time
    assert read.get("contact_day") == day
    assert "delivery_date" not in read


@pytest.mark.parametrize(("text", "key", "day"), [
    ("it was delivered on Monday", "delivery_date", "monday"),
    ("周五送到的，下周一打电话给我", "contact_day", "next monday"),
])
def test_a_day_goes_to_the_key_its_clause_is_about(text: str, key: str, day: str) -> None:
    assert rules_read("customer_service", text)[key] == [day]


def test_a_time_bound_is_only_read_where_the_key_takes_bounds() -> None:
    # (a table "after seven" is no bound the booking can use: the time key of the restaurant takes none)
    assert _read_with_comparators("restaurant", "a table at 7pm")["time"] == ("=", "19:00")
    assert "time" not in _read_with_comparators("restaurant", "we can't come before five")


@pytest.mark.parametrize(("language", "lines", "read_back", "answer"), [
    ("en", ["my blender order 5521 8830 never arrived", "I just want my money back",
            "you can call me tomorrow after three", "my cell is 617 555 2231",
            "what did you put down for the callback?", "sounds good"],
     "tomorrow after 3 pm", "The callback time is tomorrow after 3 pm."),
    ("zh", ["订单号B7788123，衣服尺码不对", "换货", "后天上午十点之前打我电话", "我手机13911112222",
            "回电时间是几点来着", "好的提交吧"],
     "后天上午10点以前", "回电时间是后天上午10点以前。"),
])
async def test_a_call_back_bound_is_read_back_asked_about_and_kept_through_the_yes(
        language: str, lines: list[str], read_back: str, answer: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert read_back in replies[3].text
    assert replies[4].text.startswith(answer)
    assert read_back in replies[5].text            # (the yes keeps the bound: it is not made 3 pm itself)


async def test_when_to_call_asks_the_call_back_time_and_no_day_is_not_missing() -> None:
    replies = await policy_replies("en", ["order 4417 2290, the kettle leaks", "refund", "call me after ten",
                                          "my number is 415 555 0192", "what did you put down for when to call me?"],
                                   "customer_service")
    assert replies[4].text.startswith("After 10 am.")


# --- codes said in groups and with their letters apart -------------------------------------------------

@pytest.mark.parametrize(("text", "held", "expected"), [
    ("oh the number... it's on this paper somewhere... seven seven four, three oh two, one nine", {},
     {"order_id": ["77430219"]}),
    ("the order's, like, Q Z nine one, uh, five five oh three", {}, {"order_id": ["QZ915503"]}),
    ("the order number is, hold on, W R dash two zero seven seven five eight", {}, {"order_id": ["WR207758"]}),
    ("555 201 8890", {"order_id": "33017745"}, {"contact_phone": ["5552018890"]}),
    ("13812345678", {"order_id": "A1234567"}, {"contact_phone": ["13812345678"]}),
    ("my order is 555 201 8890", {}, {"order_id": ["5552018890"]}),
    ("number is three one two, eight eight four, seven zero one six", {"order_id": "QZ915503"},
     {"contact_phone": ["3128847016"]}),
    ("phone is best", {}, {"contact_method": ["phone"]}),
    ("email works best", {}, {"contact_method": ["email"]}),
    ("my phone is the best one I have owned, and it broke", {}, {}),
])
def test_codes_and_phone_numbers_said_in_groups(text: str, held: dict[str, object],
                                                expected: dict[str, list[object]]) -> None:
    read = rules_read("customer_service", text, held)
    assert {k: v for k, v in read.items() if k in ("order_id", "contact_phone", "contact_method")} == expected


def test_a_phone_number_answers_the_order_number_when_that_was_asked() -> None:
    from monologue.memory.language.digits import digits_said_en

    assert digits_said_en("table for four, seven thirty") == "table for four, seven thirty"
    assert digits_said_en("I paid one twenty nine, ninety nine") == "I paid one twenty nine, ninety nine"
    assert digits_said_en("order 12345, 15 kg") == "order 12345, 15 kg"


# --- a question left unanswered lapses -------------------------------------------------------------------

async def test_a_question_the_user_went_past_is_not_agreed_to_later() -> None:
    replies = await policy_replies("en", [
        "Navigate to 1450 Harbor Boulevard in Oxnard, I need to arrive by seven thirty in the morning.",
        "Set the fan to four.", "That is too strong. Take it down by one.", "Set the music volume to twelve.",
        "Please switch the air to recirculate.", "Could you read back what you have for the trip?",
        "Correct. Start navigation."], "in_car")
    assert "1 pm" not in replies[2].text and "level 3" in replies[2].text
    assert replies[5].text.startswith("Here's what I have so far: 1450 Harbor Boulevard")
    assert "7:30 am" in replies[6].text and "1 pm" not in replies[6].text


async def test_a_change_question_answered_next_turn_still_applies() -> None:
    replies = await policy_replies("en", ["take me to the airport, arriving by 7 am", "actually arriving by 9 am",
                                          "yes"], "in_car")
    assert "9 am" in replies[2].text


# --- the time said after a word of change, not the one in its reason -----------------------------------------

@pytest.mark.parametrize(("text", "held", "expected"), [
    ("oh wait, make it a quarter past seven, the sitter only gets there at half six", {"time": "19:00"}, "19:15"),
    ("change it to 7, no wait, 8", {"time": "19:00"}, "20:00"),
])
def test_the_time_after_the_word_of_change(text: str, held: dict[str, object], expected: str) -> None:
    assert rules_read("restaurant", text, held)["time"] == [expected]


@pytest.mark.parametrize(("text", "expected"), [
    ("插上电按了半天，一点不热", None), ("一点都没反应", None), ("一点不行，两点吧", "14:00"), ("一点钟回电", "13:00"),
])
def test_yidian_bu_is_not_at_all_not_one_oclock(text: str, expected: str | None) -> None:
    assert rules_read("customer_service", text).get("contact_time") == ([expected] if expected else None)


@pytest.mark.parametrize(("text", "expected"), [
    ("That is too strong. Take it down by one.", None), ("I need to be there by one", "13:00"),
])
def test_by_one_after_a_step_is_how_far(text: str, expected: str | None) -> None:
    read = rules_read("in_car", text, {"fan_speed": "up", "arrival_time": "07:30"})
    assert read.get("arrival_time") == ([expected] if expected else None)


@pytest.mark.parametrize(("text", "expected"), [
    ("哦不对，航班改了，是三号航站楼，不是二号", "首都机场三号航站楼"),
    ("是三号航站楼不是二号", "首都机场三号航站楼"),
    ("换成一号航站楼", "首都机场一号航站楼"),
    ("哦不对，航班改了", None),
])
def test_a_terminal_put_right_as_the_one_it_is_then_the_one_it_is_not(text: str, expected: str | None) -> None:
    read = rules_read("in_car", text, {"destination": "首都机场二号航站楼"})
    assert read.get("destination") == ([expected] if expected else None)


# --- the read-back -----------------------------------------------------------------------------------------

async def test_what_is_held_is_said_as_a_note_and_not_knowing_is_no_note() -> None:
    replies = await policy_replies("en", ["my package never showed up, it still has not come",
                                          "no idea", "no idea", "no idea"], "customer_service")
    stuck = [reply.text for reply in replies if reply.text.startswith("So far I have")]
    assert stuck and all("a note that your package never showed up;" in text for text in stuck)
    assert all("no idea" not in reply.text and "have noting" not in reply.text for reply in replies)


# --- second part of the drive: the car, the table and the ticket in everyday words ---------------------------

@pytest.mark.parametrize(("text", "held", "expected"), [
    ("没问题了，开吧", {"window": "closed", "seat_heating": "off"}, {}),
    ("开吧", {"window": "closed"}, {}),
    ("嗯那个，别走高速了，走高速她更难受", {}, {"route_preference": ["avoid_highways"]}),
    ("别走高速了，今天走高速吧", {}, {"route_preference": ["avoid_highways"], "route_today": ["use_highways"]}),
    ("两点前得到软件园", {}, {"arrival_time": ["14:00"]}),
    ("凌晨两点前到机场", {}, {"arrival_time": ["02:00"], "destination": ["airport"]}),
    ("ok turn the seat heater off, my back's roasting now", {}, {"seat_heating": ["off"]}),
    ("move my seat back", {}, {"seat_position": ["back"]}),
])
def test_the_car_hears_what_is_asked_of_it(text: str, held: dict[str, object],
                                           expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text, held) == expected


@pytest.mark.parametrize(("text", "key", "expected"), [
    ("联系人写宫小川，手机一八六，零幺幺二，七七五零", "guest_name", ["宫小川"]),
    ("来个宫保鸡丁", "guest_name", None),
    ("and my brother can't do gluten", "dietary", ["gluten"]),
    ("I can't do spicy food", "dietary", ["spicy"]),
])
def test_the_table_hears_names_and_what_guests_cannot_eat(text: str, key: str, expected: list[object] | None) -> None:
    assert rules_read("restaurant", text).get(key) == expected


async def test_tonight_said_before_the_wish_is_kept() -> None:
    replies = await policy_replies("zh", ["呃，那个，今晚想出去吃口饭，也没想好吃啥", "海淀区吧，别太贵",
                                          "俩人，七点半左右"], "restaurant")
    assert "想订哪一天" not in replies[1].text and "今天" in replies[2].text


@pytest.mark.parametrize(("text", "expected"), [
    ("订单号是 M T 八八，零六，幺四五二", {"order_id": ["MT88061452"]}),
    ("多扣的那笔给我退回来", {"resolution": ["refund"]}),
    ("I just want the second one reversed, obviously", {"resolution": ["refund"]}),
    ("could you find out where it's got to?", {"resolution": ["trace"]}),
    ("it was forty nine dollars and fifty cents", {"amount": [49.5]}),
    ("it was a hundred and twenty nine ninety nine, and there's two of those on my statement", {"amount": [129.99]}),
    ("the total was two forty nine ninety nine", {"amount": [249.99]}),
    ("it cost three hundred twenty dollars", {"amount": [320]}),
    ("明天上午十点左右打过来", {"contact_time": ["10:00"], "contact_day": ["tomorrow"]}),
    ("hmm, make that an hour later, I'm at the dentist till five thirty", {"contact_time": ["17:30"]}),
])
def test_the_ticket_hears_codes_sums_and_what_is_wanted(text: str, expected: dict[str, list[object]]) -> None:
    read = rules_read("customer_service", text)
    assert {k: v for k, v in read.items() if k in expected} == expected
    assert "delivery_date" not in read


@pytest.mark.parametrize("text", [
    "你好，我昨天在你们那下单买了两盒猫粮，结果支付宝扣了我两回钱",
    "喂？我在你们这儿买了件卫衣，要的是藏青色，结果寄来个土黄色的",
    "我十五号下的单，一个保温杯，到今天快递还是没动静",
])
def test_an_opening_complaint_is_understood(text: str) -> None:
    from fakes import rules_ops

    ops = rules_ops("customer_service", text)
    assert ("set_goal", "") in ops and ("set", "problem_details") in ops
    assert ("set", "delivery_date") not in ops


def test_a_sum_with_its_hundreds_left_out() -> None:
    from monologue.memory.language.numbers import to_amount

    assert to_amount("two forty nine ninety nine") == 249.99
    assert to_amount("nine oh five fifty") == 905.5
    assert to_amount("one fifty nine") is None          # ($1.59 or $159: asked)
    assert to_amount("one hundred twenty five") == 125


async def test_a_places_price_is_said_in_words() -> None:
    replies = await policy_replies("en", ["somewhere quiet downtown, French would be nice", "Maison Blanc sounds good",
                                          "what is the price range there?"], "restaurant")
    assert "ultra_high_end" not in replies[2].text
    assert "Maison Blanc is in the ultra high-end price range." in replies[2].text


@pytest.mark.parametrize(("lines", "expected"), [
    (["book a table for 6 at Seoul Kitchen on Thursday at 7:30 pm",
      "can we do eight instead, people get off work late"], "at 8 pm for 6 people"),
    (["book a table for 6 at Seoul Kitchen on Thursday at 7:30 pm", "make it eight"], "at 7:30 pm for 8 people"),
    (["we are eight. well, nine if my aunt makes it. let us just say nine", "what's the party size?"], "9"),
])
async def test_a_bare_number_settles_the_count_or_the_hour_its_reason_names(lines: list[str], expected: str) -> None:
    replies = await policy_replies("en", lines, "restaurant")
    assert expected in replies[-1].text


async def test_busy_until_is_no_note_and_no_bound() -> None:
    replies = await policy_replies("en", ["order 4417 2290, the kettle leaks", "refund", "call me at five",
                                          "hmm, make that an hour later, I am at the dentist till five thirty"],
                                   "customer_service")
    assert "at 6 pm" in replies[3].text and "dentist" not in replies[3].text


# --- what the replay of the drive on the new build found ---------------------------------------------------

async def test_a_dash_said_in_a_code_answers_the_order_number_asked_for() -> None:
    replies = await policy_replies("en", ["hi, my kettle is broken",
                                          "the order number is, hold on, W R dash two zero seven seven five eight"],
                                   "customer_service")
    assert "What's the order number?" not in replies[1].text      # (held: WR207758; the resolution is asked)


async def test_after_a_question_about_other_things_a_bare_verb_opens_nothing() -> None:
    replies = await policy_replies("zh", ["导航去中关村软件园，两点前得到", "把车窗全关上吧，外面太吵",
                                          "你再说一遍现在温度多少，几点前到？", "没问题了，开吧"], "in_car")
    assert "车窗" not in replies[3].text and "中关村软件园" in replies[3].text


async def test_a_bare_verb_after_asking_about_that_control_goes_on_with_it() -> None:
    replies = await policy_replies("en", ["turn the fan up", "what is the fan on now?", "a bit more"], "in_car")
    assert replies[2].text == "Done: I've turned the fan up."


async def test_a_correction_opening_with_no_is_applied_not_asked() -> None:
    replies = await policy_replies("en", ["take me to Valley Fair mall, I have to be there by nine fifteen",
                                          "oh shoot, no, the interview's at nine forty five, so push that back half "
                                          "an hour"], "in_car")
    assert "9:45" in replies[1].text and "should I change" not in replies[1].text


@pytest.mark.parametrize(("text", "key", "expected"), [
    ("你好，我上周买的空气炸锅，插上电按了半天，一点不热", "contact_time", None),
    ("哦明天上午有事，往后挪到下午两点吧", "delivery_date", None),
    ("For the callback, Sunday.", "contact_day", ["sunday"]),
    ("麻烦周日回复我。", "contact_day", ["sunday"]),
    ("The box was crushed, Monday.", "delivery_date", ["monday"]),
])
def test_days_and_times_go_where_their_words_say(text: str, key: str, expected: list[object] | None) -> None:
    assert rules_read("customer_service", text).get(key) == expected


def test_a_purchase_told_with_its_fault_opens_the_ticket() -> None:
    from fakes import rules_ops

    assert ("set_goal", "") in rules_ops("customer_service", "你好，我上周买的空气炸锅，插上电按了半天，一点不热")


# --- the held-out drive after the fixes --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("往后推二十分钟", ["09:50"]),
    ("push it back twenty minutes", ["09:50"]),
    ("对方说他也晚点，时间往后推二十分钟", ["09:50"]),
])
def test_a_while_said_moves_the_time_though_its_back_is_a_seats_word(text: str, expected: list[object]) -> None:
    read = rules_read("in_car", text, {"arrival_time": "09:30"})
    assert read.get("arrival_time") == expected and "seat_position" not in read


@pytest.mark.parametrize(("text", "expected"), [
    ("驾驶座往前挪一点儿", {"seat_position": ["forward"]}),
    ("收费的路就别走了啊", {"route_preference": ["avoid_tolls"]}),
    ("高速不走了", {"route_preference": ["avoid_highways"]}),
    ("路上买个早饭", {"stops": ["food"]}),
    ("路上开快点，早点到", {}),
    ("move my seat back a bit", {"seat_position": ["back"]}),
])
def test_everyday_mandarin_commands_in_the_car(text: str, expected: dict[str, list[object]]) -> None:
    read = rules_read("in_car", text)
    assert {k: v for k, v in read.items() if k != "wishes"} == expected


def test_a_stop_to_fill_up_said_as_a_chore() -> None:
    assert rules_read("in_car", "去首钢园，顺路找个地方把油加了").get("stops") == ["fuel"]


@pytest.mark.parametrize(("domain", "lines", "answer"), [
    ("in_car", ["take me to the Union City BART station", "and set the fan to two", "which station did I say again?"],
     "Union City BART station"),
    ("customer_service", ["order 4417 2290, the kettle leaks, I paid 45 dollars", "refund",
                          "how much did you note down for the order?"], "The amount is $45."),
])
async def test_a_question_about_what_is_held_by_a_word_of_it(domain: str, lines: list[str], answer: str) -> None:
    replies = await policy_replies("en", lines, domain)
    assert answer in replies[-1].text


@pytest.mark.parametrize(("held", "text", "expected"), [
    ({"contact_day": "friday"}, "周五换成周六。", {"contact_day": ["saturday"]}),
    ({"contact_day": "friday"}, "Instead of Friday, let's do Saturday.", {"contact_day": ["saturday"]}),
    ({"delivery_date": "friday"}, "回电的话周五吧", {"contact_day": ["friday"]}),
])
def test_a_day_another_key_holds_is_that_keys_being_changed(held: dict[str, object], text: str,
                                                            expected: dict[str, list[object]]) -> None:
    read = rules_read("customer_service", text, held)
    assert {k: v for k, v in read.items() if k in ("contact_day", "delivery_date")} == expected
