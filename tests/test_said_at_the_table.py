"""What a new user said to the restaurant and customer-service agents (2026-12-05) and was misread.

- A yes/no question about the place on offer ("can I bring my dog?", 有包间吗) was "I see" or
  answered as the user's own seat; it is now answered from the place's listing, or said not to
  be there (with the place's phone, where it has one).
- A booking made could not be cancelled ("I need to cancel that, something came up" was kept as
  a wish), and a task could not be called off (算了，不订了 was asked the date again).
- Small talk with a word of liking in it (今天天气真不错) booked the table; 不错 was a no.
- 今晚七点 lost its day; "two adults and two kids" was a party of two.
- A refusal reached past its clause or a correction: "if it doesn't come I just want a refund",
  那我不要了，退款吧 and "no actually the refund is fine" were stored as "not a refund".
"""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.memory.domain.schema import load_schema
from monologue.memory.language.place_questions import asks_about_a_place
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import Comparator, Op
from monologue.memory.working.turn_classes import calls_off
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM, steady

TABLE = RuleExtractor(load_schema("restaurant"))
SERVICE = RuleExtractor(load_schema("customer_service"))
BOOK = load_schema("restaurant").actions["book"]
TICKET = load_schema("customer_service").actions["open_ticket"]


async def _chat(language: str, lines: list[str], domain: str = "restaurant"):
    overrides = steady(monologue={"llm_mode": "never", "domain": domain}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    return await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))


def _set(extractor: RuleExtractor, text: str, key: str) -> tuple[Comparator | None, object] | None:
    found = [(op.comparator, op.value) for op in extractor.extract(text).operations
             if op.op == Op.SET and op.key == key]
    return found[0] if found else None


# --- questions about the place on offer ------------------------------------------------------------

async def test_a_question_about_the_place_is_answered_from_its_listing() -> None:
    result = await _chat("en", ["a table for two tomorrow at 7pm, somewhere italian", "do they have parking?",
                                "can I bring my dog?", "is there a private room?", "ok book it"])
    offer, parking, dog, room, booked = (t.reply for t in result.turns)
    assert "Luigi's Trattoria" in offer.text
    assert parking.text.startswith("I can't tell: Luigi's Trattoria's listing doesn't say.")
    assert dog.text.startswith("I can't tell")
    assert room.text.startswith("No: Luigi's Trattoria's seating is indoor, outdoor or window, not private room.")
    assert booked.decision["act"] == "act"      # the offer stayed open through the questions


async def test_a_question_about_the_place_in_chinese_gives_its_phone() -> None:
    result = await _chat("zh", ["我想订一家川菜馆，明天晚上七点，四个人", "可以带狗吗", "有包间吗", "有没有别的",
                                "还有位子吗"])
    offer, dog, room, other, seats = (t.reply for t in result.turns)
    place = offer.decision["option"]
    assert dog.text.startswith(f"{place}的资料里没写这个，可以打电话问问：")
    assert room.text.startswith(f"{place}的资料里没写这个")         # not 座位还没定
    assert other.decision["act"] == "propose" and other.decision["option"] != place   # another place, not the listing
    assert "资料里没写" not in seats.text                               # whether it can be booked is the booking's


async def test_a_place_described_as_asked_is_read_from_its_description() -> None:
    result = await _chat("en", ["somewhere cheap tomorrow at 8 for 3 please", "is it kid friendly?",
                                "is it going to rain tomorrow?"])
    offer, kids, rain = (t.reply for t in result.turns)
    assert offer.decision["args"]["party_size"] == 3          # "for 3 please"
    assert "kid friendly" in kids.text
    assert "the date is" not in rain.text.lower()             # no check of the booking's day


async def test_a_place_fact_asked_before_any_place_is_offered_says_so() -> None:
    result = await _chat("zh", ["营业到几点啊"])
    assert result.turns[0].reply.text.startswith("还没选好餐厅")   # not 时间还没定


# --- cancelling and calling off ------------------------------------------------------------------

async def test_a_booking_made_is_read_back_then_cancelled_and_can_be_made_again() -> None:
    result = await _chat("en", ["a table for two tomorrow at 7pm, somewhere italian", "yes please",
                                "oh no, wait, I need to cancel that, something came up", "yes",
                                "what did I book?", "actually, book it again for Friday", "yes"])
    _, booked, asked, cancelled, what, again, rebooked = (t.reply for t in result.turns)
    assert booked.decision["act"] == "act"
    assert asked.decision["act"] == "ask_undo" and asked.text.startswith("Shall I cancel the booking: Luigi's")
    assert cancelled.decision["act"] == "undone" and cancelled.text == \
        "Okay, I've cancelled the booking at Luigi's Trattoria."
    assert what.text.startswith("I've cancelled the booking at Luigi's Trattoria.")
    assert "something came up" not in again.text                 # the reason for cancelling is no wish
    assert again.decision["act"] == "confirm" and rebooked.decision["act"] == "act"
    assert rebooked.decision["args"]["date"] == "friday" and not rebooked.decision.get("rebooks")


async def test_a_cancel_not_confirmed_keeps_the_booking() -> None:
    result = await _chat("en", ["a table for 2 tomorrow at 7 somewhere italian", "yes", "cancel it", "no, keep it",
                                "what happens if I cancel it?",
                                "thanks! we don't want a table near the kitchen though"])
    _, _, asked, kept, what_if, aside = (t.reply for t in result.turns)
    assert asked.decision["act"] == "ask_undo"
    assert kept.text == "Okay, the booking stays as it is."
    for reply in (what_if, aside):
        assert reply.decision["act"] not in ("ask_undo", "undone"), reply.text


async def test_a_change_after_the_booking_changes_it_instead_of_booking_twice() -> None:
    result = await _chat("en", ["a table for 2 tomorrow at 7 somewhere italian", "yes", "push it back an hour", "yes"])
    _, booked, read_back, changed = (t.reply for t in result.turns)
    assert read_back.text.startswith("So the booking becomes Luigi's Trattoria tomorrow at 8 pm")
    assert changed.decision["act"] == "act" and changed.decision["args"]["time"] == "20:00"
    assert changed.text.startswith("Done: I've changed the booking; it's now Luigi's Trattoria")


async def test_a_chinese_booking_is_cancelled_or_moved() -> None:
    result = await _chat("zh", ["帮我订明天晚上七点，两个人", "好的", "哎呀，不好意思，帮我取消掉吧", "对",
                                "帮我订后天晚上七点，两个人", "好", "好"])
    _, booked, asked, cancelled, again, read_back, rebooked = (t.reply for t in result.turns)
    assert asked.decision["act"] == "ask_undo" and asked.text.startswith("要取消这个订位吗")
    assert cancelled.decision["act"] == "undone" and cancelled.text.endswith("的订位已取消。")
    assert rebooked.decision["act"] == "act"
    result = await _chat("zh", ["帮我订明天晚上七点，两个人", "好的", "帮我取消掉吧", "那改成后天吧", "好"])
    _, _, _, moved, done = (t.reply for t in result.turns)
    assert moved.text.startswith("订位改成：") and done.text.startswith("好了，订位已经改好：")


@pytest.mark.parametrize(("language", "lines"), [
    ("zh", ["订个位子，今晚七点，三个人", "算了，不订了", "今天天气真不错", "好"]),
    ("en", ["I want to book dinner for 4 on Saturday", "forget it, I'll just cook at home", "how are you?", "ok"]),
])
async def test_a_task_called_off_is_not_pressed_again(language: str, lines: list[str]) -> None:
    result = await _chat(language, lines)
    replies = [t.reply for t in result.turns]
    assert replies[1].decision["act"] == "called_off"
    for reply in replies[2:]:
        assert reply.decision["act"] not in ("ask", "propose", "confirm", "act", "resume"), reply.text


async def test_a_ticket_called_off_stays_off() -> None:
    result = await _chat("zh", ["我的订单一直没发货", "订单号 7730012", "那我不要了，退款吧",
                                "算了算了，不退了，我再等等", "帮我把工单取消吧"], domain="customer_service")
    replies = [t.reply for t in result.turns]
    assert replies[2].decision["args"]["resolution"] == "refund"      # 不要了 does not reach past its comma
    assert replies[3].decision["act"] == "called_off" and replies[4].decision["act"] == "called_off"
    assert "再确认" not in replies[4].text


@pytest.mark.parametrize(("text", "booking", "ticket"), [
    ("oh no, wait, I need to cancel that, something came up", True, True),
    ("forget it, I'll just cook at home", True, True),
    ("算了，不订了", True, False),
    ("cancel the booking please", True, False),
    ("we don't need the table anymore", True, False),
    ("不用了，谢谢", True, True),
    ("算了算了，不退了，我再等等", True, True),
    ("please don't cancel it", False, False),
    ("不要取消", False, False),
    ("I want to cancel my order", False, False),     # a customer's request, not calling the ticket off
    ("what happens if I cancel it?", False, False),
    ("should I cancel it?", False, False),
    ("I never said cancel it", False, False),
    ("我不想取消，只是问问", False, False),
    ("我的订单被莫名其妙取消了", False, False),
    ("千万别给我取消了", False, False),
    ("迟到会不会取消", False, False),
    ("I don't want a table outside", False, False),      # another table, not none
    ("I don't want to go anywhere too loud", False, False),
    ("辣的我们就不吃了", False, False),
    ("can you cancel the booking?", True, False),
    ("能帮我取消吗", True, True),
    ("我们就不去了", True, False),
    ("取消订单", False, False),
    ("不订海底捞了", False, False),                    # a place turned down
    ("never mind, make it 7", False, False),
])
def test_what_calls_a_task_off(text: str, booking: bool, ticket: bool) -> None:
    assert bool(calls_off(text, BOOK)) is booking
    assert bool(calls_off(text, TICKET)) is ticket


# --- yes, no and the day ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "act"), [
    ("今天天气真不错", "resume"),      # about the weather: no yes
    ("菜看着不错", "resume"),
    ("不错", "act"),                  # "not bad": a yes, not a no
    ("嗯，不错，就这家", "act"),
    ("不错不错", "act"),              # no A-not-A question
    ("听起来不错", "act"),
    ("这家挺好的", "act"),
])
async def test_a_word_of_liking_is_a_yes_only_when_said_of_the_offer(text: str, act: str) -> None:
    result = await _chat("zh", ["帮我订明天晚上七点，两个人", text])
    decision = result.turns[1].reply.decision
    assert decision["act"] == act or (act == "resume" and decision.get("then", {}).get("act") == "resume"), decision


async def test_tonight_with_a_time_is_the_day() -> None:
    result = await _chat("zh", ["订个位子，今晚七点，三个人"])
    assert result.turns[0].reply.decision["args"]["date"] == "today"
    result = await _chat("zh", ["我想订个餐厅", "今天晚上", "今天好累啊"])
    assert result.turns[1].reply.decision["key"] == "time"             # the day is taken
    assert result.turns[2].reply.decision.get("then", {}).get("key") == "time"


# --- what was said, read right -------------------------------------------------------------------

@pytest.mark.parametrize(("text", "count"), [
    ("two adults and two kids", 4),
    ("we are 3 adults, 1 child", 4),
    ("哈哈好吧，帮我订个周末的位子，两个大人带一个小孩", 3),
    ("三个大人两个小孩", 5),
    ("四个大人", 4),
    ("我们三个人，两个大人一个孩子", 3),      # the whole said first: its parts add nothing
    ("table for 4, 2 adults and 2 kids", 4),
])
def test_a_party_said_in_groups_is_counted_whole(text: str, count: int) -> None:
    assert _set(TABLE, text, "party_size") == (Comparator.EQ, count)


def test_my_kids_alone_are_not_the_party() -> None:
    assert _set(TABLE, "I'm bringing my 2 kids", "party_size") is None


@pytest.mark.parametrize(("text", "value"), [
    ("ugh fine, if it doesn't come i just want a refund", "refund"),
    ("那我不要了，退款吧", "refund"),
    ("no actually the refund is fine, let's go with that", "refund"),
    ("I'd rather have it swapped for a new one", "exchange"),
    ("hmm actually, could you just send me a new pair instead", "exchange"),
    ("能给我换个新的吗", "exchange"),
    ("can you just get it fixed", "repair"),
])
def test_the_resolution_wanted_is_read_as_wanted(text: str, value: str) -> None:
    assert _set(SERVICE, text, "resolution") == (Comparator.EQ, value)


@pytest.mark.parametrize("text", ["I don't want a refund", "不要退款"])
def test_a_refused_resolution_is_still_refused(text: str) -> None:
    assert _set(SERVICE, text, "resolution") == (Comparator.NE, "refund")


async def test_asked_whether_it_is_a_person_it_answers() -> None:
    result = await _chat("en", ["hello! are you a real person?", "I want to talk to a real person"])
    asked, wanted = (t.reply for t in result.turns)
    assert asked.decision["act"] != "handover" and "not a person" in asked.text
    assert wanted.decision["act"] == "handover"
    result = await _chat("zh", ["你是真人吗", "我要找真人"])
    assert result.turns[0].reply.decision["act"] != "handover" and result.turns[1].reply.decision["act"] == "handover"


async def test_a_question_that_checks_the_booking_still_checks_it() -> None:
    result = await _chat("en", ["a table for 2 today at 7 somewhere italian", "yes",
                                "wait, is that booking for tomorrow?", "is it going to be at 8?"])
    assert result.turns[2].reply.text.startswith("No, the date is today")
    assert result.turns[3].reply.text.startswith("No, the time is 7 pm")


async def test_for_a_number_when_the_time_is_asked_is_no_party() -> None:
    result = await _chat("en", ["I'd like a table for 2 tomorrow", "for 8 please"])
    args = result.turns[1].reply.decision.get("args", {})
    assert args.get("party_size") == 2 and args.get("time") == "20:00"      # the hour asked for, at 8 pm


@pytest.mark.parametrize("text", ["Can I change the time?", "is it confirmed?", "is there anywhere cheaper?"])
async def test_a_question_about_the_booking_is_not_read_as_one_about_the_place(text: str) -> None:
    result = await _chat("en", ["a table for 2 tomorrow at 7 somewhere italian", text])
    assert "listing" not in result.turns[1].reply.text


@pytest.mark.parametrize("text", ["能改时间吗", "有没有安静一点的", "可以帮我确认一下吗"])
async def test_a_chinese_question_about_the_booking_is_not_read_as_one_about_the_place(text: str) -> None:
    result = await _chat("zh", ["我想订一家川菜馆，明天晚上七点，四个人", text])
    assert "资料里没写" not in result.turns[1].reply.text


@pytest.mark.parametrize(("language", "text", "handover"), [
    ("en", "am I talking to a real person?", False),
    ("en", "is this a real person?", False),
    ("en", "a real person please", True),
    ("en", "let me speak to a human", True),
    ("en", "I need someone to help me with the booking", False),
    ("zh", "我要的是真人，不是机器人", True),
    ("zh", "你是不是真人", False),
])
async def test_who_wants_a_person(language: str, text: str, handover: bool) -> None:
    result = await _chat(language, [text])
    assert (result.turns[0].reply.decision["act"] == "handover") is handover


async def test_what_is_set_up_in_the_car_names_everything() -> None:
    result = await _chat("en", ["take me to the airport", "set the temperature to 22", "what have you set up so far?"],
                         domain="in_car")
    summary = result.turns[2].reply.text
    assert "airport" in summary and "22" in summary


@pytest.mark.parametrize(("text", "about_the_place"), [
    ("do they have parking?", True), ("can I bring my dog?", True), ("is it kid friendly?", True),
    ("are dogs allowed?", True), ("可以刷卡吗", True), ("他们家有包间吗", True), ("有wifi吗", True),
    ("is it going to rain tomorrow?", False), ("can you book it?", False), ("is it confirmed?", False),
    ("is there anywhere cheaper?", False), ("有没有别的", False), ("还有位子吗", False), ("能订到吗", False),
    ("可以吗", False), ("你能帮我订吗", False), ("有没有安静一点的", False),
])
def test_what_asks_about_the_place(text: str, about_the_place: bool) -> None:
    assert asks_about_a_place(text) is about_the_place


async def test_what_customer_service_cannot_see_is_said_so() -> None:
    result = await _chat("en", ["my blender arrived broken, order 55123", "I want a refund",
                                "how long do refunds usually take?", "what did you put down as the problem?",
                                "whats the status of my other order, 99-ZX-288?"], domain="customer_service")
    _, _, how_long, problem, status = (t.reply for t in result.turns)
    assert how_long.text.startswith("I can't see how long that takes")      # not "The wanted resolution is…"
    assert "blender arrived broken" in problem.text
    assert status.text.startswith("I can't see live order tracking")       # not the first order's number
    result = await _chat("zh", ["我的快递一直没到，订单号 8812345", "到底什么时候到"], domain="customer_service")
    assert result.turns[1].reply.text.startswith("我这里看不到实时物流")


# --- from a second new user's drive ----------------------------------------------------------------

@pytest.mark.parametrize(("language", "lines", "count"), [
    ("zh", ["明天晚上七点，三个大人两个小孩"], 5),
    ("zh", ["帮我订一下下周三的晚饭", "七点吧", "我们家三个大人带两个孩子"], 5),
    ("en", ["a table tonight around 8", "there'll be two adults and three kids"], 5),
    ("en", ["a table tomorrow at 7pm, 2 adults 1 child"], 3),
])
async def test_a_party_in_groups_is_kept_as_counted(language: str, lines: list[str], count: int) -> None:
    result = await _chat(language, lines)
    assert result.turns[-1].reply.decision["args"]["party_size"] == count       # not thrown away as "not said"


@pytest.mark.parametrize(("text", "how"), [
    ("算了算了，我自己打电话订吧", "drop"), ("hmm, you know what, never mind, we'll just order in", "drop"),
    ("嗯没事了，不用处理了", "drop"), ("那还是帮我把这个工单撤了吧", "cancel"), ("嗯，撤掉", "cancel"),
    ("对了，你们取消预订要扣钱吗", ""), ("取消订位的话要提前多久说", ""), ("工单提交以后还能取消吗", ""),
    ("算了，就这家吧", ""), ("算了，还是明天吧", ""),
])
def test_dropped_or_cancelled(text: str, how: str) -> None:
    assert calls_off(text, TICKET if "工单" in text or "处理" in text else BOOK) == how


async def test_nothing_more_after_the_booking_undoes_nothing() -> None:
    result = await _chat("zh", ["帮我订明天晚上七点，两个人", "好的", "没事了，谢谢", "不用了，谢谢"])
    for reply in (t.reply for t in result.turns[2:]):
        assert reply.decision["act"] not in ("ask_undo", "undone", "called_off"), reply.text
    assert "再确认" not in result.turns[3].reply.text


@pytest.mark.parametrize(("language", "text", "said"), [
    ("zh", "对了，你们取消预订要扣钱吗", "取消规定我这里没有"),
    ("en", "by the way, what happens if I cancel on the day?", "cancellation terms"),
])
async def test_the_cancellation_terms_are_said_to_be_unknown(language: str, text: str, said: str) -> None:
    first = "帮我订明天晚上七点，两个人" if language == "zh" else "a table for 5 on Saturday at 6pm"
    yes = "好的" if language == "zh" else "yes"
    result = await _chat(language, [first, yes, text])
    reply = result.turns[2].reply
    assert said in reply.text and reply.decision["act"] not in ("ask_undo", "undone")


async def test_a_question_about_cancelling_keeps_the_party() -> None:
    result = await _chat("zh", ["帮我找个饭店，明天中午", "十二点半，八个人",
                                "其实我就是问问，取消订位的话要提前多久说"])
    assert result.turns[2].reply.decision.get("args", {}).get("party_size", 8) == 8
    assert "几位" not in result.turns[2].reply.text


async def test_a_day_moved_from_the_day_named_is_moved() -> None:
    result = await _chat("zh", ["帮我订周五晚上七点，两个人", "好的", "哎呀周五我要加班，能不能往后推一天", "好"])
    moved, done = result.turns[2].reply, result.turns[3].reply
    assert moved.decision["args"]["date"] == "saturday" and moved.text.startswith("订位改成：")
    assert done.decision["act"] == "act"


async def test_a_liking_with_a_question_after_but_books_nothing() -> None:
    result = await _chat("en", ["a table for 2 tomorrow at 7", "that place sounds nice I guess, but is it romantic?"])
    reply = result.turns[1].reply
    assert reply.decision["act"] != "act" and "romantic" not in reply.text     # not a yes, and no wish "is it romantic"


async def test_a_day_refused_by_name_is_taken_back() -> None:
    result = await _chat("zh", ["那个，买的东西用不了。 我要退款。 这周二吧。", "我的订单号A340840。",
                                "星期二不要了。"], domain="customer_service")
    reply = result.turns[2].reply
    assert "delivery_date" not in reply.decision["args"] and "周二" not in reply.text
    assert not reply.text.startswith("再确认一下：确认一下")


@pytest.mark.parametrize(("text", "value"), [("别机场了，公司吧", "work"), ("not the airport, the office", "work")])
async def test_the_place_refused_and_another_said_bare_is_the_new_one(text: str, value: str) -> None:
    language = "zh" if "机场" in text else "en"
    first = "导航去机场" if language == "zh" else "take me to the airport"
    result = await _chat(language, [first, text], domain="in_car")
    assert result.turns[1].reply.decision["args"].get("destination") == value


async def test_the_fan_turned_up_in_other_words() -> None:
    result = await _chat("zh", ["把风量加大吧"], domain="in_car")
    assert result.turns[0].reply.decision["args"] == {"fan_speed": "up"}


@pytest.mark.parametrize(("language", "lines", "asked", "new"), [
    ("en", ["a table for 2 tomorrow at 7 somewhere italian", "Can I change the time?", "8:30"], "time", "20:30"),
    ("en", ["I want to book dinner for 4 on Saturday at 7", "yes", "I need to move the date", "Sunday"], "date",
     "sunday"),
    ("zh", ["帮我订明天晚上七点，两个人", "好的", "能改一下人数吗", "四个人"], "party_size", 4),
])
async def test_a_change_asked_for_without_a_value_asks_for_it(language: str, lines: list[str], asked: str,
                                                               new: object) -> None:
    result = await _chat(language, lines)
    question, answer = result.turns[-2].reply, result.turns[-1].reply
    assert question.decision["act"] == "ask" and question.decision["key"] == asked
    assert answer.decision["args"][asked] == new and answer.decision["act"] in ("propose", "confirm")
