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
  use (pipecat's LLM and transcription frames); our tap reads `Turn`s directly.
The messages go out as `OutputTransportMessageUrgentFrame`s, so the same panel works over
Daily or LiveKit app messages.

`--transport daily|livekit` points one session at a Daily or LiveKit room (`remote.py`).

`POST /api/chat` is the same session by text: each call is one user turn and returns the
reply (the same processors, minus audio). It is how a script, a load test or another service
talks to a worker, and how a client whose worker died carries on elsewhere: with the
session's id, any worker sharing `store.url`/`state.url` continues its state and its
conversation window.

This module is the HTTP app: the page, its assets and the endpoints, over a `RoomServer`.
The server's parts, one job each, are in `pipeline/server/` (its `__init__` lists them).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, Request  # at module level: FastAPI reads the endpoints' annotations by name
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response
from loguru import logger
from pydantic import BaseModel, Field, ValidationError

from monologue.pipeline.front_door import COOKIE, RequestError, parse_body
from monologue.pipeline.server.request_checks import validation_problems
from monologue.pipeline.server.room_server import RoomServer
from monologue.pipeline.server.rooms import END_GRACE_SECS
from monologue.pipeline.server.signalling import IceCandidateIn, OfferRequest, PatchRequest
from monologue.pipeline.text_rooms import ChatRequest

WEB_DIR = Path(__file__).resolve().parent / "web"

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
            return refused(request, RequestError(400, f"bad login ({validation_problems(exc)}); send JSON {{token}}"))
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
    # On SIGTERM or Ctrl-C uvicorn stops listening, lets requests in flight (a typed turn)
    # finish, then the app's lifespan drains the rooms (`RoomServer.close`).
    config = uvicorn.Config(make_app(server), log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=int(END_GRACE_SECS))

    class DrainingServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            server.draining = True     # from the signal on: turns in flight finish, no new session starts
            super().handle_exit(sig, frame)

    DrainingServer(config).run(sockets=[sock])
