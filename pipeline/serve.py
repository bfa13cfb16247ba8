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
from fastapi.responses import FileResponse, JSONResponse, Response
from loguru import logger
from pipecat.frames.frames import CancelWorkerFrame, EndWorkerFrame
from pipecat.processors.frame_processor import FrameProcessor
from pydantic import BaseModel, Field, ValidationError

from monologue.configs import MonologueConfig
from monologue.memory.stores.access import SESSION_ID_PATTERN, SqlAccessStore
from monologue.pipeline.builder import AgentModels, new_session_id, open_store, stores, user_memory
from monologue.pipeline.front_door import COOKIE, AuthMode, FrontDoor, Limits, RequestError, parse_body
from monologue.pipeline.panel import AgentReply, PanelTap, RoomClosing, SessionStarted, StateUpdate
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session
from monologue.pipeline.text_rooms import (
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
    auth: AuthMode = "open"             # "tokens": every request carries a user's credential (front_door.py)
    limits: Limits = field(default_factory=Limits)


class OfferRequest(BaseModel):
    """The page's offer: pipecat's SmallWebRTC request, plus the user's name (which counts only
    on a server without credentials)."""

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


def caller_name(named: str, caller: str | None) -> str:
    """Who a request is from: the verified `caller` (a server with credentials), or the name
    the request gives (a server without). A request whose name is not its credential's is
    refused rather than quietly answered as someone."""
    if caller is None:
        return user_id(named)
    if named and user_id(named) != caller:
        raise RequestError(403, f"the request names user {user_id(named)!r}, but its credential is {caller!r}'s; "
                                "leave `user` out (the credential says who you are)")
    return caller


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
        self._access: SqlAccessStore | None = None
        self.door = FrontDoor(self.options.auth, self.access if self.options.auth == "tokens" else None,
                              self.options.limits)
        self._peers: dict[str, str] = {}       # peer connection id → its user (renegotiation and ICE are theirs only)

    @property
    def access(self) -> SqlAccessStore:
        """Credentials and session owners, in the shared store (every worker sees the same)."""
        if self._access is None:
            self._access = stores(self.config, self.options.store_path).access
        return self._access

    # --- requests -------------------------------------------------------------------------

    async def offer(self, body: Any, caller: str | None = None) -> dict[str, str]:
        """A page's offer → the answer; a new room starts for a new peer connection. `caller`:
        the verified user (a server with credentials), else the offer's own name counts."""
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
        name = caller_name(request.user, caller)
        if request.pc_id and request.pc_id in self._peers and self._peers[request.pc_id] != name:
            raise RequestError(403, f"peer connection {request.pc_id} is another user's")
        self.door.pace(name)
        if not request.pc_id:
            self._check_room_limits(name)
        no_history = request.no_history
        if request.session_id and request.session_id in self.rooms:
            if self.rooms[request.session_id].user != name:
                raise RequestError(403, f"session {request.session_id} is another user's")
            raise RequestError(409, f"session {request.session_id} is still open in a room here; close it first")
        resume = request.session_id
        if resume:
            await self._claim(resume, name, continuing=True)

        async def start_room(connection: Any) -> None:
            self._peers[connection.pc_id] = name
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

    async def patch(self, body: Any, caller: str | None = None) -> dict[str, str]:
        """Trickle ICE for a peer connection; only its own user's (with credentials) may add to it."""
        from fastapi import HTTPException
        from pipecat.transports.smallwebrtc.request_handler import IceCandidate, SmallWebRTCPatchRequest

        try:
            request = PatchRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad ICE candidates ({_problems(exc)})") from None
        if caller is not None and self._peers.get(request.pc_id) != caller:
            raise RequestError(404, f"no peer connection {request.pc_id} of yours here")
        try:
            await self._handler.handle_patch_request(SmallWebRTCPatchRequest(
                pc_id=request.pc_id, candidates=[IceCandidate(c.candidate, c.sdp_mid, c.sdp_mline_index)
                                                 for c in request.candidates]))
        except HTTPException as exc:
            raise RequestError(exc.status_code, f"{exc.detail}: {request.pc_id}") from None
        except Exception as exc:
            raise RequestError(400, f"bad ICE candidate ({type(exc).__name__}: {exc})") from None
        return {"status": "success"}

    async def chat(self, body: Any, caller: str | None = None) -> dict[str, Any]:
        """One typed turn → the reply. A new session without `session_id`; with it, the session
        goes on: in its text room here, or taken up from the shared stores (another worker's).
        `caller`: the verified user (a server with credentials), else the request's `user`."""
        try:
            request = ChatRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad chat turn ({_problems(exc)}); send JSON {{text, session_id?, user?}}") \
                from None
        name = caller_name(request.user, caller)
        self.door.pace(name)
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
        if room is not None and name != room.user:      # whatever the request leaves out
            raise RequestError(403, f"session {session_id} is another user's")
        if room is not None and room.typed is None:
            raise RequestError(409, f"session {session_id} is open in a voice room here; close it first")
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
        self._check_room_limits(name)
        if session_id:
            await self._claim(session_id, name, continuing=True)
            room = self.rooms.get(session_id)           # opened by another request meanwhile
            if room is not None and not room.ending and room.typed is not None:
                return room
            if room is not None:
                raise RequestError(409, f"session {session_id} is busy in another room here; send the turn again")
        return self._open_text_room(name, no_history, session_id)

    def _check_room_limits(self, name: str) -> None:
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

    async def _claim(self, session_id: str, name: str, *, continuing: bool) -> None:
        """Make `session_id` `name`'s, or refuse: a session belongs to whoever opened it, on
        every worker and after restarts (the owner is kept in the shared store)."""
        def claim() -> str:
            if continuing and self.access.owner(session_id) is None:
                # A session from before owners were kept: its long-term memory says whose it was.
                earlier = self._users_of(session_id)
                if earlier:
                    self.access.claim(session_id, earlier[0])
            return self.access.claim(session_id, name)
        try:
            owner = await asyncio.to_thread(claim)
        except Exception as exc:       # the store out of reach: nobody can be shown to own it
            logger.warning(f"session {session_id}: its owner could not be checked ({exc})")
            raise RequestError(503, "the session store is out of reach; try again shortly") from None
        if owner != name:
            raise RequestError(403, f"session {session_id} is another user's")

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
        if not resume:
            self.access.claim(session_id, user)      # a new id: nobody else can hold it
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
        if not resume:
            self.access.claim(session_id, user)      # a new id: nobody else can hold it
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

STATIC_FILES = {"room.js": "text/javascript", "room.css": "text/css", "login.js": "text/javascript"}


class LoginRequest(BaseModel):
    token: str = Field(min_length=1, max_length=200)


def _body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """An endpoint's JSON body in the OpenAPI document (the endpoints read the body themselves,
    to check its size and depth first): what a client, or a fuzzer, is told to send."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    schema.pop("$defs", None)
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def make_app(server: RoomServer) -> Any:
    """The FastAPI app: the page (behind a login on a server with credentials), its assets,
    health, the typed turn, and the WebRTC offer endpoints."""
    from fastapi import FastAPI
    from fastapi.openapi.utils import get_openapi

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await server.close()

    app = FastAPI(title="Monologue rooms", lifespan=lifespan, docs_url=None, redoc_url=None)
    no_cache = {"Cache-Control": "no-cache"}
    door = server.door

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version="1", routes=app.routes)
            document.setdefault("components", {}).setdefault("schemas", {})["IceCandidateIn"] = \
                IceCandidateIn.model_json_schema()
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    async def caller_of(request: Request) -> str | None:
        """The request's verified user; the token lookup is a store query (a round trip to
        PostgreSQL on a deployment), so it runs off the event loop."""
        if door.mode == "open":
            return None
        return await asyncio.to_thread(door.caller, request.headers.get("authorization", ""),
                                       request.cookies.get(COOKIE, ""))

    def refused(request: Request, exc: RequestError) -> JSONResponse:
        logger.warning(f"{request.method} {request.url.path} refused ({exc.status}): {exc.message}")
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)

    async def read_body(request: Request) -> Any:
        """The JSON body, read no further than the size limit, checked for depth before parsing."""
        limit = door.limits.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise RequestError(413, f"the body is {int(declared):,} bytes, over the limit of {limit:,}")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise RequestError(413, f"the body is over the limit of {limit:,} bytes")
        return parse_body(bytes(raw), door.limits)

    async def answer(call: Any, request: Request) -> JSONResponse:
        try:
            caller = await caller_of(request)
            if caller is not None and "authorization" not in request.headers and \
                    not request.headers.get("content-type", "").startswith("application/json"):
                # Signed in by the page's cookie: only the page's own JSON requests count (a form on
                # another site cannot send this content type without the browser asking first).
                raise RequestError(415, "send the body as application/json")
            return JSONResponse(await call(await read_body(request), caller))
        except RequestError as exc:
            return refused(request, exc)

    @app.get("/", include_in_schema=False)
    async def page(request: Request) -> FileResponse:
        try:
            await caller_of(request)
        except RequestError:
            return FileResponse(WEB_DIR / "login.html", media_type="text/html", headers=no_cache)
        return FileResponse(WEB_DIR / "index.html", media_type="text/html", headers=no_cache)

    @app.post("/api/login", openapi_extra=_body_schema(LoginRequest))
    async def login(request: Request) -> JSONResponse:
        """A token for the page: checked, then kept in an HttpOnly cookie (script cannot read it)."""
        try:
            body = LoginRequest.model_validate(await read_body(request))
            if door.mode == "open":
                raise RequestError(400, "this server has no credentials: there is nothing to log in to")
            user = door.caller(f"Bearer {body.token}", "")
        except ValidationError as exc:
            return refused(request, RequestError(400, f"bad login ({_problems(exc)}); send JSON {{token}}"))
        except RequestError as exc:
            return refused(request, exc)
        response = JSONResponse({"user": user})
        response.set_cookie(COOKIE, body.token, httponly=True, samesite="strict", path="/",
                            secure=request.url.scheme == "https", max_age=30 * 86400)
        return response

    @app.post("/api/logout")
    async def logout() -> JSONResponse:
        response = JSONResponse({"user": None})
        response.delete_cookie(COOKIE, path="/")
        return response

    @app.get("/api/me")
    async def me(request: Request) -> JSONResponse:
        """Who the page is signed in as (mode "tokens"); in mode "open" the page asks for a name."""
        try:
            return JSONResponse({"auth": door.mode, "user": await caller_of(request)})
        except RequestError as exc:
            return refused(request, exc)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)      # no icon; and no 404 in the browser's console

    @app.get("/static/{name}", include_in_schema=False)
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

    @app.post("/api/chat", openapi_extra=_body_schema(ChatRequest))
    async def chat(request: Request) -> JSONResponse:
        return await answer(server.chat, request)

    @app.post("/api/offer", openapi_extra=_body_schema(OfferRequest))
    async def offer(request: Request) -> JSONResponse:
        return await answer(server.offer, request)

    @app.patch("/api/offer", openapi_extra=_body_schema(PatchRequest))
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
