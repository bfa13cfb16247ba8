"""`monologue serve`: live rooms in a browser, each one a session with its own state panel.

One process serves the page and any number of rooms. Models load once (`load_models`)
and every room shares them; each browser connection is its own session, with its own
working memory (in the configured SQLite store), its own record in `OUT/<session_id>/`
(trace.jsonl, transcript.txt) and the long-term memory of the name the page sends. A
room runs through `run_session`, the same processors as replay and talk:

    browser mic ─WebRTC→ SmallWebRTC input (16 kHz mono) → VAD → ASR → … → monologue
        → PanelTap → reply → TTS → playout → SmallWebRTC output (22,050 Hz) ─→ browser

The transport gets no VAD analyser (ours is in the pipeline) and no RTVI processor.

Panel messages are our own small typed messages (`panel.py`), not pipecat's RTVI, because:
- the panel's content (goal, conditions, pending questions, operations with reasons, the
  state version a reply was built on) has no RTVI message of its own: it would all travel
  as opaque `server-message` payloads anyway;
- RTVI's value is its client library, and the page is plain JS served offline (no CDN, no
  bundle); speaking RTVI by hand would mean following its handshake (client-ready,
  bot-ready) for nothing the page uses;
- RTVI needs its processor and observer in the pipeline, watching frames Monologue does not
  use (pipecat's LLM and transcription frames); our tap reads `TurnRecord`s directly.
The messages go out as `OutputTransportMessageUrgentFrame`s, so the same panel works over
Daily or LiveKit app messages.

`--transport daily|livekit` points one session at a Daily or LiveKit room (`remote.py`).

`POST /api/chat` is the same session by text: each call is one user turn and returns the
reply (the same processors, minus audio). It is how a script, a load test or another service
talks to a worker, and how a client whose worker died carries on elsewhere: with the
session's id, any worker sharing `store.url`/`state.url` continues its state and its
conversation window.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fastapi import Request  # at module level: FastAPI reads the endpoints' annotations by name
from loguru import logger
from pipecat.frames.frames import CancelWorkerFrame, EndWorkerFrame
from pipecat.processors.frame_processor import FrameProcessor
from pydantic import BaseModel, Field, ValidationError

from monologue.configs import MonologueConfig
from monologue.pipeline.builder import AgentModels, new_session_id, open_store, user_memory
from monologue.pipeline.panel import AgentReply, PanelTap, RoomClosing, SessionStarted, StateUpdate
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session
from monologue.pipeline.text_rooms import (
    SESSION_ID_PATTERN,
    TRANSCRIPT_WAIT_SECS,
    ChatRequest,
    SessionEnded,
    TypedTurns,
)

WEB_DIR = Path(__file__).resolve().parent / "web"
TransportKind = Literal["webrtc", "daily", "livekit"]

CONNECT_TIMEOUT_SECS = 30.0     # the browser's ICE/DTLS handshake, after the answer was sent
END_GRACE_SECS = 20.0           # a room asked to end finishes the reply in flight, or is cancelled
READY_TIMEOUT_SECS = 3.0        # a readiness probe that waits longer says "not ready"


@dataclass(frozen=True)
class ServeOptions:
    out_dir: Path = Path("out/serve")
    store_path: str | None = None       # None: store.path from the config
    idle_secs: float = 600.0            # a room with no speech for this long is closed
    max_rooms: int = 16                 # more offers get HTTP 503: the machine has its limits


class OfferRequest(BaseModel):
    """The page's offer: pipecat's SmallWebRTC request, plus the user's name."""

    sdp: str = Field(min_length=1)
    type: Literal["offer"]
    pc_id: str | None = None
    restart_pc: bool | None = None
    user: str = Field(default="", max_length=64)
    no_history: bool = False            # off the record: long-term memory neither read nor written (U2)
    # A client reconnecting (to this worker or another, sharing state.url) continues its session:
    # the same working state. Empty: a new session.
    session_id: str = Field(default="", max_length=64, pattern=SESSION_ID_PATTERN)


class IceCandidateIn(BaseModel):
    candidate: str
    sdp_mid: str
    sdp_mline_index: int


class PatchRequest(BaseModel):
    """Trickle ICE: candidates the page found after it sent its offer."""

    pc_id: str
    candidates: list[IceCandidateIn]


class RequestError(Exception):
    """A request the server refuses, with the HTTP status and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _problems(exc: ValidationError) -> str:
    """A request's validation errors, one clause each: where, and what is wrong."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())


def json_log_line(record: Any) -> str:
    """loguru format for `--log-format json`: one object a line, with the session the line is
    about (`session_id`, set for everything a room's pipeline logs) for a log collector."""
    import json

    extra = record["extra"]
    line = {"time": record["time"].isoformat(timespec="milliseconds"), "level": record["level"].name,
            "where": record["name"], "session_id": extra.get("session_id"), "message": record["message"]}
    if record["exception"] is not None:
        line["exception"] = f"{record['exception'].type.__name__}: {record['exception'].value}"
    extra["_json"] = json.dumps(line, ensure_ascii=False)
    return "{extra[_json]}\n"


def user_id(name: str) -> str:
    """The page's name as a user id: trimmed, inner spaces collapsed; '' keeps nothing."""
    return re.sub(r"\s+", " ", name).strip()


def check_offer_sdp(sdp: str) -> None:
    """Refuse an SDP that cannot start a room before a peer connection is made for it."""
    from aiortc.sdp import SessionDescription

    if not sdp.lstrip().startswith("v=0"):
        raise RequestError(400, "the offer's sdp is not SDP (it starts with 'v=0'): send the sdp of "
                                "RTCPeerConnection.createOffer()")
    try:
        parsed = SessionDescription.parse(sdp)
    except Exception as exc:
        raise RequestError(400, f"the SDP offer could not be read ({type(exc).__name__}: {exc}); "
                                "send the offer from RTCPeerConnection.createOffer()") from None
    if not any(media.kind == "audio" for media in parsed.media):
        raise RequestError(400, "the SDP offer has no audio: add the microphone track before creating the offer")


@dataclass
class Room:
    """One live session: who is in it, where its record goes, and how it ends."""

    session_id: str
    user: str
    out_dir: Path
    no_history: bool = False           # off the record: no long-term memory for this room
    tap: PanelTap = field(default_factory=PanelTap)
    source: FrameProcessor | None = None
    task: asyncio.Task | None = None
    started: float = field(default_factory=time.monotonic)
    ending: str = ""                   # why the room was asked to end ('' while it runs)
    turns_done: int = 0
    typed: TypedTurns | None = None    # a text room (`/api/chat`): where its turns come in
    session: Session | None = None     # once it started
    watchers: set[asyncio.Future[None]] = field(default_factory=set)   # per-turn checks still running

    @property
    def label(self) -> str:
        return f"room {self.session_id}" + (f" ({self.user})" if self.user else "")

    def mid_turn(self) -> str:
        """What the user was in the middle of, for the log when the room ends early."""
        if self.tap.speaking:
            return "while the user was speaking"
        if self.tap.turns_heard > self.turns_done:
            return f"while turn {self.tap.turns_heard} was being answered"
        return ""


def webrtc_params(config: MonologueConfig, models: AgentModels) -> Any:
    """16 kHz mono in (what our VAD needs); out at the voice's own rate, so pipecat does not
    resample it (aiortc's Opus encoder takes it to 48 kHz). No VAD analyser: ours is in the pipeline.
    No trailing silence when a room ends: pipecat's 2 s of it is 44,100 samples at 22,050 Hz,
    not a whole number of the 10 ms blocks SmallWebRTC takes, and its audio task fails on it."""
    from pipecat.transports.base_transport import TransportParams

    return TransportParams(audio_in_enabled=True, audio_in_sample_rate=config.audio.sample_rate,
                           audio_in_channels=1, audio_out_enabled=True,
                           audio_out_sample_rate=models.tts.sample_rate if models.tts is not None else None,
                           audio_out_channels=1, audio_out_end_silence_secs=0)


class RoomServer:
    """The rooms of one process: opens one per offer, ends them, and reports each."""

    def __init__(self, config: MonologueConfig, models: AgentModels, options: ServeOptions | None = None) -> None:
        from pipecat.transports.smallwebrtc.request_handler import SmallWebRTCRequestHandler

        self.config = config
        self.models = models
        self.options = options or ServeOptions()
        self.rooms: dict[str, Room] = {}
        self.finished: list[Room] = []         # ended rooms, newest last (tests and health read it)
        self._handler = SmallWebRTCRequestHandler()
        self._started = time.monotonic()
        self.draining = False                  # stopping: no new sessions, the turns in flight finish

    # --- requests -------------------------------------------------------------------------

    async def offer(self, body: Any) -> dict[str, str]:
        """A page's offer → the answer; a new room starts for a new peer connection."""
        from fastapi import HTTPException
        from pipecat.transports.smallwebrtc.request_handler import SmallWebRTCRequest

        try:
            request = OfferRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad offer ({_problems(exc)}); send JSON {{sdp, type: 'offer', user}}") from None
        check_offer_sdp(request.sdp)
        if self.draining:
            raise RequestError(503, "this worker is shutting down; connect to another one")
        if self.models.asr is None or self.models.tts is None:
            raise RequestError(503, "this worker serves text only (started with --text-only): POST /api/chat, "
                                    "or connect to a worker with speech models")
        if not request.pc_id and len(self.rooms) >= self.options.max_rooms:
            raise RequestError(503, f"the server is full ({self.options.max_rooms} rooms); try again later")
        name = user_id(request.user)
        no_history = request.no_history
        if request.session_id and request.session_id in self.rooms:
            raise RequestError(409, f"session {request.session_id} is still open in a room here; close it first")
        resume = request.session_id

        async def start_room(connection: Any) -> None:
            self._open_room(connection, name, no_history, resume)

        try:
            answer = await self._handler.handle_web_request(
                SmallWebRTCRequest(sdp=request.sdp, type=request.type, pc_id=request.pc_id,
                                   restart_pc=request.restart_pc), start_room)
        except HTTPException as exc:
            raise RequestError(exc.status_code, str(exc.detail)) from None
        except Exception as exc:
            raise RequestError(400, f"the offer was refused ({type(exc).__name__}: {exc})") from None
        if answer is None:
            raise RequestError(500, "no SDP answer was produced for the offer")
        return answer

    async def patch(self, body: Any) -> dict[str, str]:
        from fastapi import HTTPException
        from pipecat.transports.smallwebrtc.request_handler import IceCandidate, SmallWebRTCPatchRequest

        try:
            request = PatchRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad ICE candidates: {exc.errors()[0]['msg']}") from None
        try:
            await self._handler.handle_patch_request(SmallWebRTCPatchRequest(
                pc_id=request.pc_id, candidates=[IceCandidate(c.candidate, c.sdp_mid, c.sdp_mline_index)
                                                 for c in request.candidates]))
        except HTTPException as exc:
            raise RequestError(exc.status_code, f"{exc.detail}: {request.pc_id}") from None
        except Exception as exc:
            raise RequestError(400, f"bad ICE candidate ({type(exc).__name__}: {exc})") from None
        return {"status": "success"}

    async def chat(self, body: Any) -> dict[str, Any]:
        """One typed turn → the reply. A new session without `session_id`; with it, the session
        goes on: in its text room here, or taken up from the shared stores (another worker's)."""
        try:
            request = ChatRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad chat turn ({_problems(exc)}); send JSON {{text, session_id?, user?}}") \
                from None
        name = user_id(request.user)
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
            return {"session_id": room.session_id, "turn": turn.turn_id, "reply": turn.reply_text,
                    "state_version": turn.state_version, "error": turn.reply_error or None,
                    "recall": None if recall is None else ("timed_out" if recall.timed_out else "ok"),
                    "ms": round((time.perf_counter() - started) * 1000, 1)}
        raise RequestError(503, f"session {request.session_id} kept ending while the turn waited; send it again")

    async def _text_room(self, session_id: str, name: str, no_history: bool) -> Room:
        """The running text room of `session_id` here, or a new one (taking the session up)."""
        if self.draining:
            raise RequestError(503, "this worker is shutting down; send the turn to another one with the same "
                                    "session_id")
        room = self.rooms.get(session_id) if session_id else None
        if room is not None and room.typed is None:
            raise RequestError(409, f"session {session_id} is open in a voice room here; close it first")
        if room is not None and name and room.user and name != room.user:
            raise RequestError(403, f"session {session_id} is another user's")
        if room is not None and not room.ending and await asyncio.to_thread(self._taken_elsewhere, room):
            # Another worker answered this session since this room's last turn: this room's
            # window and turn numbers are behind. It ends; a new room takes the session up whole.
            logger.info(f"{room.label}: the session went on elsewhere; taking it up again from the stores")
            await self.end_room(room, "the session went on on another worker", tell=False)
        if room is not None and room.ending and room.task is not None:
            # Closing (idle, or behind): let it finish and commit, so the session continues from all of it.
            await asyncio.wait({room.task}, timeout=END_GRACE_SECS * 2)
            room = self.rooms.get(session_id)          # another request may have taken it up meanwhile
            if room is not None and room.ending:
                raise RequestError(503, f"session {session_id} is still closing here; send the turn again")
        if room is not None:
            return room
        if len(self.rooms) >= self.options.max_rooms:
            raise RequestError(503, f"the server is full ({self.options.max_rooms} rooms); try again later")
        if session_id:
            owners = await asyncio.to_thread(self._users_of, session_id)
            if owners and name and name not in owners:
                raise RequestError(403, f"session {session_id} is another user's")
            name = name or (owners[0] if owners else "")
        return self._open_text_room(name, no_history, session_id)

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
            await self.end_room(room, "the user asked to forget everything", tell=False)

    async def _lines_stored(self, room: Room) -> None:
        """Wait (a little) for the turn's lines to be kept beside the state: a worker taking the
        session up after this reply was acknowledged finds them in its window."""
        transcript = room.session.transcript if room.session is not None else None
        if transcript is not None:
            await asyncio.wait({asyncio.wrap_future(transcript.written())}, timeout=TRANSCRIPT_WAIT_SECS)

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "pid": os.getpid(), "draining": self.draining, "rooms": len(self.rooms),
                "max_rooms": self.options.max_rooms,
                "rooms_finished": len(self.finished), "uptime_secs": round(time.monotonic() - self._started, 1),
                "models_load_secs": self.models.load_secs, "language": self.config.language}

    async def readiness(self, timeout: float = READY_TIMEOUT_SECS) -> tuple[bool, dict[str, Any]]:
        """Whether this worker can take a session now: its stores answer (a load balancer asks
        `/api/ready` and sends no one to a worker whose database or Redis is out of reach)."""
        from monologue.memory.stores.redis_state import RedisStateStore
        from monologue.pipeline.builder import stores

        if self.draining:
            return False, {"error": "the worker is shutting down (draining its sessions)"}
        def probe() -> dict[str, Any]:
            started = time.perf_counter()
            kept = stores(self.config, self.options.store_path)
            kept.database.query("SELECT 1")
            if isinstance(kept.states, RedisStateStore):
                kept.states.ping()
            return {"stores_ms": round((time.perf_counter() - started) * 1000, 1), "store": kept.database.path}
        try:
            return True, await asyncio.wait_for(asyncio.to_thread(probe), timeout)
        except TimeoutError:
            return False, {"error": f"the stores did not answer within {timeout:.0f} s"}
        except Exception as exc:       # reported to the caller: readiness is where it shows
            return False, {"error": f"{type(exc).__name__}: {exc}"}

    # --- rooms ----------------------------------------------------------------------------

    def _taken_elsewhere(self, room: Room) -> bool:
        """Whether the stores hold a later turn of this session than the room last fed."""
        assert room.typed is not None
        memory = room.tap.memory           # the session's working memory, once it started
        if memory is None:
            return False
        try:
            said = memory.store.said(room.session_id, 1)
        except Exception as exc:          # the store is out of reach: go on with the room as it is
            logger.warning(f"{room.label}: could not check whether the session went on elsewhere ({exc})")
            return False
        return bool(said) and said[-1][2] > room.typed.last_turn

    def _users_of(self, session_id: str) -> list[str]:
        """Who the session belongs to, as long-term memory recorded it (first the one who began it)."""
        from monologue.pipeline.builder import stores

        try:
            return stores(self.config, self.options.store_path).profiles.users_of(session_id)
        except Exception as exc:          # unknown then: the turn goes on under the name it gives
            logger.warning(f"session {session_id}: its user could not be looked up ({exc})")
            return []

    def _open_text_room(self, user: str, no_history: bool, resume: str) -> Room:
        session_id = resume or new_session_id()
        room = Room(session_id, user, self.options.out_dir / session_id, no_history=no_history, typed=TypedTurns())
        self.rooms[session_id] = room
        with logger.contextualize(session_id=session_id):   # the room's task inherits it
            room.task = asyncio.create_task(self._run_text_room(room), name=f"text-{session_id}")
            logger.info(f"{room.label}: text session {'continued' if resume else 'opened'}")
        return room

    async def _run_text_room(self, room: Room) -> None:
        assert room.typed is not None
        try:
            await self.run_room(room, room.typed, None, mode="text")
        except Exception as exc:
            logger.opt(exception=exc).error(f"{room.label}: failed: {type(exc).__name__}: {exc}")
        finally:
            room.typed.fail_waiting(room.ending or "it failed")

    def _open_room(self, connection: Any, user: str, no_history: bool = False, resume: str = "") -> None:
        session_id = resume or new_session_id()
        room = Room(session_id, user, self.options.out_dir / session_id, no_history=no_history)
        self.rooms[session_id] = room
        with logger.contextualize(session_id=session_id):   # the room's task inherits it
            room.task = asyncio.create_task(self._run_webrtc_room(room, connection), name=f"room-{session_id}")
            logger.info(f"{room.label}: offer accepted (peer {connection.pc_id})"
                        + (" (continuing the session)" if resume else ""))

    async def _run_webrtc_room(self, room: Room, connection: Any) -> None:
        from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport

        try:
            if not await _connected(connection, CONNECT_TIMEOUT_SECS):
                logger.warning(f"{room.label}: the browser never connected within {CONNECT_TIMEOUT_SECS:.0f} s "
                               "(ICE/DTLS failed: a firewall, or the page was closed); room dropped")
                await connection.disconnect()
                return
            transport = SmallWebRTCTransport(connection, webrtc_params(self.config, self.models))

            @transport.event_handler("on_client_disconnected")
            async def left(_transport: Any, _client: Any) -> None:
                where = room.mid_turn()
                logger.info(f"{room.label}: the client disconnected{' ' + where if where else ''}; ending the room")
                # Nobody is left to hear the reply in flight: the room stops now, not after it.
                await self.end_room(room, "the client disconnected", at_once=True, tell=False)

            await self.run_room(room, transport.input(), transport.output())
        except Exception as exc:
            logger.opt(exception=exc).error(f"{room.label}: failed: {type(exc).__name__}: {exc}")
        finally:
            with contextlib.suppress(Exception):
                await connection.disconnect()

    async def run_room(self, room: Room, source: FrameProcessor, output: FrameProcessor | None, *,
                       mode: Literal["speech", "text"] = "speech") -> Session | None:
        """One session from `source` to `output` (any transport's input and output), until it ends."""

        room.source = source
        watchdog: asyncio.Task | None = None
        session: Session | None = None
        try:
            long_term = None if room.no_history else await asyncio.to_thread(
                user_memory, self.config, self.models, room.user or None, self.options.store_path)
            spec = SessionSpec(self.config, self.models, room.out_dir, session_id=room.session_id,
                               store=open_store(self.config, self.options.store_path), long_term=long_term,
                               taps=(room.tap,), mode=mode)

            def started(session: Session) -> None:
                room.session = session
                room.tap.memory = session.memory
                room.tap.send(SessionStarted(session_id=room.session_id, user=room.user, opening=session.opening,
                                             no_history=room.no_history))
                if session.memory is not None:
                    room.tap.send(StateUpdate.of(0, session.memory.state))

            def turn_done(turn: Any, _memory: Any) -> None:
                if turn.turn_id > 0:
                    room.turns_done += 1
                room.tap.send(AgentReply.of(turn))
                if room.typed is not None:
                    room.typed.answered(turn)
                    if room.session is not None and room.session.long_term is not None:
                        watcher = asyncio.ensure_future(self._end_if_forgotten(room))
                        room.watchers.add(watcher)
                        watcher.add_done_callback(room.watchers.discard)

            watchdog = asyncio.create_task(self._watch_idle(room), name=f"idle-{room.session_id}")
            # Every line the session's pipeline logs (its tasks and threads inherit the context)
            # carries its id: `--log-format json` writes it as `session_id`.
            with logger.contextualize(session_id=room.session_id):
                session = await run_session(spec, source, output,
                                            hooks=SessionHooks(on_start=started, on_turn=turn_done))
        finally:
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
        asyncio.ensure_future(room.source.push_frame(CancelWorkerFrame(reason=room.ending)))
        asyncio.get_running_loop().call_later(END_GRACE_SECS, lambda: room.task is not None and room.task.cancel())

    async def _watch_idle(self, room: Room) -> None:
        while True:
            await asyncio.sleep(min(5.0, self.options.idle_secs / 4))
            quiet = time.monotonic() - max(room.tap.last_heard, room.started)
            busy = room.tap.speaking or room.tap.turns_heard > room.turns_done
            # A turn stuck in a stage must not keep a room open forever: twice the limit closes it anyway.
            if quiet >= self.options.idle_secs * (2 if busy else 1):
                logger.info(f"{room.label}: no speech for {quiet:.0f} s (idle limit {self.options.idle_secs:.0f} s); "
                            "closing the room")
                await self.end_room(room, f"no speech for {quiet:.0f} s")
                return

    async def close(self) -> None:
        """End every room (the server is stopping: SIGTERM, Ctrl-C) and close the peer
        connections. It drains: no new session starts, each room finishes the reply in flight
        (and commits it) and then ends, within END_GRACE_SECS."""
        self.draining = True
        for room in list(self.rooms.values()):
            await self.end_room(room, "the server is stopping")
        tasks = [r.task for r in self.rooms.values() if r.task is not None]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=END_GRACE_SECS)
            for task in pending:
                task.cancel()
        await self._handler.close()


async def _connected(connection: Any, timeout: float) -> bool:
    """Wait for the peer connection to connect, so the opening line is not spoken into nothing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = connection.pc.connectionState
        if state == "connected":
            return True
        if state in ("failed", "closed"):
            return False
        await asyncio.sleep(0.05)
    return False


# --- the web app -------------------------------------------------------------------------

STATIC_FILES = {"room.js": "text/javascript", "room.css": "text/css"}


def make_app(server: RoomServer) -> Any:
    """The FastAPI app: the page, its two assets, health, and the WebRTC offer endpoints."""
    from fastapi import FastAPI
    from fastapi.responses import FileResponse, JSONResponse, Response

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await server.close()

    app = FastAPI(title="Monologue rooms", lifespan=lifespan, docs_url=None, redoc_url=None)
    no_cache = {"Cache-Control": "no-cache"}

    @app.get("/")
    async def page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html", headers=no_cache)

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)      # no icon; and no 404 in the browser's console

    @app.get("/static/{name}")
    async def asset(name: str) -> Any:
        if name not in STATIC_FILES:
            return JSONResponse({"error": f"no such file: {name}"}, status_code=404)
        return FileResponse(WEB_DIR / name, media_type=STATIC_FILES[name], headers=no_cache)

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return server.health()

    @app.get("/api/ready")
    async def ready() -> JSONResponse:
        ok, detail = await server.readiness()
        return JSONResponse({"ready": ok, **detail}, status_code=200 if ok else 503)

    async def answer(call: Any, request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not JSON; send a JSON object"}, status_code=400)
        try:
            return JSONResponse(await call(body))
        except RequestError as exc:
            logger.warning(f"{request.method} {request.url.path} refused ({exc.status}): {exc.message}")
            return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.post("/api/chat")
    async def chat(request: Request) -> JSONResponse:
        return await answer(server.chat, request)

    @app.post("/api/offer")
    async def offer(request: Request) -> JSONResponse:
        return await answer(server.offer, request)

    @app.patch("/api/offer")
    async def ice_candidates(request: Request) -> JSONResponse:
        return await answer(server.patch, request)

    return app


def serve(server: RoomServer, sock: socket.socket) -> None:
    """Serve rooms on `sock` until Ctrl-C."""
    import uvicorn

    # On SIGTERM or Ctrl-C uvicorn stops listening, lets requests in flight (a typed turn)
    # finish, then the app's lifespan drains the rooms (`RoomServer.close`).
    config = uvicorn.Config(make_app(server), log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=int(END_GRACE_SECS))

    class DrainingServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            server.draining = True     # from the signal on: turns in flight finish, no new session starts
            super().handle_exit(sig, frame)

    DrainingServer(config).run(sockets=[sock])
