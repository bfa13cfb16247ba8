"""Stale values are re-confirmed, never re-asked and never lost (W6; seed 000 §3.2).

A value the user gave and did not mention for `monologue.expire_after_turns` turns becomes "to
confirm". It stays in the live state until the user changes or withdraws it; the policy never
asks for it again; before an action uses it, the agent reads it back, and a yes acts on it.
"""

from __future__ import annotations

import pytest

from monologue.configs import load_config
from monologue.dialogue.policy import Act, DialoguePolicy, TurnFacts, live_values, stale_keys
from monologue.memory.domain.catalogue import filter_options, load_catalogue
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.state import Comparator, Condition, ConditionStatus, SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import ChatOptions, chat_session

from fakes import PlannerFollowingLLM, steady

FOOD, CAR = load_schema("restaurant"), load_schema("in_car")
RESTAURANTS = load_catalogue("restaurants")


def _state(schema, stale: tuple[str, ...] = (), **values) -> SessionState:
    state = SessionState("s", domain=schema.name, version=1)
    for key, value in values.items():
        spec = schema.key(key)
        comparator = Comparator(spec.default_op) if spec.multi else Comparator.EQ
        status = ConditionStatus.TO_CONFIRM if key in stale else ConditionStatus.ACTIVE
        state.constraints[f"{key}:{value}" if spec.multi else key] = Condition(
            key, comparator, value, "", 1, status=status, multi=spec.multi)
    return state


def _decide(schema, state: SessionState, text: str, changed=(), turn_class=TurnClass.INFORMATION_CHANGE):
    options = filter_options(RESTAURANTS.items, state)[0] if schema is FOOD else []
    return DialoguePolicy(schema).decide(state, TurnFacts(text, "en", turn_class, frozenset(changed)), options)


def test_a_stale_value_is_held_and_never_asked_for():
    state = _state(FOOD, stale=("date",), party_size=4, date="friday")
    assert live_values(state, FOOD)["date"] == "friday" and stale_keys(state) == {"date"}
    decision = _decide(FOOD, state, "we'd like a table", changed=())
    assert (decision.act, decision.key) == (Act.ASK, "time")            # not the day: the state holds it


@pytest.mark.parametrize("stale", [("date",), ("time", "party_size")])
def test_a_stale_value_is_read_back_before_acting_and_a_yes_acts(stale):
    state = _state(FOOD, stale=stale, party_size=2, date="friday", time="19:00", restaurant_name="Sakura")
    read_back = _decide(FOOD, state, "Sakura is fine", changed={"restaurant_name"})
    assert read_back.act == Act.CONFIRM and read_back.args["date"] == "friday", read_back
    state.acts = [read_back.remembered(1)]
    assert _decide(FOOD, state, "yes, go ahead", turn_class=TurnClass.CONFIRMATION).act == Act.ACT
    assert _decide(FOOD, state, "no, hang on", turn_class=TurnClass.CONFIRMATION).act == Act.ASK_CHANGE


def test_an_action_that_needs_no_read_back_gets_one_when_what_it_uses_is_stale():
    """The car's route is set at once when the driver names it, but a stop named long ago is
    read back before the route that carries it is set again."""
    state = _state(CAR, stale=("stops",), destination="airport", stops="pharmacy")
    decision = _decide(CAR, state, "let's go", changed=())
    assert decision.act == Act.CONFIRM and decision.args == {"destination": "airport", "stops": ["pharmacy"]}
    fresh = _state(CAR, destination="airport", stops="pharmacy")
    assert _decide(CAR, fresh, "let's go", changed=()).act == Act.ACT


# --- whole conversations: the day said at the start, a long digression, then the booking ------------

CONVERSATIONS = {
    "en": ["Hi, I'd like to book dinner for Friday.", "There will be four of us.",
           "By the way, how's your day going?", "It's been raining here all week.",
           "My sister just got back from Lisbon.", "She says the food there was amazing.",
           "Have you ever heard of pastel de nata?", "I might try baking some this weekend.",
           "Anyway, my cat knocked over a plant this morning.", "Sorry, I'm rambling.",
           "Work has been hectic too.", "OK, back to it: around 7 pm please.", "Yes, that's all correct.",
           "Sounds good."],
    "zh": ["你好，我想订周五的晚饭。", "我们一共四个人。", "对了，你今天过得怎么样？", "我们这边下了一整周的雨。",
           "我妹妹刚从成都回来。", "她说那边的火锅特别好吃。", "你吃过担担面吗？", "我周末可能自己试着做。",
           "今天早上猫把花盆打翻了。", "不好意思，扯远了。", "最近工作也挺忙的。", "好了，说正事：晚上七点左右吧。",
           "对，没问题。", "好的。"],
}


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_a_day_said_at_the_start_outlives_a_long_digression(language):
    overrides = steady(monologue={"llm_mode": "never", "expire_after_turns": 4}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    lines = CONVERSATIONS[language]
    states: list[dict[str, str]] = []

    def seen(turn, memory) -> None:
        state = memory.state if memory is not None else None
        states.append({c.key: str(c.value) for c in state.constraints.values()} if state else {})

    result = await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)),
                                ChatOptions(on_turn=seen))
    decisions = [t.reply.decision or {} for t in result.turns]
    shown = "\n".join(f"{t.text} → {t.reply.text} [{(t.reply.decision or {}).get('act')}]" for t in result.turns)
    # Never asked again for what it holds; held on every turn from the one it was said.
    asked_again = [d for d in decisions[1:] if d.get("act") == Act.ASK and d.get("key") in ("date", "party_size")]
    assert not asked_again, shown
    assert all(s.get("date") == "friday" for s in states), (states, shown)
    assert all(s.get("party_size") == "4" for s in states[1:]), (states, shown)
    # Read back before acting, with the day and the party size in it; the yes books with both.
    acted = [d for d in decisions if d.get("act") == Act.ACT]
    assert acted and acted[0]["args"]["date"] == "friday" and acted[0]["args"]["party_size"] == 4, shown
    first_act = decisions.index(acted[0])
    read_backs = (Act.CONFIRM, Act.PROPOSE, Act.RESUME)
    assert any(d.get("act") in read_backs for d in decisions[first_act - 2:first_act]), shown
