"""Erase that leaves nothing (U1): one user, every place Monologue put them, on every backend.

Memories and vectors, profile, summaries, commitments, what was done for them, the audit
log's entries (one content-free tombstone stays, proving the erase happened), the working
states and change histories of their sessions, and the files their sessions wrote (trace,
transcript, audio, report) in every folder each one wrote to: a session continued under
another `--out`, by another worker or another `monologue chat`, left files in each
(`SqlProfileStore.sessions_of`). A folder is reached by its path, so a worker on another
machine's disk must share it (one volume for `--out`) for its files to go. On SQLite,
deleted rows are overwritten (`secure_delete`), the file is rebuilt (VACUUM) and the
write-ahead log emptied, so neither free pages nor the log
hold what was said; on PostgreSQL the tables are rewritten (VACUUM FULL); in Redis the keys
go and the append-only file is rewritten; each worker's memory cache drops the user at its
next sweep (`SqlMemoryStore.sweep`). What stays outside: a server's write-ahead log and
backups until they are recycled (the operator's retention).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loguru import logger

from monologue.memory.stores.database import Database
from monologue.memory.stores.factory import Stores, open_stores
from monologue.memory.stores.journal import SqlTurnJournal

# What a session writes to its folder (`--out`), all of it the user's words or voice.
SESSION_FILES = ("trace.jsonl", "transcript.txt", "reply.wav", "conversation.wav", "heard.wav", "report.html")


@dataclass
class Erasure:
    memories: int = 0
    actions: int = 0
    states: int = 0
    files: list[str] = field(default_factory=list)


def remove_session_files(folders: list[str]) -> list[str]:
    """Delete the files sessions wrote in these folders; returns what was deleted."""
    removed = []
    for folder in dict.fromkeys(f for f in folders if f):
        for name in SESSION_FILES:
            path = Path(folder) / name
            try:
                path.unlink()
                removed.append(str(path))
            except FileNotFoundError:
                continue
            except OSError as exc:     # reported, and the rest still goes
                logger.error(f"erase: could not delete {path}: {exc}")
    return removed


def erase_user(stores: Stores | Database, user_id: str, session_id: str = "") -> Erasure:
    """Erase `user_id` from `stores` (or every store on one database) and the files of their
    sessions."""
    stores = stores if isinstance(stores, Stores) else open_stores(stores)
    profiles = stores.profiles
    sessions = profiles.sessions_of(user_id)
    erasure = Erasure()
    erasure.memories = stores.memories.erase_user(user_id)
    erasure.actions = stores.actions.erase(user_id)
    erasure.states = stores.states.erase_sessions([s for s, _ in sessions])
    erasure.files = remove_session_files([folder for _, folder in sessions])
    SqlTurnJournal(stores.database).forget_sessions([s for s, _ in sessions])   # their turn numbers
    stores.access.forget_sessions(user_id)     # whose the sessions were (credentials stay: `users remove`)
    # Last: the session index (what found the states and files) with the rest, the tombstone,
    # then VACUUM and the log emptied. A crash before this leaves everything findable again.
    profiles.erase(user_id, session_id)
    return erasure
