"""`POST /api/chat`: a session by typed turns. Each call is one user turn in a text room and
returns the reply; with a `session_id` the session goes on, in its text room here or taken up
from the shared stores (another worker's), so a client whose worker died carries on elsewhere.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from loguru import logger
from pydantic import ValidationError

from monologue.pipeline.builder import new_session_id
from monologue.pipeline.front_door import FrontDoor, RequestError
from monologue.pipeline.server.request_checks import caller_name, validation_problems
from monologue.pipeline.server.room import Room
from monologue.pipeline.server.rooms import END_GRACE_SECS, RoomHost
from monologue.pipeline.server.takeover import SessionClaims, taken_elsewhere
from monologue.pipeline.text_rooms import TRANSCRIPT_WAIT_SECS, ChatRequest, SessionEnded, TypedTurns


class ChatApi:
    """Typed turns into the text rooms of one `RoomHost`."""

    def __init__(self, host: RoomHost, claims: SessionClaims, door: FrontDoor) -> None:
        self._host = host
        self._claims = claims
        self._door = door

    async def chat(self, body: Any, caller: str | None = None) -> dict[str, Any]:
        """One typed turn → the reply. A new session without `session_id`; with it, the session
        goes on: in its text room here, or taken up from the shared stores (another worker's).
        `caller`: the verified user (a server with credentials), else the request's `user`."""
        try:
            request = ChatRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad chat turn ({validation_problems(exc)}); "
                                    "send JSON {text, session_id?, user?}") from None
        name = caller_name(request.user, caller)
        self._door.pace(name)
        for _ in range(3):      # a room that ends while the turn waits for it is taken up again
            room = await self._text_room(request.session_id, name, request.no_history)
            typed = room.typed
            assert typed is not None
            started = time.perf_counter()
            async with typed.turn_lock:
                if room.ending or typed.closed:
                    continue
                room.tap.last_heard = time.monotonic()
                try:
                    turn = await typed.say(request.text)
                except SessionEnded as exc:
                    raise RequestError(503, str(exc)) from None
                await self._lines_stored(room)
            recall = turn.memories
            return {"session_id": room.session_id, "turn": turn.turn_id, "reply": turn.reply.text,
                    "state_version": turn.reply.state_version, "error": turn.reply.error or None,
                    "recall": None if recall is None else ("timed_out" if recall.timed_out else "ok"),
                    "ms": round((time.perf_counter() - started) * 1000, 1)}
        raise RequestError(503, f"session {request.session_id} kept ending while the turn waited; send it again")

    async def _text_room(self, session_id: str, name: str, no_history: bool) -> Room:
        """The running text room of `session_id` here, or a new one (taking the session up)."""
        host = self._host
        if host.draining:
            raise RequestError(503, "this worker is shutting down; send the turn to another one with the same "
                                    "session_id")
        room = host.rooms.get(session_id) if session_id else None
        if room is not None and name != room.user:      # whatever the request leaves out
            raise RequestError(403, f"session {session_id} is another user's")
        if room is not None and room.typed is None:
            raise RequestError(409, f"session {session_id} is open in a voice room here; close it first")
        if room is not None and not room.ending and await asyncio.to_thread(taken_elsewhere, room):
            # Another worker answered this session since this room's last turn: this room's
            # window and turn numbers are behind. It ends; a new room takes the session up whole.
            logger.info(f"{room.label}: the session went on elsewhere; taking it up again from the stores")
            await host.end_room(room, "the session went on on another worker", tell=False)
        if room is not None and room.ending and room.task is not None:
            # Closing (idle, or behind): let it finish and commit, so the session continues from all of it.
            await asyncio.wait({room.task}, timeout=END_GRACE_SECS * 2)
            room = host.rooms.get(session_id)          # another request may have taken it up meanwhile
            if room is not None and room.ending:
                raise RequestError(503, f"session {session_id} is still closing here; send the turn again")
        if room is not None:
            return room
        host.check_room_limits(name)
        if session_id:
            await self._claims.claim(session_id, name, continuing=True)
            room = host.rooms.get(session_id)           # opened by another request meanwhile
            if room is not None and not room.ending and room.typed is not None:
                return room
            if room is not None:
                raise RequestError(409, f"session {session_id} is busy in another room here; send the turn again")
        return self._open_text_room(name, no_history, session_id)

    def _open_text_room(self, user: str, no_history: bool, resume: str) -> Room:
        host = self._host
        session_id = resume or new_session_id()
        if not resume:
            self._claims.access.claim(session_id, user)      # a new id: nobody else can hold it
        room = Room(session_id, user, host.options.out_dir / session_id, no_history=no_history, typed=TypedTurns())
        host.rooms[session_id] = room
        with logger.contextualize(session_id=session_id):   # the room's task inherits it
            room.task = asyncio.create_task(self._run_text_room(room), name=f"text-{session_id}")
            logger.info(f"{room.label}: text session {'continued' if resume else 'opened'}")
        return room

    async def _run_text_room(self, room: Room) -> None:
        assert room.typed is not None
        try:
            await self._host.run_room(room, room.typed, None, mode="text",
                                      on_turn=lambda turn: self._answered(room, turn))
        except Exception as exc:
            logger.opt(exception=exc).error(f"{room.label}: failed: {type(exc).__name__}: {exc}")
        finally:
            room.typed.fail_waiting(room.ending or "it failed")

    def _answered(self, room: Room, turn: Any) -> None:
        """The turn's caller gets its reply; a room whose user asked to forget everything ends."""
        if room.typed is not None:
            room.typed.answered(turn)
            if room.session is not None and room.session.long_term is not None:
                watcher = asyncio.ensure_future(self._end_if_forgotten(room))
                room.watchers.add(watcher)
                watcher.add_done_callback(room.watchers.discard)

    async def _end_if_forgotten(self, room: Room) -> None:
        """"Forget everything about me" in a text room: once the turn's memory work is done, the
        room ends, so the session's state and what was said are erased now (at the session's
        end, `run_session`), not when the room would have gone idle; a worker taking the session
        up afterwards finds nothing of it."""
        session = room.session
        if session is None or session.long_term is None:
            return
        await session.long_term.drain()
        if session.long_term.core.erased_sessions and not room.ending:
            logger.info(f"{room.label}: the user asked to forget everything; ending the room to erase its session")
            await self._host.end_room(room, "the user asked to forget everything", tell=False)

    async def _lines_stored(self, room: Room) -> None:
        """Wait (a little) for the turn's lines to be kept beside the state: a worker taking the
        session up after this reply was acknowledged finds them in its window."""
        transcript = room.session.transcript if room.session is not None else None
        if transcript is not None:
            await asyncio.wait({asyncio.wrap_future(transcript.written())}, timeout=TRANSCRIPT_WAIT_SECS)
