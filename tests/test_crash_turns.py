"""A hundred SIGKILLs at random points of a conversation lose no acknowledged long-term memory.

Before the turn journal, a crash mid-conversation lost the memory of the last acknowledged turn in
9 of 15 kills: the turn was acknowledged once its working state was stored, its long-term
write still in the background. Now a turn is acknowledged only once its inputs are in the
journal (`memory/stores/journal.py`), and the next start replays what was left there.

`crash_turns.py` is the conversation: turns in the order the reply stage takes them, the
long-term write in the background. The test starts it, lets it talk for a random 20-400 ms,
SIGKILLs it and starts the next run on the same SQLite file: 100 times
(`MONOLOGUE_CRASH_KILLS`, delays seeded by `MONOLOGUE_CRASH_SEED`). After each kill it counts
the acknowledged turns whose memory was not in the store yet: those the journal saved. At the
end a fresh long-term memory is opened (the next start, replaying the last run's journal) and
the store is checked against the logs: every acknowledged turn's memory is there, once, with
its turn's evidence; no memory that no turn began; no two memories sharing an evidence id, no
turn number taken twice; the journal empty.

A run is forked from a fork server that imported the engine (a run starts in milliseconds); a
real process, so a kill leaves what a real crash leaves: a SQLite file mid-transaction. The
last test deletes an acknowledged memory and its entry behind the store's back and checks
that the loss is reported: the check cannot pass everything.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import crash_turns
import pytest
from crash_turns import TURN, TurnsConfig, open_memory, turn_text
from crash_writer import ACK
from test_crash_writes import RunLog, read_run_log

from monologue.memory.stores.database import Database, close_servers
from monologue.memory.stores.journal import SqlTurnJournal, evidence_id
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.postgres import PostgresDatabase
from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV
from monologue.memory.stores.sqlite import SQLiteDatabase

KILLS = int(os.environ.get("MONOLOGUE_CRASH_KILLS", "100"))
SEED = int(os.environ.get("MONOLOGUE_CRASH_SEED", "20261203"))
KILL_AFTER_SECS = (0.020, 0.400)
STARTUP_SECS = 60.0


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = tmp_path / "store.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    monkeypatch.delenv(KEY_ENV, raising=False)
    return str(path)


@dataclass
class TurnsLog:
    seed: int
    runs: list[RunLog] = field(default_factory=list)
    seconds: float = 0.0
    saved_by_journal: int = 0        # acknowledged turns whose memory was not stored yet at the kill (the journal's)
    landed_not_done: int = 0         # entries left whose memory had landed (a replay must not write it again)

    def acks(self) -> list[dict[str, int]]:
        return [e for r in self.runs for e in r.events if e["event"] == ACK and e["kind"] == TURN]

    def begun(self) -> set[str]:
        return {turn_text(r.run, e["op"]) for r in self.runs for e in r.events if e["kind"] == TURN}


def _count_what_the_kill_left(log: TurnsLog, run_log: RunLog, database: Database) -> None:
    """What the journal saved this time: acknowledged turns whose memory was not stored when
    the kill came; and entries whose memory was (the replay must not write those again)."""
    memories = SqlMemoryStore(database, cache=False)
    written = {e for r in memories.all(crash_turns.USER_ID)[0] for e in r.evidence}
    acked = {evidence_id(crash_turns.SESSION_ID, e["turn"]) for e in run_log.events if e["event"] == ACK}
    log.saved_by_journal += len(acked - written)
    pending = SqlTurnJournal(database).pending(crash_turns.USER_ID, stale_before=float("inf"))
    log.landed_not_done += sum(e.evidence in written for e in pending)


def kill_repeatedly(store: str, key_file: str, log_dir: Path, kills: int = KILLS, *,
                    open_database: Callable[[], Database], wait_until_gone: Callable[[], None] = lambda: None,
                    journal: bool = True) -> TurnsLog:
    """`kills` runs on `store`, each SIGKILLed after a random time. `wait_until_gone` returns
    once a server has finished with a killed run's connections (a COMMIT it sent still lands);
    `open_database` opens the store for the count after each kill (closed again at once: its
    connections must not pass for a killed run's)."""
    import multiprocessing

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(crash_turns.PRELOAD)
    rng = random.Random(SEED)
    log = TurnsLog(SEED)
    started = time.monotonic()
    for run in range(kills):
        config = TurnsConfig(store, key_file, str(log_dir), run, journal)
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=crash_turns.run_turns, args=(config, sender), daemon=True)
        process.start()
        sender.close()
        if not receiver.poll(STARTUP_SECS):
            process.kill()
            pytest.fail(f"run {run} did not open the stores within {STARTUP_SECS:.0f} s")
        try:
            receiver.recv()
        except EOFError:
            process.join()
            error = config.error_file.read_text() if config.error_file.exists() else ""
            pytest.fail(f"run {run} exited with {process.exitcode} before it was ready\n{error}")
        receiver.close()
        time.sleep(rng.uniform(*KILL_AFTER_SECS))
        process.kill()
        process.join(STARTUP_SECS)
        if process.exitcode != -signal.SIGKILL:
            error = config.error_file.read_text() if config.error_file.exists() else "(no error written)"
            pytest.fail(f"run {run} (seed {SEED}) ended with {process.exitcode} before the kill\n{error}")
        wait_until_gone()
        run_log = read_run_log(log_dir, run)
        log.runs.append(run_log)
        database = open_database()
        try:
            _count_what_the_kill_left(log, run_log, database)
        finally:
            database.close()
        wait_until_gone()
    log.seconds = time.monotonic() - started
    return log


def verify(log: TurnsLog, store: str, backend: str = "SQLite") -> list[str]:
    """Open the user's memory as the next start does (replaying the journal), then compare
    the store with the logs; returns the problems found."""
    memory = open_memory(store)
    replayed = asyncio.run(memory.replay_pending())
    problems: list[str] = []
    records = memory.stream.records()[0]
    texts = Counter(r.text for r in records)
    evidence = Counter(e for r in records for e in r.evidence)
    by_text = {r.text: r for r in records}
    for ack in log.acks():
        text, cited = turn_text(ack["run"], ack["op"]), evidence_id(crash_turns.SESSION_ID, ack["turn"])
        record = by_text.get(text)
        if record is None:
            problems.append(f"acknowledged turn {ack['turn']} (run {ack['run']} op {ack['op']}) has lost its memory")
        elif record.evidence != [cited]:
            problems.append(f"the memory of turn {ack['turn']} cites {record.evidence}, not [{cited!r}]")
    problems += [f"memory stored {n} times: {t!r}" for t, n in texts.items() if n > 1]
    problems += [f"evidence id {e} on {n} memories" for e, n in evidence.items() if n > 1]
    begun = log.begun()
    problems += [f"memory {t!r} was never said by any run" for t in texts if t not in begun]
    acked_turns = [a["turn"] for a in log.acks()]
    if len(set(acked_turns)) != len(acked_turns):
        problems.append(f"turn numbers taken twice: {[t for t, n in Counter(acked_turns).items() if n > 1][:5]}")
    left = memory.journal.count(crash_turns.USER_ID) if memory.journal is not None else 0
    if left:
        problems.append(f"{left} journal entries left after the replay")
    damaged = memory.stream.store.damaged if isinstance(memory.stream.store, SqlMemoryStore) else []
    if damaged:
        problems.append(f"memories failing their integrity check: {damaged[:5]}")
    print(f"\n{backend}: {len(log.runs)} SIGKILLs in {log.seconds:.1f} s (seed {log.seed}); "
          f"{len(log.acks())} turns acknowledged, {len(records)} memories stored, "
          f"{sum(1 for a in log.acks() if turn_text(a['run'], a['op']) not in by_text)} acknowledged lost; "
          f"{log.saved_by_journal} acknowledged turns had no memory yet at their kill, "
          f"{log.landed_not_done} entries left whose memory had landed (not written again), "
          f"{replayed} replayed at the final start; {len(problems)} problems")
    return problems


def test_a_hundred_kills_lose_no_acknowledged_long_term_memory_on_sqlite(tmp_path: Path, key_file: str) -> None:
    store, logs = tmp_path / "monologue.db", tmp_path / "logs"
    logs.mkdir()
    log = kill_repeatedly(str(store), key_file, logs, open_database=lambda: SQLiteDatabase(store))
    with sqlite3.connect(store) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    raw.close()
    problems = verify(log, str(store))
    assert not problems, f"seed {SEED}:\n" + "\n".join(problems[:40])
    assert log.acks(), "no run acknowledged a turn"


def test_a_hundred_kills_lose_no_acknowledged_long_term_memory_on_postgresql(
        tmp_path: Path, pg_url: str, key_file: str) -> None:
    import psycopg

    logs = tmp_path / "logs"
    logs.mkdir()
    with psycopg.connect(pg_url, autocommit=True) as watcher:
        def wait_until_gone() -> None:
            """Until the server has ended every other session on this database: a killed run's
            COMMIT already sent still lands, and the next run must read after it."""
            deadline = time.monotonic() + STARTUP_SECS
            while watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND pid <> pg_backend_pid() AND backend_type = 'client backend'").fetchone() != (0,):
                assert time.monotonic() < deadline, "a killed run's PostgreSQL sessions did not end"
                time.sleep(0.005)

        log = kill_repeatedly(pg_url, key_file, logs, open_database=lambda: PostgresDatabase(pg_url),
                              wait_until_gone=wait_until_gone)
    problems = verify(log, pg_url, "PostgreSQL")
    close_servers()
    assert not problems, f"seed {SEED}:\n" + "\n".join(problems[:40])
    assert log.acks(), "no run acknowledged a turn"


def test_the_check_finds_a_lost_memory(tmp_path: Path, key_file: str) -> None:
    store, logs = tmp_path / "monologue.db", tmp_path / "logs"
    logs.mkdir()
    log = kill_repeatedly(str(store), key_file, logs, kills=3, open_database=lambda: SQLiteDatabase(store))
    assert log.acks(), "no run acknowledged a turn"
    lost = log.acks()[-1]
    memories = SqlMemoryStore(store, cache=False)
    gone = [r for r in memories.all(crash_turns.USER_ID)[0] if r.text == turn_text(lost["run"], lost["op"])]
    for record in gone:                      # as a store that acknowledged too early would have lost it
        memories.delete(crash_turns.USER_ID, record.id)
    memories.db.run("DELETE FROM turn_journal WHERE turn = ?", (lost["turn"],))
    memories.db.close()
    problems = verify(log, str(store))
    assert any(f"acknowledged turn {lost['turn']} " in p for p in problems), problems


@pytest.mark.skipif(not os.environ.get("MONOLOGUE_CRASH_CONTROL"), reason="the control run: MONOLOGUE_CRASH_CONTROL=1")
def test_without_the_journal_the_kills_lose_acknowledged_memories(tmp_path: Path, key_file: str) -> None:
    """The control (the loss before the turn journal, on this harness): turns acknowledged after the state
    commit alone, their memory still in the background. Not in CI: how many are lost depends on
    where the kills land; it is run to show the harness sees what the journal prevents."""
    store, logs = tmp_path / "monologue.db", tmp_path / "logs"
    logs.mkdir()
    log = kill_repeatedly(str(store), key_file, logs, open_database=lambda: SQLiteDatabase(store), journal=False)
    problems = verify(log, str(store), "SQLite without the journal")
    assert any("has lost its memory" in p for p in problems), problems
