"""The room page's live panel: typed messages, and the tap that sends them as turns go by.

Each message is a small pydantic model with a `type` field, sent to the page as JSON over
the transport's data channel (an `OutputTransportMessageUrgentFrame`, so it overtakes the
reply's audio and works the same over SmallWebRTC, Daily and LiveKit). Why not RTVI is
said in `serve.py`'s docstring.

    session         the room started: session id, user, the opening line
    user_speaking   the VAD heard the user start (the page marks the line as live)
    user_transcript what the ASR heard, as soon as it is known
    state           the working state after the turn's update: goal, conditions, pending
                    questions, and this turn's operations and diff with their reasons
    agent_reply     the agent's reply once the turn is done: its words, the state version
                    it was built on, the memories recalled for it, latencies, and whether
                    a barge-in cut it
    room_closing    the server is ending the room, and why
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Literal

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    OutputTransportMessageUrgentFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import BaseModel, Field

from monologue.processors.frames import SpeechStartedFrame, Turn, UserTurnFrame

if TYPE_CHECKING:
    from monologue.memory.working.engine import UpdateResult, WorkingMemory
    from monologue.memory.working.state import Operation, SessionState


class PanelMessage(BaseModel):
    type: str


class SessionStarted(PanelMessage):
    type: Literal["session"] = "session"
    session_id: str
    user: str = ""
    opening: str = ""
    no_history: bool = False    # off the record: nothing read from or written to long-term memory


class UserSpeaking(PanelMessage):
    type: Literal["user_speaking"] = "user_speaking"
    start_secs: float          # where speech began on the room's audio timeline


class UserTranscript(PanelMessage):
    type: Literal["user_transcript"] = "user_transcript"
    turn: int
    text: str
    confidence: float | None = None


class ConditionRow(BaseModel):
    slot: str
    key: str
    comparator: str
    value: Any
    words: str = ""
    status: str               # active, expired, withdrawn …
    confirmed: bool = False


class OperationRow(BaseModel):
    op: str
    key: str = ""
    comparator: str = ""
    value: Any = None
    words: str = ""           # what the user said that led to it
    reason: str = ""
    source: str = ""          # rules | llm | …
    rejected: bool = False    # grounding refused it (reason says why)


class StateUpdate(PanelMessage):
    type: Literal["state"] = "state"
    turn: int
    version: int
    goal: str = ""
    conditions: list[ConditionRow] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    operations: list[OperationRow] = Field(default_factory=list)
    diff: dict[str, list[Any]] = Field(default_factory=dict)   # slot → [before, after]
    skipped: str = ""          # why this turn did not update the state (chit-chat …)
    error: str = ""

    @classmethod
    def of(cls, turn: int, state: SessionState, result: UpdateResult | None = None,
           skipped: str = "", error: str = "") -> StateUpdate:
        conditions = [ConditionRow(slot=slot, key=c.key, comparator=str(c.comparator), value=c.value,
                                   words=c.words, status=str(c.status), confirmed=c.confirmed)
                      for slot, c in state.constraints.items()]
        operations: list[OperationRow] = []
        diff: dict[str, list[Any]] = {}
        if result is not None:
            operations = [_operation_row(op) for op in result.operations]
            operations += [_operation_row(r.operation, rejected=True, reason=r.reason) for r in result.rejected]
            diff = {slot: list(change) for slot, change in result.diff.items()}
        return cls(turn=turn, version=state.version, goal=state.goal, conditions=conditions,
                   questions=[p.question for p in state.pending], operations=operations, diff=diff,
                   skipped=skipped, error=error)


def _operation_row(op: Operation, *, rejected: bool = False, reason: str = "") -> OperationRow:
    return OperationRow(op=str(op.op), key=op.key, comparator=str(op.comparator), value=op.value, words=op.words,
                        reason=reason or op.reason, source=str(op.source), rejected=rejected)


class AgentReply(PanelMessage):
    type: Literal["agent_reply"] = "agent_reply"
    turn: int
    text: str
    state_version: int | None = None     # the state version the reply was built on (turn.reply.state_version)
    memories: list[str] = Field(default_factory=list)
    # The same memories with their tier and whether they are the user's or the household's,
    # and, after "what do you remember about me?", everything remembered (U1, U3, U5).
    memory_items: list[dict[str, str]] = Field(default_factory=list)
    listed: list[dict[str, str]] = Field(default_factory=list)
    latency_ms: dict[str, float] = Field(default_factory=dict)
    cut: bool = False                    # a barge-in stopped it; `text` is what was said up to the cut
    barge_in: dict[str, Any] = Field(default_factory=dict)
    user_text: str = ""                  # what the user said this turn (a backchannel reaches no tap)
    error: str = ""

    @classmethod
    def of(cls, turn: Turn) -> AgentReply:
        barge_in = turn.barge_in.trace() if turn.barge_in is not None else {}
        memories: list[str] = []
        detail: dict[str, Any] = {}
        if turn.memories is not None:
            memories = [*turn.memories.recalled, *turn.memories.reflections]
            detail = turn.memories.detail
        return cls(turn=turn.turn_id, text=turn.reply.text, state_version=turn.reply.state_version, memories=memories,
                   memory_items=list(detail.get("sources", [])), listed=list(detail.get("listed_items", [])),
                   latency_ms=turn.latencies_ms(), cut=bool(barge_in.get("cut")), barge_in=barge_in,
                   user_text=turn.text,
                   error=turn.reply.error)


class RoomClosing(PanelMessage):
    type: Literal["room_closing"] = "room_closing"
    reason: str


class PanelTap(FrameProcessor):
    """One job: tell the page what the agent heard and how its state changed.

    It watches frames go by (placed after the monologue stage, where each `UserTurnFrame`
    carries its state update) and never holds one back: the state is awaited in a task.
    `send` may be called from the session's hooks; messages leave in the order sent.
    """

    def __init__(self) -> None:
        super().__init__()
        self.memory: WorkingMemory | None = None     # set when the session starts
        self.last_heard = time.monotonic()           # the user's last speech (the room's idle clock)
        self.turns_heard = 0
        self.speaking = False                        # the user started a turn the ASR has not closed yet
        self._outbox: asyncio.Queue[PanelMessage] = asyncio.Queue()
        self._pump: asyncio.Task | None = None

    def send(self, message: PanelMessage) -> None:
        self._outbox.put_nowait(message)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._pump = self.create_task(self._send_all(), name="panel-pump")
            return
        if isinstance(frame, SpeechStartedFrame):
            self.last_heard = time.monotonic()
            self.speaking = True
            self.send(UserSpeaking(start_secs=frame.start_pts))
        elif isinstance(frame, UserTurnFrame):
            self.last_heard = time.monotonic()
            self.speaking = False
            self.turns_heard += 1
            turn = frame.turn
            self.send(UserTranscript(turn=turn.turn_id, text=turn.text,
                                     confidence=turn.asr.confidence if turn.asr is not None else None))
            self.create_task(self._send_state(turn), name=f"panel-state-{turn.turn_id}")
        elif isinstance(frame, (EndFrame, CancelFrame)) and self._pump is not None:
            await self.cancel_task(self._pump)
            self._pump = None
        await self.push_frame(frame, direction)

    async def _send_all(self) -> None:
        while True:
            message = await self._outbox.get()
            await self.push_frame(OutputTransportMessageUrgentFrame(message=message.model_dump(mode="json")))

    async def _send_state(self, turn: Turn) -> None:
        result, error = await turn.state_outcome()
        if result is not None:
            self.send(StateUpdate.of(turn.turn_id, result.state, result))
            return
        if self.memory is None:
            return
        skipped = turn.monologue.reason if turn.monologue is not None and turn.monologue.skipped else ""
        if turn.monologue is not None and turn.monologue.error:
            error = turn.monologue.error
        try:
            state = self.memory.state
        except Exception as exc:    # the store is unreadable: the page keeps the last state it had
            logger.warning(f"session {self.memory.session_id}: the panel could not read the state: {exc}")
            return
        self.send(StateUpdate.of(turn.turn_id, state, skipped=skipped, error=error))
