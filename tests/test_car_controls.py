"""The car's controls as a driver uses them, in both languages, and requests no domain can do.

Seed 002's driver says 我有点冷, 放首周杰伦, 刚才那首歌太吵了, 打开车窗: each is a command carried out at
once, said again to go further (再往后一点, "louder"), changed without being asked "are you
sure?". What no control does (打开天窗, "call me a cab") is answered "that's not something I can
do", never "I see" as if it would be done. `scripts/bench_beyond.py` measures the decline on real
users' turns (SGD, CrossWOZ).
"""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.dialogue.policy import Act
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.apply import apply_operations
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import Comparator, Op, Operation, SessionState
from monologue.memory.working.wishes import asks_beyond
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM, steady

CAR = load_schema("in_car")
CAR_RULES = RuleExtractor(CAR)


async def _chat(domain: str, language: str, lines: list[str]):
    overrides = steady(monologue={"llm_mode": "never", "domain": domain}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    return await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))


def _sets(text: str, state: SessionState | None = None) -> dict[str, object]:
    return {op.key: op.value for op in CAR_RULES.extract(text, state).operations if op.op == Op.SET}


@pytest.mark.parametrize(("text", "expected"), [
    ("打开座椅加热", {"seat_heating": "on"}),
    ("座椅加热帮我关了吧", {"seat_heating": "off"}),
    ("Could you turn my seat heater on?", {"seat_heating": "on"}),
    ("Switch off the heated seats", {"seat_heating": "off"}),
    ("有点闷，开点窗", {"window": "open"}),
    ("把窗户都关上", {"window": "closed"}),
    ("Roll the windows down a little", {"window": "partly_open"}),     # (part of the way, eleventh drive)
    ("Close the window please", {"window": "closed"}),
    ("切换到内循环", {"air_circulation": "recirculate"}),
    ("Put the air on fresh air mode", {"air_circulation": "fresh_air"}),
    ("空调风开小一点", {"fan_speed": "down"}),
    ("空调别开那么猛", {"fan_speed": "down"}),
    ("Turn the fan up a bit", {"fan_speed": "up"}),
    ("音乐太吵了", {"volume": "down"}),
    ("声音大一点，听不清", {"volume": "up"}),
    ("The music is way too loud", {"volume": "down"}),
    ("放首周杰伦的歌", {"media": "playing", "music_choice": "周杰伦"}),
    ("来点音乐吧", {"media": "playing"}),
    ("这首歌不好听，切歌", {"media": "next"}),
    ("Skip this song", {"media": "next"}),
    ("Pause the music for a moment", {"media": "paused"}),
])
def test_each_control_is_read_in_the_drivers_words(text: str, expected: dict[str, str]) -> None:
    assert _sets(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("打开天窗", {}),                          # a sunroof is no window
    ("Open the sunroof", {}),
    ("座椅加热打开，车窗关上", {"seat_heating": "on", "window": "closed"}),     # each verb with its own control
    ("空调风小一点", {"fan_speed": "down"}),  # less air, not a cooler cabin
    ("空调风太小了，调大一点吧", {"fan_speed": "up"}),     # the clause before names the control
    ("关掉内循环", {"air_circulation": "fresh_air"}),
    ("Oh, and not this one, skip it.", {"media": "next"}),
    ("温度调低一点", {"temperature_step": "cooler"}),   # the cabin's temperature: nothing held, a step down
    ("关空调", {"air_conditioning": "off"}),
    ("Turn off the AC", {"air_conditioning": "off"}),   # not the seat heating, whose verb it also is
    ("开窗关空调", {"window": "open", "air_conditioning": "off"}),   # no verb shared where each has its own
    ("Turn off the AC and open the windows", {"air_conditioning": "off", "window": "open"}),
    ("空调开大一点", {"fan_speed": "up"}),    # 开大 is "turn up", not 开 "switch on" and 大一点
    ("把空调打开", {"air_conditioning": "on"}),
    ("空调调到22度", {"temperature": 22}),
])
def test_a_controls_verb_is_read_only_with_that_control(text: str, expected: dict[str, object]) -> None:
    assert _sets(text) == expected


def test_the_weather_outside_moves_no_temperature_held() -> None:
    held = apply_operations(SessionState("s", domain="in_car"),
                            [Operation(Op.SET, "temperature", Comparator.EQ, 22, "22 degrees")], CAR, turn=1).state
    assert _sets("It's freezing outside, minus five degrees.", held) == {}
    assert _sets("外面好冷，零下五度", held) == {}


@pytest.mark.parametrize(("language", "lines", "last_said"), [
    ("zh", ["座椅往后一点", "再往后一点"], "往后"),
    ("zh", ["声音小一点", "再小一点"], "调小"),
    ("zh", ["声音小一点", "再来一点"], "调小"),
    ("en", ["Move my seat back a bit", "A little more"], "back"),
    ("en", ["Turn the music up", "Louder"], "up"),
    ("en", ["Turn the volume down", "more please"], "down"),
])
async def test_a_command_said_again_is_carried_out_again(language: str, lines: list[str], last_said: str) -> None:
    result = await _chat("in_car", language, lines)
    last = result.turns[-1].reply
    assert (last.decision or {}).get("act") == Act.ACT, last.text
    assert last_said in last.text, last.text


@pytest.mark.parametrize(("language", "lines", "asked"), [
    ("en", ["Down a notch, please"], ("windows", "fan", "volume")),
    ("zh", ["关了吧"], ("座椅加热", "车窗", "音乐")),
    ("en", ["Can you turn it on?"], ("seat heating",)),
])
async def test_a_controls_verb_with_no_control_named_asks_which(language: str, lines: list[str],
                                                                 asked: tuple[str, ...]) -> None:
    """Neither "I can't do that" nor "I see": the controls it may be about, to choose from."""
    last = (await _chat("in_car", language, lines)).turns[-1].reply
    assert (last.decision or {}).get("act") == Act.CLARIFY, last.text
    assert all(label in last.text for label in asked), last.text


@pytest.mark.parametrize(("language", "text", "said"), [("zh", "静音", "静音"), ("en", "Louder!", "up"),
                                                         ("zh", "换一首", "下一首")])
async def test_a_value_only_one_control_has_names_it(language: str, text: str, said: str) -> None:
    last = (await _chat("in_car", language, [text])).turns[-1].reply
    assert (last.decision or {}).get("act") == Act.ACT and said in last.text, last.text


@pytest.mark.parametrize(("language", "text", "did", "stepped"), [
    # (A command that meets the feeling does nothing more: 把座椅加热关了，有点热 turns it off, and that
    # is all; a command that does not, music, still leaves the cabin to warm.)
    ("zh", "放首歌听听，有点冷", "音乐", "车内调暖一度"),
    ("en", "It is chilly in here, play some jazz", "jazz", "a degree warmer"),
])
async def test_a_command_beside_a_nudge_is_carried_out_with_it(language: str, text: str, did: str,
                                                              stepped: str) -> None:
    """The nudge with no temperature held moves the cabin a step; the command said with it is not lost."""
    last = (await _chat("in_car", language, [text])).turns[-1].reply
    assert did in last.text and stepped in last.text, last.text


async def test_a_bare_more_after_a_route_warms_nothing() -> None:
    """"A bit more" goes on with a control that moves a step; after a route it asks nothing of
    the cabin's temperature."""
    result = await _chat("in_car", "en", ["Take me home", "A bit more"])
    assert "degrees" not in result.turns[-1].reply.text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["打开座椅加热", "放首周杰伦的歌", "把车窗打开一点", "切换到外循环"],
     ["座椅加热已经打开", "音乐开始播放", "车窗已经开了一点", "空调已经切换到外循环"]),
    ("en", ["Turn on my seat heater", "Play some jazz", "Open the window a bit", "Switch to recirculation"],
     ["seat heating on", "music playing", "windows partway down", "recirculation"]),
])
async def test_a_drive_with_every_control_is_answered_with_what_was_done(language: str, lines: list[str],
                                                                          said: list[str]) -> None:
    result = await _chat("in_car", language, lines)
    for turn, words in zip(result.turns, said, strict=True):
        assert (turn.reply.decision or {}).get("act") == Act.ACT, turn.reply.text
        assert words in turn.reply.text, turn.reply.text


@pytest.mark.parametrize(("domain", "language", "lines"), [
    ("in_car", "zh", ["打开天窗"]),
    ("in_car", "en", ["Open the sunroof"]),
    ("in_car", "en", ["Can you call me a cab?"]),
    ("restaurant", "zh", ["我想订个位子", "帮我叫辆出租车"]),
    ("restaurant", "en", ["I need a table tonight", "Can you send my wife a text?"]),
    ("customer_service", "en", ["Book me a flight to Denver"]),
])
async def test_a_request_no_domain_does_is_declined_not_acknowledged(domain: str, language: str,
                                                                     lines: list[str]) -> None:
    result = await _chat(domain, language, lines)
    last = result.turns[-1].reply
    assert (last.decision or {}).get("act") == Act.CANT_DO, last.text
    assert ("not something I can do" in last.text) if language == "en" else ("做不了" in last.text), last.text
    if len(lines) > 1:      # …and the task goes on: the question still open is asked
        assert (last.decision or {}).get("then", {}).get("act") == Act.ASK, last.decision


@pytest.mark.parametrize(("domain", "language", "text"), [
    ("restaurant", "en", "Could you repeat that?"),
    ("restaurant", "zh", "请再说一遍"),
    ("restaurant", "en", "Can you tell me their phone number?"),
    ("restaurant", "zh", "把地址发我吧"),
    ("restaurant", "en", "Please set aside a table for me."),
    ("restaurant", "zh", "帮我找一家评分高的餐馆"),
    ("restaurant", "en", "Find me something where Persian food is served."),
    ("in_car", "zh", "帮我打开空调"),
    ("in_car", "en", "Turn on the seat heater"),
    ("customer_service", "en", "I want a refund"),
])
def test_a_request_the_domain_does_or_about_the_talk_is_not_declined(domain: str, language: str,
                                                                      text: str) -> None:
    assert not asks_beyond(load_schema(domain), text, language)


@pytest.mark.parametrize(("language", "text", "said"), [
    ("zh", "座椅加热打开，车窗关上", ("座椅加热已经打开", "车窗已经关上")),
    ("en", "Take me home, turn the seat heater on and close the windows", ("home", "seat heating on", "windows up")),
])
async def test_every_control_named_in_a_turn_is_carried_out(language: str, text: str, said: tuple[str, ...]) -> None:
    last = (await _chat("in_car", language, [text])).turns[-1].reply
    assert all(words in last.text for words in said), last.text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["调小一点", "风量"], "风量调小了"),
    ("zh", ["关了吧", "车窗"], "车窗已经关上"),
    ("en", ["Down a notch, please", "the fan"], "fan down"),
])
async def test_the_answer_to_which_control_carries_out_the_verb_said_before(language: str, lines: list[str],
                                                                            said: str) -> None:
    last = (await _chat("in_car", language, lines)).turns[-1].reply
    assert (last.decision or {}).get("act") == Act.ACT and said in last.text, last.text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["it's too hot in here", "22"], "22 degrees"),
    ("zh", ["我好热啊", "二十二"], "22度"),
])
async def test_a_bare_number_after_a_nudge_is_the_temperature(language: str, lines: list[str],
                                                                         said: str) -> None:
    last = (await _chat("in_car", language, lines)).turns[-1].reply
    assert said in last.text, last.text


@pytest.mark.parametrize(("text", "expected"), [
    ("把窗户关上，开内循环", {"window": "closed", "air_circulation": "recirculate"}),   # 开 is the air's here
    ("lower the volume and the fan", {"volume": "down", "fan_speed": "down"}),
    ("roll down the windows and switch off recirculation", {"window": "open", "air_circulation": "fresh_air"}),
    ("warm it up to 24 and put my seat heater on", {"temperature": 24, "seat_heating": "on"}),
])
def test_several_controls_in_one_turn_each_get_their_own_value(text: str, expected: dict[str, object]) -> None:
    assert _sets(text) == expected


@pytest.mark.parametrize(("domain", "language", "text", "said"), [
    ("in_car", "en", "What can you do?", "navigation"),
    ("in_car", "zh", "那你能干什么", "导航"),
    ("restaurant", "en", "What can you do for me?", "restaurant tables"),
])
async def test_asked_what_it_can_do_it_says_its_role(domain: str, language: str, text: str, said: str) -> None:
    last = (await _chat(domain, language, [text])).turns[-1].reply
    assert said in last.text, last.text


@pytest.mark.parametrize(("text", "expected"), [
    ("打开车窗关掉座椅加热", {"window": "open", "seat_heating": "off"}),      # each verb, its nearest control
    ("Turn the fan down and the volume up", {"fan_speed": "down", "volume": "up"}),
    ("车窗是开着还是关着", {}),                                               # an either/or question, no command
    ("Is the seat heater on or off", {}),
    ("Actually don't open the windows", {}),                                  # no command (not the opposite one)
    ("Can you play some Taylor Swift?", {"media": "playing", "music_choice": "Taylor Swift"}),
    ("帮我放首周杰伦", {"media": "playing", "music_choice": "周杰伦"}),
])
def test_review_findings_each_verb_with_its_own_control(text: str, expected: dict[str, object]) -> None:
    assert _sets(text) == expected


@pytest.mark.parametrize(("language", "lines", "act", "said"), [
    ("zh", ["把车窗关上", "打开雨刮"], Act.CANT_DO, "做不了"),             # the wipers are no window
    ("en", ["Close the windows", "Open the trunk"], Act.CANT_DO, "not something I can do"),
    ("en", ["Set the temperature to 22", "Turn it down a bit"], Act.ACT, "21 degrees"),
    ("en", ["Down a notch, please", "Close the windows"], Act.ACT, "windows up"),   # its own command
])
async def test_review_findings_in_a_conversation(language: str, lines: list[str], act: str, said: str) -> None:
    last = (await _chat("in_car", language, lines)).turns[-1].reply
    assert (last.decision or {}).get("act") == act and said in last.text, last.text


async def test_a_restaurant_user_asking_for_another_place_is_not_told_it_cannot() -> None:
    result = await _chat("restaurant", "en", ["A table for two tomorrow at 7 pm", "Please show me something else"])
    assert "not something I can do" not in result.turns[-1].reply.text


@pytest.mark.parametrize(("language", "lines", "starts"), [
    ("zh", ["关空调", "现在空调开着吗？"], "不是"),
    ("zh", ["打开座椅加热", "座椅加热开着吗"], "对"),
    ("en", ["Turn off the AC", "Is the air conditioning on?"], "No"),
])
async def test_a_controls_state_is_checked_with_a_yes_or_no(language: str, lines: list[str], starts: str) -> None:
    last = (await _chat("in_car", language, lines)).turns[-1].reply
    assert last.text.startswith(starts), last.text


async def test_asking_whether_the_windows_are_shut_does_not_shut_them() -> None:
    result = await _chat("in_car", "zh", ["车窗关了没有"])
    last = result.turns[-1].reply
    assert (last.decision or {}).get("act") != Act.ACT and "还没" in last.text, last.text


@pytest.mark.parametrize("text", ["Warmer please and turn the fan up", "暖和一点然后把风扇开大"])
def test_a_change_and_a_command_in_one_clause_are_both_read(text: str) -> None:
    held = apply_operations(SessionState("s", domain="in_car"),
                            [Operation(Op.SET, "temperature", Comparator.EQ, 22, "22 degrees")], CAR, turn=1).state
    assert _sets(text, held) == {"temperature": 23, "fan_speed": "up"}



@pytest.mark.parametrize(("language", "text", "left"), [
    ("en", "Don't turn on the seat heating", "seat heating"),
    ("zh", "别开座椅加热", "座椅加热"),
    ("zh", "空调先别关", "空调"),
])
async def test_a_command_refused_is_left_alone_and_said_so(language: str, text: str, left: str) -> None:
    last = (await _chat("in_car", language, [text])).turns[-1].reply
    assert left in last.text and (last.decision or {}).get("act") != Act.ACT, last.text


@pytest.mark.parametrize(("text", "expected"), [
    ("空调别开了", {"air_conditioning": "off"}),          # "not on any more"
    ("座椅加热别开了", {"seat_heating": "off"}),
    ("kill the AC", {"air_conditioning": "off"}),
    ("好热啊 把空调打开", {"air_conditioning": "on"}),     # the ASR's pause ends the nudge's clause
    ("开空调 风小一点 再把音量调低", {"air_conditioning": "on", "fan_speed": "down", "volume": "down"}),
    ("空调还开着吗现在", {}),                               # questions, however the ASR ends them
    ("我刚才音量调的多大", {}),
])
def test_controls_in_a_drivers_run_on_words(text: str, expected: dict[str, object]) -> None:
    assert _sets(text) == expected


async def test_a_suggestion_to_turn_a_control_on_is_not_a_refusal() -> None:
    last = (await _chat("in_car", "en", ["Why don't you turn on the AC"])).turns[-1].reply
    assert "leave" not in last.text, last.text


def test_the_asrs_pause_inside_a_change_keeps_it_whole() -> None:
    held = apply_operations(SessionState("s", domain="in_car"),
                            [Operation(Op.SET, "temperature", Comparator.EQ, 22, "22 degrees")], CAR, turn=1).state
    assert _sets("温度 高一点", held) == {"temperature": 23}
