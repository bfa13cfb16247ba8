"""Persistence (W9): versioned compare-and-set, concurrent writers, crashes between turns."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.stores.state import InMemoryStateStore, SqlStateStore
from monologue.memory.working.apply import apply_operations
from monologue.memory.working.engine import WorkingMemory
from monologue.memory.working.state import Operation, SessionState

SCHEMA = load_schema("restaurant")


@pytest.fixture(params=["sqlite", "memory"])
def store(request, tmp_path):
    return SqlStateStore(tmp_path / "state.db") if request.param == "sqlite" else InMemoryStateStore()


def test_commit_is_compare_and_set(store):
    first = apply_operations(SessionState("s"), [Operation("set", "party_size", "=", 4)], SCHEMA, turn=1)
    store.commit(first.state, 0, first.changes)
    assert store.load("s").version == 1
    stale = apply_operations(SessionState("s"), [Operation("set", "party_size", "=", 9)], SCHEMA, turn=1)
    with pytest.raises(VersionConflict):
        store.commit(stale.state, 0, stale.changes)
    assert store.load("s").constraints["party_size"].value == 4
    assert [c.action for c in store.history("s")] == ["added"]


def test_two_concurrent_writers_never_lose_an_update(tmp_path):
    """Two engines, two connections, one session: every write lands exactly once."""
    path = tmp_path / "state.db"

    def writer(prefix: str) -> None:
        memory = WorkingMemory("shared", SqlStateStore(path))

        async def run() -> None:
            for i in range(15):
                await memory._commit([Operation("set", f"{prefix}_{i}", "=", i)], turn=i + 1,
                                     asr_confidence=None, note="")

        asyncio.run(run())

    threads = [threading.Thread(target=writer, args=(p,)) for p in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = SqlStateStore(path).load("shared")
    assert state is not None
    keys = {c.key for c in state.constraints.values()}
    assert keys == {f"{p}_{i}" for p in "ab" for i in range(15)}
    assert state.version == 30


def test_acknowledged_state_survives_a_crash(tmp_path):
    """A process that acknowledged a turn and then dies leaves that turn in the store."""
    path = tmp_path / "state.db"
    script = f"""
import asyncio, os, sys
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.engine import WorkingMemory
memory = WorkingMemory("crash", SqlStateStore({str(path)!r}))
asyncio.run(memory.update("Book a table for four people at 7 pm, no spicy food.", turn=1))
print("acknowledged", flush=True)
os._exit(9)   # dies before any clean shutdown
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "acknowledged" in result.stdout and result.returncode == 9
    state = SqlStateStore(path).load("crash")
    assert state is not None
    assert state.constraints["party_size"].value == 4 and state.constraints["time"].value == "19:00"


def test_several_connections_opening_a_new_file_at_once(tmp_path):
    """Switching a new file to WAL from several connections at once is waited for, not an error
    (SQLite does not apply the busy timeout to it)."""
    for attempt in range(30):
        path = tmp_path / f"s{attempt}.db"
        errors: list[Exception] = []

        def open_store(path=path, errors=errors) -> None:
            try:
                SqlStateStore(path)
            except Exception as exc:   # what the old code raised: "database is locked"
                errors.append(exc)

        threads = [threading.Thread(target=open_store) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors


def test_what_was_said_is_kept_beside_the_state_last_lines_only(tmp_path):
    """A worker taking a session up reads its last lines; the store keeps no more than those."""
    from monologue.memory.working.conversation import KEPT_UTTERANCES

    for store in (SqlStateStore(tmp_path / "said.db"), InMemoryStateStore()):
        for turn in range(1, KEPT_UTTERANCES + 6):
            store.add_said("s1", "user", f"line {turn}", turn)
        store.add_said("s2", "assistant", "other session", 1)
        kept = store.said("s1", 1000)
        assert [t for _, _, t in kept][-1] == KEPT_UTTERANCES + 5 and kept[-1][1] == f"line {KEPT_UTTERANCES + 5}"
        last = KEPT_UTTERANCES + 5
        assert store.said("s1", 3) == [("user", f"line {t}", t) for t in range(last - 2, last + 1)]
        if isinstance(store, SqlStateStore):
            assert len(kept) == KEPT_UTTERANCES
            rows = store.db.query("SELECT COUNT(*) FROM session_said WHERE session_id = 's1'")
            assert rows[0][0] == KEPT_UTTERANCES
        store.erase_sessions(["s1"])
        assert store.said("s1", 10) == [] and store.said("s2", 10) == [("assistant", "other session", 1)]
