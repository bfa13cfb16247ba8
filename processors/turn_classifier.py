"""Turn classifier: labels each user turn information change / confirmation / chit-chat."""

from __future__ import annotations

import time
from collections.abc import Callable

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.turn_classes import classify_turn
from monologue.processors.frames import Classification, UserTurnFrame


class TurnClassifierProcessor(FrameProcessor):
    """One job: set `turn.turn_class` on each `UserTurnFrame` and count the share of
    turns that trigger the monologue (seed 000 §3.1 expects 30–50%)."""

    def __init__(self, reads_condition: Callable[[str], bool] | None = None, *,
                 schema: DomainSchema | None = None) -> None:
        super().__init__()
        if reads_condition is None and schema is not None:
            # The same schema as the state's: a turn with a value for any slot is never chit-chat.
            reads_condition = RuleExtractor(schema).reads_condition
        self._reads_condition = reads_condition
        self._schema = schema
        self.turns = 0
        self.triggered = 0

    @property
    def triggered_share(self) -> float:
        return self.triggered / self.turns if self.turns else 0.0

    def _count(self, triggers: int) -> None:
        self.turns += 1
        self.triggered += triggers

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserTurnFrame):
            started = time.perf_counter()
            result = classify_turn(frame.turn.text, self._reads_condition, schema=self._schema)
            frame.turn.turn_class = result.turn_class
            frame.turn.classifier = Classification(list(result.cues), result.turn_class.triggers_monologue)
            triggers = int(result.turn_class.triggers_monologue)
            # A draft counts once it stands (a dropped one was never a turn).
            frame.turn.when_stands(lambda: self._count(triggers))
            frame.turn.compute["classifier"] = time.perf_counter() - started
            frame.turn.mark("classified", time.perf_counter())
        await self.push_frame(frame, direction)
