"""The first-audio budget (E3, issue 28): the user's silence after they stop speaking is held
to `reply.first_audio_budget_ms`. A model with no checked first clause by then is stopped and
the policy words the act; a plan that is itself late is preceded by a brief notice, said once.

Fake models sleep on the event loop; the assertions are about who worded what and what the
trace says, never about how fast this machine is."""

from __future__ import annotations

import asyncio
import time

from pipecat.tests.utils import SleepFrame, run_test

from monologue.dialogue.check import Failure
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.turn_classes import TurnClass
from monologue.processors.frames import (
    AgentTurnEndFrame,
    FirstWordsBudget,
    ReplyTextFrame,
    Transcription,
    Turn,
    UserTurnFrame,
)
from monologue.processors.reply import ReplyMemory, ReplyOptions, ReplyProcessor
from monologue.processors.reply_wording import FirstWordsClock, PromptOptions

from fakes import PlannerFollowingLLM


class SlowStartLLM(PlannerFollowingLLM):
    """Says what the note asks, but only after `first_token_secs` (a small model on a busy CPU)."""

    def __init__(self, first_token_secs: float) -> None:
        super().__init__(every=0)
        self.first_token_secs = first_token_secs
        self.started = 0
        self.yielded = 0

    async def stream(self, messages, stats):
        self.started += 1
        await asyncio.sleep(self.first_token_secs)
        async for word in super().stream(messages, stats):
            self.yielded += 1
            yield word


class CannedLLM(PlannerFollowingLLM):
    """Words of its own, recognisably not the template's, at once."""

    def __init__(self, text: str) -> None:
        super().__init__(every=0)
        self.text = text

    async def stream(self, messages, stats):
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        for word in self.text.split():
            yield word + " "
            await asyncio.sleep(0)
        stats.finished_at = time.perf_counter()


def _turn(turn_id: int, text: str, *, silence_secs: float = 0.2) -> Turn:
    """A turn the VAD closed after `silence_secs` of the user's silence, just now."""
    turn = Turn(turn_id=turn_id, start_pts=0.0, end_pts=1.0, end_wait_secs=silence_secs,
                detected_at=time.perf_counter())
    turn.asr = Transcription(text=text)
    turn.turn_class = TurnClass.CHIT_CHAT
    return turn


def _reply(llm, budget_ms: float, memory: WorkingMemory | None = None, language: str = "en",
           late_ms: float = 1500) -> ReplyProcessor:
    memory = memory or WorkingMemory("budget", options=WorkingMemoryOptions(llm_mode="never", language=language))
    return ReplyProcessor(llm, ConversationLog(), PromptOptions("You are Monologue."), memory=ReplyMemory(memory),
                          options=ReplyOptions(language=language, commit_when_played=False,
                                               first_audio_budget_ms=budget_ms, late_notice_after_ms=late_ms))


def _budget(turn: Turn) -> FirstWordsBudget:
    assert turn.reply.budget is not None, "no budget recorded"
    return turn.reply.budget


def _said(frames) -> list[str]:
    return [f.text for f in frames if isinstance(f, ReplyTextFrame)]


async def test_a_model_too_slow_for_the_budget_is_stopped_and_the_policy_words_the_act():
    llm = SlowStartLLM(first_token_secs=6.0)
    turn = _turn(1, "Hi! I'd like to book a table for four on Friday.")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    # Wide enough that a loaded machine's pipeline start-up leaves the model some of it.
    down, _ = await run_test(_reply(llm, budget_ms=1500), frames_to_send=[UserTurnFrame(turn=turn)])
    assert llm.started == 1 and llm.yielded == 0        # asked, then stopped before a word
    assert _said(down) and turn.reply.source == "template"
    assert turn.reply.budget is not None and _budget(turn).outcome == "policy"
    assert [f.kind for f in turn.reply.check] == [Failure.OVER_BUDGET]
    assert 0 < (_budget(turn).model_had_ms or 0) < 1500
    trace = turn.reply.trace()["budget"]
    assert trace["budget_ms"] == 1500 and trace["outcome"] == "policy"
    assert [f.turn for f in down if isinstance(f, AgentTurnEndFrame)] == [turn]


async def test_a_model_in_time_words_the_reply_and_is_not_cut_after_its_first_clause():
    """The deadline is on the first clause only: once it has left, the rest streams on."""
    words = "Lovely weather indeed, and I hope it stays sunny for the whole weekend."
    turn = _turn(1, "Lovely weather today.")
    down, _ = await run_test(_reply(CannedLLM(words), budget_ms=800), frames_to_send=[UserTurnFrame(turn=turn)])
    assert turn.reply.source == "model" and _budget(turn).outcome == "model"
    assert " ".join(_said(down)) == words
    assert not turn.reply.check


async def test_no_time_left_means_no_model_call_at_all():
    """The turn's end alone took the budget (a long hesitation judged unfinished): starting the
    model only to stop it would slow the voice on a two-core machine."""
    llm = SlowStartLLM(first_token_secs=0.0)
    turn = _turn(1, "Hmm, what would you suggest?", silence_secs=1.2)
    down, _ = await run_test(_reply(llm, budget_ms=800), frames_to_send=[UserTurnFrame(turn=turn)])
    assert llm.started == 0
    assert _said(down) and turn.reply.source == "template"
    assert _budget(turn).model_had_ms == 0 and _budget(turn).outcome == "policy"


async def test_without_a_voice_there_is_no_budget():
    llm = SlowStartLLM(first_token_secs=0.3)
    turn = _turn(1, "Lovely weather today.")
    down, _ = await run_test(_reply(llm, budget_ms=0), frames_to_send=[UserTurnFrame(turn=turn)])
    assert llm.yielded > 0 and turn.reply.source == "model"
    assert turn.reply.budget is None and "budget" not in turn.reply.trace()


async def test_policy_worded_acts_record_the_budget_as_not_asked():
    memory = WorkingMemory("budget", options=WorkingMemoryOptions(llm_mode="never"))
    reply = ReplyProcessor(SlowStartLLM(0.0), ConversationLog(), PromptOptions("You are Monologue."),
                           memory=ReplyMemory(memory),
                           options=ReplyOptions(wording="policy", first_audio_budget_ms=800))
    turn = _turn(1, "Lovely weather today.")
    await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    assert turn.reply.source == "policy" and _budget(turn).outcome == "not_asked"


class SlowReading:
    """A state update that takes `secs` (the LLM reading a turn the rules could not)."""

    def __init__(self, memory: WorkingMemory, secs: float) -> None:
        self.memory, self.secs = memory, secs

    async def __call__(self, turn: Turn):
        await asyncio.sleep(self.secs)
        return await self.memory.update(turn.text, turn=turn.turn_id, turn_class=TurnClass.INFORMATION_CHANGE)


async def test_a_late_plan_is_announced_once_briefly_then_the_reply_follows():
    memory = WorkingMemory("late", options=WorkingMemoryOptions(llm_mode="never"))
    reading = SlowReading(memory, secs=0.8)
    first, second = _turn(1, "A table for two, please."), _turn(2, "Make it Saturday.")
    for turn in (first, second):
        turn.turn_class = TurnClass.INFORMATION_CHANGE
    reply = _reply(SlowStartLLM(0.0), budget_ms=300, memory=memory, late_ms=500)

    async def slow_update(turn: Turn) -> None:
        turn.begin_state_update(reading(turn))

    await slow_update(first)
    down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=first), SleepFrame(sleep=1.5)])
    said = _said(down)
    assert said[0] == "One moment, I'm a little slow right now."
    assert len(said) > 1 and "moment" not in " ".join(said[1:])   # then the reply itself, on the new state
    assert _budget(first).late_notice == said[0]
    assert first.reply.text.startswith("One moment, I'm a little slow right now.")
    assert [c.value for c in memory.state.find("party_size")] == [2] and "how many" not in " ".join(said).lower()

    # Late again: shorter now, and still only once in the turn.
    second.detected_at = time.perf_counter()
    await slow_update(second)
    down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=second), SleepFrame(sleep=1.5)])
    said = _said(down)
    assert said[0] == "One moment." and said.count("One moment.") == 1
    assert _budget(second).trace()["late_notice"] == "One moment."


async def test_a_plan_just_over_the_budget_gets_no_notice():
    """A notice costs the user a sentence: only a wait well past the budget earns one."""
    memory = WorkingMemory("just-late", options=WorkingMemoryOptions(llm_mode="never"))
    turn = _turn(1, "A table for two, please.")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    turn.begin_state_update(SlowReading(memory, secs=0.5)(turn))
    down, _ = await run_test(_reply(SlowStartLLM(0.0), budget_ms=300, memory=memory, late_ms=1500),
                             frames_to_send=[UserTurnFrame(turn=turn), SleepFrame(sleep=0.3)])
    assert _said(down) and not any("moment" in text for text in _said(down))


async def test_a_plan_in_time_gets_no_notice():
    memory = WorkingMemory("on-time", options=WorkingMemoryOptions(llm_mode="never"))
    turn = _turn(1, "A table for two, please.")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    turn.begin_state_update(SlowReading(memory, secs=0.0)(turn))
    down, _ = await run_test(_reply(SlowStartLLM(0.0), budget_ms=800, memory=memory),
                             frames_to_send=[UserTurnFrame(turn=turn)])
    assert not any("moment" in text for text in _said(down))
    assert _budget(turn).late_notice == ""


async def test_the_late_notice_is_in_the_users_language():
    memory = WorkingMemory("late-zh", options=WorkingMemoryOptions(llm_mode="never", language="zh"))
    turn = _turn(1, "我们两个人。")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    turn.begin_state_update(SlowReading(memory, secs=0.6)(turn))
    down, _ = await run_test(_reply(SlowStartLLM(0.0), budget_ms=300, memory=memory, language="zh", late_ms=400),
                             frames_to_send=[UserTurnFrame(turn=turn), SleepFrame(sleep=1.0)])
    assert _said(down)[0] == "请稍等，我这会儿有点慢。"


def test_the_voice_keeps_back_its_own_measured_time():
    clock = FirstWordsClock(800)
    assert clock.voice_secs() == 0.2           # nothing measured yet: the bench's figure
    for secs in (0.1, 0.3, 0.12):
        turn = _turn(1, "x")
        clock.start(turn)
        turn.compute["tts_first_clause"] = secs
    assert clock.voice_secs() == 0.12
    turn = _turn(2, "x", silence_secs=0.3)
    budget = clock.start(turn)
    assert budget is not None and 300 < (budget.model_had_ms or 0) <= 800 - 300 - 120


class SlowToStopLLM(SlowStartLLM):
    """A local model deep in a prompt: once stopped, it takes a while to let go."""

    closed_at: float | None = None

    async def stream(self, messages, stats):
        try:
            async for word in super().stream(messages, stats):
                yield word
        finally:
            await asyncio.sleep(0.8)
            SlowToStopLLM.closed_at = time.perf_counter()


async def test_the_policys_words_do_not_wait_for_the_stopped_model_to_let_go():
    # A budget wide enough that a loaded machine's pipeline start-up cannot use it all up
    # (then the model would never be asked, and there would be nothing to let go of).
    SlowToStopLLM.closed_at = None
    llm = SlowToStopLLM(first_token_secs=10.0)
    turn = _turn(1, "A table for two on Friday, please.")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    down, _ = await run_test(_reply(llm, budget_ms=2000),
                             frames_to_send=[UserTurnFrame(turn=turn), SleepFrame(sleep=3.0)])
    assert llm.started == 1 and _said(down) and turn.reply.source == "template"
    assert SlowToStopLLM.closed_at is not None and turn.marks["llm_first_clause"] < SlowToStopLLM.closed_at
