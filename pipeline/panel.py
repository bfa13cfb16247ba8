"""The room page's live panel: typed messages, and the tap that sends them as turns go by.

Each message is a small pydantic model with a `type` field, sent to the page as JSON over
the transport's data channel (an `OutputTransportMessageUrgentFrame`, so it overtakes the
reply's audio and works the same over SmallWebRTC, Daily and LiveKit). Why not RTVI is
said in `serve.py`'s docstring.

    session         the room started: session id, user, language, the opening line to come
    user_speaking   the VAD heard the user start (the page opens the user's line, live)
    user_partial    what the user has said so far, while they speak (the same line, updated)
    user_transcript the turn's words once the turn stands (the line becomes final); empty
                    when nothing was understood, `backchannel` for an "mm-hm" over the agent
    state           the working state after the turn's update, in the session's language:
                    goal, conditions (label, value, status in words), pending questions,
                    and this turn's changes as sentences
    agent_voice     the agent's words as the user hears them (its voice starting, each word,
                    and its end, with what a cut left unsaid and how the cut came about),
                    and, as the voice starts, where the voice-to-voice time went
    agent_reply     the reply once its turn is done: its words, the state version it was
                    built on, the memories recalled for it (by meaning), latencies
    room_closing    the server is ending the room, and why

Raw fields (keys, operations, the reply's latencies) stay beside the readable ones for a
program that reads the messages; the page shows only the readable ones.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING, Any, Literal

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InterimTranscriptionFrame,
    OutputTransportMessageUrgentFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import BaseModel, Field

from monologue.memory.working.turn_classes import TurnClass
from monologue.pipeline.report.latency import breakdown
from monologue.pipeline.report.words import change_lines, condition_view, cut_kind, memory_meaning
from monologue.processors.frames import AgentTurnEndFrame, Heard, SpeechStartedFrame, Turn, UserTurnFrame

if TYPE_CHECKING:
    from monologue.memory.domain.schema import DomainSchema
    from monologue.memory.working.engine import UpdateResult, WorkingMemory
    from monologue.memory.working.state import SessionState
    from monologue.processors.playout import Playout

_CJK = re.compile(r"[\u3400-\u9fff]")


class PanelMessage(BaseModel):
    type: str


class SessionStarted(PanelMessage):
    type: Literal["session"] = "session"
    session_id: str
    user: str = ""
    opening: str = ""
    no_history: bool = False    # off the record: nothing read from or written to long-term memory
    language: str = "en"        # the page's own words follow it


class UserSpeaking(PanelMessage):
    type: Literal["user_speaking"] = "user_speaking"
    start_secs: float          # where speech began on the room's audio timeline


class UserPartial(PanelMessage):
    type: Literal["user_partial"] = "user_partial"
    text: str                  # the words so far, as the last pass heard them


class UserTranscript(PanelMessage):
    type: Literal["user_transcript"] = "user_transcript"
    turn: int
    text: str                  # "": nothing was understood (a noise, or the recogniser failed)
    confidence: float | None = None
    backchannel: bool = False  # "mm-hm" over the agent: it went on, and did not answer
    error: str = ""


class ConditionRow(BaseModel):
    slot: str
    key: str
    comparator: str
    value: Any
    words: str = ""
    status: str               # active, to_confirm …
    confirmed: bool = False
    label: str = ""           # the domain YAML's label in the session's language
    shown: str = ""           # the value as the user would say it ("8 pm", "no seafood")
    status_words: str = ""    # "noted", "to confirm", "confirmed"


class OperationRow(BaseModel):
    op: str
    key: str = ""
    comparator: str = ""
    value: Any = None
    words: str = ""           # what the user said that led to it
    reason: str = ""
    source: str = ""          # rules | llm | …
    rejected: bool = False    # grounding refused it (reason says why)


class ChangeRow(BaseModel):
    kind: str                 # set, changed, withdraw, confirm, goal, ask, reject, refused
    text: str                 # the change as a sentence
    why: str = ""             # the engine's own reason (a hover)


class StateUpdate(PanelMessage):
    type: Literal["state"] = "state"
    turn: int
    version: int
    goal: str = ""
    conditions: list[ConditionRow] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    operations: list[OperationRow] = Field(default_factory=list)
    changes: list[ChangeRow] = Field(default_factory=list)
    diff: dict[str, list[Any]] = Field(default_factory=dict)   # slot → [before, after]
    skipped: str = ""          # why this turn did not update the state (chit-chat …)
    error: str = ""

    @classmethod
    def of(cls, turn: int, state: SessionState, result: UpdateResult | None = None, *, skipped: str = "",
           error: str = "", schema: DomainSchema | None = None, language: str = "en") -> StateUpdate:
        conditions = []
        for slot, c in state.constraints.items():
            view = condition_view(slot, {"key": c.key, "comparator": str(c.comparator), "value": c.value,
                                         "status": str(c.status), "confirmed": c.confirmed}, schema, language)
            conditions.append(ConditionRow(slot=slot, key=c.key, comparator=str(c.comparator), value=c.value,
                                           words=c.words, status=str(c.status), confirmed=c.confirmed,
                                           label=view.label, shown=view.value, status_words=view.status))
        operations: list[OperationRow] = []
        changes: list[ChangeRow] = []
        diff: dict[str, list[Any]] = {}
        if result is not None:
            operations = [_operation_row(op.to_dict()) for op in result.operations]
            operations += [_operation_row(r.operation.to_dict(), rejected=True, reason=r.reason)
                           for r in result.rejected]
            diff = {slot: list(change) for slot, change in result.diff.items()}
            changes = [ChangeRow(kind=line.kind, text=line.text, why=line.why) for line in change_lines(
                [op.to_dict() for op in result.operations], [r.to_dict() for r in result.rejected],
                result.state_before, schema, language)]
        return cls(turn=turn, version=state.version, goal=state.goal, conditions=conditions,
                   questions=[p.question for p in state.pending], operations=operations, changes=changes,
                   diff=diff, skipped=skipped, error=error)


def _operation_row(op: dict[str, Any], *, rejected: bool = False, reason: str = "") -> OperationRow:
    return OperationRow(op=str(op.get("op", "")), key=str(op.get("key", "")),
                        comparator=str(op.get("comparator", "")), value=op.get("value"),
                        words=str(op.get("words", "")), reason=reason or str(op.get("reason", "")),
                        source=str(op.get("source", "")), rejected=rejected)


def said_text(clauses: tuple[str, ...] | list[str]) -> str:
    """Clauses as one line: run together in Chinese, spaced otherwise."""
    parts = [c.strip() for c in clauses if c.strip()]
    return ("" if any(_CJK.search(p) for p in parts) else " ").join(parts)


class AgentVoice(PanelMessage):
    type: Literal["agent_voice"] = "agent_voice"
    turn: int
    said: str                            # heard so far (all of it once `final`)
    final: bool = False
    cut: Literal["spoke_over", "went_on", ""] = ""   # how a cut came about (on the final message)
    unsaid: str = ""                     # what the cut left unsaid
    latency: dict[str, Any] | None = None   # voice to voice and its stages, as the voice starts

    @classmethod
    def of(cls, turn: Turn, heard: Heard, final: bool, *, with_latency: bool = False,
           language: str = "en") -> AgentVoice:
        cut = cut_kind(turn.barge_in.trace()) if final and turn.barge_in is not None else ""
        latency = None
        if with_latency and turn.turn_id > 0:
            latency = breakdown(turn.latencies_ms(), drafted=turn.turn_end.drafted, language=language).to_dict(language)
        unsaid = said_text(heard.unheard) or (turn.reply.text if cut == "went_on" else "") if cut else ""
        return cls(turn=turn.turn_id, said=said_text(heard.clauses), final=final, cut=cut, unsaid=unsaid,
                   latency=latency)


class AgentReply(PanelMessage):
    type: Literal["agent_reply"] = "agent_reply"
    turn: int
    text: str
    state_version: int | None = None     # the state version the reply was built on (turn.reply.state_version)
    memories: list[str] = Field(default_factory=list)
    # The same memories with their tier and whether they are the user's or the household's,
    # and what each means; after "what do you remember about me?", everything remembered (U1, U3, U5).
    memory_items: list[dict[str, str]] = Field(default_factory=list)
    listed: list[dict[str, str]] = Field(default_factory=list)
    latency_ms: dict[str, float] = Field(default_factory=dict)
    latency: dict[str, Any] = Field(default_factory=dict)    # voice to voice and its stages, in words
    cut: bool = False                    # a barge-in stopped it; `text` is what was said up to the cut
    how_cut: Literal["spoke_over", "went_on", ""] = ""
    barge_in: dict[str, Any] = Field(default_factory=dict)
    user_text: str = ""                  # what the user said this turn (a backchannel reaches no tap)
    error: str = ""

    @classmethod
    def of(cls, turn: Turn, *, schema: DomainSchema | None = None, language: str = "en") -> AgentReply:
        barge_in = turn.barge_in.trace() if turn.barge_in is not None else {}
        memories: list[str] = []
        detail: dict[str, Any] = {}
        if turn.memories is not None:
            memories = [*turn.memories.recalled, *turn.memories.reflections]
            detail = turn.memories.detail

        def meant(items: Any) -> list[dict[str, str]]:
            return [{**item, "meaning": memory_meaning(str(item.get("text", "")), schema, language)}
                    for item in items if isinstance(item, dict)]

        typed = turn.vad_engine == "text"
        how_cut = cut_kind(barge_in)
        # A reply never said has no voice-to-voice time: its audio was ready, nobody heard it.
        latency = {} if how_cut == "went_on" else breakdown(turn.latencies_ms(), typed=typed,
                                                              drafted=turn.turn_end.drafted,
                                                              language=language).to_dict(language)
        return cls(turn=turn.turn_id, text=turn.reply.text, state_version=turn.reply.state_version, memories=memories,
                   memory_items=meant(detail.get("sources", [])), listed=meant(detail.get("listed_items", [])),
                   latency_ms=turn.latencies_ms(), latency=latency,
                   cut=bool(barge_in.get("cut")), how_cut=how_cut, barge_in=barge_in,
                   user_text=turn.text, error=turn.reply.error)


class RoomClosing(PanelMessage):
    type: Literal["room_closing"] = "room_closing"
    reason: str


class PanelTap(FrameProcessor):
    """One job: tell the page what the agent heard and how its state changed.

    It watches frames go by (placed after the monologue stage, where each `UserTurnFrame`
    carries its state update) and never holds one back: what waits (a draft's fate, the
    state update) is awaited in a task. A draft is told only once it stands, so words the
    user went on from never become a line of their own. `send` may be called from the
    session's hooks; messages leave in the order sent.
    """

    def __init__(self) -> None:
        super().__init__()
        self.memory: WorkingMemory | None = None     # set when the session starts
        self.language = "en"                         # the session's; set when the session starts
        self.last_heard = time.monotonic()           # the user's last speech (the room's idle clock)
        self.heard: set[int] = set()                 # user turns that stand, with words
        self.speaking = False                        # the user started a turn the ASR has not closed yet
        self._outbox: asyncio.Queue[PanelMessage] = asyncio.Queue()
        self._pump: asyncio.Task | None = None
        self._timed: set[int] = set()                # turns whose voice-to-voice time the page has

    @property
    def schema(self) -> DomainSchema | None:
        return self.memory.schema if self.memory is not None else None

    def send(self, message: PanelMessage) -> None:
        self._outbox.put_nowait(message)

    def watch_voice(self, playout: Playout | None) -> None:
        """The agent's words as the user hears them, from the playout (`on_voice`)."""
        if playout is None:
            return

        @playout.event_handler("on_voice")
        async def voice(_playout: Playout, turn: Turn, heard: Heard, final: bool) -> None:
            first = turn.turn_id not in self._timed
            self._timed.add(turn.turn_id)
            self.send(AgentVoice.of(turn, heard, final, with_latency=first, language=self.language))

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
        elif isinstance(frame, InterimTranscriptionFrame):
            self.send(UserPartial(text=frame.text))
        elif isinstance(frame, UserTurnFrame):
            self.last_heard = time.monotonic()
            self.create_task(self._tell_turn(frame.turn), name=f"panel-turn-{frame.turn.turn_id}")
        elif isinstance(frame, AgentTurnEndFrame) and direction == FrameDirection.DOWNSTREAM:
            # Before the reply stage, a turn's end means it goes unanswered: no words, or a backchannel.
            self.create_task(self._tell_unanswered(frame.turn), name=f"panel-turn-{frame.turn.turn_id}")
        elif isinstance(frame, (EndFrame, CancelFrame)) and self._pump is not None:
            await self.cancel_task(self._pump)
            self._pump = None
        await self.push_frame(frame, direction)

    async def _send_all(self) -> None:
        while True:
            message = await self._outbox.get()
            await self.push_frame(OutputTransportMessageUrgentFrame(message=message.model_dump(mode="json")))

    async def _tell_turn(self, turn: Turn) -> None:
        """The turn's words once it stands, then its state once updated; nothing for a dropped draft."""
        if not await turn.stands():
            return
        self.speaking = False
        self.heard.add(turn.turn_id)
        self.send(UserTranscript(turn=turn.turn_id, text=turn.text,
                                 confidence=turn.asr.confidence if turn.asr is not None else None))
        await self._send_state(turn)

    async def _tell_unanswered(self, turn: Turn) -> None:
        """A turn told in the order turns came (a task, like `_tell_turn`): a noise ("" : its live
        line goes), a backchannel, or words the recogniser failed on."""
        if not await turn.stands():
            return
        self.speaking = False
        self.send(UserTranscript(turn=turn.turn_id, text=turn.text,
                                 backchannel=turn.turn_class == TurnClass.BACKCHANNEL,
                                 error=(turn.asr.error or "") if turn.asr is not None else ""))

    async def _send_state(self, turn: Turn) -> None:
        result, error = await turn.state_outcome()
        if result is not None:
            self.send(StateUpdate.of(turn.turn_id, result.state, result, schema=self.schema, language=self.language))
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
        self.send(StateUpdate.of(turn.turn_id, state, skipped=skipped, error=error, schema=self.schema,
                                 language=self.language))
