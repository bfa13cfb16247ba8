"""Several domains in one agent: each turn's domain is detected, each
domain's slots stay apart, and only the domain's own options are offered."""

from __future__ import annotations

import json

import pytest

from monologue.configs import load_config
from monologue.memory.domain.schema import parse_schema
from monologue.memory.domain.several import DomainDetector, combine, domain_view, load_domains
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.turn_classes import classify_turn
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import StateFollowingLLM


async def _session(lines, domain="restaurant+in_car", language="en"):
    memory = WorkingMemory("s", options=WorkingMemoryOptions(domain=domain, language=language, llm_mode="never"))
    domains = []
    for turn, line in enumerate(lines, 1):
        turn_class = classify_turn(line, memory.reads_condition, schema=memory.schema).turn_class
        result = await memory.update(line, turn=turn, turn_class=turn_class)
        domains.append(result.state.domain)
    return memory, domains


@pytest.mark.parametrize("language, lines, expected_domains", [
    ("en", ["Take me to the airport and avoid tolls.", "Also book a table for two at 8 pm, somewhere Japanese.",
            "make it 9 pm", "Which route avoids the highway?"], ["in_car", "restaurant", "restaurant", "in_car"]),
    ("zh", ["导航去机场，不走高速", "顺便帮我订个餐厅，晚上七点，两个人", "好的"],
     ["in_car", "restaurant", "restaurant"]),
])
async def test_each_turn_is_read_in_its_own_domain(language, lines, expected_domains):
    memory, domains = await _session(lines, language=language)
    assert domains == expected_domains
    keys = {c.key for c in memory.state.constraints.values()}
    assert "route_preference" in keys and "party_size" in keys and "time" in keys
    assert memory.domains.key_domain["route_preference"] == "in_car"
    assert memory.domains.key_domain["party_size"] == "restaurant"


def test_a_key_two_domains_share_is_kept_apart():
    trains = parse_schema({"name": "trains", "goal_words": {"en": ["train", "ticket"]},
                           "keys": {"time": {"type": "time", "reader": "clock_time"},
                                    "destination": {"type": "text"}}})
    combined = combine([load_domains("restaurant").schema, trains])
    assert {"restaurant.time", "trains.time"} <= set(combined.schema.keys)
    assert "party_size" in combined.schema.keys and "destination" in combined.schema.keys
    assert combined.qualified("trains", "time") == "trains.time"


async def test_a_shared_key_is_written_for_the_turns_domain_only(tmp_path):
    (tmp_path / "trains.yaml").write_text(
        "name: trains\ngoal_words: {en: [train, ticket, railway]}\n"
        "keys:\n  time: {type: time, reader: clock_time, aliases: {en: [departure]}}\n")
    memory, _ = await _session(["Dinner for two at 7 pm please.", "and a train ticket home at 11 pm"],
                               domain=f"restaurant+{tmp_path / 'trains.yaml'}")
    values = {c.key: c.value for c in memory.state.constraints.values()}
    assert values["restaurant.time"] == "19:00" and values["trains.time"] == "23:00"
    view = domain_view(memory.domains, memory.state, "restaurant")
    assert {c.key for c in view.constraints.values()} == {"party_size", "time"}


def test_words_of_no_domain_stay_in_the_current_one():
    detector = DomainDetector(load_domains("restaurant+in_car").domains)
    assert detector.detect("yes please", "in_car") == "in_car"
    assert detector.detect("make it six", "restaurant") == "restaurant"
    assert detector.detect("set the cabin temperature lower", "restaurant") == "in_car"


async def _chat(domain, lines, catalogue=None):
    overrides = {"monologue": {"domain": domain, "llm_mode": "never"}}
    if catalogue:
        overrides["reply"] = {"catalogue": catalogue}
    config = load_config(overrides=overrides, environ={})
    reply = StateFollowingLLM()
    result = await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=reply))
    return result, reply


async def test_an_in_car_session_is_never_offered_restaurants():
    result, _ = await _chat("in_car", ["Take me home, no highways.", "Any good places on the way?",
                                       "Book dinner for two at 8?"])
    # What each turn was told (the system prompt's worked example aside).
    prompts = json.dumps([turn.reply.prompt[-1] for turn in result.turns])
    assert "Places that fit" not in prompts and "Sakura" not in prompts and "Chili House" not in prompts


async def test_a_several_domain_agent_offers_restaurants_only_in_the_restaurant_domain():
    result, _ = await _chat("restaurant+in_car", ["Take me to the airport, avoid tolls.",
                                                  "Also book a table for two at 8 pm."])
    first, second = (json.dumps(turn.reply.prompt[-1]) for turn in result.turns)
    assert not any(name in first for name in ("Sakura", "Chili House", "Luigi"))
    # The restaurant's task: the day is still missing, so it is asked for before anything is offered.
    assert result.turns[0].reply.decision["action"] == "set_route"
    asked = result.turns[1].reply.decision
    assert asked == {**asked, "act": "ask", "action": "book", "key": "date"}
