"""Committing a reply as it was heard: what the user heard enters the conversation log, the
session state and long-term memory; what they never heard (cut by their speech, or never
spoken) does not — an offer the agent never got to is not an offer.

Like pipecat's assistant aggregator, which adds to the context only what was spoken."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from loguru import logger

from monologue.dialogue.dialogue_session import DialogueSession, Planned
from monologue.memory.longterm.engine import (
    AfterReply,
    AnsweredTurn,
    BeforeReply,
    JournalEntry,
    LongTermMemory,
    session_snapshot,
)
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory
from monologue.memory.working.turn_classes import TurnClass
from monologue.processors.frames import Heard, Turn
from monologue.processors.reply_wording import joined


@dataclass
class PendingReply:
    """A reply being made, then waiting to learn what the user heard before it is committed.

    The planner fills `planned` and `before` as it decides; the committer fills `heard` from
    the playout's report."""

    planned: Planned | None = None
    before: BeforeReply | None = None
    made: bool = False              # the wording finished (or was cancelled)
    heard: Heard | None = None      # from the playout
    reported: bool = False
    opening: bool = False           # long-term memory's greeting (turn 0)


class ReplyCommitter:
    """One job: commit each reply once it is made and its hearing is known, then settle the turn.

    `when_played`: with a voice, a reply waits for the playout's report (`Turn.mark_heard`);
    without one, it is committed as soon as it is made, whole. `on_committed(turn)` is told
    when a reply has entered the log."""

    def __init__(self, log: ConversationLog, dialogue: DialogueSession, *, memory: WorkingMemory | None = None,
                 long_term: LongTermMemory | None = None, when_played: bool = False,
                 on_committed: Callable[[Turn], None] | None = None) -> None:
        self._log = log
        self._on_committed = on_committed
        self._dialogue = dialogue
        self._memory = memory
        self._long_term = long_term
        self._when_played = when_played
        self._pending: dict[int, PendingReply] = {}

    def open(self, turn: Turn, *, opening: bool = False) -> PendingReply:
        """A reply to `turn` is being made: its commit waits for it (and for what was heard)."""
        pending = self._pending[turn.turn_id] = PendingReply(opening=opening)
        turn.commit_heard_with(self._heard)
        return pending

    def forget(self, turn: Turn) -> None:
        """A dropped draft: nothing of its reply is committed, and its place in the order goes back."""
        self._pending.pop(turn.turn_id, None)
        turn.withdraw()

    async def made(self, turn: Turn, pending: PendingReply) -> None:
        """The reply is made: commit it now (no voice, or the playout already reported)."""
        pending.made = True
        if not self._when_played or pending.reported:
            await self._commit(turn, pending)

    async def _heard(self, turn: Turn, heard: Heard) -> None:
        """The playout says what the user heard of this turn's reply: that much is committed."""
        pending = self._pending.get(turn.turn_id)
        if pending is None:
            return
        pending.heard, pending.reported = heard, True
        if pending.made:
            await self._commit(turn, pending)

    async def _commit(self, turn: Turn, pending: PendingReply) -> None:
        """What the user heard of the reply enters the log, the state and long-term memory."""
        self._pending.pop(turn.turn_id, None)
        try:
            await self._commit_heard(turn, pending)
        except Exception as exc:    # memory failing must not stop the conversation
            logger.opt(exception=exc).error("turn {}: remembering the reply failed: {}", turn.turn_id, exc)
        finally:
            turn.settle()
        if self._on_committed is not None:
            try:
                self._on_committed(turn)
            except Exception as exc:    # a head start for the next turn: never this turn's failure
                logger.opt(exception=exc).warning("turn {}: after its commit: {}", turn.turn_id, exc)

    async def _commit_heard(self, turn: Turn, pending: PendingReply) -> None:
        heard = pending.heard
        # In the reply's own language: an English answer in a Chinese session keeps its spaces.
        language = pending.planned.language if pending.planned is not None else self._dialogue.language
        text = turn.reply.text if heard is None else joined(list(heard.clauses), language)
        cut = heard is not None and heard.cut
        if text:
            self._log.add("assistant", text, turn.turn_id)
        if pending.opening:
            # "I still have … — is that still right?": a yes confirms what the greeting read back.
            if text and self._memory is not None:
                await self._memory.record_agent_turn(text, turn=0)
            return
        if pending.planned is not None and (text or pending.planned.done):
            await self._dialogue.remember(pending.planned, text, turn.turn_id, cut=cut)
        if text:
            await self._remember_later(turn, pending.before, text)

    async def _remember_later(self, turn: Turn, before: BeforeReply | None, said: str) -> None:
        """The memory writes this turn implies, off the critical path. Only their journal
        entry is on it (one small insert): the turn is acknowledged after this returns, and
        a crash before the writes land leaves the entry for the next start to replay."""
        if self._long_term is None or before is None:
            return
        session_id = self._memory.session_id if self._memory else ""
        started = time.perf_counter()
        journaled = await self._long_term.journal_turn(before, turn.text, session_id=session_id, turn=turn.turn_id,
                                                       turn_class=turn.turn_class or "", reply_text=said,
                                                       language=self._dialogue.language)
        turn.compute["memory_journal"] = time.perf_counter() - started
        self._long_term.spawn(self._remember(self._long_term, turn, before, said, journaled), session_id=session_id,
                             turn_writes=True)

    async def _remember(self, long_term: LongTermMemory, turn: Turn, before: BeforeReply,
                        said: str, journaled: JournalEntry | None = None) -> None:
        # Only a change to the task can reach the profile at once (L8): for those turns
        # long-term memory reads the session's state as this turn left it.
        session_id = self._memory.session_id if self._memory else ""
        session = None
        if self._memory is not None and turn.turn_class == TurnClass.INFORMATION_CHANGE:
            session = await asyncio.to_thread(session_snapshot, self._memory)
        answered = AnsweredTurn(before, turn.text, session_id=session_id, turn=turn.turn_id,
                                turn_class=turn.turn_class or "", reply_text=said, session=session,
                                pending=journaled)
        changes = await long_term.after_reply(answered)
        await self._apply_long_term(changes, turn)

    async def _apply_long_term(self, changes: AfterReply, turn: Turn) -> None:
        """What long-term memory asks of this session's working memory: the two engines
        meet here, not inside either."""
        if self._memory is not None and changes.restore_text:
            # "No, I still am": the earlier statement stands, in this session's state too.
            await self._memory.update(changes.restore_text, turn=turn.turn_id,
                                      turn_class=TurnClass.INFORMATION_CHANGE)

    async def flush(self) -> None:
        """Wait for background memory writes (end of session, tests)."""
        if self._long_term is not None:
            await self._long_term.drain()
