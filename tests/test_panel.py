"""The room page's messages, without a browser (P4, P6): the state in the user's words, cuts told
as they happened, the agent's words told as heard, and user lines told once per turn."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from pipecat.frames.frames import (
    Frame,
    InterimTranscriptionFrame,
    OutputTransportMessageUrgentFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.tests.utils import SleepFrame, run_test

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.pipeline.panel import AgentVoice, PanelTap, StateUpdate
from monologue.pipeline.report.words import change_lines, cut_kind, memory_meaning
from monologue.pipeline.server.room import Room
from monologue.processors.frames import (
    AgentTurnEndFrame,
    BargeIn,
    Heard,
    ReplyAudioFrame,
    SpeechStartedFrame,
    Transcription,
    Turn,
    UserTurnFrame,
)
from monologue.processors.playout import Playout

SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _plain(texts: list[str]) -> None:
    """What a person reads: no key, no JSON, no raw status."""
    for text in texts:
        assert not SNAKE.search(text) and "{" not in text and "}" not in text and "=" not in text, text


def _memory(language: str) -> WorkingMemory:
    return WorkingMemory("panel", options=WorkingMemoryOptions(language=language, llm_mode="never"),
                         schema=load_schema("restaurant"))


async def test_the_state_reads_as_labels_words_and_sentences_in_english() -> None:
    memory = _memory("en")
    schema = memory.schema
    first = await memory.update("A table for four people at eight in the evening, no seafood.", turn=1,
                                asr_confidence=0.9)
    told = StateUpdate.of(1, first.state, first, schema=schema, language="en")
    rows = {row.label: (row.shown, row.status_words) for row in told.conditions}
    assert rows["party size"] == ("4", "noted") and rows["time"] == ("8 pm", "noted")
    assert rows["dietary"] == ("no seafood", "noted")
    changes = [change.text for change in told.changes]
    assert "party size set to 4, from “four people”" in changes
    assert any(c.startswith("time set to 8 pm, from “") for c in changes), changes
    assert not any("propose" in c or c.endswith("by rules") for c in changes)   # the read-back cleared: not news
    _plain([*changes, *(f"{r.label} {r.shown} {r.status_words}" for r in told.conditions)])
    # A correction says what it was; a value heard unsure is asked about, not written, and
    # the operation carrying it (a JSON object) never shows.
    second = await memory.update("Actually make it six people.", turn=2, asr_confidence=0.9)
    changes = [c.text for c in StateUpdate.of(2, second.state, second, schema=schema).changes]
    assert any(c.startswith("party size changed to 6 (was 4)") for c in changes), changes
    third = await memory.update("On Saturday at nine.", turn=3, asr_confidence=0.2)
    told = StateUpdate.of(3, third.state, third, schema=schema)
    assert any(op.op == "ask" and isinstance(op.value, dict) for op in told.operations)
    asks = [c for c in told.changes if c.kind == "ask"]
    assert asks and asks[0].text.endswith("not written yet: heard unsure, so it asks first") and asks[0].why
    _plain([c.text for c in told.changes])
    assert told.questions and "?" in told.questions[0]


async def test_the_state_reads_in_chinese_in_a_chinese_session() -> None:
    memory = _memory("zh")
    result = await memory.update("我们四个人，周六晚上八点。", turn=1, asr_confidence=0.9)
    told = StateUpdate.of(1, result.state, result, schema=memory.schema, language="zh")
    rows = {row.label: (row.shown, row.status_words) for row in told.conditions}
    assert rows["人数"] == ("4", "已记下") and rows["日期"] == ("周六", "已记下")
    assert rows["时间"] == ("晚上8点", "已记下")
    assert any(c.text.startswith("人数设为4，听到“") for c in told.changes), told.changes
    _plain([c.text for c in told.changes])


def test_change_lines_leave_out_the_agents_bookkeeping_and_say_what_was_refused() -> None:
    schema = load_schema("restaurant")
    lines = change_lines([{"op": "propose", "value": []}, {"op": "note_action", "value": "What time?"},
                          {"op": "offer", "value": [{"values": {"restaurant_name": "Sakura"}}]},
                          {"op": "withdraw", "key": "budget", "words": "forget the budget"}],
                         [{"operation": {"op": "set", "key": "party_size", "value": 9}, "reason": "not grounded"}],
                         {}, schema, "en")
    assert [(line.kind, line.text) for line in lines] == [
        ("withdraw", "budget dropped, from “forget the budget”"),
        ("refused", "not written: party size 9, as it was not in your words")]
    assert lines[1].why == "not grounded"


def test_a_memory_is_shown_by_what_it_means() -> None:
    schema = load_schema("restaurant")
    assert memory_meaning("at eight in the evening place.", schema, "en") == "at 8 pm"
    assert memory_meaning("Table for four on Saturday.", schema, "en") == "for 4 people on Saturday"
    assert memory_meaning("My wife loves jazz.", schema, "en") == "“My wife loves jazz”"
    assert memory_meaning("我们四个人", schema, "zh") == "4个人"


def _turn(number: int, text: str = "") -> Turn:
    turn = Turn(turn_id=number, start_pts=float(number), end_pts=number + 1.0, end_wait_secs=0.4,
                detected_at=time.perf_counter(), vad_engine="silero")
    turn.asr = Transcription(text=text)
    return turn


def test_a_cut_is_told_as_it_happened() -> None:
    spoke_over: dict[str, Any] = {"cut": True, "spoken": "Shall I look", "unspoken": "for a table?",
                                  "stop_ms": 120.0}
    went_on: dict[str, Any] = {"cut": True, "by_turn": 3}            # never began: cancelled while worded
    held = {"cut": True, "spoken": "", "unspoken": "What time?", "stop_ms": 0.0}   # made, never played
    last_syllable = {"cut": True, "spoken": "All set.", "unspoken": "", "stop_ms": 40.0}
    assert [cut_kind(b) for b in (spoke_over, went_on, held, last_syllable, {}, None)] == \
        ["spoke_over", "went_on", "went_on", "", "", ""]
    turn = _turn(2, "Nice weather.")
    turn.reply.text = "It is! Shall I look for a table?"
    turn.barge_in = BargeIn(cut=True, spoken="Shall I look", unspoken="for a table?", stop_ms=120.0)
    voice = AgentVoice.of(turn, Heard(("It is!", "Shall I look"), ("for a table?",), cut=True), final=True)
    assert (voice.said, voice.cut, voice.unsaid) == ("It is! Shall I look", "spoke_over", "for a table?")
    turn.barge_in = BargeIn(cut=True, by_turn=3)
    voice = AgentVoice.of(turn, Heard(), final=True)
    assert (voice.said, voice.cut, voice.unsaid) == ("", "went_on", "It is! Shall I look for a table?")
    assert turn.barge_in.unstarted


async def test_a_users_turn_is_told_once_when_it_stands_never_for_a_draft_they_went_on_from() -> None:
    """"No seafood." drafted, then "…one of us is allergic": one line, the whole turn's words."""
    tap = PanelTap()
    draft = _turn(1, "No seafood.")
    draft.start_draft()
    whole = _turn(1, "No seafood, one of us is allergic.")
    noise = _turn(2, "")
    asyncio.get_running_loop().call_later(0.1, draft.drop_draft)
    down, _ = await run_test(tap, frames_to_send=[
        SpeechStartedFrame(start_pts=0.5), InterimTranscriptionFrame(text="No seafood", user_id="", timestamp=""),
        UserTurnFrame(turn=draft), SleepFrame(sleep=0.3),
        InterimTranscriptionFrame(text="No seafood, one of us", user_id="", timestamp=""),
        UserTurnFrame(turn=whole), SpeechStartedFrame(start_pts=6.0), AgentTurnEndFrame(turn=noise),
        SleepFrame(sleep=0.2)])
    told = [f.message for f in down if isinstance(f, OutputTransportMessageUrgentFrame)]
    kinds = [m["type"] for m in told]
    assert kinds[0] == "user_speaking" and kinds.count("user_speaking") == 2, told
    assert [m["text"] for m in told if m["type"] == "user_partial"] == ["No seafood", "No seafood, one of us"]
    transcripts = [m for m in told if m["type"] == "user_transcript"]
    assert [(m["turn"], m["text"]) for m in transcripts] == [(1, "No seafood, one of us is allergic."), (2, "")]
    assert tap.heard == {1} and not tap.speaking


def test_a_room_ending_names_the_turn_in_flight_by_its_number(tmp_path: Path) -> None:
    room = Room("s1", "kim", tmp_path)
    room.tap.heard = {1, 2, 3, 4}
    room.answered = {1, 2, 3, 4}
    assert room.mid_turn() == ""                 # four turns, all answered: not "turn 5 of 4"
    room.answered = {1, 2, 3}
    assert room.mid_turn() == "while turn 4 was being answered"
    room.tap.speaking = True
    assert room.mid_turn() == "while the user was speaking"


async def test_the_playout_tells_each_word_as_it_is_heard() -> None:
    """Live: `on_voice` fires as the voice starts, once per word as its end plays, and at the end."""
    playout = Playout("live", lead_ms=60)
    told: list[tuple[float, int, bool]] = []

    async def push(frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        return None

    def task(coro: Any, name: str | None = None, *_: Any) -> asyncio.Task[Any]:
        return asyncio.ensure_future(coro)

    playout.push_frame = push            # type: ignore[method-assign]
    playout.create_task = task           # type: ignore[method-assign, assignment]

    @playout.event_handler("on_voice")
    async def voice(_playout: Playout, _turn: Turn, heard: Heard, final: bool) -> None:
        told.append((time.perf_counter(), len(" ".join(heard.clauses).split()), final))

    rate = 22050
    turn = _turn(1, "Book it.")
    # "One two three four": a word ends every 0.3 s.
    ends = tuple(int(rate * 0.3 * (i + 1)) for i in range(4))
    audio = np.full(int(rate * 1.2), 1000, dtype=np.int16).tobytes()
    started = time.perf_counter()
    await playout._arrive(ReplyAudioFrame(audio=audio, sample_rate=rate, num_channels=1, turn=turn,
                                          clause="One two three four", clause_index=0, word_ends=ends))
    await playout._ended(AgentTurnEndFrame(turn=turn))
    for _ in range(100):
        if told and told[-1][2]:
            break
        await asyncio.sleep(0.05)
    counts = [count for _, count, _ in told]
    assert counts == [0, 1, 2, 3, 4, 4] and told[-1][2] and not any(final for _, _, final in told[:-1])
    # Each word is told around when its end plays (give or take the lead and the word slack).
    for (at, count, _final) in told[1:5]:
        assert at - started >= 0.3 * count - 0.2, (count, at - started)
    if playout._releaser is not None:
        playout._releaser.cancel()


def test_the_memories_recalled_for_a_reply_are_told_by_their_meaning() -> None:
    from monologue.pipeline.panel import AgentReply
    from monologue.processors.frames import MemoryRecall

    turn = _turn(3, "Same as last time?")
    turn.memories = MemoryRecall(recalled=["at eight in the evening place."], detail={
        "recalled": ["at eight in the evening place."],
        "sources": [{"text": "at eight in the evening place.", "tier": "private", "scope": "personal"}]})
    reply = AgentReply.of(turn, schema=load_schema("restaurant"), language="en")
    assert reply.memory_items == [{"text": "at eight in the evening place.", "tier": "private", "scope": "personal",
                                   "meaning": "at 8 pm"}]
