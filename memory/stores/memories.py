"""The memory stream's store: every user's memories and vectors, in SQLite or PostgreSQL.

One table, one row per memory: the record as JSON, its vector as float32 bytes, and
its normalised text for exact-duplicate lookups. On a file, the record and the vector are
sealed and the lookup text is a keyed digest (`sealing.py`); a row that fails its integrity
check is left out of what is served, logged, and listed in `damaged`.

Names of people and places are stored as placeholders (`<PERSON_1>`, `<PLACE_2>`; U4,
`deidentify.py`), with the user's mapping in its own table (sealed); what the store serves
is restored, for local use.

Each process keeps a cache of the users it serves (`all`): their records and a matrix of
their vectors, read once, then kept current by reading only what changed. Every write bumps
the user's version (`memory_versions`) in its own transaction and stamps the rows it wrote
with it; a delete leaves the id in `memory_deletions`. A recall first reads the version (one
indexed row): unchanged, the cache is served as it is; changed, only rows and deletions
newer than the cache are read. So a write by another worker is in the next recall, and a
user with 100,000 memories costs one full read per worker, not one per turn. An erase drops
the version row; a worker that finds a version older than its cache drops the cache
(`sweep` finds the users erased elsewhere that no turn has asked for since).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from loguru import logger

from monologue.memory.language.plain_text import plain_text
from monologue.memory.longterm.deidentify import PLACEHOLDER, Placeholders
from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.stores import journal
from monologue.memory.stores.database import Database, Migrations, open_database
from monologue.memory.stores.sealing import SealedDataError, StoreKeyError

_VERSIONED = [
    "CREATE TABLE IF NOT EXISTS memory_versions (user_id TEXT PRIMARY KEY, version BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS memory_deletions (user_id TEXT NOT NULL, id TEXT NOT NULL, changed BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS memory_deletions_user ON memory_deletions (user_id, changed)",
    "CREATE INDEX IF NOT EXISTS memories_changed ON memories (user_id, changed)",
]
MIGRATIONS: Migrations = {
    "sqlite": [
        ["CREATE TABLE IF NOT EXISTS memories (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, record TEXT NOT NULL, "
         "vector BLOB, norm_text TEXT NOT NULL)",
         "CREATE INDEX IF NOT EXISTS memories_user ON memories(user_id)",
         "CREATE INDEX IF NOT EXISTS memories_text ON memories(user_id, norm_text)",
         "CREATE TABLE IF NOT EXISTS placeholders (user_id TEXT NOT NULL, placeholder TEXT NOT NULL, "
         "original TEXT NOT NULL, PRIMARY KEY (user_id, placeholder))"],
        ["ALTER TABLE memories ADD COLUMN changed INTEGER NOT NULL DEFAULT 0", *_VERSIONED],
        journal.SQLITE_STEP,
    ],
    "postgres": [
        ["CREATE TABLE memories (seq BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, "
         "user_id TEXT NOT NULL, record TEXT NOT NULL, vector BYTEA, norm_text TEXT NOT NULL, "
         "changed BIGINT NOT NULL DEFAULT 0)",
         "CREATE INDEX memories_user ON memories (user_id, seq)",
         "CREATE INDEX memories_text ON memories (user_id, norm_text)",
         "CREATE TABLE placeholders (seq BIGINT GENERATED ALWAYS AS IDENTITY, user_id TEXT NOT NULL, "
         "placeholder TEXT NOT NULL, original TEXT NOT NULL, PRIMARY KEY (user_id, placeholder))",
         *_VERSIONED],
        journal.POSTGRES_STEP,
    ],
}

# An upsert, not INSERT OR REPLACE: REPLACE deletes and re-inserts, giving the row a new
# rowid, and `all()` lists in writing order — the stream's order must stay the order of writing.
_UPSERT = ("INSERT INTO memories (id, user_id, record, vector, norm_text, changed) VALUES (?, ?, ?, ?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET record = excluded.record, vector = excluded.vector, "
           "norm_text = excluded.norm_text, changed = excluded.changed")
_BUMP = ("INSERT INTO memory_versions (user_id, version) VALUES (?, 1) ON CONFLICT (user_id) "
         "DO UPDATE SET version = memory_versions.version + 1 RETURNING version")
CACHE_IDLE_SECS = 600.0         # a user no turn has recalled for this long leaves the cache
SWEEP_EVERY_SECS = 5.0          # how often a worker checks its cached users for erases elsewhere


def normalise_text(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s\u4e00-\u9fff]", "", text.lower())).strip()


def _where(user_id: str, memory_id: str, column: str = "record") -> str:
    return f"memories/{user_id}/{memory_id}/{column}"


@dataclass
class _CachedStream:
    """One user's stream as this process last read it, at `version`."""

    version: int
    records: list[MemoryRecord]
    vectors: np.ndarray                       # capacity rows; the first len(records) are the stream's
    position: dict[str, int]                  # memory id → index in records
    used_at: float = field(default_factory=time.monotonic)

    def served(self) -> tuple[list[MemoryRecord], np.ndarray]:
        return self.records, self.vectors[:len(self.records)]


class SqlMemoryStore:
    """Every user's stream and its vectors, in one database (SQLite or PostgreSQL)."""

    def __init__(self, path: str | Path | Database = ":memory:", *, cache: bool = True) -> None:
        """`cache`: keep the streams read (see the module's text); off, every `all` reads them."""
        self.db = open_database(path)
        self.db.migrate("memories", MIGRATIONS)
        self.damaged: list[str] = []       # ids of rows that failed their integrity check
        self._names: dict[str, Placeholders] = {}
        self._names_upto: dict[str, int] = {}      # the last mapping row read, per user
        self.caching = cache
        self._cache: dict[str, _CachedStream] = {}
        self._cache_lock = threading.Lock()
        self._swept_at = time.monotonic()

    def _load_names(self, user_id: str, tx: Any = None) -> Placeholders:
        """The user's mapping as stored (inside `tx` when given: what it has written counts).
        Only rows added since the last load are read."""
        names = self._names.setdefault(user_id, Placeholders())
        seq = self.db.seq
        sql = f"SELECT {seq}, placeholder, original FROM placeholders WHERE user_id = ? AND {seq} > ? ORDER BY {seq}"
        params = (user_id, self._names_upto.get(user_id, 0))
        rows = tx.execute(sql, params).fetchall() if tx is not None else self.db.query(sql, params)
        for rowid, placeholder, original in rows:
            names.originals[placeholder] = self.db.unseal(original, f"placeholders/{user_id}/{placeholder}") or ""
            self._names_upto[user_id] = rowid
        return names

    def _row(self, record: MemoryRecord, vector: np.ndarray | None, tx: Any,
             version: int) -> tuple[str, str, str | None, bytes | None, str, int]:
        """The row as stored: names as placeholders, each one in the user's stored mapping
        with this very name, checked in the caller's (immediate) transaction — so neither two
        writers nor a cache older than an erase can leave a placeholder meaning another name."""
        user = record.user_id
        for _ in range(2):
            names = self._load_names(user, tx)
            text = names.deidentify(plain_text(record.text))
            used = dict.fromkeys(m.group(0) for m in PLACEHOLDER.finditer(text) if m.group(0) in names.originals)
            tx.executemany("INSERT INTO placeholders (user_id, placeholder, original) VALUES (?, ?, ?) "
                           "ON CONFLICT DO NOTHING",
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
                self.db.lookup(normalise_text(record.text)), version)

    def _bump(self, tx: Any, user_ids: list[str]) -> dict[str, int]:
        """Each user's next version, taken first in a write's transaction: on PostgreSQL the
        version row's lock orders one user's writers, so versions commit in order."""
        return {u: int(tx.execute(_BUMP, (u,)).fetchone()[0]) for u in sorted(set(user_ids))}

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
                versions = self._bump(tx, [r.user_id for r, _ in rows])
                for r, v in rows:
                    tx.execute(_UPSERT, self._row(r, v, tx, versions[r.user_id]))
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
                                f"ORDER BY {self.db.seq} DESC", (user_id, self.db.lookup(norm), norm))
        return self._record(user_id, row[0], row[1]) if row else None

    def all(self, user_id: str) -> tuple[list[MemoryRecord], np.ndarray]:
        """The user's stream in the order it was written, and its vectors (one row each).
        The same objects again while nothing changed (a retriever's index stays valid)."""
        if not self.caching:
            _, records, vectors, _ = self._read(user_id, None)
            return records, vectors
        self._sweep_now_and_then()
        with self._cache_lock:
            cached = self._cache.get(user_id)
        row = self.db.query_one("SELECT version FROM memory_versions WHERE user_id = ?", (user_id,))
        version = int(row[0]) if row else 0
        if cached is not None and cached.version == version:
            cached.used_at = time.monotonic()
            return cached.served()
        if cached is not None and version < cached.version:
            cached = None                  # erased since (and perhaps written again): read it all
        fresh = self._refresh(user_id, cached)
        with self._cache_lock:
            self._cache[user_id] = fresh
        return fresh.served()

    def _read(self, user_id: str, since: int | None) -> tuple[int, list[MemoryRecord], np.ndarray, list[str]]:
        """(version, records, vectors, deleted ids), all from one snapshot: the whole stream, or
        what changed after version `since`."""
        seq = self.db.seq
        with self.db.snapshot() as tx:
            row = tx.execute("SELECT version FROM memory_versions WHERE user_id = ?", (user_id,)).fetchone()
            version = int(row[0]) if row else 0
            if since is None:
                rows = tx.execute(f"SELECT id, record, vector FROM memories WHERE user_id = ? ORDER BY {seq}",
                                  (user_id,)).fetchall()
                deleted: list[str] = []
            else:
                rows = tx.execute(f"SELECT id, record, vector FROM memories WHERE user_id = ? AND changed > ? "
                                  f"ORDER BY {seq}", (user_id, since)).fetchall()
                deleted = [r[0] for r in tx.execute("SELECT id FROM memory_deletions WHERE user_id = ? AND "
                                                    "changed > ?", (user_id, since)).fetchall()]
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
                vectors[i] = np.frombuffer(bytes(v), dtype=np.float32)
        return version, [r for r, _ in opened], vectors, deleted

    def _refresh(self, user_id: str, cached: _CachedStream | None) -> _CachedStream:
        """The cache brought to the stored version: read whole, or only what changed since."""
        version, records, vectors, deleted = self._read(user_id, None if cached is None else cached.version)
        if cached is None:
            return _CachedStream(version, records, vectors, {r.id: i for i, r in enumerate(records)})
        gone = {d for d in deleted if d in cached.position}
        old = cached.records
        if gone:
            keep = [i for i, r in enumerate(old) if r.id not in gone]
            old = [old[i] for i in keep]
            matrix = cached.vectors[keep]
        else:
            matrix = cached.vectors
        out = list(old)          # a new list: holders of the old one see the stream they read
        position = {r.id: i for i, r in enumerate(out)} if gone else dict(cached.position)
        dims = matrix.shape[1] if matrix.shape[1] else vectors.shape[1]
        if dims != matrix.shape[1]:
            matrix = np.zeros((max(len(out), 1), dims), dtype=np.float32)
        appended = [i for i, r in enumerate(records) if r.id not in position]
        need = len(out) + len(appended)
        # A matrix already served is never changed in the rows it served: new memories go into
        # its spare rows (no copy); a changed vector of an existing memory (rare: its words
        # changed) or a full matrix means a new one, with room to grow.
        rewritten = dims and vectors.shape[1] == dims and any(
            not np.array_equal(matrix[position[r.id]], vectors[i])
            for i, r in enumerate(records) if r.id in position)
        if need > matrix.shape[0] or rewritten or (matrix is cached.vectors and gone):
            grown = np.zeros((max(need, 2 * len(out), 16), dims), dtype=np.float32)
            grown[:len(out)] = matrix[:len(out)]
            matrix = grown
        for i, record in enumerate(records):
            at = position.get(record.id)
            if at is None:
                at = position[record.id] = len(out)
                out.append(record)
            else:
                out[at] = record
            if vectors.shape[1] == dims and dims and (at >= len(old) or rewritten):
                matrix[at] = vectors[i]
        return _CachedStream(version, out, matrix, position)

    def _sweep_now_and_then(self) -> None:
        if time.monotonic() - self._swept_at >= SWEEP_EVERY_SECS:
            self.sweep()

    def sweep(self) -> list[str]:
        """Drop the cached streams of users erased since (by any worker) and of users idle for
        `CACHE_IDLE_SECS`; returns who was dropped. A worker runs this now and then, so an erase
        elsewhere leaves nothing of the user in its memory."""
        self._swept_at = time.monotonic()
        with self._cache_lock:
            cached = dict(self._cache)
        if not cached:
            return []
        marks = ",".join("?" * len(cached))
        stored = {u: int(v) for u, v in self.db.query(
            f"SELECT user_id, version FROM memory_versions WHERE user_id IN ({marks})", tuple(cached))}
        now = time.monotonic()
        dropped = [u for u, c in cached.items() if stored.get(u, 0) < c.version or now - c.used_at > CACHE_IDLE_SECS]
        with self._cache_lock:
            for user_id in dropped:
                self._cache.pop(user_id, None)
                self._names.pop(user_id, None)
                self._names_upto.pop(user_id, None)
        return dropped

    def cached_users(self) -> list[str]:
        with self._cache_lock:
            return list(self._cache)

    def delete(self, user_id: str, memory_id: str) -> bool:
        with self.db.transaction(immediate=True) as tx:
            version = self._bump(tx, [user_id])[user_id]
            if tx.execute("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)).rowcount == 0:
                return False         # (the bump is harmless: readers find nothing newer)
            tx.execute("INSERT INTO memory_deletions (user_id, id, changed) VALUES (?, ?, ?)",
                       (user_id, memory_id, version))
        return True

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
        return len(rows) + journal.reseal_entries(self.db, tx)

    def erase_user(self, user_id: str) -> int:
        """Delete the user's memories, vectors, name mapping and pending writes (`journal.py`),
        here and in this process's cache (other workers drop theirs at their next `sweep` or
        recall), then rewrite the tables so no copy stays in their files."""
        with self.db.transaction(immediate=True) as tx:
            tx.execute("DELETE FROM placeholders WHERE user_id = ?", (user_id,))
            count = int(tx.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount)
            tx.execute("DELETE FROM memory_deletions WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM memory_versions WHERE user_id = ?", (user_id,))
            journal.erase_entries(tx, user_id)
        with self._cache_lock:
            self._cache.pop(user_id, None)
        self._names.pop(user_id, None)
        self._names_upto.pop(user_id, None)
        self.db.vacuum(("memories", "placeholders", "memory_deletions", "memory_versions", "turn_journal"))
        return count
