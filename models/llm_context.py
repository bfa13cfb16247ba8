"""One llama.cpp context of the local LLM: what it keeps between calls, and what each call cost.

llama-cpp-python reuses the longest token prefix a prompt shares with the context's
previous call and computes only the rest. Two things throw that away, and each has its
answer here:

- Calls of another kind in between. A state update's JSON prompt shares nothing with a
  reply's, so one context serving both recomputes the whole reply prompt on the next
  turn. Each purpose (`Purpose`) gets a context of its own; the weights are mmapped, so
  the second context costs its KV cache and compute buffers, not a second copy of the
  model (measured: +116 MB PSS for the 0.5B model at n_ctx 2048, see models/llm.py).
- Another session in between. Rooms share the process, so session B's reply overwrites
  session A's prefix. After every completed call the context's sequence state is saved
  (llama-cpp-python's `LlamaRAMCache`, least recently used dropped first), and a call
  whose prompt shares more with a saved state than with the live context loads it first.

llama-cpp-python's own `Llama.save_state` also copies its logits buffer: 296 MB per saved
state for Qwen2.5's 152k vocabulary (n_batch rows), which its `LlamaRAMCache` does not
count against its capacity, and 100 ms per save, 120 ms per load. Only the sequence's KV
cells are needed (`llama_state_seq_get_data`): 12 KB a token, ~1 ms per save or load.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

Purpose = Literal["reply", "json"]
PURPOSES: tuple[Purpose, ...] = ("reply", "json")
_SEQ = 0   # llama-cpp-python puts every token in sequence 0
# A prompt is computed this many tokens at a time when its call may be stopped: a dropped
# draft's prompt (hundreds of tokens, most of a second) must not hold the llama thread
# the confirmed turn needs. Measured on 2 cores, a 355-token prompt (Qwen2.5 0.5B):
# 512 at once 2566 ms, chunks of 64 2486 ms, 32 2643 ms (+3%), 16 2976 ms; with 32 a
# stop lands within ~230 ms (one chunk) instead of after the whole prompt.
PREFILL_CHUNK = 32


class CallStopped(Exception):
    """The call's `cancel` was set while its prompt was being computed."""


@dataclass
class TokenUsage:
    """Tokens one call of a llama.cpp context cost; written by the llama thread as it runs.

    `prompt_tokens`: the prompt as the model saw it (chat template included).
    `cached_tokens`: of those, kept from an earlier call (the live context or a saved state).
    `generated_tokens`: tokens the model sampled, its end-of-generation token not counted
    (llama-cpp-python's own `completion_tokens`); a call stopped early counts what it sampled.
    """

    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    restored: bool = False      # the prefix came from a saved state, not the live context

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens this call computed."""
        return self.prompt_tokens - self.cached_tokens


@functools.cache
def _llama_class() -> type[Any]:
    """`llama_cpp.Llama` that counts what it evaluates and saves only the KV cells.

    Built on first use: llama_cpp is imported only once a local model is asked for."""
    import llama_cpp

    class CountingLlama(llama_cpp.Llama):
        usage: TokenUsage | None = None
        cancel: threading.Event | None = None
        _prompt_seen = False

        def begin(self, usage: TokenUsage, cancel: threading.Event | None = None) -> None:
            self.usage, self.cancel, self._prompt_seen = usage, cancel, False

        def eval(self, tokens: Sequence[int]) -> None:
            # `generate` first evaluates what the prompt does not share with the context
            # (n_tokens is the reused prefix then), then each sampled token in turn.
            usage = self.usage
            if usage is not None and not self._prompt_seen:
                self._prompt_seen = True
                usage.cached_tokens = self.n_tokens
                usage.prompt_tokens = self.n_tokens + len(tokens)
            cancel = self.cancel
            if cancel is None:
                super().eval(tokens)
                return
            # What is computed stays valid (n_tokens counts it): a later call reuses it.
            for start in range(0, len(tokens), PREFILL_CHUNK):
                if cancel.is_set():
                    raise CallStopped
                super().eval(tokens[start:start + PREFILL_CHUNK])

        def sample(self, *args: Any, **kwargs: Any) -> int:
            token = super().sample(*args, **kwargs)
            if self.usage is not None and not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
                self.usage.generated_tokens += 1
            return int(token)

        def save_state(self) -> llama_cpp.LlamaState:
            ctx = self._ctx.ctx
            size = llama_cpp.llama_state_seq_get_size(ctx, _SEQ)
            data = (ctypes.c_uint8 * size)()
            written = llama_cpp.llama_state_seq_get_data(ctx, data, size, _SEQ)
            if written != size:
                raise RuntimeError(f"llama.cpp saved {written} of {size} bytes of the sequence state")
            return llama_cpp.LlamaState(
                input_ids=self.input_ids[: self.n_tokens].copy(), scores=np.empty((0, 0), np.single),
                n_tokens=self.n_tokens, llama_state=bytes(data), llama_state_size=size, seed=self._seed)

        def load_state(self, state: llama_cpp.LlamaState) -> None:
            ctx = self._ctx.ctx
            self._ctx.kv_cache_seq_rm(-1, 0, -1)
            data = (ctypes.c_uint8 * state.llama_state_size).from_buffer_copy(state.llama_state)
            if llama_cpp.llama_state_seq_set_data(ctx, data, state.llama_state_size, _SEQ) != state.llama_state_size:
                self.n_tokens = 0
                raise RuntimeError("llama.cpp could not load a saved sequence state")
            self.input_ids[: state.n_tokens] = state.input_ids
            self.n_tokens = state.n_tokens
            self._requires_eval = True      # the logits are not saved: the next call decodes first
            self._seed = state.seed
            if self.usage is not None:
                self.usage.restored = True

    return CountingLlama


class LlamaContext:
    """One llama.cpp context for one purpose; its calls are serialised by its owner.

    `cache_mb`: room for saved sequence states (~12 KB a token for Qwen2.5 0.5B, so a
    1,000-token reply prompt takes 12 MB); 0 keeps only the live context.
    """

    def __init__(self, path: Path, purpose: Purpose, n_ctx: int = 2048, n_threads: int = 2,
                 cache_mb: int = 256) -> None:
        self.purpose = purpose
        self._llama = _llama_class()(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)
        if cache_mb > 0:
            from llama_cpp.llama_cache import LlamaRAMCache

            self._llama.set_cache(LlamaRAMCache(cache_mb << 20))

    def complete(self, messages: list[dict[str, Any]], params: dict[str, Any], usage: TokenUsage,
                 cancel: threading.Event | None = None) -> Iterator[str]:
        """Stream one chat completion's text; `usage` is filled as it runs.

        `cancel`, once set, stops the call within a token (or a prompt chunk): what it
        yielded so far is all it yields."""
        self._llama.begin(usage, cancel)
        try:
            with closing(self._llama.create_chat_completion(messages=messages, stream=True, **params)) as chunks:
                for chunk in chunks:
                    if cancel is not None and cancel.is_set():
                        break
                    text = chunk["choices"][0].get("delta", {}).get("content")
                    if text:
                        yield text
        except CallStopped:
            return
        finally:
            self._llama.usage, self._llama.cancel = None, None

    def forget(self) -> None:
        """Drop the saved sequence states and the live context's tokens: the next call computes
        its whole prompt. For benchmarks, whose replays of one recording would otherwise find
        an earlier replay's prompts, which no new conversation ever does."""
        cache = self._llama.cache
        if cache is not None:
            cache.cache_state.clear()
        self._llama.reset()

    @property
    def n_tokens(self) -> int:
        """Tokens the live context holds (what the next call can reuse without a saved state)."""
        return int(self._llama.n_tokens)

    @property
    def saved_states(self) -> tuple[int, int]:
        """How many sequence states are saved, and their bytes."""
        cache = self._llama.cache
        return (0, 0) if cache is None else (len(cache.cache_state), int(cache.cache_size))

    def close(self) -> None:
        self._llama.close()
