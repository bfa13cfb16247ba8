"""Who owns a session, and taking up one that went on elsewhere.

A session belongs to whoever opened it, on every worker and after restarts: the owner is
kept in the shared store. A worker whose text room is behind (another worker answered the
session since) ends that room, so that a new one takes the session up from the stores whole.
"""

from __future__ import annotations

import asyncio

from loguru import logger

from monologue.configs import MonologueConfig
from monologue.memory.stores.access import SqlAccessStore
from monologue.pipeline.builder import stores
from monologue.pipeline.front_door import RequestError
from monologue.pipeline.server.room import Room


class SessionClaims:
    """Session owners and credentials in the shared store, as one worker sees them."""

    def __init__(self, config: MonologueConfig, store_path: str | None) -> None:
        self._config = config
        self._store_path = store_path
        self._access: SqlAccessStore | None = None

    @property
    def access(self) -> SqlAccessStore:
        """Credentials and session owners, in the shared store (every worker sees the same)."""
        if self._access is None:
            self._access = stores(self._config, self._store_path).access
        return self._access

    async def claim(self, session_id: str, name: str, *, continuing: bool) -> None:
        """Make `session_id` `name`'s, or refuse: a session belongs to whoever opened it, on
        every worker and after restarts (the owner is kept in the shared store)."""
        def claim() -> str:
            if continuing and self.access.owner(session_id) is None:
                # A session from before owners were kept: its long-term memory says whose it was.
                earlier = self.users_of(session_id)
                if earlier:
                    self.access.claim(session_id, earlier[0])
            return self.access.claim(session_id, name)
        try:
            owner = await asyncio.to_thread(claim)
        except Exception as exc:       # the store out of reach: nobody can be shown to own it
            logger.warning(f"session {session_id}: its owner could not be checked ({exc})")
            raise RequestError(503, "the session store is out of reach; try again shortly") from None
        if owner != name:
            raise RequestError(403, f"session {session_id} is another user's")

    def users_of(self, session_id: str) -> list[str]:
        """Who the session belongs to, as long-term memory recorded it (first the one who began it)."""
        try:
            return stores(self._config, self._store_path).profiles.users_of(session_id)
        except Exception as exc:          # unknown then: the turn goes on under the name it gives
            logger.warning(f"session {session_id}: its user could not be looked up ({exc})")
            return []


def taken_elsewhere(room: Room) -> bool:
    """Whether the stores hold a later turn of this text room's session than the room last fed."""
    assert room.typed is not None
    memory = room.tap.memory           # the session's working memory, once it started
    if memory is None:
        return False
    try:
        said = memory.store.said(room.session_id, 1)
    except Exception as exc:          # the store is out of reach: go on with the room as it is
        logger.warning(f"{room.label}: could not check whether the session went on elsewhere ({exc})")
        return False
    return bool(said) and said[-1][2] > room.typed.last_turn
