"""The one SQLite helper every embedded store uses: one connection, one lock, transactions.

Every store on a file shares the same settings: WAL (readers never block the writer),
a busy timeout (another process holding the write lock is waited for, not an error),
and `synchronous=FULL` (a commit is on disk before it returns: an acknowledged turn
survives a power cut). Statements of one database object are serialised by a lock, so
one connection is safe to use from the worker threads the engines run their I/O in.

A database on a file is sealed (`sealing.py`): the stores pass what the user said through
`seal`/`unseal`, and deleted rows are overwritten (`secure_delete`), so an erase leaves
nothing readable in the file's free pages.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from monologue.memory.stores.database import (
    SCHEMA_VERSIONS,
    Dialect,
    Migrations,
    Params,
    SealedValues,
    apply_migrations,
    open_sealer,
)
from monologue.memory.stores.sealing import Sealer

IN_MEMORY = ":memory:"
BUSY_TIMEOUT_SECS = 30.0


class SQLiteDatabase(SealedValues):
    """One SQLite database (a file, or private memory for tests)."""

    dialect: Dialect = "sqlite"
    seq = "rowid"

    def __init__(self, path: str | Path = IN_MEMORY, *, sealed: bool | None = None,
                 environ: dict[str, str] | None = None) -> None:
        """`sealed`: encrypt what the stores write (default: on for a file, off in memory);
        `environ`: where the key is looked for (default: this process's environment)."""
        self.path = IN_MEMORY if str(path) == IN_MEMORY else str(Path(path).expanduser())
        new = self.path != IN_MEMORY and not Path(self.path).exists()
        if self.path != IN_MEMORY:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECS, isolation_level=None,
                                   check_same_thread=False)
        if new:
            os.chmod(self.path, 0o600)     # this user's only (its WAL and index files follow it)
        if self.path != IN_MEMORY:
            self._wal()
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA secure_delete=ON")
        self.sealer: Sealer | None = None
        if sealed if sealed is not None else not self.in_memory:
            self.sealer = self._open_sealer(environ)

    def _open_sealer(self, environ: dict[str, str] | None) -> Sealer:
        self._db.execute("CREATE TABLE IF NOT EXISTS store_keys (key_id TEXT PRIMARY KEY, added_at REAL NOT NULL)")
        registered = [r[0] for r in self._db.execute("SELECT key_id FROM store_keys").fetchall()]
        return open_sealer(registered, lambda key: self._db.execute(
            "INSERT OR IGNORE INTO store_keys VALUES (?, ?)", (key, time.time())), self.path, environ)

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

    def migrate(self, component: str, migrations: Migrations) -> int:
        """Bring `component`'s tables up to date (`database.py`); returns its schema version."""
        with self._lock:
            self._db.execute(SCHEMA_VERSIONS)
            with self.transaction(immediate=True) as tx:
                return apply_migrations(tx, component, migrations["sqlite"])

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

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Reads inside see one state of the database (a read transaction)."""
        with self.transaction() as tx:
            yield tx

    def vacuum(self, tables: Sequence[str] = ()) -> None:
        """Rebuild the file so deleted rows leave no readable trace in free pages, then empty
        the write-ahead log, which still holds the pages as they were before the delete
        (the whole file: `tables` is for servers that rebuild one table at a time)."""
        if not self.in_memory:
            with self._lock:
                self._db.execute("VACUUM")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_database(path_or_db: str | Path | SQLiteDatabase) -> SQLiteDatabase:
    """A store's argument: an open database to share, or a path to open."""
    return path_or_db if isinstance(path_or_db, SQLiteDatabase) else SQLiteDatabase(path_or_db)
