"""The journal of pending long-term writes: what makes an acknowledged turn's memories durable.

A turn's long-term writes (the memory of what the user said, a settled question, a promise)
run in the background, after the reply. Before the reply is acknowledged, the turn's inputs
are written here in one small transaction (`add`); once its writes have landed the entry is
deleted (`done`). A worker killed in between leaves the entry, and the next worker that opens
the user's long-term memory replays it (`LongTermMemory.replay_pending`). Replay is idempotent:
the turn's evidence id (`session:turn`) is on every memory the turn wrote, so a turn whose
writes did land is not written twice.

The same transaction numbers the turn in the store (`session_turns`): the number is the one the
writer proposed (its own turn id), unless another writer on the same session already took it or
a later one, then the next free one. Two writers on one session therefore never share a turn
number, nor an evidence id.

The entry holds the user's words: it is sealed like a memory (`Database.seal`), re-sealed by a
key rotation and deleted by an erase (both through `SqlMemoryStore`, whose migrations create
the tables). `session_turns` holds only session ids and numbers.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from typing import Any

from loguru import logger

from monologue.memory.stores.database import Database, Transaction
from monologue.memory.stores.sealing import SealedDataError, StoreKeyError

TABLES = ("turn_journal", "session_turns")
# Steps of the `memories` component (memories.py): the journal is pending memory writes.
SQLITE_STEP = [
    "CREATE TABLE IF NOT EXISTS turn_journal (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, "
    "session_id TEXT NOT NULL, turn BIGINT NOT NULL, entry TEXT NOT NULL, writer TEXT NOT NULL, "
    "claimed_at REAL NOT NULL, UNIQUE (session_id, turn))",
    "CREATE INDEX IF NOT EXISTS turn_journal_user ON turn_journal (user_id, id)",
    "CREATE TABLE IF NOT EXISTS session_turns (session_id TEXT PRIMARY KEY, turn BIGINT NOT NULL)",
]
POSTGRES_STEP = [
    "CREATE TABLE turn_journal (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, user_id TEXT NOT NULL, "
    "session_id TEXT NOT NULL, turn BIGINT NOT NULL, entry TEXT NOT NULL, writer TEXT NOT NULL, "
    "claimed_at DOUBLE PRECISION NOT NULL, UNIQUE (session_id, turn))",
    "CREATE INDEX turn_journal_user ON turn_journal (user_id, id)",
    "CREATE TABLE session_turns (session_id TEXT PRIMARY KEY, turn BIGINT NOT NULL)",
]

# The proposed number when it is still free, else one past the last one taken: one statement,
# so two writers racing on a session are ordered by the row's lock.
_ALLOCATE = ("INSERT INTO session_turns (session_id, turn) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET "
             "turn = CASE WHEN excluded.turn > session_turns.turn THEN excluded.turn ELSE session_turns.turn + 1 END "
             "RETURNING turn")


def _where(user_id: str, session_id: str, turn: int) -> str:
    return f"turn_journal/{user_id}/{session_id}/{turn}"


def new_writer_id() -> str:
    """Who holds an entry: this process, and this memory object within it."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class JournalEntry:
    """One turn's pending long-term writes: its number in the store and what redoes them."""

    id: int
    user_id: str
    session_id: str
    turn: int                   # the store's number for the turn (the evidence id's)
    inputs: dict[str, Any]      # text, turn_class, reply_text, language, domain, awaiting
    writer: str
    claimed_at: float

    @property
    def evidence(self) -> str:
        return evidence_id(self.session_id, self.turn)


def evidence_id(session_id: str, turn: int) -> str:
    """What every memory a turn writes cites as its evidence."""
    return f"{session_id}:{turn}"


class SqlTurnJournal:
    """Pending long-term writes, in the memories' database (SQLite or PostgreSQL)."""

    def __init__(self, db: Database, writer: str = "") -> None:
        """`db`: a database the memory store has migrated (its tables are the memories' step 3)."""
        self.db = db
        self.writer = writer or new_writer_id()

    def add(self, user_id: str, session_id: str, proposed_turn: int, inputs: dict[str, Any],
            at: float | None = None) -> JournalEntry:
        """Number the turn and journal its inputs, durably, in one transaction."""
        now = time.time() if at is None else at
        with self.db.transaction(immediate=True) as tx:
            turn = int(tx.execute(_ALLOCATE, (session_id, proposed_turn)).fetchone()[0])
            sealed = self.db.seal(json.dumps(inputs, ensure_ascii=False), _where(user_id, session_id, turn))
            row = tx.execute("INSERT INTO turn_journal (user_id, session_id, turn, entry, writer, claimed_at) "
                             "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                             (user_id, session_id, turn, sealed, self.writer, now)).fetchone()
        return JournalEntry(int(row[0]), user_id, session_id, turn, inputs, self.writer, now)

    def done(self, entry_id: int) -> None:
        """The entry's writes have landed."""
        self.db.run("DELETE FROM turn_journal WHERE id = ?", (entry_id,))

    def pending(self, user_id: str, *, stale_before: float) -> list[JournalEntry]:
        """The user's entries, oldest first, that no writer has claimed since `stale_before`
        (another live worker may still be writing the newer ones), this writer's own left out
        (it retries those itself)."""
        rows = self.db.query("SELECT id, session_id, turn, entry, writer, claimed_at FROM turn_journal "
                             "WHERE user_id = ? AND claimed_at <= ? AND writer <> ? ORDER BY id",
                             (user_id, stale_before, self.writer))
        entries = []
        for entry_id, session_id, turn, sealed, writer, claimed_at in rows:
            where = _where(user_id, session_id, int(turn))
            try:
                inputs = json.loads(self.db.unseal(sealed, where) or "{}")
            except (SealedDataError, StoreKeyError, ValueError) as exc:
                # Reported and left where it is: the other entries are still replayed.
                logger.error(f"journal entry {entry_id} of {user_id!r} (turn {turn}) cannot be read: {exc}")
                continue
            entries.append(JournalEntry(int(entry_id), user_id, session_id, int(turn), inputs, writer,
                                        float(claimed_at)))
        return entries

    def claim(self, entry: JournalEntry, at: float | None = None) -> bool:
        """Take the entry over for replay; False if another writer claimed it since it was read."""
        now = time.time() if at is None else at
        return self.db.run("UPDATE turn_journal SET writer = ?, claimed_at = ? WHERE id = ? AND writer = ? "
                           "AND claimed_at = ?", (self.writer, now, entry.id, entry.writer, entry.claimed_at)) == 1

    def forget_sessions(self, session_ids: list[str]) -> int:
        """An erase: these sessions' turn numbers and pending entries go (the entries also go
        with their user, `erase_entries`). Returns the rows deleted."""
        if not session_ids:
            return 0
        marks = ",".join("?" * len(session_ids))
        with self.db.transaction(immediate=True) as tx:
            return sum(int(tx.execute(f"DELETE FROM {table} WHERE session_id IN ({marks})",
                                      tuple(session_ids)).rowcount) for table in TABLES)

    def count(self, user_id: str) -> int:
        row = self.db.query_one("SELECT count(*) FROM turn_journal WHERE user_id = ?", (user_id,))
        return int(row[0]) if row else 0


def erase_entries(tx: Transaction, user_id: str) -> int:
    """Inside an erase's transaction: the user's pending entries (their words) go too."""
    return int(tx.execute("DELETE FROM turn_journal WHERE user_id = ?", (user_id,)).rowcount)


def reseal_entries(db: Database, tx: Transaction) -> int:
    """Inside a key rotation's transaction: every entry sealed again with the current key."""
    rows = tx.execute("SELECT id, user_id, session_id, turn, entry FROM turn_journal").fetchall()
    for entry_id, user_id, session_id, turn, entry in rows:
        tx.execute("UPDATE turn_journal SET entry = ? WHERE id = ?",
                   (db.reseal(entry, _where(user_id, session_id, int(turn))), entry_id))
    return len(rows)
