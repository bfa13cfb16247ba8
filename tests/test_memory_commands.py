"""The user's spoken control over long-term memory (U1, U2, U6): list, forget what matches
after a yes, erase after a yes, and a conversation kept off the record — in English and
Chinese, with phrasings the cue lists were not written from."""

from __future__ import annotations

import asyncio

import pytest

from monologue.memory.language.memory_cues import is_memory_command
from monologue.memory.longterm.commands import read_command
from monologue.memory.longterm.engine import AnsweredTurn, LongTermMemory, LongTermOptions, LongTermStores, MemoryTools
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.working.turn_classes import classify_turn

from fakes import Clock, bag_of_words

T0 = 1_763_000_000.0


@pytest.fixture
def ltm(tmp_path):
    path = tmp_path / "m.db"
    return LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=bag_of_words, clock=Clock(T0)),
                          stores=LongTermStores(profiles=SqlProfileStore(path)),
                          options=LongTermOptions(budget_ms=5000))


def turn(ltm: LongTermMemory, text: str, session: str, n: int, turn_class: str = "information_change"):
    async def run():
        before = await ltm.before_reply(text, session_id=session, turn_class=turn_class)
        await ltm.after_reply(AnsweredTurn(before, text, session_id=session, turn=n, turn_class=turn_class))
        return before
    return asyncio.run(run())


def current(ltm: LongTermMemory) -> list[str]:
    return sorted(r.text for r in ltm.stream.records()[0] if r.current)


def told(ltm: LongTermMemory, *facts: str, session: str = "s1") -> None:
    for n, fact in enumerate(facts, 1):
        turn(ltm, fact, session, n)


@pytest.mark.parametrize("text, kind, topic", [
    ("What do you remember about me?", "list", ""),
    ("so what have you learned about me so far", "list", ""),
    ("Could you show me all my memories", "list", ""),
    ("关于我你都记得些什么？", "list", ""),
    ("Forget what I said about my address.", "forget", "my address"),
    ("please erase anything I told you about my ex", "forget", "my ex"),
    ("forget that I work nights", "forget", "work nights"),
    ("把我说过的关于工作的事忘掉吧", "forget", "工作"),
    ("Forget everything about me.", "erase", ""),
    ("wipe all my data please", "erase", ""),
    ("把关于我的所有记忆都删了", "erase", ""),
    ("Don't remember this conversation.", "no_history", ""),
    ("Let's keep this off the record.", "no_history", ""),
    ("这次聊天别记录", "no_history", ""),
    ("scratch that", "forget_last", ""),
    ("忘掉刚才那句", "forget_last", ""),
])
def test_commands_are_read_in_both_languages(text: str, kind: str, topic: str):
    command = read_command(text)
    assert command is not None and command.kind == kind and command.topic == topic


@pytest.mark.parametrize("text", [
    "Forget the window seat.", "I forgot my wallet at home.", "Can you remember that I'm allergic to nuts?",
    "What do you know about Luigi's?", "Forget about the restaurant, let's go home.", "取消靠窗的座位",
    "我忘了带钱包", "Do you remember the name of that place?",
])
def test_task_words_and_questions_are_not_memory_commands(text: str):
    assert read_command(text) is None and not is_memory_command(text)


def test_a_memory_command_does_not_run_the_task_update():
    assert classify_turn("Forget what I said about my address.").turn_class == "chit_chat"
    # "Forget my window seat" may be the task's: the classifier leaves it to the task.
    assert classify_turn("Forget my window seat.").turn_class == "information_change"


def test_what_do_you_remember_lists_it_all_and_says_the_newest(ltm):
    told(ltm, "I live at 12 Baker Street.", "I'm allergic to peanuts.", "I really love jazz music.",
         "My sister Anna lives in Leeds.")
    before = turn(ltm, "What do you remember about me?", "s2", 1, "chit_chat")
    assert before.command == {"kind": "list"}
    assert len(before.listed) == 4 and "I live at 12 Baker Street." in before.listed
    assert before.say is not None and before.say.startswith("I remember 4 things about you")
    assert "you're allergic to peanuts" in before.say and "1 more" in before.say
    assert "What do you remember" not in " ".join(current(ltm))       # the command is not a memory


def test_forget_shows_what_matches_and_forgets_only_after_a_yes(ltm):
    told(ltm, "I live at 12 Baker Street.", "I'm allergic to peanuts.", "My sister Anna lives in Leeds.")
    asked = turn(ltm, "Forget what I said about my address.", "s2", 1, "chit_chat")
    assert asked.say == 'I remember you said "I live at 12 Baker Street". Shall I forget that?'
    assert "I live at 12 Baker Street." in current(ltm)             # nothing destroyed before the yes
    done = turn(ltm, "Yes, please.", "s2", 2, "confirmation")
    assert done.say == "Done — I've forgotten it." and done.recalled == []
    assert current(ltm) == ["I'm allergic to peanuts.", "My sister Anna lives in Leeds."]
    audit = ltm.profiles.audit("ann")[-1]
    assert audit["reason"] == "forgotten at the user's request" and audit["after"] is None


def test_a_no_keeps_it(ltm):
    told(ltm, "I really love jazz music.")
    assert turn(ltm, "Forget that I love jazz.", "s2", 1, "chit_chat").say.startswith("I remember you said")
    assert turn(ltm, "No, keep it.", "s2", 2, "confirmation").say == "Okay, I'll keep it."
    assert current(ltm) == ["I really love jazz music."]


def test_forget_that_is_the_last_thing_said_or_the_tasks_own_words(ltm):
    told(ltm, "I'm allergic to peanuts.", session="s1")
    # Nothing remembered from this session yet: "forget that" is left to the task.
    assert turn(ltm, "Forget that.", "s2", 1, "information_change").command is None
    turn(ltm, "I live at 5 Elm Road.", "s2", 2)
    asked = turn(ltm, "Oh, forget that.", "s2", 3, "information_change")
    assert asked.listed == ["I live at 5 Elm Road."]
    turn(ltm, "yes", "s2", 4, "confirmation")
    assert current(ltm) == ["I'm allergic to peanuts."]


def test_forget_my_x_is_a_command_only_when_memory_holds_an_x(ltm):
    told(ltm, "I'm allergic to peanuts.")
    assert turn(ltm, "Forget my window seat.", "s2", 1).command is None
    assert turn(ltm, "Forget my allergy.", "s2", 2).listed == ["I'm allergic to peanuts."]


def test_erase_asks_then_leaves_nothing_and_keeps_nothing_of_the_session(ltm):
    told(ltm, "I'm allergic to peanuts.", "I live at 12 Baker Street.")
    assert turn(ltm, "Forget everything about me.", "s2", 1, "chit_chat").say.startswith("Shall I erase")
    assert len(current(ltm)) == 2
    assert turn(ltm, "yes", "s2", 2, "confirmation").say.startswith("Done. I've erased everything")
    assert current(ltm) == [] and [(e["what"], e["before"], e["after"]) for e in ltm.profiles.audit("ann")] == [
        ("erased", None, None)]
    turn(ltm, "I hate sushi.", "s2", 3)                   # the rest of this session is not kept
    assert current(ltm) == []
    assert asyncio.run(ltm.close_session("s2")) == 0


def test_chinese_commands_answer_in_chinese(ltm):
    told(ltm, "我对花生过敏。", "我家住在北京朝阳区。")
    listing = turn(ltm, "你都记得我什么？", "s2", 1, "chit_chat")
    assert listing.say is not None and listing.say.startswith("我记得关于你的这些")
    asked = turn(ltm, "忘掉我说的关于地址的事", "s2", 2, "chit_chat")
    assert asked.listed == ["我家住在北京朝阳区。"] and asked.say.endswith("要我忘掉吗？")
    assert turn(ltm, "好的", "s2", 3, "confirmation").say == "好的，已经忘掉了。"
    assert current(ltm) == ["我对花生过敏。"]


def test_off_the_record_reads_and_writes_nothing_from_then_on(ltm):
    told(ltm, "I'm allergic to peanuts.")
    turn(ltm, "I love jazz.", "s2", 1)
    said = turn(ltm, "Please don't remember this conversation.", "s2", 2, "chit_chat")
    assert said.say == "Okay — from now on, nothing from this conversation will be remembered."
    later = turn(ltm, "What am I allergic to?", "s2", 3, "chit_chat")
    assert later.recalled == [] and later.answer is None
    turn(ltm, "I hate sushi.", "s2", 4)
    assert "I hate sushi." not in current(ltm)
    assert asyncio.run(ltm.close_session("s2")) == 0
    # Another session remembers as before.
    assert turn(ltm, "What am I allergic to?", "s3", 1, "chit_chat").recalled
