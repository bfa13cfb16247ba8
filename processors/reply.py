"""Reply: the dialogue policy decides the act, the LLM words it through litellm, each clause is
checked before TTS gets it, and the policy's template says whatever the model could not."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any

from loguru import logger
from pipecat.frames.frames import Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.dialogue.chooser import CHOICE_TIMEOUT_SECS, Validated, tools_of, worth_asking
from monologue.dialogue.policy import Act
from monologue.dialogue.session import DialogueSession, Planned
from monologue.dialogue.tools import Toolbox
from monologue.memory.domain.catalogue import Catalogue
from monologue.memory.language.phrases import say
from monologue.memory.longterm.engine import AfterReply, BeforeReply, JournalEntry, LongTermMemory, session_snapshot
from monologue.memory.longterm.sensitivity import LocalOnlyRedactor
from monologue.memory.working.conversation import ConversationLog, Utterance
from monologue.memory.working.engine import UpdateResult, WorkingMemory
from monologue.memory.working.state import SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatError, ChatLLM, StreamStats
from monologue.processors.frames import (
    AgentTurnEndFrame,
    BargeInFrame,
    MemoryRecall,
    ReplyTextFrame,
    TurnRecord,
    UserTurnFrame,
)
from monologue.processors.playout import Heard

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
        if hard is not None:
            return hard.end()
        for soft in _SOFT_END.finditer(self._buffer):
            if len(self._buffer[: soft.end()].strip()) >= self._min:
                return soft.end()
        return None


@dataclass(frozen=True)
class PromptOptions:
    system_prompt: str
    recent_turns: int = 4
    max_utterance_chars: int = 240
    context_position: str = "user"   # user: prefixed to the utterance | after: a note after it


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

    def select(self, log: ConversationLog, turn_id: int) -> list[Utterance]:
        recent = [u for u in log.recent(self.max_messages + 2) if u.turn_id != turn_id]
        window = [u for u in recent if u.turn_id >= self._start_turn]
        if len(window) > self.max_messages:
            window = window[-2:]
            self._start_turn = window[0].turn_id
        return window


def build_reply_prompt(log: ConversationLog, turn: TurnRecord, options: PromptOptions,
                       note: str | None = None, window: list[Utterance] | None = None) -> list[dict[str, str]]:
    """System prompt, a bounded window of recent turns, the utterance, then the policy's note (W7).

    Never the whole history: the state carries what must not be forgotten, so the
    prompt stays the same size as the session grows. The note (what to say, and the
    facts it rests on) comes last: it changes every turn, and everything before it can
    then be reused from the model's cache.
    """
    messages = [{"role": "system", "content": options.system_prompt.strip()}]
    if window is None:
        window = [u for u in log.recent(options.recent_turns + 1) if u.turn_id != turn.turn_id][-options.recent_turns:]
    messages += [{"role": u.role, "content": _clip(u.text, options.max_utterance_chars)} for u in window]
    utterance = _clip(turn.text, options.max_utterance_chars * 2)
    if note is not None and options.context_position == "user":
        utterance = f"{utterance}\n\n{note}"
    messages.append({"role": "user", "content": utterance})
    if note is not None and options.context_position == "after":
        messages.append({"role": "system", "content": note})
    return messages


@dataclass
class _Unsettled:
    """A reply made but not yet committed to memory: it waits to learn what the user heard."""

    planned: Planned | None = None
    before: BeforeReply | None = None
    made: bool = False              # the wording finished (or was cancelled)
    heard: Heard | None = None      # from the playout
    reported: bool = False
    opening: bool = False           # long-term memory's greeting (turn 0)


class ReplyProcessor(FrameProcessor):
    """One job: `UserTurnFrame` in; `ReplyTextFrame` clauses and `AgentTurnEndFrame` out.

    With a voice (`commit_when_played`), what the agent said enters the conversation log,
    the session state and long-term memory only once the playout says what the user heard:
    a reply cut by the user's speech is remembered as far as it was spoken, and an offer it
    never got to is not an offer. A `BargeInFrame` cancels the reply still being worded.
    """

    def __init__(self, llm: ChatLLM, log: ConversationLog, prompt: PromptOptions, *,
                 language: str = "en", min_clause_chars: int = 12,
                 memory: WorkingMemory | None = None, options: dict[str, Catalogue] | None = None,
                 long_term: LongTermMemory | None = None, toolbox: Toolbox | None = None,
                 elsewhere: dict[str, frozenset[str]] | None = None, user_id: str = "",
                 domain: str = "restaurant", wording: str = "model", choose_actions: bool = True,
                 commit_when_played: bool = False) -> None:
        super().__init__()
        self._commit_when_played = commit_when_played
        self._unsettled: dict[int, _Unsettled] = {}
        self._answering: tuple[int, asyncio.Task[None]] | None = None
        self._cancelled: set[int] = set()
        self._wording = wording
        self._choose_actions = choose_actions      # a model with function calling may choose the action
        self._choice_trace: dict[str, Any] = {}
        self._llm = llm
        self._memory = memory
        # The policy decides each turn's act; the model words it (issue 10).
        self._dialogue = DialogueSession(memory, options or {}, toolbox=toolbox, language=language,
                                         user_id=user_id, elsewhere=elsewhere, domain=domain,
                                         embed=long_term.embed if long_term is not None else None)
        self._window = PromptWindow(prompt.recent_turns)
        self._long_term = long_term
        self._local_only: list[str] = []    # the user's local-only memories, as of the last recall
        self._log = log
        self._prompt = prompt
        self._language = language
        self._min_clause = min_clause_chars
        self._opening = ""
        self._opening_settled: asyncio.Future[None] | None = None

    def set_opening(self, text: str) -> asyncio.Future[None]:
        """A line to say before the user speaks (long-term memory's greeting, L10).

        Returns a future resolved once it is committed — at once without a voice, else when
        the playout says how much of it was heard (the user may talk over a long greeting):
        the first user turn waits for it, so a "yes" confirms only what the greeting said."""
        self._opening = text.strip()
        self._opening_settled = asyncio.get_running_loop().create_future()
        if not self._opening:
            self._opening_settled.set_result(None)
        return self._opening_settled

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            await self._reply(frame.turn)
            return
        if isinstance(frame, BargeInFrame) and frame.interrupt:
            self._stop_wording(frame.turn.turn_id)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame) and self._opening:
            # Turn 0 is the agent's: spoken through TTS like any reply, and in the
            # conversation log so the next reply knows what it offered.
            turn = TurnRecord(turn_id=0, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0,
                              detected_at=time.perf_counter(), vad_engine="opening")
            turn.reply_text, turn.settled = self._opening, self._opening_settled
            entry = self._unsettled[0] = _Unsettled(made=True, opening=True)
            if not self._commit_when_played:
                await self._commit(turn, entry)
            await self.push_frame(ReplyTextFrame(text=self._opening, turn=turn))
            await self.push_frame(AgentTurnEndFrame(turn=turn))
            self._opening = ""

    def _stop_wording(self, before_turn: int) -> None:
        """The user spoke over the agent: the reply still being worded for an earlier turn stops."""
        if self._answering is not None and self._answering[0] < before_turn and not self._answering[1].done():
            self._cancelled.add(self._answering[0])
            self._answering[1].cancel()

    async def played(self, turn: TurnRecord, heard: Heard) -> None:
        """The playout says what the user heard of this turn's reply: that much is committed."""
        entry = self._unsettled.get(turn.turn_id)
        if entry is None:
            return
        entry.heard, entry.reported = heard, True
        if entry.made:
            await self._commit(turn, entry)

    async def _state_for(self, turn: TurnRecord) -> tuple[SessionState | None, UpdateResult | None]:
        """The state this reply is built on, and this turn's update if it had one.

        A state-changing turn waits for its own update; chit-chat takes the state as it is
        (every earlier update has finished: turns reach this processor in order).
        """
        if turn.state_update is not None:
            waited = time.perf_counter()
            result = await turn.state_update
            turn.compute["reply_waited_for_state"] = time.perf_counter() - waited
            if result is not None and self._memory is not None:
                turn.state_version = result.version
                return result.state, result
        memory = self._memory
        if memory is None:
            return None, None
        state = await asyncio.to_thread(lambda: memory.state)
        turn.state_version = state.version
        return state, None

    async def _recall(self, turn: TurnRecord) -> BeforeReply | None:
        """What earlier sessions remember, found within the latency budget (L17)."""
        if self._long_term is None:
            return None
        session = self._memory.session_id if self._memory else ""
        before = await self._long_term.before_reply(
            turn.text, session_id=session, turn_class=turn.turn_class,
            schema=self._memory.schema if self._memory else None, language=self._language)
        turn.memories = MemoryRecall.of(before)
        self._local_only = before.local_only
        return before

    async def _remember_later(self, turn: TurnRecord, before: BeforeReply | None, said: str) -> None:
        """The memory writes this turn implies, off the critical path. Only their journal
        entry is on it (one small insert): the turn is acknowledged after this returns, and
        a crash before the writes land leaves the entry for the next start to replay."""
        if self._long_term is None or before is None:
            return
        session_id = self._memory.session_id if self._memory else ""
        started = time.perf_counter()
        pending = await self._long_term.journal_turn(before, turn.text, session_id=session_id, turn=turn.turn_id,
                                                     turn_class=turn.turn_class, reply_text=said,
                                                     language=self._language)
        turn.compute["memory_journal"] = time.perf_counter() - started
        self._long_term.spawn(self._remember(self._long_term, turn, before, session_id, said, pending),
                              session_id=session_id)

    async def _remember(self, long_term: LongTermMemory, turn: TurnRecord, before: BeforeReply,
                        session_id: str, said: str, pending: JournalEntry | None = None) -> None:
        # Only a change to the task can reach the profile at once (L8): for those turns
        # long-term memory reads the session's state as this turn left it.
        session = None
        if self._memory is not None and turn.turn_class == TurnClass.INFORMATION_CHANGE:
            session = await asyncio.to_thread(session_snapshot, self._memory)
        changes = await long_term.after_reply(before, turn.text, session_id=session_id, turn=turn.turn_id,
                                              turn_class=turn.turn_class, reply_text=said, session=session,
                                              pending=pending)
        await self._apply_long_term(changes, turn)

    async def _apply_long_term(self, changes: AfterReply, turn: TurnRecord) -> None:
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

    async def cleanup(self) -> None:
        await self.flush()
        await super().cleanup()

    async def _reply(self, turn: TurnRecord) -> None:
        entry = self._unsettled[turn.turn_id] = _Unsettled()
        # A task of its own, so that the user's speech over the agent can cancel it.
        task = self.create_task(self._answer(turn, entry), name=f"reply-{turn.turn_id}")
        self._answering = (turn.turn_id, task)
        if turn.confirmed is not None and not turn.confirmed.done():
            # A draft: if the user goes on, the reply stops wherever it is (the playout holds
            # its audio until the turn is confirmed, so none of it was heard).
            turn.confirmed.add_done_callback(lambda done: done.result() or task.done() or task.cancel())
        try:
            await asyncio.wait({task})
            if turn.dropped:
                self._answering = None
                self._unsettled.pop(turn.turn_id, None)
                turn.withdraw()
                return
            if task.cancelled() and turn.turn_id in self._cancelled:
                self._cancelled.discard(turn.turn_id)
                # Cut by the user before it was all worded: what was said is committed when
                # the playout reports it; nothing more is worded.
                turn.reply_source = turn.reply_source or "cancelled"
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
            turn.reply_error = f"{type(exc).__name__}: {exc}"
            turn.reply_check = [*turn.reply_check, {"kind": "internal_error", "clause": turn.reply_error}]
            if not turn.reply_text:
                await self._say_directly(turn, say("reply.fallback", self._language), "fallback")
        finally:
            self._answering = None
        await self._made(turn, entry)

    async def _made(self, turn: TurnRecord, entry: _Unsettled) -> None:
        """The reply is made: commit it now (no voice), or once the playout says what was heard.
        A draft's reply is made only once the turn is confirmed."""
        if not await turn.is_confirmed():
            self._unsettled.pop(turn.turn_id, None)
            turn.withdraw()
            return
        entry.made = True
        if not self._commit_when_played or entry.reported:
            await self._commit(turn, entry)
        await self.push_frame(AgentTurnEndFrame(turn=turn))

    async def _commit(self, turn: TurnRecord, entry: _Unsettled) -> None:
        """What the user heard of the reply enters the log, the state and long-term memory."""
        self._unsettled.pop(turn.turn_id, None)
        try:
            await self._commit_heard(turn, entry)
        except Exception as exc:    # memory failing must not stop the conversation
            logger.opt(exception=exc).error("turn {}: remembering the reply failed: {}", turn.turn_id, exc)
        finally:
            if turn.settled is not None and not turn.settled.done():
                turn.settled.set_result(None)

    async def _commit_heard(self, turn: TurnRecord, entry: _Unsettled) -> None:
        heard = entry.heard
        text = turn.reply_text if heard is None else self._joined(list(heard.clauses), self._language)
        cut = heard is not None and heard.cut
        if text:
            self._log.add("assistant", text, turn.turn_id)
        if entry.opening:
            # "I still have … — is that still right?": a yes confirms what the greeting read back.
            if text and self._memory is not None:
                await self._memory.record_agent_turn(text, turn=0)
            return
        if entry.planned is not None and (text or entry.planned.done):
            await self._dialogue.remember(entry.planned, text, turn.turn_id, cut=cut)
        if text:
            await self._remember_later(turn, entry.before, text)

    async def _answer(self, turn: TurnRecord, entry: _Unsettled) -> None:
        state, result = await self._state_for(turn)
        clarify = result.clarify if result is not None else ""
        before = None if clarify else await self._recall(turn)
        context: dict[str, Any] = dict(
            text=turn.text, turn_class=TurnClass(turn.turn_class or TurnClass.CHIT_CHAT),
            operations=result.operations if result is not None else (), clarify=clarify,
            memory_say=before.say if before is not None else None,
            memory_answer=before.answer if before is not None else None,
            about_user=before.about_user if before is not None else False,
            previous_reply=self._log.last_text("assistant"),
            earlier_replies=tuple(u.text for u in self._log.recent(8) if u.role == "assistant")[-4:-1],
            recalled=before.recalled if before is not None else ())
        planned = self._dialogue.plan(state, **context)
        entry.before = before
        if not await self._stands(turn, planned):
            return
        if planned.decision.act == Act.RELAX and self._memory is not None:
            # "Could we drop the window seat?" — "Sure": drop it, then decide again on the new state.
            relaxed = planned.decision.key
            state = await self._memory.relax([relaxed], turn=turn.turn_id, reason=f"the user agreed: {turn.text}")
            turn.state_version = state.version
            planned = self._dialogue.plan(state, **{**context, "operations": [{"op": "withdraw", "key": relaxed}]})
        choice = await self._model_choice(planned, turn, context["previous_reply"])
        if choice is not None and choice.decision is not None:
            planned = self._dialogue.plan(state, **context, forced=choice.decision)
        entry.planned = planned
        if not await self._stands(turn, planned):
            return
        if any(step.act == Act.ACT for step in planned.decision.steps()):
            session_id = self._memory.session_id if self._memory else ""
            await asyncio.to_thread(self._dialogue.carry_out, planned, session_id)
        turn.decision = planned.decision.trace()
        if choice is not None:
            turn.decision["model_choice"] = self._choice_trace
        if planned.errors:
            turn.decision["tool_errors"] = planned.errors
        if planned.decision.act.said_as_decided or self._wording == "policy":
            # Facts the code has (a misheard value to ask about, an answer from memory): said
            # exactly rather than hoping a model repeats them faithfully.
            await self._say_directly(turn, planned.template, "policy")
        else:
            await self._word(turn, planned)

    @staticmethod
    async def _stands(turn: TurnRecord, planned: Planned) -> bool:
        """Whether the reply may go on to acts that change the world or the state (relaxing a
        condition, an action): a draft's only once the user's silence confirms the turn."""
        if turn.confirmed is None or turn.confirmed.done():
            return not turn.dropped
        writes = planned.decision.act == Act.RELAX or any(s.act == Act.ACT for s in planned.decision.steps())
        return await turn.is_confirmed() if writes else True

    async def _model_choice(self, planned: Planned, turn: TurnRecord, previous_reply: str) -> Validated | None:
        """A provider with function calling may choose the action (the policy validates it)."""
        last = planned.view.acts[-1] if planned.view.acts else {}
        if not self._choose_actions or not planned.schema.actions or not worth_asking(planned.decision, last) \
                or not await asyncio.to_thread(self._llm.supports_tools):
            return None
        model = self._llm.options.model
        prompt = self._dialogue.choice_prompt(planned, turn.text, previous_reply)
        redactor = self._redactor(planned.language)      # a provider with tools is remote: names go as placeholders
        try:
            chosen = await self._llm.choose_tool(redactor.redact(prompt) if redactor is not None else prompt,
                                                 tools_of(planned.schema), CHOICE_TIMEOUT_SECS)
            if chosen is not None and redactor is not None:
                restored = {k: redactor.restore(v) if isinstance(v, str) else v for k, v in chosen[1].items()}
                chosen = (chosen[0], restored)
        except Exception as exc:     # the policy's own decision stands; the trace says why
            self._choice_trace = {"model": model, "error": f"{type(exc).__name__}: {exc}"[:300]}
            return Validated(None, "the model's choice failed")
        if chosen is None:
            self._choice_trace = {"model": model, "chose": None}
            return Validated(None, "no function called")
        validated = self._dialogue.validate_choice(planned, chosen[0], chosen[1], model)
        self._choice_trace = {"model": model, "chose": chosen[0], "args": chosen[1], "verdict": validated.reason}
        return validated

    async def _word(self, turn: TurnRecord, planned: Planned) -> None:
        """The model words the decision; each clause is checked before TTS gets it, and the
        template says what the model's words could not (item 3 of issue 10)."""
        messages = build_reply_prompt(self._log, turn, self._prompt, planned.note,
                                      self._window.select(self._log, turn.turn_id))
        redactor = self._redactor(planned.language)
        if redactor is not None:
            # What is local-only never leaves the device (U3): the provider sees placeholders,
            # and its words get the originals back before they are checked and spoken.
            messages = redactor.redact(messages)
            turn.reply_redacted = redactor.redacted
        turn.reply_prompt = messages        # as sent
        splitter = ClauseSplitter(self._min_clause)
        stats = StreamStats()
        spoken: list[str] = []
        started = time.perf_counter()
        turn.mark("llm_start", started)
        failed = False
        try:
            deltas = self._llm.stream(messages, stats)
            try:
                async for delta in deltas:
                    for clause in splitter.feed(delta):
                        clause = redactor.restore(clause) if redactor is not None else clause
                        if planned.check.clause(clause, spoken) is not None:
                            failed = True
                            break
                        await self._say(turn, clause, spoken)
                    if failed:
                        break       # stop the model: the rest is the template's
            finally:
                close = getattr(deltas, "aclose", None)
                if close is not None:
                    await close()
            if stats.error:
                failed = True      # cut off mid-reply (a timeout): its unfinished clause is never spoken
                planned.check.failures.append({"kind": "llm_error", "clause": stats.error[:200]})
            rest = "" if failed else splitter.flush()
            rest = redactor.restore(rest) if redactor is not None and rest else rest
            if rest and planned.check.clause(rest, spoken) is None:
                await self._say(turn, rest, spoken)
            elif rest:
                failed = True
        except ChatError as exc:
            turn.reply_error = str(exc)
        turn.reply_model = stats.model
        turn.llm_tokens = stats.token_counts()
        if stats.error and not turn.reply_error:
            turn.reply_error = stats.error
        if stats.first_token_at is not None:
            turn.mark("llm_first_token", stats.first_token_at)
            turn.compute["llm_first_token"] = stats.first_token_at - started
        model_text = self._joined(spoken, planned.language)
        stopped = failed and not (planned.check.failures and planned.check.failures[-1]["kind"] == "too_long")
        if not spoken or planned.check.whole(model_text) is not None or stopped:
            # Nothing usable from the model, or it never did the act: the template does it.
            # What already left passed the check, so it stays; the template follows it.
            rest = planned.check.missing(model_text, planned.essential) if spoken else planned.template
            for clause in self._template_clauses(without_overlap(model_text, rest)):
                await self._say(turn, clause, spoken)
            turn.reply_source = "model+template" if model_text else "template"
        if not turn.reply_source:
            turn.reply_source = "model"
        turn.reply_check = planned.check.failures
        if turn.reply_error and not model_text:
            turn.reply_check = [*turn.reply_check, {"kind": "llm_error", "clause": turn.reply_error}]
        turn.mark("llm_done", stats.finished_at or time.perf_counter())
        turn.reply_text = self._joined(spoken, planned.language)

    def _redactor(self, language: str) -> LocalOnlyRedactor | None:
        """For a remote provider: what keeps this user's local-only memories (and anything
        local-only said now) out of the prompt. None for the embedded model."""
        if not self._llm.remote:
            return None
        texts = self._local_only if self._long_term is not None else []
        return LocalOnlyRedactor(list(texts), language)

    @staticmethod
    def _joined(clauses: list[str], language: str) -> str:
        return say("clause.join", language).join(clauses)

    def _template_clauses(self, template: str) -> list[str]:
        splitter = ClauseSplitter(self._min_clause)
        clauses = splitter.feed(template)
        rest = splitter.flush()
        return clauses + ([rest] if rest else [])

    async def _say_directly(self, turn: TurnRecord, text: str, source: str) -> None:
        turn.reply_prompt = []
        turn.reply_model = source
        turn.reply_source = source
        turn.mark("llm_start", time.perf_counter())
        spoken: list[str] = []
        await self._say(turn, text, spoken)
        turn.mark("llm_done", time.perf_counter())
        turn.reply_text = text

    async def _say(self, turn: TurnRecord, clause: str, spoken: list[str]) -> None:
        if not spoken:
            now = time.perf_counter()
            turn.mark("llm_first_clause", now)
            turn.compute.setdefault("llm_first_clause", now - turn.marks["llm_start"])
        spoken.append(clause)
        turn.reply_text = self._joined(spoken, self._language)   # so far: a cut reply keeps what was sent
        await self.push_frame(ReplyTextFrame(text=clause, turn=turn))
