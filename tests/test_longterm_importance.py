"""What becomes a long-term memory: needs, address, lasting likes and
dislikes, settings to keep and habits are kept with a floor no model can lower;
questions are not stored; requests are events, not facts; in-car preferences tracked as
state reach the profile. Phrasings in English and Chinese over several domains."""

from __future__ import annotations

import asyncio

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.longterm.core import LongTermCore
from monologue.memory.longterm.engine import AnsweredTurn, LongTermMemory, LongTermOptions, LongTermStores, MemoryTools
from monologue.memory.longterm.importance import Statement, read_statement, remember_as
from monologue.memory.longterm.records import MemoryKind, MemoryRecord
from monologue.memory.longterm.stream import AddOptions
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.apply import apply_operations
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.state import Operation, SessionState
from monologue.memory.working.turn_classes import classify_turn

from fakes import Clock, ScriptedJsonLLM, bag_of_words

T0 = 1_763_000_000.0


class ScriptedMemoryLLM:
    """The long-term LLM, scripted: one importance for every statement (here, one that
    tries to lower everything), no contradictions; records what it was asked."""

    def __init__(self, importance: int | None = 1, contradicts: bool | None = False) -> None:
        self.importance_answer = importance
        self.contradicts_answer = contradicts
        self.asked: list[str] = []

    def bind(self, loop) -> None:
        pass

    def importance(self, text: str) -> int | None:
        self.asked.append(text)
        return self.importance_answer

    def contradicts(self, old: str, new: str) -> bool | None:
        return self.contradicts_answer

    def insight(self, texts: list[str]) -> str | None:
        return None

    def summarize(self, texts: list[str]) -> str | None:
        return None


@pytest.fixture
def clock():
    return Clock(T0)


def memory_for(tmp_path, clock, llm: ScriptedMemoryLLM | None = None, name: str = "m") -> LongTermMemory:
    path = tmp_path / f"{name}.db"
    return LongTermMemory(SqlMemoryStore(path), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock),
                          stores=LongTermStores(profiles=SqlProfileStore(path)),
                          options=LongTermOptions(budget_ms=5000), llm=llm)


def say(ltm: LongTermMemory, text: str, session: str, n: int, domain: str = "in_car") -> list[str]:
    """One user turn, classified as the pipeline classifies it in `domain`."""
    schema = load_schema(domain)
    turn_class = classify_turn(text, RuleExtractor(schema).reads_condition, schema=schema).turn_class

    async def run() -> list[str]:
        before = await ltm.before_reply(text, session_id=session, turn_class=turn_class, schema=schema)
        said = AnsweredTurn(before, text, session_id=session, turn=n, turn_class=turn_class)
        return (await ltm.after_reply(said)).written
    return asyncio.run(run())


def record(ltm: LongTermMemory, text: str) -> MemoryRecord:
    found = next((r for r in ltm.stream.records()[0] if r.text == text), None)
    assert found is not None, f"nothing stored for {text!r}"
    return found


def stored(ltm: LongTermMemory, memory_id: str) -> MemoryRecord:
    found = ltm.stream.get(memory_id)
    assert found is not None
    return found


# --- what each phrasing is, and its floor ----------------------------------------------------

@pytest.mark.parametrize("text, statement, floor", [
    # in the car: likes and dislikes said as feelings, settings to keep, habits
    ("Honestly, motorways make me nervous.", Statement.PREFERENCE, 5),
    ("I really can't stand sitting in tolls.", Statement.PREFERENCE, 5),
    ("I like it cool when I drive.", Statement.PREFERENCE, 5),
    ("Just keep the cabin at 20 and I'm happy.", Statement.PREFERENCE, 5),
    ("Put it on 23 and leave it.", Statement.PREFERENCE, 5),
    ("We never use the ring road.", Statement.PREFERENCE, 5),
    ("Please never route me through the tunnel.", Statement.PREFERENCE, 5),
    ("Avoid toll roads.", Statement.PREFERENCE, 5),
    ("我特别讨厌堵在高架上", Statement.PREFERENCE, 5),
    ("空调一直开到二十四度就行", Statement.PREFERENCE, 5),
    ("以后都别走收费站", Statement.PREFERENCE, 5),
    ("我平时都把座椅放得很低", Statement.PREFERENCE, 5),
    ("开高速让我心慌", Statement.PREFERENCE, 5),
    # restaurant and general life
    ("My husband is allergic to shellfish.", Statement.NEED, 8),
    ("We'll need a table that fits a wheelchair, it's for my father.", Statement.NEED, 8),
    ("Is there step-free access for my mother?", Statement.QUESTION, 1),        # no need word the rules know
    ("Do you have a wheelchair ramp for my mother?", Statement.NEED, 8),        # a need stated in passing
    ("I'm diabetic.", Statement.NEED, 8),
    ("我老公海鲜过敏", Statement.NEED, 8),
    ("我爸腿脚不方便", Statement.NEED, 8),
    ("她怀孕了，我们不要吃生的", Statement.NEED, 8),
    ("I don't eat pork.", Statement.NEED, 7),
    ("我吃素", Statement.NEED, 7),
    ("I'm not a fan of loud places.", Statement.PREFERENCE, 5),
    ("我不爱吃甜的", Statement.PREFERENCE, 5),
    ("I usually eat dinner around eight.", Statement.PREFERENCE, 5),
    # customer service: how to address them
    ("You can call me Jo.", Statement.IDENTITY, 8),
    ("I go by Alex, not Alexander.", Statement.IDENTITY, 8),
    ("你叫我老李就好", Statement.IDENTITY, 8),
    ("Please remember that my name is Ruth.", Statement.IDENTITY, 8),
    # a request that carries a fact keeps the fact
    ("Could you remember that I'm allergic to nuts?", Statement.NEED, 8),
    ("Can you note I hate window seats?", Statement.PREFERENCE, 5),
    ("你能记住我对芒果过敏吗", Statement.NEED, 8),
])
def test_what_a_statement_is_and_its_floor(text, statement, floor):
    reading = read_statement(text)
    assert (reading.statement, reading.floor) == (statement, floor)
    if statement in (Statement.NEED, Statement.IDENTITY, Statement.PREFERENCE):
        assert reading.importance is not None and reading.importance >= max(floor, 5)


@pytest.mark.parametrize("text, statement", [
    # questions about what is remembered, in both languages
    ("What temperature do I usually like?", Statement.QUESTION),
    ("Which route do I prefer again", Statement.QUESTION),
    ("Do you know what I'm allergic to?", Statement.QUESTION),
    ("我喜欢几度来着？", Statement.QUESTION),
    ("你还记得我不吃什么吗", Statement.QUESTION),
    ("我是不是说过不走高速", Statement.QUESTION),
    ("Is the vegan menu any good?", Statement.QUESTION),
    ("你们有清真菜吗", Statement.QUESTION),
    # requests: something to do now, not something about the user
    ("Can you turn the heater up a bit?", Statement.REQUEST),
    ("Could you open the sunroof", Statement.REQUEST),
    ("Turn on the seat heating.", Statement.REQUEST),
    ("Take the highway today, I'm running late.", Statement.REQUEST),
    ("Just this once use the toll road.", Statement.REQUEST),
    ("Avoid the bridge today, there's a marathon.", Statement.REQUEST),
    ("帮我把空调打开", Statement.REQUEST),
    ("今天就走高速吧，我快迟到了", Statement.REQUEST),
    ("这次别走隧道", Statement.REQUEST),
    ("Call me a cab.", Statement.REQUEST),
    ("Please check where my parcel is.", Statement.REQUEST),
    ("Play something I like.", Statement.REQUEST),
    # small talk
    ("Thanks, that's great.", Statement.SMALL_TALK),
    ("Hello there!", Statement.SMALL_TALK),
])
def test_questions_requests_and_small_talk_are_not_facts(text, statement):
    reading = read_statement(text)
    assert reading.statement == statement
    assert remember_as(text, "information_change") is not MemoryKind.MEMORY
    assert remember_as(text, "chit_chat") is not MemoryKind.MEMORY


def test_a_one_off_wish_is_not_a_lasting_preference():
    for text in ("I don't want anything spicy tonight.", "今天我不想吃辣"):
        reading = read_statement(text)
        assert reading.statement is not Statement.PREFERENCE and reading.floor == 1


# --- the local LLM cannot lower what the rules read -------------------------------------------

def test_a_model_cannot_lower_lasting_in_car_preferences(tmp_path, clock):
    """The reported failure: the LLM scored a road-type dislike and a cabin temperature 1
    at session end, and a week later both were archived."""
    llm = ScriptedMemoryLLM(importance=1)
    ltm = memory_for(tmp_path, clock, llm)
    dislike, climate = "Honestly, motorways make me nervous.", "Keep it at 21 degrees in here."
    say(ltm, dislike, "s1", 1)
    say(ltm, climate, "s1", 2)
    asyncio.run(ltm.end_session(None, session_id="s1"))
    clock.advance(8)
    ltm.stream.maintain()
    for text in (dislike, climate):
        kept = record(ltm, text)
        assert kept.current and kept.importance >= 5, text
    clock.advance(60)                              # past the middle tier's month, twice
    ltm.stream.maintain()
    ltm.stream.maintain()
    assert all(record(ltm, t).current and record(ltm, t).importance >= 5 for t in (dislike, climate))


def test_the_llm_scores_what_the_rules_abstain_on_but_not_below_their_floor(tmp_path, clock):
    llm = ScriptedMemoryLLM(importance=1)
    ltm = memory_for(tmp_path, clock, llm)
    topic = "The junction by the school jams every morning."          # a lasting topic, no preference read
    say(ltm, topic, "s1", 1)
    asyncio.run(ltm.end_session(None, session_id="s1"))
    assert llm.asked == [topic]
    assert record(ltm, topic).importance == 4                    # the model said 1: kept a month, not a week


def test_the_llm_may_raise_importance(tmp_path, clock):
    llm = ScriptedMemoryLLM(importance=9)
    ltm = memory_for(tmp_path, clock, llm)
    topic = "The junction by the school jams every morning."
    say(ltm, topic, "s1", 1)
    asyncio.run(ltm.end_session(None, session_id="s1"))
    assert record(ltm, topic).importance == 9 and record(ltm, topic).expires_at is None


def test_rescoring_and_merging_respect_the_floor(tmp_path, clock):
    ltm = memory_for(tmp_path, clock)
    stream = ltm.stream
    need = stream.add("My son is allergic to sesame.")
    assert need.importance == 9
    assert stream.rescore(need, 2, "scored by a model") and need.importance == 8 and need.expires_at is None
    liked = stream.add("I love the scenic coast road.")
    stream.rescore(liked, 1, "scored by a model")
    assert liked.importance == 5
    stream.rescore(liked, 8, "scored by a model")
    assert liked.importance == 8                                  # raising is allowed
    # A repeat passed in with a low score (a caller, a model) is merged at the floor or above.
    again = stream.add("My son is allergic to sesame.", options=AddOptions(importance=1))
    assert again.id == need.id and again.importance >= 9


def test_a_scorer_on_the_write_path_cannot_lower_below_the_floor(tmp_path, clock):
    from monologue.memory.longterm.stream import MemoryStream

    stream = MemoryStream(SqlMemoryStore(tmp_path / "s.db"), "ann", clock=clock, importance_fn=lambda text: 1)
    assert stream.add("Traffic on the ring road is awful after five.").importance == 4
    assert stream.add("The sky looked odd over the bridge.").importance == 1        # no floor: the model decides


def test_memories_scored_low_before_the_rules_knew_them_are_lifted_not_archived(tmp_path, clock):
    ltm = memory_for(tmp_path, clock)
    old = ltm.stream.add("我讨厌走高速", options=AddOptions(importance=1))     # as the LLM left it before this fix
    clock.advance(8)
    ltm.stream.maintain()
    assert stored(ltm, old.id).current and stored(ltm, old.id).importance == 5


# --- questions are not stored; requests are events, never recalled as facts --------------------

def test_questions_are_not_stored_and_requests_are_events(tmp_path, clock):
    ltm = memory_for(tmp_path, clock)
    say(ltm, "I can't stand highways.", "s1", 1)
    say(ltm, "Keep it at 21 degrees.", "s1", 2)
    clock.advance(7)
    for n, text in enumerate(("What temperature do I like?", "你记得我喜欢几度吗", "Do you remember my route?"), 1):
        assert say(ltm, text, "s2", n) == []
    written = say(ltm, "Take the highway today, I'm late.", "s2", 4)
    event = stored(ltm, written[0])
    assert event.kind == MemoryKind.EVENT and event.importance < 4
    highways = record(ltm, "I can't stand highways.")
    assert highways.current and highways.superseded_by == ""     # the one-off did not replace the preference
    recall = asyncio.run(ltm.before_reply("Which way should we take, the highway?", session_id="s3",
                                          turn_class="chit_chat"))
    assert "Take the highway today, I'm late." not in recall.recalled
    assert "I can't stand highways." in recall.recalled


def test_a_request_that_carries_a_fact_keeps_the_fact(tmp_path, clock):
    ltm = memory_for(tmp_path, clock, ScriptedMemoryLLM(importance=1))
    for n, text in enumerate(("Could you remember that I'm allergic to nuts?", "帮我记一下，我对花生过敏"), 1):
        say(ltm, text, "s1", n, domain="restaurant")
    asyncio.run(ltm.end_session(None, session_id="s1"))
    for text in ("Could you remember that I'm allergic to nuts?", "帮我记一下，我对花生过敏"):
        kept = record(ltm, text)
        assert kept.kind == MemoryKind.MEMORY and kept.importance >= 8


@pytest.mark.parametrize("domain, text", [
    ("restaurant", "My mother uses a wheelchair, so somewhere without stairs."),
    ("restaurant", "我女儿对鸡蛋过敏"),
    ("customer_service", "Call me Priya, please."),
    ("customer_service", "I'm hard of hearing, so please type it out."),
    ("in_car", "I always have the seat pushed right back."),
    ("in_car", "车里我喜欢暖和一点"),
])
def test_facts_said_in_passing_are_kept_whatever_the_turn_class(tmp_path, clock, domain, text):
    ltm = memory_for(tmp_path, clock)
    written = say(ltm, text, "s1", 1, domain=domain)
    assert written and stored(ltm, written[0]).kind == MemoryKind.MEMORY
    assert stored(ltm, written[0]).importance >= 5


# --- in-car preferences tracked as state reach the profile --------------------------------------

IN_CAR_OPS = [
    Operation("set", "route_preference", "includes", "avoid_highways", "no highways"),
    Operation("set", "temperature", "=", 21, "keep it at 21 degrees"),
    Operation("set", "seat_position", "=", "all the way back", "seat all the way back"),
    Operation("set", "destination", "=", "the office", "to the office"),
]


def _commit(memory: WorkingMemory, ops: list[Operation]) -> None:
    """Drive the working state with explicit operations (the rule readers for in-car
    climate and seats live elsewhere)."""
    base = memory.state
    applied = apply_operations(base, ops, memory.schema, turn=base.turn + 1)
    applied.state.version = base.version + 1
    memory.store.commit(applied.state, base.version, applied.changes)


@pytest.mark.parametrize("with_llm", [False, True])
def test_in_car_preferences_are_folded_into_the_profile(tmp_path, clock, with_llm):
    ltm = memory_for(tmp_path, clock, ScriptedMemoryLLM(importance=1) if with_llm else None)
    options = WorkingMemoryOptions(domain="in_car")

    async def run() -> tuple[SessionState, str]:
        first = WorkingMemory("s1", InMemoryStateStore(), options)
        await ltm.start_session(first, session_id="s1")
        _commit(first, IN_CAR_OPS)
        await ltm.end_session(first, session_id="s1")
        second = WorkingMemory("s2", InMemoryStateStore(), options)
        line = await ltm.start_session(second, session_id="s2")
        return second.state, line
    state, _line = asyncio.run(run())
    facts = ltm.profile().facts
    assert {f.key: f.value for f in facts.values()} == {"route_preference": "avoid_highways", "temperature": 21,
                                                        "seat_position": "all the way back"}
    seeded = {c.key: (c.value, c.status) for c in state.constraints.values()}
    assert seeded == {"route_preference": ("avoid_highways", "to_confirm"), "temperature": (21, "to_confirm"),
                      "seat_position": ("all the way back", "to_confirm")}      # a trip's destination is not kept


def test_in_car_preferences_read_by_a_scripted_llm_reach_the_profile(tmp_path, clock):
    """Rules read nothing in "keep it at 21 degrees" (yet); the working memory's LLM does,
    and what it set as a durable key is folded in at the end of the session."""
    ltm = memory_for(tmp_path, clock, ScriptedMemoryLLM(importance=1))
    json_llm = ScriptedJsonLLM([{"operations": [{"op": "set", "key": "temperature", "value": 21,
                                                 "words": "at 21 degrees"}]}])
    text = "Keep it at 21 degrees."

    async def run() -> None:
        memory = WorkingMemory("s1", InMemoryStateStore(), WorkingMemoryOptions(domain="in_car", llm_mode="always"),
                               llm=json_llm)
        await ltm.start_session(memory, session_id="s1")
        await memory.update(text, turn=1)
        before = await ltm.before_reply(text, session_id="s1", turn_class="information_change")
        await ltm.after_reply(AnsweredTurn(before, text, session_id="s1", turn=1, turn_class="information_change"))
        await ltm.end_session(memory, session_id="s1")
    asyncio.run(run())
    assert {f.key: f.value for f in ltm.profile().facts.values()} == {"temperature": 21}
    assert record(ltm, text).importance >= 5                   # and the statement itself stays a month or more


def test_the_core_keeps_an_event_out_of_the_profile_and_the_summary(tmp_path, clock):
    core = LongTermCore(SqlMemoryStore(tmp_path / "c.db"), "ann", tools=MemoryTools(embed=bag_of_words, clock=clock))
    from monologue.memory.longterm.exchange import BeforeReply

    core.after_reply(BeforeReply(), "Turn on the heated seats.", session_id="s1", turn=1, turn_class="chit_chat")
    core.after_reply(BeforeReply(), "I love heated seats in winter.", session_id="s1", turn=2,
                     turn_class="chit_chat")
    core.close_session("s1", None)
    summary = core.pyramid.load().render(500)
    assert "You said you love heated seats in winter." in summary and "turn on the heated seats" not in summary.lower()


# --- more phrasings: three sets written after the rules, measured before they were tuned on --------
# (30/40, 29/40 and 32/40 first time; see the commit messages)

MORE_FACTS = [
    'Roundabouts freak me out.', "I'd much rather take the back roads.", 'Cold air on my feet drives me crazy.',
    'Could you always keep the fan on low?', 'My default is 19 degrees.',
    "I never want the radio on when I'm driving.", 'Leave the heat at 22 for me, always.', '我最怕走山路',
    '座椅就固定在这个位置', '我一向不走二环', '以后空调都开二十二度', '我不习惯开太快',
    'My wife gets carsick on winding roads.', 'I use a cane.', 'My daughter has a severe egg allergy.',
    "I'm on blood thinners.", '我儿子有哮喘', '我奶奶坐轮椅', 'Just call me Ben.', '以后叫我陈老师',
    "Don't forget I'm gluten intolerant.", '记得我不吃香菜啊', "I can't do spicy food at all.",
    'Tea, never coffee, for me.', 'Bright headlights at night really get to me.', "I'm not big on motorways.",
    'Warmer is better for me, like 24.', 'Whenever I drive to work I take Elm Street.',
    'Seat heating on, every winter morning please.', '我开车喜欢安静，不要放音乐', '我这个人特别怕冷',
    '我每次都走滨江路', '收费的路我一般不走', 'My partner is deaf, so texts are better than calls.',
    "I've got a bad back, so firm seats.", '我对青霉素过敏', '我爸有高血压，菜少放盐',
    "He's got a nut allergy, my son.", "I'm Maria, by the way.", 'Please just call me Doc.', '我姓王，叫我小王就行',
    'Make a note that I hate early calls.', 'I prefer email over phone.', '我比较喜欢靠窗的位置',
    "Heated steering wheel, always, it's a must for me.", 'I find lane-assist really annoying.',
    "The radio off, that's how I like my drives.", "I'm someone who likes it chilly in the car.",
    'Avoid unpaved roads, my car is low.', '我开车的时候不喜欢别人说话', '温度别超过二十五度', '下雨天我都开得很慢',
    '每次去机场都走机场高速', '我晕车，别开太猛', 'My kid has epilepsy, flashing lights are a problem.',
    "I'm six months pregnant.", '我妈有心脏病', 'Could you make a note that my wife is vegetarian?', '我们家不吃辣',
    "I'm lactose intolerant.", 'Address me as Ms. Chen please.', "It's Tom, by the way.", '你以后就叫我阿杰',
    'I prefer a callback in the mornings.', 'Texts work better for me than calls.',
]
MORE_NOT_FACTS = [
    'How warm is it in here?', "Where's the nearest charger?", 'What did I say about tolls last week?',
    '现在车里几度', '我上次说的那家店叫什么', 'Turn the fan down please.', 'Open the windows a crack.',
    "Let's go through the tunnel this time.", "Hurry, take the fastest way, I've got a meeting.",
    '把座椅往后调一点', '这次走快速路吧', 'Nice, thanks a lot.', '哈哈，好的', 'Can you find me a parking spot?',
    'Read me my messages.', "What's the weather like tomorrow?", 'Why is the route so slow?',
    'Do I have any appointments today?', "What's my usual temperature again?", '我喜欢的那首歌叫什么来着',
    '你知道我住哪吗', 'Turn it up to 23.', "Could you book a table at Nando's for two tonight?", 'Skip this song.',
    "Quick, the fastest route please, I'm late.", '今天走二环吧，快一点', '帮我查一下快递', '把温度调到二十度',
    'Lovely, cheers.', 'Okay sounds good', '嗯嗯，知道了', 'Is it going to rain later?',
    'Can you reset my password?', 'Navigate home.', '关一下车窗', 'Why did you take this road?',
    'Are we nearly there?', 'How long until we arrive?', 'Did I tell you about my allergy?',
    '我之前说过我喜欢什么温度吗', '这条路怎么这么堵', 'Switch to the sports channel.',
    'Find a petrol station nearby.', 'Go via the supermarket today.', "I'm in a rush, any quicker way?",
    '把音乐声音关小一点', '导航去最近的加油站', 'Can you move my appointment?', 'Please cancel my order.',
    'OK great, thank you!', '好嘞，谢谢你', 'Hmm, let me think.', "That's fine.", "It's cold today.",
]


@pytest.mark.parametrize("text", MORE_FACTS)
def test_more_phrasings_of_facts(text):
    reading = read_statement(text)
    assert reading.statement in (Statement.NEED, Statement.IDENTITY, Statement.PREFERENCE)
    assert reading.floor >= 5 and remember_as(text, "chit_chat") is MemoryKind.MEMORY


@pytest.mark.parametrize("text", MORE_NOT_FACTS)
def test_more_phrasings_that_are_not_facts(text):
    assert read_statement(text).statement not in (Statement.NEED, Statement.IDENTITY, Statement.PREFERENCE)
    assert read_statement(text).floor < 5


@pytest.mark.parametrize("lasting, exception", [
    ("I can't stand highways.", "I'd rather take the highway for now, I'm in a hurry."),
    ("我讨厌走高速", "这次我就走高速吧，赶时间"),
    ("I can't stand loud music.", "Loud music is fine this time, it's a party."),
    ("I really dislike sitting outside.", "For now I'm happy to sit outside."),
])
def test_a_one_off_exception_does_not_replace_the_lasting_preference(tmp_path, clock, lasting, exception):
    ltm = memory_for(tmp_path, clock, ScriptedMemoryLLM(importance=5, contradicts=True))    # a judge that errs
    say(ltm, lasting, "s1", 1, domain="restaurant")
    asyncio.run(ltm.end_session(None, session_id="s1"))
    clock.advance(3)
    say(ltm, exception, "s2", 1, domain="restaurant")
    asyncio.run(ltm.end_session(None, session_id="s2"))       # the LLM's contradiction judge runs here
    kept = record(ltm, lasting)
    assert kept.current and not kept.superseded_by and not kept.notes


@pytest.mark.parametrize("text, kind", [
    ("the second one you mentioned sounds nice", None),       # a choice among offers: the task's
    ("haha that driver just cut me off", None),               # an aside
    ("let's say around six thirty", "event"),                 # a request
    ("带我去机场", "event"),
    ("我儿子晕车", "memory"),                                   # a need, as in English
    ("wow, I'm allergic to nuts", "memory"),
])
def test_asides_choices_and_requests_found_by_a_new_user(text, kind):
    kept = remember_as(text, "information_change")
    assert (kept.value if kept is not None else None) == kind
    if text == "我儿子晕车":
        assert read_statement(text).floor >= 8
