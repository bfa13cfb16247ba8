import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import SessionState
from monologue.memory.working.turn_classes import TurnClass, classify_turn


@pytest.fixture(scope="module")
def rules():
    return RuleExtractor(load_schema("restaurant"))


def ops_of(rules, text, state=None, turn_class=""):
    result = rules.extract(text, state or SessionState("t"), turn_class)
    return {(o.op, o.key, o.comparator, o.value) for o in result.operations}, result


def test_single_turn_booking_in_english(rules):
    ops, _ = ops_of(rules, "Book a table for Saturday at 7 pm, four people, no spicy food.")
    assert ("set", "date", "=", "saturday") in ops
    assert ("set", "time", "=", "19:00") in ops
    assert ("set", "party_size", "=", 4) in ops
    assert ("set", "dietary", "excludes", "spicy") in ops
    assert ("set_goal", "", "=", "book a restaurant table") in ops


def test_single_turn_booking_in_chinese(rules):
    ops, _ = ops_of(rules, "帮我订周六晚上七点的餐厅，四个人，不吃辣。")
    assert {("set", "date", "=", "saturday"), ("set", "time", "=", "19:00"),
            ("set", "party_size", "=", 4), ("set", "dietary", "excludes", "spicy")} <= ops


@pytest.mark.parametrize("text, expected", [
    ("Actually, make it six people instead of four.", ("set", "party_size", "=", 6)),
    ("改成六个人。", ("set", "party_size", "=", 6)),
    ("Change it to 8 pm.", ("set", "time", "=", "20:00")),
])
def test_corrections_are_marked(rules, text, expected):
    ops, result = ops_of(rules, text)
    assert expected in ops and result.correction


def test_make_it_n_uses_the_key_the_state_has(rules):
    state = SessionState("t")
    from monologue.memory.working.state import Comparator, Condition

    state.constraints["party_size"] = Condition("party_size", Comparator.EQ, 4, "four people", 1)
    ops, _ = ops_of(rules, "Make it six.", state)
    assert ("set", "party_size", "=", 6) in ops


@pytest.mark.parametrize("text, key", [
    ("Forget the budget.", "budget"), ("Never mind the window seat.", "seating"),
    ("不要预算了", "budget"), ("取消靠窗", "seating"), ("The budget doesn't matter anymore.", "budget"),
])
def test_withdrawals(rules, text, key):
    ops, _ = ops_of(rules, text)
    assert any(o[0] == "withdraw" and o[1] == key for o in ops)


@pytest.mark.parametrize("text, expected", [
    ("My budget is under 300 dollars.", ("set", "budget", "<=", 300)),
    ("no more than $50 please", ("set", "budget", "<=", 50)),
    ("预算五百以内", ("set", "budget", "<=", 500)),
    ("不超过三百块", ("set", "budget", "<=", 300)),
    ("Nothing spicy please.", ("set", "dietary", "excludes", "spicy")),
    ("I'm allergic to nuts.", ("set", "dietary", "excludes", "nuts")),
    ("We're vegetarian.", ("set", "dietary", "includes", "vegetarian")),
    ("不要辣", ("set", "dietary", "excludes", "spicy")),
    ("A window seat would be nice.", ("set", "seating", "=", "window")),
    ("我们要包间", ("set", "seating", "=", "private_room")),
    ("Something Italian maybe.", ("set", "cuisine", "=", "italian")),
    ("Find restaurants in San Jose.", ("set", "location", "=", "San Jose")),
    ("We are 5.", ("set", "party_size", "=", 5)),
    ("a reservation for 2 at 11:30 am", ("set", "party_size", "=", 2)),
])
def test_regular_values(rules, text, expected):
    ops, _ = ops_of(rules, text)
    assert expected in ops, ops


def test_liking_something_is_not_a_condition(rules):
    ops, _ = ops_of(rules, "I love seafood, by the way.")
    assert not any(o[1] == "dietary" for o in ops)


@pytest.mark.parametrize("text, polarity", [
    ("Yes, that sounds good.", "yes"), ("Okay.", "yes"), ("No.", "no"), ("Nope, not that one.", "no"),
    ("好的。", "yes"), ("不行", "no"),
])
def test_confirmation_polarity(rules, text, polarity):
    _, result = ops_of(rules, text, turn_class="confirmation")
    assert result.polarity == polarity
    assert result.operations[-1].op == ("confirm" if polarity == "yes" else "reject")


def test_chit_chat_reads_nothing(rules):
    ops, _ = ops_of(rules, "The weather has been lovely this week.")
    assert ops == set()


@pytest.mark.parametrize("text, value", [
    ("I'm not allergic to peanuts anymore.", "nuts"), ("I am no longer allergic to nuts", "nuts"),
    ("I can eat spicy food now", "spicy"), ("我对花生不过敏了", "nuts"),
])
def test_an_allergy_gone_is_a_withdrawal_not_a_new_exclusion(rules, text, value):
    ops, _ = ops_of(rules, text)
    assert ("withdraw", "dietary", "=", value) in ops and not any(o[0] == "set" for o in ops)


@pytest.mark.parametrize("text", ["我对花生过敏", "我花生过敏，别放花生"])
def test_chinese_allergy_with_the_value_inside(rules, text):
    ops, _ = ops_of(rules, text)
    assert ("set", "dietary", "excludes", "nuts") in ops


HOTEL = """
name: hotel
goal_words: {en: [hotel, room, stay], zh: [酒店, 住]}
goal_text: {en: book a hotel room}
keys:
  nights:
    type: int
    reader: quantity
    units: {en: [nights, night], zh: [晚, 个晚上]}
    range: [1, 60]
    set_cues: {en: [stay for, staying for], zh: [住]}
  check_in:
    type: date
    reader: date
  booking_ref:
    type: text
    reader: identifier
    aliases: {en: [booking reference, reference], zh: [预订号]}
  floor:
    type: enum
    value_cues: {en: [floor, room], zh: [楼层, 房间]}
    values:
      high: {en: [high, top], zh: [高层, 高楼层]}
      low: {en: [low, ground], zh: [低层, 一楼]}
  room_features:
    type: enum
    multi: true
    default_op: includes
    values:
      quiet: {en: [quiet room], zh: [安静的房间]}
    avoided:
      quiet: {en: [noise, street noise, traffic noise], zh: [噪音, 吵]}
"""


@pytest.mark.parametrize("text, expected", [
    ("Three nights from Friday, please.", {("set", "nights", "=", 3), ("set", "check_in", "=", "friday")}),
    ("我们住五晚。", {("set", "nights", "=", 5)}),
    ("My booking reference is HX-20931.", {("set", "booking_ref", "=", "HX-20931")}),
    ("A room on a high floor would be great.", {("set", "floor", "=", "high")}),
    ("I can't stand street noise.", {("set", "room_features", "includes", "quiet")}),
    ("我受不了噪音。", {("set", "room_features", "includes", "quiet")}),
    ("The view from the top of the hill was lovely.", set()),     # 'top' without a floor cue
    ("Is there much traffic noise?", set()),                        # asked, not refused
])
def test_a_new_domain_is_a_yaml_file_and_nothing_else(tmp_path, text, expected):
    path = tmp_path / "hotel.yaml"
    path.write_text(HOTEL, encoding="utf-8")
    schema = load_schema(str(path))
    ops, _ = ops_of(RuleExtractor(schema), text)
    assert {o for o in ops if o[0] == "set"} == expected, ops
    if expected:      # the classifier runs on the same schema: a value is never chit-chat
        turn_class = classify_turn(text, RuleExtractor(schema).reads_condition, schema=schema).turn_class
        assert turn_class is TurnClass.INFORMATION_CHANGE


@pytest.mark.parametrize("text, expected, unexpected", [
    # A value complained of is what is not wanted (the helper's "太贵了" had been kept as 价位 = pricey).
    ("太贵了", ("set", "price_range", "!=", "pricey"), ("set", "price_range", "=", "pricey")),
    ("That is too expensive.", ("set", "price_range", "!=", "pricey"), ("set", "price_range", "=", "pricey")),
    # 火锅不合适 turns hotpot down (it had been kept as 菜系 = hotpot, and hotpot offered).
    ("不行火锅不合适，太吵了", ("set", "cuisine", "!=", "hotpot"), ("set", "cuisine", "=", "hotpot")),
])
def test_a_value_complained_of_is_not_wanted(rules, text, expected, unexpected):
    ops, _ = ops_of(rules, text)
    assert expected in ops and unexpected not in ops, ops


def test_asking_for_one_that_is_cheaper_is_a_request_not_a_question():
    from monologue.memory.working.grounding import Grounder

    schema = load_schema("restaurant")
    text, state = "太贵了，有没有便宜点儿的", SessionState("t", domain="restaurant")
    kept = Grounder(schema).check(RuleExtractor(schema).extract(text, state).operations, text, state).kept
    assert ("price_range", "cheap") in {(op.key, op.value) for op in kept}, kept


@pytest.mark.parametrize("text, expected", [
    ("我太想吃火锅了", ("set", "cuisine", "=", "hotpot")),      # 太 strengthens a wish here
    ("太喜欢川菜了", ("set", "cuisine", "=", "sichuan")),
    ("我太太想吃川菜", ("set", "cuisine", "=", "sichuan")),     # 太太 is a wife
    ("I too want Japanese food", ("set", "cuisine", "=", "japanese")),
])
def test_too_is_a_complaint_only_right_before_the_value(rules, text, expected):
    ops, _ = ops_of(rules, text)
    assert expected in ops, ops


def test_asking_what_was_said_before_is_still_a_question():
    from monologue.memory.language.stances import asks_for_information

    assert asks_for_information("我上次有没有说过我喜欢吃辣的")
    assert not asks_for_information("有没有便宜点儿的")
