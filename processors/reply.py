"""Reply: one turn's answer, in three jobs — plan (`reply_plan`: the policy decides the act),
word (`reply_wording`: the model words it, each clause checked before TTS gets it, the
template saying whatever the model could not) and commit (`reply_commit`: what the user
heard enters memory). This stage runs them in order and lets the user's speech cut them."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import Literal

from loguru import logger
from pipecat.frames.frames import CancelFrame, EndFrame, Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.dialogue.check import CheckFailure, Failure
from monologue.dialogue.dialogue_session import DialogueOptions, DialogueSession, Planned
from monologue.memory.language.phrases import say
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory
from monologue.models.chat import ChatLLM
from monologue.processors.frames import AgentTurnEndFrame, BargeInFrame, ReplyTextFrame, Turn, UserTurnFrame
from monologue.processors.reply_commit import PendingReply, ReplyCommitter
from monologue.processors.reply_plan import ReplyPlanner
from monologue.processors.reply_wording import PromptOptions, ReplyWording


@dataclass(frozen=True)
class ReplyOptions:
    """How replies are made: `wording` model (the policy decides, the model words) or policy
    (the policy's own words); `commit_when_played`: a voice reports what was heard."""

    language: str = "en"
    min_clause_chars: int = 12
    wording: Literal["model", "policy"] = "model"
    choose_actions: bool = True        # a model with function calling may choose the action
    commit_when_played: bool = False
    first_audio_budget_ms: float = 0.0  # the user's silence the first words must end; 0: no limit (text)
    late_notice_after_ms: float = 0.0   # still no plan at this silence: "one moment"; 0: never (text)
    prefill_next: bool = True           # the next reply's prompt head is computed once this one is in the log


@dataclass
class ReplyMemory:
    """What the reply stage reads and writes besides the conversation log."""

    working: WorkingMemory | None = None
    long_term: LongTermMemory | None = None
    dialogue: DialogueSession | None = None     # None: a policy over `working` with no catalogues


class ReplyProcessor(FrameProcessor):
    """One job: `UserTurnFrame` in; `ReplyTextFrame` clauses and `AgentTurnEndFrame` out.

    With a voice (`commit_when_played`), what the agent said enters the conversation log,
    the session state and long-term memory only once the playout says what the user heard:
    a reply cut by the user's speech is remembered as far as it was spoken, and an offer it
    never got to is not an offer. A `BargeInFrame` cancels the reply still being worded.
    """

    def __init__(self, llm: ChatLLM, log: ConversationLog, prompt: PromptOptions, *,
                 memory: ReplyMemory | None = None, options: ReplyOptions | None = None) -> None:
        super().__init__()
        memory = memory or ReplyMemory()
        options = options or ReplyOptions()
        long_term = memory.long_term
        dialogue = memory.dialogue or DialogueSession(
            memory.working, {}, embed=long_term.embed if long_term is not None else None,
            options=DialogueOptions(language=options.language))
        self._options = options
        self._log = log
        self._planner = ReplyPlanner(llm, dialogue, memory=memory.working, long_term=long_term,
                                     choose_actions=options.choose_actions)
        self._wording = ReplyWording(llm, prompt, self.push_frame, language=options.language,
                                     min_clause_chars=options.min_clause_chars,
                                     first_audio_budget_ms=options.first_audio_budget_ms,
                                     late_notice_after_ms=options.late_notice_after_ms)
        self._committer = ReplyCommitter(log, dialogue, memory=memory.working, long_term=long_term,
                                         when_played=options.commit_when_played, on_committed=self._committed)
        self._prefilling: tuple[asyncio.Task[None], threading.Event] | None = None
        self._stopped_prefills: set[asyncio.Task[None]] = set()    # told to stop, letting go of the model
        self._ending = False         # an EndFrame or CancelFrame went by: no next turn to get ready for
        self._answering: tuple[int, asyncio.Task[None]] | None = None
        self._cancelled: set[int] = set()
        self._opening: Turn | None = None

    def set_opening(self, text: str) -> Turn:
        """A line to say before the user speaks (long-term memory's greeting, L10), as turn 0.

        The first user turn is queued after it: it is settled once committed — at once without
        a voice, else when the playout says how much of it was heard (the user may talk over a
        long greeting), so a "yes" confirms only what the greeting said."""
        turn = Turn(turn_id=0, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0,
                    detected_at=time.perf_counter(), vad_engine="opening")
        turn.reply.text = text.strip()
        if turn.reply.text:
            self._opening = turn
        else:
            turn.settle()
        return turn

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            await self._reply(frame.turn)
            return
        if isinstance(frame, BargeInFrame) and frame.interrupt:
            self._stop_wording(frame.turn.turn_id)
        if isinstance(frame, (EndFrame, CancelFrame)):
            self._ending = True
            self._stop_prefill()
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame) and self._opening is not None:
            # Turn 0 is the agent's: spoken through TTS like any reply, and in the
            # conversation log so the next reply knows what it offered.
            turn, self._opening = self._opening, None
            await self._committer.made(turn, self._committer.open(turn, opening=True))
            await self.push_frame(ReplyTextFrame(text=turn.reply.text, turn=turn))
            await self.push_frame(AgentTurnEndFrame(turn=turn))

    def _stop_wording(self, before_turn: int) -> None:
        """The user spoke over the agent: the reply still being worded for an earlier turn stops."""
        if self._answering is not None and self._answering[0] < before_turn and not self._answering[1].done():
            self._cancelled.add(self._answering[0])
            self._answering[1].cancel()

    async def flush(self) -> None:
        """Wait for background memory writes (end of session, tests)."""
        await self._committer.flush()

    async def cleanup(self) -> None:
        await self.flush()
        self._ending = True
        self._stop_prefill()
        for task in list(self._stopped_prefills):
            await self.cancel_task(task)
        await super().cleanup()

    def _committed(self, turn: Turn) -> None:
        """A reply entered the log (with a voice: as far as it was heard): while the user
        answers, the model computes the next reply's prompt up to the user's new words
        (`ReplyWording.prefill`). Done later, on the turn itself, that is ~30 tokens of the
        user's wait on this CPU. A head still being computed for an older log is stopped:
        this one is the next prompt's."""
        if not self._options.prefill_next or self._options.wording != "model" or self._ending:
            return
        self._stop_prefill()
        cancel = threading.Event()
        prefill = self._wording.prefill(self._next_prompt_head(), cancel)
        try:
            self._prefilling = (self.create_task(prefill, name="reply-prefill"), cancel)
        except BaseException:
            prefill.close()
            raise

    def _stop_prefill(self) -> None:
        """Stop the head being computed ahead, if any (on the llama thread, within a prompt
        chunk); its task is kept until it ends, so that cleanup can cancel it."""
        if self._prefilling is None:
            return
        (task, cancel), self._prefilling = self._prefilling, None
        cancel.set()
        if not task.done():
            self._stopped_prefills.add(task)
            task.add_done_callback(self._stopped_prefills.discard)

    def _next_prompt_head(self) -> list[dict[str, str]]:
        return self._wording.next_prompt_head(self._log)

    async def _reply(self, turn: Turn) -> None:
        pending = self._committer.open(turn)
        # A task of its own, so that the user's speech over the agent can cancel it.
        task = self.create_task(self._answer(turn, pending), name=f"reply-{turn.turn_id}")
        self._answering = (turn.turn_id, task)
        # A draft: if the user goes on, the reply stops wherever it is (the playout holds
        # its audio until the turn is confirmed, so none of it was heard).
        turn.on_dropped(lambda: task.done() or task.cancel())
        try:
            await asyncio.wait({task})
            if turn.dropped:
                self._committer.forget(turn)
                return
            if task.cancelled() and turn.turn_id in self._cancelled:
                self._cancelled.discard(turn.turn_id)
                # Cut by the user before it was all worded: what was said is committed when
                # the playout reports it; nothing more is worded.
                turn.reply.source = turn.reply.source or "cancelled"
            else:
                task.result()
        except asyncio.CancelledError:
            if not task.done():
                task.cancel()
            raise
        except Exception as exc:
            # A bug of ours must not leave the user in silence (nor hang a replay waiting for
            # the turn's end): say so, trace it, and end the turn.
            logger.opt(exception=exc).error("turn {}: the reply failed: {}: {}", turn.turn_id, type(exc).__name__, exc)
            turn.reply.error = f"{type(exc).__name__}: {exc}"
            turn.reply.check = [*turn.reply.check, CheckFailure(Failure.INTERNAL_ERROR, turn.reply.error)]
            if not turn.reply.text:
                await self._wording.say_directly(turn, say("reply.fallback", self._options.language), "fallback")
        finally:
            self._answering = None
        await self._made(turn, pending)

    async def _plan_in_time(self, turn: Turn, pending: PendingReply) -> Planned | None:
        """The plan; if it is not ready when the first words are due, the user hears that the
        agent needs a moment (once), and then the reply. A draft the user may still talk on
        through is not late: its audio waits for the turn's end anyway."""
        plan = asyncio.ensure_future(self._planner.plan(turn, pending, self._log))
        try:
            due = self._wording.clock.plan_deadline_secs(turn)
            if due is not None:
                await asyncio.wait({plan}, timeout=max(due, 0.0))
                if not plan.done() and turn.decided and not turn.dropped:
                    await self._wording.say_late(turn, self._options.language)
            return await plan
        finally:
            if not plan.done():
                plan.cancel()

    async def _made(self, turn: Turn, pending: PendingReply) -> None:
        """The reply is made: committed now (no voice), or once the playout says what was heard.
        A draft's reply is made only once the turn is confirmed."""
        if not await turn.stands():
            self._committer.forget(turn)
            return
        await self._committer.made(turn, pending)
        await self.push_frame(AgentTurnEndFrame(turn=turn))

    async def _answer(self, turn: Turn, pending: PendingReply) -> None:
        planned = await self._plan_in_time(turn, pending)
        if planned is None:
            return
        if planned.decision.act.said_as_decided or self._options.wording == "policy":
            # Facts the code has (a misheard value to ask about, an answer from memory): said
            # exactly rather than hoping a model repeats them faithfully.
            await self._wording.say_directly(turn, planned.template, "policy")
        else:
            await self._wording.word(turn, planned, self._log, self._planner.local_only)
