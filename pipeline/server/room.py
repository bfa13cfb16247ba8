"""One room: a live session, who is in it, where its record goes, and how it ends."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pipecat.processors.frame_processor import FrameProcessor

from monologue.pipeline.panel import PanelTap
from monologue.pipeline.session import Session
from monologue.pipeline.text_rooms import TypedTurns

TransportKind = Literal["webrtc", "daily", "livekit"]


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
    answered: set[int] = field(default_factory=set)   # user turns whose reply is done and traced
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
        waiting = sorted(self.tap.heard - self.answered)
        if waiting:
            return f"while turn {waiting[0]} was being answered"
        return ""
