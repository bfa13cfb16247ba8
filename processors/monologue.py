"""Monologue/state stage: updates working memory on turns that change it (P2, W2).

The update starts here and the turn goes on to the reply at once, carrying the
update's future: a reply to a state-changing turn awaits it; chit-chat runs no update and
waits, at most, for the turn before to be settled.
"""

from __future__ import annotations

import asyncio
import time

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import UpdateResult, UpdateWithdrawn, WorkingMemory
from monologue.processors.frames import MonologueOutcome, Turn, UserTurnFrame

SETTLE_WAIT_SECS = 30.0


class MonologueProcessor(FrameProcessor):
    """One job: record the user turn and run the working-memory update for it.

    `after_replies`: each turn first waits until the agent's reply to the turn before it is
    settled, that is committed to memory as far as the user heard it (the reply stage's
    committer settles it once the playout reports). A "yes" then answers what was actually said, and
    the log keeps the order in which things were said.
    """

    def __init__(self, log: ConversationLog, memory: WorkingMemory | None = None, *,
                 after_replies: bool = False) -> None:
        super().__init__()
        self._log = log
        self._memory = memory
        self._after_replies = after_replies
        self._previous: Turn | None = None
        self.triggered = 0

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            self._start(frame.turn)
        await self.push_frame(frame, direction)

    def after_opening(self, opening: Turn) -> None:
        """The first turn waits for the agent's greeting to be committed, as later turns wait
        for the reply before them."""
        if self._previous is None:
            self._previous = opening

    def _start(self, turn: Turn) -> None:
        if self._after_replies:
            turn.queue_after(self._previous)
            self._previous = turn
        triggers = turn.classifier is not None and turn.classifier.triggers_monologue
        if self._memory is None or not triggers:
            turn.monologue = MonologueOutcome.skip("chit-chat" if self._memory else "working memory off")
            if turn.previous_settled:
                self._log_when_confirmed(turn)
            else:
                turn.begin_state_update(self._in_order(turn))
            return
        self.triggered += 1
        started = time.perf_counter()
        # A task, not an await: the reply processor receives the turn now and decides
        # whether to wait for this update (state-changing turns) or not (chit-chat).
        turn.begin_state_update(self._update(turn, started))

    async def _settled_before(self, turn: Turn) -> None:
        try:
            async with asyncio.timeout(SETTLE_WAIT_SECS):
                await turn.wait_for_previous()
        except TimeoutError:
            logger.warning("turn {}: the previous reply was not settled within {:.0f} s; going on",
                           turn.turn_id, SETTLE_WAIT_SECS)

    async def _in_order(self, turn: Turn) -> UpdateResult | None:
        """Chit-chat: nothing to update, but the user's words go into the log after the reply before
        (a draft's, once its end is confirmed). The reply waits for this (its prompt needs
        the reply before in the log), not for the draft's confirmation."""
        await self._settled_before(turn)
        self._log_when_confirmed(turn)
        return None

    def _log_when_confirmed(self, turn: Turn) -> None:
        """The user's words enter the log once the turn stands; a dropped draft's never do
        (the user went on: what they said is the next turn's text)."""
        # Registered before the reply's own wait for the draft, so the user's line is in
        # the log before the reply's is committed.
        turn.when_stands(lambda: self._log.add("user", turn.text, turn.turn_id))

    async def _update(self, turn: Turn, started: float) -> UpdateResult | None:
        """The update reads the utterance at once (a draft's too) and writes only once the turn
        stands: a draft the user talked on through leaves the state and the log as they were."""
        assert self._memory is not None
        await self._settled_before(turn)

        async def confirmed() -> bool:
            if await turn.stands():
                self._log.add("user", turn.text, turn.turn_id)
                return True
            return False

        update = asyncio.ensure_future(self._memory.update(
            turn.text, turn=turn.turn_id, turn_class=turn.turn_class or "",
            asr_confidence=turn.asr.confidence if turn.asr is not None else None, ready=confirmed))
        # A dropped draft's update stops where it is (its LLM call too, which would hold
        # the llama thread the next turn needs); it has written nothing: writing waits for
        # the turn to stand.
        turn.on_dropped(update.cancel)
        try:
            result = await update
        except UpdateWithdrawn:
            turn.monologue = MonologueOutcome.skip("draft dropped: the user went on")
            return None
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not turn.dropped or (current is not None and current.cancelling()):
                update.cancel()
                raise
            turn.monologue = MonologueOutcome.skip("draft dropped: the user went on")
            return None
        except Exception as exc:  # a failed update must not lose the turn
            turn.monologue = MonologueOutcome.failed(f"{type(exc).__name__}: {exc}")
            logger.opt(exception=exc).error("session {}: turn {}: the state update failed; the reply uses the "
                                            "state as it was: {}", self._memory.session_id, turn.turn_id, exc)
            return None
        finally:
            done = time.perf_counter()
            turn.compute["monologue"] = done - started
            turn.mark("monologue_done", done)
        turn.monologue = MonologueOutcome.of(result)
        return result

