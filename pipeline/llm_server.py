"""`monologue llm-server`: the embedded LLM shared by many processes over OpenAI's HTTP API.

A `monologue serve` worker that runs the model in-process holds its own llama.cpp
contexts. The mmapped weights are shared between processes by the page cache; the KV
caches, compute buffers and saved prompt states are not (measured with the 0.5B model:
a process's PSS 183 MB without it, 646 MB with it, and up to 2 × `cache_mb` more as
states are saved), and each worker's llama threads contend for the same cores. Workers
pointed here instead (``llm.model: openai/<name>``, ``llm.api_base: http://HOST:PORT/v1``)
share one model, reached through litellm like any provider: measured over loopback, the
hop adds ≈ 10 ms to the time to first token and nothing measurable to tokens per second.

Why not llama-cpp-python's own server (``python -m llama_cpp.server``):

- its extras (sse-starlette, starlette-context) are not installed; FastAPI and uvicorn are;
- this server runs the project's own `LocalChatModel` (models/llm.py), so it keeps what
  the in-process provider keeps: a context per purpose (replies and JSON calls do not
  evict each other's prompt prefix) and a store of saved sequence states, one per
  conversation's prefix at ~12 KB a token, where llama_cpp.server's cache saves whole
  states (296 MB of logits each for Qwen2.5, see models/llm_context.py). With many
  sessions sharing one model, finding a session's prefix again is the whole game;
- OpenAI's ``json_schema`` response format is translated to llama.cpp's constrained
  decoding (llama_cpp.server answers it with 422, which costs a JSON call a second try).

One thread runs every llama.cpp call (models/model_threads.py), so requests are answered one
at a time, in arrival order; a client that closes its connection (a dropped draft, a
timeout) frees the thread within a token, as in-process. Licences: see models/llm.py (Qwen2.5 weights
Apache-2.0, llama-cpp-python MIT).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import Request  # at module level: FastAPI reads the endpoints' annotations by name
from loguru import logger

from monologue.models.llm import LLAMA_THREAD, PROVIDER, llama_params, spec_for, usage_dict
from monologue.models.llm_context import Purpose, TokenUsage
from monologue.models.model_threads import model_thread
from monologue.pipeline.sockets import bind

DEFAULT_MODEL = f"{PROVIDER}/qwen2.5-0.5b-instruct"
ROLES = ("system", "user", "assistant", "tool")
RESPONSE_FORMATS = ("text", "json_object", "json_schema")


class ChatModel(Protocol):
    """What the server needs of a model: `LocalChatModel.stream` (a fake in tests)."""

    def stream(self, messages: list[dict[str, Any]], params: dict[str, Any],
               cancel: threading.Event | None = None, purpose: Purpose = "reply",
               usage: TokenUsage | None = None) -> Iterator[str]: ...


class RequestRefused(Exception):
    """A request answered with an OpenAI-shaped error: `status`, and a message the caller can act on."""

    def __init__(self, status: int, message: str, param: str | None = None,
                 kind: str = "invalid_request_error", code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.kind, self.code = status, message, param, kind, code

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}}


@dataclass(frozen=True)
class ChatRequest:
    """A chat completion request, checked: what llama.cpp is asked, and how to answer."""

    messages: list[dict[str, Any]]
    params: dict[str, Any]          # llama.cpp's create_chat_completion arguments
    purpose: Purpose                # which context answers (a JSON call keeps the reply's prefix)
    stream: bool
    include_usage: bool             # stream_options.include_usage: a last chunk with the usage
    max_tokens: int | None


def parse_chat_request(body: Any) -> ChatRequest:
    """The request in `body` (OpenAI's shape), or `RequestRefused` (400) saying what is wrong."""
    if not isinstance(body, dict):
        raise RequestRefused(400, "the body must be a JSON object")
    messages = [_message(m, i) for i, m in enumerate(_required_list(body, "messages"))]
    if not messages:
        raise RequestRefused(400, "messages is empty; send at least one message", "messages")
    if body.get("tools"):
        raise RequestRefused(400, "this model has no function calling; send the request without tools", "tools")
    if body.get("n") not in (None, 1):
        raise RequestRefused(400, "n must be 1: this server writes one choice per request", "n")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    _check(max_tokens is None or (_is_int(max_tokens) and max_tokens > 0), "max_tokens", "a positive integer")
    for key, low, high in (("temperature", 0.0, 2.0), ("top_p", 0.0, 1.0)):
        value = body.get(key)
        _check(value is None or (_is_number(value) and low <= value <= high), key, f"a number from {low} to {high}")
    _check(body.get("seed") is None or _is_int(body["seed"]), "seed", "an integer")
    stop = body.get("stop")
    _check(stop is None or isinstance(stop, str) or (isinstance(stop, list) and all(isinstance(s, str) for s in stop)),
           "stop", "a string or a list of strings")
    fmt = body.get("response_format")
    _check(fmt is None or (isinstance(fmt, dict) and fmt.get("type") in RESPONSE_FORMATS), "response_format",
           "an object whose type is " + ", ".join(RESPONSE_FORMATS))
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        _check(isinstance((fmt.get("json_schema") or {}).get("schema"), dict), "response_format",
               "json_schema with a schema object ({\"json_schema\": {\"name\": ..., \"schema\": {...}}})")
    _check(isinstance(body.get("stream", False), bool), "stream", "true or false")
    stream_options = body.get("stream_options")
    _check(stream_options is None or isinstance(stream_options, dict), "stream_options", "an object")
    params = llama_params({**body, "max_tokens": max_tokens, "stop": stop})
    return ChatRequest(
        messages=messages, params=params,
        purpose="json" if "response_format" in params else "reply",
        stream=bool(body.get("stream")),
        include_usage=bool((stream_options or {}).get("include_usage")),
        max_tokens=max_tokens,
    )


def _required_list(body: dict[str, Any], key: str) -> list[Any]:
    value = body.get(key)
    if not isinstance(value, list):
        raise RequestRefused(400, f"{key} must be a list", key)
    return value


def _check(ok: bool, param: str, expected: str) -> None:
    if not ok:
        raise RequestRefused(400, f"{param} must be {expected}", param)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _message(message: Any, index: int) -> dict[str, Any]:
    """One message as llama.cpp's chat template takes it: a role and text content."""
    param = f"messages[{index}]"
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        raise RequestRefused(400, f"{param} must be an object with a role of " + ", ".join(ROLES), param)
    content = message.get("content")
    if isinstance(content, list):       # OpenAI's content parts: the text ones, in order
        if any(not isinstance(p, dict) or p.get("type") != "text" or not isinstance(p.get("text"), str)
               for p in content):
            raise RequestRefused(400, f"{param}: this model reads text only (content parts of type text)", param)
        content = "\n".join(p["text"] for p in content)
    elif content is None and message["role"] == "assistant":
        content = ""
    if not isinstance(content, str):
        raise RequestRefused(400, f"{param}.content must be a string", param)
    return {"role": message["role"], "content": content}


def _refusal_of(exc: Exception) -> RequestRefused:
    """An error llama.cpp raised, as the status a client should see."""
    if isinstance(exc, RequestRefused):
        return exc
    if isinstance(exc, ValueError):     # llama-cpp-python: a prompt past n_ctx, a schema it cannot compile
        return RequestRefused(400, str(exc))
    logger.exception("llm-server: the model failed")
    return RequestRefused(500, f"the model failed: {type(exc).__name__}: {exc}", kind="server_error")


def _finish_reason(request: ChatRequest, usage: TokenUsage) -> str:
    # The model's end-of-generation token is not counted; reaching max_tokens means it was cut.
    return "length" if request.max_tokens is not None and usage.generated_tokens >= request.max_tokens else "stop"


class _Answerer:
    """Turns checked requests into OpenAI responses, one llama.cpp call each."""

    def __init__(self, model: ChatModel, name: str) -> None:
        self.model, self.name = model, name
        self.in_flight = 0      # requests answering or waiting for the llama thread (for /health)

    def _envelope(self, call_id: str, created: int, kind: str) -> dict[str, Any]:
        return {"id": call_id, "object": kind, "created": created, "model": self.name}

    async def generate(self, request: ChatRequest, usage: TokenUsage) -> AsyncGenerator[str, None]:
        """The request's text as the llama thread writes it; closing this stops the generation.

        The discipline of the in-process provider (models/llm.py `astreaming`): the model
        runs on the one llama thread, its text crosses to the event loop through a queue."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        cancel = threading.Event()

        def produce() -> None:
            try:
                if not cancel.is_set():     # the client left while the request waited its turn
                    for text in self.model.stream(request.messages, request.params, cancel, request.purpose, usage):
                        loop.call_soon_threadsafe(queue.put_nowait, ("text", text))
                loop.call_soon_threadsafe(queue.put_nowait, ("done", None))
            except BaseException as exc:    # raised to the awaiting handler below
                loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

        self.in_flight += 1
        worker = loop.run_in_executor(model_thread(LLAMA_THREAD), produce)
        try:
            while True:
                kind, value = await queue.get()
                if kind == "text":
                    yield value
                elif kind == "error":
                    raise value
                else:
                    return
        finally:
            cancel.set()
            self.in_flight -= 1
            await asyncio.shield(worker)

    async def complete(self, request: ChatRequest, http: Request) -> dict[str, Any]:
        """A whole answer; generation stops if the client disconnects first."""
        usage = TokenUsage()
        collecting = asyncio.ensure_future(self._collect(request, usage))
        watching = asyncio.ensure_future(_until_disconnected(http))
        try:
            await asyncio.wait({collecting, watching}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watching.cancel()
            if not collecting.done():   # nobody waits for the answer: free the llama thread
                collecting.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await collecting
        if collecting.cancelled():
            raise RequestRefused(499, "the client closed the request")
        try:
            text = collecting.result()
        except Exception as exc:        # llama-cpp-python raises many kinds
            raise _refusal_of(exc) from exc
        return {**self._envelope(f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), "chat.completion"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": _finish_reason(request, usage), "logprobs": None}],
                "usage": usage_dict(usage)}

    async def _collect(self, request: ChatRequest, usage: TokenUsage) -> str:
        texts = self.generate(request, usage)
        try:
            return "".join([text async for text in texts])
        finally:
            await texts.aclose()

    async def start_stream(self, request: ChatRequest) -> AsyncIterator[str]:
        """Server-Sent Events in OpenAI's chunk shape, ending ``data: [DONE]``.

        The first text is awaited before this returns, so an error the model raises at once
        (a prompt past the context) is still an HTTP status, not an event in a 200 stream."""
        usage = TokenUsage()
        texts = self.generate(request, usage)
        try:
            first: str | None = await anext(texts)
        except StopAsyncIteration:
            first = None
        except Exception as exc:        # llama-cpp-python raises many kinds
            await texts.aclose()
            raise _refusal_of(exc) from exc
        return self._events(request, usage, texts, first)

    async def _events(self, request: ChatRequest, usage: TokenUsage, texts: AsyncGenerator[str, None],
                      first: str | None) -> AsyncIterator[str]:
        envelope = self._envelope(f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), "chat.completion.chunk")
        no_usage: dict[str, Any] = {"usage": None} if request.include_usage else {}

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
            return _event({**envelope, "choices": [choice], **no_usage})

        try:
            yield chunk({"role": "assistant", "content": first or ""})
            try:
                async for text in texts:
                    yield chunk({"content": text})
            except Exception as exc:    # mid-stream: the status is sent; say it as OpenAI does
                yield _event(_refusal_of(exc).body())
                return
            yield chunk({}, _finish_reason(request, usage))
            if request.include_usage:
                yield _event({**envelope, "choices": [], "usage": usage_dict(usage)})
            yield "data: [DONE]\n\n"
        finally:
            await texts.aclose()


def _event(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


async def _until_disconnected(http: Request) -> None:
    """Returns when the client goes away. The body is read by then, so the server's next
    message is `http.disconnect` (sent when the client leaves or the response is done):
    waiting for it answers at once, where polling `is_disconnected` answered up to 0.2 s late."""
    while (await http.receive())["type"] != "http.disconnect":
        continue


def make_llm_app(model: ChatModel, name: str, api_key: str | None = None) -> Any:
    """The FastAPI app serving `model` as `name`: chat completions, the model list, health.

    `api_key`: when set, every /v1 request must carry ``Authorization: Bearer <api_key>``."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, StreamingResponse

    app = FastAPI(title="Monologue LLM", docs_url=None, redoc_url=None, openapi_url=None)
    answerer = _Answerer(model, name)
    started = int(time.time())

    def refuse(exc: RequestRefused, http: Request) -> JSONResponse:
        logger.warning(f"llm-server: {http.method} {http.url.path} refused ({exc.status}): {exc.message}")
        return JSONResponse(exc.body(), status_code=exc.status)

    def authorised(http: Request) -> bool:
        if api_key is None:
            return True
        given = http.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(given.encode(), api_key.encode())

    unauthorised = RequestRefused(401, "wrong or missing API key: send Authorization: Bearer <the server's "
                                       "--api-key>", kind="invalid_request_error", code="invalid_api_key")

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "model": name, "requests_in_flight": answerer.in_flight}

    @app.get("/v1/models")
    async def models(http: Request) -> Any:
        if not authorised(http):
            return refuse(unauthorised, http)
        return {"object": "list", "data": [{"id": name, "object": "model", "created": started,
                                            "owned_by": "monologue"}]}

    @app.post("/v1/chat/completions")
    async def chat_completions(http: Request) -> Any:
        if not authorised(http):
            return refuse(unauthorised, http)
        try:
            try:
                body = await http.json()
            except ValueError:
                raise RequestRefused(400, "the body is not JSON; send a JSON object") from None
            request = parse_chat_request(body)
            if not request.stream:
                return await answerer.complete(request, http)
            events = await answerer.start_stream(request)
        except RequestRefused as exc:
            return refuse(exc, http)
        return StreamingResponse(events, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app


def worker_settings(name: str, api_base: str, keyed: bool) -> str:
    """The environment a `monologue serve` worker needs to use this server, as one line.

    litellm's OpenAI client refuses to start without a key, so one is always given (the
    server's own key is not printed: logs keep what is printed); the fallback is switched
    off so that a worker never loads its own copy of the model when the server is down."""
    return (f"MONOLOGUE__LLM__MODEL=openai/{name} MONOLOGUE__LLM__API_BASE={api_base} "
            f"MONOLOGUE__LLM__FALLBACK=none OPENAI_API_KEY={'<your --api-key>' if keyed else 'none'}")


def run_llm_server(host: str = "127.0.0.1", port: int = 8080, model: str = DEFAULT_MODEL, n_ctx: int = 2048,
                   n_threads: int = 2, cache_mb: int = 256, api_key: str | None = None) -> None:
    """Load the embedded `model` once and serve it on `host`:`port` until Ctrl-C.

    Raises `ModelUnavailable` (what to install) and `ConfigError` (an unknown model, a port
    that is taken) before it listens."""
    import uvicorn

    from monologue.configs import ConfigError
    from monologue.models.llm import get_local_model, gguf_path, warm_up

    try:
        name = spec_for(model).name
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    sock = bind(host, port)      # first: a taken port is said at once, not after the load
    try:
        started = time.perf_counter()
        gguf_path(model, progress=True)               # the first run joins the parts: say so
        warm_up(model, n_ctx, n_threads, cache_mb)    # both contexts now: the first request is not slower
        local = get_local_model(model, n_ctx, n_threads, cache_mb)
    except BaseException:
        sock.close()
        raise
    address = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    api_base = f"http://{'[' + address + ']' if ':' in address else address}:{sock.getsockname()[1]}/v1"
    print(f"llm-server: {name} loaded in {time.perf_counter() - started:.1f} s, listening on {api_base}"
          f"{' (all interfaces)' if address != host else ''}; workers use it with:\n"
          f"  {worker_settings(name, api_base, api_key is not None)}", flush=True)
    if api_key is None and host not in ("127.0.0.1", "localhost", "::1"):
        print("llm-server: no --api-key: anyone who reaches this port can use the model", flush=True)
    config = uvicorn.Config(make_llm_app(local, name, api_key), log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=5)
    uvicorn.Server(config).run(sockets=[sock])
