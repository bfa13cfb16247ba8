"""Profiles, summaries, the agent's commitments and the append-only audit log, in SQLite.

The audit log cannot be rewritten: a trigger aborts any UPDATE of it (U6). Erasing a
user (U1) is the one exception, and it deletes rather than rewrites.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from monologue.memory.longterm.records import AuditEntry, ProfileFact, UserProfile
from monologue.memory.stores.sqlite import SQLiteDatabase, open_database

_APPEND_ONLY = ("CREATE TRIGGER IF NOT EXISTS audit_log_is_append_only BEFORE UPDATE ON audit_log "
                "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS profiles (user_id TEXT PRIMARY KEY, profile TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, at REAL NOT NULL,
    what TEXT NOT NULL, before TEXT, after TEXT, reason TEXT NOT NULL, session_id TEXT
);
CREATE TABLE IF NOT EXISTS summaries (
    user_id TEXT NOT NULL, level TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL,
    text TEXT NOT NULL, sessions TEXT NOT NULL, PRIMARY KEY (user_id, level, key)
);
CREATE TABLE IF NOT EXISTS commitments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
    at REAL NOT NULL, text TEXT NOT NULL, kept_at REAL
);
""" + _APPEND_ONLY

_INSERT_AUDIT = ("INSERT INTO audit_log (user_id, at, what, before, after, reason, session_id) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _audit_row(user_id: str, at: float | None, entry: AuditEntry) -> tuple[Any, ...]:
    return (user_id, time.time() if at is None else at, entry.what, _json(entry.before), _json(entry.after),
            entry.reason, entry.session_id)


class SQLiteProfileStore:
    """Profiles and their append-only audit log, in the same SQLite file as everything else."""

    def __init__(self, path: str | Path | SQLiteDatabase = ":memory:") -> None:
        self.db = open_database(path)
        self.db.create(_SCHEMA)

    def load(self, user_id: str) -> UserProfile:
        row = self.db.query_one("SELECT profile FROM profiles WHERE user_id = ?", (user_id,))
        if row is None:
            return UserProfile(user_id)
        data = json.loads(row[0])
        return UserProfile(user_id, {slot: ProfileFact(**fact) for slot, fact in data["facts"].items()},
                           data.get("last_session", {}), data.get("version", 0))

    def save(self, profile: UserProfile, audit: list[AuditEntry], at: float | None = None) -> None:
        data = {"facts": {slot: asdict(f) for slot, f in profile.facts.items()},
                "last_session": profile.last_session, "version": profile.version}
        with self.db.transaction() as tx:
            tx.execute("INSERT OR REPLACE INTO profiles (user_id, profile) VALUES (?, ?)",
                       (profile.user_id, json.dumps(data, ensure_ascii=False)))
            tx.executemany(_INSERT_AUDIT, [_audit_row(profile.user_id, at, AuditEntry(*e)) for e in audit])

    def audit(self, user_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT at, what, before, after, reason, session_id FROM audit_log "
                             "WHERE user_id = ? ORDER BY id", (user_id,))
        return [{"at": r[0], "what": r[1], "before": json.loads(r[2]) if r[2] else None,
                 "after": json.loads(r[3]) if r[3] else None, "reason": r[4], "session": r[5]} for r in rows]

    def append_audit(self, user_id: str, what: str, before: Any, after: Any, reason: str, session_id: str,
                     at: float | None = None) -> None:
        self.db.run(_INSERT_AUDIT, _audit_row(user_id, at, AuditEntry(what, before, after, reason, session_id)))

    def put_summary(self, user_id: str, level: str, key: str, text: str, sessions: list[str], at: float) -> None:
        self.db.run("INSERT OR REPLACE INTO summaries (user_id, level, key, at, text, sessions) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (user_id, level, key, at, text, json.dumps(sessions)))

    def summaries(self, user_id: str, level: str) -> list[dict[str, Any]]:
        """Summaries of one level, oldest first."""
        rows = self.db.query("SELECT key, at, text, sessions FROM summaries WHERE user_id = ? AND level = ? "
                             "ORDER BY at, key", (user_id, level))
        return [{"key": r[0], "at": r[1], "text": r[2], "sessions": json.loads(r[3])} for r in rows]

    def add_commitment(self, user_id: str, session_id: str, text: str, at: float) -> None:
        self.db.run("INSERT INTO commitments (user_id, session_id, at, text) VALUES (?, ?, ?, ?)",
                    (user_id, session_id, at, text))

    def open_commitments(self, user_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT id, session_id, at, text FROM commitments WHERE user_id = ? "
                             "AND kept_at IS NULL ORDER BY id", (user_id,))
        return [{"id": r[0], "session": r[1], "at": r[2], "text": r[3]} for r in rows]

    def keep_commitment(self, user_id: str, commitment_id: int, at: float) -> None:
        self.db.run("UPDATE commitments SET kept_at = ? WHERE user_id = ? AND id = ?", (at, user_id, commitment_id))

    def erase(self, user_id: str) -> None:
        """Forget the user entirely: the profile and, for erasure, its audit trail too."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM summaries WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM commitments WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM profiles WHERE user_id = ?", (user_id,))
            tx.execute("DROP TRIGGER IF EXISTS audit_log_is_append_only")
            tx.execute("DELETE FROM audit_log WHERE user_id = ?", (user_id,))
            tx.execute(_APPEND_ONLY)
