"""The memory stream's embedded store: every user's memories and vectors in SQLite.

One table, one row per memory: the record as JSON, its vector as a float32 BLOB, and
its normalised text for exact-duplicate lookups.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import numpy as np

from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.stores.sqlite import SQLiteDatabase, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, record TEXT NOT NULL, vector BLOB,
    norm_text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_user ON memories(user_id);
CREATE INDEX IF NOT EXISTS memories_text ON memories(user_id, norm_text);
"""

# An upsert, not INSERT OR REPLACE: REPLACE deletes and re-inserts, giving the row a new
# rowid, and `all()` lists by rowid — the stream's order must stay the order of writing.
_UPSERT = ("INSERT INTO memories (id, user_id, record, vector, norm_text) VALUES (?, ?, ?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET record = excluded.record, vector = excluded.vector, "
           "norm_text = excluded.norm_text")


def normalise_text(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s\u4e00-\u9fff]", "", text.lower())).strip()


def _row(record: MemoryRecord, vector: np.ndarray | None) -> tuple[str, str, str, bytes | None, str]:
    blob = None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()
    return (record.id, record.user_id, json.dumps(asdict(record), ensure_ascii=False), blob,
            normalise_text(record.text))


class SQLiteMemoryStore:
    """Every user's stream and its vectors, in one SQLite database."""

    def __init__(self, path: str | Path | SQLiteDatabase = ":memory:") -> None:
        self.db = open_database(path)
        self.db.create(_SCHEMA)

    def put(self, record: MemoryRecord, vector: np.ndarray | None) -> None:
        self.db.run(_UPSERT, _row(record, vector))

    def put_many(self, rows: list[tuple[MemoryRecord, np.ndarray | None]]) -> None:
        with self.db.transaction() as tx:
            tx.executemany(_UPSERT, [_row(r, v) for r, v in rows])

    def find_text(self, user_id: str, text: str) -> MemoryRecord | None:
        row = self.db.query_one("SELECT record FROM memories WHERE user_id = ? AND norm_text = ? "
                                "ORDER BY rowid DESC", (user_id, normalise_text(text)))
        return MemoryRecord(**json.loads(row[0])) if row else None

    def all(self, user_id: str) -> tuple[list[MemoryRecord], np.ndarray]:
        rows = self.db.query("SELECT record, vector FROM memories WHERE user_id = ? ORDER BY rowid", (user_id,))
        records = [MemoryRecord(**json.loads(r[0])) for r in rows]
        dims = next((len(r[1]) // 4 for r in rows if r[1]), 0)
        vectors = np.zeros((len(rows), dims), dtype=np.float32)
        for i, r in enumerate(rows):
            if r[1]:
                vectors[i] = np.frombuffer(r[1], dtype=np.float32)
        return records, vectors

    def delete(self, user_id: str, memory_id: str) -> bool:
        return self.db.run("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)) > 0

    def erase_user(self, user_id: str) -> int:
        count = self.db.run("DELETE FROM memories WHERE user_id = ?", (user_id,))
        self.db.vacuum()
        return count
