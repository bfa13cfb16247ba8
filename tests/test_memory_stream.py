"""The long-term memory stream: importance, retention, merging, retrieval — with a fake clock."""

from __future__ import annotations

import pytest

from monologue.memory.language.numbers import time_window
from monologue.memory.longterm.importance import rule_importance
from monologue.memory.longterm.records import DAY
from monologue.memory.longterm.retrieval import BM25, RetrievalWeights, Retriever, tokenize
from monologue.memory.longterm.stream import AddOptions, MemoryStream
from monologue.memory.stores.memories import SqlMemoryStore

from fakes import Clock, bag_of_words


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def stream(clock, tmp_path):
    return MemoryStream(SqlMemoryStore(tmp_path / "memory.db"), "alice", embed=bag_of_words, clock=clock)


@pytest.mark.parametrize("text, importance", [
    ("I'm allergic to peanuts.", 9), ("我对花生过敏", 9), ("My daughter's birthday is in May.", 8),
    ("I prefer the highway without tolls.", 7), ("I always set the seat a bit lower.", 7),
    ("I have a dentist appointment tomorrow.", 6), ("haha ok", 2), ("The sky looked odd.", None),
])
def test_importance_rules(text, importance):
    assert rule_importance(text) == importance


def test_retention_tiers(stream, clock):
    keep = stream.add("I'm allergic to peanuts.")
    decays = stream.add("I prefer window seats.")
    low = stream.add("haha ok")
    assert keep.expires_at is None
    assert decays.expires_at == pytest.approx(clock.now + 30 * DAY)
    assert low.expires_at == pytest.approx(clock.now + 7 * DAY)
    clock.advance(8)
    assert stream.maintain() == {"archived": 1, "decayed": 0}
    records, _ = stream.records()
    assert [r.text for r in records if r.archived] == ["haha ok"]
    assert not any(r.archived for r in records if r.text != "haha ok")
    clock.advance(23)                                   # 31 days: the middle tier decays one point
    assert stream.maintain() == {"archived": 0, "decayed": 1}
    assert stream.get(decays.id).importance == 6 and stream.get(keep.id).importance == 9


def test_duplicates_merge_with_raised_importance(stream):
    first = stream.add("I prefer window seats.", evidence=["s1:t3"])
    again = stream.add("i prefer window seats!", evidence=["s2:t1"])
    assert again.id == first.id and again.merged == 2 and again.importance == first.importance + 1
    assert again.evidence == ["s1:t3", "s2:t1"]
    near = stream.add("I prefer the window seats.")          # near duplicate by vector
    assert near.id == first.id and near.merged == 3
    records, _ = stream.records()
    assert len(records) == 1


def test_agent_words_are_not_user_facts(stream):
    with pytest.raises(ValueError, match="agent's own words"):
        stream.add("I booked you a table at Luigi's.", source="agent")
    with pytest.raises(ValueError, match="empty"):
        stream.add("   ")
    long = stream.add("word " * 2000)
    assert len(long.text) == 2000


def test_retrieval_ranks_relevant_important_recent(stream, clock):
    stream.add("I'm allergic to peanuts.")
    clock.advance(2)
    stream.add("The weather was nice at the lake.")
    stream.add("I prefer Italian restaurants with quiet tables.")
    retriever = Retriever(stream, RetrievalWeights(feedback=0.0))
    result = retriever.retrieve("Which restaurants does she prefer?", k=2)
    assert result.memories[0].record.text.startswith("I prefer Italian")
    assert set(result.memories[0].parts) == {"recency", "importance", "relevance"}
    touched = stream.records()[0]
    assert any(r.access_count == 1 for r in touched)


def test_two_channels(stream):
    stream.add("I took the ring road on Monday, it jammed.")
    stream.add("The ring road jams on weekday mornings.", source="reflection", kind="reflection",
               options=AddOptions(importance=8))
    result = Retriever(stream).retrieve("ring road traffic", k=5)
    assert [m.record.kind for m in result.memories] == ["memory"]
    assert [m.record.kind for m in result.reflections] == ["reflection"]


def test_time_window_from_the_question(stream, clock):
    stream.add("We planned a trip to the coast.")
    clock.advance(20)
    stream.add("We planned a trip to the mountains.")
    clock.advance(3)
    result = Retriever(stream).retrieve("What trip did we plan last week?", k=5)
    assert result.window is not None
    assert [m.record.text for m in result.memories] == ["We planned a trip to the mountains."]
    assert time_window("上周我们去了哪里", clock.now) is not None
    assert time_window("where do we go", clock.now) is None


def test_expired_memories_sink_unless_confirmed(stream, clock):
    stale = stream.add("seat heater on level three", options=AddOptions(importance=7))     # 30-day tier
    clock.advance(40)                                                   # …now past it
    stream.add("seat heater never in summer", options=AddOptions(importance=8))             # kept until deleted
    fresh = stream.add("seat heater on level two", options=AddOptions(importance=6))
    stream.add("seat heater button is sticky", options=AddOptions(importance=4))
    retriever = Retriever(stream, RetrievalWeights(feedback=0.0, recency=0.0, importance=1.0, relevance=0.0))

    def position(record):
        ids = [m.record.id for m in retriever.retrieve("seat heater", k=5, touch=False).memories]
        return ids.index(record.id)

    assert position(fresh) < position(stale)      # more important, but expired: it sinks
    stale.confirmed = True                        # confirmed by the user: it keeps its rank
    stream.store.put(stale, stream.vector_of(stale))
    stream._cache = None
    assert position(stale) < position(fresh)


def test_context_filter(stream):
    stream.add("Grandma likes it warm in the back.", context={"passengers": "grandma"})
    stream.add("Kids want cartoons on long trips.", context={"passengers": "kids"})
    result = Retriever(stream).retrieve("what do they like", k=5, context={"passengers": "kids"})
    assert [m.record.text for m in result.memories] == ["Kids want cartoons on long trips."]


def test_bm25_and_tokenizer():
    docs = ["the ring road jams", "quiet italian place", "ring ring ring"]
    scores = BM25(docs).scores("ring road")
    assert scores.argmax() == 0
    assert tokenize("我喜欢川菜") == ["我喜", "喜欢", "欢川", "川菜"]


def test_store_erase_and_delete(stream):
    one = stream.add("I prefer window seats.")
    stream.add("I'm allergic to peanuts.")
    assert stream.store.delete("alice", one.id)
    assert stream.store.erase_user("alice") == 1
    assert stream.store.all("alice")[0] == []


def test_session_status_machine():
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.longterm.profile import session_status
    from monologue.memory.working.apply import apply_operations
    from monologue.memory.working.state import ActionDone, Operation, SessionState

    schema = load_schema("restaurant")
    assert session_status(None) == "NOT_STARTED"
    state = apply_operations(SessionState("s"), [Operation("set", "party_size", "=", 4)], schema, turn=1).state
    assert session_status(state) == "IN_PROGRESS"
    asked = apply_operations(state, [Operation("set", "party_size", "=", 6, hedged=True)], schema, turn=2).state
    assert session_status(asked) == "WAITING_FOR_USER"
    confirmed = apply_operations(state, [Operation("confirm")], schema, turn=2).state
    assert session_status(confirmed) == "IN_PROGRESS"                     # confirming is not doing
    confirmed.done = [ActionDone("book", {"party_size": 4}, "R1", True, {"en": "booked a table for 4 people"})]
    assert session_status(confirmed) == "COMPLETED"
    assert session_status(confirmed, ended_at=0.0, now=40 * DAY) == "ARCHIVED"
    confirmed.constraints["party_size"].value = 6
    assert session_status(confirmed) == "IN_PROGRESS"                     # changed after the booking


def test_profile_audit_log_is_append_only(tmp_path):
    import sqlite3

    from monologue.memory.longterm.records import AuditEntry, UserProfile
    from monologue.memory.stores.profiles import SqlProfileStore

    store = SqlProfileStore(tmp_path / "p.db")
    store.save(UserProfile("u"), [AuditEntry("dietary:spicy", None, "dietary excludes spicy", "new preference", "s1")])
    db = sqlite3.connect(tmp_path / "p.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE audit_log SET reason = 'rewritten'")
    db.rollback()
    db.close()
    assert store.audit("u")[0]["reason"] == "new preference"
    store.erase("u")                       # erasure on request removes everything, the log's entries too:
    assert [e["what"] for e in store.audit("u")] == ["erased"]      # a content-free tombstone stays
    assert store.audit("u")[0]["before"] is None and store.load("u").facts == {}


def test_exact_questions_are_answered_from_records(tmp_path):
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.longterm.records import AuditEntry, UserProfile
    from monologue.memory.longterm.structured import exact_answer
    from monologue.memory.stores.profiles import SqlProfileStore

    car = load_schema("in_car")
    food = load_schema("restaurant")
    store = SqlProfileStore(tmp_path / "p.db")
    assert exact_answer("When did I last change the seat?", store, "u", car) == \
        "There's no record of you changing the seat."                          # no record: no guess
    ended = 1_700_000_000.0
    profile = UserProfile("u", last_session={"id": "s9", "ended_at": ended, "goal": "book a restaurant table",
                                             "conditions": ["party size = 4", "dietary excludes spicy"],
                                             "said": [{"key": "party_size", "comparator": "=", "value": 4},
                                                      {"key": "dietary", "comparator": "excludes", "value": "spicy"}]})
    store.save(profile, [AuditEntry("seat_position", None, "seat_position = lower", "new preference", "s8")], at=ended)
    answer = exact_answer("When did I last change the seat?", store, "u", car, now=ended + 3600)
    assert answer is not None and answer.startswith("You last changed the seat earlier ")
    assert answer.endswith(": lower.")
    planned = str(exact_answer("What did I book last time?", store, "u", food, now=ended + 3600))
    assert planned == ("There's no record of anything done last time; earlier today you wanted to book a "
                       "restaurant table, for 4 people, no spicy food.")
    assert "4个人" in str(exact_answer("上次我订了什么？", store, "u", food, "zh", now=ended + 3600))
    assert exact_answer("What's the weather like?", store, "u", food) is None


def test_feedback_on_a_large_stream_rescores_only_the_best_and_agrees_with_the_whole(tmp_path, clock, monkeypatch):
    """Above FEEDBACK_POOL memories the feedback pass rescores the first pass's best only (one read
    of the matrix instead of two): the ranking it gives matches rescoring everything."""
    import random

    from monologue.memory.longterm import retrieval

    words = ("coffee tea train bus car dentist lunch dinner window quiet jazz piano garden dog cat paris lyon "
             "monday friday weekend morning office school meeting birthday gift wine pizza sushi geneva").split()
    rng = random.Random(4)
    stream = MemoryStream(SqlMemoryStore(tmp_path / "big.db"), "alice", embed=bag_of_words, clock=clock)
    for i in range(400):
        stream.add(" ".join(rng.choice(words) for _ in range(7)) + f" note {i}")
    stream.add("My sister Julia teaches jazz piano in Geneva.", options=AddOptions(importance=8))

    def ranked(pool: int, question: str) -> list[str]:
        monkeypatch.setattr(retrieval, "FEEDBACK_POOL", pool)
        weights = RetrievalWeights(recency=0.0, importance=0.0, relevance=1.0)
        result = Retriever(stream, weights).retrieve(question, k=5, touch=False)
        return [m.record.text for m in result.memories]

    for question in ("Where does my sister Julia teach jazz piano?", "jazz in geneva on friday morning",
                     "coffee and pizza with the dog", "a quiet window table for dinner in lyon"):
        whole, pooled = ranked(10_000, question), ranked(50, question)
        assert whole[:2] == pooled[:2] and len(set(whole) & set(pooled)) >= 4, (question, whole, pooled)
    assert ranked(50, "Where does my sister Julia teach jazz piano?")[0].startswith("My sister Julia")
