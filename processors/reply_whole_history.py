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

import time
from dataclasses import replace

from monologue.dialogue.check import CheckFailure, Failure
from monologue.memory.language.phrases import say
from monologue.memory.working.conversation import ConversationLog
from monologue.models.chat import ChatError, ChatLLM, StreamStats
from monologue.processors.frames import Turn
from monologue.processors.reply import ReplyOptions, ReplyProcessor
from monologue.processors.reply_commit import PendingReply
from monologue.processors.reply_wording import ClauseSplitter, PromptOptions


def whole_history_prompt(system_prompt: str, log: ConversationLog, turn: Turn) -> list[dict[str, str]]:
    """The system prompt, every message said so far, whole and in order, then the user's turn.

    Nothing is clipped or dropped: the prompt grows with the session, which is the point of
    the baseline (the monologue's window is bounded and carries the state instead)."""
    return [*whole_history_head(system_prompt, log, before=turn.turn_id), {"role": "user", "content": turn.text}]


def whole_history_head(system_prompt: str, log: ConversationLog, before: int | None = None) -> list[dict[str, str]]:
    """The system prompt and every message so far but turn `before`'s (None: every one)."""
    messages = [{"role": "system", "content": system_prompt.strip()}]
    return messages + [{"role": u.role, "content": u.text} for u in log.all() if u.turn_id != before]


class WholeHistoryReply(ReplyProcessor):
    """One job: `UserTurnFrame` in; `ReplyTextFrame` clauses and `AgentTurnEndFrame` out,
    worded by the model from the whole conversation.

    `ReplyProcessor` with its plan and its wording replaced: the same frames, turn order,
    barge-in and commits (with a voice, what the agent said enters the log once the playout
    says what the user heard), and the same clause-by-clause path to the voice. The policy's
    wording and first-audio budget do not apply (there is no policy to fall back on).
    """

    def __init__(self, llm: ChatLLM, log: ConversationLog, system_prompt: str, *,
                 options: ReplyOptions | None = None) -> None:
        options = options or ReplyOptions()
        # No state and no plan: the committer only writes what was heard to the log.
        super().__init__(llm, log, PromptOptions(system_prompt), options=replace(options, first_audio_budget_ms=0.0))
        self._llm = llm
        self._system_prompt = system_prompt

    def _next_prompt_head(self) -> list[dict[str, str]]:
        # The same head start as the monologue's: the baseline differs in its prompt only.
        return whole_history_head(self._system_prompt, self._log)

    async def _answer(self, turn: Turn, pending: PendingReply) -> None:
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
                        await self._wording.say(turn, clause, spoken)
            finally:
                close = getattr(deltas, "aclose", None)
                if close is not None:    # a cancelled reply stops the model too
                    await close()
            rest = splitter.flush()
            if rest and not stats.error:     # a reply cut off mid-clause (a timeout): its end is not spoken
                await self._wording.say(turn, rest, spoken)
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
            await self._wording.say_directly(turn, say("reply.fallback", self._options.language), "fallback")
