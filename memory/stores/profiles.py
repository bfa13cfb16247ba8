"""Profiles, summaries, the agent's commitments and the append-only audit log, in SQLite or
PostgreSQL.

The audit log cannot be rewritten: triggers abort any UPDATE or DELETE of it (U6), but for
an erase's and a key rotation's own statements (`_rewriting_audit`). Erasing a
user (U1) deletes their entries and appends a tombstone that holds no content, so the log
still proves that an erase happened; re-sealing under a new key (`reseal`) rewrites the
ciphertext of the values, never what they say. On a file, profiles, summaries, commitments
and the audit log's before/after values are sealed (`sealing.py`), and so is an entry's `what`
unless it is an id (`memory:<id>`) or the tombstone: a profile slot names what the user said
("dietary:nuts" is a health fact), and a list of sensitive kinds would miss the next slot a
domain adds.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from monologue.memory.longterm.records import AuditEntry, ProfileFact, UserProfile
from monologue.memory.stores.database import Database, Migrations, Transaction, open_database
from monologue.memory.stores.sealing import SealedDataError, StoreKeyError

_APPEND_ONLY_SQLITE = [
    "CREATE TRIGGER IF NOT EXISTS audit_log_is_append_only BEFORE UPDATE ON audit_log "
    "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS audit_log_keeps_entries BEFORE DELETE ON audit_log "
    "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries go only with their user (an erase)'); END",
]
# PostgreSQL: one trigger function refuses UPDATE, DELETE and TRUNCATE, unless the transaction
# says it is an erase or a key rotation (`_rewriting_audit`), which only this store's code does.
_APPEND_ONLY_POSTGRES = [
    "CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "IF current_setting('monologue.audit_rewrite', true) = 'on' THEN "
    "RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END IF; "
    "RAISE EXCEPTION 'the audit log is append-only (%)', TG_OP; END $$",
    "CREATE TRIGGER audit_log_is_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW "
    "EXECUTE FUNCTION audit_log_is_append_only()",
    "CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT "
    "EXECUTE FUNCTION audit_log_is_append_only()",
]
_TABLES = [
    "CREATE TABLE IF NOT EXISTS profiles (user_id TEXT PRIMARY KEY, profile TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS audit_log (id {serial}, user_id TEXT NOT NULL, at {real} NOT NULL, "
    "what TEXT NOT NULL, before TEXT, after TEXT, reason TEXT NOT NULL, session_id TEXT)",
    "CREATE INDEX IF NOT EXISTS audit_log_user ON audit_log (user_id, id)",
    "CREATE TABLE IF NOT EXISTS summaries (user_id TEXT NOT NULL, level TEXT NOT NULL, key TEXT NOT NULL, "
    "at {real} NOT NULL, text TEXT NOT NULL, sessions TEXT NOT NULL, PRIMARY KEY (user_id, level, key))",
    "CREATE TABLE IF NOT EXISTS user_sessions (user_id TEXT NOT NULL, session_id TEXT NOT NULL, "
    "folder TEXT NOT NULL, at {real} NOT NULL, PRIMARY KEY (user_id, session_id))",
    "CREATE INDEX IF NOT EXISTS user_sessions_folder ON user_sessions (folder, at)",
    "CREATE TABLE IF NOT EXISTS commitments (id {serial}, user_id TEXT NOT NULL, session_id TEXT NOT NULL, "
    "at {real} NOT NULL, text TEXT NOT NULL, kept_at {real})",
]
# Every folder a session wrote to: a session continued under another `--out` (another worker,
# `monologue chat` again) wrote its trace there too, and an erase must find each one.
# `user_sessions.folder` keeps only the last.
_SESSION_FOLDERS = [
    "CREATE TABLE IF NOT EXISTS session_folders (user_id TEXT NOT NULL, session_id TEXT NOT NULL, "
    "folder TEXT NOT NULL, at {real} NOT NULL, PRIMARY KEY (user_id, session_id, folder))",
    "CREATE INDEX IF NOT EXISTS session_folders_folder ON session_folders (folder, at)",
    "INSERT INTO session_folders (user_id, session_id, folder, at) "
    "SELECT user_id, session_id, folder, at FROM user_sessions WHERE folder <> '' ON CONFLICT DO NOTHING",
]
MIGRATIONS: Migrations = {
    "sqlite": [[t.format(serial="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL") for t in _TABLES]
               + _APPEND_ONLY_SQLITE[:1],
               _APPEND_ONLY_SQLITE[1:],
               [t.format(real="REAL") for t in _SESSION_FOLDERS]],
    "postgres": [[t.format(serial="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", real="DOUBLE PRECISION")
                  for t in _TABLES] + _APPEND_ONLY_POSTGRES,
                 [t.format(real="DOUBLE PRECISION") for t in _SESSION_FOLDERS]],
}

_INSERT_AUDIT = ("INSERT INTO audit_log (user_id, at, what, before, after, reason, session_id) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")


ERASED = "erased"          # the tombstone's `what`: an erase happened, nothing of what was erased


# A `what` that says nothing the user said: a memory's id (random hex), or the tombstone.
_PLAIN_WHAT = re.compile(r"memory:[0-9A-Za-z_.-]+|" + re.escape(ERASED))


def _what_where(user_id: str) -> str:
    """Where a sealed `what` belongs (its associated data): the user's audit log."""
    return f"audit_log/{user_id}/what"


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _unjson(value: str | None) -> Any:
    return json.loads(value) if value else None


class SqlProfileStore:
    """Profiles and their append-only audit log, in the same database as everything else."""

    def __init__(self, path: str | Path | Database = ":memory:") -> None:
        self.db = open_database(path)
        self.db.migrate("profiles", MIGRATIONS)

    @contextmanager
    def _rewriting_audit(self, tx: Transaction) -> Iterator[None]:
        """Inside `tx`, the audit log may be changed (an erase deletes a user's entries; a key
        rotation re-seals values): nowhere else."""
        if self.db.dialect == "postgres":
            tx.execute("SELECT set_config('monologue.audit_rewrite', 'on', true)")
            yield
            tx.execute("SELECT set_config('monologue.audit_rewrite', 'off', true)")
            return
        tx.execute("DROP TRIGGER IF EXISTS audit_log_is_append_only")
        tx.execute("DROP TRIGGER IF EXISTS audit_log_keeps_entries")
        yield
        for statement in _APPEND_ONLY_SQLITE:
            tx.execute(statement)

    def _stored_what(self, user_id: str, what: str) -> str:
        """`what` as the audit log holds it: sealed, unless it is an id or the tombstone."""
        if _PLAIN_WHAT.fullmatch(what):
            return what
        return self.db.seal(what, _what_where(user_id)) or what

    def _audit_row(self, user_id: str, at: float | None, entry: AuditEntry) -> tuple[Any, ...]:
        where = f"audit_log/{user_id}/{entry.what}"
        before = self.db.seal(_json(entry.before), where + "/before")
        after = self.db.seal(_json(entry.after), where + "/after")
        return (user_id, time.time() if at is None else at, self._stored_what(user_id, entry.what), before, after,
                entry.reason, entry.session_id)

    def load(self, user_id: str) -> UserProfile:
        row = self.db.query_one("SELECT profile FROM profiles WHERE user_id = ?", (user_id,))
        if row is None:
            return UserProfile(user_id)
        data = json.loads(self.db.unseal(row[0], f"profiles/{user_id}") or "{}")
        return UserProfile(user_id, {slot: ProfileFact(**fact) for slot, fact in data["facts"].items()},
                           data.get("last_session", {}), data.get("version", 0))

    def save(self, profile: UserProfile, audit: list[AuditEntry], at: float | None = None) -> None:
        data = {"facts": {slot: asdict(f) for slot, f in profile.facts.items()},
                "last_session": profile.last_session, "version": profile.version}
        with self.db.transaction() as tx:
            tx.execute("INSERT INTO profiles (user_id, profile) VALUES (?, ?) "
                       "ON CONFLICT (user_id) DO UPDATE SET profile = excluded.profile",
                       (profile.user_id, self.db.seal(json.dumps(data, ensure_ascii=False),
                                                      f"profiles/{profile.user_id}")))
            tx.executemany(_INSERT_AUDIT, [self._audit_row(profile.user_id, at, AuditEntry(*e)) for e in audit])

    def audit(self, user_id: str) -> list[dict[str, Any]]:
        """The user's audit log, oldest first. A value that fails its integrity check is shown as
        such (`damaged`), never served nor dropped: the entry itself still proves the change."""
        rows = self.db.query("SELECT at, what, before, after, reason, session_id FROM audit_log "
                             "WHERE user_id = ? ORDER BY id", (user_id,))
        out = []
        for at, stored_what, before, after, reason, session in rows:
            # A `what` that does not open is not shown as its ciphertext.
            entry = {"at": at, "what": "(unreadable)", "reason": reason, "session": session}
            try:
                entry["what"] = what = self.db.unseal(stored_what, _what_where(user_id)) or ""
                where = f"audit_log/{user_id}/{what}"
                entry |= {"before": _unjson(self.db.unseal(before, where + "/before")),
                          "after": _unjson(self.db.unseal(after, where + "/after"))}
            except (SealedDataError, StoreKeyError) as exc:
                entry |= {"before": None, "after": None, "damaged": str(exc)}
            out.append(entry)
        return out

    def append_audit(self, user_id: str, what: str, before: Any, after: Any, reason: str, session_id: str,
                     at: float | None = None) -> None:
        self.db.run(_INSERT_AUDIT, self._audit_row(user_id, at, AuditEntry(what, before, after, reason, session_id)))

    def put_summary(self, user_id: str, level: str, key: str, text: str, sessions: list[str], at: float) -> None:
        self.db.run("INSERT INTO summaries (user_id, level, key, at, text, sessions) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (user_id, level, key) DO UPDATE SET at = excluded.at, text = excluded.text, "
                    "sessions = excluded.sessions", (user_id, level, key, at,
                                                  self.db.seal(text, f"summaries/{user_id}/{level}/{key}"),
                                                  json.dumps(sessions)))

    def summaries(self, user_id: str, level: str) -> list[dict[str, Any]]:
        """Summaries of one level, oldest first."""
        rows = self.db.query("SELECT key, at, text, sessions FROM summaries WHERE user_id = ? AND level = ? "
                             "ORDER BY at, key", (user_id, level))
        return [{"key": r[0], "at": r[1], "text": self.db.unseal(r[2], f"summaries/{user_id}/{level}/{r[0]}"),
                 "sessions": json.loads(r[3])} for r in rows]

    def add_commitment(self, user_id: str, session_id: str, text: str, at: float) -> None:
        self.db.run("INSERT INTO commitments (user_id, session_id, at, text) VALUES (?, ?, ?, ?)",
                    (user_id, session_id, at, self.db.seal(text, f"commitments/{user_id}")))

    def open_commitments(self, user_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT id, session_id, at, text FROM commitments WHERE user_id = ? "
                             "AND kept_at IS NULL ORDER BY id", (user_id,))
        return [{"id": r[0], "session": r[1], "at": r[2], "text": self.db.unseal(r[3], f"commitments/{user_id}")}
                for r in rows]

    def keep_commitment(self, user_id: str, commitment_id: int, at: float) -> None:
        self.db.run("UPDATE commitments SET kept_at = ? WHERE user_id = ? AND id = ?", (at, user_id, commitment_id))

    def record_session(self, user_id: str, session_id: str, folder: str = "") -> None:
        """Note that `session_id` was the user's, and a folder (an absolute path) its trace
        files went to, for an erase to find them; a continuation elsewhere adds its folder,
        the earlier ones stay. The path is kept plain: it is where files are, not what was
        said, and an erase must be able to ask who wrote there last."""
        now = time.time()
        with self.db.transaction() as tx:
            tx.execute("INSERT INTO user_sessions (user_id, session_id, folder, at) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT (user_id, session_id) DO UPDATE SET folder = excluded.folder, at = excluded.at",
                       (user_id, session_id, folder, now))
            if folder:
                tx.execute("INSERT INTO session_folders (user_id, session_id, folder, at) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (user_id, session_id, folder) DO UPDATE SET at = excluded.at",
                           (user_id, session_id, folder, now))

    def users_of(self, session_id: str) -> list[str]:
        """Whose session this is: the user who began it first, then anyone introduced in it."""
        return [str(r[0]) for r in self.db.query("SELECT user_id FROM user_sessions WHERE session_id = ? ORDER BY at",
                                                 (session_id,))]

    def sessions_of(self, user_id: str) -> list[tuple[str, str]]:
        """The user's sessions and their trace folders, oldest first: one pair per folder a
        session wrote to (a continuation under another `--out` adds one). A folder another
        user's session wrote to since (`--out out` is everyone's default) is given as "": its
        files are no longer this user's. Sessions only summarised (kept before the index
        existed) come with no folder."""
        folders: dict[str, list[str]] = {}
        for session_id, folder in self.db.query("SELECT session_id, folder FROM session_folders WHERE user_id = ? "
                                                 "ORDER BY at", (user_id,)):
            folders.setdefault(str(session_id), []).append(str(folder))
        out: list[tuple[str, str]] = []
        for session_id, last_folder in self.db.query("SELECT session_id, folder FROM user_sessions "
                                                      "WHERE user_id = ? ORDER BY at", (user_id,)):
            # The last folder from `user_sessions` too: a row written before `session_folders` existed.
            written = list(dict.fromkeys([*folders.get(session_id, []), *([last_folder] if last_folder else [])]))
            out += [(session_id, self._own_folder(user_id, folder)) for folder in written] or [(session_id, "")]
        known = {s for s, _ in out}
        out += [(s["key"], "") for s in self.summaries(user_id, "session") if s["key"] not in known]
        return list(dict.fromkeys(out))

    def _own_folder(self, user_id: str, folder: str) -> str:
        """`folder` if `user_id`'s session was the last to write there, else ""."""
        last = self.db.query_one("SELECT user_id FROM session_folders WHERE folder = ? ORDER BY at DESC LIMIT 1",
                                 (folder,))
        if last is None:
            last = self.db.query_one("SELECT user_id FROM user_sessions WHERE folder = ? ORDER BY at DESC LIMIT 1",
                                     (folder,))
        return folder if last is not None and last[0] == user_id else ""

    def forget_sessions(self, user_id: str) -> None:
        """Drop the user's session index, once their states and files are gone."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM user_sessions WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM session_folders WHERE user_id = ?", (user_id,))

    def erase(self, user_id: str, session_id: str = "", keep_sessions: bool = False) -> None:
        """Forget the user entirely: profile, summaries, commitments and the audit trail's
        entries, which are replaced by one tombstone holding no content (who, when, that an
        erase happened). The free pages are overwritten (`secure_delete`, then VACUUM).
        `keep_sessions`: the session index stays until whoever deletes the sessions' states
        and files is done (`forget_sessions`), so a crash in between leaves them findable."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM summaries WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM commitments WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM profiles WHERE user_id = ?", (user_id,))
            if not keep_sessions:
                tx.execute("DELETE FROM user_sessions WHERE user_id = ?", (user_id,))
                tx.execute("DELETE FROM session_folders WHERE user_id = ?", (user_id,))
            with self._rewriting_audit(tx):
                tx.execute("DELETE FROM audit_log WHERE user_id = ?", (user_id,))
            tx.execute(_INSERT_AUDIT, (user_id, time.time(), ERASED, None, None, "erased at the user's request",
                                       session_id))
        self.db.vacuum(("summaries", "commitments", "profiles", "user_sessions", "session_folders", "audit_log"))

    def reseal(self, tx: Any) -> int:
        """Seal every value again with the database's current key, inside the caller's transaction
        (a key rotation): the audit log's trigger is lifted for it, as for an erase. Returns how
        many values were rewritten."""
        count = 0
        for user_id, profile in tx.execute("SELECT user_id, profile FROM profiles").fetchall():
            where = f"profiles/{user_id}"
            tx.execute("UPDATE profiles SET profile = ? WHERE user_id = ?", (self.db.reseal(profile, where), user_id))
            count += 1
        for user_id, level, key, text in tx.execute("SELECT user_id, level, key, text FROM summaries").fetchall():
            where = f"summaries/{user_id}/{level}/{key}"
            tx.execute("UPDATE summaries SET text = ? WHERE user_id = ? AND level = ? AND key = ?",
                       (self.db.reseal(text, where), user_id, level, key))
            count += 1
        for row_id, user_id, text in tx.execute("SELECT id, user_id, text FROM commitments").fetchall():
            where = f"commitments/{user_id}"
            tx.execute("UPDATE commitments SET text = ? WHERE id = ?", (self.db.reseal(text, where), row_id))
            count += 1
        with self._rewriting_audit(tx):
            for row_id, user_id, stored_what, before, after in tx.execute(
                    "SELECT id, user_id, what, before, after FROM audit_log").fetchall():
                # A `what` written plain before it was sealed is sealed now.
                what = self.db.unseal(stored_what, _what_where(user_id)) or ""
                where = f"audit_log/{user_id}/{what}"
                tx.execute("UPDATE audit_log SET what = ?, before = ?, after = ? WHERE id = ?",
                           (self._stored_what(user_id, what), self.db.reseal(before, where + "/before"),
                            self.db.reseal(after, where + "/after"), row_id))
                count += 1
        return count
