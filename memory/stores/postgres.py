"""The stores on PostgreSQL: many workers, on several machines, sharing one memory database.

The same stores as on SQLite (memories, profiles, actions, session states): they speak the
SQL both engines share, and this class gives them PostgreSQL through one pool of psycopg 3
connections per process. What the user said is sealed as on SQLite (`sealing.py`): the
server holds ciphertext, and every worker needs the same key ($MONOLOGUE_STORE_KEY).

A server that is restarting or briefly unreachable is waited for, with retries, up to
`retry_secs`; after that the call fails with `StoreUnavailable`, which says so, and nothing
half-written stays (each write is one transaction).
"""

from __future__ import annotations

import re
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from monologue.memory.stores.database import (
    SCHEMA_VERSIONS,
    Dialect,
    Migrations,
    Params,
    SealedValues,
    StoreUnavailable,
    apply_migrations,
    open_sealer,
    retrying,
)

CONNECT_TIMEOUT_SECS = 5.0
RETRY_SECS = 10.0
SCHEMA_LOCK = zlib.crc32(b"monologue:schema")     # the advisory lock schema changes are made under


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise RuntimeError("a postgresql:// store needs psycopg 3 and psycopg-pool: "
                           "pip install 'psycopg[binary]' psycopg-pool (they come with Monologue)") from exc
    return psycopg, psycopg_pool


def _server_sql(sql: str) -> str:
    """The stores' `?` parameters as psycopg's `%s` (no statement of theirs has a literal ? or %)."""
    return sql.replace("?", "%s")


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class _ServerTransaction:
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Params = (), /) -> Any:
        return self._connection.execute(_server_sql(sql), tuple(params) or None)

    def executemany(self, sql: str, rows: Sequence[Params], /) -> Any:
        cursor = self._connection.cursor()
        if rows:
            cursor.executemany(_server_sql(sql), [tuple(r) for r in rows])
        return cursor


class PostgresDatabase(SealedValues):
    """One PostgreSQL database, reached through a small pool of connections."""

    dialect: Dialect = "postgres"
    seq = "seq"

    def __init__(self, url: str, *, sealed: bool | None = None, environ: dict[str, str] | None = None,
                 pool_size: int = 4, retry_secs: float = RETRY_SECS) -> None:
        """`sealed`: encrypt what the stores write (default: on); `retry_secs`: how long a
        call waits for an unreachable server before it fails."""
        psycopg, psycopg_pool = _psycopg()
        self.url = url
        self.path = redact(url)
        self.retry_secs = retry_secs
        self._retryable = (psycopg.OperationalError, psycopg_pool.PoolTimeout)
        self._pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=pool_size, open=False, timeout=CONNECT_TIMEOUT_SECS,
            kwargs={"autocommit": True, "connect_timeout": int(CONNECT_TIMEOUT_SECS)},
            check=psycopg_pool.ConnectionPool.check_connection, name="monologue")
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECS)
        except psycopg_pool.PoolTimeout as exc:
            self._pool.close()
            raise StoreUnavailable(f"could not connect to the store {self.path} within {CONNECT_TIMEOUT_SECS:.0f} s. "
                                   "Check that PostgreSQL is running there and store.url is right") from exc
        self._lock = threading.Lock()
        self.sealer = None
        if sealed is None or sealed:
            self.sealer = self._attempt("store key", lambda: self._open_sealer(environ))

    def _open_sealer(self, environ: dict[str, str] | None) -> Any:
        """The key check, under the schema lock: workers starting together register one key."""
        with self._pool.connection() as connection, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            connection.execute("CREATE TABLE IF NOT EXISTS store_keys (key_id TEXT PRIMARY KEY, "
                               "added_at DOUBLE PRECISION NOT NULL)")
            registered = [r[0] for r in connection.execute("SELECT key_id FROM store_keys").fetchall()]
            return open_sealer(registered, lambda key: connection.execute(
                "INSERT INTO store_keys VALUES (%s, %s) ON CONFLICT DO NOTHING", (key, time.time())),
                self.path, environ)

    @property
    def in_memory(self) -> bool:
        return False

    def _attempt(self, what: str, work: Any) -> Any:
        return retrying(what, work, self._retryable, self.retry_secs, self.path)

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        def attempt() -> list[tuple[Any, ...]]:
            with self._pool.connection() as connection:
                return list(connection.execute(_server_sql(sql), tuple(params) or None).fetchall())
        result: list[tuple[Any, ...]] = self._attempt("store read", attempt)
        return result

    def query_one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def run(self, sql: str, params: Params = ()) -> int:
        def attempt() -> int:
            with self._pool.connection() as connection:
                return int(connection.execute(_server_sql(sql), tuple(params) or None).rowcount)
        count: int = self._attempt("store write", attempt)
        return count

    @contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[_ServerTransaction]:
        """Statements inside commit together or not at all. (`immediate` is SQLite's: here a
        compare-and-set is one conditional UPDATE, and row locks order the writers.) Getting a
        connection waits for an unreachable server up to `retry_secs`; a failure inside is
        the caller's to retry, as the statements are theirs."""
        psycopg, _ = _psycopg()
        connection = self._attempt("store connection", lambda: self._pool.getconn())
        try:
            with connection.transaction():
                yield _ServerTransaction(connection)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"the store {self.path} dropped the connection in a write ({str(exc).strip()}); "
                                   "it was not acknowledged: try again") from exc
        finally:
            self._pool.putconn(connection)

    @contextmanager
    def snapshot(self) -> Iterator[_ServerTransaction]:
        """Reads inside see one state of the database (REPEATABLE READ, read only)."""
        connection = self._attempt("store connection", lambda: self._pool.getconn())
        try:
            connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield _ServerTransaction(connection)
            finally:
                connection.execute("ROLLBACK")
        finally:
            self._pool.putconn(connection)

    def migrate(self, component: str, migrations: Migrations) -> int:
        """Bring `component`'s tables up to date; several workers starting at once take turns
        on an advisory lock, and each step is applied once."""
        def attempt() -> int:
            with self._pool.connection() as connection, connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                connection.execute(SCHEMA_VERSIONS)
                return apply_migrations(_ServerTransaction(connection), component, migrations["postgres"])
        version: int = self._attempt(f"store migration ({component})", attempt)
        return version

    def vacuum(self, tables: Sequence[str] = ()) -> None:
        """Rewrite `tables` and their indexes (VACUUM FULL), so rows deleted by an erase leave no
        copy in the table's files: a plain VACUUM only marks their space reusable. It locks each
        table for the rewrite (an erase is rare; its cost grows with the table)."""
        for table in tables:
            self.run(f"VACUUM (FULL) {table}")

    def close(self) -> None:
        self._pool.close()

