"""`monologue serve --transport daily|livekit`: one session in a Daily or LiveKit room.

The same pipeline and panel as a browser room (`serve.py`), pointed at pipecat's Daily
or LiveKit transport instead of SmallWebRTC. Monologue joins the room as a participant
("Monologue"), answers whoever speaks, and ends its session when the last other
participant leaves or on Ctrl-C. Panel messages go out as the provider's app/data
messages. Neither service can be reached from the machines this was built on: the wiring
is tested with fake transports (tests/test_serve.py), not against the services.

    Daily:   DAILY_ROOM_URL (the room to join), and DAILY_TOKEN (a meeting token) or
             DAILY_API_KEY (a token is minted for the room); a public room needs neither.
    LiveKit: LIVEKIT_URL (wss://…), LIVEKIT_ROOM (or LIVEKIT_ROOM_NAME), and LIVEKIT_TOKEN
             or LIVEKIT_API_KEY + LIVEKIT_API_SECRET (a token is generated locally).
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Mapping
from typing import Any

from loguru import logger

from monologue.configs import ConfigError, MonologueConfig
from monologue.pipeline.builder import AgentModels, new_session_id
from monologue.pipeline.server.request_checks import user_id
from monologue.pipeline.server.room import Room, TransportKind
from monologue.pipeline.server.room_server import RoomServer

BOT_NAME = "Monologue"
EXTRA = {"daily": "pip install 'monologue[daily]'  (pipecat-ai[daily]==1.14.0)",
         "livekit": "pip install 'monologue[livekit]'  (pipecat-ai[livekit]==1.14.0)"}


def transport_module(kind: TransportKind) -> Any:
    try:
        return importlib.import_module(f"pipecat.transports.{kind}.transport")
    except Exception as exc:   # pipecat raises a bare Exception when the extra is missing
        raise ConfigError(f"--transport {kind} needs pipecat's {kind} transport: {EXTRA[kind]} "
                          f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None


def _need(environ: Mapping[str, str], *names: str) -> str:
    for name in names:
        if environ.get(name):
            return environ[name]
    raise ConfigError(f"set {' or '.join(names)} for this room (see `monologue serve --help`)")


def _params(module: Any, class_name: str, config: MonologueConfig, models: AgentModels) -> Any:
    """The provider's params: 16 kHz mono in, the voice's rate out, no VAD analyser (ours runs)."""
    return getattr(module, class_name)(
        audio_in_enabled=True, audio_in_sample_rate=config.audio.sample_rate, audio_in_channels=1,
        audio_out_enabled=True, audio_out_channels=1,
        audio_out_sample_rate=models.tts.sample_rate if models.tts is not None else None)


async def daily_token(room_url: str, api_key: str) -> str:
    """A meeting token for `room_url`, minted with the Daily REST API."""
    import aiohttp
    from pipecat.transports.daily.utils import DailyRESTHelper

    async with aiohttp.ClientSession() as http:
        helper = DailyRESTHelper(daily_api_key=api_key, aiohttp_session=http)
        return str(await helper.get_token(room_url, expiry_time=4 * 3600))


def livekit_token(room: str, api_key: str, api_secret: str) -> str:
    from pipecat.runner.livekit import generate_token

    return str(generate_token(room, BOT_NAME, api_key, api_secret))


async def remote_transport(kind: TransportKind, config: MonologueConfig, models: AgentModels,
                           environ: Mapping[str, str] | None = None) -> Any:
    """The Daily or LiveKit transport for the room the environment names."""
    env = os.environ if environ is None else environ
    module = transport_module(kind)
    if kind == "daily":
        room_url = _need(env, "DAILY_ROOM_URL")
        token = env.get("DAILY_TOKEN") or ""
        if not token and env.get("DAILY_API_KEY"):
            token = await daily_token(room_url, env["DAILY_API_KEY"])
        return module.DailyTransport(room_url, token or None, BOT_NAME,
                                     params=_params(module, "DailyParams", config, models))
    url = _need(env, "LIVEKIT_URL")
    room_name = _need(env, "LIVEKIT_ROOM", "LIVEKIT_ROOM_NAME")
    token = env.get("LIVEKIT_TOKEN") or ""
    if not token:
        token = livekit_token(room_name, _need(env, "LIVEKIT_API_KEY"), _need(env, "LIVEKIT_API_SECRET"))
    return module.LiveKitTransport(url, token, room_name, params=_params(module, "LiveKitParams", config, models))


async def run_remote_room(server: RoomServer, kind: TransportKind, user: str = "",
                          environ: Mapping[str, str] | None = None) -> Room:
    """Join the Daily/LiveKit room and run one session there until the others leave."""
    transport = await remote_transport(kind, server.config, server.models, environ)
    session_id = new_session_id()
    room = Room(session_id, user_id(user), server.options.out_dir / session_id)
    server.rooms[session_id] = room
    room.task = asyncio.current_task()

    @transport.event_handler("on_participant_left")
    async def left(_transport: Any, participant: Any, *_reason: Any) -> None:
        logger.info(f"{room.label}: a participant left the {kind} room; ending the session")
        await server.end_room(room, "the participant left")

    logger.info(f"{room.label}: joining the {kind} room as {BOT_NAME}")
    await server.run_room(room, transport.input(), transport.output())
    return room
