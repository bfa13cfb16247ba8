"""Catalogue names per language: a Chinese session says and stores an option's Chinese name,
reads either of its names as the same option, and offers Beijing's restaurants (CrossWOZ)."""

from __future__ import annotations

import re

import pytest
from test_holding_the_thread import _chat

from monologue.memory.domain.catalogue import filter_options, item_name, load_catalogue, render_options
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.apply import apply_operations
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.grounding import Grounder
from monologue.memory.working.state import Comparator, Op, Operation, OpSource, SessionState

RESTAURANT = load_schema("restaurant")
LATIN_NAMES = ("Chili House", "Luigi", "Sakura", "Green Table", "Golden Dragon", "Fire Pot")


def _state(**values: object) -> SessionState:
    ops = [Operation(Op.SET, key, Comparator.EQ, value, str(value)) for key, value in values.items()]
    return apply_operations(SessionState("s", domain="restaurant"), ops, RESTAURANT, turn=1).state


def _acts(result) -> str:
    return "\n".join(f"{t.text} → {t.reply.text} [{(t.reply.decision or {}).get('act')}]" for t in result.turns)


def test_a_name_per_language_loads_and_a_plain_name_still_does(tmp_path) -> None:
    chili = load_catalogue("restaurants").items[0]
    assert chili["name"] == "Chili House" and chili["names"] == {"en": "Chili House", "zh": "辣椒屋"}
    assert item_name(chili, "zh") == "辣椒屋" and item_name(chili, "en") == "Chili House"
    zh = load_catalogue("restaurants").in_language("zh")
    assert zh.items[0]["name"] == "辣椒屋"
    assert "辣椒屋" in render_options(zh, _state(), "zh") and "市中心" in render_options(zh, _state(), "zh")
    plain = tmp_path / "plain.yaml"
    plain.write_text("name_key: restaurant_name\nitems:\n  - {name: Blue Cafe, cuisine: french}\n", encoding="utf-8")
    blue = load_catalogue(str(plain)).in_language("zh").items[0]
    assert blue["name"] == "Blue Cafe"      # no Chinese name: the one it has


def test_a_location_in_either_language_filters_the_same_items() -> None:
    items = load_catalogue("restaurants").items
    by_english = [i["name"] for i in filter_options(items, _state(location="Riverside"))[0]]
    by_chinese = [i["name"] for i in filter_options(items, _state(location="河畔"))[0]]
    assert by_english == by_chinese == ["Sakura", "Green Table"]


def test_the_beijing_catalogue_loads_and_filters_by_price_and_area() -> None:
    beijing = load_catalogue("beijing_restaurants")
    assert len(beijing.items) == 951 and beijing.name_key == "restaurant_name"
    assert all(set(i["names"]) == {"zh"} for i in beijing.items)      # the database's own names
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", item_name(i, "zh"))) for i in beijing.items) > 900
    assert all(item_name(i, "en") == item_name(i, "zh") for i in beijing.items)     # no invented English
    fitting, excluded = filter_options(beijing.items, _state(price_range="cheap", location="朝阳区"))
    assert fitting and excluded
    assert all(i["price_range"] == "cheap" for i in fitting)
    assert fitting[0]["location"] == "朝阳区"     # known to be there before not known to be elsewhere
    assert not any(i.get("location") not in (None, "朝阳区") for i in fitting)
    first = fitting[0]
    assert {"dishes", "price_per_person", "address", "hours"} <= set(first)


def test_either_name_of_an_option_is_read_as_the_session_languages_name() -> None:
    catalogue = load_catalogue("restaurants").in_language("zh")
    rules = RuleExtractor(RESTAURANT)
    rules.read_option_names("restaurant_name", catalogue.said_names())
    grounder = Grounder(RESTAURANT)
    for text in ("我想去Green Table", "我想去绿桌素食", "那就green table吧"):
        ops = grounder.check(rules.extract(text, _state()).operations, text, _state()).kept
        named = [op for op in ops if op.op == Op.SET and op.key == "restaurant_name"]
        assert [op.value for op in named] == ["绿桌素食"], (text, ops)
        assert named[0].source == OpSource.CATALOGUE
    refused = rules.extract("不要绿桌素食", _state()).operations
    assert not any(op.op == Op.SET and op.key == "restaurant_name" for op in refused)


def test_a_chain_named_without_its_branch_is_read_as_one_of_its_branches() -> None:
    """羊大爷涮肉坊 has two branches in the Beijing catalogue. Said without one, it had been read
    as nothing, and "就订羊大爷涮肉坊" as a yes to the place on offer (another restaurant)."""
    beijing = load_catalogue("beijing_restaurants").in_language("zh")
    branches = [item_name(i, "zh") for i in beijing.items if item_name(i, "zh").startswith("羊大爷涮肉坊")]
    assert len(branches) >= 2
    names = beijing.said_names()
    assert names["羊大爷涮肉坊"] == branches[0]
    assert all(names[b] == b for b in branches)           # a branch said in full is that branch
    rules = RuleExtractor(RESTAURANT)
    rules.read_option_names("restaurant_name", names)
    text = "就订羊大爷涮肉坊"
    ops = Grounder(RESTAURANT).check(rules.extract(text, _state()).operations, text, _state()).kept
    assert [op.value for op in ops if op.op == Op.SET and op.key == "restaurant_name"] == [branches[0]], ops


async def test_a_chinese_session_names_options_in_chinese_and_books_the_one_named() -> None:
    result = await _chat("restaurant", "zh", ["我想订周六晚上七点的位子，四个人", "换一家", "我想去绿桌素食", "好的"],
                         catalogue="restaurants")
    shown = _acts(result)
    replies = [t.reply.text for t in result.turns]
    assert "辣椒屋" in replies[0] and "路易吉小馆" in replies[1], shown
    assert not any(name.lower() in reply.lower() for reply in replies for name in LATIN_NAMES), shown
    assert "绿桌素食" in replies[2] and (result.turns[-1].reply.decision or {}).get("act") == "act", shown
    assert "订好了绿桌素食" in replies[-1], shown


async def test_the_english_name_said_in_a_chinese_session_picks_the_same_option() -> None:
    result = await _chat("restaurant", "zh", ["我想订周六晚上七点的位子，四个人", "我想去Green Table", "好的"],
                         catalogue="restaurants")
    replies = [t.reply.text for t in result.turns]
    assert "绿桌素食" in replies[1] and "Green Table" not in replies[1], _acts(result)
    assert "订好了绿桌素食" in replies[-1], _acts(result)


async def test_an_english_session_still_says_english_names() -> None:
    result = await _chat("restaurant", "en", ["A table for four on Saturday at 7 pm please", "Yes please"])
    replies = [t.reply.text for t in result.turns]
    assert "Chili House" in replies[0] and "辣椒屋" not in " ".join(replies), _acts(result)
    assert "Chili House" in replies[-1], _acts(result)


@pytest.mark.parametrize("area", ["朝阳区", "朝阳"])
async def test_a_chinese_session_offers_beijing_restaurants_in_the_area_asked(area: str) -> None:
    beijing = load_catalogue("beijing_restaurants")
    in_area = {item_name(i, "zh") for i in beijing.items if i.get("location") == "朝阳区"}
    result = await _chat("restaurant", "zh", [f"我想订周六晚上七点的位子，四个人，在{area}，便宜一点的", "好的"])
    offer = result.turns[0].reply.text
    named = [name for name in in_area if name in offer]
    assert named, _acts(result)
    cheap = {item_name(i, "zh") for i in beijing.items if i.get("price_range") == "cheap"}
    assert named[0] in cheap, _acts(result)
    assert f"订好了{named[0]}" in result.turns[-1].reply.text, _acts(result)


async def test_a_turn_answered_in_the_other_language_names_options_in_it() -> None:
    """An English session where the user switches to Chinese (as `--language auto` hears it):
    the Chinese answer names the place 辣椒屋, and the English one after it Chili House."""
    result = await _chat("restaurant", "en", ["A table for four on Friday please", "晚上七点吧", "Yes please"])
    replies = [t.reply.text for t in result.turns]
    assert "辣椒屋" in replies[1] and "Chili House" not in replies[1], _acts(result)
    assert "，川菜，" in replies[1] or "川菜" in replies[1], _acts(result)   # details joined the Chinese way
    assert ", " not in replies[1], _acts(result)
    assert "Chili House" in replies[2] and "辣椒屋" not in replies[2], _acts(result)


def test_a_question_about_a_place_is_read_from_the_catalogues_facts() -> None:
    beijing = load_catalogue("beijing_restaurants").in_language("zh")
    place = next(i for i in beijing.items if i.get("phone") and "," in str(i["phone"]) and i.get("hours"))
    assert beijing.asked_fact("这家人均多少钱？", "zh") == "price_per_person"
    assert beijing.asked_fact("几点开门？", "zh") == "hours"
    assert beijing.asked_fact("他们家有什么招牌菜", "zh") == "dishes"
    assert beijing.asked_fact("我们订的是几点？", "zh") == ""          # the booking's time: the state's to answer
    assert "，或" in beijing.answer(place, "phone", "zh")
    assert "-" not in beijing.answer(place, "hours", "zh") and "到" in beijing.answer(place, "hours", "zh")
    unknown = next(i for i in beijing.items if "rating" not in i)
    assert beijing.answer(unknown, "rating", "zh") == f"{unknown['name']}的这个信息我这里没有。"
    demo = load_catalogue("restaurants")
    assert demo.asked_fact("how much is it?", "en") == "price_range"
    # The demo has no opening hours: asked, it says so rather than read the table's time back.
    assert demo.asked_fact("what time do they close?", "en") == "hours"
    assert demo.answer(demo.items[0], "hours", "en") == f"I don't have that for {demo.items[0]['name']}."


async def test_questions_about_the_place_on_offer_are_answered_and_the_offer_stays_open() -> None:
    beijing = load_catalogue("beijing_restaurants")
    result = await _chat("restaurant", "zh", ["我想订周六晚上七点的位子，四个人", "这家人均多少？", "有什么推荐菜？",
                                              "几点开门？", "好的，就这家"])
    replies = [t.reply.text for t in result.turns]
    offered = next(item_name(i, "zh") for i in beijing.items if item_name(i, "zh") in replies[0])
    item = next(i for i in beijing.items if item_name(i, "zh") == offered)
    assert f"人均{item['price_per_person']}元" in replies[1], _acts(result)
    assert str(item["dishes"][0]) in replies[2], _acts(result)
    assert "营业时间" in replies[3], _acts(result)
    for reply in replies[1:4]:                       # the offer is pointed back to, never swapped
        assert reply.startswith(offered) and sum(item_name(i, "zh") in reply for i in beijing.items) >= 1
        assert "我推荐" not in reply, _acts(result)
    assert f"订好了{offered}" in replies[-1], _acts(result)
