"""A place said by its name, one no list holds: the driver's destination in both languages
(memory/language/places.py, read by extract.RuleExtractor for `place_name` keys)."""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.apply import apply_operations
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import Comparator, Op, Operation, SessionState
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM, steady

CAR_RULES = RuleExtractor(load_schema("in_car"))


def _sets(text: str) -> dict[str, object]:
    return {op.key: op.value for op in CAR_RULES.extract(text).operations if op.op == Op.SET}


@pytest.mark.parametrize(("text", "place"), [
    ("导航到人民广场", "人民广场"),
    ("去浦东机场吧", "浦东机场"),              # that airport, not any airport
    ("带我去王府井", "王府井"),
    ("导航去北京大学东门", "北京大学东门"),
    ("送我到国贸", "国贸"),
    ("到虹桥火车站", "虹桥火车站"),
    ("导航到中关村大街27号", "中关村大街27号"),
    ("我想去外滩看看", "外滩"),
    ("去人民广场的路上找个加油站", "人民广场"),
    ("先去人民广场然后把空调调到22度", "人民广场"),
    ("Take me to 42 Baker Street", "42 Baker Street"),
    ("Take me to JFK Airport", "JFK Airport"),
    ("Can you take me to the Museum of Modern Art?", "Museum of Modern Art"),
    ("Drive to Starbucks on Main Street", "Starbucks on Main Street"),
    ("I need to get to St. Mary's Hospital", "St. Mary's Hospital"),
    ("Let's go to Golden Gate Park on Friday", "Golden Gate Park"),
    ("Head to 1600 Amphitheatre Parkway please", "1600 Amphitheatre Parkway"),
    # As the ASR may write them: in small letters, with the kind of place after the name.
    ("uh can you get me to 1600 amphitheatre parkway", "1600 amphitheatre parkway"),
    ("take me to starbucks please", "starbucks"),
    ("take me to heathrow airport", "heathrow airport"),
    ("go to the Westfield mall", "Westfield mall"),
    # Corrected in the same breath: the last one.
    ("Navigate to 500 Fifth Avenue, no wait, 550 Fifth Avenue", "550 Fifth Avenue"),
    ("去上海火车站 哦不 上海南站", "上海南站"),
    ("从中国航空博物馆到大渔铁板烧(蓝色港湾店)的出租车", "大渔铁板烧(蓝色港湾店)"),
])
def test_a_place_said_by_its_name_is_the_destination(text: str, place: str) -> None:
    assert _sets(text).get("destination") == place


@pytest.mark.parametrize(("text", "value"), [
    ("去公司", "work"), ("回家吧", "home"), ("take me to the airport", "airport"), ("去机场", "airport"),
    ("Navigate to the office please.", "work"), ("drive me home", "home"),
])
def test_the_keys_own_places_are_still_its_values(text: str, value: str) -> None:
    assert _sets(text).get("destination") == value


@pytest.mark.parametrize("text", [
    "把温度调到22度", "去吃饭吧", "我们现在要去哪儿？", "到了吗", "过去的事就算了", "空调开到最大",
    "不去人民广场了",                      # refused, not chosen
    "顺路去趟超市",                        # a stop on the way, not where to go
    "I want to go to my friend's place",   # no name to keep
    "Don't take me to Union Square",
    "Take me to Tuesday's meeting",
])
def test_words_after_going_that_name_no_destination(text: str) -> None:
    assert "destination" not in _sets(text)


async def _chat(language: str, lines: list[str]):
    overrides = steady(monologue={"llm_mode": "never", "domain": "in_car"}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    return await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))


async def test_a_named_destination_is_set_changed_and_told_back_in_chinese() -> None:
    session = await _chat("zh", ["导航到人民广场", "不对，去浦东机场", "顺路去趟超市", "我们现在去哪儿？"])
    replies = [turn.reply.text for turn in session.turns]
    assert "人民广场" in replies[0]
    assert "浦东机场" in replies[1] and "人民广场" not in replies[1]
    assert "超市" in replies[2] and "浦东机场" in replies[2]
    assert "浦东机场" in replies[3]


async def test_a_named_destination_is_set_changed_and_told_back_in_english() -> None:
    session = await _chat("en", ["Take me to 42 Baker Street", "Actually make that the Museum of Modern Art",
                                 "Where are we headed?"])
    replies = [turn.reply.text for turn in session.turns]
    assert "42 Baker Street" in replies[0]
    assert "Museum of Modern Art" in replies[1]
    assert "Museum of Modern Art" in replies[2] and "Baker" not in replies[2]


@pytest.mark.parametrize(("language", "lines", "place"), [
    ("en", ["I need directions", "Cables Wake Park, please."], "Cables Wake Park"),
    ("zh", ["帮我设置一下导航", "人民广场吧"], "人民广场"),
])
async def test_asked_where_to_the_driver_answers_with_a_name(language: str, lines: list[str], place: str) -> None:
    """The task named alone starts it (the agent asks where to); the answer is the place."""
    session = await _chat(language, lines)
    asked, done = (turn.reply.text for turn in session.turns)
    assert asked in ("Where would you like to go?", "要去哪里？"), asked
    assert place in done, done


@pytest.mark.parametrize("text", ["能吃到白菜豆腐的餐馆吗", "找一家150到500元的餐馆", "就去这个酒店吧",
                                  "去一家人均100元的餐馆", "带我去吃火锅"])
def test_a_place_searched_for_or_pointed_at_is_no_name(text: str) -> None:
    assert "destination" not in _sets(text)


async def test_not_yet_is_no_answer_to_where_to() -> None:
    session = await _chat("zh", ["帮我设置一下导航", "等会儿再说吧"])
    assert "等会儿" not in session.turns[-1].reply.text


RESTAURANT_RULES = RuleExtractor(load_schema("restaurant"))


def test_a_time_after_a_place_ends_the_name_and_keeps_the_place() -> None:
    """A joiner joins only a capitalised word: the area before a time is kept whole."""
    ops = RESTAURANT_RULES.extract("A table for 4 in Midtown at 7 pm").operations
    assert {op.key: op.value for op in ops if op.op == Op.SET}.get("location") == "Midtown"
    assert _sets("Take me to Union Station at 6 pm").get("destination") == "Union Station"


def test_a_correction_naming_another_keys_value_is_that_keys() -> None:
    held = SessionState("s", domain="restaurant")
    held = apply_operations(held, [Operation(Op.SET, "location", Comparator.EQ, "Midtown", "in Midtown")],
                            load_schema("restaurant"), turn=1).state
    sets = {op.key: op.value for op in RESTAURANT_RULES.extract("Sorry, Thai please", held).operations
            if op.op == Op.SET}
    assert "location" not in sets and sets.get("cuisine") == "thai"


@pytest.mark.parametrize("text", ["导航声音大一点", "风量开到三档", "Switch to Spotify", "make it quick"])
def test_a_change_or_a_control_is_no_destination(text: str) -> None:
    assert "destination" not in _sets(text)


async def test_no_is_no_answer_to_where_to() -> None:
    session = await _chat("en", ["I need directions", "No"])
    assert "No" not in session.turns[-1].reply.text.replace("No,", "")


@pytest.mark.parametrize(("language", "answer"), [
    ("zh", "我想想，往后挪一个小时"), ("zh", "等会儿再说吧"),
    ("en", "As I mentioned, please book it home, which is the place I need to go."), ("en", "Let me think."),
])
def test_an_answer_to_where_to_that_names_no_place(language: str, answer: str) -> None:
    from monologue.memory.language.places import find_place_en, find_place_zh

    found = find_place_en(answer, ("take me to",), True) if language == "en" else find_place_zh(answer, ("去",), True)
    assert found == []
