"""Grounding and references: an operation changes only what the turn
refers to, whatever produced it; references resolve against the state."""

from __future__ import annotations

import random

import pytest

from monologue.memory.domain.schema import load_schema, parse_schema
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.grounding import Grounder
from monologue.memory.working.references import ReferenceResolver
from monologue.memory.working.state import (
    Comparator,
    Condition,
    OfferedOption,
    Op,
    Operation,
    OpSource,
    SessionState,
)
from monologue.memory.working.turn_classes import classify_turn

from fakes import ScriptedJsonLLM

RESTAURANT = load_schema("restaurant")
IN_CAR = load_schema("in_car")
OFFERS = [OfferedOption({"restaurant_name": "Sakura"}), OfferedOption({"restaurant_name": "Fire Pot"})]


def state_with(schema_name: str = "restaurant", **values: object) -> SessionState:
    state = SessionState("s", domain=schema_name, turn=3)
    for key, value in values.items():
        state.constraints[key] = Condition(key, Comparator.EQ, value, str(value), 1, last_mentioned=1)
    return state


def llm(op: str, key: str = "", value=None, words: str = "") -> Operation:
    return Operation(op, key, value=value, words=words, source=OpSource.LLM)


def kept(schema, ops, text, state):
    result = Grounder(schema).check(ops, text, state)
    return [(o.op, o.key, o.value) for o in result.kept], [r.reason for r in result.rejected]


# --- grounding ----------------------------------------------------------------------

@pytest.mark.parametrize("text, op, why", [
    # A correction naming the old value: a model withdrawing a slot the turn never mentions.
    ("Can you push it from six to nine?", llm("withdraw", "party_size"), "does not refer"),
    ("往后推一下，从六点到九点", llm("withdraw", "party_size"), "does not refer"),
    # A value nobody said.
    ("Sounds good, book it.", llm("set", "time", "14:00"), "was not said"),
    ("好的，就这样订吧", llm("set", "time", "14:00"), "was not said"),
    # A value said, for a slot the turn does not name.
    ("Lovely, we're celebrating my sister's promotion at 9", llm("set", "party_size", 9), "does not refer"),
    ("I'd love some nice food by the river", llm("set", "location", "river"), "does not refer"),
])
def test_operations_on_slots_the_turn_does_not_refer_to_are_rejected(text, op, why):
    state = state_with(party_size=4, time="18:00")
    ops, reasons = kept(RESTAURANT, [op], text, state)
    assert ops == [] and why in reasons[0]


@pytest.mark.parametrize("text, key, value", [
    ("What temperature do I usually like?", "temperature", 22),
    ("Do I like it at 22 degrees?", "temperature", 22),
    ("你记得我喜欢几度吗？", "temperature", 22),
    ("我上次是不是说过二十二度？", "temperature", 22),
    ("Which way did we take to the airport last time?", "destination", "the airport"),
])
def test_a_question_never_sets_a_value(text, key, value):
    ops, reasons = kept(IN_CAR, [llm("set", key, value)], text, state_with("in_car"))
    assert ops == [] and reasons


@pytest.mark.parametrize("text, key, value", [
    ("Could you make it 8 pm instead?", "time", "20:00"),
    ("Can we do seven people instead?", "party_size", 7),
    ("能不能改成八点？", "time", "20:00"),
    ("How about Thursday?", "date", "thursday"),
])
def test_a_request_phrased_as_a_question_still_writes(text, key, value):
    ops, _ = kept(RESTAURANT, [llm("set", key, value)], text, state_with(time="19:00", party_size=4))
    assert ops == [("set", key, value)]


@pytest.mark.parametrize("text, op", [
    ("Take the toll road today, I'm in a hurry.", llm("set", "destination", "the toll road")),
    ("今天走高速吧，我赶时间", llm("set", "destination", "高速")),
])
def test_a_one_off_exception_is_not_the_destination(text, op):
    ops, _ = kept(IN_CAR, [op], text, state_with("in_car", destination="the airport"))
    assert ops == []


def test_a_model_may_not_rewrite_the_goal_from_a_request():
    state = state_with("in_car")
    state.goal = "drive to a destination"
    ops, reasons = kept(IN_CAR, [llm("set_goal", value="move the Tuesday trip to Thursday")],
                        "Move the Tuesday trip to Thursday.", state)
    assert ops == [] and "goal" in reasons[0]


def test_model_words_that_are_not_in_the_utterance_are_found_again_from_the_value():
    ops = Grounder(RESTAURANT).check([llm("set", "party_size", 5, words="five people total")],
                                     "Actually there will be 5 people.", state_with(party_size=4)).kept
    assert ops[0].words == "Actually there will be 5 people."


def test_a_normalised_value_counts_as_said():
    state = state_with(time="19:00")
    ops, _ = kept(RESTAURANT, [llm("set", "time", "21:00"), llm("set", "party_size", 4)],
                  "make the time nine, for four people", state)
    assert ops == [("set", "time", "21:00"), ("set", "party_size", 4)]


# --- a yes confirms only what the agent proposed from the state or the options ------

async def test_a_value_the_reply_model_invented_is_never_confirmed():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("A table for two tonight at 8 pm.", turn=1)
    rejected = await memory.record_agent_turn("Sakura has a table at 2 PM for two, shall I book it?", turn=1,
                                              offered=OFFERS)
    assert any("14:00" in r.reason for r in rejected)
    await memory.update("Sounds good, book it.", turn=2, turn_class="confirmation")
    state = memory.state
    assert state.find("time")[0].value == "20:00" and not state.find("time")[0].confirmed   # not read back
    assert state.find("restaurant_name")[0].value == "Sakura"
    assert state.find("party_size")[0].value == 2


async def test_a_yes_to_two_offers_at_once_chooses_neither():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("Dinner for two at 8 pm.", turn=1)
    await memory.record_agent_turn("I can offer Sakura or Fire Pot.", turn=1,
                                   offered=OFFERS)
    await memory.update("sure", turn=2, turn_class="confirmation")
    assert not memory.state.find("restaurant_name")
    await memory.update("the second one", turn=3)
    assert memory.state.find("restaurant_name")[0].value == "Fire Pot"


# --- references against the state -----------------------------------------------------

async def _run(lines, language="en", offered=(), seed=()):
    memory = WorkingMemory("s", options=WorkingMemoryOptions(language=language, llm_mode="never"))
    if seed:
        await memory.seed(list(seed), "from your profile")
    for turn, line in enumerate(lines, 1):
        if line.startswith("AGENT: "):
            await memory.record_agent_turn(line[7:], turn=turn, offered=list(offered))
            continue
        turn_class = classify_turn(line, memory.reads_condition, schema=memory.schema).turn_class
        await memory.update(line, turn=turn, turn_class=turn_class)
    return {c.slot: c.value for c in memory.state.constraints.values()}, memory


@pytest.mark.parametrize("language, lines, expected", [
    ("en", ["Table for four at 6 pm on Friday.", "Can you push it from six to nine?"], {"time": "21:00",
                                                                                        "party_size": 4}),
    ("en", ["We're six people, at 7 pm.", "bump six to eight people"], {"party_size": 8, "time": "19:00"}),
    ("en", ["Five of us at half past six.", "can we shift that from half six to eight?"], {"time": "20:00"}),
    ("en", ["Dinner on Friday for 2 at 8pm.", "hmm, Saturday instead of Friday"], {"date": "saturday"}),
    ("en", ["Dinner on Friday for 2 at 8pm.", "not Friday but Sunday"], {"date": "sunday"}),
    ("en", ["Somewhere in Midtown for 3 people.", "change Midtown to Riverside please"], {"location": "Riverside"}),
    ("zh", ["订周五晚上六点，四个人。", "把六点改成九点吧"], {"time": "21:00", "party_size": 4}),
    ("zh", ["订周五晚上六点，四个人。", "从周五改到周日"], {"date": "sunday", "time": "18:00"}),
    ("zh", ["订周五晚上六点，四个人。", "不是六点，是七点"], {"time": "19:00"}),
    ("en", ["Two of us at 7 pm.", "make it 7:30 pm", "nah, the other time was better"], {"time": "19:00"}),
    # The old value in no slot (misheard, or never said): the new one is meant, not the first read.
    ("zh", ["把三个人改成五个人"], {"party_size": 5}),
    ("zh", ["周六中午，六个人。", "我同事有一位坐轮椅，得方便进出。", "把六个人改成八个人吧。"], {"party_size": 8}),
    ("en", ["Table for 2 at 7 pm.", "make it 9 pm", "actually, go back to the earlier time"], {"time": "19:00"}),
    ("en", ["Table for 2 at 7 pm.", "Make it four people.", "change it back"], {"party_size": 2}),
    ("zh", ["两个人，晚上七点。", "改成九点", "还是改回原来的时间吧"], {"time": "19:00"}),
])
async def test_references_to_old_values(language, lines, expected):
    values, _ = await _run(lines, language)
    assert values.items() >= expected.items()


async def test_an_old_value_held_by_two_slots_is_not_guessed():
    values, _ = await _run(["Six people at 6 pm.", "from six to eight"])
    assert values == {"party_size": 6, "time": "18:00"}




@pytest.mark.parametrize("language, reply, answer, expected", [
    ("en", "How about Sakura?", "no, the other one", "Fire Pot"),
    ("en", "How about Sakura?", "hmm, what about the other place", "Fire Pot"),
    ("zh", "Sakura 怎么样？", "换另一家吧", "Fire Pot"),
    ("en", "How about Sakura?", "that one sounds great", "Sakura"),
    ("zh", "Sakura 怎么样？", "就这家", "Sakura"),
    ("en", "I have Sakura and Fire Pot.", "the first one", "Sakura"),
])
async def test_pointing_at_offers(language, reply, answer, expected):
    values, _ = await _run(["Dinner for two at 8 pm.", "AGENT: " + reply, answer], language, OFFERS)
    assert values.get("restaurant_name") == expected


async def test_not_that_one_but_the_other_one():
    values, _ = await _run(["Dinner for two at 8 pm.", "AGENT: How about Sakura?", "no, not that one, the other one"],
                           offered=OFFERS)
    assert values.get("restaurant_name") == "Fire Pot"


@pytest.mark.parametrize("answer", ["not that one", "something else please", "不要这家，换一家"])
async def test_not_that_one_confirms_nothing(answer):
    values, memory = await _run(["Dinner for two at 8 pm.", "AGENT: How about Sakura?", answer, "ok"],
                                offered=OFFERS)
    assert "restaurant_name" not in values and not memory.state.proposal


async def test_same_as_last_time_confirms_what_the_session_started_from():
    seed = [Operation(Op.SET, "seating", value="window", words="profile", source=OpSource.PROFILE),
            Operation(Op.SET, "cuisine", value="japanese", words="profile", source=OpSource.PROFILE)]
    _, memory = await _run(["Same seat as last time, please."], seed=seed)
    conditions = {c.key: c for c in memory.state.constraints.values()}
    assert conditions["seating"].confirmed and conditions["seating"].status == "active"
    assert not conditions["cuisine"].confirmed           # only the slot the user named


# --- property — no operation touches a slot the turn does not name --------------------

FRAGMENTS = {
    "party_size": ["for {n} people", "there will be {n} of us", "a table for {n}", "{n}个人"],
    "time": ["at {h} pm", "around {h}:30 in the evening", "晚上{h}点"],
    "date": ["on {day}", "next {day}"],
    "budget": ["under {m} dollars", "预算{m}以内"],
    "seating": ["by the window", "somewhere outside", "坐包间"],
    "cuisine": ["some thai food", "Japanese please", "想吃火锅"],
    "dietary": ["no pork", "nothing spicy", "不吃辣"],
    "price_range": ["something cheap", "somewhere upscale"],
    "location": ["in Midtown", "near Riverside"],
}
WITHDRAW = {"budget": "forget the budget", "seating": "drop the seating", "party_size": "never mind the party size"}
CHAT = ["the weather is lovely", "my kids love this song", "thanks so much", "what a long day",
        "I'm so hungry", "今天好累啊", "谢谢你", "did you see the game last night?"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday"]


def _random_state(rng: random.Random) -> SessionState:
    values = {"party_size": rng.randint(2, 4), "time": f"{rng.randint(17, 19):02d}:00",
              "date": rng.choice(["saturday", "sunday"]), "budget": rng.choice([300, 400]),
              "seating": "bar", "cuisine": "korean", "price_range": "moderate", "location": "Chinatown"}
    chosen = rng.sample(sorted(values), rng.randint(0, len(values)))
    return state_with("restaurant", **{k: values[k] for k in chosen})


def _random_turn(rng: random.Random) -> tuple[str, set[str]]:
    named: set[str] = set()
    parts = rng.sample(CHAT, rng.randint(0, 2))
    for key in rng.sample(sorted(FRAGMENTS), rng.randint(0, 3)):
        template = rng.choice(FRAGMENTS[key])
        parts.append(template.format(n=rng.randint(5, 9), h=rng.randint(8, 11), day=rng.choice(DAYS),
                                     m=rng.choice([50, 80, 120])))
        named.add(key)
    if rng.random() < 0.2:
        key = rng.choice(sorted(WITHDRAW))
        parts.append(WITHDRAW[key])
        named.add(key)
    rng.shuffle(parts)
    return ", ".join(parts) or "hello", named


def _adversary(rng: random.Random, text: str) -> list[Operation]:
    """A model that writes anything: random slots, values said elsewhere, made-up values."""
    words = text.split(", ")
    ops = []
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(sorted(FRAGMENTS))
        value = rng.choice([rng.randint(2, 12), "21:00", "friday", "window", "thai", rng.choice(words), 80])
        op = rng.choice(["set", "set", "withdraw"])
        ops.append(Operation(op, key, value=value if op == "set" else None,
                             words=rng.choice(words + [""]), source=OpSource.LLM))
    return ops


def test_property_no_operation_touches_a_slot_the_turn_does_not_name():
    rng = random.Random(9)
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    resolver, grounder = ReferenceResolver(RESTAURANT), Grounder(RESTAURANT)
    checked = 0
    for _ in range(1000):
        state = _random_state(rng)
        text, named = _random_turn(rng)
        ops = resolver.resolve(text, state, list(memory.rules.extract(text, state).operations))
        ops += _adversary(rng, text)
        for op in grounder.check(ops, text, state).kept:
            if op.op in (Op.SET, Op.WITHDRAW):
                checked += 1
                assert op.key in named, f"{text!r} named {sorted(named)}, but {op.op} {op.key} = {op.value!r} was kept"
    assert checked > 500     # the turns did write: the property is not met by writing nothing


async def test_a_turn_that_resolves_a_reference_is_not_chit_chat():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("Table for four at 6 pm.", turn=1)
    assert classify_turn("can you push it from six to nine?", memory.reads_condition,
                         schema=memory.schema).turn_class == "information_change"


async def test_rejections_are_in_the_trace():
    json_llm = ScriptedJsonLLM([{"operations": [{"op": "set", "key": "temperature", "value": 19}]}])
    memory = WorkingMemory("s", options=WorkingMemoryOptions(domain="in_car", llm_mode="always"), llm=json_llm)
    result = await memory.update("What temperature did I ask for last week?", turn=1)
    trace = result.trace()
    assert trace["rejected"] and "question" in trace["rejected"][0]["reason"]
    assert not memory.state.find("temperature")


@pytest.mark.parametrize("text, destination", [
    ("Navigate to the office please.", "work"), ("take me home", "home"), ("导航去机场", "airport"),
    ("Drive to Union Square.", "Union Square"), ("我们公司的人都很好", None), ("Home is where the heart is.", None),
])
async def test_everyday_destinations(text, destination):
    memory = WorkingMemory("s", options=WorkingMemoryOptions(domain="in_car", llm_mode="never"))
    await memory.update(text, turn=1)
    found = memory.state.find("destination")
    assert (found[0].value if found else None) == destination


@pytest.mark.parametrize("text", ["好的，就这么定了。", "行，就这么办吧", "好，成交"])
def test_chinese_ways_of_settling_it_are_confirmations(text):
    assert classify_turn(text).turn_class == "confirmation"


async def test_a_yes_to_nothing_confirms_nothing():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("Dinner for two on Friday at 8 pm.", turn=1)
    await memory.record_agent_turn("Okay.", turn=1)
    await memory.update("What's the weather like there?", turn=2, turn_class="chit_chat")
    await memory.record_agent_turn("It should be sunny.", turn=2)
    await memory.update("ok thanks, have a nice day", turn=3, turn_class="confirmation")
    assert not any(c.confirmed for c in memory.state.constraints.values())


async def test_a_yes_right_after_a_change_confirms_that_change_only():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    await memory.update("Dinner for two on Friday at 8 pm.", turn=1)
    await memory.update("Actually make it four people.", turn=2)
    await memory.update("Yes, that's right.", turn=3, turn_class="confirmation")
    confirmed = {c.slot for c in memory.state.constraints.values() if c.confirmed}
    assert confirmed == {"party_size"}


async def test_in_car_corrections_and_bits():
    memory = WorkingMemory("s", options=WorkingMemoryOptions(domain="in_car", language="zh", llm_mode="never"))
    await memory.update("温度保持在二十二度", turn=1)
    await memory.update("把二十二度调成二十度", turn=2)
    await memory.update("今天例外，走高速吧，快一点", turn=3)      # 快一点: "faster", not one o'clock
    values = {c.key: c.value for c in memory.state.constraints.values()}
    assert values["temperature"] == 20 and "arrival_time" not in values


@pytest.mark.parametrize("greeting", ["good evening", "Good morning!", "good afternoon to you"])
def test_a_greeting_is_not_a_yes(greeting):
    from monologue.memory.language.cues import yes_or_no
    assert yes_or_no(greeting) is None
    assert classify_turn(greeting).turn_class != "confirmation"


async def test_same_count_as_last_time_confirms_the_seeded_value():
    seed = [Operation(Op.SET, "party_size", value=10, words="profile", source=OpSource.PROFILE)]
    _, memory = await _run(["let's keep the same number of people as last time"], seed=seed)
    assert memory.state.find("party_size")[0].confirmed


@pytest.mark.parametrize("domain, first, question, key, kept_value", [
    # A question about the world talks about a listed value; it does not choose it.
    ("customer_service", "I want an exchange for order A7731.", "what happens if the refund takes longer than a week?",
     "resolution", "exchange"),
    ("restaurant", "Dinner for two at 8 pm, somewhere cheap.", "how expensive is Sakura?", "price_range", "cheap"),
    ("restaurant", "Dinner for two at 8 pm.", "Can you tell me if they have outdoor seating?", "seating", None),
])
async def test_questions_about_the_world_do_not_choose_values(domain, first, question, key, kept_value):
    memory = WorkingMemory("s", options=WorkingMemoryOptions(domain=domain, llm_mode="never"))
    await memory.update(first, turn=1)
    await memory.update(question, turn=2)
    found = memory.state.find(key)
    assert (found[0].value if found else None) == kept_value


async def test_a_query_keeps_its_place_and_day():
    weather = parse_schema({"name": "weather", "goal_words": {"en": ["weather", "forecast"]}, "keys": {
        "city": {"type": "text", "reader": "place_name", "name_cues": {"en": ["in"]}},
        "date": {"type": "date", "reader": "date"}}})
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"), schema=weather)
    await memory.update("What's the weather in Seattle on March 9th?", turn=1)
    values = {c.key: c.value for c in memory.state.constraints.values()}
    assert values.get("city") == "Seattle" and "date" in values


@pytest.mark.parametrize("text, withdrawn", [
    ("我想想，联系方式是多少来着？", False),        # a question about the key takes nothing back
    ("What was the contact method again?", False),
    ("联系方式就不用了", True),
    ("Forget the contact method, I'll check online.", True),
    ("The contact method doesn't matter.", True),
])
def test_a_models_withdrawal_needs_words_that_take_something_back(text, withdrawn):
    schema = load_schema("customer_service")
    state = SessionState("s", domain="customer_service", turn=3)
    state.constraints["contact_method"] = Condition("contact_method", Comparator.EQ, "phone", "phone", 1,
                                                    last_mentioned=1)
    ops, reasons = kept(schema, [llm("withdraw", "contact_method")], text, state)
    assert bool(ops) is withdrawn, reasons
    if not withdrawn:
        assert "nothing in the turn takes it back" in reasons[0]


@pytest.mark.parametrize("answer", ["Today", "就今天", "today please"])
def test_today_answering_the_question_for_the_day_is_the_date(answer: str) -> None:
    """"What day?" "Today." had been dropped as small talk, and the day asked for again and again
    (a user found six 想订哪一天？ in a row); a bare today in small talk still sets nothing."""
    from monologue.memory.working.extract import RuleExtractor
    from monologue.memory.working.state import AgentAct

    schema = load_schema("restaurant")
    rules, grounder = RuleExtractor(schema), Grounder(schema)
    asked = SessionState("s", domain="restaurant")
    asked.acts = [AgentAct("ask", turn=1, first="ask", action="book", key="date")]
    kept = grounder.check(rules.extract(answer, asked).operations, answer, asked).kept
    assert [(op.key, op.value) for op in kept] == [("date", "today")]
    chatting = SessionState("s", domain="restaurant")
    chatting.acts = [AgentAct("ask", turn=1, first="ask", action="book", key="time")]
    small_talk = "I'm so tired today"
    assert not grounder.check(rules.extract(small_talk, chatting).operations, small_talk, chatting).kept


@pytest.mark.parametrize("remark", ["今天好累啊。", "I'm so tired today"])
def test_a_remark_about_today_is_not_the_answer_to_the_question_for_the_day(remark: str) -> None:
    """Just after "想订哪一天？", the benchmark's user said "今天好累啊" (small talk): no date."""
    from monologue.memory.working.extract import RuleExtractor
    from monologue.memory.working.state import AgentAct

    schema = load_schema("restaurant")
    asked = SessionState("s", domain="restaurant")
    asked.acts = [AgentAct("ask", turn=1, first="ask", action="book", key="date")]
    ops = RuleExtractor(schema).extract(remark, asked).operations
    assert not Grounder(schema).check(ops, remark, asked).kept
