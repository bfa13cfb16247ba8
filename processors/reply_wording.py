"""Wording a planned reply: the model streams it, each clause is checked before TTS gets it,
and the policy's template says whatever the model could not; or the template alone says it.

Each clause leaves through the `push` the reply stage gives (a `ReplyTextFrame`), so TTS can
start on the first clause while the model is still on the second."""

from __future__ import annotations

import asyncio
import re
import statistics
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from loguru import logger

from monologue.dialogue.check import CheckFailure, Failure
from monologue.dialogue.dialogue_session import Planned
from monologue.memory.language.phrases import say
from monologue.memory.longterm.sensitivity import LocalOnlyRedactor
from monologue.memory.working.conversation import ConversationLog, Utterance
from monologue.models.chat import ChatError, ChatLLM, StreamStats
from monologue.processors.frames import FirstWordsBudget, ReplySource, ReplyTextFrame, Turn

_HARD_END = re.compile(r"[.!?;:](?=\s)|[。！？；：]")
_SOFT_END = re.compile(r",(?=\s)|[，、]")



def without_overlap(spoken: str, rest: str) -> str:
    """`rest` without the words the spoken part already ends with: a model that said "Done:"
    is followed by "I've booked…", not "Done: I've booked…"."""
    said = spoken.lower().split()
    words = rest.split()
    for size in range(min(len(said), len(words), 4), 0, -1):
        if [w.strip(".,:;!?") for w in said[-size:]] == [w.lower().strip(".,:;!?") for w in words[:size]]:
            return " ".join(words[size:]) or rest
    return rest


class ClauseSplitter:
    """Cuts streamed text into clauses so TTS can start before the reply is complete.

    Sentence ends always cut; commas cut once the clause is long enough to sound
    natural on its own (piper's cost is per call, so tiny clauses are merged).
    """

    def __init__(self, min_chars: int = 12) -> None:
        self._min = min_chars
        self._buffer = ""

    def feed(self, text: str) -> list[str]:
        self._buffer += text
        clauses: list[str] = []
        while True:
            cut = self._find_cut()
            if cut is None:
                return clauses
            clause, self._buffer = self._buffer[:cut].strip(), self._buffer[cut:]
            if clause:
                clauses.append(clause)

    def flush(self) -> str:
        rest, self._buffer = self._buffer.strip(), ""
        return rest

    def _find_cut(self) -> int | None:
        hard = _HARD_END.search(self._buffer)
        for soft in _SOFT_END.finditer(self._buffer):
            if hard is not None and soft.start() > hard.start():
                break
            if len(self._buffer[: soft.end()].strip()) >= self._min:
                return soft.end()      # a long clause before the sentence ends (a whole reply given at once)
        return hard.end() if hard is not None else None


@dataclass(frozen=True)
class PromptOptions:
    system_prompt: str
    recent_turns: int = 4
    max_utterance_chars: int = 240
    context_position: Literal["user", "after"] = "user"   # user: prefixed to the utterance | after: a note after it


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class PromptWindow:
    """The recent messages a prompt carries: bounded, and cut so its start stays put.

    llama.cpp (and providers' prompt caches) reuse the part of a prompt they computed
    last time. A window sliding by one turn every turn changes the prompt right after
    the system prompt, so everything after it is recomputed — seconds on a CPU. This
    window only grows until it holds `max_messages`, then restarts from the last
    exchange, so most turns extend the previous prompt instead of rewriting it.
    """

    def __init__(self, max_messages: int = 6) -> None:
        self.max_messages = max(max_messages, 2)
        self._start_turn = 0

    def select(self, log: ConversationLog, turn_id: int | None) -> list[Utterance]:
        """The window for the reply to `turn_id`, whose own words go last (they are left out
        here); None: for the turn that has not come yet (the prompt computed ahead of it)."""
        recent = [u for u in log.recent(self.max_messages + 2) if u.turn_id != turn_id]
        window = [u for u in recent if u.turn_id >= self._start_turn]
        if len(window) > self.max_messages:
            # From the last exchange: every message of its turn, so the next call, which
            # filters by turn, starts the same way (a reply the user never heard leaves a
            # turn with no assistant message, and the window's last two would split a turn).
            self._start_turn = window[-2].turn_id
            window = [u for u in window if u.turn_id >= self._start_turn]
        return window


def build_reply_prompt(log: ConversationLog, turn: Turn, options: PromptOptions,
                       note: str | None = None, window: list[Utterance] | None = None) -> list[dict[str, str]]:
    """System prompt, a bounded window of recent turns, the utterance, then the policy's note (W7).

    Never the whole history: the state carries what must not be forgotten, so the
    prompt stays the same size as the session grows. The note (what to say, and the
    facts it rests on) comes last: it changes every turn, and everything before it can
    then be reused from the model's cache.
    """
    if window is None:
        window = [u for u in log.recent(options.recent_turns + 1) if u.turn_id != turn.turn_id][-options.recent_turns:]
    messages = prompt_head(options, window)
    utterance = _clip(turn.text, options.max_utterance_chars * 2)
    if note is not None and options.context_position == "user":
        utterance = f"{utterance}\n\n{note}"
    messages.append({"role": "user", "content": utterance})
    if note is not None and options.context_position == "after":
        messages.append({"role": "system", "content": note})
    return messages


def prompt_head(options: PromptOptions, window: list[Utterance]) -> list[dict[str, str]]:
    """What a reply's prompt starts with: the system prompt and the window of recent turns."""
    messages = [{"role": "system", "content": options.system_prompt.strip()}]
    return messages + [{"role": u.role, "content": _clip(u.text, options.max_utterance_chars)} for u in window]


def redactor_for(llm: ChatLLM, local_only: list[str], language: str) -> LocalOnlyRedactor | None:
    """For a remote provider: what keeps this user's local-only memories (and anything
    local-only said now) out of the prompt. None for the embedded model."""
    if not llm.remote:
        return None
    return LocalOnlyRedactor(list(local_only), language)


def joined(clauses: list[str], language: str) -> str:
    return say("clause.join", language).join(clauses)


# The voice's time for a first clause before any turn of this session has measured it
# (scripts/bench_tts.py: piper 146 ms p50, the Mandarin voice 256 ms).
VOICE_FIRST_CLAUSE_SECS = 0.2
# Less than this left for the model is no chance at all: the policy words the act at once
# rather than starting a model call only to stop it (on two cores it would slow the voice).
MODEL_MIN_SECS = 0.05


class FirstWordsClock:
    """How long the model may take over a first clause, by the first-audio budget (E3).

    The budget is on the user's silence: from the end of their speech to the agent's first
    audio. What the turn's end, the transcript and the plan took is already spent; the voice's
    own time for the first clause (the median of the session's last turns) is kept back."""

    def __init__(self, budget_ms: float, late_notice_after_ms: float = 0.0) -> None:
        self.budget_ms = budget_ms
        self.late_notice_after_ms = late_notice_after_ms
        self._voiced: deque[Turn] = deque(maxlen=8)

    @property
    def enabled(self) -> bool:
        return self.budget_ms > 0

    def voice_secs(self) -> float:
        measured = [t.compute["tts_first_clause"] for t in self._voiced if "tts_first_clause" in t.compute]
        return statistics.median(measured) if measured else VOICE_FIRST_CLAUSE_SECS

    def silence_secs(self, turn: Turn) -> float:
        """The user's silence so far, counted as `Turn.reply_delay_secs` counts it."""
        return turn.start_wait_secs + (time.perf_counter() - turn.started_at)

    def start(self, turn: Turn) -> FirstWordsBudget | None:
        """The turn's budget record, with the time left for a model (None: no budget)."""
        if not self.enabled:
            return None
        self._voiced.append(turn)
        voice = self.voice_secs()
        left = self.budget_ms / 1000 - self.silence_secs(turn) - voice
        late = turn.reply.budget.late_notice if turn.reply.budget is not None else ""
        budget = FirstWordsBudget(self.budget_ms, model_had_ms=max(left, 0.0) * 1000, voice_ms=voice * 1000,
                                  late_notice=late)
        turn.reply.budget = budget
        return budget

    def plan_deadline_secs(self, turn: Turn) -> float | None:
        """Seconds until the plan is so late that the user should hear why they are waiting:
        a notice costs them a sentence, so not for a plan only just over the budget."""
        if self.late_notice_after_ms <= 0:
            return None
        return self.late_notice_after_ms / 1000 - self.silence_secs(turn) - self.voice_secs()


def _count_tokens(turn: Turn, stats: StreamStats) -> None:
    counted = stats.token_counts()
    if counted is not None:
        turn.reply.tokens = counted


class _ModelStream:
    """A model's deltas, pumped by a task of their own: the reply can stop listening at once
    (the budget, the check, a barge-in) while the model lets go in the background."""

    def __init__(self, deltas: AsyncIterator[str]) -> None:
        self._deltas = deltas
        self._queue: asyncio.Queue[str | Exception | None] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        end: Exception | None = None      # the caller raises it (ChatError: no model answered)
        try:
            async for delta in self._deltas:
                self._queue.put_nowait(delta)
        except Exception as exc:
            end = exc
        finally:
            try:
                close = getattr(self._deltas, "aclose", None)
                if close is not None:
                    await close()
            finally:
                # After the close (the call's figures are all in), and however the pump ended:
                # the reply never waits on a stream that will say nothing more.
                self._queue.put_nowait(end)

    async def next(self) -> str | None:
        """The next delta; None at the end."""
        item = await self._queue.get()
        if isinstance(item, Exception):
            raise item
        return item

    def stop(self) -> asyncio.Future[None]:
        """Stop the model (a no-op once it has finished); the returned task ends when it has let go."""
        if not self._task.done():
            self._task.cancel()
        return self._task


class _OverBudget(Exception):
    """The model had no checked first clause by the budget's deadline (or no time at all)."""

    def __init__(self, secs: float) -> None:
        super().__init__(secs)
        self.secs = secs


class ReplyWording:
    """One job: put a planned reply into words, clause by clause, through `push`."""

    def __init__(self, llm: ChatLLM, prompt: PromptOptions, push: Callable[[ReplyTextFrame], Awaitable[None]], *,
                 language: str = "en", min_clause_chars: int = 12, first_audio_budget_ms: float = 0.0,
                 late_notice_after_ms: float = 0.0) -> None:
        self._llm = llm
        self._prompt = prompt
        self._push = push
        self._language = language
        self._min_clause = min_clause_chars
        self._window = PromptWindow(prompt.recent_turns)
        self.clock = FirstWordsClock(first_audio_budget_ms, late_notice_after_ms)
        self._late_noticed = False
        self._closing: set[asyncio.Future[None]] = set()     # models stopped by the budget, closing

    def next_prompt_head(self, log: ConversationLog) -> list[dict[str, str]]:
        """The next reply's prompt up to the user's new words, as the log stands."""
        return prompt_head(self._prompt, self._window.select(log, None))

    async def prefill(self, head: list[dict[str, str]], cancel: threading.Event | None = None) -> None:
        """Compute `head` (the next reply's prompt up to the user's new words) now, with
        `ChatLLM.prefill`: the agent has just said its reply, and the user has not finished the
        next turn. A head start only: if it fails, is stopped (`cancel`), or the next prompt
        starts otherwise, that call computes more."""
        try:
            await self._llm.prefill(head, cancel)
        except Exception as exc:
            logger.warning("computing the next reply's prompt ahead failed (the reply will compute it): {}", exc)

    async def word(self, turn: Turn, planned: Planned, log: ConversationLog, local_only: list[str]) -> None:
        """The model words the decision; each clause is checked before TTS gets it, and the
        template says what the model's words could not."""
        messages = build_reply_prompt(log, turn, self._prompt, planned.note, self._window.select(log, turn.turn_id))
        redactor = redactor_for(self._llm, local_only, planned.language)
        if redactor is not None:
            # What is local-only never leaves the device (U3): the provider sees placeholders,
            # and its words get the originals back before they are checked and spoken.
            messages = redactor.redact(messages)
            turn.reply.redacted = redactor.redacted
        turn.reply.prompt = messages        # as sent
        splitter = ClauseSplitter(self._min_clause)
        stats = StreamStats()
        spoken: list[str] = []
        started = time.perf_counter()
        turn.mark("llm_start", started)
        failed = False
        budget = self.clock.start(turn)
        model_secs = None if budget is None else (budget.model_had_ms or 0.0) / 1000
        try:
            if model_secs is not None and model_secs < MODEL_MIN_SECS:
                raise _OverBudget(model_secs)
            stream = _ModelStream(self._llm.stream(messages, stats))
            try:
                # The model's first checked clause must leave by the budget's deadline; once
                # it has, the rest streams on behind the voice with no deadline of its own.
                async with asyncio.timeout(model_secs) as first_words:
                    while (delta := await stream.next()) is not None:
                        for clause in splitter.feed(delta):
                            clause = redactor.restore(clause) if redactor is not None else clause
                            if planned.check.clause(clause, spoken) is not None:
                                failed = True
                                break
                            first_words.reschedule(None)
                            await self.say(turn, clause, spoken)
                        if failed:
                            break       # stop the model: the rest is the template's
            except TimeoutError:
                if not first_words.expired():
                    raise
                raise _OverBudget(model_secs or 0.0) from None
            finally:
                # Stopped (the budget, the check, the user's speech) or finished: the words that
                # follow never wait for a local model to let go at its next prompt chunk.
                self._closing.add(stopping := stream.stop())
                stopping.add_done_callback(self._closing.discard)
                # A model stopped early reports its token counts once it has let go.
                stopping.add_done_callback(lambda _: _count_tokens(turn, stats))
            if stats.error:
                failed = True      # cut off mid-reply (a timeout): its unfinished clause is never spoken
                planned.check.failures.append(CheckFailure(Failure.LLM_ERROR, stats.error[:200]))
            rest = "" if failed else splitter.flush()
            rest = redactor.restore(rest) if redactor is not None and rest else rest
            if rest and planned.check.clause(rest, spoken) is None:
                await self.say(turn, rest, spoken)
            elif rest:
                failed = True
        except _OverBudget as over:
            # Stopped before its first clause: nothing of it was said, so the policy's words
            # for the act are the whole reply, correct by construction.
            failed = True
            planned.check.failures.append(CheckFailure(
                Failure.OVER_BUDGET, f"no checked first clause within the {over.secs * 1000:.0f} ms the budget left"))
        except ChatError as exc:
            turn.reply.error = str(exc)
        turn.reply.model = stats.model
        turn.reply.tokens = stats.token_counts()
        if stats.error and not turn.reply.error:
            turn.reply.error = stats.error
        if stats.first_token_at is not None:
            turn.mark("llm_first_token", stats.first_token_at)
            turn.compute["llm_first_token"] = stats.first_token_at - started
        model_text = joined(spoken, planned.language)
        stopped = failed and not (planned.check.failures and planned.check.failures[-1].kind == Failure.TOO_LONG)
        if not spoken or planned.check.whole(model_text) is not None or stopped:
            # Nothing usable from the model, or it never did the act: the template does it.
            # What already left passed the check, so it stays; the template follows it.
            rest = planned.check.missing(model_text, planned.essential) if spoken else planned.template
            for clause in self._template_clauses(without_overlap(model_text, rest)):
                await self.say(turn, clause, spoken)
            turn.reply.source = "model+template" if model_text else "template"
        if not turn.reply.source:
            turn.reply.source = "model"
        if budget is not None:
            budget.outcome = "model" if model_text else "policy"
        turn.reply.check = planned.check.failures
        if turn.reply.error and not model_text:
            turn.reply.check = [*turn.reply.check, CheckFailure(Failure.LLM_ERROR, turn.reply.error)]
        turn.mark("llm_done", stats.finished_at or time.perf_counter())
        turn.reply.text = self._said(turn, spoken, planned.language)

    async def say_directly(self, turn: Turn, text: str, source: ReplySource) -> None:
        """Words the code has (a misheard value to ask about, an answer from memory), said exactly."""
        turn.reply.prompt = []
        turn.reply.model = source
        turn.reply.source = source
        turn.mark("llm_start", time.perf_counter())
        budget = self.clock.start(turn)
        if budget is not None:
            budget.outcome = "not_asked"
        spoken: list[str] = []
        # Clause by clause, as a model's words go: the voice starts on the first while it makes the rest.
        for clause in self._template_clauses(text) or [text]:
            await self.say(turn, clause, spoken)
        turn.mark("llm_done", time.perf_counter())
        turn.reply.text = self._said(turn, spoken, self._language)

    async def say_late(self, turn: Turn, language: str) -> None:
        """The plan itself missed the budget (a busy machine, a slow reading of the turn): say
        so once, briefly, rather than leave the user in silence. The reply follows it."""
        if turn.reply.budget is None:
            turn.reply.budget = FirstWordsBudget(self.clock.budget_ms)
        budget = turn.reply.budget
        if budget.late_notice:
            return
        budget.late_notice = say("reply.late" if self._late_noticed else "reply.late_first", language)
        self._late_noticed = True
        turn.mark("late_notice", time.perf_counter())
        turn.reply.text = budget.late_notice
        await self._push(ReplyTextFrame(text=budget.late_notice, turn=turn))

    async def say(self, turn: Turn, clause: str, spoken: list[str]) -> None:
        if not spoken:
            now = time.perf_counter()
            turn.mark("llm_first_clause", now)
            turn.compute.setdefault("llm_first_clause", now - turn.marks["llm_start"])
        spoken.append(clause)
        turn.reply.text = self._said(turn, spoken, self._language)   # so far: a cut reply keeps what was sent
        await self._push(ReplyTextFrame(text=clause, turn=turn))

    @staticmethod
    def _said(turn: Turn, spoken: list[str], language: str) -> str:
        notice = turn.reply.budget.late_notice if turn.reply.budget is not None else ""
        return joined(([notice] if notice else []) + spoken, language)

    def _template_clauses(self, template: str) -> list[str]:
        splitter = ClauseSplitter(self._min_clause)
        clauses = splitter.feed(template)
        rest = splitter.flush()
        return clauses + ([rest] if rest else [])
