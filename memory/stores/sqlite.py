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

from loguru import logger

from monologue.memory.stores.sealing import (
    Sealer,
    StoreKeyError,
    decode_key,
    ensure_key,
    find_keys,
    key_file_path,
    key_id,
    pending_key_path,
    retire_key,
)

IN_MEMORY = ":memory:"
BUSY_TIMEOUT_SECS = 30.0

Params = Sequence[Any]


class SQLiteDatabase:
    """One SQLite database (a file, or private memory for tests)."""

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
        """The sealer for this file: the key it was sealed with, found before anything is read.
        A new file takes the configured key (made on first use); a file sealed with a key
        this process does not have is refused, with where the key was looked for."""
        self._db.execute("CREATE TABLE IF NOT EXISTS store_keys (key_id TEXT PRIMARY KEY, added_at REAL NOT NULL)")
        registered = [r[0] for r in self._db.execute("SELECT key_id FROM store_keys").fetchall()]
        if not registered:
            source = ensure_key(environ)
            self._db.execute("INSERT OR IGNORE INTO store_keys VALUES (?, ?)", (key_id(source.keys[0]), time.time()))
            return Sealer(source.keys)
        source = find_keys(environ)
        current = [k for k in source.keys if key_id(k) in registered]
        if not current:
            have = f"the key there is {', '.join(source.ids)}" if source.keys else "there is no key there"
            raise StoreKeyError(
                f"{self.path} is sealed with key {', '.join(registered)}, and {have} (looked in {source.where}). "
                "Nothing was read or changed. Restore the key file it was made with, or set "
                "MONOLOGUE_STORE_KEY / MONOLOGUE_KEY_FILE to it")
        self._finish_rotation(current[0], environ)
        return Sealer([current[0], *(k for k in source.keys if k is not current[0])])

    @staticmethod
    def _finish_rotation(current: bytes, environ: dict[str, str] | None) -> None:
        """A rotation that sealed the store with its new key but stopped before renaming the key
        file: the pending key is now the key."""
        path = key_file_path(environ)
        pending = pending_key_path(path)
        if pending.is_file() and decode_key(pending.read_text(), str(pending)) == current:
            if path.is_file():
                retire_key(path, decode_key(path.read_text(), str(path)))    # other stores may use it
            pending.replace(path)
            logger.info(f"finished an interrupted key rotation: {path} now holds key {key_id(current)}")

    def seal(self, value: str | None, where: str) -> str | None:
        """`value` as it is stored: sealed when this database is; None stays None."""
        return value if value is None or self.sealer is None else self.sealer.seal_text(value, where)

    def unseal(self, value: str | None, where: str) -> str | None:
        return value if value is None or self.sealer is None else self.sealer.open_text(value, where)

    def reseal(self, value: str | None, where: str) -> str | None:
        """`value` opened and sealed again with the current key (a key rotation)."""
        return self.seal(self.unseal(value, where), where)

    def seal_blob(self, value: bytes | None, where: str) -> bytes | None:
        return value if value is None or self.sealer is None else self.sealer.seal_bytes(value, where)

    def unseal_blob(self, value: bytes | None, where: str) -> bytes | None:
        return value if value is None or self.sealer is None else self.sealer.open_bytes(value, where)

    def lookup(self, text: str) -> str:
        """What an exact-match column holds for `text`: a keyed digest when sealed."""
        return text if self.sealer is None else self.sealer.lookup(text)

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
        """Rebuild the file so deleted rows leave no readable trace in free pages, then empty
        the write-ahead log, which still holds the pages as they were before the delete."""
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
