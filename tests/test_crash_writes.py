"""A hundred SIGKILLs at random points of a write workload lose nothing that was acknowledged.

The requirement: "100 SIGKILLs at random points during a scripted write workload: 0
acknowledged memories lost, 0 corrupt states, the audit log complete." This runs it for real,
on the SQLite default (one file, session states in it) and on the servers (PostgreSQL for
memories, profiles and the audit log; Redis for session states):

- `crash_writer.py` is the workload: a process that opens the stores as a worker does and
  writes memories, profile saves (each with an audit entry) and session-state commits until it
  is killed, logging each store call that returned (its acknowledgement log).
- The test starts it, lets it write for a random 20-400 ms, SIGKILLs it, and starts the next
  run on the same stores, which goes on from where the stores are: 100 times
  (`MONOLOGUE_CRASH_KILLS`). The delays are seeded (`MONOLOGUE_CRASH_SEED` gives the same ones
  again; where inside a call a kill lands still varies with the machine's timing). Runs are
  forked from a fork server that imported the stores and opened nothing, so a run starts in
  milliseconds, as a fresh worker with connections of its own.
- Each run reports what it found when it opened the stores; a version below one already
  acknowledged fails at once, naming the run. At the end fresh store objects are checked
  against the logs: every acknowledged memory is there with its text and vector, every
  acknowledged profile save has its audit entry at its place, every acknowledged state
  version is there with its own change; and nothing is half there or out of place: no memory
  without its vector or with wrong bytes, no stored write that no run began, no gap in the
  audit log or the state history, a profile whose version matches its audit log, memory
  versions that match their rows, a state that loads, matches the last change of its history
  and the store's index, a SQLite file that passes its integrity check.

A write that was stored but not acknowledged (the kill came after the commit, before the log
line) is allowed, and counted; so is an interrupted write that left nothing; nothing else is.
A failure lists every finding, with the seed and the run numbers. The last test takes
acknowledged writes back behind the stores' back and checks that each loss is reported: the
check cannot silently pass everything.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, ForkServerProcess
from pathlib import Path
from typing import Any

import crash_writer
import numpy as np
import pytest
from crash_writer import ACK, BEGIN, MEMORY, PROFILE, STATE, WorkloadConfig, memory_id, op_reason
from services import TestServices

from monologue.memory.stores import redis_state
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.postgres import PostgresDatabase
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.protocols import StateStore
from monologue.memory.stores.redis_state import RedisStateStore
from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.state import Change

KILLS = int(os.environ.get("MONOLOGUE_CRASH_KILLS", "100"))
SEED = int(os.environ.get("MONOLOGUE_CRASH_SEED", "20240611"))
KILL_AFTER_SECS = (0.020, 0.400)          # how long a run writes before its SIGKILL, uniform
STARTUP_SECS = 60.0                       # a loaded 2-core machine opens the stores in well under this
GONE_SECS = 30.0                          # for a killed run's server connections to end
MEMORY_LOOKUPS = 50                       # acknowledged memories also found by their text (spread out)


def _wait_for_acks(log_dir: Path, run: int, process: Any) -> None:
    deadline = time.monotonic() + STARTUP_SECS
    while {e["kind"] for e in read_run_log(log_dir, run).events if e["event"] == ACK} < {MEMORY, PROFILE, STATE}:
        if time.monotonic() > deadline or not process.is_alive():
            process.kill()
            pytest.fail(f"run {run} acknowledged no write of some kind within {STARTUP_SECS:.0f} s")
        time.sleep(0.02)


# ---------------------------------------------------------------------------------------------
# Servers (`servers`, `pg_url` in conftest.py): each test has its own database and Redis key prefix




@pytest.fixture
def redis_prefix(monkeypatch: pytest.MonkeyPatch) -> str:
    """This test's Redis keys, for the verifier here and (through the config) for the runs."""
    prefix = f"t{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(redis_state, "PREFIX", prefix)
    return prefix


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A sealing key of this test's own: the runs make it on first use and the verifier opens
    the stores with it."""
    path = tmp_path / "store.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    monkeypatch.delenv(KEY_ENV, raising=False)
    return str(path)


# ---------------------------------------------------------------------------------------------
# Killing the workload


@dataclass
class RunLog:
    """One run's acknowledgement log, as the kill left it."""

    run: int
    events: list[dict[str, Any]]
    torn: bool                       # the last line was cut short by the kill: not an acknowledgement

    @property
    def in_flight(self) -> dict[str, Any] | None:
        """The store call the kill interrupted: a `begin` with no `ack` after it."""
        return self.events[-1] if self.events and self.events[-1]["event"] == BEGIN else None


def read_run_log(log_dir: Path, run: int) -> RunLog:
    path = crash_writer.ack_log_path(log_dir, run)
    text = path.read_text() if path.exists() else ""
    lines = text.split("\n")
    torn = lines[-1] != ""
    return RunLog(run, [json.loads(line) for line in lines[:-1]], torn)


@dataclass
class CrashLog:
    """Every run's acknowledgement log, in the order the runs ran."""

    seed: int
    runs: list[RunLog] = field(default_factory=list)
    seconds: float = 0.0

    def acks(self, kind: str) -> list[dict[str, Any]]:
        return [e for r in self.runs for e in r.events if e["event"] == ACK and e["kind"] == kind]

    def begun_memories(self) -> list[str]:
        return [e["id"] for r in self.runs for e in r.events if e["event"] == BEGIN and e["kind"] == MEMORY]

    def in_flight(self) -> list[tuple[int, dict[str, Any]]]:
        return [(r.run, e) for r in self.runs if (e := r.in_flight) is not None]

    def conflicts(self) -> int:
        return sum(e["event"] == crash_writer.CONFLICT for r in self.runs for e in r.events)


def _fork_server() -> ForkServerContext:
    """Runs forked from a server that imported the workload and opened no connection: a pool,
    a socket or a SQLite handle shared across a fork would not be a fresh worker's."""
    context = multiprocessing.get_context("forkserver")
    # pytest too: where it was started as a script (`.venv/bin/pytest`), each run re-runs that
    # script as its main module before the workload (multiprocessing's rule), importing pytest.
    context.set_forkserver_preload([*crash_writer.PRELOAD, "pytest"])
    return context


def _failure(config: WorkloadConfig, what: str) -> str:
    error = config.error_file.read_text() if config.error_file.exists() else "(it wrote no error)"
    return f"run {config.run} (seed {SEED}): {what}\n{error}"


def _wait_ready(receiver: Connection, process: ForkServerProcess, config: WorkloadConfig) -> dict[str, int]:
    """What the run found when it opened the stores; a run that fails to open them fails the test."""
    if not receiver.poll(STARTUP_SECS):
        process.kill()
        process.join()
        pytest.fail(_failure(config, f"did not open the stores within {STARTUP_SECS:.0f} s"))
    try:
        opened: dict[str, int] = receiver.recv()
    except EOFError:
        process.join()
        pytest.fail(_failure(config, f"exited with {process.exitcode} before it was ready"))
    return opened


def crash_repeatedly(make_config: Callable[[int], WorkloadConfig], log_dir: Path,
                     wait_until_gone: Callable[[], None], kills: int = KILLS, *,
                     once_acked: bool = False) -> CrashLog:
    """`kills` runs, each SIGKILLed after a random time; `wait_until_gone` returns once the
    server has finished with a killed run's connections (a commit it had sent still lands).
    `once_acked`: the random time starts once the run has acknowledged a write of every kind
    (however long this machine takes to get there)."""
    context = _fork_server()
    rng = random.Random(SEED)
    log = CrashLog(SEED)
    acked = {PROFILE: 0, STATE: 0}
    started = time.monotonic()
    for run in range(kills):
        config = make_config(run)
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=crash_writer.run_workload, args=(config, sender),
                                  name=f"crash-writer-{run}", daemon=True)
        process.start()
        sender.close()
        try:
            opened = _wait_ready(receiver, process, config)
        finally:
            receiver.close()
        for kind, key in ((PROFILE, "profile_version"), (STATE, "state_version")):
            if opened[key] < acked[kind]:
                process.kill()
                pytest.fail(_failure(config, f"opened the stores at {kind} version {opened[key]}, "
                                             f"but version {acked[kind]} was acknowledged before"))
        if once_acked:
            _wait_for_acks(log_dir, run, process)
        time.sleep(rng.uniform(*KILL_AFTER_SECS))
        process.kill()
        process.join(STARTUP_SECS)
        if process.exitcode != -signal.SIGKILL:
            pytest.fail(_failure(config, f"ended with {process.exitcode} before the kill"))
        wait_until_gone()
        run_log = read_run_log(log_dir, run)
        log.runs.append(run_log)
        for event in run_log.events:
            if event["event"] == ACK and event["kind"] in acked:
                acked[event["kind"]] = max(acked[event["kind"]], event["version"])
    log.seconds = time.monotonic() - started
    return log


# ---------------------------------------------------------------------------------------------
# Checking the stores against the logs


@dataclass
class Outcome:
    """What the verifier found: problems (the test fails on any), and counts for the summary."""

    problems: list[str] = field(default_factory=list)
    stored: dict[str, int] = field(default_factory=dict)
    interrupted: Counter[str] = field(default_factory=Counter)            # kills inside a call, per kind
    interrupted_stored: Counter[str] = field(default_factory=Counter)     # ... whose write landed anyway

    def problem(self, text: str) -> None:
        if len(self.problems) < 40:
            self.problems.append(text)
        elif len(self.problems) == 40:
            self.problems.append("(more left out)")


def check_memories(memories: SqlMemoryStore, log: CrashLog, user: str, out: Outcome) -> set[str]:
    """Every acknowledged memory with its text and vector; nothing stored that no run began,
    nothing half-written, the stream in the order of writing. Returns the stored ids."""
    records, vectors = memories.all(user)
    if memories.damaged:
        out.problem(f"memories failing their integrity check: {memories.damaged[:5]}")
    stored_ids = [r.id for r in records]
    stored = set(stored_ids)
    out.stored[MEMORY] = len(records)
    if len(stored) != len(stored_ids):
        out.problem(f"memories stored twice: {[i for i, n in Counter(stored_ids).items() if n > 1][:5]}")
    rows = memories.db.query_one("SELECT count(*), count(vector) FROM memories WHERE user_id = ?", (user,))
    if rows is None or rows[0] != len(records) or rows[1] != rows[0]:
        out.problem(f"memories table: {rows} rows (all, with a vector); the store served {len(records)}")
    # Each put bumps the user's version and stamps its row with it, in one transaction: a
    # worker's cache trusts that (a version that lags its rows hides them from other workers).
    versions = memories.db.query_one("SELECT (SELECT version FROM memory_versions WHERE user_id = ?), "
                                     "count(DISTINCT changed), max(changed) FROM memories WHERE user_id = ?",
                                     (user, user))
    if versions != (len(records), len(records), len(records)):
        out.problem(f"memory versions (the user's, distinct stamps, highest stamp) are {versions}, "
                    f"not {len(records)} each")
    for ack in log.acks(MEMORY):
        if ack["id"] not in stored:
            out.problem(f"acknowledged memory {ack['id']} (run {ack['run']} op {ack['op']}) is lost")
    begun = log.begun_memories()
    known = set(begun)
    for row, record in enumerate(records):
        if record.id not in known:
            out.problem(f"memory {record.id} was never written by any run")
            continue
        if record.text != crash_writer.memory_text(record.id) or record.user_id != user:
            out.problem(f"memory {record.id} reads back as {record.text!r}")
        if vectors.shape != (len(records), crash_writer.VECTOR_DIMS) or \
                not np.array_equal(vectors[row], crash_writer.memory_vector(record.id)):
            out.problem(f"memory {record.id}: its vector is not the one written (shape {vectors.shape})")
    if stored_ids != [m for m in begun if m in stored]:
        out.problem("the memory stream is not in the order it was written")
    acked_ids = [a["id"] for a in log.acks(MEMORY)]
    for memory in acked_ids[::max(1, len(acked_ids) // MEMORY_LOOKUPS)]:
        found = memories.find_text(user, crash_writer.memory_text(memory))
        if found is None or found.id != memory:
            out.problem(f"memory {memory} is not found by its text (found {found and found.id})")
    return stored


def check_audit(profiles: SqlProfileStore, log: CrashLog, user: str, out: Outcome) -> list[dict[str, Any]]:
    """The audit log complete and in order, one entry per saved profile version, each
    acknowledged save's entry at its place. Returns the log."""
    profile = profiles.load(user)
    audit = profiles.audit(user)
    out.stored[PROFILE] = len(audit)
    damaged = [i for i, e in enumerate(audit) if "damaged" in e]
    if damaged:
        out.problem(f"audit entries failing their integrity check at {damaged[:5]}")
    versions = [(e.get("after") or {}).get("profile_version") for e in audit]
    if versions != list(range(1, len(audit) + 1)):
        out.problem(f"audit log versions are not 1..{len(audit)} without a gap: "
                    f"{[(i + 1, v) for i, v in enumerate(versions) if v != i + 1][:5]}")
    if profile.version != len(audit):
        out.problem(f"the profile is at version {profile.version} but its audit log has {len(audit)} entries "
                    "(a save's profile and audit entry did not commit together)")
    for ack in log.acks(PROFILE):
        version, reason, memory = ack["version"], op_reason(ack["run"], ack["op"]), memory_id(ack["run"], ack["op"])
        entry = audit[version - 1] if version <= len(audit) else None
        if entry is None or entry["reason"] != reason:
            out.problem(f"acknowledged profile save {version} ({reason}) has no audit entry "
                        f"(found {entry and entry['reason']!r})")
        elif entry["what"] != f"memory:{memory}" or entry["after"]["text"] != crash_writer.memory_text(memory):
            out.problem(f"audit entry {version} reads back as {entry['what']!r} {entry['after']!r}")
    if audit and profile.last_session.get("memory") != audit[-1]["what"].removeprefix("memory:"):
        out.problem(f"the profile's last save ({profile.last_session}) is not the last audit entry "
                    f"({audit[-1]['what']})")
    return audit


def check_state(states: StateStore, log: CrashLog, session: str, out: Outcome) -> list[Change]:
    """The state loads, its history has one change per version from 1 with no gap, the state
    is its last change's, each acknowledged version holds its own change. Returns the history."""
    state = states.load(session)
    history = states.history(session)
    if state is None:
        out.problem("the session state is gone")
        return history
    out.stored[STATE] = state.version
    if [c.version for c in history] != list(range(1, state.version + 1)):
        out.problem(f"the state is at version {state.version} but its history holds versions "
                    f"{[c.version for c in history][:3]}...{[c.version for c in history][-3:]} ({len(history)})")
    for change in history:
        if change.after != f"goal of version {change.version} ({change.reason})":     # crash_writer.state_goal
            out.problem(f"state change {change.version} reads back as {change.after!r}")
    if history and (state.goal != history[-1].after or state.turn != history[-1].turn):
        out.problem(f"the state (goal {state.goal!r}) is not its last change's ({history[-1].after!r})")
    indexed = {s: v for s, v, _ in states.sessions()}.get(session)
    if indexed != state.version:
        out.problem(f"the store's index has the session at version {indexed}, its state says {state.version}")
    for ack in log.acks(STATE):
        version, reason = ack["version"], op_reason(ack["run"], ack["op"])
        kept = history[version - 1] if version <= len(history) else None
        if version > state.version or kept is None or kept.reason != reason:
            out.problem(f"acknowledged state version {version} ({reason}) is lost "
                        f"(stored version {state.version}, change there: {kept and kept.reason!r})")
    return history


def check_interrupted(log: CrashLog, memories: set[str], audit: list[dict[str, Any]], history: list[Change],
                      out: Outcome) -> None:
    """Count the kills that came inside a store call, and whether that write landed. A write
    that was not acknowledged must be one of these: what is stored of each kind is exactly the
    acknowledged writes plus the interrupted ones that landed."""
    for run, event in log.in_flight():
        kind, reason = event["kind"], op_reason(run, event["op"])
        out.interrupted[kind] += 1
        if kind == MEMORY:
            landed = event["id"] in memories
        else:
            entries: list[Any] = audit if kind == PROFILE else history
            version = event["version"]
            at = entries[version - 1] if version <= len(entries) else None
            landed = at is not None and (at["reason"] if kind == PROFILE else at.reason) == reason
        out.interrupted_stored[kind] += landed
    for kind in (MEMORY, PROFILE, STATE):
        acked, interrupted = len(log.acks(kind)), out.interrupted_stored[kind]
        if out.stored.get(kind) != acked + interrupted:
            out.problem(f"{out.stored.get(kind)} {kind} writes stored, but {acked} were acknowledged and "
                        f"{interrupted} interrupted ones landed")


def verify(log: CrashLog, memories: SqlMemoryStore, profiles: SqlProfileStore, states: StateStore,
           backend: str) -> Outcome:
    out = Outcome()
    stored_memories = check_memories(memories, log, crash_writer.USER_ID, out)
    audit = check_audit(profiles, log, crash_writer.USER_ID, out)
    history = check_state(states, log, crash_writer.SESSION_ID, out)
    check_interrupted(log, stored_memories, audit, history, out)
    acked = {kind: len(log.acks(kind)) for kind in (MEMORY, PROFILE, STATE)}
    kills_inside = sum(out.interrupted.values())
    inside = ", ".join(f"{kind} {out.interrupted[kind]}, {out.interrupted_stored[kind]} landed"
                       for kind in (MEMORY, PROFILE, STATE))
    print(f"\n{backend}: {len(log.runs)} SIGKILLs in {log.seconds:.1f} s (seed {log.seed}); acknowledged "
          f"{acked[MEMORY]} memories, {acked[PROFILE]} profile saves (audit entries), {acked[STATE]} state versions; "
          f"stored {out.stored.get(MEMORY)}, {out.stored.get(PROFILE)}, {out.stored.get(STATE)}. "
          f"Kills inside a store call: {kills_inside} "
          f"({inside}); "
          f"between calls {len(log.runs) - kills_inside}; torn log lines {sum(r.torn for r in log.runs)}; "
          f"commits refused as a killed run's landed after the next one read: {log.conflicts()}")
    assert not out.problems, f"{backend} (seed {log.seed}):\n" + "\n".join(out.problems)
    assert all(acked.values()), f"the runs acknowledged nothing of some kind: {acked}"
    return out


# ---------------------------------------------------------------------------------------------
# The tests


def test_the_sqlite_file_loses_nothing_acknowledged_under_100_kills(tmp_path: Path, key_file: str) -> None:
    store = tmp_path / "monologue.db"
    logs = tmp_path / "logs"
    logs.mkdir()
    log = crash_repeatedly(lambda run: WorkloadConfig(str(store), "", "", key_file, str(logs), run), logs,
                           wait_until_gone=lambda: None)           # a killed process holds nothing
    db = SQLiteDatabase(store)
    try:
        assert db.query("PRAGMA integrity_check") == [("ok",)]
        verify(log, SqlMemoryStore(db, cache=False), SqlProfileStore(db), SqlStateStore(db), "SQLite")
    finally:
        db.close()


def test_postgresql_and_redis_lose_nothing_acknowledged_under_100_kills(
        tmp_path: Path, servers: TestServices, pg_url: str, redis_prefix: str, key_file: str) -> None:
    import psycopg

    logs = tmp_path / "logs"
    logs.mkdir()
    with psycopg.connect(pg_url, autocommit=True) as watcher:
        def wait_until_gone() -> None:
            """Until the server has ended the killed run's sessions: a COMMIT already sent
            still lands then, and the next run must read after it (profile saves are
            last-writer-wins; the workload counts on one writer at a time)."""
            deadline = time.monotonic() + GONE_SECS
            while watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND pid <> pg_backend_pid() AND backend_type = 'client backend'").fetchone() != (0,):
                assert time.monotonic() < deadline, "a killed run's PostgreSQL sessions did not end"
                time.sleep(0.005)

        log = crash_repeatedly(lambda run: WorkloadConfig(pg_url, servers.redis_url, redis_prefix, key_file,
                                                          str(logs), run), logs, wait_until_gone)
    db = PostgresDatabase(pg_url)
    states = RedisStateStore(servers.redis_url)
    try:
        verify(log, SqlMemoryStore(db, cache=False), SqlProfileStore(db), states, "PostgreSQL + Redis")
    finally:
        states.close()
        db.close()


def test_the_check_finds_a_lost_write(tmp_path: Path, key_file: str) -> None:
    """The check is not vacuous: after a few kills, take back one acknowledged memory, one
    acknowledged audit entry and one acknowledged state change behind the stores' back (as a
    store that acknowledged too early would have lost them), and each is reported."""
    store = tmp_path / "monologue.db"
    logs = tmp_path / "logs"
    logs.mkdir()
    log = crash_repeatedly(lambda run: WorkloadConfig(str(store), "", "", key_file, str(logs), run), logs,
                           wait_until_gone=lambda: None, kills=3, once_acked=True)
    memory, profile, state = (log.acks(kind)[-1] for kind in (MEMORY, PROFILE, STATE))
    with sqlite3.connect(store) as raw:
        raw.execute("DELETE FROM memories WHERE id = ?", (memory["id"],))
        raw.execute("DROP TRIGGER audit_log_keeps_entries")
        raw.execute("DELETE FROM audit_log WHERE id = (SELECT id FROM audit_log ORDER BY id LIMIT 1 OFFSET ?)",
                    (profile["version"] - 1,))
        raw.execute("DELETE FROM state_history WHERE id = (SELECT id FROM state_history ORDER BY id "
                    "LIMIT 1 OFFSET ?)", (state["version"] - 1,))
    raw.close()
    db = SQLiteDatabase(store)
    try:
        with pytest.raises(AssertionError) as found:
            verify(log, SqlMemoryStore(db, cache=False), SqlProfileStore(db), SqlStateStore(db), "SQLite, tampered")
    finally:
        db.close()
    report = str(found.value)
    assert f"acknowledged memory {memory['id']} " in report
    assert f"acknowledged profile save {profile['version']} " in report
    assert f"acknowledged state version {state['version']} " in report
