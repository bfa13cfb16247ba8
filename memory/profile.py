"""The user profile (seed 001, L8): lasting preferences carried from one session to the next.

At the end of a session, the working state's durable conditions (the schema marks them:
dietary, seating, route preference, …) update the profile; at the start of the next, the
profile seeds the new working state with them as "to confirm", so they are honoured
(options are filtered by them) and checked rather than silently assumed. Every change
to a profile appends an audit record that is never rewritten (U6).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memory.schema import DomainSchema
from memory.state import Condition, Operation, SessionState, describe_condition


SESSION_STATUSES = ("NOT_STARTED", "IN_PROGRESS", "WAITING_FOR_USER", "COMPLETED", "ARCHIVED")
ARCHIVE_AFTER_DAYS = 30.0


def session_status(state: SessionState | None, ended_at: float | None = None, now: float | None = None) -> str:
    """Where a task stands across sessions (seed 001): nothing said yet; being worked on;
    waiting for the user's answer; done (everything confirmed); or old enough to archive."""
    if state is None or not state.version:
        return "NOT_STARTED"
    now = time.time() if now is None else now
    if ended_at is not None and now - ended_at > ARCHIVE_AFTER_DAYS * 86400:
        return "ARCHIVED"
    if state.pending:
        return "WAITING_FOR_USER"
    live = list(state.constraints.values())
    if live and all(c.confirmed for c in live):
        return "COMPLETED"
    return "IN_PROGRESS"


@dataclass
class ProfileFact:
    key: str
    comparator: str
    value: Any
    words: str
    session_id: str
    updated_at: float


@dataclass
class UserProfile:
    user_id: str
    facts: dict[str, ProfileFact] = field(default_factory=dict)    # slot → fact
    last_session: dict[str, Any] = field(default_factory=dict)     # id, ended_at, goal, conditions
    version: int = 0


class ProfileStore:
    """Profiles and their append-only audit log, in the same SQLite file as everything else."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self._path = ":memory:" if str(path) == ":memory:" else str(Path(path).expanduser())
        if self._path != ":memory:":
            Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS profiles (user_id TEXT PRIMARY KEY, profile TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS audit_log (
                id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, at REAL NOT NULL,
                what TEXT NOT NULL, before TEXT, after TEXT, reason TEXT NOT NULL, session_id TEXT
            );
            CREATE TRIGGER IF NOT EXISTS audit_log_is_append_only BEFORE UPDATE ON audit_log
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
            CREATE TABLE IF NOT EXISTS summaries (
                user_id TEXT NOT NULL, level TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL,
                text TEXT NOT NULL, sessions TEXT NOT NULL, PRIMARY KEY (user_id, level, key)
            );
            CREATE TABLE IF NOT EXISTS commitments (
                id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
                at REAL NOT NULL, text TEXT NOT NULL, kept_at REAL
            );
            """
        )

    def load(self, user_id: str) -> UserProfile:
        with self._lock:
            row = self._db.execute("SELECT profile FROM profiles WHERE user_id = ?", (user_id,)).fetchone()
        if row is None:
            return UserProfile(user_id)
        data = json.loads(row[0])
        return UserProfile(user_id, {slot: ProfileFact(**fact) for slot, fact in data["facts"].items()},
                           data.get("last_session", {}), data.get("version", 0))

    def save(self, profile: UserProfile, audit: list[tuple[str, Any, Any, str, str]], at: float | None = None) -> None:
        data = {"facts": {slot: asdict(f) for slot, f in profile.facts.items()},
                "last_session": profile.last_session, "version": profile.version}
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute("INSERT OR REPLACE INTO profiles (user_id, profile) VALUES (?, ?)",
                                 (profile.user_id, json.dumps(data, ensure_ascii=False)))
                self._db.executemany(
                    "INSERT INTO audit_log (user_id, at, what, before, after, reason, session_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(profile.user_id, time.time() if at is None else at, what, None if b is None else json.dumps(b, ensure_ascii=False),
                      None if a is None else json.dumps(a, ensure_ascii=False), reason, session)
                     for what, b, a, reason, session in audit])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def audit(self, user_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT at, what, before, after, reason, session_id FROM audit_log "
                                    "WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()
        return [{"at": r[0], "what": r[1], "before": json.loads(r[2]) if r[2] else None,
                 "after": json.loads(r[3]) if r[3] else None, "reason": r[4], "session": r[5]} for r in rows]

    def append_audit(self, user_id: str, what: str, before: Any, after: Any, reason: str, session_id: str,
                     at: float | None = None) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO audit_log (user_id, at, what, before, after, reason, session_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (user_id, time.time() if at is None else at, what,
                 None if before is None else json.dumps(before, ensure_ascii=False),
                 None if after is None else json.dumps(after, ensure_ascii=False), reason, session_id))

    def put_summary(self, user_id: str, level: str, key: str, text: str, sessions: list[str], at: float) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO summaries (user_id, level, key, at, text, sessions) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (user_id, level, key, at, text, json.dumps(sessions)))

    def summaries(self, user_id: str, level: str) -> list[dict[str, Any]]:
        """Summaries of one level, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT key, at, text, sessions FROM summaries WHERE user_id = ? AND level = ? "
                                    "ORDER BY at, key", (user_id, level)).fetchall()
        return [{"key": r[0], "at": r[1], "text": r[2], "sessions": json.loads(r[3])} for r in rows]

    def add_commitment(self, user_id: str, session_id: str, text: str, at: float) -> None:
        with self._lock:
            self._db.execute("INSERT INTO commitments (user_id, session_id, at, text) VALUES (?, ?, ?, ?)",
                             (user_id, session_id, at, text))

    def open_commitments(self, user_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT id, session_id, at, text FROM commitments WHERE user_id = ? "
                                    "AND kept_at IS NULL ORDER BY id", (user_id,)).fetchall()
        return [{"id": r[0], "session": r[1], "at": r[2], "text": r[3]} for r in rows]

    def keep_commitment(self, user_id: str, commitment_id: int, at: float) -> None:
        with self._lock:
            self._db.execute("UPDATE commitments SET kept_at = ? WHERE user_id = ? AND id = ?",
                             (at, user_id, commitment_id))

    def erase(self, user_id: str) -> None:
        """Forget the user entirely: the profile and, for erasure, its audit trail too."""
        with self._lock:
            self._db.execute("DELETE FROM summaries WHERE user_id = ?", (user_id,))
            self._db.execute("DELETE FROM commitments WHERE user_id = ?", (user_id,))
            self._db.execute("DELETE FROM profiles WHERE user_id = ?", (user_id,))
            self._db.execute("DROP TRIGGER IF EXISTS audit_log_is_append_only")
            self._db.execute("DELETE FROM audit_log WHERE user_id = ?", (user_id,))
            self._db.execute("CREATE TRIGGER audit_log_is_append_only BEFORE UPDATE ON audit_log "
                             "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;")


def _fact_view(fact: ProfileFact | Condition) -> str:
    return f"{fact.key} {fact.comparator} {fact.value}"


def update_profile(profile: UserProfile, state: SessionState, schema: DomainSchema,
                   withdrawn_keys: set[str], now: float | None = None) -> list[tuple[str, Any, Any, str, str]]:
    """Fold a finished session into the profile; returns the audit entries it implies."""
    now = time.time() if now is None else now
    audit: list[tuple[str, Any, Any, str, str]] = []
    live = {slot: c for slot, c in state.constraints.items() if schema.key(c.key).durable and c.status == "active"}
    for slot, condition in live.items():
        old = profile.facts.get(slot)
        if old is not None and old.value == condition.value and old.comparator == condition.comparator:
            old.updated_at, old.session_id = now, state.session_id
            continue
        profile.facts[slot] = ProfileFact(condition.key, condition.comparator, condition.value, condition.words,
                                          state.session_id, now)
        audit.append((slot, None if old is None else _fact_view(old), _fact_view(condition),
                      "preference updated" if old else "new preference", state.session_id))
    for slot in [s for s, f in profile.facts.items() if f.key in withdrawn_keys and s not in live]:
        old = profile.facts.pop(slot)
        audit.append((slot, _fact_view(old), None, "the user withdrew it", state.session_id))
    profile.last_session = {
        "id": state.session_id, "ended_at": now, "goal": state.goal, "status": session_status(state, now, now),
        "conditions": [describe_condition(c, schema) for c in state.constraints.values()],
        "open": [p.question for p in state.pending],
    }
    profile.version += 1
    return audit


def seed_operations(profile: UserProfile) -> list[Operation]:
    """Operations that bring the profile's preferences into a new session's state."""
    return [Operation("set", f.key, f.comparator, f.value, f.words, reason="from the user's profile",
                      source="profile") for f in profile.facts.values()]


def opening_line(profile: UserProfile, schema: DomainSchema, language: str = "en", now: float | None = None) -> str:
    """Recall the last session and offer the next step (L10); a first session asks about
    key preferences instead (cold start, L16)."""
    last = profile.last_session
    prefs = [describe_condition(Condition(f.key, f.comparator, f.value, f.words, 0), schema, language)
             for f in profile.facts.values()]
    if not last:
        keys = [spec.label(language) for spec in schema.keys.values() if spec.durable][:2]
        if language == "zh":
            return "你好！第一次见面，先问一下：" + "、".join(keys) + "方面有什么偏好吗？" if keys else "你好！"
        return ("Hi! Before we start — any preferences I should know about, like " + " or ".join(keys) + "?"
                if keys else "Hi! How can I help?")
    status = last.get("status", "IN_PROGRESS")
    now = time.time() if now is None else now
    if status == "ARCHIVED" or (last.get("ended_at") and now - last["ended_at"] > ARCHIVE_AFTER_DAYS * 86400):
        last = {"goal": "", "conditions": []}   # too old to pick up: greet, keep the preferences
    where = last.get("goal") or "our last conversation"
    if language == "zh":
        line = f"欢迎回来！上次我们在{where}"
        line += f"（{'；'.join(last.get('conditions', [])[:3])}）" if last.get("conditions") else ""
        line += f"。我记得你的偏好：{'；'.join(prefs)}，还是这样吗？" if prefs else "。要接着来吗？"
        return line
    line = f"Welcome back! Last time: {where}"
    line += f" ({'; '.join(last.get('conditions', [])[:3])})" if last.get("conditions") else ""
    if status == "COMPLETED":
        line += ", all confirmed"
    if last.get("open"):
        line += f". Still open: {last['open'][0]}"
    line += f". I still have {'; '.join(prefs)} — is that still right?" if prefs else ". Shall we pick up from there?"
    return line
