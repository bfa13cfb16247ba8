"""`RoomServer`: the rooms of one process (`RoomHost`) with the ways into them."""

from __future__ import annotations

from typing import Any

from monologue.configs import MonologueConfig
from monologue.memory.stores.access import SqlAccessStore
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.front_door import FrontDoor
from monologue.pipeline.server.chat_api import ChatApi
from monologue.pipeline.server.readiness import stores_ready
from monologue.pipeline.server.rooms import RoomHost, ServeOptions
from monologue.pipeline.server.signalling import WebRTCSignalling
from monologue.pipeline.server.takeover import SessionClaims


class RoomServer(RoomHost):
    """The rooms of one process, and the ways in: WebRTC offers (`signalling.py`), typed turns
    (`chat_api.py`), and readiness (`readiness.py`); who owns a session is `takeover.py`'s."""

    def __init__(self, config: MonologueConfig, models: AgentModels, options: ServeOptions | None = None) -> None:
        super().__init__(config, models, options)
        self.claims = SessionClaims(config, self.options.store_path)
        self.door = FrontDoor(self.options.auth, self.access if self.options.auth == "tokens" else None,
                              self.options.limits)
        self.webrtc = WebRTCSignalling(self, self.claims, self.door)
        self.text_chat = ChatApi(self, self.claims, self.door)

    @property
    def access(self) -> SqlAccessStore:
        """Credentials and session owners, in the shared store (every worker sees the same)."""
        return self.claims.access

    async def offer(self, body: Any, caller: str | None = None) -> dict[str, str]:
        return await self.webrtc.offer(body, caller)

    async def patch(self, body: Any, caller: str | None = None) -> dict[str, str]:
        return await self.webrtc.patch(body, caller)

    async def chat(self, body: Any, caller: str | None = None) -> dict[str, Any]:
        return await self.text_chat.chat(body, caller)

    async def readiness(self) -> tuple[bool, dict[str, Any]]:
        """Whether this worker can take a session now: it is not draining, and its stores answer
        within `options.ready_wait_secs`."""
        if self.draining:
            return False, {"error": "the worker is shutting down (draining its sessions)"}
        return await stores_ready(self.config, self.options.store_path, self.options.ready_wait_secs)

    async def close(self) -> None:
        """End every room (it drains, `RoomHost.close`), then close the peer connections."""
        await super().close()
        await self.webrtc.close()
