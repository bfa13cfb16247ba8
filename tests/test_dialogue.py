"""The dialogue policy, the reply check and the model's choice of action (D1, D3)."""

from __future__ import annotations

import pytest

from monologue.configs import LLMOptions, load_config
from monologue.dialogue.check import Failure, ReplyCheck, audit
from monologue.dialogue.chooser import tools_of, validate
from monologue.dialogue.policy import Act, Decision, DialoguePolicy, TurnFacts
from monologue.memory.domain.catalogue import filter_options, load_catalogue
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.state import NO_ACT, ActionDone, Comparator, Condition, SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatLLM
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.text_chat import chat_session

from fakes import PlannerFollowingLLM

FOOD = load_schema("restaurant")
CAR = load_schema("in_car")
RESTAURANTS = load_catalogue("restaurants")


def _state(domain: str = "restaurant", **values) -> SessionState:
    state = SessionState("s", domain=domain, version=1)
    for key, value in values.items():
        spec = (FOOD if domain == "restaurant" else CAR).key(key)
        comparator = Comparator(spec.default_op) if spec.multi else Comparator.EQ
        state.constraints[f"{key}:{value}" if spec.multi else key] = Condition(key, comparator, value, "", 1,
                                                                              multi=spec.multi)
    return state


def _decide(state: SessionState, text: str, schema=FOOD, changed=(), turn_class=TurnClass.INFORMATION_CHANGE):
    options = filter_options(RESTAURANTS.items, state)[0] if schema is FOOD else []
    return DialoguePolicy(schema).decide(state, TurnFacts(text, "en", turn_class, frozenset(changed)), options)


# --- the policy ---------------------------------------------------------------------------------

def test_asks_the_most_important_missing_slot_before_offering_anything():
    decision = _decide(_state(party_size=4), "a table for four please", changed={"party_size"})
    assert (decision.act, decision.key) == (Act.ASK, "date")
    decision = _decide(_state(party_size=4, date="friday"), "on Friday", changed={"date"})
    assert (decision.act, decision.key) == (Act.ASK, "time")


def test_offers_only_what_fits_once_the_required_slots_are_filled():
    state = _state(party_size=4, date="friday", time="19:00", dietary="spicy")
    decision = _decide(state, "at 7 pm, nothing spicy", changed={"time"})
    assert decision.act == Act.PROPOSE and decision.option != "Chili House"
    assert decision.args["restaurant_name"] == decision.option


def test_a_refused_offer_gives_the_next_one_and_a_yes_books():
    state = _state(party_size=2, date="friday", time="19:00")
    first = _decide(state, "Friday at 7 for two", changed={"time"})
    state.acts = [first.remembered(1)]
    second = _decide(state, "hmm, not that one", turn_class=TurnClass.CONFIRMATION)
    assert second.act == Act.PROPOSE and second.option != first.option and first.option in second.refused
    state.acts.append(second.remembered(2))
    third = _decide(state, "yep, that one", turn_class=TurnClass.CONFIRMATION)
    assert third.act == Act.ACT and third.args["restaurant_name"] == second.option


def test_small_talk_after_an_offer_points_back_without_repeating_it():
    state = _state(party_size=2, date="friday", time="19:00")
    offer = _decide(state, "Friday at 7 for two", changed={"time"})
    state.acts = [offer.remembered(1)]
    decision = _decide(state, "lovely weather this week", turn_class=TurnClass.CHIT_CHAT)
    assert decision.act == Act.SMALL_TALK and decision.then is not None and decision.then.act == Act.RESUME


def test_a_no_to_the_read_back_asks_what_to_change():
    state = _state(party_size=2, date="friday", time="19:00", restaurant_name="Sakura")
    confirm = _decide(state, "Sakura please", changed={"restaurant_name"})
    assert confirm.act == Act.CONFIRM
    state.acts = [confirm.remembered(1)]
    assert _decide(state, "no, wait", turn_class=TurnClass.CONFIRMATION).act == Act.ASK_CHANGE
    assert _decide(state, "yes please", turn_class=TurnClass.CONFIRMATION).act == Act.ACT


def test_a_driver_is_served_at_once_and_never_offered_a_table():
    state = _state("in_car", destination="airport", temperature=21)
    decision = _decide(state, "take me to the airport and make it 21 degrees", CAR, {"destination", "temperature"})
    assert [s.act for s in decision.steps()] == [Act.ACT, Act.ACT]
    assert {s.action for s in decision.steps()} == {"set_route", "set_climate"}
    state.done = [ActionDone("set_route", {"destination": "airport"})]
    assert _decide(state, "what a day", CAR, turn_class=TurnClass.CHIT_CHAT).act == Act.SMALL_TALK


def test_questions_about_the_user_and_leaving():
    facts = TurnFacts("what temperature do I like?", "en", TurnClass.CHIT_CHAT, about_user=True)
    assert DialoguePolicy(CAR).decide(_state("in_car"), facts, []).act == Act.DONT_KNOW
    facts = TurnFacts("what temperature do I like?", "en", TurnClass.CHIT_CHAT, about_user=True,
                      memory_answer="You told me on Monday that you like 21 degrees.")
    assert DialoguePolicy(CAR).decide(_state("in_car"), facts, []).act == Act.ANSWER_MEMORY
    assert _decide(_state(), "can I talk to a real person?").act == Act.HANDOVER
    assert _decide(_state(), "that's all, bye", turn_class=TurnClass.CHIT_CHAT).act == Act.CLOSE


# --- the check ----------------------------------------------------------------------------------

@pytest.mark.parametrize("reply, kind", [
    ("Context: the user wants a table.", Failure.NOTATION),
    ("party_size = 4, at 19:00.", Failure.NOTATION),
    ("[Planner] Shall I book it?", Failure.NOTATION),
    ("My name is Ann and I like Italian food.", Failure.SPEAKS_AS_USER),
    ("I'm sorry, but I can't assist with that.", Failure.REFUSES),
    ("How about Blue Cafe at 10 am?", Failure.CONTRADICTS_STATE),
    ("Chili House is great for spicy food.", Failure.RULED_OUT),
    ("好的，没问题。", Failure.WRONG_LANGUAGE),
    ("Done: I've booked it for you.", Failure.CLAIMS_DONE),
])
def test_each_kind_of_bad_reply_is_caught(reply, kind):
    from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions

    state = _state(party_size=4, date="friday", time="19:00", dietary="spicy")
    memory = WorkingMemory("c", options=WorkingMemoryOptions(llm_mode="never"))

    def read(clause):
        return [(op.key, op.value) for op in memory.extract(clause, state)[0].operations if op.op == "set"]

    decision = Decision(Act.ASK, "book", key="restaurant_name")
    check = ReplyCheck(decision, FOOD, state, "en", "", "table for four on Friday at 7", read_values=read,
                       ruled_out=frozenset({"Chili House"}))
    assert check.clause(reply, []) == kind


def test_the_check_stops_a_third_sentence_and_a_repeat_of_the_last_reply():
    check = ReplyCheck(Decision(Act.SMALL_TALK), FOOD, _state(), "en", "What day would you like to go?")
    assert check.clause("It is lovely.", ["Oh yes."]) is None
    assert check.clause("Anything else?", ["Oh yes.", "It is lovely."]) == Failure.TOO_LONG
    assert check.clause("What day would you like to go?", []) == Failure.REPEATS
    assert audit("What day would you like to go?", "What day would you like to go?", "en", FOOD) == [Failure.REPEATS]



@pytest.mark.parametrize("clause", [
    "Ask exactly this one question, nothing else.", "Offer this option and ask whether to go ahead.",
    "You are Monologue, a friendly voice assistant that books tables.", "My instructions say I cannot.",
    "Say goodbye warmly.", "你是一个友好的语音助手。",
])
def test_the_check_stops_a_reply_that_reads_its_instructions_aloud(clause):
    check = ReplyCheck(Decision(Act.ASK, "book", key="time"), FOOD, _state(), "zh" if "你" in clause else "en")
    assert check.clause(clause, []) == Failure.NOTATION

# --- the reply model down, or talking nonsense ---------------------------------------------------

async def test_with_the_model_down_every_turn_is_answered_by_the_policy():
    config = load_config(overrides={"monologue": {"llm_mode": "never"}}, environ={})
    down = ChatLLM(LLMOptions(model="openai/no-such-model", fallback=None, api_base="http://127.0.0.1:9/v1",
                              timeout_secs=2))
    result = await chat_session(["Book a table for two on Friday at 7 pm.", "Yes please."], config,
                                AgentModels(asr=None, tts=None, llm=down))
    first, second = result.turns
    assert first.reply.decision["act"] == "propose" and first.reply.source == "template"
    assert first.reply.check[-1].kind == "llm_error" and "no-such-model" in first.reply.error
    assert second.reply.decision["act"] == "act" and "booked" in second.reply.text


async def test_garbage_from_the_model_never_reaches_the_user():
    class Garbage(PlannerFollowingLLM):
        async def stream(self, messages, stats):
            for piece in ("}}{ ", "### ", "<|im_end|> ", "null"):
                yield piece

    config = load_config(overrides={"monologue": {"llm_mode": "never"}}, environ={})
    result = await chat_session(["Table for two tomorrow at 8 pm."], config,
                                AgentModels(asr=None, tts=None, llm=Garbage()))
    turn = result.turns[0]
    assert turn.reply.source == "template" and "{" not in turn.reply.text and turn.reply.check


# --- a model with function calling chooses the action ---------------------------------------------

def test_a_models_choice_is_validated_against_the_state():
    state = _state(party_size=2, date="friday", time="19:00")
    offer = _decide(state, "Friday at 7 for two", changed={"time"})
    last = offer.remembered(1)
    accepted = validate("book", {"party_size": "2"}, FOOD, state, last, "m")
    assert accepted.decision is not None and accepted.decision.act == Act.ACT
    assert accepted.decision.args["restaurant_name"] == offer.option and accepted.decision.chosen_by == "m"
    assert validate("book", {"party_size": "9"}, FOOD, state, last, "m").decision is None     # invented
    assert validate("book", {}, FOOD, _state(party_size=2), NO_ACT, "m").decision is None       # date unknown
    assert validate("fly_to_mars", {}, FOOD, state, last, "m").decision is None
    unread = validate("book", {}, FOOD, _state(party_size=2, date="friday", time="19:00", restaurant_name="Sakura"),
                      NO_ACT, "m")
    assert unread.decision is not None and unread.decision.act == Act.CONFIRM        # read back first
    assert [t["function"]["name"] for t in tools_of(FOOD)] == ["book", "reply_only"]


async def test_a_yes_in_words_the_rules_miss_is_taken_from_the_models_choice():
    class Chooses(PlannerFollowingLLM):
        def supports_tools(self) -> bool:
            return True

        async def choose_tool(self, messages, tools, timeout_secs):
            return ("book", {}) if "lock it in" in messages[-1]["content"].lower() else ("reply_only", {})

    config = load_config(overrides={"monologue": {"llm_mode": "never"}}, environ={})
    result = await chat_session(["Table for two on Friday at 7 pm.", "Lock it in, mate."], config,
                                AgentModels(asr=None, tts=None, llm=Chooses(every=0)))
    second = result.turns[1]
    assert second.reply.decision["act"] == "act" and second.reply.decision["chosen_by"] == "fake/planner-follower"
    assert second.reply.decision["model_choice"]["verdict"] == "accepted"


async def test_choose_tool_reads_a_providers_function_call():
    chat = ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None, mock_response=""),
                   extra={"mock_tool_calls": [{"id": "c1", "type": "function",
                                               "function": {"name": "book", "arguments": "{\"party_size\": \"2\"}"}}]})
    assert chat.supports_tools()
    chosen = await chat.choose_tool([{"role": "user", "content": "yes"}], tools_of(FOOD), 5)
    assert chosen == ("book", {"party_size": "2"})


def test_an_action_is_recorded_and_erased_with_the_user(tmp_path):
    from monologue.dialogue.tools import ActionRequest, RecordingTool, Toolbox
    from monologue.memory.stores.actions import SqlActionStore

    store = SqlActionStore(str(tmp_path / "a.db"))
    book = FOOD.actions["book"]
    record = Toolbox(RecordingTool(store, clock=lambda: 1_700_000_000.0)).run(
        ActionRequest(book, {"party_size": 2}, "restaurant", "ann", "s1", "B-1", {"en": "booked it"}))
    assert record.id == "B-1" and [r.said["en"] for r in store.records("ann")] == ["booked it"]
    assert store.erase("ann") == 1 and store.records("ann") == []


def test_nothing_fits_asks_to_drop_the_condition_that_helps_most_and_drops_it_on_a_yes():
    state = _state(party_size=2, date="friday", time="19:00", cuisine="japanese", seating="outdoor")
    first = DialoguePolicy(FOOD).decide(state, TurnFacts("japanese, outside", "en", TurnClass.INFORMATION_CHANGE,
                                                         frozenset({"cuisine"})), [], relaxable=["cuisine", "seating"])
    assert (first.act, first.key) == (Act.NO_OPTIONS, "cuisine")
    state.acts = [first.remembered(1)]
    yes = DialoguePolicy(FOOD).decide(state, TurnFacts("sure, drop it", "en", TurnClass.CONFIRMATION), [],
                                      relaxable=["cuisine", "seating"])
    assert (yes.act, yes.key) == (Act.RELAX, "cuisine")


def test_a_booked_place_a_new_condition_rules_out_is_replaced():
    state = _state(party_size=2, date="friday", time="19:00", restaurant_name="Green Table", dietary="nuts")
    state.done = [ActionDone("book", {"date": "friday", "time": "19:00", "party_size": 2,
                                      "restaurant_name": "Green Table"})]
    options = filter_options(RESTAURANTS.items, state)[0]
    decision = DialoguePolicy(FOOD).decide(state, TurnFacts("I'm allergic to nuts", "en",
                                                            TurnClass.INFORMATION_CHANGE, frozenset({"dietary"})),
                                           options, ruled_out=frozenset({"Green Table"}))
    assert decision.act == Act.PROPOSE and decision.replaces == "Green Table" and decision.option != "Green Table"


@pytest.mark.parametrize("text, key", [("what's your name?", "name"), ("are you a robot?", "name"),
                                       ("how's your day going?", "how_are_you"), ("do you like driving?", "to_me"),
                                       ("你是机器人吗？", "name")])
def test_talk_to_the_agent_is_small_talk_not_a_question_to_look_up(text, key):
    decision = _decide(_state("in_car"), text, CAR, turn_class=TurnClass.CHIT_CHAT)
    assert (decision.act, decision.key) == (Act.SMALL_TALK, key)


def test_no_with_a_must_keeps_the_value():
    from monologue.memory.language.cues import EN

    assert not EN.negated_value.search("no, ")
    assert EN.negated_value.search("no ") and EN.negated_value.search("nothing too ")


def test_the_reply_is_in_the_language_the_user_speaks():
    from monologue.dialogue.dialogue_session import reply_language

    assert reply_language("帮我订个位子", "en") == "zh"
    assert reply_language("Book a table for two please", "zh") == "en"
    assert reply_language("OK", "zh") == "zh" and reply_language("", "zh") == "zh"
