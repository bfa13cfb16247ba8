"""The one SQLite helper every embedded store uses: one connection, one lock, transactions.

Every store on a file shares the same settings: WAL (readers never block the writer),
a busy timeout (another process holding the write lock is waited for, not an error),
and `synchronous=FULL` (a commit is on disk before it returns: an acknowledged turn
survives a power cut). Statements of one database object are serialised by a lock, so
one connection is safe to use from the worker threads the engines run their I/O in.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

IN_MEMORY = ":memory:"
BUSY_TIMEOUT_SECS = 30.0

Params = Sequence[Any]


class SQLiteDatabase:
    """One SQLite database (a file, or private memory for tests)."""

    def __init__(self, path: str | Path = IN_MEMORY) -> None:
        self.path = IN_MEMORY if str(path) == IN_MEMORY else str(Path(path).expanduser())
        if self.path != IN_MEMORY:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECS, isolation_level=None,
                                   check_same_thread=False)
        if self.path != IN_MEMORY:
            self._wal()
        self._db.execute("PRAGMA synchronous=FULL")

    def _wal(self) -> None:
        """Switch a new file to write-ahead logging. Two connections opening a brand-new file
        at once can find it locked while the other switches, and SQLite does not apply the
        busy timeout to that: wait and try again, as the timeout would."""
        deadline = time.monotonic() + BUSY_TIMEOUT_SECS
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @property
    def in_memory(self) -> bool:
        return self.path == IN_MEMORY

    def create(self, schema: str) -> None:
        """Run a schema script (CREATE … IF NOT EXISTS statements)."""
        with self._lock:
            self._db.executescript(schema)

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
        with self._lock:
            row: tuple[Any, ...] | None = self._db.execute(sql, params).fetchone()
            return row

    def run(self, sql: str, params: Params = ()) -> int:
        """One statement in its own transaction; returns the number of rows it changed."""
        with self._lock:
            return self._db.execute(sql, params).rowcount

    @contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[sqlite3.Connection]:
        """Statements inside commit together or not at all. `immediate` takes the write
        lock at the start, so a read-then-write (compare-and-set) cannot be overtaken by
        another process between the read and the write."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def vacuum(self) -> None:
        """Rebuild the file so deleted rows leave no readable trace in free pages."""
        if not self.in_memory:
            with self._lock:
                self._db.execute("VACUUM")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_database(path_or_db: str | Path | SQLiteDatabase) -> SQLiteDatabase:
    """A store's argument: an open database to share, or a path to open."""
    return path_or_db if isinstance(path_or_db, SQLiteDatabase) else SQLiteDatabase(path_or_db)
