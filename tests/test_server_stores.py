"""The stores on real PostgreSQL and Redis servers (S2, W9, U1, U6).

The servers are the ones `.ci/run` started (MONOLOGUE_TEST_SERVICES_DIR), or started here in a
temporary directory by `services.py`; without the binaries the module skips, saying why.
Each test gets its own database (PostgreSQL) or database number and key prefix (Redis).
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from services import TestServices

from monologue.memory.longterm.records import MemoryRecord, MemorySource
from monologue.memory.stores import redis_state
from monologue.memory.stores.database import StoreUnavailable
from monologue.memory.stores.erasure import erase_user
from monologue.memory.stores.factory import Stores, open_stores
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.postgres import PostgresDatabase
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.stores.redis_state import RedisStateStore
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.working.state import Change, ChangeAction, SessionState


@pytest.fixture
def redis_url(servers: TestServices, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(redis_state, "PREFIX", f"t{uuid.uuid4().hex[:8]}")
    return servers.redis_url


def _record(user: str, text: str, at: float = 1.0) -> MemoryRecord:
    return MemoryRecord(id=uuid.uuid4().hex[:12], user_id=user, text=text, importance=5,
                        source=MemorySource.USER_STATED, created_at=at, last_accessed_at=at, expires_at=None)


def _state(session_id: str, version: int, note: str = "") -> SessionState:
    state = SessionState(session_id=session_id, version=version, updated_at=time.time())
    state.goal = note
    return state


def test_memories_written_by_one_worker_are_in_the_next_recall_of_another(pg_url: str) -> None:
    first, second = SqlMemoryStore(PostgresDatabase(pg_url)), SqlMemoryStore(PostgresDatabase(pg_url))
    first.put(_record("ann", "I am allergic to peanuts"), np.ones(4, dtype=np.float32))
    records, vectors = second.all("ann")
    assert [r.text for r in records] == ["I am allergic to peanuts"] and vectors.shape == (1, 4)
    assert second.all("ann")[0] is records            # unchanged: the cache itself, not a new read
    added = _record("ann", "I moved to Lyon")
    first.put(added, np.full(4, 2.0, dtype=np.float32))
    served = vectors
    records, vectors = second.all("ann")
    assert served.shape == (1, 4) and served[0].tolist() == [1.0] * 4      # what was served stays as it was
    assert [r.text for r in records] == ["I am allergic to peanuts", "I moved to Lyon"]
    assert vectors[1].tolist() == [2.0] * 4
    assert first.delete("ann", records[0].id)
    records, vectors = second.all("ann")
    assert [r.id for r in records] == [added.id] and vectors.shape == (1, 4)


def test_schema_migrations_run_once_when_workers_start_together(pg_url: str) -> None:
    errors: list[BaseException] = []

    def start() -> None:
        try:
            open_stores(PostgresDatabase(pg_url))
        except BaseException as exc:
            errors.append(exc)
    workers = [threading.Thread(target=start) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    versions = dict(PostgresDatabase(pg_url).query("SELECT component, version FROM schema_versions"))
    assert versions == {"memories": 2, "profiles": 2, "actions": 1, "states": 2, "access": 1}   # + journal, said


def test_the_audit_log_cannot_be_rewritten_on_postgresql(pg_url: str) -> None:
    profiles = SqlProfileStore(PostgresDatabase(pg_url))
    profiles.append_audit("ann", "memory:1", None, "likes tea", "new", "s1")
    db = profiles.db
    for statement in ("UPDATE audit_log SET reason = 'forged'", "DELETE FROM audit_log", "TRUNCATE audit_log"):
        with pytest.raises(Exception, match="append-only"):
            db.run(statement)
    assert [e["reason"] for e in profiles.audit("ann")] == ["new"]
    profiles.erase("ann")                          # the one way entries go: with their user
    assert [e["what"] for e in profiles.audit("ann")] == ["erased"]


def test_redis_state_compare_and_set_loses_no_update_under_four_writers(redis_url: str) -> None:
    store = RedisStateStore(redis_url)
    operations, writers = 2500, 4          # 10,000 increments in all
    conflicts = [0]

    def write(worker: int) -> None:
        mine = RedisStateStore(redis_url)
        for i in range(operations):
            while True:
                current = mine.load("s") or _state("s", 0, "0")
                new = _state("s", current.version + 1, str(int(current.goal or 0) + 1))
                try:
                    mine.commit(new, current.version, [Change(new.version, i, ChangeAction.GOAL, "goal", current.goal,
                                                              new.goal, f"worker {worker}")])
                    break
                except VersionConflict:
                    conflicts[0] += 1
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.load("s")
    assert final is not None and final.version == operations * writers and final.goal == str(operations * writers)
    assert len(store.history("s")) == operations * writers
    assert conflicts[0] > 0                 # they did race


def test_a_redis_commit_resent_after_a_lost_reply_is_applied_once(redis_url: str) -> None:
    """The commit reached Redis but its reply was lost (a socket timeout on a busy machine):
    the retry finds its own state stored and succeeds, instead of a conflict that would make
    the caller apply the same turn again (the four-writer race had counted 10,001 of 10,000)."""
    store = RedisStateStore(redis_url)
    sid = f"resent-{uuid.uuid4().hex[:8]}"
    store.commit(_state(sid, 1, "1"), 0, [Change(1, 1, ChangeAction.GOAL, "goal", None, "1", "first")])
    sent: list[tuple[list[str], list[object]]] = []
    commit = store._commit

    def lost_reply(*, keys: list[str], args: list[object]) -> object:
        sent.append((keys, args))
        result = commit(keys=keys, args=args)
        if len(sent) == 1:
            raise redis_state._redis().exceptions.TimeoutError("reply lost")
        return result

    store._commit = lost_reply
    store.commit(_state(sid, 2, "2"), 1, [Change(2, 2, ChangeAction.GOAL, "goal", "1", "2", "second")])
    assert len(sent) == 2                       # it was resent
    final = store.load(sid)
    assert final is not None and final.version == 2 and final.goal == "2"
    assert [c.after for c in store.history(sid)] == ["1", "2"]   # not "2" twice
    with pytest.raises(VersionConflict):        # a different commit at the old version still conflicts
        store.commit(_state(sid, 2, "other"), 1, [])


def test_a_restarted_redis_keeps_what_it_acknowledged(servers: TestServices, redis_url: str) -> None:
    store = RedisStateStore(redis_url, retry_secs=15)
    store.commit(_state("r", 1, "book a table"), 0, [])
    servers.restart("redis")
    loaded = store.load("r")                # the first call after the restart waits and retries
    assert loaded is not None and loaded.goal == "book a table"
    store.commit(_state("r", 2, "for four"), 1, [])


def test_a_frozen_server_fails_cleanly_then_recovers(servers: TestServices, redis_url: str) -> None:
    """A 5 s network loss: a call with a short budget fails with a message that says what to do;
    once the server answers again, the same store works."""
    store = RedisStateStore(redis_url, retry_secs=1)
    store.commit(_state("f", 1, "route home"), 0, [])
    servers.freeze("redis")
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="did not answer"):
            store.load("f")
        assert time.monotonic() - started < 30       # it fails with a message, it does not hang
    finally:
        time.sleep(max(0.0, 5 - (time.monotonic() - started)))
        servers.thaw("redis")
    loaded = store.load("f")
    assert loaded is not None and loaded.goal == "route home"


def test_a_restarted_postgresql_keeps_what_it_acknowledged(servers: TestServices, pg_url: str) -> None:
    db = PostgresDatabase(pg_url, retry_secs=20)
    memories = SqlMemoryStore(db)
    kept = _record("ann", "my daughter is called Mia")
    memories.put(kept, None)
    servers.restart("postgres")
    memories.put(_record("ann", "I take the train to work"), None)     # waits for the server, then writes
    assert {r.text for r in SqlMemoryStore(PostgresDatabase(pg_url)).all("ann")[0]} == {
        "my daughter is called Mia", "I take the train to work"}


def _relation_bytes(db: PostgresDatabase, data_dir: Path) -> bytes:
    db.run("CHECKPOINT")
    paths = [r[0] for r in db.query(
        "SELECT pg_relation_filepath(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't') AND pg_relation_filepath(c.oid) IS NOT NULL "
        "UNION SELECT pg_relation_filepath(c.reltoastrelid) FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.reltoastrelid <> 0")]
    out = b""
    for path in paths:
        for segment in sorted(data_dir.glob(path + "*")):
            out += segment.read_bytes()
    return out


def test_erase_leaves_no_text_or_vector_in_postgresql_redis_or_any_cache(servers: TestServices, pg_url: str,
                                                                         redis_url: str) -> None:
    marker = "ZEBRAQUOKKA-7731"
    vector = np.array([0.123456, -9.87654, 3.14159, 2.71828], dtype=np.float32)
    db = PostgresDatabase(pg_url, sealed=False)          # unsealed: the marker is plainly there before
    stores = Stores(db, SqlMemoryStore(db), SqlProfileStore(db), open_stores(db).actions,
                    RedisStateStore(redis_url, sealed=False), open_stores(db).access)
    other_worker = SqlMemoryStore(PostgresDatabase(pg_url, sealed=False))
    stores.memories.put(_record("zed", f"my locker code is {marker}"), vector)
    stores.profiles.record_session("zed", "sz", "")
    stores.profiles.append_audit("zed", "memory:x", None, marker, "new", "sz")
    stores.states.commit(_state("sz", 1, marker), 0, [])
    stores.states.add_said("sz", "user", f"remember {marker}", 1)
    assert marker in other_worker.all("zed")[0][0].text        # cached by the other worker
    data_dir = Path(db.query_one("SHOW data_directory")[0])   # type: ignore[index]
    assert marker.encode() in _relation_bytes(db, data_dir)

    erase_user(stores, "zed")

    found = _relation_bytes(db, data_dir)
    assert marker.encode() not in found and vector.tobytes() not in found
    other_worker.sweep()
    assert "zed" not in other_worker.cached_users()
    assert isinstance(stores.states, RedisStateStore)
    client = stores.states._client     # the server's keys, all of them
    assert not [k for k in client.scan_iter(f"{redis_state.PREFIX}:*")
                if marker.encode() in str(client.dump(k)).encode()]
    assert stores.states.load("sz") is None


def test_the_sqlite_default_leaves_no_trace_in_its_file_or_log(tmp_path: Path) -> None:
    marker = "OKAPIMARKER-2291"
    path = tmp_path / "m.db"
    db = SQLiteDatabase(path, sealed=False)
    stores = open_stores(db)
    stores.memories.put(_record("zed", f"the alarm code is {marker}"), None)
    stores.states.commit(_state("sz", 1, marker), 0, [])
    stores.states.add_said("sz", "user", f"the code is {marker}", 1)
    stores.profiles.record_session("zed", "sz", "")
    erase_user(stores, "zed")
    for file in tmp_path.iterdir():
        assert marker.encode() not in file.read_bytes(), file.name


def test_stores_are_chosen_by_url(pg_url: str, redis_url: str, tmp_path: Path) -> None:
    served = open_stores(pg_url, redis_url)
    assert served.database.dialect == "postgres" and isinstance(served.states, RedisStateStore)
    assert open_stores(pg_url, redis_url) is served            # one pool per process
    local = open_stores(f"sqlite:///{tmp_path}/x.db")
    assert local.database.dialect == "sqlite" and Path(local.database.path) == tmp_path / "x.db"
    assert os.path.exists(tmp_path / "x.db")


async def test_a_worker_is_ready_only_while_its_stores_answer(tmp_path: Path) -> None:
    from monologue.configs import MonologueConfig
    from monologue.pipeline.server.room_server import RoomServer
    from monologue.pipeline.server.rooms import ServeOptions

    store = str(tmp_path / "m.db")
    ok, detail = await RoomServer(MonologueConfig(), None, ServeOptions(store_path=store)).readiness()  # type: ignore[arg-type]
    assert ok and "stores_ms" in detail
    unreachable = MonologueConfig().with_overrides({"state": {"url": "redis://127.0.0.1:1/0"}})
    server = RoomServer(unreachable, None, ServeOptions(store_path=store, ready_wait_secs=1.0))  # type: ignore[arg-type]
    started = time.monotonic()
    ok, detail = await server.readiness()
    assert not ok and "did not answer" in detail["error"] and time.monotonic() - started < 15   # not a hang
