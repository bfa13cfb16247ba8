"""Where session state lives: a small interface, SQLite by default (W9).

Writes are compare-and-set on the state's version: a writer that read version v can
only commit v+1, so two writers on one session never lose an update — the loser
re-reads and re-applies its operations. A commit is durable before it returns.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Protocol

from memory.state import Change, SessionState


class VersionConflict(RuntimeError):
    """Someone else committed this session since it was read."""


class StateStore(Protocol):
    def load(self, session_id: str) -> SessionState | None: ...
    def commit(self, state: SessionState, expected_version: int, changes: list[Change]) -> None: ...
    def history(self, session_id: str) -> list[Change]: ...
    def sessions(self) -> list[tuple[str, int, float]]: ...


class MemoryStateStore:
    """In-process store for tests and `--no-store` runs; same semantics as SQLite."""

    def __init__(self) -> None:
        self._states: dict[str, str] = {}
        self._history: dict[str, list[Change]] = {}
        self._lock = threading.Lock()

    def load(self, session_id: str) -> SessionState | None:
        with self._lock:
            raw = self._states.get(session_id)
        return SessionState.from_dict(json.loads(raw)) if raw else None

    def commit(self, state: SessionState, expected_version: int, changes: list[Change]) -> None:
        with self._lock:
            raw = self._states.get(state.session_id)
            current = json.loads(raw)["version"] if raw else 0
            if current != expected_version:
                raise VersionConflict(f"session {state.session_id} is at version {current}, not {expected_version}")
            self._states[state.session_id] = state.to_json()
            self._history.setdefault(state.session_id, []).extend(changes)

    def history(self, session_id: str) -> list[Change]:
        with self._lock:
            return list(self._history.get(session_id, []))

    def sessions(self) -> list[tuple[str, int, float]]:
        with self._lock:
            rows = [json.loads(raw) for raw in self._states.values()]
        return [(r["session_id"], r["version"], r["updated_at"]) for r in rows]


class SQLiteStateStore:
    """One SQLite file; safe for several processes (WAL, busy timeout)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._connect() as db:
            db.executescript(
                """
                CREATE TABLE IF NOT EXISTS session_state (
                    session_id TEXT PRIMARY KEY,
                    version INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE IF NOT EXISTS state_history (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    session_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    turn INTEGER NOT NULL,
                    entry TEXT NOT NULL
                );
                CREATE INDEX IF NOT EXISTS state_history_session ON state_history(session_id, id);
                """
            )

    def _connect(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            self._local.db = db
        return db

    def load(self, session_id: str) -> SessionState | None:
        row = self._connect().execute(
            "SELECT state FROM session_state WHERE session_id = ?", (session_id,)).fetchone()
        return SessionState.from_dict(json.loads(row[0])) if row else None

    def commit(self, state: SessionState, expected_version: int, changes: list[Change]) -> None:
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            if expected_version == 0:
                cursor = db.execute(
                    "INSERT OR IGNORE INTO session_state (session_id, version, state, updated_at) VALUES (?, ?, ?, ?)",
                    (state.session_id, state.version, state.to_json(), state.updated_at))
            else:
                cursor = db.execute(
                    "UPDATE session_state SET version = ?, state = ?, updated_at = ? "
                    "WHERE session_id = ? AND version = ?",
                    (state.version, state.to_json(), state.updated_at, state.session_id, expected_version))
            if cursor.rowcount != 1:
                raise VersionConflict(f"session {state.session_id} changed since version {expected_version}")
            db.executemany(
                "INSERT INTO state_history (session_id, version, turn, entry) VALUES (?, ?, ?, ?)",
                [(state.session_id, c.version, c.turn, json.dumps(asdict(c), ensure_ascii=False)) for c in changes])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def history(self, session_id: str) -> list[Change]:
        rows = self._connect().execute(
            "SELECT entry FROM state_history WHERE session_id = ? ORDER BY id", (session_id,)).fetchall()
        return [Change(**json.loads(r[0])) for r in rows]

    def sessions(self) -> list[tuple[str, int, float]]:
        return [tuple(r) for r in self._connect().execute(
            "SELECT session_id, version, updated_at FROM session_state ORDER BY updated_at DESC").fetchall()]

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
