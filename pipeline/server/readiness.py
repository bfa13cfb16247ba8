"""Readiness: whether this worker's stores answer now. A load balancer asks `/api/ready` and
sends no one to a worker whose database or Redis is out of reach."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from monologue.configs import MonologueConfig
from monologue.memory.stores.redis_state import RedisStateStore
from monologue.pipeline.builder import stores


async def stores_ready(config: MonologueConfig, store_path: str | None,
                       wait_secs: float) -> tuple[bool, dict[str, Any]]:
    """(True, how long the stores took) when the database (and Redis, where states are kept
    there) answer within `wait_secs`; else (False, why not)."""
    def probe() -> dict[str, Any]:
        started = time.perf_counter()
        kept = stores(config, store_path)
        kept.database.query("SELECT 1")
        if isinstance(kept.states, RedisStateStore):
            kept.states.ping()
        return {"stores_ms": round((time.perf_counter() - started) * 1000, 1), "store": kept.database.path}
    try:
        async with asyncio.timeout(wait_secs):
            return True, await asyncio.to_thread(probe)
    except TimeoutError:
        return False, {"error": f"the stores did not answer within {wait_secs:.0f} s"}
    except Exception as exc:       # reported to the caller: readiness is where it shows
        return False, {"error": f"{type(exc).__name__}: {exc}"}
