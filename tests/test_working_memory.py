"""Seed 000 §4 verification (E1) through the text pipeline, with scripted LLM fakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monologue.configs import load_config
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.state import OfferedOption
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import ChatOptions, chat_session, parse_script

from fakes import ScriptedJsonLLM, StateFollowingLLM


def _config(language: str = "en", **monologue):
    return load_config(overrides={"language": language, "monologue": monologue}, environ={})


async def _chat(lines, language="en", json_llm=None, reply_llm=None, llm_mode="auto", out_dir=None,
                expire_after=8):
    config = _config(language, llm_mode=llm_mode, expire_after_turns=expire_after)
    reply = reply_llm or StateFollowingLLM()
    memory = WorkingMemory("s", InMemoryStateStore(),
                           WorkingMemoryOptions(language=language, llm_mode=llm_mode,
                                                expire_after_turns=expire_after, llm_timeout_secs=10.0),
                           llm=json_llm)
    states = []

    def on_turn(turn, mem):
        states.append(mem.state)

    models = AgentModels(asr=None, tts=None, llm=reply)
    result = await chat_session(lines, config, models, ChatOptions(memory=memory, out_dir=out_dir, on_turn=on_turn))
    return result, states, memory, reply


def values(state):
    return {c.slot: (c.comparator, c.value) for c in state.constraints.values()}


@pytest.mark.parametrize("language, line", [
    ("en", "Book a table for Saturday at 7 pm, four people, no spicy food. What do you recommend?"),
    ("zh", "帮我订周六晚上七点的餐厅，四个人，不吃辣。有什么推荐？"),
])
async def test_single_turn(language, line):
    result, states, _, _ = await _chat([line], language)
    state = states[-1]
    assert state.goal
    assert values(state).items() >= {"party_size": ("=", 4), "dietary:spicy": ("excludes", "spicy"),
                                     "time": ("=", "19:00"), "date": ("=", "saturday")}.items()
    reply = result.turns[0].reply.text
    assert "Chili House" not in reply and ("4 people" if language == "en" else "4个人") in reply


@pytest.mark.parametrize("language, lines", [
    ("en", ["I need a table for four people on Saturday at 7 pm, and nothing spicy please.",
            "Saturday at 7 pm still works for us.",
            "What do you recommend?"]),
    ("zh", ["订周六晚上七点的位子，四个人，不吃辣。", "周六晚上七点没问题。", "有什么推荐？"]),
])
async def test_a_b_c(language, lines):
    """A, B, C; a turn mentioning only B; then a request that needs A and C."""
    result, states, _, reply_llm = await _chat(lines, language)
    final = values(states[-1])
    assert final["party_size"] == ("=", 4) and final["dietary:spicy"] == ("excludes", "spicy")
    assert final["time"] == ("=", "19:00")
    reply = result.turns[-1].reply.text
    spoken = {"en": ("4 people", "7 pm"), "zh": ("4个人", "晚上7点")}[language]
    assert "Chili House" not in reply and all(words in reply for words in spoken)
    # the prompt carried the state, not the history: turn 1's words are not in turn 3's prompt
    last_prompt = json.dumps(reply_llm.prompts[-1], ensure_ascii=False)
    assert ("for 4 people" if language == "en" else "4个人") in last_prompt


async def test_correction_withdrawal_confirmation():
    lines = ["Table for four on Friday at 8 pm, budget under 200 dollars.",
             "Actually, make it six.",
             "Forget the budget.",
             "Yes, that's right."]
    result, states, memory, _ = await _chat(lines)
    assert states[1].constraints["party_size"].value == 6
    assert "budget" in states[1].constraints and "budget" not in states[2].constraints
    # The yes confirms what the agent read back (the offer, with the day, time and party),
    # and the policy books it.
    confirmed = {c.slot for c in states[3].constraints.values() if c.confirmed}
    assert confirmed == {"party_size", "time", "date", "restaurant_name"}
    assert [d.action for d in states[3].done] == ["book"] and states[3].done[0].args["party_size"] == 6
    actions = [(c.action, c.slot) for c in memory.history()]
    assert ("replaced", "party_size") in actions and ("withdrawn", "budget") in actions
    assert [t.turn_class for t in result.turns] == ["information_change", "information_change",
                                                     "information_change", "confirmation"]


LONG_SESSION = [(t["say"], t["expect"]) for t in json.loads(
    (Path(__file__).resolve().parent.parent / "assets" / "scripts" / "long_session_en.json").read_text())["turns"]]


@pytest.mark.parametrize("expire_after", [8, 0])
async def test_thirty_turn_session_stays_clean(expire_after):
    lines = [line for line, _ in LONG_SESSION]
    result, states, memory, _ = await _chat(lines, expire_after=expire_after)
    expected: dict[str, object] = {}
    for turn, ((line, changes), state) in enumerate(zip(LONG_SESSION, states, strict=False), 1):
        expected.update(changes)
        live = {slot: c.value for slot, c in state.constraints.items()}
        for slot, value in expected.items():
            if value is None:
                assert slot not in live, (turn, line, slot)
            elif slot in live:   # present means current: never a superseded value
                assert live[slot] == value, (turn, line, slot, live[slot])
            else:
                raise AssertionError(f"turn {turn} ({line!r}): {slot} = {value!r} was lost")   # nothing is, by age
        assert len(state.pending) <= 5
        assert len(state.confirmed) <= len(state.constraints)
        slots = [c.slot for c in state.constraints.values()]
        assert len(slots) == len(set(slots))
    share = result.triggered_share
    assert 0.3 <= share <= 0.8, share


async def test_chinese_thirty_turn_corrections():
    lines = ["帮我订周六晚上七点的餐厅，四个人。", "今天天气真好。", "不吃辣。", "预算五百以内。", "好的。",
             "改成六个人。", "哈哈。", "改成八点。", "不要预算了。", "对。"] * 3
    _, states, _, _ = await _chat(lines, "zh")
    final = states[-1]
    assert final.constraints["party_size"].value == 6
    assert final.constraints["time"].value == "20:00"
    assert "budget" not in final.constraints
    assert final.constraints["dietary:spicy"].comparator == "excludes"


async def test_llm_reads_what_the_rules_cannot():
    json_llm = ScriptedJsonLLM([{"operations": [{"op": "set", "key": "occasion", "value": "birthday"}],
                                 "note": "It is a birthday dinner."}])
    _, states, memory, _ = await _chat(["We're celebrating, it's for my mother's birthday."],
                                       json_llm=json_llm)
    assert states[-1].constraints["occasion"].value == "birthday"   # a key no schema knows is kept
    sent = json_llm.requests[0][-1]["content"]
    assert "Current state" in sent and "birthday" in sent            # previous state + utterance
    assert "birthday dinner" in states[-1].last_monologue


@pytest.mark.parametrize("bad", [
    "this is not JSON",
    {"operations": [{"op": "rewrite_state", "key": "party_size", "value": 2}]},
    {"operations": [{"op": "set", "key": "party_size", "value": "lots"}]},
    TimeoutError("provider timed out"),
])
async def test_bad_llm_answers_change_nothing(bad, tmp_path):
    json_llm = ScriptedJsonLLM([{"operations": [{"op": "set", "key": "occasion", "value": "anniversary"}]}, bad])
    lines = ["We're celebrating our anniversary dinner.", "Actually it's a special occasion, my partner is picky."]
    result, states, _, _ = await _chat(lines, json_llm=json_llm, out_dir=tmp_path)
    assert values(states[1]) == values(states[0])
    trace = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert trace[1]["monologue"]["llm_error"]
    assert result.turns[1].reply.text                                 # the turn is still answered


async def test_llm_timeout_is_reported():
    json_llm = ScriptedJsonLLM([{"operations": []}], delay=2.0)
    memory = WorkingMemory("s", InMemoryStateStore(), WorkingMemoryOptions(llm_timeout_secs=0.2), llm=json_llm)
    result = await memory.update("We're celebrating my partner's birthday.", turn=1)
    assert "within" in result.llm_error and result.state.constraints == {}


async def test_low_asr_confidence_asks_back_instead_of_writing():
    memory = WorkingMemory("s", InMemoryStateStore(), WorkingMemoryOptions(low_confidence=0.45))
    await memory.update("Table for four at 7 pm.", turn=1)
    unsure = await memory.update("Make it seven people.", turn=2, asr_confidence=0.2)
    assert unsure.clarify and "7 people" in unsure.clarify
    assert unsure.state.constraints["party_size"].value == 4
    sure = await memory.update("Yes.", turn=3, turn_class="confirmation", asr_confidence=0.9)
    assert sure.state.constraints["party_size"].value == 7 and sure.state.pending == []


async def test_reply_waits_for_state_only_on_changing_turns(tmp_path):
    json_llm = ScriptedJsonLLM([{"operations": [{"op": "set", "key": "occasion", "value": "birthday"}]}] * 3,
                               delay=0.4)
    lines = ["It's a birthday party for my mother.", "The weather is lovely today.",
             "Four people on Saturday at 7 pm."]
    result, states, _, reply_llm = await _chat(lines, json_llm=json_llm, llm_mode="always", out_dir=tmp_path)
    change, chat, booking = result.turns
    assert change.compute["reply_waited_for_state"] >= 0.3       # built on the updated state
    assert "reply_waited_for_state" not in chat.compute            # chit-chat never waits
    assert chat.monologue is not None and chat.monologue.skipped
    trace = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    for line in trace:
        if not line["monologue"].get("skipped"):
            assert line["reply"]["state_version"] == line["monologue"]["version"]   # never a stale version
    # chit-chat reads the newest state: the update of turn 1 (and the agent's read-back after it)
    assert trace[1]["reply"]["state_version"] >= trace[0]["monologue"]["version"]
    assert "for 4 people" in json.dumps(reply_llm.prompts[2])


async def test_prompt_stays_flat_as_the_session_grows():
    lines = [line for line, _ in LONG_SESSION]
    _, _, _, reply_llm = await _chat(lines)
    sizes = [len(json.dumps(p, ensure_ascii=False).split()) for p in reply_llm.prompts]
    assert sizes[29] <= 1.3 * sizes[2], (sizes[2], sizes[29])


def test_script_parsing():
    script = "# comment\nfirst\n\nsecond # trailing\n---\nthird\n---\n---\n"
    assert parse_script(script) == [["first", "second"], ["third"]]


@pytest.mark.parametrize("small_talk", ["Lovely weather today, isn't it?", "Great day for it, right?",
                                        "Nice weather we're having."])
async def test_small_talk_with_a_yes_word_does_not_confirm_an_open_offer(small_talk):
    """A yes word used as an adjective is small talk, not a yes to "…shall I book it?"."""
    from monologue.memory.working.turn_classes import TurnClass

    memory = WorkingMemory("offer", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("Book a table for four on Friday at 7 pm", turn=1, turn_class=TurnClass.INFORMATION_CHANGE)
    await memory.record_agent_turn("Green Table, on Friday at 7 pm for 4 people; shall I book it?", turn=1,
                                   offered=[OfferedOption({"restaurant_name": "Green Table"})])
    result = await memory.update(small_talk, turn=2, turn_class=TurnClass.CONFIRMATION)
    assert not result.operations and not memory.state.confirmed
    assert not memory.state.find("restaurant_name")
