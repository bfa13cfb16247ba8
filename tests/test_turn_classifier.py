import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.turn_classes import TurnClass, classify_turn

RESTAURANT = load_schema("restaurant")

CHANGE, CONFIRM, CHAT = TurnClass.INFORMATION_CHANGE, TurnClass.CONFIRMATION, TurnClass.CHIT_CHAT


@pytest.mark.parametrize("text, expected", [
    ("Book a table for four people on Saturday at 7 pm, no spicy food.", CHANGE),
    ("Actually, make it six people instead of four.", CHANGE),
    ("Forget the budget.", CHANGE),
    ("Cancel the reservation.", CHANGE),
    ("I'd like a window seat.", CHANGE),
    ("Yes, that sounds good.", CONFIRM),
    ("No.", CONFIRM),
    ("Okay, thanks!", CONFIRM),
    ("The weather has been lovely this week.", CHAT),
    ("Haha, that's funny.", CHAT),
    ("", CHAT),
    ("帮我订周六晚上七点的餐厅，四个人，不吃辣。", CHANGE),
    ("改成六个人。", CHANGE),
    ("好的。", CONFIRM),
    ("可以", CONFIRM),
    ("今天天气真不错。", CHAT),
])
def test_classifies_english_and_chinese(text, expected):
    assert classify_turn(text, schema=RESTAURANT).turn_class is expected


def test_only_change_and_confirmation_trigger_the_monologue():
    assert CHANGE.triggers_monologue and CONFIRM.triggers_monologue
    assert not CHAT.triggers_monologue


@pytest.mark.parametrize("text, expected", [
    ("No spicy food please.", CHANGE),
    ("Sure, book it for 7.", CHANGE),
    ("Yes, that sounds good. Thank you!", CONFIRM),
    ("好的，谢谢。", CONFIRM),
])
def test_confirmation_words_do_not_hide_a_change(text, expected):
    assert classify_turn(text, schema=RESTAURANT).turn_class is expected


@pytest.mark.parametrize("text, expected", [
    ("Keep it at 21 degrees.", CHANGE),
    ("Leave it at 21.", CHANGE),
    ("Okay, 22 degrees then.", CHANGE),          # a yes that carries a value is a change
    ("好的，二十二度。", CHANGE),
    ("Highways make me nervous.", CHANGE),
    ("It's 30 degrees outside today.", CHAT),     # a number and a day that name no slot's value
    ("My dad loves cars.", CHAT),
    ("今天天气真好。", CHAT),
])
def test_a_turn_with_a_value_for_any_slot_is_never_chit_chat(text, expected):
    from monologue.memory.working.extract import RuleExtractor

    car = load_schema("in_car")
    assert classify_turn(text, RuleExtractor(car).reads_condition, schema=car).turn_class is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I need directions", TurnClass.INFORMATION_CHANGE),      # the task named: it starts
    ("帮我设置一下导航", TurnClass.INFORMATION_CHANGE),
    ("Yes, take me there", TurnClass.CONFIRMATION),           # …but a yes stays a yes
])
def test_a_word_that_names_the_task_starts_it(text: str, expected: TurnClass) -> None:
    assert classify_turn(text, schema=load_schema("in_car")).turn_class is expected


def test_no_matter_how_far_is_no_question() -> None:
    from monologue.memory.language.stances import asks_for_information

    assert not asks_for_information("我不管多远都行，要川菜") and asks_for_information("我到机场要多久")
