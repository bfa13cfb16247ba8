"""Planning a reply: the state it is built on, what long-term memory recalls, the policy's act
and, with a provider that calls functions, the model's choice of action (validated by the
policy). The result is a `Planned`; nothing here words or speaks it."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from monologue.dialogue.chooser import CHOICE_TIMEOUT_SECS, Validated, tools_of, worth_asking
from monologue.dialogue.dialogue_session import DialogueSession, Planned, TurnInput
from monologue.dialogue.policy import Act
from monologue.memory.longterm.engine import BeforeReply, LongTermMemory
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import UpdateResult, WorkingMemory
from monologue.memory.working.state import Op, Operation, SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatLLM
from monologue.processors.frames import MemoryRecall, Turn
from monologue.processors.reply_commit import PendingReply
from monologue.processors.reply_wording import redactor_for


class ReplyPlanner:
    """One job: decide what this turn's reply does, and do the actions it decides on."""

    def __init__(self, llm: ChatLLM, dialogue: DialogueSession, *, memory: WorkingMemory | None = None,
                 long_term: LongTermMemory | None = None, choose_actions: bool = True) -> None:
        self._llm = llm
        self._dialogue = dialogue
        self._memory = memory
        self._long_term = long_term
        self._choose_actions = choose_actions      # a model with function calling may choose the action
        self._choice_trace: dict[str, Any] = {}
        self.local_only: list[str] = []    # the user's local-only memories, as of the last recall

    async def plan(self, turn: Turn, pending: PendingReply, log: ConversationLog) -> Planned | None:
        """The turn's act, its actions carried out; None when a draft was dropped before it could
        write (the user went on)."""
        state, result = await self._state_for(turn)
        clarify = result.clarify if result is not None else ""
        before = None if clarify else await self._recall(turn)
        said = TurnInput(
            text=turn.text, turn_class=turn.turn_class or TurnClass.CHIT_CHAT,
            operations=tuple(result.operations) if result is not None else (), clarify=clarify,
            memory_say=before.say if before is not None else None,
            memory_answer=before.answer if before is not None else None,
            about_user=before.about_user if before is not None else False,
            previous_reply=log.last_text("assistant"),
            earlier_replies=tuple(u.text for u in log.recent(8) if u.role == "assistant")[-4:-1],
            recalled=tuple(before.recalled) if before is not None else ())
        planned = self._dialogue.plan(state, said)
        pending.before = before
        if not await self._stands(turn, planned):
            return None
        if planned.decision.act == Act.RELAX and self._memory is not None:
            # "Could we drop the window seat?" — "Sure": drop it, then decide again on the new state.
            # (Or went back to an earlier offer that what was said since rules out: that gives way.)
            relaxed = list(planned.decision.about or (planned.decision.key,))
            state = await self._memory.relax(relaxed, turn=turn.turn_id, reason=f"the user agreed: {turn.text}")
            turn.reply.state_version = state.version
            planned = self._dialogue.plan(state, replace(said, operations=tuple(
                Operation(Op.WITHDRAW, key) for key in relaxed)))
        choice = await self._model_choice(planned, turn, said.previous_reply)
        if choice is not None and choice.decision is not None:
            planned = self._dialogue.plan(state, said, forced=choice.decision)
        pending.planned = planned
        if not await self._stands(turn, planned):
            return None
        if any(step.act == Act.ACT for step in planned.decision.steps()):
            session_id = self._memory.session_id if self._memory else ""
            await asyncio.to_thread(self._dialogue.carry_out, planned, session_id)
        turn.reply.decision = planned.decision.trace()
        if choice is not None:
            turn.reply.decision["model_choice"] = self._choice_trace
        if planned.errors:
            turn.reply.decision["tool_errors"] = planned.errors
        return planned

    async def _state_for(self, turn: Turn) -> tuple[SessionState | None, UpdateResult | None]:
        """The state this reply is built on, and this turn's update if it had one.

        A state-changing turn waits for its own update; chit-chat takes the state as it is once
        the turn before is settled (every earlier update has finished: turns reach the reply
        stage in order).
        """
        if turn.updates_state:
            waited = time.perf_counter()
            result = await turn.wait_for_state()
            turn.compute["reply_waited_for_state"] = time.perf_counter() - waited
            if result is not None and self._memory is not None:
                turn.reply.state_version = result.version
                return result.state, result
        memory = self._memory
        if memory is None:
            return None, None
        state = await asyncio.to_thread(lambda: memory.state)
        turn.reply.state_version = state.version
        return state, None

    async def _recall(self, turn: Turn) -> BeforeReply | None:
        """What earlier sessions remember, found within the latency budget (L17)."""
        if self._long_term is None:
            return None
        session = self._memory.session_id if self._memory else ""
        before = await self._long_term.before_reply(
            turn.text, session_id=session, turn_class=turn.turn_class or "",
            schema=self._memory.schema if self._memory else None, language=self._dialogue.language)
        turn.memories = MemoryRecall.of(before)
        self.local_only = before.local_only
        return before

    @staticmethod
    async def _stands(turn: Turn, planned: Planned) -> bool:
        """Whether the reply may go on to acts that change the world or the state (relaxing a
        condition, an action): a draft's only once the user's silence confirms the turn."""
        if turn.decided:
            return not turn.dropped
        writes = planned.decision.act == Act.RELAX or any(s.act == Act.ACT for s in planned.decision.steps())
        return await turn.stands() if writes else True

    async def _model_choice(self, planned: Planned, turn: Turn, previous_reply: str) -> Validated | None:
        """A provider with function calling may choose the action (the policy validates it)."""
        if not self._choose_actions or not planned.schema.actions \
                or not worth_asking(planned.decision, planned.view.last_act) \
                or not await asyncio.to_thread(self._llm.supports_tools):
            return None
        model = self._llm.options.model
        prompt = self._dialogue.choice_prompt(planned, turn.text, previous_reply)
        # A provider with tools is remote: names go as placeholders.
        redactor = redactor_for(self._llm, self.local_only if self._long_term is not None else [], planned.language)
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
