"""What every store is written against: a SQL database, SQLite (`sqlite.py`) or PostgreSQL
(`postgres.py`), and the parts both share: sealing what the user said, and versioned schema
migrations.

The stores' SQL is the subset both engines speak: `?` parameters (PostgreSQL's driver wants
`%s`: `PostgresDatabase` translates), `INSERT … ON CONFLICT …` upserts, `RETURNING`. What
differs is named on the database: `dialect`, and `seq`, the column that gives a table's rows
in the order they were written (SQLite's implicit `rowid`; a `seq` identity column on
PostgreSQL).

Migrations are numbered steps per component (`memories`, `profiles`, …), each a list of
statements applied in one transaction, recorded in `schema_versions`. Several workers
starting at once apply each step exactly once: the step runs under the database's write lock
(SQLite `BEGIN IMMEDIATE`; a PostgreSQL advisory lock) and re-reads the version inside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Literal, Protocol

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

Params = Sequence[Any]
Dialect = Literal["sqlite", "postgres"]
# One component's schema: step n (1-based) is the statements that take it from version n-1 to n.
Migrations = dict[Dialect, list[list[str]]]


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchall(self) -> list[Any]: ...
    def fetchone(self) -> Any: ...


class Transaction(Protocol):
    """Statements inside one transaction (`Database.transaction`)."""

    def execute(self, sql: str, params: Params = (), /) -> Cursor: ...
    def executemany(self, sql: str, rows: Sequence[Params], /) -> Any: ...


class StoreUnavailable(RuntimeError):
    """The store's server could not be reached (within the retry budget): nothing was written."""


class Database(Protocol):
    dialect: Dialect
    seq: str                    # the column that orders a table's rows by when they were written
    path: str                   # where it is, for messages (a URL without its password)
    sealer: Sealer | None

    @property
    def in_memory(self) -> bool: ...
    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]: ...
    def query_one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None: ...
    def run(self, sql: str, params: Params = ()) -> int: ...
    def transaction(self, *, immediate: bool = False) -> AbstractContextManager[Transaction]: ...
    def snapshot(self) -> AbstractContextManager[Transaction]: ...
    def migrate(self, component: str, migrations: Migrations) -> int: ...
    def vacuum(self, tables: Sequence[str] = ()) -> None: ...
    def close(self) -> None: ...
    def seal(self, value: str | None, where: str) -> str | None: ...
    def unseal(self, value: str | None, where: str) -> str | None: ...
    def reseal(self, value: str | None, where: str) -> str | None: ...
    def seal_blob(self, value: bytes | None, where: str) -> bytes | None: ...
    def unseal_blob(self, value: bytes | None, where: str) -> bytes | None: ...
    def lookup(self, text: str) -> str: ...


class SealedValues:
    """Sealing for a database that has a `sealer` (None: values are stored as given)."""

    sealer: Sealer | None = None

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


def open_sealer(registered: list[str], register: Callable[[str], object], where: str,
                environ: dict[str, str] | None) -> Sealer:
    """The sealer for a store whose `store_keys` hold `registered`: the key it was sealed with,
    found before anything is read. A new store takes the configured key (made on first use)
    and `register`s it; a store sealed with a key this process does not have is refused, with
    where the key was looked for."""
    if not registered:
        source = ensure_key(environ)
        register(key_id(source.keys[0]))
        return Sealer(source.keys)
    source = find_keys(environ)
    current = [k for k in source.keys if key_id(k) in registered]
    if not current:
        have = f"the key there is {', '.join(source.ids)}" if source.keys else "there is no key there"
        raise StoreKeyError(
            f"{where} is sealed with key {', '.join(registered)}, and {have} (looked in {source.where}). "
            "Nothing was read or changed. Restore the key file it was made with, or set "
            "MONOLOGUE_STORE_KEY / MONOLOGUE_KEY_FILE to it")
    finish_rotation(current[0], environ)
    return Sealer([current[0], *(k for k in source.keys if k is not current[0])])


def finish_rotation(current: bytes, environ: dict[str, str] | None) -> None:
    """A rotation that sealed the store with its new key but stopped before renaming the key
    file: the pending key is now the key."""
    path = key_file_path(environ)
    pending = pending_key_path(path)
    if pending.is_file() and decode_key(pending.read_text(), str(pending)) == current:
        if path.is_file():
            retire_key(path, decode_key(path.read_text(), str(path)))    # other stores may use it
        pending.replace(path)
        logger.info(f"finished an interrupted key rotation: {path} now holds key {key_id(current)}")


SCHEMA_VERSIONS = "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"


def apply_migrations(tx: Transaction, component: str, steps: list[list[str]]) -> int:
    """Inside the caller's locked transaction: apply the steps `component` has not had yet.
    Returns the version it is at now."""
    row = tx.execute("SELECT version FROM schema_versions WHERE component = ?", (component,)).fetchone()
    current = int(row[0]) if row else 0
    if current > len(steps):
        raise RuntimeError(f"the store's {component} schema is at version {current}, newer than this Monologue "
                           f"knows ({len(steps)}): upgrade Monologue on every worker")
    for number, statements in enumerate(steps[current:], start=current + 1):
        for statement in statements:
            tx.execute(statement)
        logger.debug(f"store: {component} schema now at version {number}")
    if current < len(steps):
        tx.execute("INSERT INTO schema_versions (component, version) VALUES (?, ?) "
                   "ON CONFLICT (component) DO UPDATE SET version = excluded.version", (component, len(steps)))
    return len(steps)


def retrying(what: str, attempt: Callable[[], Any], retryable: tuple[type[BaseException], ...],
             budget_secs: float, where: str) -> Any:
    """`attempt()`, tried again while it fails with a `retryable` error (a server restarting, a
    network drop) until `budget_secs` have passed; then `StoreUnavailable` saying what failed."""
    deadline = time.monotonic() + budget_secs
    delay = 0.05
    while True:
        try:
            return attempt()
        except retryable as exc:
            if time.monotonic() + delay > deadline:
                raise StoreUnavailable(f"{what}: {where} did not answer for {budget_secs:.0f} s ({exc}). "
                                       "Nothing was written; check that the server is up and reachable") from exc
            logger.warning(f"{what}: {where} unreachable ({str(exc).strip()[:120]}); retrying")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


_SERVERS: dict[str, Database] = {}


def is_postgres_url(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


def open_database(target: str | Path | Database) -> Database:
    """A store's argument: an open database to share, a path to a SQLite file (or
    `sqlite:///path`, `:memory:`), or a `postgresql://` URL. A process opens one pool per
    server URL, shared by every store on it."""
    if not isinstance(target, str | Path):
        return target
    text = str(target)
    if is_postgres_url(text):
        if text not in _SERVERS:
            from monologue.memory.stores.postgres import PostgresDatabase

            _SERVERS[text] = PostgresDatabase(text)
        return _SERVERS[text]
    if text.startswith("sqlite://"):
        text = text.removeprefix("sqlite://").removeprefix("/") or ":memory:"
    from monologue.memory.stores.sqlite import SQLiteDatabase

    return SQLiteDatabase(text)


def close_servers() -> None:
    """Close the shared server pools (a worker shutting down)."""
    for database in _SERVERS.values():
        database.close()
    _SERVERS.clear()
