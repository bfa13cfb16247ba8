"""Reply: builds the prompt, streams the LLM through litellm, hands TTS clause by clause."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any

from pipecat.frames.frames import Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.memory.domain.catalogue import Catalogue, offered_options, render_options
from monologue.memory.domain.several import domain_view
from monologue.memory.language.phrases import say
from monologue.memory.longterm.engine import AfterReply, BeforeReply, LongTermMemory, session_snapshot
from monologue.memory.working.conversation import ConversationLog, Utterance
from monologue.memory.working.engine import WorkingMemory
from monologue.memory.working.render import render_state_for_reply
from monologue.memory.working.state import SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatError, ChatLLM, StreamStats
from monologue.processors.frames import AgentTurnEndFrame, MemoryRecall, ReplyTextFrame, TurnRecord, UserTurnFrame

_HARD_END = re.compile(r"[.!?;:](?=\s)|[。！？；：]")
_SOFT_END = re.compile(r",(?=\s)|[，、]")


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
                       state_text: str | None = None, window: list[Utterance] | None = None) -> list[dict[str, str]]:
    """System prompt, a bounded window of recent turns, the utterance, then the state (W7).

    Never the whole history: the state carries what must not be forgotten, so the
    prompt stays the same size as the session grows. The state comes last: it changes
    every turn, and everything before it can then be reused from the model's cache.
    """
    messages = [{"role": "system", "content": options.system_prompt.strip()}]
    if window is None:
        window = [u for u in log.recent(options.recent_turns + 1) if u.turn_id != turn.turn_id][-options.recent_turns:]
    messages += [{"role": u.role, "content": _clip(u.text, options.max_utterance_chars)} for u in window]
    utterance = _clip(turn.text, options.max_utterance_chars * 2)
    if state_text is not None and options.context_position == "user":
        utterance = f"[Context: {state_text}]\n{utterance}"
    messages.append({"role": "user", "content": utterance})
    if state_text is not None and options.context_position == "after":
        messages.append({"role": "system", "content": f"Context: {state_text}"})
    return messages


class ReplyProcessor(FrameProcessor):
    """One job: `UserTurnFrame` in; `ReplyTextFrame` clauses and `AgentTurnEndFrame` out."""

    def __init__(self, llm: ChatLLM, log: ConversationLog, prompt: PromptOptions, *,
                 language: str = "en", min_clause_chars: int = 12,
                 memory: WorkingMemory | None = None, options: dict[str, Catalogue] | None = None,
                 long_term: LongTermMemory | None = None) -> None:
        super().__init__()
        self._llm = llm
        self._memory = memory
        self._options = options or {}               # domain → the options it may offer
        self._offered: list[dict[str, Any]] = []     # the options the current reply was given
        self._window = PromptWindow(prompt.recent_turns)
        self._long_term = long_term
        self._log = log
        self._prompt = prompt
        self._language = language
        self._min_clause = min_clause_chars
        self._opening = ""

    def set_opening(self, text: str) -> None:
        """A line to say before the user speaks (long-term memory's greeting, L10)."""
        self._opening = text.strip()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            await self._reply(frame.turn)
            return
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame) and self._opening:
            # Turn 0 is the agent's: spoken through TTS like any reply, and in the
            # conversation log so the next reply knows what it offered.
            turn = TurnRecord(turn_id=0, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0,
                              detected_at=time.perf_counter(), vad_engine="opening")
            self._log.add("assistant", self._opening, 0)
            await self.push_frame(ReplyTextFrame(text=self._opening, turn=turn))
            self._opening = ""

    async def _state_for(self, turn: TurnRecord) -> tuple[str | None, str]:
        """The state this reply is built on, and a clarifying question if the update asked one.

        A state-changing turn waits for its own update; chit-chat takes the state as it is
        (every earlier update has finished: turns reach this processor in order).
        """
        if turn.state_update is not None:
            waited = time.perf_counter()
            result = await turn.state_update
            turn.compute["reply_waited_for_state"] = time.perf_counter() - waited
            if result is not None and self._memory is not None:
                turn.state_version = result.version
                return self._render(result.state), result.clarify
        memory = self._memory
        if memory is None:
            return None, ""
        state = await asyncio.to_thread(lambda: memory.state)
        turn.state_version = state.version
        return self._render(state), ""

    async def _with_memories(self, turn: TurnRecord, state_text: str | None) -> tuple[str | None, BeforeReply | None]:
        """Add what earlier sessions remember, found within the latency budget (L17)."""
        if self._long_term is None:
            return state_text, None
        session = self._memory.session_id if self._memory else ""
        before = await self._long_term.before_reply(
            turn.text, session_id=session, turn_class=turn.turn_class,
            schema=self._memory.schema if self._memory else None, language=self._language)
        turn.memories = MemoryRecall.of(before)
        notes = []
        if before.exact:
            notes.append("From the records (exact): " + before.exact)
        if before.recalled:
            notes.append("Remembered from earlier conversations (the user said): " + " / ".join(before.recalled))
        if before.reflections:
            notes.append("Noticed across conversations: " + " / ".join(before.reflections))
        notes += before.notes
        if not notes:
            return state_text, before
        return "\n".join(([state_text] if state_text else []) + notes), before

    def _remember_later(self, turn: TurnRecord, before: BeforeReply | None) -> None:
        """The memory writes this turn implies, off the critical path."""
        if self._long_term is None or before is None:
            return
        session_id = self._memory.session_id if self._memory else ""
        self._long_term.spawn(self._remember(self._long_term, turn, before, session_id), session_id=session_id)

    async def _remember(self, long_term: LongTermMemory, turn: TurnRecord, before: BeforeReply,
                        session_id: str) -> None:
        # Only a change to the task can reach the profile at once (L8): for those turns
        # long-term memory reads the session's state as this turn left it.
        session = None
        if self._memory is not None and turn.turn_class == TurnClass.INFORMATION_CHANGE:
            session = await asyncio.to_thread(session_snapshot, self._memory)
        changes = await long_term.after_reply(before, turn.text, session_id=session_id, turn=turn.turn_id,
                                              turn_class=turn.turn_class, reply_text=turn.reply_text, session=session)
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

    def _render(self, state: SessionState) -> str:
        assert self._memory is not None
        text = render_state_for_reply(state, self._memory.schema, self._memory.options.language)
        # Only the options of the domain the conversation is in: a driver is never offered restaurants.
        catalogue = self._options.get(state.domain)
        self._offered = []
        if catalogue is not None and catalogue.items:
            domains = self._memory.domains
            view = domain_view(domains, state, state.domain) if len(domains.domains) > 1 else state
            text += "\n" + render_options(catalogue, view)
            # What this reply may offer: a later "yes" confirms these, not names the model made up.
            self._offered = [{domains.qualified(state.domain, k): v for k, v in option.items()}
                             for option in offered_options(catalogue, view)]
        return text

    async def _reply(self, turn: TurnRecord) -> None:
        state_text, clarify = await self._state_for(turn)
        if clarify:
            # Misheard key information: ask back, no LLM call and no state write (W8).
            await self._say_directly(turn, clarify, "clarify")
            await self.push_frame(AgentTurnEndFrame(turn=turn))
            return
        state_text, before = await self._with_memories(turn, state_text)
        if before is not None and before.say:
            # Memory has the answer (a contradiction to ask about, a change made, a question
            # settled): say it exactly rather than hope a small model repeats it faithfully.
            await self._say_directly(turn, before.say, "memory")
            self._remember_later(turn, before)
            await self.push_frame(AgentTurnEndFrame(turn=turn))
            return
        messages = build_reply_prompt(self._log, turn, self._prompt, state_text,
                                      self._window.select(self._log, turn.turn_id))
        turn.reply_prompt = messages
        splitter = ClauseSplitter(self._min_clause)
        stats = StreamStats()
        spoken: list[str] = []
        started = time.perf_counter()
        turn.mark("llm_start", started)
        try:
            async for delta in self._llm.stream(messages, stats):
                for clause in splitter.feed(delta):
                    await self._say(turn, clause, spoken)
            rest = splitter.flush()
            if rest:
                await self._say(turn, rest, spoken)
        except ChatError as exc:
            turn.reply_error = str(exc)
            if not spoken:
                await self._say(turn, say("reply.fallback", self._language), spoken)
        turn.reply_model = stats.model
        if stats.error and not turn.reply_error:
            turn.reply_error = stats.error
        if stats.first_token_at is not None:
            turn.mark("llm_first_token", stats.first_token_at)
            turn.compute["llm_first_token"] = stats.first_token_at - started
        turn.mark("llm_done", stats.finished_at or time.perf_counter())
        turn.reply_text = say("clause.join", self._language).join(spoken)
        self._log.add("assistant", turn.reply_text, turn.turn_id)
        if self._memory is not None and turn.reply_text and not turn.reply_error:
            await self._memory.record_agent_turn(turn.reply_text, turn=turn.turn_id, offered=self._offered)
        self._remember_later(turn, before)
        await self.push_frame(AgentTurnEndFrame(turn=turn))

    async def _say_directly(self, turn: TurnRecord, text: str, source: str) -> None:
        turn.reply_prompt = []
        turn.reply_model = source
        turn.mark("llm_start", time.perf_counter())
        spoken: list[str] = []
        await self._say(turn, text, spoken)
        turn.reply_text = text
        self._log.add("assistant", text, turn.turn_id)

    async def _say(self, turn: TurnRecord, clause: str, spoken: list[str]) -> None:
        if not spoken:
            now = time.perf_counter()
            turn.mark("llm_first_clause", now)
            turn.compute.setdefault("llm_first_clause", now - turn.marks["llm_start"])
        spoken.append(clause)
        await self.push_frame(ReplyTextFrame(text=clause, turn=turn))
