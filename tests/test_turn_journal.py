"""The journal of pending long-term writes (`memory/stores/journal.py`): a turn is acknowledged
only once its inputs are durable, a dead writer's turns are replayed once and only once, the
journal is sealed and erased with the user, and two writers on one session never share a turn
number or an evidence id. The kill -9 figures are in test_crash_turns.py."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from pipecat.frames.frames import Frame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import run_test

from monologue.configs import LLMOptions
from monologue.memory.longterm.engine import AnsweredTurn, BeforeReply, LongTermMemory, LongTermOptions, LongTermStores
from monologue.memory.stores.database import Database
from monologue.memory.stores.journal import SqlTurnJournal
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.postgres import PostgresDatabase
from monologue.memory.stores.profiles import SqlProfileStore
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatLLM
from monologue.pipeline.text_chat import typed_turn
from monologue.processors.frames import AgentTurnEndFrame, UserTurnFrame
from monologue.processors.reply import ReplyMemory, ReplyProcessor
from monologue.processors.reply_wording import PromptOptions

USER, SESSION = "ann", "s-journal"
NOW_LEASE = LongTermOptions(journal_lease_secs=0.0)     # one writer at a time here: replay at once


def _memory(path: Path | Database, options: LongTermOptions = NOW_LEASE) -> LongTermMemory:
    store = SqlMemoryStore(path)
    return LongTermMemory(store, USER, options=options, stores=LongTermStores(profiles=SqlProfileStore(store.db)))


def _said(n: int, writer: str = "a") -> str:
    return f"my neighbour Kaplo{writer} waters the plants on day {n} of {writer}"


def _evidence(memory: LongTermMemory) -> list[str]:
    return [e for r in memory.stream.records()[0] for e in r.evidence]


async def _journal(memory: LongTermMemory, turn: int, text: str) -> Any:
    entry = await memory.journal_turn(BeforeReply(), text, session_id=SESSION, turn=turn,
                                      turn_class="information_change", reply_text="Noted.")
    assert entry is not None
    return entry


async def test_a_dead_writers_turn_is_replayed_once_at_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    dead = _memory(path)
    await _journal(dead, 1, _said(1))                    # acknowledged, then the process died
    landed = await _journal(dead, 2, _said(2))           # its write landed, its entry was not deleted yet
    dead.core.after_reply(BeforeReply(), _said(2), session_id=SESSION, turn=landed.turn,
                          turn_class="information_change")
    assert dead.journal is not None and dead.journal.count(USER) == 2

    fresh = _memory(path)
    await fresh.open_session("s-next")                   # the next start replays
    assert fresh.journal is not None and fresh.journal.count(USER) == 0
    assert len(fresh.replayed) == 2
    assert sorted(r.text for r in fresh.stream.records()[0]) == [_said(1), _said(2)]
    assert Counter(_evidence(fresh)) == {f"{SESSION}:1": 1, f"{SESSION}:2": 1}    # turn 2 not written twice
    again = _memory(path)
    await again.open_session("s-after")
    assert again.replayed == [] and len(again.stream.records()[0]) == 2


async def test_a_live_writers_turn_is_left_to_it_until_its_lease_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    live = _memory(path)
    await _journal(live, 1, _said(1))
    other = _memory(path, LongTermOptions(journal_lease_secs=3600))
    assert await other.replay_pending() == 0 and other.stream.records()[0] == []
    assert await live.replay_pending() == 0             # its own entries it retries itself


async def test_a_turn_answering_erase_is_replayed_as_an_erase(tmp_path: Path) -> None:
    """The question the turn answered lived only in the dead worker: the journal keeps it, so a
    "yes" to "forget everything?" still erases after a crash, and the turns after it stay unwritten."""
    from monologue.memory.longterm.exchange import Awaiting

    path = tmp_path / "m.db"
    dead = _memory(path)
    first = await _journal(dead, 1, _said(1))
    dead.core.after_reply(BeforeReply(), _said(1), session_id=SESSION, turn=first.turn, turn_class="chit_chat")
    assert dead.journal is not None
    dead.journal.done(first.id)
    yes = BeforeReply(answered=(Awaiting("erase"), True))
    assert await dead.journal_turn(yes, "yes", session_id=SESSION, turn=2, turn_class="confirmation") is not None
    await _journal(dead, 3, _said(3))
    fresh = _memory(path)
    await fresh.open_session("s-next")
    assert fresh.stream.records()[0] == [] and fresh.journal is not None and fresh.journal.count(USER) == 0


def _stored_bytes(folder: Path, name: str) -> bytes:
    """The database file and its journals, as they lie on disk."""
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.name.startswith(name))


async def test_the_journal_is_sealed_and_erased_with_the_user(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    memory = _memory(path)
    secret = "my door code is Quoxtrel-4471"
    await _journal(memory, 1, secret)
    assert memory.journal is not None and memory.journal.db.sealer is not None
    assert b"Quoxtrel" not in _stored_bytes(tmp_path, "m.db")
    another = SqlTurnJournal(memory.journal.db)
    assert [e.inputs["text"] for e in another.pending(USER, stale_before=1e12)] == [secret]
    memory.stream.store.erase_user(USER)
    assert another.count(USER) == 0
    # An erase of the user's sessions (erasure.py, session.py) takes their turn numbers too.
    assert another.forget_sessions([SESSION]) == 1
    assert another.db.query("SELECT count(*) FROM session_turns") == [(0,)]


async def test_a_reply_is_acknowledged_only_once_its_journal_entry_is_stored(tmp_path: Path, monkeypatch) -> None:
    """The turn's end (what acknowledges it: a text room answers the call then) comes after the
    entry is in the store, while the write itself is still held in the background."""
    memory = _memory(tmp_path / "m.db")
    release = threading.Event()
    real_write = memory.after_reply_now

    def held_write(*args: Any, **kwargs: Any) -> list[str]:
        release.wait(60)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(memory, "after_reply_now", held_write)
    seen: list[tuple[int, int]] = []

    class AtTheEnd(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)
            if isinstance(frame, AgentTurnEndFrame):
                assert memory.journal is not None
                seen.append((memory.journal.count(USER), len(memory.stream.records()[0])))
                release.set()
            await self.push_frame(frame, direction)

    llm = ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None, mock_response="Noted, thank you."))
    reply = ReplyProcessor(llm, ConversationLog(), PromptOptions("be brief"), memory=ReplyMemory(long_term=memory))
    turn = typed_turn(1, _said(1))
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    try:
        await run_test(Pipeline([reply, AtTheEnd()]), frames_to_send=[UserTurnFrame(turn=turn)])
        await memory.drain()
    finally:
        release.set()
    assert seen == [(1, 0)]                          # journaled, not yet written, when acknowledged
    assert memory.journal is not None and memory.journal.count(USER) == 0     # deleted once it landed
    assert [r.text for r in memory.stream.records()[0]] == [_said(1)]
    assert "memory_journal" in turn.compute


async def test_a_store_out_of_reach_delays_the_reply_by_the_journal_wait_at_most(tmp_path: Path) -> None:
    """The entry that does not come back in time: the turn goes on (not durable yet), the write
    still lands, and the entry, stored once the store answered, is replayed as already written."""
    path = tmp_path / "m.db"
    memory = _memory(path, LongTermOptions(journal_lease_secs=0.0, journal_wait_secs=0.05))
    assert memory.journal is not None
    release = threading.Event()
    real_add = memory.journal.add

    def stuck_add(*args: Any, **kwargs: Any) -> Any:
        release.wait(60)
        return real_add(*args, **kwargs)

    memory.journal.add = stuck_add         # type: ignore[method-assign]
    before = BeforeReply()
    assert await memory.journal_turn(before, _said(1), session_id=SESSION, turn=1,
                                     turn_class="information_change") is None
    assert any("journal: no answer" in f for f in memory.failed_writes)
    release.set()
    await memory.after_reply(AnsweredTurn(before, _said(1), session_id=SESSION, turn=1,
                                          turn_class="information_change"))
    for _ in range(3000):                          # the insert left running lands (a hang guard, not a budget)
        if memory.journal.count(USER):
            break
        await asyncio.sleep(0.01)
    fresh = _memory(path)
    await fresh.open_session("s-next")
    assert len(fresh.replayed) == 1 and [r.text for r in fresh.stream.records()[0]] == [_said(1)]


def _two_writers(make_memory: Any, turns: int = 12) -> list[LongTermMemory]:
    """Two workers on one session, each numbering its turns 1, 2, 3 … from the same state (as
    two workers that both took the session up do), writing at the same time."""
    writers = [make_memory(), make_memory()]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    async def talk(memory: LongTermMemory, name: str) -> None:
        for n in range(1, turns + 1):       # as the reply stage does: journal, then the write
            text = _said(n, name)
            pending = await memory.journal_turn(BeforeReply(), text, session_id=SESSION, turn=n,
                                                turn_class="information_change", reply_text="Noted.")
            await memory.after_reply(AnsweredTurn(BeforeReply(), text, session_id=SESSION, turn=n,
                                                  turn_class="information_change", pending=pending))

    def write(memory: LongTermMemory, name: str) -> None:
        try:
            start.wait(10)
            asyncio.run(talk(memory, name))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(m, name)) for m, name in zip(writers, "ab", strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    return writers


def _check_no_shared_evidence(memory: LongTermMemory, turns: int = 12) -> None:
    records = memory.stream.records()[0]
    assert len(records) == 2 * turns
    evidence = [e for r in records for e in r.evidence]
    assert len(evidence) == 2 * turns and len(set(evidence)) == 2 * turns, Counter(evidence).most_common(3)
    numbers = sorted(int(e.rsplit(":", 1)[1]) for e in evidence)
    assert len(set(numbers)) == 2 * turns                      # no turn number taken twice
    assert numbers[:turns] == list(range(1, turns + 1))        # the proposed numbers used while free


def test_two_writers_on_one_session_share_no_turn_number_nor_evidence_on_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    writers = _two_writers(lambda: _memory(SQLiteDatabase(path)))
    _check_no_shared_evidence(_memory(path))
    assert len({w.journal.writer for w in writers if w.journal is not None}) == 2


def test_two_writers_on_one_session_share_no_turn_number_nor_evidence_on_postgresql(pg_url: str) -> None:
    _two_writers(lambda: _memory(PostgresDatabase(pg_url)))
    _check_no_shared_evidence(_memory(PostgresDatabase(pg_url)))


def test_the_store_numbers_a_session_on_from_the_highest_turn_taken(tmp_path: Path) -> None:
    journal = SqlTurnJournal(SqlMemoryStore(tmp_path / "m.db").db)
    taken = [journal.add(USER, SESSION, n, {"text": "x"}).turn for n in (1, 2, 2, 7, 3, 8)]
    assert taken == [1, 2, 3, 7, 8, 9]



async def test_an_entry_that_cannot_be_read_is_left_and_the_others_are_replayed(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    dead = _memory(path)
    broken = await _journal(dead, 1, _said(1))
    await _journal(dead, 2, _said(2))
    assert dead.journal is not None
    dead.journal.db.run("UPDATE turn_journal SET entry = 'not what was sealed' WHERE id = ?", (broken.id,))
    fresh = _memory(path)
    await fresh.open_session("s-next")                   # the session opens all the same
    assert [r.text for r in fresh.stream.records()[0]] == [_said(2)]
    assert fresh.journal is not None and fresh.journal.count(USER) == 1     # kept, reported, not dropped


def test_a_key_rotation_seals_the_journal_again(tmp_path: Path) -> None:
    from monologue.memory.stores.rotation import rotate_key

    store = SqlMemoryStore(tmp_path / "m.db")
    SqlTurnJournal(store.db).add(USER, SESSION, 1, {"text": _said(1)})
    store.db.close()
    assert rotate_key(tmp_path / "m.db").values == 1           # the entry is the store's one sealed value
    reopened = SqlMemoryStore(tmp_path / "m.db")
    assert [e.inputs["text"] for e in SqlTurnJournal(reopened.db).pending(USER, stale_before=1e12)] == [_said(1)]
