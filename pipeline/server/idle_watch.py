"""A room nobody speaks in is closed, so that a page left open does not hold a room forever."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from loguru import logger

from monologue.pipeline.server.room import Room


async def watch_idle(room: Room, idle_secs: float, end_room: Callable[[Room, str], Awaitable[None]]) -> None:
    """Until the room has been quiet for `idle_secs`; then `end_room` closes it."""
    while True:
        await asyncio.sleep(min(5.0, idle_secs / 4))
        quiet = time.monotonic() - max(room.tap.last_heard, room.started)
        busy = bool(room.mid_turn())
        # A turn stuck in a stage must not keep a room open forever: twice the limit closes it anyway.
        if quiet >= idle_secs * (2 if busy else 1):
            logger.info(f"{room.label}: no speech for {quiet:.0f} s (idle limit {idle_secs:.0f} s); "
                        "closing the room")
            await end_room(room, f"no speech for {quiet:.0f} s")
            return
