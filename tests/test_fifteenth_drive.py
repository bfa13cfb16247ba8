"""What users said in English and Mandarin (2026-12-07, fifteenth test drive) and was misread.

- An anniversary dinner: "hmm how much is that one?" (Le Jardin, pricey), then "not that one, something a notch
  cheaper please" set the cheapest band (nothing was held to step from: the step is from the option in view);
  "let's just go with that first French place you said" was not read (an option chosen by what it is), and the
  booking ended on a place never chosen. "I meant the Korean place, not the Mexican one" named no place.
"""

from __future__ import annotations

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import AgentAct, OfferedOption, Op, SessionState

from fakes import policy_replies, rules_read

# --- a step along a scale from the option in view ---------------------------------------------------------


def _viewing(option: str, **about: str) -> SessionState:
    state = SessionState("drive", domain="restaurant")
    state.offered = [OfferedOption({"restaurant_name": "Luigi's Trattoria"}, {"price_range": "moderate"}),
                     OfferedOption({"restaurant_name": option}, dict(about))]
    state.acts = [AgentAct("propose", turn=1, first="propose", action="book", option=option)]
    return state


@pytest.mark.parametrize(("said", "price"), [
    ("okay, not that one then, something a notch cheaper please", "moderate"),
    ("hmm, anything a bit less expensive?", "moderate"),
    ("有没有便宜一点的", "moderate"),
    ("ooh, maybe something even fancier than that", "ultra_high_end"),
])
def test_a_step_with_nothing_held_is_from_the_option_in_view(said: str, price: str) -> None:
    state = _viewing("Le Jardin", price_range="pricey", cuisine="french")
    ops = RuleExtractor(load_schema("restaurant")).extract(said, state).operations
    assert [op.value for op in ops if op.op == Op.SET and op.key == "price_range"] == [price]


def test_an_offered_option_keeps_what_it_is_and_reads_as_before_without() -> None:
    option = OfferedOption({"restaurant_name": "Le Jardin"}, {"price_range": "pricey"})
    assert OfferedOption.from_dict(option.to_dict()) == option
    plain = OfferedOption({"restaurant_name": "Le Jardin"})
    assert plain.to_dict() == {"restaurant_name": "Le Jardin"} and OfferedOption.from_dict(plain.to_dict()) == plain


# --- an offered option chosen by what it is -----------------------------------------------------------------

_ANNIVERSARY = ["a table for two on Saturday the fourteenth at eight please", "French would be lovely",
                "hmm how much is that one? we don't want to go completely crazy",
                "okay, not that one then, something a notch cheaper please"]


async def test_the_first_place_of_a_kind_is_the_first_offered_of_it() -> None:
    replies = await policy_replies("en", [*_ANNIVERSARY, "no, keep it French. fine, the price is okay, let's just go "
                                                         "with that first French place you said", "yes please"],
                                   "restaurant")
    assert "Le Jardin" in replies[-2].text and "Done" in replies[-1].text and "Le Jardin" in replies[-1].text


async def test_a_kind_turned_down_beside_the_one_meant_is_not_chosen() -> None:
    replies = await policy_replies("en", ["a table for seven next Wednesday at six in Midtown, nothing too fancy",
                                          "Korean sounds fun, let's do that",
                                          "wait, no, I meant the Korean place, not the Mexican one"], "restaurant")
    assert "Seoul Kitchen" in replies[-1].text and "El Mercado" not in replies[-1].text


@pytest.mark.parametrize("asked", ["is the French one expensive?", "which area is the French place in?"])
async def test_a_kind_asked_about_is_not_chosen(asked: str) -> None:
    replies = await policy_replies("en", ["a table for two tomorrow at eight", "Italian please", "or French maybe",
                                          asked], "restaurant")
    assert "So that's" not in replies[-1].text and "booked" not in replies[-1].text


# --- a house number, a count going down, a feeling met by the level said -------------------------------------

def test_a_number_before_a_streets_name_is_a_house_number_not_a_setting() -> None:
    read = rules_read("in_car", "actually make it 24 Main Street, I mixed up the numbers",
                      {"destination": "42 Main Street"})
    assert read.get("destination") == ["24 Main Street"] and "temperature" not in read
    assert rules_read("in_car", "set the heat to 22 on the way home").get("temperature") == [22]


@pytest.mark.parametrize("said", ["two fewer actually, my in-laws cancelled", "actually we'll be two fewer"])
async def test_fewer_takes_from_the_party_held(said: str) -> None:
    replies = await policy_replies("en", ["a table for six on saturday at 1 pm, thai food", said], "restaurant")
    assert "for 4 people" in replies[-1].text


@pytest.mark.parametrize("said", ["it's boiling in here, set the AC to 18 please",
                                  "set the temperature to seventy, I am freezing", "I'm freezing, set it to 24"])
def test_a_feeling_beside_the_level_said_moves_the_cabin_no_step(said: str) -> None:
    assert "temperature_step" not in rules_read("in_car", said)


async def test_the_office_after_all_and_the_address_given() -> None:
    replies = await policy_replies("en", ["let's head to the office", "no wait, take me home",
                                          "actually forget it, office after all"], "in_car")
    assert "office" in replies[-1].text
    replies = await policy_replies("en", ["take me to 42 Main Street", "what address did I give you?"], "in_car")
    assert "42 Main Street" in replies[-1].text


# --- a yes that says more -------------------------------------------------------------------------------------

async def test_yes_to_dropping_a_condition_with_a_wish_beside_it_drops_it() -> None:
    replies = await policy_replies("en", ["table for 2 tonight at 7, japanese food near the center",
                                          "yes please, and by the window"], "restaurant")
    assert "could we drop" in replies[0].text and "Ramen Ya" in replies[1].text


async def test_yes_to_the_number_asked_for_asks_for_it_once_more() -> None:
    replies = await policy_replies("en", ["call me back about a refund for order 556677, I was charged twice",
                                          "yep, and my name's Tom Baker", "yes file it", "yes"], "customer_service")
    assert "number" in replies[1].text and "ticket" not in replies[1].text
    assert "Done" in replies[-1].text


# --- Mandarin: a count said as the user asks it, another kind asked for, a decision, a complaint, a question ----

@pytest.mark.parametrize(("said", "count"), [("几个人？嗯，六个，不对，七个", 7), ("算了算了，少一个人，六个就够了", 6),
                                             ("人数的话，五个", 5)])
def test_a_bare_count_beside_its_question_or_enough_is_the_party(said: str, count: int) -> None:
    assert rules_read("restaurant", said).get("party_size") == [count]


async def test_a_detail_given_while_another_is_asked_is_said_back() -> None:
    replies = await policy_replies("zh", ["我想订个桌，下周五", "几个人？嗯，六个，不对，七个"], "restaurant")
    assert replies[-1].text == "好的，7个人。那几点钟合适？"
    replies = await policy_replies("en", ["hiya, need a table for a work thing next Wednesday",
                                          "there'll be six, no, sorry, seven of us"], "restaurant")
    assert replies[-1].text == "Got it: 7 people. And what time would suit you?"


async def test_asking_for_a_kind_the_place_on_offer_is_not_asks_for_another() -> None:
    replies = await policy_replies("zh", ["周六晚上七点半订个位子，五个人", "有没有川菜啊，别太贵的"], "restaurant")
    assert "火锅" in replies[0].text and "川菜" in replies[1].text


@pytest.mark.parametrize(("said", "cuisine"), [("火锅太辣了，还是粤菜吧", ["cantonese"]), ("火锅还是粤菜呢", None)])
def test_a_clause_opened_with_haishi_decides_and_one_joined_by_it_asks(said: str, cuisine: list[str] | None) -> None:
    assert rules_read("restaurant", said).get("cuisine") == cuisine


@pytest.mark.parametrize("said", ["算了，还是不走高速了，收费太贵", "过路费太贵了",
                                  "tolls are too expensive, skip them"])
def test_what_a_thing_costs_refuses_it(said: str) -> None:
    assert "avoid_tolls" in rules_read("in_car", said).get("route_preference", [])
    assert "route_today" not in rules_read("in_car", said)


async def test_when_the_money_comes_back_is_asked_not_asked_for() -> None:
    replies = await policy_replies("zh", ["我的快递一直没到，订单号 DD20240518", "直接取消订单吧",
                                          "钱什么时候退给我？"], "customer_service")
    assert "取消订单" in replies[1].text and "退款" not in replies[-1].text


@pytest.mark.parametrize(("language", "lines", "note", "lead"), [
    ("zh", ["我买的鞋子尺码不对，订单号 55667799，想换货", "好的，顺便备注一下鞋盒也压坏了"],
     "鞋盒也压坏了", "备注一下"),
    ("en", ["my order 55667799 came with the wrong size shoes, I want an exchange",
            "yes, and also note that the box was crushed"], "the box was crushed", "note that"),
])
async def test_a_note_asked_for_is_kept_without_the_asking(language: str, lines: list[str], note: str,
                                                           lead: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert note in replies[-1].text and lead not in replies[-1].text


# --- time given, the day that suits, a name two keys share, a kind said first ---------------------------------

@pytest.mark.parametrize(("domain", "said"), [("in_car", "navigate to the nearest hospital, no rush though"),
                                              ("in_car", "take me home, no hurry"), ("in_car", "回家，不着急")])
def test_time_given_is_no_wish(domain: str, said: str) -> None:
    assert "wishes" not in rules_read(domain, said)


@pytest.mark.parametrize(("said", "day_key"), [("tomorrow morning works, like around 10", "contact_day"),
                                               ("明天上午可以，十点左右吧", "contact_day"),
                                               ("it should have come Monday, can you call me back at 5",
                                                "delivery_date")])
def test_a_day_that_suits_with_the_time_after_it_is_the_calls(said: str, day_key: str) -> None:
    read = rules_read("customer_service", said)
    assert day_key in read and {"contact_day", "delivery_date"} - {day_key} & read.keys() == set()


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["导航去北京南站", "收费的路别走了，太贵", "你现在设的路线是怎样的？"], "不走收费"),
    ("en", ["take me to the airport, no tolls", "what route did you set?"], "no tolls"),
])
async def test_a_name_two_keys_share_asks_of_both(language: str, lines: list[str], said: str) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert said in replies[-1].text and ("北京南站" in replies[-1].text or "airport" in replies[-1].text)


async def test_a_kind_said_before_its_asking_is_looked_for() -> None:
    replies = await policy_replies("zh", ["我想订个桌，下周五晚上七点", "北京菜有吗，烤鸭那种"], "restaurant")
    assert "烤鸭" in replies[-1].text and replies[-1].text.endswith("一共几位？") and "好的" not in replies[-1].text


@pytest.mark.parametrize(("said", "wish"), [("今天晚上想带爸妈出去吃顿饭", None), ("中午想跟爸妈一块儿吃个饭", None),
                                            ("I'd like to take my parents out for dinner tonight", None),
                                            ("想找个适合带孩子的地方", ["适合带孩子的地方"])])
def test_a_meal_said_with_who_comes_is_the_task_not_a_wish(said: str, wish: list[str] | None) -> None:
    assert rules_read("restaurant", said).get("wishes") == wish


# --- one more, or another number settled on, in the same turn ----------------------------------------------------

@pytest.mark.parametrize(("said", "count"), [("我们一共四个人，哦，再加一个", 5), ("we're four, oh and one more", 5),
                                             ("六个人，不过可能少一个", 6), ("we're four, maybe one more", 4)])
def test_a_change_said_after_a_count_moves_it_unless_only_maybe(said: str, count: int) -> None:
    assert rules_read("restaurant", said).get("party_size") == [count]


@pytest.mark.parametrize(("said", "key", "level"), [("空调二十六度，嗯……二十五吧", "temperature", 25),
                                                    ("set it to 22... um, 21 then", "temperature", 21),
                                                    ("空调二十六度，嗯，挺好", "temperature", 26),
                                                    ("volume to 5, uh, 6 instead", "volume_level", 6)])
def test_another_number_settled_on_after_a_pause_is_the_one(said: str, key: str, level: int) -> None:
    assert rules_read("in_car", said).get(key) == [level]


async def test_a_way_back_given_up_is_not_on_the_ticket() -> None:
    replies = await policy_replies("en", ["order 55231 was charged twice, I want a refund",
                                          "please email me, it's maria dot lopez at gmail dot com",
                                          "uh actually, no, a text is easier, I never check my email",
                                          "it's three one oh, five five five, two two one four",
                                          "okay, thanks, file it"], "customer_service")
    assert "3105552214" in replies[-1].text and "gmail" not in replies[-1].text and "Done" in replies[-1].text


@pytest.mark.parametrize(("language", "lines", "kept", "note"), [
    ("en", ["where's my package? order 556677", "if you can't find it, just refund me"], "a trace", "refund"),
    ("zh", ["我的快递到哪了？订单号 556677", "找不到的话就退款吧"], "查件", "找不到的话就退款"),
])
async def test_what_to_do_if_the_first_fails_is_noted_not_put_first(language: str, lines: list[str], kept: str,
                                                                    note: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert kept in replies[-1].text and note in replies[-1].text


@pytest.mark.parametrize("said", ["Forget four; 2 instead.", "forget four, 2 instead", "2 instead of 4"])
def test_a_number_said_instead_puts_the_held_one_right(said: str) -> None:
    assert rules_read("restaurant", said, {"party_size": 4, "time": "13:00"}).get("party_size") == [2]


async def test_a_question_asked_a_third_time_says_what_is_held() -> None:
    replies = await policy_replies("en", ["Can you help me get a dinner reservation? We're thinking Saturday. "
                                          "Party of 6. A window table.", "Forget about the seating, it doesn't matter.",
                                          "Can we change the party size to three?"], "restaurant")
    assert replies[-1].text.startswith("So far I have 3 people") and replies[-1].text.endswith("suit you?")


# --- said for now, asked twice, played by name -------------------------------------------------------------------

def test_a_wish_said_for_this_trip_only_is_not_learned_as_lasting() -> None:
    from monologue.memory.longterm.profile import lasting_conditions
    from monologue.memory.working.state import Comparator, Condition

    state = SessionState("drive", domain="in_car")
    for words, value in [("今天别走高速", "avoid_highways"), ("avoid tolls", "avoid_tolls")]:
        c = Condition("route_preference", Comparator.INCLUDES, value, words, 1, multi=True)
        state.constraints[c.slot] = c
    lasting = lasting_conditions(state, load_schema("in_car"))
    assert [c.value for c in lasting.values()] == ["avoid_tolls"]


async def test_a_question_of_two_sentences_is_asked_whole_after_a_detail() -> None:
    replies = await policy_replies("zh", ["我要投诉，你们扣了我两次钱", "订单号是 A7788990", "我付了两百九十九块"],
                                   "customer_service")
    assert "退款、换货还是维修？" in replies[-1].text


async def test_a_value_checked_in_a_question_then_wanted_is_wanted() -> None:
    replies = await policy_replies("zh", ["周六晚上七点半订个位子，五个人", "海底捞不是川菜吧？我要吃川菜"],
                                   "restaurant")
    assert "川菜" in replies[-1].text and "还没定" not in replies[-1].text


@pytest.mark.parametrize(("said", "choice"), [("放周杰伦的歌", ["周杰伦"]), ("给我放陈奕迅的歌吧", ["陈奕迅"]),
                                              ("换一首，换点轻松的", ["轻松的"]), ("放心吧", None),
                                              ("把座椅放下来一点", None)])
def test_music_asked_for_by_a_bare_play_with_its_tail(said: str, choice: list[str] | None) -> None:
    assert rules_read("in_car", said).get("music_choice") == choice


@pytest.mark.parametrize(("language", "lines", "answer"), [
    ("en", ["table for 2 tonight at 7, japanese food near the center", "how far is it from here?"], "how far"),
    ("zh", ["周六晚上七点，两个人", "这家远不远？"], "多远"),
])
async def test_how_far_is_answered_honestly_and_the_open_question_kept(language: str, lines: list[str],
                                                                       answer: str) -> None:
    replies = await policy_replies(language, lines, "restaurant")
    assert answer in replies[-1].text
    if language == "en":
        assert replies[-1].text.endswith("could we drop center?")


@pytest.mark.parametrize(("language", "domain", "said", "reply"), [
    ("zh", "in_car", "今天好累啊，开了一天会", "辛苦了，开车注意休息。"),
    ("en", "restaurant", "ugh what a long day, I'm exhausted", "Sounds like a long day."),
])
async def test_a_long_day_told_gets_a_kind_word(language: str, domain: str, said: str, reply: str) -> None:
    replies = await policy_replies(language, [said], domain)
    assert replies[0].text == reply


@pytest.mark.parametrize(("said", "wish"), [("yes book it, and by the window if possible", "by the window if possible"),
                                            ("最好靠窗", "最好靠窗")])
def test_a_detail_asked_for_softly_the_place_lacks_is_a_request_not_a_condition(said: str, wish: str) -> None:
    state = _viewing("Sakura", cuisine="japanese")
    state.offered[-1].about["seating"] = ["indoor", "bar"]
    ops = RuleExtractor(load_schema("restaurant")).extract(said, state).operations
    assert [op.value for op in ops if op.key == "wishes"] == [wish] and not any(op.key == "seating" for op in ops)
    ops = RuleExtractor(load_schema("restaurant")).extract("by the window please", state).operations
    assert [op.value for op in ops if op.key == "seating"] == ["window"]


async def test_yes_with_a_soft_request_books_the_place_offered() -> None:
    replies = await policy_replies("en", ["table for two tonight at 7:30, japanese food",
                                          "yes book it, and by the window if possible"], "restaurant")
    assert replies[-1].text.startswith("Done: I've booked Sakura") and "window" in replies[-1].text


def test_what_an_exchange_is_for_goes_on_the_record() -> None:
    read = rules_read("customer_service", "给我换成黑色的")
    assert read.get("resolution") == ["exchange"] and read.get("problem_details") == ["换成黑色的"]


async def test_after_an_aside_a_change_waiting_is_pointed_back_to_as_a_change() -> None:
    replies = await policy_replies("en", ["order AX93201 came in the wrong size, I want an exchange",
                                          "yes, and call me tomorrow at nine on 202 456 7890",
                                          "oh wait, tomorrow I'm busy, make it the day after",
                                          "what time did I say for the call?"], "customer_service")
    assert "Done" in replies[1].text and replies[-1].text.endswith("Shall I go ahead and change the ticket?")


def test_a_lasting_wish_in_a_sentence_said_for_today_keeps_the_today() -> None:
    ops = RuleExtractor(load_schema("in_car")).extract("别走高速，今天想走小路", SessionState("drive")).operations
    avoid = [op for op in ops if op.key == "route_preference"]
    assert avoid and "今天" in avoid[0].words


# --- a fresh drive (r19) ----------------------------------------------------------------------------------------

async def test_a_soft_request_the_offered_place_has_is_a_condition() -> None:
    replies = await policy_replies("en", ["table for two on Friday at 7, Italian please",
                                          "ok sounds good, and can we sit outside if possible"], "restaurant")
    assert "outdoor seating" in replies[-1].text
    replies = await policy_replies("en", ["take me to the airport", "hmm avoid the highway if you can, I hate merging"],
                                   "in_car")
    assert "no highways" in replies[-1].text


@pytest.mark.parametrize("said", ["oh and one more thing, my dad uses a walker", "another question, is there parking?"])
async def test_one_more_thing_to_say_is_no_one_more_to_come(said: str) -> None:
    replies = await policy_replies("en", ["Cantonese place for three tomorrow at 12:30", said], "restaurant")
    assert "4 people" not in replies[-1].text


@pytest.mark.parametrize(("said", "absent"), [("我十号下的单，到现在快递还是一点动静都没有", "contact_time"),
                                              ("还是先帮我查查吧，万一明天就到了", "delivery_date"),
                                              ("just trace it in case it turns up tomorrow", "delivery_date")])
def test_a_little_of_nothing_and_a_day_supposed_set_no_time(said: str, absent: str) -> None:
    assert absent not in rules_read("customer_service", said)


@pytest.mark.parametrize(("said", "note"), [
    ("I ordered running shoes two weeks ago and they still haven't shown up", "they still haven't shown up"),
    ("我十号下的单，到现在快递还是一点动静都没有", "到现在快递还是一点动静都没有")])
def test_what_never_came_is_noted(said: str, note: str) -> None:
    assert rules_read("customer_service", said).get("problem_details") == [note]


async def test_mention_and_take_long_and_after_three_tomorrow() -> None:
    lines = ["order BX-40721 arrived cracked, I want a refund"]
    replies = await policy_replies("en", [*lines, "yes that's right, and mention the box was soaked too"],
                                   "customer_service")
    assert "the box was soaked too" in replies[-1].text and "mention" not in replies[-1].text
    replies = await policy_replies("en", [*lines, "will it take long?"], "customer_service")
    assert replies[-1].text.startswith("I can't see how long")
    read = rules_read("customer_service", "could someone call me? tomorrow after 3 works best")
    assert read.get("contact_day") == ["tomorrow"] and "delivery_date" not in read


@pytest.mark.parametrize(("said", "wish"), [("cool thanks", None),
                                            ("somewhere cool and quiet", ["somewhere cool and quiet"])])
def test_cool_as_thanks_is_no_wish(said: str, wish: list[str] | None) -> None:
    assert rules_read("restaurant", said).get("wishes") == wish


@pytest.mark.parametrize(("language", "said", "reply"), [
    ("en", "it's freezing in here, warm it up a couple degrees", "Done: I've made the cabin two degrees warmer."),
    ("zh", "哎呀好热，温度往下降个两度", "好了，车内调凉两度。"),
    ("en", "it's too hot, make it cooler", "Done: I've made the cabin a degree cooler."),
])
async def test_a_step_of_so_many_degrees_with_none_held_is_that_many(language: str, said: str, reply: str) -> None:
    replies = await policy_replies(language, [said], "in_car")
    assert replies[0].text == reply


async def test_a_step_just_taken_goes_on_named_by_nothing() -> None:
    replies = await policy_replies("en", ["warm it up a bit", "actually bring it down a little more"], "in_car")
    assert replies[-1].text == "Done: I've made the cabin a degree cooler."
    replies = await policy_replies("en", ["play some jazz", "turn it down a bit"], "in_car")
    assert "cabin" not in replies[-1].text
