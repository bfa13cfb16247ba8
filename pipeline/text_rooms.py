"""Text rooms: a session by typed turns over `POST /api/chat` (pipeline/serve.py).

Each call is one user turn through the same processors as a voice room, minus audio; the
call returns once the turn is answered. A client whose worker died sends its next turn, with
its session id, to any worker sharing `store.url`/`state.url`: that worker takes the session
up from the stores (state, conversation window, user memory).
"""

from __future__ import annotations

import asyncio

from pipecat.frames.frames import CancelFrame, EndFrame, Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import BaseModel, Field, field_validator

from monologue.memory.language.plain_text import has_visible, plain_text
from monologue.memory.stores.access import SESSION_ID_PATTERN
from monologue.pipeline.text_chat import typed_turn
from monologue.processors.frames import Turn, UserTurnFrame

TRANSCRIPT_WAIT_SECS = 3.0     # a reply waits this long for its lines to be stored (a store out of reach: less)


class SessionEnded(Exception):
    """The room ended before the turn was answered: the client sends it again."""


class ChatRequest(BaseModel):
    """One typed user turn; the first one of a session leaves `session_id` empty (or names a
    session to continue). `user` counts only on a server without credentials (`front_door.py`)."""

    text: str = Field(min_length=1, max_length=2000)
    session_id: str = Field(default="", max_length=64, pattern=SESSION_ID_PATTERN)
    user: str = Field(default="", max_length=64)
    no_history: bool = False

    @field_validator("text")
    @classmethod
    def _visible(cls, text: str) -> str:
        """A turn of only spaces, zero-width or other format/control characters says nothing:
        refused, not answered as if the user had spoken. Controls and bidi overrides in a
        visible turn are neutralised (`plain_text`) before anything stores or prints them."""
        if not has_visible(text):
            raise ValueError("the text has no visible characters; send what the user said")
        return plain_text(text)


class TypedTurns(FrameProcessor):
    """One job: a text room's source. Each `/api/chat` call puts a line in; the line goes
    down the pipeline as a user turn once the turn before it was answered."""

    def __init__(self) -> None:
        super().__init__()
        self._lines: asyncio.Queue[tuple[str, asyncio.Future[Turn]]] = asyncio.Queue()
        self._waiting: dict[int, asyncio.Future[Turn]] = {}
        self._next_turn = 1
        self._feeding: asyncio.Task | None = None
        self.turn_lock = asyncio.Lock()     # one turn at a time per session
        self.closed = ""                    # why the room ended ('' while it runs)

    def continue_after(self, last_turn: int) -> None:
        self._next_turn = last_turn + 1

    @property
    def last_turn(self) -> int:
        """The last turn this source fed (or the one it continued after)."""
        return self._next_turn - 1

    async def say(self, text: str) -> Turn:
        """The user's turn → the agent's answered turn; `SessionEnded` if the room ends first."""
        if self.closed:
            raise SessionEnded(f"the session ended ({self.closed}); send the turn again")
        answered: asyncio.Future[Turn] = asyncio.get_running_loop().create_future()
        await self._lines.put((text, answered))
        return await answered

    def answered(self, turn: Turn) -> None:
        waiting = self._waiting.pop(turn.turn_id, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(turn)

    def fail_waiting(self, reason: str) -> None:
        """The room ended: calls still waiting get an error, not silence; later ones too."""
        self.closed = reason
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_exception(SessionEnded(f"the session ended before replying ({reason}); "
                                                   "send the turn again with the same session_id"))
        self._waiting.clear()
        while not self._lines.empty():
            _text, answered = self._lines.get_nowait()
            if not answered.done():
                answered.set_exception(SessionEnded(f"the session ended ({reason}); send the turn again"))

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, (EndFrame, CancelFrame)) and self._feeding is not None:
            await self.cancel_task(self._feeding)
            self._feeding = None
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self._feeding = self.create_task(self._feed(), name="typed-turns")

    async def _feed(self) -> None:
        while True:
            text, answered = await self._lines.get()
            turn = typed_turn(self._next_turn, text)
            self._next_turn += 1
            self._waiting[turn.turn_id] = answered
            await self.push_frame(UserTurnFrame(turn=turn))
