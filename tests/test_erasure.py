"""Erase that leaves nothing (U1): after `erase_user`, no byte of any file
under the store's folder — the database, its write-ahead log, free pages — holds what the
user said, and nothing of another user is touched. Run on an unsealed store, where the words
would be visible if they were left anywhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from monologue.memory.longterm.records import AuditEntry, MemoryRecord, MemorySource, UserProfile
from monologue.memory.stores.actions import ActionRecord, SqlActionStore
from monologue.memory.stores.erasure import SESSION_FILES, erase_user
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.profiles import ERASED, SqlProfileStore
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.state import Change, ChangeAction, SessionState


def _put_user(db: SQLiteDatabase, user: str, marker: str, out: Path) -> None:
    memories = SqlMemoryStore(db)
    for i in range(40):       # enough rows to span several pages
        memories.put(MemoryRecord(id=f"{user}-{i}", user_id=user, text=f"note {i}: {marker} " + "x" * 200,
                                  importance=5, source=MemorySource.USER_STATED, created_at=1.0,
                                  last_accessed_at=1.0, expires_at=None), np.ones(16, dtype=np.float32))
    profiles = SqlProfileStore(db)
    profiles.save(UserProfile(user), [AuditEntry("home", None, marker, "said", f"{user}-s1")])
    profiles.put_summary(user, "session", f"{user}-s1", f"talked about {marker}", [f"{user}-s1"], 1.0)
    profiles.add_commitment(user, f"{user}-s1", f"call back about {marker}", 1.0)
    profiles.record_session(user, f"{user}-s1", str(out))
    SqlActionStore(db).add(ActionRecord(f"B-{user}", user, f"{user}-s1", "book", "restaurant",
                                           {"name": marker}, 1.0, {"en": f"booked {marker}"}))
    state = SessionState(session_id=f"{user}-s1")
    state.goal = marker
    SqlStateStore(db).commit(state, 0, [Change(version=1, turn=1, action=ChangeAction.ADDED, slot="name",
                                                  after=marker)])
    SqlStateStore(db).add_said(f"{user}-s1", "user", f"the code word is {marker}", 1)
    out.mkdir(parents=True)
    for name in SESSION_FILES:
        (out / name).write_text(marker)


def _scan(folder: Path, marker: str) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]


def test_an_erase_leaves_no_byte_of_the_user_in_any_file(tmp_path: Path) -> None:
    store = tmp_path / "store"
    db = SQLiteDatabase(store / "monologue.db", sealed=False)
    _put_user(db, "anna", "Wombat-5521", tmp_path / "out-anna")
    _put_user(db, "ben", "Numbat-8830", tmp_path / "out-ben")
    assert _scan(store, "Wombat-5521")                   # the scan does find plaintext before the erase
    erased = erase_user(db, "anna", "s-erase")
    assert (erased.memories, erased.actions, erased.states, len(erased.files)) == (40, 1, 1, len(SESSION_FILES))
    assert _scan(store, "Wombat-5521") == []
    assert _scan(tmp_path, "Wombat-5521") == []           # session files too
    assert _scan(store, "Numbat-8830") and (tmp_path / "out-ben" / "trace.jsonl").exists()
    assert len(SqlMemoryStore(db).all("ben")[0]) == 40
    profiles = SqlProfileStore(db)
    assert [(e["what"], e["before"], e["after"]) for e in profiles.audit("anna")] == [(ERASED, None, None)]
    assert SqlStateStore(db).load("anna-s1") is None and SqlStateStore(db).load("ben-s1") is not None
    db.close()
    assert _scan(store, "Wombat-5521") == []               # and after the connection closed (WAL checkpointed)


def test_names_are_stored_as_placeholders_and_served_restored(tmp_path: Path) -> None:
    """U4: the stored record holds <PERSON_n>/<PLACE_n>; the mapping is the user's own table;
    what the store serves (local use) has the names back; an erase drops the mapping too."""
    db = SQLiteDatabase(tmp_path / "m.db", sealed=False)
    store = SqlMemoryStore(db)
    said = ["My wife Ottilie is allergic to shellfish.", "We moved to Reykjavik last year.",
            "Ottilie loves the window table.", "我女儿叫小雨，她对花生过敏。"]
    for i, text in enumerate(said):
        store.put(MemoryRecord(id=f"m{i}", user_id="anna", text=text, importance=5, source=MemorySource.USER_STATED,
                               created_at=1.0, last_accessed_at=1.0, expires_at=None), None)
    raw = [r[0] for r in db.query("SELECT record FROM memories ORDER BY rowid")]
    assert "Ottilie" not in "".join(raw) and "Reykjavik" not in "".join(raw) and "小雨" not in "".join(raw)
    assert '"My wife <PERSON_1> is allergic' in raw[0] and "<PERSON_1> loves" in raw[2]   # one person, one placeholder
    assert [r.text for r in SqlMemoryStore(db).all("anna")[0]] == said             # a new reader restores them
    assert SqlMemoryStore(db).find_text("anna", "my wife Ottilie is allergic to shellfish") is not None
    store.erase_user("anna")
    assert db.query("SELECT COUNT(*) FROM placeholders")[0][0] == 0


def test_a_placeholder_cached_before_another_store_erased_the_user_is_written_again(tmp_path: Path) -> None:
    db_a = SQLiteDatabase(tmp_path / "m.db", sealed=False)
    db_b = SQLiteDatabase(tmp_path / "m.db", sealed=False)
    a, b = SqlMemoryStore(db_a), SqlMemoryStore(db_b)

    def record(memory_id: str, text: str) -> MemoryRecord:
        return MemoryRecord(id=memory_id, user_id="anna", text=text, importance=5, source=MemorySource.USER_STATED,
                            created_at=1.0, last_accessed_at=1.0, expires_at=None)

    a.put(record("m1", "Lunch with Ottilie tomorrow."), None)
    b.erase_user("anna")                                       # another process erases; a's cache still knows
    a.put(record("m2", "Dinner with Ottilie on Friday."), None)
    b.put(record("m3", "Call Zebedee about the car."), None)
    texts = [r.text for r in SqlMemoryStore(SQLiteDatabase(tmp_path / "m.db", sealed=False)).all("anna")[0]]
    assert texts == ["Dinner with Ottilie on Friday.", "Call Zebedee about the car."]


def test_an_erase_spares_a_folder_another_user_wrote_to_since_and_survives_a_crash(tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "store" / "m.db", sealed=False)
    profiles = SqlProfileStore(db)
    shared, own = tmp_path / "out", tmp_path / "anna-out"
    for folder in (shared, own):
        folder.mkdir()
        (folder / "trace.jsonl").write_text("x")
    profiles.record_session("anna", "a1", str(shared))
    profiles.record_session("anna", "a2", str(own))
    profiles.record_session("ben", "b1", str(shared))          # ben's session wrote to `out` after anna's
    assert profiles.sessions_of("anna") == [("a1", ""), ("a2", str(own))]
    # "Forget everything" by voice, then the process dies before the session ends: the index
    # stays, and the next erase still finds anna's states and files.
    profiles.erase("anna", keep_sessions=True)
    erased = erase_user(db, "anna")
    assert erased.files == [str(own / "trace.jsonl")] and (shared / "trace.jsonl").exists()
    assert profiles.sessions_of("anna") == [] and profiles.sessions_of("ben") == [("b1", str(shared))]


def test_an_erase_finds_every_folder_of_a_session_continued_under_another_out(tmp_path: Path) -> None:
    """Regression: a session begun with `--out first` and continued with `--out second`
    (another worker, `monologue chat` again) wrote its trace to both; the index kept only the
    last, and the first folder's files, with the user's words, survived "erase everything"."""
    import asyncio

    from monologue.configs import load_config
    from monologue.pipeline.builder import load_text_models, user_memory
    from monologue.pipeline.text_chat import ChatOptions, chat_session

    from fakes import steady

    config = load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                               "mock_response": "Sure, noted."},
                                          monologue={"llm_mode": "never"}, long_term={"llm_help": False}),
                         environ={})
    models = load_text_models(config)
    store_path = str(tmp_path / "store" / "m.db")
    first, second, bens = tmp_path / "first", tmp_path / "second", tmp_path / "bens"

    async def run() -> None:
        state = SqlStateStore(store_path)
        await chat_session(["A table for two at Wallaroo-4417 tonight"], config, models,
                           ChatOptions(session_id="ana-1", store=state, out_dir=first,
                                       long_term=user_memory(config, models, "ana", store_path)))
        await chat_session(["Make it Wallaroo-4417 at eight"], config, models,
                           ChatOptions(session_id="ana-1", store=state, out_dir=second,
                                       long_term=user_memory(config, models, "ana", store_path)))
        await chat_session(["A table at Bilby-9902 for three"], config, models,
                           ChatOptions(session_id="ben-1", store=state, out_dir=bens,
                                       long_term=user_memory(config, models, "ben", store_path)))

    asyncio.run(run())
    assert _scan(first, "Wallaroo-4417") and _scan(second, "Wallaroo-4417")     # both folders hold her words
    profiles = SqlProfileStore(SQLiteDatabase(store_path))
    assert sorted(folder for _, folder in profiles.sessions_of("ana")) == [str(first.resolve()),
                                                                          str(second.resolve())]
    erased = erase_user(SQLiteDatabase(store_path), "ana")
    assert {Path(f).parent for f in erased.files} == {first.resolve(), second.resolve()}
    assert _scan(first, "Wallaroo-4417") == [] and _scan(second, "Wallaroo-4417") == []
    assert _scan(bens, "Bilby-9902")                                               # ben's are his still
    assert profiles.sessions_of("ana") == []
