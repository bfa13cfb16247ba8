"""One place that turns the configured URLs into stores: the engines never name a backend.

    store.url:  sqlite:///path (or a plain path; the default is store.path) | postgresql://…
    state.url:  "" (session states beside the memories, in the same database) | redis://…

A process opens each server once: every session it serves shares the pool and the memory
store's cache (`SqlMemoryStore`), so a worker holds no state beyond caches.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from monologue.memory.stores.access import SqlAccessStore
from monologue.memory.stores.actions import SqlActionStore
from monologue.memory.stores.database import Database, is_postgres_url, open_database
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.protocols import StateStore
from monologue.memory.stores.state import SqlStateStore


@dataclass
class Stores:
    """Everything Monologue keeps, on the configured backends."""

    database: Database
    memories: SqlMemoryStore
    profiles: SqlProfileStore
    actions: SqlActionStore
    states: StateStore
    access: SqlAccessStore        # credentials and session owners (the servers' front door)


_OPEN: dict[tuple[str, str], Stores] = {}
_LOCK = threading.Lock()


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def is_server(url: str) -> bool:
    return is_postgres_url(url) or url.startswith(REDIS_SCHEMES)


def open_stores(store: str | Path | Database, state_url: str = "") -> Stores:
    """The stores on `store` (a path, `sqlite:///…`, `postgresql://…`, or an open database),
    with session states in Redis when `state_url` is a `redis://` URL. Server-backed stores
    are opened once per process and shared; a SQLite file is opened anew each call (tests
    open hundreds of files; a file's store is cheap to open)."""
    key = (str(store), state_url) if isinstance(store, str | Path) and (is_server(str(store)) or is_server(state_url)) \
        else None
    if key is not None and key in _OPEN:
        return _OPEN[key]
    database = open_database(store)
    states: StateStore
    if state_url.startswith(REDIS_SCHEMES):
        from monologue.memory.stores.redis_state import RedisStateStore

        states = RedisStateStore(state_url)
    elif state_url:
        states = SqlStateStore(open_database(state_url))
    else:
        states = SqlStateStore(database)
    stores = Stores(database, SqlMemoryStore(database), SqlProfileStore(database), SqlActionStore(database), states,
                    SqlAccessStore(database))
    if key is not None:
        with _LOCK:
            stores = _OPEN.setdefault(key, stores)
    return stores


def stores_of(states: StateStore) -> Stores | None:
    """The shared stores whose session states are `states` (where its actions are recorded)."""
    with _LOCK:
        return next((s for s in _OPEN.values() if s.states is states), None)
