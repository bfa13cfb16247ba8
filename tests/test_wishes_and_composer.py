"""What the domain has no key for is kept as the user's own words
(read, held, read back, withdrawn, used to choose an option), and every reply the policy
words goes through one composer (one acknowledgement, no doubled joins, counts that agree,
two sentences at most)."""

from __future__ import annotations

import pytest

from monologue.dialogue.compose import compose, split_sentences
from monologue.dialogue.dialogue_session import DialogueSession, TurnInput
from monologue.memory.domain.catalogue import load_catalogue, rank_by_wishes, said_in
from monologue.memory.domain.schema import load_schema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import Comparator, Condition, Op, SessionState


def _wishes(domain: str, text: str, state: SessionState | None = None) -> list[str]:
    schema = load_schema(domain)
    key = next(k for k, spec in schema.keys.items() if spec.reader == "free_text")
    return [str(op.value) for op in RuleExtractor(schema).extract(text, state).operations
            if op.op == Op.SET and op.key == key]


def _booking(*conditions: Condition) -> tuple[SessionState, DialogueSession]:
    """A restaurant session holding these conditions, and the dialogue over the demo catalogue."""
    state = SessionState("s", domain="restaurant")
    for cond in conditions:
        state.constraints[cond.slot] = cond
    return state, DialogueSession(None, {"restaurant": load_catalogue("restaurants")})


def _ops(domain: str, text: str, state: SessionState | None = None) -> dict[str, object]:
    return {op.key: op.value for op in RuleExtractor(load_schema(domain)).extract(text, state).operations
            if op.op == Op.SET}


# --- free-text wishes ------------------------------------------------------------------

@pytest.mark.parametrize(("domain", "text", "wish"), [
    ("restaurant", "Somewhere quiet, please.", "somewhere quiet"),
    ("restaurant", "Could we get a table away from the kitchen?", "a table away from the kitchen"),
    ("restaurant", "We'd love a spot with a view of the river", "a spot with a view of the river"),
    ("restaurant", "it's my partner's birthday so something romantic would be great", "something romantic"),
    ("restaurant", "要安静一点的地方", "安静一点的地方"),
    ("restaurant", "最好离厨房远一点", "离厨房远一点"),
    ("customer_service", "The screen is cracked right across", "the screen is cracked right across"),
    ("customer_service", "屏幕裂了一道缝", "屏幕裂了一道缝"),
    ("in_car", "I'd prefer a road without too many bumps", "a road without too many bumps"),
    ("in_car", "I'd like to avoid bumpy roads.", "avoid bumpy roads"),
    ("in_car", "I'd rather not go through the city centre.", "not go through the city centre"),
    ("in_car", "路上最好风景好一点。", "路上风景好一点"),
    ("restaurant", "甜品好吃的地方更好。", "甜品好吃的地方"),
    ("restaurant", "It'd be great if they had live music.", "they had live music"),
    ("customer_service", "Please don't make me wait on hold again.", "Please don't make me wait on hold again"),
    ("customer_service", "I'm a bit worried about getting charged twice.",
     "I'm a bit worried about getting charged twice"),
    ("customer_service", "这已经是第二次了。", "这已经是第二次了"),
    ("customer_service", "希望有人解释一下怎么回事。", "有人解释一下怎么回事"),
    ("customer_service", "I'd like to keep the original box.", "keep the original box"),
])
def test_a_wish_no_key_reads_is_kept_in_the_users_words(domain: str, text: str, wish: str) -> None:
    assert _wishes(domain, text) == [wish]


@pytest.mark.parametrize(("domain", "text"), [
    ("restaurant", "I'd like to book a table"),
    ("restaurant", "I'm looking for a restaurant to eat at"),
    ("restaurant", "What time did we say?"),
    ("restaurant", "Thanks, that's all for now."),
    ("restaurant", "Yes please, go ahead."),
    ("restaurant", "我想订个餐厅"),
    ("restaurant", "几点的？"),
    ("customer_service", "My order is broken"),
    ("customer_service", "I want a refund"),
    ("in_car", "Take me home"),
    ("in_car", "谢谢，就这样吧"),
    # Said in passing, or asking for an action: the policy's, not a wish.
    ("restaurant", "By the way, it's for a birthday."),
    ("restaurant", "Please go ahead."),
    ("restaurant", "It doesn't matter."),
    ("restaurant", "Sorry, I'm a bit distracted, my kids are loud."),
    ("restaurant", "I'd like to make a transfer for me"),
    ("restaurant", "Twelve in the afternoon, please"),
    ("restaurant", "我想要在餐馆订位"),
    ("restaurant", "我爸爸很喜欢车。"),
    ("in_car", "要出发了"),
    ("in_car", "a ride home please"),
    ("customer_service", "I want to complain about an order"),
    ("customer_service", "Something's wrong with my order"),
    ("customer_service", "有个订单需要售后"),
])
def test_what_the_domain_reads_anyway_or_asks_is_not_a_wish(domain: str, text: str) -> None:
    assert _wishes(domain, text) == []


def test_a_wish_beside_values_keeps_both() -> None:
    ops = _ops("restaurant", "A table for four on Friday, and ideally not too noisy")
    assert ops["party_size"] == 4
    assert ops["wishes"] == "not too noisy"
    assert _wishes("restaurant", "for 2 people at 7pm near the fireplace if you can") == ["near the fireplace"]


def test_a_wish_said_again_with_more_replaces_the_first() -> None:
    state = SessionState("s")
    state.constraints["wishes:something romantic"] = Condition(
        "wishes", Comparator.INCLUDES, "something romantic", "", 1, multi=True)
    ops = RuleExtractor(load_schema("restaurant")).extract("I'd love something romantic with candles", state).operations
    assert [(op.op, op.value) for op in ops] == [(Op.WITHDRAW, "something romantic"),
                                                  (Op.SET, "something romantic with candles")]
    assert _wishes("restaurant", "Something romantic, please.", state) == []     # held already


def test_a_little_is_not_one_oclock() -> None:
    assert "time" not in _ops("restaurant", "要安静一点的地方")
    assert "time" not in _ops("restaurant", "便宜一点的")
    assert _ops("restaurant", "晚上6点可以吗？ 高档一点的吧。")["time"] == "18:00"
    assert "arrival_time" not in _ops("in_car", "座椅放倒一点。")
    assert _ops("restaurant", "改到一点吧")["time"] == "13:00"


def test_a_wish_is_taken_back_by_its_own_words() -> None:
    state = SessionState("s")
    state.constraints["wishes:a table away from the kitchen"] = Condition(
        "wishes", Comparator.INCLUDES, "a table away from the kitchen", "", 1, multi=True)
    ops = RuleExtractor(load_schema("restaurant")).extract("forget the kitchen thing", state).operations
    assert [(op.op, op.key, op.value) for op in ops] == [(Op.WITHDRAW, "wishes", "a table away from the kitchen")]


def test_a_wish_ranks_the_options_the_catalogue_describes_as_it() -> None:
    items = load_catalogue("restaurants").items
    downtown = [i for i in items if said_in(i["location"], "en") == "Downtown"]
    assert downtown[0]["name"] == "Chili House"
    assert rank_by_wishes(downtown, ["somewhere quiet"], "en")[0]["name"] == "Luigi's Trattoria"
    assert rank_by_wishes(downtown, ["安静一点的"], "zh")[0]["name"] == "Luigi's Trattoria"
    # Asking for less of what a description says puts that item last.
    assert rank_by_wishes(items, ["a table away from the kitchen"], "en")[-1]["name"] == "Chili House"
    # Nothing the catalogue can say: the order stands.
    assert rank_by_wishes(items, ["near the fireplace"], "en") == items


def test_the_held_wish_is_read_back_and_chooses_the_offer() -> None:
    from monologue.memory.working.turn_classes import TurnClass

    state, session = _booking(
        Condition("party_size", Comparator.EQ, 2, "two of us", 1),
        Condition("date", Comparator.EQ, "friday", "Friday", 1),
        Condition("time", Comparator.EQ, "19:00", "7pm", 1),
        Condition("location", Comparator.EQ, "Downtown", "downtown", 1),
        Condition("wishes", Comparator.INCLUDES, "somewhere quiet", "somewhere quiet", 2, multi=True))
    planned = session.plan(state, TurnInput(text="somewhere quiet please", turn_class=TurnClass.INFORMATION_CHANGE))
    assert planned.decision.option == "Luigi's Trattoria"
    assert "somewhere quiet" in planned.template


# --- one composer ------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "language", "said"), [
    ("Got it. Just to check again: got it. And what day would you like to go?", "en",
     "Got it. Just to check again: what day would you like to go?"),
    ("Chili House, Shall I book it for 1 people?", "en", "Chili House, shall I book it for one person?"),
    ("Yes, Luigi's Trattoria, Noted.", "en", "Yes, Luigi's Trattoria."),
    ("I've set the cabin 1 degrees warmer for the the drive.", "en",
     "I've set the cabin one degree warmer for the drive."),
    ("Noted. Got it. And what time?", "en", "Got it. And what time?"),
    ("Noted. So far I have Friday; I still need the time. What time would you like?", "en",
     "So far I have Friday; I still need the time. What time would you like?"),
    ("A table at Bora Bora for 3 person.", "en", "A table at Bora Bora for 3 people."),
    ("好的，好的，记下了。再确认一下：好的，那几点？", "zh", "好的，记下了。再确认一下：几点？"),
    ("好的，记下了。你好！有什么可以帮你的？", "zh", "你好！有什么可以帮你的？"),
])
def test_the_composer_joins_pieces_as_one_speaker(raw: str, language: str, said: str) -> None:
    assert compose(raw, language) == said


def test_two_sentences_at_most_keeping_the_first_and_the_act() -> None:
    reply = compose("The time is 7 pm. The party is four. Shall I book it?", "en")
    assert split_sentences(reply, "en") == ["The time is 7 pm.", "Shall I book it?"]
    assert len(split_sentences(compose("时间是晚上7点。人数是四位。要我帮你订吗？", "zh"), "zh")) == 2


def test_a_booking_for_one_is_said_for_one_person() -> None:
    from monologue.memory.working.turn_classes import TurnClass

    state, session = _booking(Condition("party_size", Comparator.EQ, 1, "just me", 1),
                              Condition("date", Comparator.EQ, "friday", "Friday", 1),
                              Condition("time", Comparator.EQ, "19:00", "7pm", 1))
    planned = session.plan(state, TurnInput(text="just me", turn_class=TurnClass.INFORMATION_CHANGE))
    assert "1 people" not in planned.template
    assert "one person" in planned.template or "1 person" in planned.template


def test_asking_what_is_held_does_not_move_to_the_next_option() -> None:
    from monologue.memory.working.turn_classes import TurnClass

    state, session = _booking(Condition("party_size", Comparator.EQ, 3, "three of us", 1),
                              Condition("date", Comparator.EQ, "friday", "Friday", 1),
                              Condition("time", Comparator.EQ, "19:00", "7", 1))
    offered = session.plan(state, TurnInput(text="three of us at 7", turn_class=TurnClass.INFORMATION_CHANGE))
    state.acts.append(offered.decision.remembered(2))
    asked = session.plan(state, TurnInput(text="What do you have for me so far?", turn_class=TurnClass.CHIT_CHAT))
    names = {str(item["name"]) for item in load_catalogue("restaurants").items}
    assert not any(name in asked.template for name in names - {offered.decision.option})
    assert asked.decision.steps()[-1].option in ("", offered.decision.option)
