"""The conversation that `test_crash_turns.py` kills with SIGKILL: turns whose long-term writes
run in the background, acknowledged the way the reply stage acknowledges them.

A run opens the stores as a worker does (`open_stores`), says it is ready, opens the user's
long-term memory (which replays what the run before it left in the journal: a kill can land
there too), then takes one turn after another until it is killed. Each turn does what a
turn does in `ReplyProcessor`, in the same order, without the model and the frames:

1. `before_reply` (recall, under the long-term lock: it waits for the previous turn's writes);
2. the session state one version up (compare-and-set), the turn in it;
3. `journal_turn`: the turn's inputs in the journal, one small transaction;
4. `ack` in the acknowledgement log: the reply would go out now;
5. `after_reply` spawned in the background (the memory write, then the entry deleted).

So a kill can land before the journal entry (not acknowledged: nothing is owed), between the
acknowledgement and the write (the entry is replayed by the next run), during the write, or
after it and before the entry is deleted (the replay must not write it twice). The log is the
one `crash_writer.AckLog` writes (no fsync: the test kills the process, not the machine).

Each turn says something worth remembering, different from every other turn's, so a memory
stored twice or under another turn's evidence shows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
import traceback
from dataclasses import dataclass
from itertools import count
from multiprocessing.connection import Connection
from pathlib import Path

from crash_writer import ACK, BEGIN, AckLog, ack_log_path

from monologue.memory.longterm.engine import AnsweredTurn, LongTermMemory, LongTermOptions, LongTermStores
from monologue.memory.stores.factory import open_stores
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV
from monologue.memory.working.state import SessionState
from monologue.memory.working.turn_classes import TurnClass

MAX_RUN_SECS = 120.0          # a run nobody killed stops by itself (the test reports it)
PRELOAD = ["monologue.memory.longterm.engine", "monologue.memory.stores.factory", "monologue.memory.stores.postgres",
           "numpy", "psycopg", "psycopg_pool", "pytest"]
USER_ID, SESSION_ID = "crash-user", "crash-session"
TURN = "turn"
# One writer at a time (the test starts a run once the last one is dead): what a run finds in
# the journal is a dead writer's, replayed at once.
OPTIONS = LongTermOptions(journal_lease_secs=0.0)


@dataclass(frozen=True)
class TurnsConfig:
    store: str              # the SQLite file
    key_file: str           # the sealing key, the one the verifier opens the store with
    log_dir: str
    run: int
    journal: bool = True    # off: acknowledged after the state commit alone, as before the turn journal (the control)

    @property
    def ack_log(self) -> Path:
        return ack_log_path(self.log_dir, self.run)

    @property
    def error_file(self) -> Path:
        return Path(self.log_dir) / f"error-{self.run:03d}.txt"


def turn_text(run: int, op: int) -> str:
    """What the user says in run `run`'s turn `op`: a fact of its own, remembered as a memory."""
    return f"my neighbour Ka{chr(97 + run % 26)}{chr(97 + op % 26)}lo waters the plants, note r{run:03d}-t{op:05d}"


def open_memory(store: str) -> LongTermMemory:
    stores = open_stores(store)
    return LongTermMemory(stores.memories, USER_ID, options=OPTIONS, stores=LongTermStores(profiles=stores.profiles))


def run_turns(config: TurnsConfig, ready: Connection) -> None:
    """Write turns until killed; a failure goes to `config.error_file`, then is raised."""
    try:
        os.environ[KEY_FILE_ENV] = config.key_file
        os.environ.pop(KEY_ENV, None)
        asyncio.run(_turns_until_killed(config, ready))
    except BaseException:
        config.error_file.write_text(traceback.format_exc())
        raise


async def _turns_until_killed(config: TurnsConfig, ready: Connection) -> None:
    stores = open_stores(config.store)
    memory = LongTermMemory(stores.memories, USER_ID, options=OPTIONS, stores=LongTermStores(profiles=stores.profiles))
    if not config.journal:
        memory.journal = None
    log = AckLog(config.ack_log)
    ready.send({"opened": True})
    ready.close()
    await memory.open_session(SESSION_ID)            # replays the journal the last run left
    state = stores.states.load(SESSION_ID) or SessionState(session_id=SESSION_ID)
    started = time.monotonic()
    run = config.run
    for op in count():
        if time.monotonic() - started > MAX_RUN_SECS:
            return
        text = turn_text(run, op)
        proposed = state.turn + 1                     # numbered on from the stored state, as a session is
        log.write(BEGIN, TURN, run=run, op=op, proposed=proposed)
        before = await memory.before_reply(text, session_id=SESSION_ID, turn_class=TurnClass.INFORMATION_CHANGE)
        while True:
            new = dataclasses.replace(state, version=state.version + 1, turn=proposed, updated_at=time.time())
            try:
                await asyncio.to_thread(stores.states.commit, new, state.version, [])
                break
            except VersionConflict:
                state = stores.states.load(SESSION_ID) or SessionState(session_id=SESSION_ID)
        state = new
        pending = await memory.journal_turn(before, text, session_id=SESSION_ID, turn=proposed,
                                            turn_class=TurnClass.INFORMATION_CHANGE, reply_text="Noted.")
        if pending is None and config.journal:
            raise RuntimeError(f"turn {op} was not journaled (see the log)")
        log.write(ACK, TURN, run=run, op=op, turn=pending.turn if pending is not None else proposed)
        memory.spawn(memory.after_reply(AnsweredTurn(before, text, session_id=SESSION_ID, turn=proposed,
                                                     turn_class=TurnClass.INFORMATION_CHANGE, reply_text="Noted.",
                                                     pending=pending)), session_id=SESSION_ID)
