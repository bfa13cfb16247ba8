"""Monologue/state stage: the slot where the inner monologue updates working memory.

For now it records the user's turn in the conversation log and leaves the
monologue empty; the working-memory engine (memory/) plugs in through
`MonologueEngine` without touching the pipeline.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from memory.conversation import ConversationLog
from processors.frames import UserTurnFrame


class MonologueEngine(Protocol):
    def update(self, text: str, turn_class: str, turn_id: int) -> dict[str, Any]: ...


class RecordOnlyEngine:
    """Keeps no state: the monologue is empty until working memory lands."""

    def update(self, text: str, turn_class: str, turn_id: int) -> dict[str, Any]:
        return {"text": "", "state_before": None, "state_after": None, "skipped": True}


class MonologueProcessor(FrameProcessor):
    """One job: record the user turn and run the monologue engine on it."""

    def __init__(self, log: ConversationLog, engine: MonologueEngine | None = None) -> None:
        super().__init__()
        self._log = log
        self._engine: MonologueEngine = engine or RecordOnlyEngine()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            turn = frame.turn
            started = time.perf_counter()
            turn.monologue = self._engine.update(turn.text, turn.turn_class, turn.turn_id)
            turn.compute["monologue"] = time.perf_counter() - started
            turn.mark("monologue_done", time.perf_counter())
            self._log.add("user", turn.text, turn.turn_id)
        await self.push_frame(frame, direction)
