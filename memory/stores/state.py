"""Where session state lives (W9): in process for tests, SQLite by default, PostgreSQL or Redis
(`redis_state.py`) for many workers.

Writes are compare-and-set on the state's version: a writer that read version v can
only commit v+1, so two writers on one session never lose an update — the loser
re-reads and re-applies its operations. A commit is durable before it returns. On a file,
states and their history are sealed (`sealing.py`): they hold what the user asked for.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from monologue.memory.stores.database import Database, Migrations, open_database
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.working.conversation import KEPT_UTTERANCES
from monologue.memory.working.state import Change, SessionState

_TABLES = [
    "CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL, "
    "state TEXT NOT NULL, updated_at {real} NOT NULL)",
    "CREATE TABLE IF NOT EXISTS state_history (id {serial}, session_id TEXT NOT NULL, version INTEGER NOT NULL, "
    "turn INTEGER NOT NULL, entry TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS state_history_session ON state_history(session_id, id)",
]
# Step 2: what each side said (sealed), so a worker picking a session up continues its conversation.
_SAID = [
    "CREATE TABLE IF NOT EXISTS session_said (id {serial}, session_id TEXT NOT NULL, turn INTEGER NOT NULL, "
    "role TEXT NOT NULL, said TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS session_said_session ON session_said(session_id, id)",
]
_SQLITE = {"real": "REAL", "serial": "INTEGER PRIMARY KEY AUTOINCREMENT"}
_POSTGRES = {"real": "DOUBLE PRECISION", "serial": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"}
MIGRATIONS: Migrations = {
    "sqlite": [[t.format(**_SQLITE) for t in _TABLES], [t.format(**_SQLITE) for t in _SAID]],
    "postgres": [[t.format(**_POSTGRES) for t in _TABLES], [t.format(**_POSTGRES) for t in _SAID]],
}


class InMemoryStateStore:
    """In-process store for tests and runs without a file; same semantics as SQLite."""

    def __init__(self) -> None:
        self._states: dict[str, str] = {}
        self._history: dict[str, list[Change]] = {}
        self._said: dict[str, list[tuple[str, str, int]]] = {}
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

    def add_said(self, session_id: str, role: str, text: str, turn: int) -> None:
        with self._lock:
            self._said.setdefault(session_id, []).append((role, text, turn))

    def said(self, session_id: str, limit: int) -> list[tuple[str, str, int]]:
        with self._lock:
            return list(self._said.get(session_id, [])[-limit:]) if limit > 0 else []

    def erase_sessions(self, session_ids: list[str]) -> int:
        with self._lock:
            self._history = {k: v for k, v in self._history.items() if k not in session_ids}
            self._said = {k: v for k, v in self._said.items() if k not in session_ids}
            before = len(self._states)
            self._states = {k: v for k, v in self._states.items() if k not in session_ids}
            return before - len(self._states)

    def sessions(self) -> list[tuple[str, int, float]]:
        with self._lock:
            rows = [json.loads(raw) for raw in self._states.values()]
        return [(r["session_id"], r["version"], r["updated_at"]) for r in rows]


class SqlStateStore:
    """Session states and their change history in SQLite or PostgreSQL; safe for several processes."""

    def __init__(self, path: str | Path | Database) -> None:
        self.db = open_database(path)
        self.db.migrate("states", MIGRATIONS)

    @property
    def path(self) -> Path:
        return Path(self.db.path)

    def load(self, session_id: str) -> SessionState | None:
        row = self.db.query_one("SELECT state FROM session_state WHERE session_id = ?", (session_id,))
        return SessionState.from_dict(json.loads(self.db.unseal(row[0], f"session_state/{session_id}") or "{}")) \
            if row else None

    def commit(self, state: SessionState, expected_version: int, changes: list[Change]) -> None:
        sealed = self.db.seal(state.to_json(), f"session_state/{state.session_id}")
        history = f"state_history/{state.session_id}"
        with self.db.transaction(immediate=True) as tx:
            if expected_version == 0:
                cursor = tx.execute(
                    "INSERT INTO session_state (session_id, version, state, updated_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (state.session_id, state.version, sealed, state.updated_at))
            else:
                cursor = tx.execute(
                    "UPDATE session_state SET version = ?, state = ?, updated_at = ? "
                    "WHERE session_id = ? AND version = ?",
                    (state.version, sealed, state.updated_at, state.session_id, expected_version))
            if cursor.rowcount != 1:
                raise VersionConflict(f"session {state.session_id} changed since version {expected_version}")
            tx.executemany(
                "INSERT INTO state_history (session_id, version, turn, entry) VALUES (?, ?, ?, ?)",
                [(state.session_id, c.version, c.turn, self.db.seal(json.dumps(asdict(c), ensure_ascii=False), history))
                 for c in changes])

    def history(self, session_id: str) -> list[Change]:
        rows = self.db.query("SELECT entry FROM state_history WHERE session_id = ? ORDER BY id", (session_id,))
        return [Change(**json.loads(self.db.unseal(r[0], f"state_history/{session_id}") or "{}")) for r in rows]

    def add_said(self, session_id: str, role: str, text: str, turn: int) -> None:
        """Keep the line, and only the session's last KEPT_UTTERANCES (the full record is its trace)."""
        with self.db.transaction() as tx:
            tx.execute("INSERT INTO session_said (session_id, turn, role, said) VALUES (?, ?, ?, ?)",
                       (session_id, turn, role, self.db.seal(text, f"session_said/{session_id}")))
            tx.execute("DELETE FROM session_said WHERE session_id = ? AND id <= (SELECT id FROM session_said "
                       "WHERE session_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
                       (session_id, session_id, KEPT_UTTERANCES))

    def said(self, session_id: str, limit: int) -> list[tuple[str, str, int]]:
        """The session's last `limit` utterances, oldest first: (role, text, turn)."""
        rows = self.db.query("SELECT role, said, turn FROM session_said WHERE session_id = ? ORDER BY id DESC LIMIT ?",
                             (session_id, limit))
        where = f"session_said/{session_id}"
        return [(str(role), self.db.unseal(said, where) or "", int(turn)) for role, said, turn in reversed(rows)]

    def erase_sessions(self, session_ids: list[str]) -> int:
        """Delete these sessions' states, histories and utterances (a user's erase); returns how many states."""
        with self.db.transaction() as tx:
            count = sum(tx.execute("DELETE FROM session_state WHERE session_id = ?", (s,)).rowcount
                        for s in session_ids)
            tx.executemany("DELETE FROM state_history WHERE session_id = ?", [(s,) for s in session_ids])
            tx.executemany("DELETE FROM session_said WHERE session_id = ?", [(s,) for s in session_ids])
        self.db.vacuum(("session_state", "state_history", "session_said"))
        return count

    def reseal(self, tx: Any) -> int:
        """Seal every state and change again with the database's current key (a key rotation)."""
        count = 0
        for session_id, state in tx.execute("SELECT session_id, state FROM session_state").fetchall():
            where = f"session_state/{session_id}"
            tx.execute("UPDATE session_state SET state = ? WHERE session_id = ?",
                       (self.db.reseal(state, where), session_id))
            count += 1
        for row_id, session_id, entry in tx.execute("SELECT id, session_id, entry FROM state_history").fetchall():
            where = f"state_history/{session_id}"
            tx.execute("UPDATE state_history SET entry = ? WHERE id = ?",
                       (self.db.reseal(entry, where), row_id))
            count += 1
        for row_id, session_id, said in tx.execute("SELECT id, session_id, said FROM session_said").fetchall():
            tx.execute("UPDATE session_said SET said = ? WHERE id = ?",
                       (self.db.reseal(said, f"session_said/{session_id}"), row_id))
            count += 1
        return count

    def sessions(self) -> list[tuple[str, int, float]]:
        return [(str(r[0]), int(r[1]), float(r[2])) for r in self.db.query(
            "SELECT session_id, version, updated_at FROM session_state ORDER BY updated_at DESC")]

    def close(self) -> None:
        self.db.close()
