"""The naive agent seed 000 compares against (`reply.mode: whole_history`): every message so
far in the prompt, and no state.

No working memory, no dialogue policy, no note, no check and no template: the model reads
the domain's system prompt and the whole conversation, and its words go to the voice as they
stream, clause by clause. This is what a pipecat LLM agent with a growing context does, and
the baseline `scripts/bench_latency.py` sets the monologue against. Everything around the
reply is the monologue agent's own (VAD, ASR, turn end, voice, playout, barge-in), what the
user heard is committed to the log by the same committer, and the turn's marks, compute
times and token counts are the ones `ReplyWording` writes, so the trace and the latency
figures compare like for like.
"""

from __future__ import annotations

import asyncio
import time

from loguru import logger
from pipecat.frames.frames import Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.dialogue.check import CheckFailure, Failure
from monologue.dialogue.dialogue_session import DialogueOptions, DialogueSession
from monologue.memory.language.phrases import say
from monologue.memory.working.conversation import ConversationLog
from monologue.models.chat import ChatError, ChatLLM, StreamStats
from monologue.processors.frames import (
    AgentTurnEndFrame,
    BargeInFrame,
    ReplySource,
    ReplyTextFrame,
    Turn,
    UserTurnFrame,
)
from monologue.processors.reply import ReplyOptions
from monologue.processors.reply_commit import PendingReply, ReplyCommitter
from monologue.processors.reply_wording import ClauseSplitter, joined


def whole_history_prompt(system_prompt: str, log: ConversationLog, turn: Turn) -> list[dict[str, str]]:
    """The system prompt, every message said so far, whole and in order, then the user's turn.

    Nothing is clipped or dropped: the prompt grows with the session, which is the point of
    the baseline (the monologue's window is bounded and carries the state instead)."""
    messages = [{"role": "system", "content": system_prompt.strip()}]
    messages += [{"role": u.role, "content": u.text} for u in log.all() if u.turn_id != turn.turn_id]
    messages.append({"role": "user", "content": turn.text})
    return messages


class WholeHistoryReply(FrameProcessor):
    """One job: `UserTurnFrame` in; `ReplyTextFrame` clauses and `AgentTurnEndFrame` out,
    worded by the model from the whole conversation.

    The same frames, turn order and commits as `ReplyProcessor`: with a voice
    (`options.commit_when_played`) what the agent said enters the log once the playout says
    what the user heard, and a `BargeInFrame` stops the model still wording an earlier reply.
    Of `options` it reads the language, the clause length and when to commit; a policy's
    wording and first-audio budget do not apply (there is no policy to fall back on).
    """

    def __init__(self, llm: ChatLLM, log: ConversationLog, system_prompt: str, *,
                 options: ReplyOptions | None = None) -> None:
        super().__init__()
        self._options = options or ReplyOptions()
        self._llm = llm
        self._log = log
        self._system_prompt = system_prompt
        # No state and no plan: the committer only writes what was heard to the log.
        dialogue = DialogueSession(None, {}, options=DialogueOptions(language=self._options.language))
        self._committer = ReplyCommitter(log, dialogue, when_played=self._options.commit_when_played)
        self._answering: tuple[int, asyncio.Task[None]] | None = None
        self._cancelled: set[int] = set()
        self._opening: Turn | None = None

    def set_opening(self, text: str) -> Turn:
        """A line to say before the user speaks, as turn 0 (`ReplyProcessor.set_opening`)."""
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
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame) and self._opening is not None:
            turn, self._opening = self._opening, None
            await self._committer.made(turn, self._committer.open(turn, opening=True))
            await self.push_frame(ReplyTextFrame(text=turn.reply.text, turn=turn))
            await self.push_frame(AgentTurnEndFrame(turn=turn))

    async def flush(self) -> None:
        await self._committer.flush()

    def _stop_wording(self, before_turn: int) -> None:
        """The user spoke over the agent: the reply still being worded for an earlier turn stops."""
        if self._answering is not None and self._answering[0] < before_turn and not self._answering[1].done():
            self._cancelled.add(self._answering[0])
            self._answering[1].cancel()

    async def _reply(self, turn: Turn) -> None:
        pending = self._committer.open(turn)
        # A task of its own, so that the user's speech over the agent can cancel it.
        task = self.create_task(self._answer(turn), name=f"whole-history-reply-{turn.turn_id}")
        self._answering = (turn.turn_id, task)
        # A draft the user talked on through: the model stops; the playout had held its audio.
        turn.on_dropped(lambda: task.done() or task.cancel())
        try:
            await asyncio.wait({task})
            if turn.dropped:
                self._committer.forget(turn)
                return
            if task.cancelled() and turn.turn_id in self._cancelled:
                self._cancelled.discard(turn.turn_id)
                # Cut by the user: what was heard is committed when the playout reports it.
                turn.reply.source = turn.reply.source or "cancelled"
            else:
                task.result()
        except asyncio.CancelledError:
            if not task.done():
                task.cancel()
            raise
        except Exception as exc:
            # A bug of ours must not leave the user in silence, nor a replay waiting for the turn's end.
            logger.opt(exception=exc).error("turn {}: the whole-history reply failed: {}: {}", turn.turn_id,
                                            type(exc).__name__, exc)
            turn.reply.error = f"{type(exc).__name__}: {exc}"
            turn.reply.check = [*turn.reply.check, CheckFailure(Failure.INTERNAL_ERROR, turn.reply.error)]
            if not turn.reply.text:
                await self._say_all(turn, say("reply.fallback", self._options.language), "fallback")
        finally:
            self._answering = None
        await self._made(turn, pending)

    async def _made(self, turn: Turn, pending: PendingReply) -> None:
        if not await turn.stands():
            self._committer.forget(turn)
            return
        await self._committer.made(turn, pending)
        await self.push_frame(AgentTurnEndFrame(turn=turn))

    async def _answer(self, turn: Turn) -> None:
        if turn.updates_state:
            # With no working memory the monologue stage attaches only the wait for the reply
            # before, which puts the user's words into the log after it: the prompt needs both.
            waited = time.perf_counter()
            await turn.wait_for_state()
            turn.compute["reply_waited_for_state"] = time.perf_counter() - waited
        messages = whole_history_prompt(self._system_prompt, self._log, turn)
        turn.reply.prompt = messages
        splitter = ClauseSplitter(self._options.min_clause_chars)
        stats = StreamStats()
        spoken: list[str] = []
        started = time.perf_counter()
        turn.mark("llm_start", started)
        try:
            deltas = self._llm.stream(messages, stats)
            try:
                async for delta in deltas:
                    for clause in splitter.feed(delta):
                        await self._say(turn, clause, spoken)
            finally:
                close = getattr(deltas, "aclose", None)
                if close is not None:    # a cancelled reply stops the model too
                    await close()
            rest = splitter.flush()
            if rest and not stats.error:     # a reply cut off mid-clause (a timeout): its end is not spoken
                await self._say(turn, rest, spoken)
        except ChatError as exc:
            turn.reply.error = str(exc)
        turn.reply.model = stats.model
        turn.reply.tokens = stats.token_counts()
        turn.reply.error = turn.reply.error or stats.error
        if stats.first_token_at is not None:
            turn.mark("llm_first_token", stats.first_token_at)
            turn.compute["llm_first_token"] = stats.first_token_at - started
        turn.mark("llm_done", stats.finished_at or time.perf_counter())
        if turn.reply.error:
            turn.reply.check = [CheckFailure(Failure.LLM_ERROR, turn.reply.error[:200])]
        if spoken:
            turn.reply.source = "model"
        else:
            # Nothing from the model (it failed, or said nothing): there is no policy to word
            # anything else, so the agent says it could not answer rather than staying silent.
            await self._say_all(turn, say("reply.fallback", self._options.language), "fallback")

    async def _say(self, turn: Turn, clause: str, spoken: list[str]) -> None:
        if not spoken:
            now = time.perf_counter()
            turn.mark("llm_first_clause", now)
            turn.compute.setdefault("llm_first_clause", now - turn.marks["llm_start"])
        spoken.append(clause)
        turn.reply.text = joined(spoken, self._options.language)   # so far: a cut reply keeps what was sent
        await self.push_frame(ReplyTextFrame(text=clause, turn=turn))

    async def _say_all(self, turn: Turn, text: str, source: ReplySource) -> None:
        """Words the code has (the fallback line), clause by clause as a model's go."""
        turn.reply.source = source
        turn.mark("llm_start", time.perf_counter())
        splitter = ClauseSplitter(self._options.min_clause_chars)
        clauses = splitter.feed(text)
        rest = splitter.flush()
        spoken: list[str] = []
        for clause in [*clauses, *([rest] if rest else [])]:
            await self._say(turn, clause, spoken)
