"""What drivers said to the car in two test drives (2026-12-05, English and Mandarin) and was misread.

- 刚才那个风量再调大一些 turned the temperature back; 还是关上吧 after opening the windows, 别关 just
  after 空调关掉, "no wait, 22" after a temperature did nothing; 换成五月天 after a song was "I can't do
  that".
- "my seat's too far back, move it forward" moved it back; a stop said after "no tolls" was read back
  refused and a later "ok" confirmed that; "cool, thanks" was a request the car cannot do.
"""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.memory.domain.schema import load_schema
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM, steady


async def _chat(language: str, lines: list[str], domain: str = "in_car"):
    overrides = steady(monologue={"llm_mode": "never", "domain": domain}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    return await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))


async def test_the_fan_turned_up_leaves_the_temperature_alone() -> None:
    result = await _chat("zh", ["帮我开一下空调，温度二十二度，风小一点", "温度再降一度", "把刚才那个风量再调大一些"],
                         "in_car")
    assert result.turns[2].reply.text == "好了，风量调大了。"


@pytest.mark.parametrize(("language", "lines", "done"), [
    ("zh", ["把车窗打开", "还是关上吧"], "好了，车窗已经关上。"),
    ("zh", ["帮我开一下空调", "空调关掉", "哦不对，别关，调到二十五度就行"],
     "好了，车内温度调到25度了，空调已经打开。"),
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
    assert summary.text == "目前记下的是：车内22度，空调打开。"     # (in the domain's order)
    assert "Monologue" in name.text
    assert thanks.text == "不客气！"


async def test_a_switching_word_after_a_song_is_not_always_a_song() -> None:
    result = await _chat("zh", ["放首陈奕迅的歌", "换条路线"], "in_car")
    assert "播放" not in result.turns[1].reply.text


@pytest.mark.parametrize("text", ["好的，我先关了", "我刚打开了后备箱", "I turned off my phone"])
def test_a_control_verb_about_oneself_is_small_talk(text: str) -> None:
    from monologue.memory.working.turn_classes import TurnClass, classify_turn
    assert classify_turn(text, None, schema=load_schema("in_car")).turn_class == TurnClass.CHIT_CHAT


@pytest.mark.parametrize(("language", "lines", "last"), [
    ("en", ["set the temperature to 21", "no wait, 22"], "Done: I've set the cabin to 22 degrees."),
    ("en", ["take me to the gym, set it to 19 degrees and close the windows", "hmm maybe 20 instead"],
     "Done: I've set the cabin to 20 degrees."),
    ("zh", ["温度调到二十一度", "不对，二十二"], "好了，车内温度调到22度了。"),
    ("en", ["my seat's too far back, move it forward"], "Done: I've moved the seat further forward."),
    ("en", ["set the temperature to 20", "a bit warmer", "what's it on now?"], "The cabin temperature is 21 degrees."),
    ("en", ["morning! how's it going?"], "I'm well, thanks for asking!"),
    ("en", ["take me to the airport", "cool, thanks"], "You're welcome!"),
    ("en", ["take me to the airport", "ok that's it"], "Goodbye!"),
    ("zh", ["导航到公司", "公司就是国贸"], "好了，设好了路线：去国贸。"),
    ("zh", ["去望京SOHO", "我想换个地方，去三里屯太古里"], "好了，设好了路线：去三里屯太古里。"),
    ("zh", ["帮我调一下温度", "随便吧，你看着办"], "好了，车内温度调到22度了。"),
    ("en", ["can you set the temperature", "up to you"], "Done: I've set the cabin to 22 degrees."),
])
async def test_the_car_hears_what_a_driver_means(language: str, lines: list[str], last: str) -> None:
    result = await _chat(language, lines, "in_car")
    assert result.turns[-1].reply.text == last


async def test_a_stop_said_after_a_refusal_is_not_heard_refused() -> None:
    result = await _chat("en", ["take me to the airport", "avoid the tolls please", "I need to stop for gas on the way",
                                "ok, and set the AC to 21"], "in_car")
    assert result.turns[2].reply.text.endswith("no tolls, with a stop at a petrol station.")
    assert result.turns[3].reply.text == "Done: I've set the cabin to 21 degrees."


async def test_two_commands_at_once_are_each_gone_on_with() -> None:
    result = await _chat("zh", ["帮我放点周杰伦的歌，声音小一点", "再小点", "现在放的是谁的歌？", "换成陈奕迅的"],
                         "in_car")
    assert result.turns[1].reply.text == "好了，音量调小了。"
    assert result.turns[3].reply.text.startswith("好了，音乐开始播放：陈奕迅")
