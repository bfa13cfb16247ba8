"""The scripted write workload that `test_crash_writes.py` kills with SIGKILL, and what both
sides need to agree on about it.

A run is one process that opens the stores the way a worker does (`open_stores`), says it is
ready, then writes until it is killed. Each operation is three store calls, each one a
separate, acknowledged write:

1. `memories.put`: a memory with a unique id, a text naming a person (so the name mapping is
   written in the same transaction) and a 512-d vector, all derived from the id;
2. `profiles.save`: the profile one version up, with one audit entry describing that memory
   (the profile row and the audit entry commit together);
3. `states.commit`: the session state one version up with one change (compare-and-set on the
   version read; on `VersionConflict` it reads again).

Around each call the run appends a line to its own acknowledgement log: `begin` before the
call, `ack` once the call has returned. Only an `ack` line counts as an acknowledged write: a
kill between the call's return and the `ack` line leaves a write that is stored but not
acknowledged, which is allowed. A `begin` without its `ack` at the end of a log is the write
the kill interrupted.

The lines are written with one `os.write` each on an `O_APPEND` descriptor, with no fsync:
the test kills the process, not the machine, and what a process wrote is in the kernel's page
cache the moment `write` returns; an fsync would only slow the workload down. A kill can still
cut the last line short: a line without its newline is not an acknowledgement. Each run has a
log of its own, so a torn line is always the last of its file.

Everything the verifier compares against (ids, texts, vectors, goals, reasons) is a pure
function of the run and operation numbers, so a stored value that is wrong in any byte shows.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import traceback
import zlib
from dataclasses import dataclass
from itertools import count
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from monologue.memory.longterm.records import AuditEntry, MemoryRecord, MemorySource
from monologue.memory.stores import redis_state
from monologue.memory.stores.factory import open_stores
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV
from monologue.memory.working.state import Change, ChangeAction, SessionState

VECTOR_DIMS = 512
# A run left alone this long stops by itself (exit 0, which the test reports as a failure):
# a parent that died without killing it must not leave it writing forever.
MAX_RUN_SECS = 120.0
# Imported once by the fork server, so that a run starts in milliseconds, not the ~0.2 s (on a
# loaded 2-core machine) of importing the stores. By package name: Python 3.11's fork server
# does not take the test's sys.path, so it cannot find this file's own module (each run imports
# it, cheaply, once these are loaded).
PRELOAD = ["monologue.memory.stores.factory", "monologue.memory.stores.postgres",
           "monologue.memory.stores.redis_state", "numpy", "psycopg", "psycopg_pool", "redis"]

USER_ID, SESSION_ID = "crash-user", "crash-session"      # the one user and session the runs write
MEMORY, PROFILE, STATE = "memory", "profile", "state"
BEGIN, ACK, CONFLICT = "begin", "ack", "conflict"


@dataclass(frozen=True)
class WorkloadConfig:
    """Where one run writes, and where it logs what was acknowledged."""

    store: str                  # a SQLite path or a postgresql:// URL (memories, profiles, audit log)
    state_url: str              # "" (states in `store`) or a redis:// URL
    redis_prefix: str           # the Redis key prefix (each test has its own)
    key_file: str               # the sealing key file, the same one the verifier opens with
    log_dir: str                # where the acknowledgement logs go
    run: int                    # this run's number: part of every id it writes
    user_id: str = USER_ID
    session_id: str = SESSION_ID

    @property
    def ack_log(self) -> Path:
        return ack_log_path(self.log_dir, self.run)

    @property
    def error_file(self) -> Path:
        return Path(self.log_dir) / f"error-{self.run:03d}.txt"


def ack_log_path(log_dir: str | Path, run: int) -> Path:
    return Path(log_dir) / f"ack-{run:03d}.jsonl"


# ---------------------------------------------------------------------------------------------
# What each write holds: pure functions of (run, op), shared with the verifier


def memory_id(run: int, op: int) -> str:
    return f"r{run:03d}-m{op:05d}"


def person_name(memory: str) -> str:
    """A capitalised made-up name per memory: de-identification replaces it with a new
    placeholder, so each put also writes a row of the user's name mapping."""
    digest = zlib.crc32(memory.encode())
    letters = "".join(chr(ord("a") + (digest >> (5 * i)) % 26) for i in range(5))
    return "Ka" + letters


def memory_text(memory: str) -> str:
    return f"my neighbour {person_name(memory)} waters the plants, note {memory}"


def memory_vector(memory: str) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(memory.encode()))
    return rng.standard_normal(VECTOR_DIMS, dtype=np.float32)


def op_reason(run: int, op: int) -> str:
    """Written into the audit entry and the state change: which run's which operation wrote
    it, so a version lost and then written again by a later run does not pass for the one
    that was acknowledged."""
    return f"crash workload run {run} op {op}"


def state_goal(version: int, run: int, op: int) -> str:
    return f"goal of version {version} ({op_reason(run, op)})"


# ---------------------------------------------------------------------------------------------
# The run


class AckLog:
    """One run's acknowledgement log (see the module's text for why there is no fsync)."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def write(self, event: str, kind: str, **fields: Any) -> None:
        line = json.dumps({"event": event, "kind": kind, **fields}, sort_keys=True) + "\n"
        os.write(self._fd, line.encode())


def _use_config(config: WorkloadConfig) -> None:
    """The same key and Redis prefix as the test's verifier (a fork server's child starts from
    the environment the server was started with, not the test's current one)."""
    os.environ[KEY_FILE_ENV] = config.key_file
    os.environ.pop(KEY_ENV, None)
    redis_state.PREFIX = config.redis_prefix


def run_workload(config: WorkloadConfig, ready: Connection) -> None:
    """Open the stores, send what they hold now through `ready`, then write until killed.
    A failure is written to `config.error_file` for the test to show, then raised."""
    try:
        _use_config(config)
        _write_until_killed(config, ready)
    except BaseException:
        config.error_file.write_text(traceback.format_exc())
        raise


def _write_until_killed(config: WorkloadConfig, ready: Connection) -> None:
    stores = open_stores(config.store, config.state_url)
    user, session, run = config.user_id, config.session_id, config.run
    profile = stores.profiles.load(user)
    state = stores.states.load(session) or SessionState(session_id=session)
    log = AckLog(config.ack_log)
    ready.send({"profile_version": profile.version, "state_version": state.version})
    ready.close()

    started = time.monotonic()
    for op in count():
        if time.monotonic() - started > MAX_RUN_SECS:
            return
        memory = memory_id(run, op)
        text = memory_text(memory)
        now = time.time()
        record = MemoryRecord(id=memory, user_id=user, text=text, importance=9, source=MemorySource.USER_STATED,
                              created_at=now, last_accessed_at=now, expires_at=None, session_id=session)
        log.write(BEGIN, MEMORY, id=memory, run=run, op=op)
        stores.memories.put(record, memory_vector(memory))
        log.write(ACK, MEMORY, id=memory, run=run, op=op)

        # One writer at a time (the test waits for a killed run's connections to end), so the
        # profile read at the start stays current; `save` itself is last-writer-wins.
        profile.version += 1
        profile.last_session = {"id": session, "memory": memory}
        entry = AuditEntry(f"memory:{memory}", None, {"text": text, "profile_version": profile.version},
                           op_reason(run, op), session)
        log.write(BEGIN, PROFILE, version=profile.version, run=run, op=op)
        stores.profiles.save(profile, [entry], at=now)
        log.write(ACK, PROFILE, version=profile.version, run=run, op=op)

        while True:
            version = state.version + 1
            goal = state_goal(version, run, op)
            change = Change(version, op, ChangeAction.GOAL, "goal", state.goal, goal, op_reason(run, op), now)
            new = dataclasses.replace(state, version=version, turn=op, goal=goal, updated_at=now)
            log.write(BEGIN, STATE, version=version, run=run, op=op)
            try:
                stores.states.commit(new, state.version, [change])
            except VersionConflict:
                # A commit of the killed run that the server finished after this run read.
                state = stores.states.load(session) or SessionState(session_id=session)
                log.write(CONFLICT, STATE, version=version, run=run, op=op)
                continue
            log.write(ACK, STATE, version=version, run=run, op=op)
            state = new
            break
