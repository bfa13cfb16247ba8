"""Several people on one device (U5): each speaker's memories apart, a household's shared
ones read by every member, and an unknown speaker who gets the household's only."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from monologue.configs import load_config
from monologue.memory.language.memory_cues import SHARED
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.pipeline.builder import load_text_models, user_memory
from monologue.pipeline.cli import _speaker
from monologue.pipeline.text_chat import ChatOptions, chat_session

from fakes import steady


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = str(tmp_path_factory.mktemp("household") / "monologue.db")
    config = load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                               "mock_response": "Noted."}), environ={})
    models = load_text_models(config)

    def session(user: str | None, lines: list[str], name: str) -> list:
        memory = user_memory(config, models, user, path, household="smith")
        return asyncio.run(chat_session(lines, config, models, ChatOptions(session_id=name, long_term=memory))).turns

    session("anna", ["We always avoid tolls.", "I'm allergic to shellfish.", "我们家都不吃辣。"], "anna-1")
    session("ben", ["I prefer window seats.", "Our garage code is 4471."], "ben-1")
    ben = session("ben", ["Should we take the toll road to the airport?", "What am I allergic to?",
                          "What do you remember about me?"], "ben-2")
    stranger = session(None, ["Do we avoid tolls?", "What do you remember about me?", "I have a dog called Rex.",
                              "Our wifi password is plum42.", "What do I prefer for seats?"], "unknown-1")
    store = SqlMemoryStore(path)
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
    assert not [t for t in family["ben"] if "shellfish" in t.reply.text]


def test_an_unknown_speaker_gets_household_memories_only(family: dict) -> None:
    stranger = family["stranger"]
    recalled = _recalled(stranger)
    assert "We always avoid tolls." in recalled
    assert not [r for r in recalled if "shellfish" in r or "window seats" in r]
    assert "don't know who is speaking" in stranger[1].reply.text             # no one's memories listed
    assert not [t for t in stranger if "window" in t.reply.text or "shellfish" in t.reply.text]
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



def test_the_page_is_told_each_memorys_tier_and_whose_it_is(family: dict) -> None:
    from monologue.pipeline.panel import AgentReply

    replies = [AgentReply.of(t) for t in family["ben"]]
    items = [item for reply in replies for item in reply.memory_items]
    tolls = [i for i in items if i["text"] == "We always avoid tolls."]
    assert tolls and tolls[0]["scope"] == "household" and tolls[0]["tier"] in ("private", "shareable")
    listed = replies[-1].listed
    assert [i["text"] for i in listed] == ["I prefer window seats."] and listed[0]["scope"] == "personal"
    assert all(i["tier"] in ("local_only", "private", "shareable") for i in listed)


def test_a_member_who_says_who_they_are_is_heard_as_them_but_unverified(tmp_path) -> None:
    """Nobody known; "it's Anna" from a household member: Anna's memory is read and written,
    except what is local-only, and nothing is forgotten or erased on a spoken claim."""
    path = str(tmp_path / "monologue.db")
    config = load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                               "mock_response": "Noted."},
                                          long_term={"household": "smith", "members": ["anna", "ben"]}), environ={})
    models = load_text_models(config)

    def session(user: str | None, lines: list[str], name: str) -> list:
        memory = user_memory(config, models, user, path)
        return asyncio.run(chat_session(lines, config, models, ChatOptions(session_id=name, long_term=memory))).turns

    session("anna", ["I love jazz.", "My door code is 5521."], "anna-1")
    turns = session(None, ["It's Anna.", "What music do I like?", "What's my door code?",
                           "Forget everything about me.", "I'm training for a marathon."], "claimed-1")
    assert "Hi Anna" in turns[0].reply.text
    assert "I love jazz." in _recalled(turns[1:])
    assert not [t for t in turns if "5521" in t.reply.text] and "My door code is 5521." not in _recalled(turns)
    assert "only know you by your word" in turns[3].reply.text
    texts = [r.text for r in SqlMemoryStore(path).all("anna")[0] if r.source == "user_stated"]
    assert "My door code is 5521." in texts and "I'm training for a marathon." in texts     # kept, and added to
    stranger = session(None, ["It's Zoe.", "What music do I like?"], "claimed-2")          # not a member: nobody
    assert "Hi Zoe" not in stranger[0].reply.text and "I love jazz." not in _recalled(stranger)


@pytest.mark.parametrize("said, name", [("It's Anna.", "Anna"), ("hi, this is Tom here", "Tom"), ("我是安娜", "安娜"),
                                        ("喂，我是小雨啊", "小雨"), ("I am allergic to nuts", ""),
                                        ("My name is Bob", "Bob")])
def test_what_counts_as_saying_who_you_are(said: str, name: str) -> None:
    from monologue.memory.language.memory_cues import introduced_name

    assert introduced_name(said) == name


def test_members_and_seats_come_from_yaml_or_the_environment() -> None:
    from_env = load_config(environ={"MONOLOGUE__LONG_TERM__MEMBERS": "anna, ben",
                                    "MONOLOGUE__LONG_TERM__SEATS": "driver=anna,rear_left=ben"})
    from_yaml = load_config(overrides={"long_term": {"members": ["anna", "ben"],
                                                     "seats": {"driver": "anna", "rear_left": "ben"}}}, environ={})
    for config in (from_env, from_yaml):
        assert config.long_term.members == ("anna", "ben") and config.long_term.seat_user("rear_left") == "ben"
        assert config.long_term.household_members() == {"anna", "ben"}
    assert hash(from_env) == hash(from_env.with_overrides({}))
