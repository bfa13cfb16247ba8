"""The memory stream's embedded store: every user's memories and vectors in SQLite.

One table, one row per memory: the record as JSON, its vector as a float32 BLOB, and
its normalised text for exact-duplicate lookups. On a file, the record and the vector are
sealed and the lookup text is a keyed digest (`sealing.py`); a row that fails its integrity
check is left out of what is served, logged, and listed in `damaged`.

Names of people and places are stored as placeholders (`<PERSON_1>`, `<PLACE_2>`; U4,
`deidentify.py`), with the user's mapping in its own table (sealed); what the store serves
is restored, for local use.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from loguru import logger

from monologue.memory.longterm.deidentify import PLACEHOLDER, Placeholders
from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.stores.sealing import SealedDataError, StoreKeyError
from monologue.memory.stores.sqlite import SQLiteDatabase, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, record TEXT NOT NULL, vector BLOB,
    norm_text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_user ON memories(user_id);
CREATE INDEX IF NOT EXISTS memories_text ON memories(user_id, norm_text);
CREATE TABLE IF NOT EXISTS placeholders (
    user_id TEXT NOT NULL, placeholder TEXT NOT NULL, original TEXT NOT NULL, PRIMARY KEY (user_id, placeholder)
);
"""

# An upsert, not INSERT OR REPLACE: REPLACE deletes and re-inserts, giving the row a new
# rowid, and `all()` lists by rowid — the stream's order must stay the order of writing.
_UPSERT = ("INSERT INTO memories (id, user_id, record, vector, norm_text) VALUES (?, ?, ?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET record = excluded.record, vector = excluded.vector, "
           "norm_text = excluded.norm_text")


def normalise_text(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s\u4e00-\u9fff]", "", text.lower())).strip()


def _where(user_id: str, memory_id: str, column: str = "record") -> str:
    return f"memories/{user_id}/{memory_id}/{column}"


class SQLiteMemoryStore:
    """Every user's stream and its vectors, in one SQLite database."""

    def __init__(self, path: str | Path | SQLiteDatabase = ":memory:") -> None:
        self.db = open_database(path)
        self.db.create(_SCHEMA)
        self.damaged: list[str] = []       # ids of rows that failed their integrity check
        self._names: dict[str, Placeholders] = {}
        self._names_upto: dict[str, int] = {}      # the last mapping row read, per user

    def _load_names(self, user_id: str, tx: Any = None) -> Placeholders:
        """The user's mapping as stored (inside `tx` when given: what it has written counts).
        Only rows added since the last load are read."""
        names = self._names.setdefault(user_id, Placeholders())
        sql = "SELECT rowid, placeholder, original FROM placeholders WHERE user_id = ? AND rowid > ? ORDER BY rowid"
        params = (user_id, self._names_upto.get(user_id, 0))
        rows = tx.execute(sql, params).fetchall() if tx is not None else self.db.query(sql, params)
        for rowid, placeholder, original in rows:
            names.originals[placeholder] = self.db.unseal(original, f"placeholders/{user_id}/{placeholder}") or ""
            self._names_upto[user_id] = rowid
        return names

    def _row(self, record: MemoryRecord, vector: np.ndarray | None, tx: Any) -> tuple[str, str, str | None,
                                                                                      bytes | None, str]:
        """The row as stored: names as placeholders, each one in the user's stored mapping
        with this very name, checked in the caller's (immediate) transaction — so neither two
        writers nor a cache older than an erase can leave a placeholder meaning another name."""
        user = record.user_id
        for _ in range(2):
            names = self._load_names(user, tx)
            text = names.deidentify(record.text)
            used = dict.fromkeys(m.group(0) for m in PLACEHOLDER.finditer(text) if m.group(0) in names.originals)
            tx.executemany("INSERT OR IGNORE INTO placeholders (user_id, placeholder, original) VALUES (?, ?, ?)",
                           [(user, p, self.db.seal(names.originals[p], f"placeholders/{user}/{p}")) for p in used])
            marks = ",".join("?" * len(used))
            stored_names = {p: self.db.unseal(o, f"placeholders/{user}/{p}") for p, o in tx.execute(
                f"SELECT placeholder, original FROM placeholders WHERE user_id = ? AND placeholder IN ({marks})",
                (user, *used)).fetchall()} if used else {}
            if all(stored_names.get(p) == names.originals[p] for p in used):
                break
            self._names.pop(user, None)          # stale: read the whole mapping again and redo
            self._names_upto.pop(user, None)
        else:
            raise RuntimeError(f"the name mapping of {user!r} keeps changing under this write; try again")
        stored = asdict(record) | {"text": text}
        blob = None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()
        return (record.id, record.user_id,
                self.db.seal(json.dumps(stored, ensure_ascii=False), _where(record.user_id, record.id)),
                self.db.seal_blob(blob, _where(record.user_id, record.id, "vector")),
                self.db.lookup(normalise_text(record.text)))

    def _record(self, user_id: str, memory_id: str, value: str) -> MemoryRecord:
        record = MemoryRecord(**json.loads(self.db.unseal(value, _where(user_id, memory_id)) or "{}"))
        if PLACEHOLDER.search(record.text):
            names = self._names.get(user_id) or self._load_names(user_id)
            if any(m.group(0) not in names.originals for m in PLACEHOLDER.finditer(record.text)):
                names = self._load_names(user_id)           # written by another process since
            record.text = names.restore(record.text)
        return record

    def put(self, record: MemoryRecord, vector: np.ndarray | None) -> None:
        self.put_many([(record, vector)])

    def put_many(self, rows: list[tuple[MemoryRecord, np.ndarray | None]]) -> None:
        try:
            with self.db.transaction(immediate=True) as tx:
                for r, v in rows:
                    tx.execute(_UPSERT, self._row(r, v, tx))
        except BaseException:
            # The mapping cache may hold placeholders the rollback took back: read it again.
            for r, _ in rows:
                self._names.pop(r.user_id, None)
                self._names_upto.pop(r.user_id, None)
            raise

    def find_text(self, user_id: str, text: str) -> MemoryRecord | None:
        norm = normalise_text(text)
        # The plain form too: rows written before the store was sealed.
        row = self.db.query_one("SELECT id, record FROM memories WHERE user_id = ? AND norm_text IN (?, ?) "
                                "ORDER BY rowid DESC", (user_id, self.db.lookup(norm), norm))
        return self._record(user_id, row[0], row[1]) if row else None

    def all(self, user_id: str) -> tuple[list[MemoryRecord], np.ndarray]:
        rows = self.db.query("SELECT id, record, vector FROM memories WHERE user_id = ? ORDER BY rowid", (user_id,))
        opened: list[tuple[MemoryRecord, bytes | None]] = []
        for memory_id, record, vector in rows:
            try:
                opened.append((self._record(user_id, memory_id, record),
                               self.db.unseal_blob(vector, _where(user_id, memory_id, "vector"))))
            except (SealedDataError, StoreKeyError) as exc:
                # Reported, never served: recall goes on without it.
                if memory_id not in self.damaged:
                    self.damaged.append(memory_id)
                    logger.error(f"memory {memory_id} of {user_id!r}: {exc}")
        dims = next((len(v) // 4 for _, v in opened if v), 0)
        vectors = np.zeros((len(opened), dims), dtype=np.float32)
        for i, (_, v) in enumerate(opened):
            if v:
                vectors[i] = np.frombuffer(v, dtype=np.float32)
        return [r for r, _ in opened], vectors

    def delete(self, user_id: str, memory_id: str) -> bool:
        return self.db.run("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)) > 0

    def reseal(self, tx: Any) -> int:
        """Seal every record and vector again with the database's current key, and recompute the
        lookup digests (they are keyed too). For a key rotation, inside its transaction."""
        for user_id, placeholder, original in tx.execute(
                "SELECT user_id, placeholder, original FROM placeholders").fetchall():
            where = f"placeholders/{user_id}/{placeholder}"
            tx.execute("UPDATE placeholders SET original = ? WHERE user_id = ? AND placeholder = ?",
                       (self.db.reseal(original, where), user_id, placeholder))
        rows = tx.execute("SELECT id, user_id, record, vector FROM memories").fetchall()
        for memory_id, user_id, record, vector in rows:
            stored = json.loads(self.db.unseal(record, _where(user_id, memory_id)) or "{}")   # placeholders kept
            opened = self._record(user_id, memory_id, record)
            blob = self.db.unseal_blob(vector, _where(user_id, memory_id, "vector"))
            tx.execute("UPDATE memories SET record = ?, vector = ?, norm_text = ? WHERE id = ?",
                       (self.db.seal(json.dumps(stored, ensure_ascii=False), _where(user_id, memory_id)),
                        self.db.seal_blob(blob, _where(user_id, memory_id, "vector")),
                        self.db.lookup(normalise_text(opened.text)), memory_id))
        return len(rows)

    def erase_user(self, user_id: str) -> int:
        self.db.run("DELETE FROM placeholders WHERE user_id = ?", (user_id,))
        self._names.pop(user_id, None)
        self._names_upto.pop(user_id, None)
        count = self.db.run("DELETE FROM memories WHERE user_id = ?", (user_id,))
        self.db.vacuum()
        return count
