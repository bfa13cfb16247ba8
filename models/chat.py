"""Every LLM call goes through litellm: one model string picks the provider.

``local/<name>`` is the in-process llama.cpp model (models/llm.py); anything else
(``openai/gpt-4o-mini``, ``anthropic/...``, ``ollama/...``, ``openai/<alias>`` with
``api_base``) is litellm's own. On error or timeout the fallback model is tried
once; if both fail the caller gets `ChatError` and decides how to answer.

The options are the config's own `LLMOptions` (the ``llm`` section), not a copy of them:
one type, so a new LLM setting is added in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from loguru import logger

from monologue.configs import LLMOptions
from monologue.models.offline import enforce_offline

enforce_offline()


class ChatError(RuntimeError):
    """The LLM (and its fallback) failed; the message names the model and the cause."""


LOCAL_PREFIX = "local/"


@dataclass
class StreamStats:
    """What one LLM call did: which model answered, when its text came, what it cost in tokens.

    Times are `time.perf_counter()` readings. Token counts describe the call that answered
    (the fallback's, when it was used) and are None where the model does not report them (a
    provider without usage, a mocked reply):

    - `prompt_tokens`: the prompt as the model saw it, chat template included.
    - `cached_tokens`: of those, reused rather than computed. The local model: the prefix its
      context kept from an earlier call, live or saved (models/llm_context.py), exact. A
      provider: its prompt cache (``usage.prompt_tokens_details.cached_tokens``); None when it
      does not say.
    - `evaluated_tokens`: ``prompt_tokens - cached_tokens``, the prompt tokens this call
      computed; None when either is unknown.
    - `generated_tokens`: tokens the model wrote (``usage.completion_tokens``; the local
      model does not count its end-of-generation token). A stream closed early (a failed
      check, the user barging in) counts what was generated when it closed: the local model
      reports it; a provider's usage comes only at the end, so all four stay None.
    """

    model: str = ""
    first_token_at: float | None = None
    finished_at: float | None = None
    error: str = ""
    fell_back: bool = False
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    evaluated_tokens: int | None = None
    generated_tokens: int | None = None

    def count(self, prompt: int | None, cached: int | None, generated: int | None) -> None:
        """Set the token counts (`evaluated_tokens` follows from the first two)."""
        self.prompt_tokens, self.cached_tokens, self.generated_tokens = prompt, cached, generated
        self.evaluated_tokens = prompt - cached if prompt is not None and cached is not None else None

    def count_usage(self, usage: Any) -> None:
        """The counts from a litellm `Usage` (OpenAI's shape), as far as it reports them."""
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        self.count(_count(getattr(usage, "prompt_tokens", None)), _count(cached),
                   _count(getattr(usage, "completion_tokens", None)))

    def token_counts(self) -> dict[str, int] | None:
        """The counts known, by name (for a turn's trace); None when the model reported none."""
        counts = {"prompt_tokens": self.prompt_tokens, "cached_tokens": self.cached_tokens,
                  "evaluated_tokens": self.evaluated_tokens, "generated_tokens": self.generated_tokens}
        known = {name: value for name, value in counts.items() if value is not None}
        return known or None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_litellm: Any = None


def import_litellm() -> Any:
    """Import litellm once (it takes seconds); call early from a thread to hide it."""
    global _litellm
    if _litellm is None:
        import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        _litellm = litellm
    return _litellm


class ChatLLM:
    def __init__(self, options: LLMOptions, extra: Mapping[str, Any] | None = None) -> None:
        """`extra`: further keyword arguments for every litellm call (``api_key`` for a local
        server, say); kept out of `LLMOptions` because they are plumbing, not settings."""
        self.options = options
        self.extra = dict(extra or {})
        self._supports_tools: bool | None = None     # asked once (supports_tools)
        self._stream_usage: dict[str, bool] = {}     # per model: asked once (_reports_stream_usage)

    def prepare(self) -> None:
        """Import litellm and register the local provider; blocking, run off the loop."""
        import_litellm()
        if any(m and m.startswith("local/") for m in (self.options.model, self.options.fallback)):
            from monologue.models.llm import register_local_provider

            register_local_provider(self.options.n_ctx, self.options.n_threads, self.options.cache_mb)

    def warm_up(self, system_prompt: str | None = None) -> None:
        """Load the local model now, so the first turn does not pay for it; with the reply's
        `system_prompt`, compute that too, so every session's first reply reuses it."""
        self.prepare()
        if self.embedded:
            from monologue.models.llm import warm_up

            warm_up(self.options.model, self.options.n_ctx, self.options.n_threads, self.options.cache_mb,
                    system_prompt=system_prompt)
            self._warm_the_call_path()

    def _warm_the_call_path(self) -> None:
        """One streamed call through litellm, one token long, in the JSON context (the reply
        context keeps the system prompt just computed). litellm's first call sets itself up:
        ~230 ms on this CPU before the local model saw the prompt, then ~3 ms a call; without
        this the first reply of the process paid it, on the user's wait. Its own thread and
        event loop: the caller may be inside one."""
        async def once() -> None:
            litellm = import_litellm()
            response = await litellm.acompletion(
                model=self.options.model, messages=[{"role": "user", "content": "Hi"}], stream=True,
                max_tokens=1, local_purpose="json", local_call_id=uuid.uuid4().hex, **self.extra)
            async for _ in response:
                pass

        failed: list[BaseException] = []

        def run() -> None:
            try:
                asyncio.run(once())
            except Exception as exc:     # the first turn pays the setup instead
                failed.append(exc)

        worker = threading.Thread(target=run, name="llm-warm-up")
        worker.start()
        worker.join()
        if failed:
            logger.warning("warming up litellm's call path failed; the first reply will pay for it: {}", failed[0])

    def fresh_start(self, system_prompt: str | None = None) -> None:
        """The embedded model forgets every prompt it computed, then computes `system_prompt`
        again (`llm.warm_up`): the next call starts as a new conversation's first does. litellm
        stays set up, as it does between sessions of one process. For benchmarks that replay
        one recording many times."""
        if not self.embedded:
            return
        from monologue.models.llm import forget_prompts, warm_up

        forget_prompts(self.options.model)
        warm_up(self.options.model, self.options.n_ctx, self.options.n_threads, self.options.cache_mb,
                system_prompt=system_prompt)

    async def prefill(self, messages: list[dict[str, str]],
                      cancel: threading.Event | None = None) -> dict[str, int] | None:
        """Compute the start of the next reply's prompt now, on the embedded model (a provider
        caches prompts on its own side): the next call then evaluates only what follows it.
        `cancel`, once set, stops it within a prompt chunk (what it computed stays usable).
        Returns the tokens it evaluated, or None where there is nothing to do."""
        if not self.embedded:
            return None
        from monologue.models.llm import prefill

        usage = await prefill(self.options.model, messages, self.options.n_ctx, self.options.n_threads,
                              self.options.cache_mb, cancel=cancel)
        return {"prompt_tokens": usage.prompt_tokens, "evaluated_tokens": usage.evaluated_tokens}

    @property
    def embedded(self) -> bool:
        """Whether replies are worded by the embedded model, for real (not a mocked call)."""
        return not self.remote and self.options.mock_response is None

    @property
    def remote(self) -> bool:
        """Whether replies are worded off this device: the configured model is not the
        embedded one (a mocked provider counts as remote)."""
        return not self.options.model.startswith(LOCAL_PREFIX)

    def _local_call(self, model: str) -> str | None:
        """A call id for the local provider's token counts (models/llm.py `usage_of`); None otherwise."""
        if model.startswith(LOCAL_PREFIX) and self.options.mock_response is None:
            return uuid.uuid4().hex
        return None

    @staticmethod
    def _count_local(call_id: str | None, stats: StreamStats) -> None:
        if call_id is None:
            return
        from monologue.models.llm import usage_of

        usage = usage_of(call_id)
        if usage is not None and usage.prompt_tokens:
            stats.count(usage.prompt_tokens, usage.cached_tokens, usage.generated_tokens)

    def _reports_stream_usage(self, model: str) -> bool:
        """Whether to ask for usage in the stream (``stream_options``): litellm's table says
        which providers take it. Asked once per model."""
        if model not in self._stream_usage:
            try:
                params = import_litellm().get_supported_openai_params(model=model) or []
            except Exception:            # an unknown model string is not an error here
                params = []
            self._stream_usage[model] = "stream_options" in params and self.options.mock_response is None
        return self._stream_usage[model]

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        """Yield text deltas; on failure before any text, try the fallback model once."""
        models = [self.options.model]
        if self.options.fallback and self.options.fallback != self.options.model:
            models.append(self.options.fallback)
        errors: list[str] = []
        for index, model in enumerate(models):
            stats.model, stats.fell_back = model, index > 0
            stats.count(None, None, None)
            produced = False
            call_id = self._local_call(model)
            provider = self._stream_one(model, messages, stats, call_id)
            try:
                async for delta in provider:
                    if stats.first_token_at is None:
                        stats.first_token_at = time.perf_counter()
                    produced = True
                    yield delta
                stats.finished_at = time.perf_counter()
                return
            except Exception as exc:  # provider errors come in many types
                message = f"{model}: {type(exc).__name__}: {exc}"[:500]
                errors.append(message)
                if produced:  # half a reply was already spoken; do not start another
                    stats.error = message
                    stats.finished_at = time.perf_counter()
                    return
            finally:    # also when the caller closes the stream early: the provider's closes now, too
                await provider.aclose()
                self._count_local(call_id, stats)
        stats.error = " | ".join(errors)
        raise ChatError(f"LLM call failed ({stats.error}); check llm.model / llm.api_base in the config")

    async def _stream_one(self, model: str, messages: list[dict[str, str]], stats: StreamStats,
                          call_id: str | None) -> AsyncGenerator[str, None]:
        litellm = await asyncio.to_thread(import_litellm)
        kwargs: dict[str, Any] = dict(
            model=model, messages=messages, stream=True,
            temperature=self.options.temperature, max_tokens=self.options.max_tokens,
            timeout=self.options.timeout_secs, **self.extra,
        )
        if call_id is not None:
            kwargs.update(local_purpose="reply", local_call_id=call_id)
        elif await asyncio.to_thread(self._reports_stream_usage, model):
            kwargs["stream_options"] = {"include_usage": True}
        if self.options.api_base and model == self.options.model:
            kwargs["api_base"] = self.options.api_base
        if self.options.mock_response is not None:
            kwargs["mock_response"] = self.options.mock_response
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.timeout_secs

        def remaining() -> float:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"no complete reply within {self.options.timeout_secs:.0f} s")
            return left

        # The deadline covers each wait on the provider, never the caller's own work
        # between chunks, so a timeout always surfaces here as TimeoutError.
        response = await asyncio.wait_for(litellm.acompletion(**kwargs), remaining())
        iterator = response.__aiter__()
        try:
            while True:
                try:
                    chunk = await asyncio.wait_for(iterator.__anext__(), remaining())
                except StopAsyncIteration:
                    return
                usage = getattr(chunk, "usage", None)
                if usage is not None and call_id is None:    # a provider's: in the last chunk
                    stats.count_usage(usage)
                choices = getattr(chunk, "choices", None) or []
                delta = getattr(choices[0].delta, "content", None) if choices else None
                if delta:
                    yield delta
        finally:
            # A reply abandoned early (barge-in, a dropped draft) closes the provider's stream,
            # so a shared server (`monologue llm-server`) stops generating it for everyone.
            close = getattr(response, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()

    def supports_tools(self) -> bool:
        """Whether the configured model chooses functions (litellm's model table): the local
        model does not; a provider's usually does. A mocked model counts (tests). Asked once."""
        if self._supports_tools is None:
            if self.options.mock_response is not None and "mock_tool_calls" in self.extra:
                self._supports_tools = True
            else:
                try:
                    litellm = import_litellm()
                    self._supports_tools = bool(litellm.supports_function_calling(model=self.options.model))
                except Exception:        # an unknown model string is not an error here
                    self._supports_tools = False
        return self._supports_tools

    async def choose_tool(self, messages: list[dict[str, str]], tools: list[dict[str, Any]],
                          timeout_secs: float) -> tuple[str, dict[str, Any]] | None:
        """The function the model calls, with its arguments; None when it calls none.
        The main model only: the fallback is the local model, which has no function calling."""
        litellm = await asyncio.to_thread(import_litellm)
        kwargs: dict[str, Any] = dict(model=self.options.model, messages=messages, tools=tools,
                                      tool_choice="auto", temperature=0.0, max_tokens=120,
                                      timeout=timeout_secs, **self.extra)
        if self.options.api_base:
            kwargs["api_base"] = self.options.api_base
        if self.options.mock_response is not None:
            kwargs["mock_response"] = self.options.mock_response
        response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout_secs)
        calls = getattr(response.choices[0].message, "tool_calls", None) or []
        if not calls:
            return None
        function = calls[0].function
        try:
            arguments = json.loads(function.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ChatError(f"the model's function arguments are not JSON: {function.arguments!r}") from exc
        return str(function.name), arguments if isinstance(arguments, dict) else {}

    async def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any],
                            max_tokens: int = 256, stats: StreamStats | None = None) -> str:
        """One JSON answer, schema-constrained where the provider supports it.

        OpenAI-style `json_schema` first; providers that reject it (llama.cpp's server
        answers 422) get `json_object`. Tries the fallback model if the main one fails.
        The local model answers from its JSON context, so a reply's cached prompt stays.
        `stats`: filled with the answering model, the time it finished and its tokens
        (`first_token_at` stays None: the answer comes whole).
        """
        litellm = await asyncio.to_thread(import_litellm)
        formats = [{"type": "json_schema", "json_schema": {"name": "operations", "schema": schema}},
                   {"type": "json_object"}]
        models = [self.options.model] + ([self.options.fallback] if self.options.fallback
                                         and self.options.fallback != self.options.model else [])
        errors: list[str] = []
        for model in models:
            for fmt in formats:
                kwargs: dict[str, Any] = dict(model=model, messages=messages, temperature=0.0,
                                              max_tokens=max_tokens, response_format=fmt,
                                              timeout=self.options.timeout_secs, **self.extra)
                if self.options.api_base and model == self.options.model:
                    kwargs["api_base"] = self.options.api_base
                if model.startswith(LOCAL_PREFIX):
                    kwargs["local_purpose"] = "json"
                try:
                    response = await asyncio.wait_for(litellm.acompletion(**kwargs), self.options.timeout_secs)
                    if stats is not None:
                        stats.model, stats.fell_back = model, model != self.options.model
                        stats.finished_at = time.perf_counter()
                        stats.count_usage(getattr(response, "usage", None))
                    return str(response.choices[0].message.content or "")
                except Exception as exc:  # provider errors come in many types
                    errors.append(f"{model}: {type(exc).__name__}: {exc}"[:300])
                    if "json_schema" not in str(exc) and "422" not in str(exc) and "response_format" not in str(exc):
                        break   # not a format problem: the next format will not help
        raise ChatError("JSON call failed (" + " | ".join(errors) + ")")
