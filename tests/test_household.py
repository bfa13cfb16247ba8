"""Several people on one device (U5): each speaker's memories apart, a household's shared
ones read by every member, and an unknown speaker who gets the household's only."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from monologue.configs import load_config
from monologue.memory.language.memory_cues import SHARED
from monologue.memory.stores.memories import SQLiteMemoryStore
from monologue.pipeline.builder import load_text_models, user_memory
from monologue.pipeline.chat import chat_session
from monologue.pipeline.cli import _speaker


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = str(tmp_path_factory.mktemp("household") / "monologue.db")
    config = load_config(overrides={"llm": {"model": "openai/gpt-4o-mini", "fallback": None,
                                            "mock_response": "Noted."}}, environ={})
    models = load_text_models(config)

    def session(user: str | None, lines: list[str], name: str) -> list:
        memory = user_memory(config, models, user, path, household="smith")
        return asyncio.run(chat_session(lines, config, models, session_id=name, long_term=memory)).turns

    session("anna", ["We always avoid tolls.", "I'm allergic to shellfish.", "我们家都不吃辣。"], "anna-1")
    session("ben", ["I prefer window seats.", "Our garage code is 4471."], "ben-1")
    ben = session("ben", ["Should we take the toll road to the airport?", "What am I allergic to?"], "ben-2")
    stranger = session(None, ["Do we avoid tolls?", "What do you remember about me?", "I have a dog called Rex.",
                              "Our wifi password is plum42.", "What do I prefer for seats?"], "unknown-1")
    store = SQLiteMemoryStore(path)
    texts = {user: [r.text for r in store.all(user)[0] if r.source == "user_stated"]
             for user in ("anna", "ben", "household:smith")}
    return {"texts": texts, "ben": ben, "stranger": stranger}


def _recalled(turns: list) -> list[str]:
    return [text for t in turns if t.memories is not None for text in t.memories.recalled]


def test_what_is_stated_as_shared_goes_to_the_household_the_rest_stays_personal(family: dict) -> None:
    texts = family["texts"]
    assert texts["household:smith"] == ["We always avoid tolls.", "我们家都不吃辣。", "Our garage code is 4471.",
                                        "Our wifi password is plum42."]
    assert texts["anna"] == ["I'm allergic to shellfish."]
    assert texts["ben"] == ["I prefer window seats."]


def test_every_member_reads_the_household_and_never_another_members_memories(family: dict) -> None:
    recalled = _recalled(family["ben"])
    assert "We always avoid tolls." in recalled
    assert not [r for r in recalled if "shellfish" in r]
    assert not [t for t in family["ben"] if "shellfish" in t.reply_text]


def test_an_unknown_speaker_gets_household_memories_only(family: dict) -> None:
    stranger = family["stranger"]
    recalled = _recalled(stranger)
    assert "We always avoid tolls." in recalled
    assert not [r for r in recalled if "shellfish" in r or "window seats" in r]
    assert "don't know who is speaking" in stranger[1].reply_text             # no one's memories listed
    assert not [t for t in stranger if "window" in t.reply_text or "shellfish" in t.reply_text]
    assert not [text for texts in family["texts"].values() for text in texts if "Rex" in text]   # not kept


@pytest.mark.parametrize("said, shared", [
    ("We always avoid tolls.", True), ("our home address is 3 Elm Road", True), ("Um, we're vegetarian.", True),
    ("The whole family hates jazz.", True), ("store this for everyone: the door code is 0000", True),
    ("我们家都不吃辣。", True), ("咱们总是走高速。", True), ("全家都喜欢川菜。", True),
    ("I always avoid tolls.", False), ("My wife likes jazz.", False), ("Tell Anna that I called.", False),
    ("I'm vegetarian.", False), ("我不吃辣。", False), ("我老婆喜欢川菜。", False),
])
def test_what_counts_as_stated_as_shared(said: str, shared: bool) -> None:
    assert (SHARED.search(said) is not None) is shared


def test_the_speaker_comes_from_the_user_the_seat_or_nobody(capsys: pytest.CaptureFixture[str]) -> None:
    config = load_config(overrides={"long_term": {"household": "smith", "seats": {"driver": "anna"}}}, environ={})

    def args(**kw: object) -> argparse.Namespace:
        base = {"user": None, "no_history": False, "context": None, "household": None}
        return argparse.Namespace(**(base | kw))

    assert _speaker(args(user="ben"), config) == ("ben", "smith")
    assert _speaker(args(context="seat=driver,weather=rain"), config) == ("anna", "smith")
    assert _speaker(args(context="seat=rear_left"), config) == (None, "smith")
    assert "speaker unknown" in capsys.readouterr().out
    assert _speaker(args(user="ben", no_history=True), config) == (None, "")
    assert _speaker(args(household="jones"), config) == (None, "jones")

