"""Key rotation (`monologue memory rotate-key`): every sealed value of a store, sealed again
under a new key, in one transaction.

The order makes every crash recoverable: the new key is written first, beside the old one
(`store.key.new`); the store is re-sealed and records the new key's id in the same
transaction; only then does the new key replace the old file. A crash before the commit
leaves the store on the old key (the pending file is overwritten by the next rotation); a
crash after it leaves the store on the new key, which opening the store finds in the
pending file and finishes (`database.finish_rotation`).

Sessions that hold the store open keep sealing with the key they opened it with: stop them
before rotating.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from monologue.memory.stores.actions import SqlActionStore
from monologue.memory.stores.database import Database, is_postgres_url
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.sealing import (
    KEY_ENV,
    Sealer,
    StoreKeyError,
    decode_key,
    key_file_path,
    key_id,
    new_key,
    pending_key_path,
    retire_key,
    write_key_file,
)
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.stores.state import SqlStateStore

NEW_KEY_ENV = "MONOLOGUE_NEW_STORE_KEY"


@dataclass(frozen=True)
class Rotation:
    old_key: str
    new_key: str
    values: int              # how many sealed values were rewritten
    key_file: str            # where the new key is, or the variable to set


def rotate_key(path: str | Path, environ: dict[str, str] | None = None) -> Rotation:
    """Seal the store at `path` under a new key. The key file gets the new key; where the key
    comes from `$MONOLOGUE_STORE_KEY`, the new one must be given in `$MONOLOGUE_NEW_STORE_KEY`
    (a secret manager holds it, not this program)."""
    env = dict(os.environ if environ is None else environ)
    db: Database
    if is_postgres_url(str(path)):
        from monologue.memory.stores.postgres import PostgresDatabase

        db = PostgresDatabase(str(path), sealed=True, environ=env)
    else:
        db = SQLiteDatabase(path, sealed=True, environ=env)
    assert db.sealer is not None
    old = db.sealer.current
    if env.get(KEY_ENV):
        if not env.get(NEW_KEY_ENV):
            raise StoreKeyError(f"the store key comes from ${KEY_ENV}: put the new key (`monologue memory new-key`) "
                                f"in ${NEW_KEY_ENV} and run this again, then replace ${KEY_ENV} with it")
        fresh = decode_key(env[NEW_KEY_ENV], f"${NEW_KEY_ENV}")
        where = f"${KEY_ENV} (set it to the value of ${NEW_KEY_ENV} now)"
        pending = None
    else:
        fresh = new_key()
        pending = pending_key_path(key_file_path(env))
        write_key_file(pending, fresh)
        where = str(key_file_path(env))
    stores = (SqlMemoryStore(db), SqlProfileStore(db), SqlActionStore(db), SqlStateStore(db))
    previous = db.sealer
    db.sealer = Sealer([fresh, *(k for k in db.sealer.keys)])
    try:
        with db.transaction(immediate=True) as tx:
            values = sum(store.reseal(tx) for store in stores)
            tx.execute("DELETE FROM store_keys")
            tx.execute("INSERT INTO store_keys VALUES (?, ?)", (key_id(fresh), time.time()))
    except BaseException:
        db.sealer = previous
        if pending is not None:
            pending.unlink(missing_ok=True)
        raise
    if pending is not None:
        # The old key is retired, not destroyed: other stores made with this key file may still
        # be sealed with it. This store holds nothing under it any more.
        key_file = key_file_path(env)
        if key_file.is_file():
            retire_key(key_file, decode_key(key_file.read_text(), str(key_file)))
        pending.replace(key_file)
    # The old ciphertext leaves the free pages and the log (SQLite), the tables' files (PostgreSQL).
    db.vacuum(("memories", "placeholders", "profiles", "summaries", "commitments", "audit_log", "action_records",
               "session_state", "state_history", "session_said", "turn_journal"))
    db.close()
    return Rotation(old, key_id(fresh), values, where)
