"""One long-lived worker thread per model runtime.

llama.cpp and CTranslate2 run their math on OpenMP thread teams, one team per
calling thread. Calls from many pool threads create many teams whose idle threads
spin and steal the 2 cores from the team doing work (measured here: a 0.5B reply
took 0.65 s instead of 0.40 s). Calling each runtime from one thread keeps one team.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_threads: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def model_thread(name: str) -> ThreadPoolExecutor:
    with _lock:
        if name not in _threads:
            _threads[name] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"model-{name}")
        return _threads[name]


def on_model_thread(name: str) -> bool:
    return threading.current_thread().name.startswith(f"model-{name}")


def call_on(name: str, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn` on the model's thread and wait (runs inline when already there)."""
    if on_model_thread(name):
        return fn(*args)
    return model_thread(name).submit(fn, *args).result()


async def run_on(name: str, fn: Callable[..., T], *args: Any) -> T:
    """Await `fn` on the model's thread without blocking the event loop."""
    return await asyncio.get_running_loop().run_in_executor(model_thread(name), fn, *args)
