"""Every sentence long-term memory says is natural speech, in English and Chinese: the
opening line, the pre-conversation checks, the plan, exact answers and answers from
memory — no keys, no "=", no brackets, no stored forms ("19:00", "saturday"), no quoted
commands — and questions about the user are answered in the second person with their
source, or not at all when memory holds nothing relevant."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from monologue.memory.domain.schema import DomainSchema, load_schema
from monologue.memory.language.person import second_person, when_said
from monologue.memory.longterm.checks import run_checks
from monologue.memory.longterm.core import LongTermCore
from monologue.memory.longterm.planning import Planner
from monologue.memory.longterm.profile import opening_line, session_status, update_profile
from monologue.memory.longterm.records import AuditEntry, ProfileFact, UserProfile
from monologue.memory.longterm.retrieval import Retriever
from monologue.memory.longterm.stream import AddOptions, MemoryStream
from monologue.memory.longterm.structured import exact_answer
from monologue.memory.longterm.user_memory import MemoryTools
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.working.state import ActionDone, AgentAct, Comparator, Condition, SessionState

from fakes import Clock, bag_of_words

FOOD, CAR = load_schema("restaurant"), load_schema("in_car")
TUESDAY = dt.datetime(2026, 3, 10, 19, 30).timestamp()
THURSDAY = dt.datetime(2026, 3, 12, 18, 0).timestamp()
NAMES = {"Luigi's", "Trattoria"}
_KEYS = {k for schema in (FOOD, CAR) for k in schema.keys if "_" in k}
_WEEKDAYS = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
_STORED = re.compile(r"\b\d{2}:\d{2}\b|\b\d{1,2}:00\b|\b\d{2}-\d{2}\b|\b[a-z]+_[a-z_]+\b")


def natural(text: str | None, language: str) -> str:
    """Fails unless `text` is something a person would say in `language`."""
    assert text
    for key in _KEYS:
        assert key not in text, (key, text)
    assert "=" not in text and "[" not in text and "(" not in text and "（" not in text, text
    assert not re.search(r"[:：]\s*(?:\d{1,2}:\d{2}|[a-z]+_|" + _WEEKDAYS.pattern + ")", text), text
    assert not _STORED.search(text), text
    assert "our last conversation" not in text and "Last time:" not in text, text
    if language == "en":
        assert not _WEEKDAYS.search(text), text
    else:
        assert re.search(r"[\u4e00-\u9fff]", text), text
        english = set(re.findall(r"[A-Za-z][A-Za-z']*", text)) - NAMES
        assert not english, (english, text)
    return text


def _state(domain: str, conditions: list[tuple[str, str, object]], done: list[dict] | None = None,
           acts: list[dict] | None = None) -> SessionState:
    state = SessionState("s1", domain=domain, version=3, turn=4)
    for turn, (key, comparator, value) in enumerate(conditions, 1):
        slot = f"{key}:{value}" if comparator in ("includes", "excludes") else key
        state.constraints[slot] = Condition(key, Comparator(comparator), value, "", turn)
    state.done = [ActionDone.from_dict(d) for d in done or []]
    state.acts = [AgentAct.from_dict(a) for a in acts or []]
    return state


BOOKED = {"action": "book", "args": {"party_size": 4, "date": "saturday", "time": "19:00",
                                     "restaurant_name": "Luigi's Trattoria"},
          "record": "R1", "turn": 3, "completes": True,
          "said": {"en": "booked Luigi's Trattoria for 4 people on Saturday at 7 pm",
                   "zh": "订了周六晚上7点的Luigi's Trattoria，4个人"}}
DROVE = {"action": "start_navigation", "args": {"destination": "airport"}, "record": "N1", "turn": 2,
         "completes": True, "said": {"en": "set off for the airport with no tolls", "zh": "出发去了机场，不走收费"}}
FOOD_TABLE = [("party_size", "=", 4), ("date", "=", "saturday"), ("time", "=", "19:00"),
              ("dietary", "excludes", "spicy")]
CAR_TRIP = [("destination", "=", "airport"), ("route_preference", "includes", "avoid_tolls"), ("temperature", "=", 21),
            ("seat_position", "=", "back")]
SESSIONS = {
    ("restaurant", "completed"): (FOOD, _state("restaurant", FOOD_TABLE, [BOOKED])),
    ("restaurant", "in_progress"): (FOOD, _state("restaurant", FOOD_TABLE[:2] + FOOD_TABLE[3:],
                                                 acts=[{"act": "ask", "key": "time"}])),
    ("in_car", "completed"): (CAR, _state("in_car", CAR_TRIP, [DROVE])),
    ("in_car", "in_progress"): (CAR, _state("in_car", CAR_TRIP, acts=[{"act": "ask", "key": "arrival_time"}])),
}


def _profile(schema: DomainSchema, state: SessionState) -> UserProfile:
    profile = UserProfile("u")
    update_profile(profile, state, schema, frozenset(), now=TUESDAY)
    return profile


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("case", sorted(SESSIONS))
def test_opening_lines_are_natural_speech(case, language):
    schema, state = SESSIONS[case]
    profile = _profile(schema, state)
    line = natural(opening_line(profile, schema, language, now=THURSDAY), language)
    assert len(re.findall(r"[.!?。！？](?:\s|$)", line + " ")) <= 3, line        # three short sentences at most
    archived = dict(profile.last_session, status="ARCHIVED")
    natural(opening_line(UserProfile("u", profile.facts, archived), schema, language, now=THURSDAY), language)
    natural(opening_line(UserProfile("u"), schema, language), language)       # a first session asks


def test_opening_lines_say_what_was_done_and_what_is_still_open():
    done = _profile(*SESSIONS[("restaurant", "completed")])
    assert done.last_session["status"] == "COMPLETED"
    assert opening_line(done, FOOD, "en", now=THURSDAY) == (
        "Welcome back! Last time you booked Luigi's Trattoria for 4 people on Saturday at 7 pm. "
        "I still have you down for no spicy food — still right?")
    assert opening_line(done, FOOD, "zh", now=THURSDAY) == (
        "欢迎回来！上次你订了周六晚上7点的Luigi's Trattoria，4个人。我还记得你的习惯：不吃辣，还是这样吗？")
    trip = _profile(*SESSIONS[("in_car", "in_progress")])
    line = opening_line(trip, CAR, "en", now=THURSDAY)
    assert "plan a drive, for the airport" in line and "we hadn't settled the arrival time" in line
    assert "到达时间还没定" in opening_line(trip, CAR, "zh", now=THURSDAY)
    first = opening_line(UserProfile("u"), CAR, "en")
    assert first.startswith("Hi!") and "route preference" in first
    archived = UserProfile("u", trip.facts, dict(trip.last_session, status="ARCHIVED"))
    assert opening_line(archived, CAR, "en", now=THURSDAY) == (
        "Welcome back! It's been a while since we last talked. I still have you down for no tolls, "
        "the cabin at 21 degrees and the seat further back — still right?")


def test_a_change_after_the_action_is_in_progress_again():
    state = _state("restaurant", FOOD_TABLE, [BOOKED])
    assert session_status(state) == "COMPLETED"
    state.constraints["time"].value = "20:00"
    assert session_status(state) == "IN_PROGRESS"
    profile = _profile(FOOD, state)
    line = natural(opening_line(profile, FOOD, "en", now=THURSDAY), "en")
    assert "then you wanted it at 8 pm instead" in line
    assert "后来想改成晚上8点" in natural(opening_line(profile, FOOD, "zh", now=THURSDAY), "zh")
    confirmed = _state("restaurant", FOOD_TABLE)
    confirmed.constraints["party_size"].confirmed = True
    assert session_status(confirmed) == "IN_PROGRESS"                  # confirming is not doing


def test_checks_are_spoken(tmp_path):
    clock = Clock(TUESDAY)
    profiles = SqlProfileStore(tmp_path / "p.db")
    for language, said in (("en", "I have a dentist appointment tomorrow at 3 pm."), ("zh", "我明天下午3点要看牙医。")):
        stream = MemoryStream(SqlMemoryStore(tmp_path / f"{language}.db"), language, embed=bag_of_words,
                              clock=clock)
        record = stream.add(said, session_id="s1")
        record.context["valid_until"] = TUESDAY + 3600
        stream.save(record, "dated")
        fact = ProfileFact("temperature", Comparator.EQ, 21, "keep it at 21", "s0", TUESDAY - 200 * 86400)
        profile = UserProfile(language, {"temperature": fact})
        profiles.add_commitment(language, "s1", "I'll remind you about the dentist", TUESDAY)
        clock.now = THURSDAY
        checks = run_checks(profiles, stream, THURSDAY, profile=profile)
        lines = checks.lines(language, CAR)
        assert len(lines) == 3
        for line in lines:
            natural(line, language)
        clock.now = TUESDAY
    assert lines[1] == "你周二说过你明天下午3点要看牙医，这事已经过去了，还需要我做什么吗？"


@pytest.mark.parametrize("language,said", [("en", "I never want spicy food when I book a restaurant table."),
                                            ("zh", "我从来不吃辣，订餐厅的时候记住。")])
def test_the_plan_is_a_question_a_person_asks(tmp_path, language, said):
    stream = MemoryStream(SqlMemoryStore(tmp_path / "p.db"), "u", embed=bag_of_words, clock=Clock(TUESDAY))
    stream.add(said, session_id="s1", options=AddOptions(importance=8))
    plan = Planner(stream, Retriever(stream)).propose(
        "book a restaurant table 订餐厅 吃辣", "s2", language, schema=FOOD,
        keeping=[Condition("dietary", Comparator.EXCLUDES, "spicy", "", 0)])
    assert plan is not None
    spoken = natural(plan.spoken(), language)
    assert spoken.startswith("Shall I book a restaurant table again, keeping to no spicy food?") if language == "en" \
        else spoken.startswith("要不要再帮你预订餐厅，还按不吃辣来？") and "你说过你从来不吃辣" in spoken


def test_exact_answers_are_second_person_with_when(tmp_path):
    store = SqlProfileStore(tmp_path / "p.db")
    assert natural(exact_answer("What did I book last time?", store, "u", FOOD, now=THURSDAY), "en") == \
        "There's no record of an earlier conversation."
    profile = _profile(*SESSIONS[("restaurant", "completed")])
    store.save(profile, [AuditEntry("seat_position", None, "seat_position = back", "new preference", "s1")],
               at=TUESDAY)
    assert exact_answer("What did I book last time?", store, "u", FOOD, now=THURSDAY) == \
        "Last time you booked Luigi's Trattoria for 4 people on Saturday at 7 pm; that was on Tuesday."
    assert exact_answer("上次我订了什么？", store, "u", FOOD, now=THURSDAY) == \
        "上次是周二，你订了周六晚上7点的Luigi's Trattoria，4个人。"
    assert exact_answer("When did I last change the seat?", store, "u", CAR, now=THURSDAY) == \
        "You last changed the seat on Tuesday evening: further back."
    assert natural(exact_answer("我上次什么时候调的座椅？", store, "u", CAR, now=THURSDAY), "zh") == \
        "你上次改座椅是在周二晚上：往后。"
    assert natural(exact_answer("When did I last change the temperature?", store, "u", CAR, now=THURSDAY), "en") \
        == "There's no record of you changing the cabin temperature."
    planned = _profile(*SESSIONS[("restaurant", "in_progress")])
    store.save(planned, [], at=TUESDAY)
    for question, language in (("What did I book last time?", "en"), ("上次我订了什么？", "zh")):
        natural(exact_answer(question, store, "u", FOOD, now=THURSDAY), language)


@pytest.fixture
def core(tmp_path):
    clock = Clock(dt.datetime(2026, 3, 11, 9, 0).timestamp())          # a Wednesday morning
    core = LongTermCore(SqlMemoryStore(tmp_path / "m.db"), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock))
    for text in ("I like the seat further back.", "Keep the cabin at 21 degrees, I always get cold.",
                 "我喜欢座椅靠后。", "车里我喜欢21度。"):
        core.stream.add(text, session_id="s1")
    clock.now = THURSDAY
    return core


def _ask(core: LongTermCore, question: str, language: str = "en"):
    return core.prepare(question, session_id="s2", turn_class="chit_chat", schema=CAR, language=language,
                        awaiting=None).before


@pytest.mark.parametrize("question,expected", [
    ("What temperature do I like?",
     "You said \u201ckeep the cabin at 21 degrees, you always get cold\u201d yesterday."),
    ("Do you remember how I like my seat?", "You told me yesterday that you like the seat further back."),
    ("你记得我喜欢几度吗？", "你昨天跟我说过，车里你喜欢21度。"),
    ("我的座椅喜欢怎么调？", "你昨天跟我说过，你喜欢座椅靠后。"),
])
def test_questions_about_the_user_are_answered_from_memory_with_their_source(core, question, expected):
    before = _ask(core, question)
    assert before.about_user and before.answer == expected
    natural(before.answer, "zh" if re.search(r"[\u4e00-\u9fff]", question) else "en")
    assert before.sources and all(s.session_id == "s1" and s.at < THURSDAY for s in before.sources)
    assert [s.text for s in before.sources] == before.recalled


def test_an_unrelated_question_gets_no_answer_from_memory(core):
    before = _ask(core, "What's my favourite colour?")
    assert before.about_user and before.recalled           # retrieval returned its top k anyway…
    assert before.answer is None                           # …but none of it is about colours
    assert _ask(core, "我最喜欢什么颜色？").answer is None
    assert not _ask(core, "Where is the nearest gas station?").about_user
    assert not _ask(core, "Can you book a table for 4?").about_user


def test_an_exact_answer_is_the_answer(core):
    profile = _profile(*SESSIONS[("restaurant", "completed")])
    profile.user_id = "ann"
    core.profiles.save(profile, [], at=TUESDAY)
    before = _ask(core, "What did I book last time?")
    assert before.exact and before.answer == before.exact and before.answer.startswith("Last time you booked")


def test_the_users_words_in_the_agents_mouth():
    assert second_person("I like the seat further back.") == "you like the seat further back"
    assert second_person("My wife is vegetarian.") == "your wife is vegetarian"
    assert second_person("I'm allergic to peanuts.") == "you're allergic to peanuts"
    assert second_person("Can you remind me that I told you?") == "Can I remind you that you told me?"
    assert second_person("我喜欢座椅靠后", "zh") == "你喜欢座椅靠后"
    assert second_person("我们跟你说过", "zh") == "你们跟我说过"


def test_when_something_was_said():
    said = [THURSDAY - 2 * 3600, THURSDAY - 86400, TUESDAY, THURSDAY - 9 * 86400, THURSDAY - 9 * 86400 - 30 * 86400]
    assert [when_said(at, THURSDAY) for at in said] == [
        "earlier today", "yesterday", "on Tuesday", "last week", "on February 1st"]
    assert [when_said(at, THURSDAY, "zh") for at in said] == ["今天早些时候", "昨天", "周二", "上周", "2月1日"]
    assert when_said(TUESDAY, THURSDAY, part_of_day=True) == "on Tuesday evening"
    assert when_said(TUESDAY, THURSDAY, "zh", part_of_day=True) == "周二晚上"
