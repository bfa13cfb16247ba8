"""Encryption at rest (U3): what a store on disk holds is sealed, a missing or wrong key is a
clear error that destroys nothing, a changed byte is reported and never served, and a key
rotation re-seals everything."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from monologue.memory.longterm.records import AuditEntry, MemoryRecord, MemorySource, UserProfile
from monologue.memory.stores.actions import ActionRecord, SqlActionStore
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import ERASED, SqlProfileStore
from monologue.memory.stores.rotation import NEW_KEY_ENV, rotate_key
from monologue.memory.stores.sealing import (
    KEY_ENV,
    KEY_FILE_ENV,
    SealedDataError,
    StoreKeyError,
    encode_key,
    find_keys,
    key_id,
    new_key,
    pending_key_path,
    write_key_file,
)
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.state import Change, ChangeAction, SessionState

MARKER = "Quokka-7731"       # appears nowhere but in what the user "said"


def _record(memory_id: str, user: str = "anna", text: str = f"my door code is {MARKER}") -> MemoryRecord:
    return MemoryRecord(id=memory_id, user_id=user, text=text, importance=7, source=MemorySource.USER_STATED,
                        created_at=1.0, last_accessed_at=1.0, expires_at=None)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {KEY_FILE_ENV: str(tmp_path / "keys" / "store.key")}


def _fill(path: Path, env: dict[str, str], sealed: bool = True) -> None:
    db = SQLiteDatabase(path, sealed=sealed, environ=env)
    memories = SqlMemoryStore(db)
    vector = np.full(8, 0.123456, dtype=np.float32)
    memories.put(_record("m1"), vector)
    profiles = SqlProfileStore(db)
    profiles.save(UserProfile("anna"), [AuditEntry("home", None, f"12 {MARKER} Street", "said", "s1")])
    profiles.put_summary("anna", "session", "s1", f"talked about {MARKER}", ["s1"], 1.0)
    profiles.add_commitment("anna", "s1", f"remind about {MARKER}", 1.0)
    SqlActionStore(db).add(ActionRecord("B-1", "anna", "s1", "book", "restaurant", {"name": MARKER}, 1.0,
                                           {"en": f"booked {MARKER}"}))
    state = SessionState(session_id="s1", domain="restaurant")
    state.goal = f"dinner at {MARKER}"
    change = Change(version=1, turn=1, action=ChangeAction.ADDED, slot="name", before=None, after=MARKER)
    SqlStateStore(db).commit(state, 0, [change])
    db.close()


def _bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and "keys" not in p.parts)


def test_the_raw_file_holds_no_plaintext_and_everything_reads_back(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "store" / "m.db"
    _fill(path, env)
    raw = _bytes(path.parent)
    assert MARKER.encode() not in raw
    assert np.full(8, 0.123456, dtype=np.float32).tobytes() not in raw      # vectors are sealed too
    db = SQLiteDatabase(path, environ=env)
    records, vectors = SqlMemoryStore(db).all("anna")
    assert records[0].text.endswith(MARKER) and vectors[0][0] == pytest.approx(0.123456)
    assert SqlMemoryStore(db).find_text("anna", f"My door code is {MARKER}!") is not None
    profiles = SqlProfileStore(db)
    assert profiles.audit("anna")[0]["after"] == f"12 {MARKER} Street"
    assert profiles.summaries("anna", "session")[0]["text"].endswith(MARKER)
    assert profiles.open_commitments("anna")[0]["text"].endswith(MARKER)
    assert SqlActionStore(db).records("anna")[0].args == {"name": MARKER}
    state_store = SqlStateStore(db)
    loaded = state_store.load("s1")
    assert loaded is not None and loaded.goal.endswith(MARKER)
    assert state_store.history("s1")[0].after == MARKER
    # The unsealed store, for comparison, does hold it: the scan is able to find it.
    _fill(tmp_path / "plain" / "m.db", env, sealed=False)
    assert MARKER.encode() in _bytes(tmp_path / "plain")


def test_a_missing_or_wrong_key_is_a_clear_error_that_changes_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    _fill(path, env)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    registered = key_id(find_keys(env).keys[0])
    Path(env[KEY_FILE_ENV]).rename(tmp_path / "elsewhere.key")
    with pytest.raises(StoreKeyError, match=rf"sealed with key {registered}.*no key there.*Nothing was read"):
        SqlMemoryStore(SQLiteDatabase(path, environ=env))
    assert not Path(env[KEY_FILE_ENV]).exists()               # a missing key is not silently replaced
    with pytest.raises(StoreKeyError, match=rf"sealed with key {registered}, and the key there is"):
        SQLiteDatabase(path, environ={KEY_ENV: encode_key(new_key())})
    with pytest.raises(StoreKeyError, match="not base64|bytes, not 32"):
        SQLiteDatabase(path, environ={KEY_ENV: "short"})
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    (tmp_path / "elsewhere.key").rename(env[KEY_FILE_ENV])
    assert len(SqlMemoryStore(SQLiteDatabase(path, environ=env)).all("anna")[0]) == 1


def test_a_changed_or_moved_value_is_reported_never_served(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    db = SQLiteDatabase(path, environ=env)
    memories = SqlMemoryStore(db)
    memories.put(_record("m1"), None)
    memories.put(_record("m2", text="I like jazz"), None)
    memories.put(_record("b1", user="ben", text="ben's secret"), None)
    SqlProfileStore(db).append_audit("anna", "memory:m1", "old", "new", "said", "s1")
    db.close()
    raw = sqlite3.connect(path)
    sealed = raw.execute("SELECT record FROM memories WHERE id = 'm1'").fetchone()[0]
    flipped = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]
    raw.execute("UPDATE memories SET record = ? WHERE id = 'm1'", (flipped,))
    bens = raw.execute("SELECT record FROM memories WHERE id = 'b1'").fetchone()[0]
    raw.execute("UPDATE memories SET record = ? WHERE id = 'm2'", (bens,))     # ben's row copied into anna's
    raw.execute("DROP TRIGGER audit_log_is_append_only")
    raw.execute("UPDATE audit_log SET after = before")
    raw.commit()
    raw.close()
    store = SqlMemoryStore(SQLiteDatabase(path, environ=env))
    records, vectors = store.all("anna")
    assert records == [] and len(vectors) == 0
    assert store.damaged == ["m1", "m2"]
    assert [r.text for r in store.all("ben")[0]] == ["ben's secret"]
    entry = SqlProfileStore(SQLiteDatabase(path, environ=env)).audit("anna")[0]
    assert entry["what"] == "memory:m1" and entry["after"] is None and "integrity" in entry.get("damaged", "")


def test_a_key_rotation_reseals_everything_and_retires_the_old_key(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "store" / "m.db"
    _fill(path, env)
    old_key = find_keys(env).keys[0]
    rotation = rotate_key(path, env)
    assert rotation.old_key == key_id(old_key) and rotation.new_key != rotation.old_key
    assert rotation.values >= 7
    assert find_keys(env).ids[0] == rotation.new_key              # the key file's key; the old one retired
    assert not pending_key_path(Path(env[KEY_FILE_ENV])).exists()
    db = SQLiteDatabase(path, environ=env)
    assert SqlMemoryStore(db).all("anna")[0][0].text.endswith(MARKER)
    assert SqlMemoryStore(db).find_text("anna", f"my door code is {MARKER}") is not None
    assert SqlProfileStore(db).audit("anna")[0]["after"] == f"12 {MARKER} Street"
    db.close()
    assert MARKER.encode() not in _bytes(path.parent)
    with pytest.raises(StoreKeyError):
        SQLiteDatabase(path, environ={KEY_ENV: encode_key(old_key)})
    # With the key in the environment, the new key is given (by a secret manager), not made.
    k1, k2 = new_key(), new_key()
    _fill(tmp_path / "env" / "m.db", {KEY_ENV: encode_key(k1)})
    with pytest.raises(StoreKeyError, match=NEW_KEY_ENV):
        rotate_key(tmp_path / "env" / "m.db", {KEY_ENV: encode_key(k1)})
    rotation = rotate_key(tmp_path / "env" / "m.db", {KEY_ENV: encode_key(k1), NEW_KEY_ENV: encode_key(k2)})
    assert rotation.new_key == key_id(k2) and KEY_ENV in rotation.key_file
    reopened = SQLiteDatabase(tmp_path / "env" / "m.db", environ={KEY_ENV: encode_key(k2)})
    assert SqlMemoryStore(reopened).all("anna")[0]
    with pytest.raises(StoreKeyError):
        SQLiteDatabase(tmp_path / "env" / "m.db", environ={KEY_ENV: encode_key(k1)})


def test_a_rotation_stopped_after_its_commit_is_finished_on_open(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    _fill(path, env)
    key_file = Path(env[KEY_FILE_ENV])
    old = find_keys(env).keys[0]
    rotate_key(path, env)
    new = find_keys(env).keys[0]
    # As if the process died between the commit and the rename: the old key is still the file.
    write_key_file(pending_key_path(key_file), new)
    write_key_file(key_file, old)
    assert SqlMemoryStore(SQLiteDatabase(path, environ=env)).all("anna")[0][0].text.endswith(MARKER)
    assert find_keys(env).keys[0] == new and not pending_key_path(key_file).exists()


def test_a_store_written_before_sealing_is_read_and_sealed_by_a_rotation(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "store" / "m.db"
    _fill(path, env, sealed=False)
    db = SQLiteDatabase(path, environ=env)                       # opened sealed now: old rows read as they are
    assert SqlMemoryStore(db).all("anna")[0][0].text.endswith(MARKER)
    assert SqlMemoryStore(db).find_text("anna", f"my door code is {MARKER}") is not None
    db.close()
    rotate_key(path, env)
    assert MARKER.encode() not in _bytes(path.parent)
    assert SqlMemoryStore(SQLiteDatabase(path, environ=env)).all("anna")[0][0].text.endswith(MARKER)


def test_sensitive_kinds_are_sealed_in_the_audit_log_and_read_back_by_the_owner(tmp_path: Path,
                                                                              env: dict[str, str]) -> None:
    """Regression: the audit log's `what` column named "dietary:nuts" in plain text. A profile slot is
    sealed; a memory's id and the tombstone stay plain (ids, not what was said)."""
    path = tmp_path / "store" / "m.db"
    profiles = SqlProfileStore(SQLiteDatabase(path, environ=env))
    profiles.save(UserProfile("anna"), [
        AuditEntry("dietary:peanuts", None, "dietary excludes peanuts", "new preference", "s1"),
        AuditEntry("health:insulin", None, "health = insulin", "new preference", "s1"),
        AuditEntry("饮食:花生", None, "饮食 不要 花生", "new preference", "s1")])
    profiles.append_audit("anna", "memory:0a1b2c3d4e5f", None, "a note", "new fact", "s1")
    raw = _bytes(path.parent)
    for word in ("peanuts", "insulin", "dietary", "health", "花生"):
        assert word.encode() not in raw, word
    assert b"memory:0a1b2c3d4e5f" in raw                        # an id: kept plain
    log = SqlProfileStore(SQLiteDatabase(path, environ=env)).audit("anna")
    assert [e["what"] for e in log] == ["dietary:peanuts", "health:insulin", "饮食:花生", "memory:0a1b2c3d4e5f"]
    assert log[0]["after"] == "dietary excludes peanuts"


def test_a_kind_written_plain_before_is_sealed_by_a_rotation(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "store" / "m.db"
    SqlProfileStore(SQLiteDatabase(path, sealed=False, environ=env)).append_audit(
        "anna", "dietary:peanuts", None, "dietary excludes peanuts", "new preference", "s1")
    assert b"peanuts" in _bytes(path.parent)
    rotate_key(path, env)
    assert b"peanuts" not in _bytes(path.parent)
    log = SqlProfileStore(SQLiteDatabase(path, environ=env)).audit("anna")
    assert [(e["what"], e["after"]) for e in log] == [("dietary:peanuts", "dietary excludes peanuts")]


def test_a_damaged_kind_is_reported_not_shown_as_ciphertext(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    SqlProfileStore(SQLiteDatabase(path, environ=env)).append_audit("anna", "dietary:peanuts", None, "x", "said", "s1")
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER audit_log_is_append_only")
    raw.execute("UPDATE audit_log SET what = 'sealed:v1:deadbeef:AAAAAAAAAAAAAAAAAAAAAAAA'")
    raw.commit()
    raw.close()
    entry = SqlProfileStore(SQLiteDatabase(path, environ=env)).audit("anna")[0]
    assert entry["what"] == "(unreadable)" and entry["after"] is None and "damaged" in entry


def test_an_erase_leaves_a_content_free_tombstone(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    _fill(path, env)
    profiles = SqlProfileStore(SQLiteDatabase(path, environ=env))
    profiles.erase("anna", "s9")
    log = profiles.audit("anna")
    assert [(e["what"], e["before"], e["after"], e["session"]) for e in log] == [(ERASED, None, None, "s9")]


def test_sealed_values_are_bound_to_their_place(env: dict[str, str], tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "m.db", environ=env)
    assert db.sealer is not None
    sealed = db.sealer.seal_text("hello", "memories/anna/m1/record")
    assert db.sealer.open_text(sealed, "memories/anna/m1/record") == "hello"
    with pytest.raises(SealedDataError):
        db.sealer.open_text(sealed, "memories/ben/m1/record")
    assert db.sealer.lookup("a") == db.sealer.lookup("a") != db.sealer.lookup("b")
    assert SQLiteDatabase(":memory:").sealer is None                   # nothing at rest in memory


def test_a_cut_or_foreign_value_is_reported_as_damaged_not_a_crash(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "m.db"
    db = SQLiteDatabase(path, environ=env)
    store = SqlMemoryStore(db)
    for memory_id in ("m1", "m2", "m3"):
        store.put(_record(memory_id, text=f"note {memory_id}"), None)
    db.close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE memories SET record = substr(record, 1, 30) WHERE id = 'm1'")            # cut short
    raw.execute("UPDATE memories SET record = 'sealed:v1:deadbeef:AAAAAAAAAAAAAAAAAAAAAAAA' WHERE id = 'm2'")
    raw.commit()
    raw.close()
    reopened = SqlMemoryStore(SQLiteDatabase(path, environ=env))
    assert [r.text for r in reopened.all("anna")[0]] == ["note m3"] and reopened.damaged == ["m1", "m2"]


def test_rotating_one_store_leaves_another_made_with_the_same_key_file_readable(tmp_path: Path,
                                                                               env: dict[str, str]) -> None:
    _fill(tmp_path / "a" / "m.db", env)
    _fill(tmp_path / "b" / "m.db", env)
    rotate_key(tmp_path / "a" / "m.db", env)
    for store in ("a", "b"):
        assert SqlMemoryStore(SQLiteDatabase(tmp_path / store / "m.db", environ=env)).all("anna")[0]
    # A new store takes the key file's (new) key, not a retired one.
    fresh = SQLiteDatabase(tmp_path / "c" / "m.db", environ=env)
    assert fresh.sealer is not None and fresh.sealer.current == key_id(find_keys(env).keys[0])


def test_two_first_opens_at_once_agree_on_one_key(tmp_path: Path, env: dict[str, str]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from monologue.memory.stores.sealing import ensure_key

    with ThreadPoolExecutor(8) as pool:
        ids = set(pool.map(lambda _: ensure_key(env).ids[0], range(16)))
    assert len(ids) == 1 and len([p for p in Path(env[KEY_FILE_ENV]).parent.iterdir()]) == 1
