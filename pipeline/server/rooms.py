"""The rooms of one process: each one a session from its source to its output, ended on
request (the reply in flight finishes) or at once, and all drained when the server stops.

How a room is opened is the business of the ways in (`signalling.py`, `chat_api.py`,
`remote.py`); they hand the room and its transport to `RoomHost.run_room`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loguru import logger
from pipecat.frames.frames import CancelWorkerFrame, EndWorkerFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.frame_processor import FrameProcessor

from monologue.configs import MonologueConfig
from monologue.pipeline.builder import AgentModels, open_store, user_memory
from monologue.pipeline.front_door import AuthMode, Limits, RequestError
from monologue.pipeline.panel import AgentReply, RoomClosing, SessionStarted, StateUpdate
from monologue.pipeline.server.idle_watch import watch_idle
from monologue.pipeline.server.recording import RoomRecording
from monologue.pipeline.server.room import Room
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session

END_GRACE_SECS = 20.0           # a room asked to end finishes the reply in flight, or is cancelled


@dataclass(frozen=True)
class ServeOptions:
    out_dir: Path = Path("out/serve")
    store_path: str | None = None       # None: store.path from the config
    idle_secs: float = 600.0            # a room with no speech for this long is closed
    max_rooms: int = 16                 # more offers get HTTP 503: the machine has its limits
    auth: AuthMode = "open"             # "tokens": every request carries a user's credential (front_door.py)
    limits: Limits = field(default_factory=Limits)
    ready_wait_secs: float = 3.0        # a readiness probe that waits longer says "not ready"


class RoomHost:
    """The rooms of one process: runs each, ends them, and reports each."""

    def __init__(self, config: MonologueConfig, models: AgentModels, options: ServeOptions | None = None) -> None:
        self.config = config
        self.models = models
        self.options = options or ServeOptions()
        self.rooms: dict[str, Room] = {}
        self.finished: list[Room] = []         # ended rooms, newest last (tests and health read it)
        self._started = time.monotonic()
        self.draining = False                  # stopping: no new sessions, the turns in flight finish
        self._cancelling: set[asyncio.Future[None]] = set()   # cancels sent to rooms that would not end

    def check_room_limits(self, name: str) -> None:
        """A new room fits: under the server's cap, and under the caller's own share of it (so
        one client, or anonymous callers together, cannot lock everyone else out)."""
        if len(self.rooms) >= self.options.max_rooms:
            raise RequestError(503, f"the server is full ({self.options.max_rooms} rooms, its limit); "
                                    "try again later")
        limit = self.options.limits.rooms_per_user
        if sum(1 for r in self.rooms.values() if r.user == name and not r.ending) >= limit:
            raise RequestError(429, f"{limit} rooms are open for {'you' if name else 'anonymous callers'} here "
                                    "(the limit per user): continue one with its session_id, or wait until one "
                                    "closes")

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "pid": os.getpid(), "draining": self.draining, "rooms": len(self.rooms),
                "max_rooms": self.options.max_rooms,
                "rooms_finished": len(self.finished), "uptime_secs": round(time.monotonic() - self._started, 1),
                "models_load_secs": self.models.load_secs, "language": self.config.language}

    async def run_room(self, room: Room, source: FrameProcessor, output: FrameProcessor | None, *,
                       mode: Literal["speech", "text"] = "speech",
                       on_turn: Callable[[Any], None] | None = None) -> Session | None:
        """One session from `source` to `output` (any transport's input and output), until it
        ends. `on_turn`: the way in's own step once a turn is answered (a text room's caller waits).
        A spoken room records reply.wav and heard.wav: recorders go after the input and before
        the output (each pair a pipeline of its own, so the session's stages stay as they are)."""

        room.source = source
        watchdog: asyncio.Task | None = None
        session: Session | None = None
        # A spoken room keeps what `talk` keeps: reply.wav and heard.wav beside the trace.
        recording = RoomRecording(room.out_dir) if mode == "speech" else None
        try:
            long_term = None if room.no_history else await asyncio.to_thread(
                user_memory, self.config, self.models, room.user or None, self.options.store_path)
            spec = SessionSpec(self.config, self.models, room.out_dir, session_id=room.session_id,
                               store=open_store(self.config, self.options.store_path), long_term=long_term,
                               taps=(room.tap,), mode=mode)
            language = self.config.language

            def started(session: Session) -> None:
                room.session = session
                room.tap.memory = session.memory
                room.tap.language = language
                room.tap.watch_voice(session.processors.playout)
                room.tap.send(SessionStarted(session_id=room.session_id, user=room.user, opening=session.opening,
                                             no_history=room.no_history, language=language))
                if session.memory is not None:
                    room.tap.send(StateUpdate.of(0, session.memory.state, schema=session.memory.schema,
                                                 language=language))

            def turn_done(turn: Any, _memory: Any) -> None:
                if turn.turn_id > 0:
                    room.turns_done += 1
                    room.answered.add(turn.turn_id)
                room.tap.send(AgentReply.of(turn, schema=room.tap.schema, language=language))
                if on_turn is not None:
                    on_turn(turn)

            watchdog = asyncio.create_task(watch_idle(room, self.options.idle_secs, self.end_room),
                                           name=f"idle-{room.session_id}")
            if recording is not None:
                source = Pipeline([source, recording.heard])
                output = Pipeline([recording.voice, *([output] if output is not None else [])])
            # Every line the session's pipeline logs (its tasks and threads inherit the context)
            # carries its id: `--log-format json` writes it as `session_id`.
            with logger.contextualize(session_id=room.session_id):
                session = await run_session(spec, source, output,
                                            hooks=SessionHooks(on_start=started, on_turn=turn_done))
        finally:
            if recording is not None:
                recording.close()
            if watchdog is not None:
                watchdog.cancel()
            if self.rooms.get(room.session_id) is room:
                del self.rooms[room.session_id]
            self.finished.append(room)
            ended = room.ending or "its pipeline ended"
            logger.info(f"{room.label}: ended ({ended}) after {time.monotonic() - room.started:.0f} s, "
                        f"{room.turns_done} turn(s) answered; record in {room.out_dir}")
        return session

    async def end_room(self, room: Room, reason: str, *, at_once: bool = False, tell: bool = True) -> None:
        """Ask the room to end: the reply in flight finishes, then the session closes; a room
        that does not end within END_GRACE_SECS is cancelled. `at_once`: cancel it now (its
        peer is gone); what was said so far is still recorded and committed."""
        if room.ending or room.source is None:
            return
        room.ending = reason
        if tell:                     # the page says why (not to a peer that has left)
            room.tap.send(RoomClosing(reason=reason))
        if at_once:
            await room.source.push_frame(CancelWorkerFrame(reason=reason))
            return
        await room.source.push_frame(EndWorkerFrame(reason=reason))
        asyncio.get_running_loop().call_later(END_GRACE_SECS, self._force_end, room)

    def _force_end(self, room: Room) -> None:
        if room.task is None or room.task.done() or room.source is None:
            return
        logger.warning(f"{room.label}: did not end within {END_GRACE_SECS:.0f} s of '{room.ending}'; cancelling it")
        cancel = asyncio.ensure_future(room.source.push_frame(CancelWorkerFrame(reason=room.ending)))
        self._cancelling.add(cancel)          # a task only the loop refers to may be collected mid-way
        cancel.add_done_callback(self._cancelling.discard)
        asyncio.get_running_loop().call_later(END_GRACE_SECS, lambda: room.task is not None and room.task.cancel())

    async def close(self) -> None:
        """End every room (the server is stopping: SIGTERM, Ctrl-C). It drains: no new session
        starts, each room finishes the reply in flight (and commits it) and then ends, within
        END_GRACE_SECS."""
        self.draining = True
        for room in list(self.rooms.values()):
            await self.end_room(room, "the server is stopping")
        tasks = [r.task for r in self.rooms.values() if r.task is not None]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=END_GRACE_SECS)
            for task in pending:
                task.cancel()
