"""WebRTC signalling: the page's SDP offer → our answer, and trickle ICE. A new peer
connection opens a browser room that runs once the peer has connected.

aiortc (through pipecat's SmallWebRTC) is imported only where it is used: a text-only
worker and the tests that do not speak WebRTC do without it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Literal

from fastapi import HTTPException
from loguru import logger
from pydantic import BaseModel, Field, ValidationError

from monologue.configs import MonologueConfig
from monologue.memory.stores.access import SESSION_ID_PATTERN
from monologue.pipeline.builder import AgentModels, new_session_id
from monologue.pipeline.front_door import FrontDoor, RequestError
from monologue.pipeline.server.request_checks import caller_name, validation_problems
from monologue.pipeline.server.room import Room
from monologue.pipeline.server.rooms import RoomHost
from monologue.pipeline.server.takeover import SessionClaims

CONNECT_TIMEOUT_SECS = 30.0     # the browser's ICE/DTLS handshake, after the answer was sent


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


class WebRTCSignalling:
    """Offers and ICE candidates of the browser rooms on one `RoomHost`."""

    def __init__(self, host: RoomHost, claims: SessionClaims, door: FrontDoor) -> None:
        from pipecat.transports.smallwebrtc.request_handler import SmallWebRTCRequestHandler

        self._host = host
        self._claims = claims
        self._door = door
        self._handler = SmallWebRTCRequestHandler()
        self.peers: dict[str, str] = {}        # peer connection id → its user (renegotiation and ICE are theirs only)

    async def offer(self, body: Any, caller: str | None = None) -> dict[str, str]:
        """A page's offer → the answer; a new room starts for a new peer connection. `caller`:
        the verified user (a server with credentials), else the offer's own name counts."""
        from pipecat.transports.smallwebrtc.request_handler import SmallWebRTCRequest

        host = self._host
        try:
            request = OfferRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad offer ({validation_problems(exc)}); send JSON {{sdp, type: 'offer', user}}") \
                from None
        check_offer_sdp(request.sdp)
        if host.draining:
            raise RequestError(503, "this worker is shutting down; connect to another one")
        if host.models.asr is None or host.models.tts is None:
            raise RequestError(503, "this worker serves text only (started with --text-only): POST /api/chat, "
                                    "or connect to a worker with speech models")
        name = caller_name(request.user, caller)
        if request.pc_id and request.pc_id in self.peers and self.peers[request.pc_id] != name:
            raise RequestError(403, f"peer connection {request.pc_id} is another user's")
        self._door.pace(name)
        if not request.pc_id:
            host.check_room_limits(name)
        no_history = request.no_history
        if request.session_id and request.session_id in host.rooms:
            if host.rooms[request.session_id].user != name:
                raise RequestError(403, f"session {request.session_id} is another user's")
            raise RequestError(409, f"session {request.session_id} is still open in a room here; close it first")
        resume = request.session_id
        if resume:
            await self._claims.claim(resume, name, continuing=True)

        async def start_room(connection: Any) -> None:
            self.peers[connection.pc_id] = name
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
        from pipecat.transports.smallwebrtc.request_handler import IceCandidate, SmallWebRTCPatchRequest

        try:
            request = PatchRequest.model_validate(body)
        except ValidationError as exc:
            raise RequestError(400, f"bad ICE candidates ({validation_problems(exc)})") from None
        if caller is not None and self.peers.get(request.pc_id) != caller:
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

    def _open_room(self, connection: Any, user: str, no_history: bool = False, resume: str = "") -> None:
        host = self._host
        session_id = resume or new_session_id()
        if not resume:
            self._claims.access.claim(session_id, user)      # a new id: nobody else can hold it
        room = Room(session_id, user, host.options.out_dir / session_id, no_history=no_history)
        host.rooms[session_id] = room
        with logger.contextualize(session_id=session_id):   # the room's task inherits it
            room.task = asyncio.create_task(self._run_room(room, connection), name=f"room-{session_id}")
            logger.info(f"{room.label}: offer accepted (peer {connection.pc_id})"
                        + (" (continuing the session)" if resume else ""))

    async def _run_room(self, room: Room, connection: Any) -> None:
        from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport

        host = self._host
        try:
            if not await _connected_within(connection, CONNECT_TIMEOUT_SECS):
                logger.warning(f"{room.label}: the browser never connected within {CONNECT_TIMEOUT_SECS:.0f} s "
                               "(ICE/DTLS failed: a firewall, or the page was closed); room dropped")
                await connection.disconnect()
                return
            transport = SmallWebRTCTransport(connection, webrtc_params(host.config, host.models))

            @transport.event_handler("on_app_message")
            async def told(_transport: Any, message: Any, _sender: Any) -> None:
                # The page's Disconnect says goodbye first: the room stops, then the server
                # closes the connection, so the audio track is not read after the peer has gone.
                if isinstance(message, dict) and message.get("type") == "bye" and not room.ending:
                    where = room.mid_turn()
                    logger.info(f"{room.label}: the user left{' ' + where if where else ''}; ending the room")
                    await host.end_room(room, "the user left", at_once=True, tell=False)

            @transport.event_handler("on_client_disconnected")
            async def left(_transport: Any, _client: Any) -> None:
                if room.ending:
                    return          # said goodbye, or the room was already ending
                where = room.mid_turn()
                logger.info(f"{room.label}: the client disconnected{' ' + where if where else ''}; ending the room")
                # Nobody is left to hear the reply in flight: the room stops now, not after it.
                await host.end_room(room, "the client disconnected", at_once=True, tell=False)

            await host.run_room(room, transport.input(), transport.output())
        except Exception as exc:
            logger.opt(exception=exc).error(f"{room.label}: failed: {type(exc).__name__}: {exc}")
        finally:
            with contextlib.suppress(Exception):
                await connection.disconnect()

    async def close(self) -> None:
        """Close the peer connections (after the rooms have ended)."""
        await self._handler.close()


async def _connected_within(connection: Any, secs: float) -> bool:
    """Wait for the peer connection to connect, so the opening line is not spoken into nothing."""
    try:
        async with asyncio.timeout(secs):
            return await _connected(connection)
    except TimeoutError:
        return False


async def _connected(connection: Any) -> bool:
    """Whether the peer connection connects (rather than fails or closes), once it has done either."""
    while True:
        state = connection.pc.connectionState
        if state == "connected":
            return True
        if state in ("failed", "closed"):
            return False
        await asyncio.sleep(0.05)
