"""Long-term memory across sessions, driven by a fake clock and a deterministic embedder:
conflicts by risk, time travel, reflection, planning, summaries, checks, bad input."""

from __future__ import annotations

import asyncio
import threading

import pytest
from loguru import logger

from monologue.memory.longterm.checks import run_checks
from monologue.memory.longterm.core import LongTermCore
from monologue.memory.longterm.engine import (
    AnsweredTurn,
    LongTermMemory,
    LongTermOptions,
    LongTermStores,
    MemoryTools,
    session_snapshot,
)
from monologue.memory.longterm.planning import Planner
from monologue.memory.longterm.records import DAY
from monologue.memory.longterm.reflection import Reflector
from monologue.memory.longterm.retrieval import Retriever
from monologue.memory.longterm.stream import AddOptions, MemoryStream
from monologue.memory.longterm.summaries import SummaryPyramid
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore

from fakes import Clock, bag_of_words

T0 = 1_763_000_000.0           # a Thursday


@pytest.fixture
def clock():
    return Clock(T0)


@pytest.fixture
def ltm(tmp_path, clock):
    path = tmp_path / "m.db"
    return LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock),
                          stores=LongTermStores(profiles=SqlProfileStore(path)),
                          options=LongTermOptions(budget_ms=5000))


def turn(ltm: LongTermMemory, text: str, session: str, n: int, turn_class: str = "information_change"):
    """One user turn as the reply processor runs it: before (critical path), after (background)."""
    async def run():
        before = await ltm.before_reply(text, session_id=session, turn_class=turn_class)
        await ltm.after_reply(AnsweredTurn(before, text, session_id=session, turn=n, turn_class=turn_class))
        return before
    return asyncio.run(run())


def current(ltm: LongTermMemory) -> list[str]:
    return [r.text for r in ltm.stream.records()[0] if r.current]


def test_factual_correction_replaces_and_keeps_the_misstatement(ltm, clock):
    turn(ltm, "My daughter is 6 years old.", "s1", 1)
    clock.advance(2)
    before = turn(ltm, "Actually my daughter is 7, not 6.", "s2", 1)
    assert before.conflict is not None and before.conflict.kind == "exact" and before.conflict.risk == "fact"
    assert before.say is None                                       # a fact is updated without asking
    assert current(ltm) == ["Actually my daughter is 7, not 6."]
    old = next(r for r in ltm.stream.records()[0] if r.text.startswith("My daughter"))
    assert old.superseded_by and any("misstatement" in n for n in old.notes)
    entry = [e for e in ltm.profiles.audit("ann") if e["what"] == f"memory:{old.id}"][-1]
    assert entry["before"] == "My daughter is 6 years old." and entry["after"].startswith("Actually")
    assert "misstatement" in entry["reason"]
    recalled = asyncio.run(ltm.recall("how old is my daughter?"))[0]
    assert recalled == ["Actually my daughter is 7, not 6."]        # the old value is never recalled


def test_preference_change_updates_and_keeps_history(ltm, clock):
    turn(ltm, "I like sitting by the window.", "s1", 1)
    before = turn(ltm, "I don't like sitting by the window.", "s2", 1)
    assert before.conflict.risk == "preference" and before.say is None
    old = next(r for r in ltm.stream.records()[0] if r.text == "I like sitting by the window.")
    assert old.superseded_by and not old.notes                      # history, not a misstatement
    assert "preference updated" in ltm.profiles.audit("ann")[-1]["reason"]


@pytest.mark.parametrize("answer, kept", [("Yes, that's right.", "I'm not allergic to peanuts anymore."),
                                          ("No, I still am.", "I'm allergic to peanuts.")])
def test_high_risk_contradiction_is_asked_and_held(ltm, answer, kept):
    turn(ltm, "I'm allergic to peanuts.", "s1", 1)
    before = turn(ltm, "I'm not allergic to peanuts anymore.", "s2", 1)
    assert before.conflict.risk == "high_risk"
    assert before.say.startswith("Earlier you told me \"I'm allergic to peanuts\", and now you said")
    held = next(r for r in ltm.stream.records()[0] if "not allergic" in r.text)
    assert held.held and not held.current                           # not used until the user answers
    recall = asyncio.run(ltm.before_reply("what about peanuts?", session_id="s2b", turn_class="chit_chat"))
    assert recall.recalled == ["I'm allergic to peanuts."]
    settled = turn(ltm, answer, "s2", 2, turn_class="confirmation")
    assert settled.answered is not None and settled.say.startswith("Thanks")
    assert current(ltm) == [kept]
    assert "the user" in ltm.profiles.audit("ann")[-1]["reason"]


def test_time_travel_changes_last_weeks_plan(ltm, clock):
    turn(ltm, "Dinner with Anna on Wednesday at 7 pm.", "s1", 1)
    turn(ltm, "I prefer the highway without tolls.", "s1", 2)
    clock.advance(6)
    before = turn(ltm, "The plan I mentioned last week — change it to Friday.", "s2", 1)
    assert before.travel is not None and before.travel.item.session_id == "s1"
    assert before.say.startswith("Done: the plan you mentioned on") and "Friday" in before.say
    assert "Dinner with Anna on Friday at 7 pm." in current(ltm)
    assert "Dinner with Anna on Wednesday at 7 pm." not in current(ltm)
    entry = next(e for e in ltm.profiles.audit("ann") if e["reason"].startswith("changed on the user's request"))
    assert entry["before"] == "Dinner with Anna on Wednesday at 7 pm."
    assert entry["after"] == "Dinner with Anna on Friday at 7 pm."
    clock.advance(30)                                               # out of the window: nothing is changed
    assert turn(ltm, "The plan I mentioned last week — change it to Monday.", "s3", 1).travel is None


def test_reflection_needs_three_distinct_contexts(tmp_path, clock):
    stream = MemoryStream(SqlMemoryStore(tmp_path / "r.db"), "ann", embed=bag_of_words, clock=clock)
    reflector = Reflector(stream)
    stream.add("I don't want spicy food tonight.", session_id="s1")
    stream.add("No spicy food for me tonight please.", session_id="s2")
    report = reflector.reflect("scheduled")
    assert report.written == [] and len(report.too_few_contexts) == 1      # two occurrences: no habit
    stream.add("Nothing spicy tonight, I don't want spicy food.", session_id="s2")
    assert reflector.reflect("scheduled").written == []                  # a third in the same context
    third = stream.add("Again no spicy food tonight for me.", session_id="s3")
    assert reflector.event_due(third)
    report = reflector.reflect("event")
    assert len(report.written) == 1
    reflection = report.written[0]
    assert reflection.kind == "reflection" and reflection.source == "reflection"
    assert len(reflection.evidence) == 4 and reflection.importance > max(
        r.importance for r in stream.records()[0] if r.kind == "memory")
    assert reflector.reflect("event").written == []                      # not written twice
    result = Retriever(stream).retrieve("spicy food", k=3)
    assert result.reflections and result.reflections[0].record.id == reflection.id   # its own channel


def test_reflection_survives_an_llm_timeout(tmp_path, clock):
    stream = MemoryStream(SqlMemoryStore(tmp_path / "r.db"), "ann", embed=bag_of_words, clock=clock)

    def timing_out(texts):
        raise TimeoutError("LLM took too long")

    for session in ("s1", "s2", "s3"):
        stream.add(f"I park at the north gate when I visit ({session}).", session_id=session)
    report = Reflector(stream, insight=timing_out).reflect("scheduled")
    assert len(report.written) == 1 and "TimeoutError" in report.errors[0]    # reported, rule wording kept
    assert report.written[0].text.startswith("Pattern seen in 3 separate conversations")
    assert len([r for r in stream.records()[0] if r.kind == "memory"]) == 3   # the stream is intact


def test_plan_states_its_reason_and_learns_from_the_answer(tmp_path, clock):
    stream = MemoryStream(SqlMemoryStore(tmp_path / "p.db"), "ann", embed=bag_of_words, clock=clock)
    stream.add("I never want spicy food when I book a restaurant table.", session_id="s1")
    planner = Planner(stream, Retriever(stream))
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.state import Comparator, Condition

    spicy = Condition("dietary", Comparator.EXCLUDES, "spicy", "", 0)
    plan = planner.propose("book a restaurant table", "s2", schema=load_schema("restaurant"), keeping=[spicy])
    assert plan is not None and "spicy" in plan.reason
    assert plan.spoken() == ("Shall I book a restaurant table again, keeping to no spicy food? "
                             "You told me you never want spicy food when you book a restaurant table.")
    assert plan.record.source == "plan" and plan.record.evidence
    accepted = planner.accept(plan.record.id)
    assert accepted is not None and accepted.importance == 8 and accepted.confirmed
    bob = MemoryStream(SqlMemoryStore(tmp_path / "p.db"), "bob", embed=bag_of_words, clock=clock)
    bob.add("I never want spicy food when I book a restaurant table.", session_id="s1")
    bobs = Planner(bob, Retriever(bob))
    proposed = bobs.propose("book a restaurant table", "s2")
    assert proposed is not None
    rejected = bobs.reject(proposed.record.id, "no, I want to try something new")
    assert rejected is not None and rejected.importance < 6
    assert rejected.notes == ["rejected: no, I want to try something new"]


def test_summary_pyramid(tmp_path):
    profiles = SqlProfileStore(tmp_path / "s.db")
    pyramid = SummaryPyramid(profiles, "ann")
    for i in range(27):
        pyramid.add_session(f"s{i:02d}", f"2026-01-{i + 1:02d}: session {i} — detail {i}", T0 + i * DAY)
    loaded = pyramid.load()
    assert [s["key"] for s in loaded.recent] == ["s26", "s25", "s24", "s23", "s22"]     # newest first, detailed
    assert loaded.merged is not None and loaded.overall is not None
    assert loaded.merged["sessions"] == [f"s{i:02d}" for i in range(2, 22)]            # the 20 before
    assert loaded.overall["text"].startswith("27 conversations")
    text = loaded.render(10_000)
    assert text.index("session 26") < text.index("Earlier,") < text.index("Overall,")
    assert "session 22" in loaded.render(200) and "Overall" not in loaded.render(200)  # priority under a budget


def test_pre_conversation_checks(ltm, clock):
    turn(ltm, "I have a dentist appointment tomorrow at 3 pm.", "s1", 1)
    ltm.profiles.add_commitment("ann", "s1", "I'll remind you about the dentist", clock())
    clock.advance(3)
    checks = run_checks(ltm.profiles, ltm.stream, clock())
    assert [e.text for e in checks.expired] == ["I have a dentist appointment tomorrow at 3 pm."]
    assert checks.promises[0]["text"] == "I'll remind you about the dentist"
    line = asyncio.run(ltm.start_session(None, session_id="s2"))
    assert "Last time I said I'd remind you about the dentist" in line
    assert "you told me you have a dentist appointment tomorrow at 3 pm — that's passed now" in line
    assert ltm.profiles.open_commitments("ann") == []                  # kept by saying it


def test_promises_in_replies_are_recorded(ltm):
    async def run():
        before = await ltm.before_reply("Remind me to call mom.", session_id="s1", turn_class="information_change")
        await ltm.after_reply(AnsweredTurn(before, "Remind me to call mom.", session_id="s1", turn=1,
                                           turn_class="information_change",
                                           reply_text="Sure. I'll remind you to call mom tonight."))
    asyncio.run(run())
    assert [p["text"] for p in ltm.profiles.open_commitments("ann")] == ["I'll remind you to call mom tonight"]


def test_llm_importance_only_when_rules_abstain(tmp_path, clock):
    asked: list[str] = []

    def scorer(text: str) -> int:
        asked.append(text)
        return 7

    stream = MemoryStream(SqlMemoryStore(tmp_path / "i.db"), "ann", clock=clock, importance_fn=scorer)
    assert stream.add("I'm allergic to peanuts.").importance == 9 and asked == []
    assert stream.add("The sky looked odd over the bridge.").importance == 7 and len(asked) == 1

    def broken(text: str) -> int:
        raise TimeoutError

    stream.importance_fn = broken
    assert stream.add("Our neighbour repainted the fence.").importance == 4     # failure: the default
    assert stream.scorer_failures == 1                                         # counted


def test_bad_input_keeps_the_stream_consistent(ltm, monkeypatch):
    assert turn(ltm, "", "s1", 1).recalled == []
    assert turn(ltm, "x" * 50_000, "s1", 2) is not None
    assert all(len(t) <= 2000 for t in current(ltm))
    count = len(ltm.stream.records()[0])

    def failing_put(record, vector):
        raise OSError("disk full")

    monkeypatch.setattr(ltm.stream.store, "put", failing_put)
    turn(ltm, "I prefer aisle seats on long flights.", "s1", 3)
    assert ltm.failed_writes and "disk full" in ltm.failed_writes[0]      # reported
    monkeypatch.undo()
    ltm.stream._cache = None
    assert len(ltm.stream.records()[0]) == count                          # nothing half-written
    turn(ltm, "I always order the vegetarian option.", "s1", 4)            # the next turn retries it
    assert {"I prefer aisle seats on long flights.", "I always order the vegetarian option."} <= set(current(ltm))
    assert len(ltm.failed_writes) == 1 and not ltm._retry


def test_reasoning_on_a_replaced_memory_is_held(tmp_path, clock):
    stream = MemoryStream(SqlMemoryStore(tmp_path / "d.db"), "ann", embed=bag_of_words, clock=clock)
    old = stream.add("My daughter is 6 years old.")
    plan = stream.add("Plan: a kids' menu for a 6 year old", source="plan", evidence=[old.id])
    new = stream.add("My daughter is 7 years old.", options=AddOptions(merge=False))
    stream.supersede(old, new, "factual correction", misstatement=True)
    held = stream.get(plan.id)
    assert held is not None and held.held and "rests on a replaced memory" in held.notes[0]


def test_an_important_change_reaches_the_profile_at_once(ltm):
    from monologue.memory.stores.state import InMemoryStateStore
    from monologue.memory.working.engine import WorkingMemory

    working = WorkingMemory("s1", InMemoryStateStore())

    async def run():
        await working.update("No spicy food.", turn=1)
        before = await ltm.before_reply("No spicy food.", session_id="s1", turn_class="information_change")
        await ltm.after_reply(AnsweredTurn(before, "No spicy food.", session_id="s1", turn=1,
                                           turn_class="information_change", session=session_snapshot(working)))
    asyncio.run(run())
    assert [f.value for f in ltm.profile().facts.values()] == ["spicy"]          # before the session ends
    assert ltm.profiles.audit("ann")[-1]["reason"] == "new preference"


def test_memories_carry_their_situation(ltm, clock):
    ltm.situation = {"passengers": "kids"}
    turn(ltm, "I always take the coast road on weekends.", "s1", 1)
    record = ltm.stream.records()[0][0]
    assert record.context["passengers"] == "kids" and record.context["weekday"] in (
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    assert record.context["time_of_day"] in ("morning", "afternoon", "evening", "night")


def test_sessions_leave_summaries_the_past_questions_read(ltm, clock):
    for n, text in enumerate(("I'm planning a trip to Lisbon next month.", "I want a hotel near the river."), 1):
        turn(ltm, text, f"s{n}", 1)
        asyncio.run(ltm.end_session(None, session_id=f"s{n}"))
        clock.advance(1)
    before = asyncio.run(ltm.before_reply("What did we talk about last time?", session_id="s3",
                                          turn_class="chit_chat"))
    note = next(n for n in before.notes if n.startswith("Earlier sessions"))
    assert note.index("hotel near the river") < note.index("Lisbon")             # newest first
    assert ltm.profile().last_session["id"] == "s2"


def test_a_habit_seen_in_three_conversations_becomes_a_reflection(ltm, clock):
    for n, text in enumerate(("I don't want spicy food tonight.", "No spicy food for me tonight please.",
                              "Tonight again I don't want spicy food."), 1):
        turn(ltm, text, f"s{n}", 1)
        clock.advance(1)
    reflections = [r for r in ltm.stream.records()[0] if r.kind == "reflection"]
    assert len(reflections) == 1 and ltm.reports[-1].trigger == "event"
    recall = asyncio.run(ltm.before_reply("Any spicy food tonight?", session_id="s9", turn_class="chit_chat"))
    assert recall.reflections[0].startswith("Pattern seen in 3 separate conversations")   # its own channel
    assert len(recall.recalled) == 3


class FakeMemoryLLM:
    """Stands in for MemoryLLM: fixed answers, and a record of what was asked."""

    def __init__(self, importance: int | None = 7, contradicts: bool | None = True) -> None:
        self.asked: list[str] = []
        self._importance, self._contradicts = importance, contradicts

    def bind(self, loop) -> None:
        pass

    def importance(self, text: str) -> int | None:
        self.asked.append(f"importance: {text}")
        return self._importance

    def contradicts(self, old: str, new: str) -> bool | None:
        self.asked.append(f"contradicts: {old} | {new}")
        return self._contradicts

    def insight(self, texts: list[str]) -> str:
        raise TimeoutError("no time")

    def summarize(self, texts):
        return None


def test_llm_work_waits_for_the_end_of_the_session(tmp_path, clock):
    path = tmp_path / "c.db"
    llm = FakeMemoryLLM()
    ltm = LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock),
                         stores=LongTermStores(profiles=SqlProfileStore(path)), options=LongTermOptions(budget_ms=5000),
                         llm=llm)
    turn(ltm, "I work at the city bakery.", "s1", 1)
    clock.advance(1)
    turn(ltm, "The sky looked odd over the bridge, I thought.", "s2", 1)
    turn(ltm, "I work at the city hospital.", "s2", 2)
    assert llm.asked == []                                      # nothing competes with replies mid-session
    assert ltm.stream.records()[0][1].importance == 4
    asyncio.run(ltm.end_session(None, session_id="s2"))
    assert "importance: The sky looked odd over the bridge, I thought." in llm.asked
    sky = next(r for r in ltm.stream.records()[0] if r.text.startswith("The sky"))
    assert sky.importance == 7
    bakery = next(r for r in ltm.stream.records()[0] if r.text == "I work at the city bakery.")
    assert bakery.superseded_by                                 # the judge called it a contradiction: a correction
    assert any("LLM judge" in e["reason"] for e in ltm.profiles.audit("ann"))


def test_chinese_time_travel_and_contradiction(ltm, clock):
    turn(ltm, "周三和小王吃饭", "s1", 1)
    turn(ltm, "我对花生过敏", "s1", 2)
    clock.advance(5)
    travel = turn(ltm, "上周说的那个计划，改到周五吧", "s2", 1)
    assert travel.say.startswith("好的，你") and "周五和小王吃饭" in travel.say
    asked = asyncio.run(ltm.before_reply("我对花生不过敏了", session_id="s2", turn_class="information_change",
                                         language="zh"))
    assert asked.say == "你之前告诉过我“我对花生过敏”，现在你说“我对花生不过敏了”。情况变了吗？"


@pytest.mark.parametrize("old, new, conflict", [
    ("I prefer window seats.", "I prefer aisle seats.", True),
    ("My favourite cuisine is Thai.", "My favourite cuisine is Italian now.", True),
    ("I like Thai food.", "I like Italian food.", False),            # both can be true
    ("I prefer window seats.", "I prefer window seats on trains.", False),
])
def test_exclusive_choices_swapped_are_conflicts(ltm, old, new, conflict):
    turn(ltm, old, "s1", 1)
    before = turn(ltm, new, "s2", 1)
    assert (before.conflict is not None) == conflict
    if conflict:
        assert before.conflict.risk == "preference" and before.say is None and new in current(ltm)


class GatedEmbedder:
    """bag_of_words, except that once `hold` is set the next call waits for `release`:
    a recall that is still running when its budget runs out."""

    def __init__(self) -> None:
        self.hold = False
        self.release = threading.Event()

    def __call__(self, texts: list[str]):
        if self.hold:
            self.hold = False
            self.release.wait(5)
        return bag_of_words(texts)


@pytest.fixture
def gated(tmp_path, clock):
    embed = GatedEmbedder()
    path = tmp_path / "g.db"
    ltm = LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=embed, clock=clock),
                         stores=LongTermStores(profiles=SqlProfileStore(path)), options=LongTermOptions(budget_ms=3000))
    return ltm, embed


def abandoned(ltm: LongTermMemory, embed: GatedEmbedder, text: str, turn_class: str):
    """A recall that runs past its budget; returns once its worker thread has finished too
    (asyncio.run waits for the default executor's threads)."""
    async def run():
        embed.hold = True
        before = await ltm.before_reply(text, session_id="s2", turn_class=turn_class)
        embed.release.set()          # the worker goes on after the reply went on without it
        return before
    return asyncio.run(run())


def test_an_abandoned_recall_asks_nothing(gated):
    ltm, embed = gated
    ltm.stream.add("I'm allergic to peanuts.", session_id="s1")
    before = abandoned(ltm, embed, "I'm not allergic to peanuts anymore.", "information_change")
    assert before.timed_out and before.say is None            # the reply did not ask...
    assert ltm.awaiting is None                               # ...so no answer is expected


def test_an_abandoned_recall_does_not_take_the_answer(gated):
    ltm, embed = gated
    ltm.stream.add("I'm allergic to peanuts.", session_id="s1")
    asked = asyncio.run(ltm.before_reply("I'm not allergic to peanuts anymore.", session_id="s2",
                                         turn_class="information_change"))
    assert asked.say and ltm.awaiting is not None
    before = abandoned(ltm, embed, "Yes, that's right.", "confirmation")
    assert before.timed_out and before.answered is None       # the reply did not settle it...
    assert ltm.awaiting is not None and ltm.awaiting.kind == "conflict"     # ...so the question stays open


def test_abandoned_work_finishes_before_the_next_write(gated):
    ltm, embed = gated
    text = "I always order the vegetarian option."

    async def run():
        embed.hold = True
        before = await ltm.before_reply(text, session_id="s2", turn_class="information_change")
        write = asyncio.ensure_future(ltm.after_reply(AnsweredTurn(before, text, session_id="s2", turn=1,
                                                                   turn_class="information_change")))
        await asyncio.sleep(0.1)
        written_meanwhile = len(ltm.stream.records()[0])
        embed.release.set()
        await write
        return before, written_meanwhile

    before, written_meanwhile = asyncio.run(run())
    assert before.timed_out and written_meanwhile == 0        # the write waited for the abandoned recall
    assert [r.text for r in ltm.stream.records()[0]] == [text]


@pytest.mark.parametrize("answer, restore", [("Yes, that's right.", None),
                                             ("No, I still am.", "I'm allergic to peanuts.")])
def test_keeping_the_earlier_statement_asks_the_session_to_restore_it(ltm, answer, restore):
    """Long-term memory does not change working memory: it says what the session should."""
    turn(ltm, "I'm allergic to peanuts.", "s1", 1)
    turn(ltm, "I'm not allergic to peanuts anymore.", "s2", 1)

    async def run():
        before = await ltm.before_reply(answer, session_id="s2", turn_class="confirmation")
        return await ltm.after_reply(AnsweredTurn(before, answer, session_id="s2", turn=2, turn_class="confirmation"))
    assert asyncio.run(run()).restore_text == restore


def test_the_core_is_plain_blocking_code(tmp_path, clock):
    """No event loop: the core prepares without changing what it awaits, writes, and opens sessions."""
    path = tmp_path / "core.db"
    core = LongTermCore(SqlMemoryStore(path), "ann",
                        profiles=SqlProfileStore(path), tools=MemoryTools(embed=bag_of_words, clock=clock))
    core.stream.add("I'm allergic to peanuts.", session_id="s1")
    prepared = core.prepare("I'm not allergic to peanuts anymore.", session_id="s2", turn_class="information_change",
                            schema=None, language="en", awaiting=None)
    assert prepared.before.say and prepared.awaiting is not None and prepared.awaiting.kind == "conflict"
    assert core.awaiting is None                                  # the caller decides whether to keep it
    core.awaiting = prepared.awaiting
    written = core.after_reply(prepared.before, "I'm not allergic to peanuts anymore.", session_id="s2", turn=1,
                               turn_class="information_change")
    held = core.stream.get(written[0])
    assert held is not None and held.held and core.awaiting is not None and core.awaiting.memory_id == written[0]


def test_a_session_seeded_from_the_profile(ltm):
    """start_session/end_session with a working memory: read at the end, seeded at the start."""
    from monologue.memory.stores.state import InMemoryStateStore
    from monologue.memory.working.engine import WorkingMemory

    async def run():
        first = WorkingMemory("s1", InMemoryStateStore())
        await ltm.start_session(first, session_id="s1")
        await first.update("No spicy food.", turn=1)
        await ltm.end_session(first, session_id="s1")
        second = WorkingMemory("s2", InMemoryStateStore())
        line = await ltm.start_session(second, session_id="s2")
        return line, second.state
    line, state = asyncio.run(run())
    assert line.startswith("Welcome back!")
    assert [(c.value, c.status) for c in state.constraints.values()] == [("spicy", "to_confirm")]
    assert state.last_monologue.startswith("Loaded from the profile, to confirm:")


def test_failures_are_logged_with_the_session_and_counted(ltm, monkeypatch):
    logged: list[str] = []
    sink = logger.add(lambda m: logged.append(f"{m.record['extra'].get('session')} | {m.record['message']}"),
                      level="WARNING")
    try:
        def failing_put(record, vector):
            raise OSError("disk full")

        monkeypatch.setattr(ltm.stream.store, "put", failing_put)
        turn(ltm, "I prefer aisle seats on long flights.", "s7", 3)
        monkeypatch.undo()
    finally:
        logger.remove(sink)
    assert any(line.startswith("s7 | session s7: long-term write for turn 3 failed") and "disk full" in line
               for line in logged)
    assert ltm.failures() == {"writes": 1}
    before = asyncio.run(ltm.before_reply("hello there", session_id="s7", turn_class="chit_chat"))
    assert before.trace()["failures"] == {"writes": 1}            # the turn's trace shows it


def test_a_failing_summarizer_keeps_the_rule_summary_and_is_counted(tmp_path):
    def broken(texts):
        raise TimeoutError("LLM took too long")

    pyramid = SummaryPyramid(SqlProfileStore(tmp_path / "s.db"), "ann", summarize=broken)
    for i in range(7):
        pyramid.add_session(f"s{i}", f"2026-01-0{i + 1}: session {i}", T0 + i * DAY)
    overall = pyramid.load().overall
    assert overall is not None and overall["text"].startswith("7 conversations")
    assert pyramid.failures == 4          # the merged and the overall summary, at the 6th and the 7th session
