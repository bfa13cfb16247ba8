"""What the agent did for the user (booked, set, opened), kept so it can be asked about later.

One row per action carried out: who, in which session, what, with which arguments, and
when. It is the record behind "what did I book last time?" and `monologue actions`; the
session's state keeps only the ids (`SessionState.done`). On a file, the arguments and the
words are sealed (`sealing.py`).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monologue.memory.stores.database import Database, Migrations, open_database

_TABLE = ("CREATE TABLE IF NOT EXISTS action_records (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, "
          "session_id TEXT NOT NULL, action TEXT NOT NULL, domain TEXT NOT NULL, args TEXT NOT NULL, "
          "said TEXT NOT NULL, at {real} NOT NULL)")
_INDEX = "CREATE INDEX IF NOT EXISTS action_records_by_user ON action_records (user_id, at)"
MIGRATIONS: Migrations = {"sqlite": [[_TABLE.format(real="REAL"), _INDEX]],
                          "postgres": [[_TABLE.format(real="DOUBLE PRECISION"), _INDEX]]}


@dataclass(frozen=True)
class ActionRecord:
    """One action carried out: `said` is what was done in words, per language."""

    id: str
    user_id: str
    session_id: str
    action: str
    domain: str
    args: dict[str, Any]
    at: float
    said: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def new_id(action: str) -> str:
        """Short enough to be read out ("ticket T-4F2A9C"), unique enough for one user's records."""
        return f"{action[:1].upper()}-{uuid.uuid4().hex[:6].upper()}"


class SqlActionStore:
    def __init__(self, path: str | Path | Database = ":memory:") -> None:
        self.db = open_database(path)
        self.db.migrate("actions", MIGRATIONS)

    def add(self, record: ActionRecord) -> None:
        self.db.run("INSERT INTO action_records (id, user_id, session_id, action, domain, args, said, at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.id, record.user_id, record.session_id, record.action, record.domain,
                     self._seal(record.args, record, "args"), self._seal(record.said, record, "said"), record.at))

    def _seal(self, value: Any, record: ActionRecord, column: str) -> str | None:
        where = f"action_records/{record.user_id}/{record.id}/{column}"
        return self.db.seal(json.dumps(value, ensure_ascii=False), where)

    def _unseal(self, value: str, user_id: str, record_id: str, column: str) -> Any:
        return json.loads(self.db.unseal(value, f"action_records/{user_id}/{record_id}/{column}") or "{}")

    def records(self, user_id: str, limit: int = 50) -> list[ActionRecord]:
        """The user's actions, newest first."""
        rows = self.db.query("SELECT id, user_id, session_id, action, domain, args, said, at FROM action_records "
                             "WHERE user_id = ? ORDER BY at DESC LIMIT ?", (user_id, limit))
        return [ActionRecord(r[0], r[1], r[2], r[3], r[4], self._unseal(r[5], r[1], r[0], "args"), r[7],
                             self._unseal(r[6], r[1], r[0], "said")) for r in rows]

    def erase(self, user_id: str) -> int:
        count = self.db.run("DELETE FROM action_records WHERE user_id = ?", (user_id,))
        self.db.vacuum(("action_records",))
        return count

    def reseal(self, tx: Any) -> int:
        """Seal every row again with the database's current key (a key rotation)."""
        rows = tx.execute("SELECT id, user_id, action, args, said FROM action_records").fetchall()
        for record_id, user_id, action, args, said in rows:
            record = ActionRecord(record_id, user_id, "", action, "", {}, 0.0)
            tx.execute("UPDATE action_records SET args = ?, said = ? WHERE id = ?",
                       (self._seal(self._unseal(args, user_id, record_id, "args"), record, "args"),
                        self._seal(self._unseal(said, user_id, record_id, "said"), record, "said"), record_id))
        return len(rows)
