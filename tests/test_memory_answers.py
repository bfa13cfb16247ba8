"""Memory answers are answers. A lasting preference asked about is said
from the profile's value, with where it came from, not read back as a quote; the user's
name is the one they asked to be called by; forgetting a memory forgets the profile values
drawn from it."""

from __future__ import annotations

import asyncio

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.longterm.engine import (
    AnsweredTurn,
    LongTermMemory,
    LongTermOptions,
    LongTermStores,
    MemoryTools,
    session_snapshot,
)
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions

from fakes import Clock, bag_of_words

T0 = 1_763_000_000.0           # a Thursday


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def ltm(tmp_path, clock) -> LongTermMemory:
    path = tmp_path / "m.db"
    return LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock),
                          stores=LongTermStores(profiles=SqlProfileStore(path)),
                          options=LongTermOptions(budget_ms=5000))


def _say(ltm: LongTermMemory, working: WorkingMemory | None, text: str, session: str, n: int,
         domain: str = "in_car") -> str | None:
    """One user turn through both memories, as the reply processor runs it; returns what
    long-term memory would answer (or say) for it."""
    async def run() -> str | None:
        if working is not None:
            await working.update(text, turn=n)
        before = await ltm.before_reply(text, session_id=session, turn_class="information_change",
                                        schema=load_schema(domain))
        await ltm.after_reply(AnsweredTurn(before, text, session_id=session, turn=n, turn_class="information_change",
                              session=session_snapshot(working) if working is not None else None))
        return before.answer or before.say
    return asyncio.run(run())


def _working(session: str, domain: str = "in_car") -> WorkingMemory:
    return WorkingMemory(session, InMemoryStateStore(), WorkingMemoryOptions(domain=domain))


def test_a_corrected_preference_is_answered_with_its_value_not_a_quote(ltm, clock) -> None:
    first = _working("s1")
    _say(ltm, first, "Keep the cabin at 22 degrees, that's how I like it.", "s1", 1)
    clock.advance(1)
    second = _working("s2")
    _say(ltm, second, "Sorry, I said 22 last time, I actually like it at 21 degrees.", "s2", 1)
    clock.advance(1)
    answer = _say(ltm, None, "What temperature do I like?", "s3", 1)
    assert answer is not None
    assert "21" in answer and "22" in answer and "Sorry" not in answer and "\u201c" not in answer
    assert answer.index("21") < answer.index("22")          # the value first, then where it came from
    zh = _say(ltm, None, "我喜欢的温度是多少度？", "s3", 2)
    assert zh is not None and "21" in zh and "说过：" not in zh


@pytest.mark.parametrize(("told", "asked", "name"), [
    ("Please just call me Sam from now on.", "What's my name?", "Sam"),
    ("My name is Priya, by the way.", "Do you remember my name?", "Priya"),
    ("以后叫我小王就行。", "你还记得我叫什么吗？", "小王"),
])
def test_the_name_asked_for_is_the_one_given(ltm, clock, told: str, asked: str, name: str) -> None:
    _say(ltm, None, told, "s1", 1, domain="restaurant")
    clock.advance(1)
    answer = _say(ltm, None, asked, "s2", 1, domain="restaurant")
    assert answer is not None and answer.startswith(name)


def test_no_name_given_says_so(ltm) -> None:
    answer = _say(ltm, None, "What's my name?", "s1", 1, domain="restaurant")
    assert answer == "You haven't told me your name yet."


def test_forgetting_a_memory_forgets_the_profile_value_drawn_from_it(ltm) -> None:
    working = _working("s1")
    _say(ltm, working, "I have a bad back, so put my seat further back please.", "s1", 1)
    assert any(f.key == "seat_position" for f in ltm.profile().facts.values())
    asked = _say(ltm, working, "Forget what I told you about my back.", "s1", 2)
    assert asked is not None
    _say(ltm, working, "Yes.", "s1", 3)
    assert not any(f.key == "seat_position" for f in ltm.profile().facts.values())
    assert ltm.profiles.audit("ann")[-1]["reason"] == "forgotten with the memory it was drawn from"
    # The working state still holds the seat for this drive; it does not reach the profile again.
    _say(ltm, working, "It's a bit cold in here.", "s1", 4)
    asyncio.run(ltm.end_session(working, "s1"))
    assert not any(f.key == "seat_position" for f in ltm.profile().facts.values())


def _recall_beside_background_work(ltm: LongTermMemory, *, turn_writes: bool) -> list[str]:
    """The order in which background work (done after 50 ms) and the next recall finish."""
    async def run() -> list[str]:
        order: list[str] = []

        async def background() -> None:
            await asyncio.sleep(0.05)          # not yet holding the lock when the recall starts
            order.append("background")

        ltm.spawn(background(), session_id="s1", turn_writes=turn_writes)
        await ltm.before_reply("What temperature do I like?", session_id="s1", turn_class="chit_chat",
                               schema=load_schema("in_car"))
        order.append("recalled")
        await ltm.drain()
        return order

    return asyncio.run(run())


def test_the_next_recall_waits_for_the_turn_writes_spawned_before_it(ltm) -> None:
    """A correction said in one turn is written in the background; a question the next turn
    asks is answered after that write lands, whichever task the event loop runs first."""
    assert _recall_beside_background_work(ltm, turn_writes=True) == ["background", "recalled"]


def test_background_work_that_is_not_a_turns_writes_does_not_hold_the_recall(ltm) -> None:
    assert _recall_beside_background_work(ltm, turn_writes=False) == ["recalled", "background"]


def test_a_preference_set_aside_because_nothing_fitted_stays_in_the_profile(ltm) -> None:
    """'Could we drop Indian food?' 'OK.' gives Indian up for this booking, not for good."""
    working = _working("s1", domain="restaurant")
    _say(ltm, working, "A table for three on Sunday at 1 pm, Indian food please", "s1", 1, domain="restaurant")

    async def relax() -> None:
        await working.relax(["cuisine"], turn=2, reason="the user agreed: OK")
    asyncio.run(relax())
    assert "cuisine" not in working.state.constraints
    assert [c.action for c in working.history() if c.slot == "cuisine"][-1] == "relaxed"
    asyncio.run(ltm.end_session(working, "s1"))
    assert "indian" in {str(f.value) for f in ltm.core.profiles.load("ann").facts.values() if f.key == "cuisine"}
