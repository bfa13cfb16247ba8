"""The whole-history baseline (`reply.mode: whole_history`): every message in the prompt, no
state, the same frames and commits as the monologue's reply stage."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from pipecat.tests.utils import SleepFrame, run_test

from monologue.configs import LLMOptions, load_config
from monologue.memory.working.conversation import ConversationLog
from monologue.models.chat import ChatLLM, StreamStats
from monologue.pipeline.builder import load_text_models, session_memory
from monologue.pipeline.text_chat import ChatOptions, chat_session
from monologue.processors.frames import (
    AgentTurnEndFrame,
    BargeInFrame,
    Heard,
    ReplyTextFrame,
    Transcription,
    Turn,
    UserTurnFrame,
)
from monologue.processors.reply import ReplyOptions
from monologue.processors.reply_whole_history import WholeHistoryReply, whole_history_prompt

from fakes import FakeChatLLM, steady


def _turn(turn_id: int, text: str) -> Turn:
    turn = Turn(turn_id=turn_id, start_pts=0.0, end_pts=1.0, end_wait_secs=0.5, detected_at=time.perf_counter())
    turn.asr = Transcription(text=text, confidence=0.9)
    return turn


class RecordingLLM(FakeChatLLM):
    """Says the same words every turn and keeps every prompt it was sent."""

    def __init__(self, words: str = "Sure, four people on Saturday. Anything else?") -> None:
        super().__init__("fake/recording")
        self.words = words
        self.prompts: list[list[dict[str, str]]] = []

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        self.prompts.append(messages)
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        for word in self.words.split(" "):
            yield word + " "
        stats.count(len(" ".join(m["content"] for m in messages).split()), 0, len(self.words.split()))
        stats.finished_at = time.perf_counter()


def test_the_prompt_holds_every_message_whole_and_in_order():
    log = ConversationLog()
    long_line = "We are celebrating, " + "and it matters a lot to us " * 20
    for i in range(1, 31):
        log.add("user", f"user says {i}" if i != 2 else long_line, i)
        log.add("assistant", f"agent says {i}", i)
    turn = _turn(31, "What time did I say again?")
    log.add("user", turn.text, 31)          # the monologue stage may have logged it already
    messages = whole_history_prompt("Help with bookings.", log, turn)
    assert messages[0] == {"role": "system", "content": "Help with bookings."}
    assert len(messages) == 1 + 60 + 1
    assert messages[1] == {"role": "user", "content": "user says 1"}
    assert messages[3]["content"] == long_line.strip()      # not clipped
    assert messages[-2] == {"role": "assistant", "content": "agent says 30"}
    assert messages[-1] == {"role": "user", "content": "What time did I say again?"}


async def test_clauses_stream_then_the_turn_ends_and_the_log_has_the_reply():
    chat = ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None,
                              mock_response="Sure. Four people at seven, noted!"))
    log = ConversationLog()
    log.add("user", "A table for four, please.", 1)
    log.add("assistant", "For when?", 1)
    turn = _turn(2, "At seven.")
    reply = WholeHistoryReply(chat, log, "Help with bookings.", options=ReplyOptions(min_clause_chars=4))
    down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    assert [f.text for f in down if isinstance(f, ReplyTextFrame)] == ["Sure.", "Four people at seven,", "noted!"]
    assert isinstance(down[-1], AgentTurnEndFrame)
    assert turn.reply.text == "Sure. Four people at seven, noted!" and turn.reply.source == "model"
    # No note, no state: the system prompt, what was said, the user's turn.
    assert [m["content"] for m in turn.reply.prompt] == ["Help with bookings.", "A table for four, please.",
                                                          "For when?", "At seven."]
    assert turn.reply.decision == {} and turn.reply.state_version is None
    assert {"llm_start", "llm_first_token", "llm_first_clause", "llm_done"} <= set(turn.marks)
    assert log.all()[-1].role == "assistant" and log.all()[-1].text == turn.reply.text


async def test_a_failing_model_says_it_could_not_answer():
    broken = ChatLLM(LLMOptions(model="openai/no-such-model", fallback=None, mock_response=None,
                                api_base="http://127.0.0.1:9/v1", timeout_secs=5))
    turn = _turn(1, "A table for four, please.")
    down, _ = await run_test(WholeHistoryReply(broken, ConversationLog(), "x"),
                             frames_to_send=[UserTurnFrame(turn=turn)])
    assert isinstance(down[-1], AgentTurnEndFrame) and len(down) > 1
    assert turn.reply.source == "fallback" and "no-such-model" in turn.reply.error
    assert turn.reply.check[-1].kind == "llm_error"


async def test_a_cut_stops_the_model_and_only_what_was_heard_is_committed():
    class Slow(RecordingLLM):
        streamed = 0

        async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
            stats.first_token_at = time.perf_counter()
            # Three words at once, then one per 10 s: the cut comes long before the fourth.
            for index, word in enumerate("Oh, it really has been lovely weather all week long.".split()):
                await asyncio.sleep(0.1 if index < 3 else 10.0)
                Slow.streamed += 1
                yield word + " "

    log = ConversationLog()
    reply = WholeHistoryReply(Slow(), log, "x", options=ReplyOptions(commit_when_played=True))
    turn = _turn(1, "Lovely weather this week, isn't it?")
    down, _ = await run_test(reply, frames_to_send=[
        UserTurnFrame(turn=turn), SleepFrame(sleep=0.45),
        BargeInFrame(turn=_turn(2, "Sorry, book a table."), interrupt=True), SleepFrame(sleep=0.3)])
    assert Slow.streamed <= 3
    assert [f.turn for f in down if isinstance(f, AgentTurnEndFrame)] == [turn]
    assert turn.reply.source == "cancelled"
    assert not log.all()                 # nothing until the playout says what was heard
    assert not turn.is_settled
    await turn.mark_heard(Heard(("Oh,",), ("it really has been",), cut=True))
    assert [u.text for u in log.all()] == ["Oh,"] and turn.is_settled


async def test_the_mode_builds_an_agent_without_state_that_reads_the_whole_conversation():
    config = load_config(overrides=steady(reply={"mode": "whole_history"}), environ={})
    llm = RecordingLLM()
    models = load_text_models(config, llm)
    assert session_memory(config, models) is None
    lines = ["Hi! I'd like to book a table for four people on Saturday.", "How's your day going?",
             "Sorry, how many people did I say?"]
    seen: list[object] = []
    result = await chat_session(lines, config, models, ChatOptions(on_turn=lambda _turn, memory: seen.append(memory)))
    assert seen == [None, None, None]
    assert [t.reply.source for t in result.turns] == ["model"] * 3
    last = llm.prompts[-1]
    assert "planner" not in last[0]["content"] and "books restaurant tables" in last[0]["content"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert [m["content"] for m in last if m["role"] == "user"] == lines
    assert result.turns[-1].reply.tokens is not None


def test_the_mode_is_checked():
    from monologue.configs import ConfigError

    assert load_config(environ={}).reply.mode == "monologue"
    with pytest.raises(ConfigError, match="mode"):
        load_config(overrides={"reply": {"mode": "everything"}}, environ={})


@pytest.mark.slow
async def test_a_spoken_session_is_answered_turn_after_turn(real_models, mock_config, tmp_path):
    """With a voice each reply is committed as the playout says it was heard, and the next turn
    reads it: no turn waits on a reply that is never settled."""
    from monologue.pipeline.replay import replay_path

    from fakes import DEMO

    config = mock_config.with_overrides({"reply": {"mode": "whole_history"}})
    result = await replay_path(DEMO, config, real_models, tmp_path)
    answered = [t for t in result.turns if t.text]
    assert len(answered) == 5 and not result.session_id         # no state was stored
    for index, turn in enumerate(answered):
        assert turn.reply.source == "model" and "first_audio" in turn.marks
        prompt = turn.reply.prompt
        assert [m["role"] for m in prompt[1:]] == ["user", "assistant"] * index + ["user"]
        assert all(m["content"] == "Sure, I can do that. Anything else?" for m in prompt if m["role"] == "assistant")
    assert turn.latencies_ms()["voice_to_voice"] > 0
