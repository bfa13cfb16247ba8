"""What a new user said in Mandarin and English (2026-12-05, second test drive) and was misread.

- Asking whether there is an option of a kind (有川菜吗, 附近有火锅店吗, "do you have any Italian
  places?") was read back as the user's own state (菜系还没定): it now asks for one, and a place
  that fits is named while the details are still missing.
- A slip put right in the same breath (六个人，不对，五个, "six people, no wait, five") kept the
  first number; 多少钱一位 ("how much per person") set a party of one.
- 刚才那个风量再调大一些 turned the temperature back; 还是关上吧 after opening the windows, and 别关
  just after 空调关掉, did nothing; 换成五月天 after a song was "I can't do that".
- An order number said in Chinese digits (二零二四零八一五三三) was asked for again and again.
"""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.grounding import Grounder
from monologue.memory.working.state import Op
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM, steady

TABLE = load_schema("restaurant")


async def _chat(language: str, lines: list[str], domain: str):
    overrides = steady(monologue={"llm_mode": "never", "domain": domain}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    return await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))


def _kept(schema_name: str, text: str) -> dict[str, object]:
    schema = load_schema(schema_name)
    operations = RuleExtractor(schema).extract(text).operations
    return {op.key: op.value for op in Grounder(schema).check(operations, text, None).kept if op.op == Op.SET}


# --- asking whether there is one ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("有川菜吗", {"cuisine": "sichuan"}),
    ("附近有火锅店吗", {"cuisine": "hotpot"}),
    ("川菜有没有", {"cuisine": "sichuan"}),
    ("好的，有粤菜吗？", {"cuisine": "cantonese"}),
    ("do you have any Italian places?", {"cuisine": "italian"}),
    ("are there any cheap sichuan restaurants with a patio?", {"cuisine": "sichuan", "price_range": "cheap"}),
    ("is there a vegetarian place nearby?", {"dietary": "vegetarian"}),
    # What the place is like is still asked about, not asked for; what was said is pointed back at.
    ("你们有包间吗？", {}),
    ("Is the patio open tonight?", {}),
    ("我有没有说过川菜", {}),
    ("is there a fee if I cancel?", {}),
])
def test_asking_whether_there_is_one_asks_for_its_kind(text: str, expected: dict[str, object]) -> None:
    assert _kept("restaurant", text) == expected


async def test_a_place_that_fits_is_named_before_the_details_are_known() -> None:
    result = await _chat("zh", ["有什么推荐的吗", "有没有川菜馆", "还有别的吗", "就这家吧", "周六晚上七点，四个人"],
                         "restaurant")
    anything, sichuan, another, this_one, details = (t.reply for t in result.turns)
    assert anything.text.startswith("可以试试") and anything.text.endswith("想订哪一天？")
    first = sichuan.decision["option"]
    assert sichuan.decision["act"] == "propose" and "川菜" in sichuan.text and first in sichuan.text
    second = another.decision["option"]
    assert second != first and "川菜" in another.text
    assert this_one.text == "想订哪一天？"
    assert second in details.text and "4个人" in details.text and details.decision["act"] == "propose"


async def test_an_english_question_for_a_kind_names_one_and_asks_on() -> None:
    result = await _chat("en", ["any recommendations?", "is there a sichuan place?", "ok that one",
                                "saturday at 7 for 4", "yes"], "restaurant")
    anything, sichuan, that_one, details, yes = (t.reply for t in result.turns)
    assert "would suit you" in anything.text and anything.text.endswith("What day would you like to go?")
    assert "Chili House" in sichuan.text
    assert that_one.decision["act"] == "ask"
    assert details.decision["act"] == "confirm" and "for 4 people" in details.text
    assert yes.decision["act"] == "act"


# --- a slip put right --------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "party"), [
    ("六个人，不对，五个", 5),
    ("三个人，哦不，四个人", 4),
    ("six people, no wait, five", 5),
    ("for six, sorry, seven people", 7),
    ("two people, sorry about that", 2),
    ("我们六个人", 6),
])
def test_a_count_put_right_in_the_same_breath_is_the_second(text: str, party: int) -> None:
    kept = _kept("restaurant", text)
    assert kept.get("party_size") == party
    assert "wishes" not in kept        # "no wait" is no wish


@pytest.mark.parametrize("text", ["多少钱一位啊？", "一位多少钱", "how much is it per person?"])
def test_a_price_per_person_is_no_party_of_one(text: str) -> None:
    assert "party_size" not in _kept("restaurant", text)


async def test_the_count_put_right_is_the_one_booked() -> None:
    result = await _chat("zh", ["我想订后天的", "六个人，不对，五个", "晚上七点", "多少钱一位啊？"], "restaurant")
    offer, price = result.turns[2].reply, result.turns[3].reply
    assert "5个人" in offer.text
    assert "人均" in price.text and "1个人" not in price.text


# --- the car: what was just done -----------------------------------------------------------------------

async def test_the_fan_turned_up_leaves_the_temperature_alone() -> None:
    result = await _chat("zh", ["帮我开一下空调，温度二十二度，风小一点", "温度再降一度", "把刚才那个风量再调大一些"],
                         "in_car")
    assert result.turns[2].reply.text == "好了，风量调大了。"


@pytest.mark.parametrize(("language", "lines", "done"), [
    ("zh", ["把车窗打开", "还是关上吧"], "好了，车窗已经关上。"),
    ("zh", ["帮我开一下空调", "空调关掉", "哦不对，别关，调到二十五度就行"],
     "好了，把车内温度调到25度、空调已经打开。"),
    ("en", ["turn the AC off", "don't turn it off"], "Done: I've turned the air conditioning on."),
    ("en", ["turn the AC off", "actually leave it on"], "Done: I've turned the air conditioning on."),
    ("zh", ["放首陈奕迅的歌", "换成五月天"], "好了，音乐开始播放：五月天。"),
    ("en", ["play some Adele", "switch to Coldplay"], "Done: I've got the music playing: Coldplay."),
])
async def test_a_command_just_carried_out_is_changed_or_taken_back(language: str, lines: list[str],
                                                                    done: str) -> None:
    result = await _chat(language, lines, "in_car")
    assert result.turns[-1].reply.text == done


async def test_what_is_on_the_agents_name_and_thanks() -> None:
    result = await _chat("zh", ["帮我开一下空调，温度二十二度", "现在都开了些啥？", "你叫什么名字", "OK，辛苦了"],
                         "in_car")
    _, summary, name, thanks = (t.reply for t in result.turns)
    assert summary.text == "目前记下的是：空调打开，车内22度。"
    assert "Monologue" in name.text
    assert thanks.text == "不客气！"


# --- a code said in Chinese digits -----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "order"), [
    ("订单号是二零二四零八一五三三", "2024081533"),
    ("我的订单号八八六六五五四四", "88665544"),
])
def test_an_order_number_said_in_chinese_digits_is_read(text: str, order: str) -> None:
    assert _kept("customer_service", text).get("order_id") == order
