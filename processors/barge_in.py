"""Barge-in: decides what the user's speech over the agent means, once its words are known (P6).

The playout holds the agent's voice the moment the VAD hears the user (`AgentPausedFrame`
comes upstream). Here, after ASR, the turn is judged: a short backchannel ("mm-hm", "okay",
嗯, 对) lets the agent go on and is not answered; anything else interrupts, and every reply
to an earlier turn still unspoken is dropped (`BargeInFrame` downstream, a system frame, so
it overtakes the reply being worded and cancels it). A noise with no words only paused it.
A "yes" or "okay" over the last second of a question is its answer, not a backchannel: the
question's last words are dropped and the turn goes on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.memory.language.normalise import normalised
from monologue.memory.working.turn_classes import TurnClass
from monologue.processors.frames import AgentPausedFrame, AgentTurnEndFrame, BargeInFrame, Turn, UserTurnFrame


class BackchannelCheck:
    """Whether a turn is only a backchannel: short, and nothing but the configured words."""

    def __init__(self, words: Sequence[str], max_secs: float = 1.2) -> None:
        self._words = {normalised(w) for w in words if normalised(w)}
        self._max_secs = max_secs

    def __call__(self, turn: Turn) -> bool:
        text = normalised(turn.text)
        if not text:
            return False
        if turn.end_pts - turn.start_pts > self._max_secs + 0.35:    # the VAD's pre-roll is in the segment
            return False
        if text in self._words:
            return True
        # "mm-hm, okay" or 嗯嗯对: every part is a backchannel.
        parts = [p for p in re.split(r"[\s\-]+", text) if p]
        if len(parts) > 1 and all(p in self._words for p in parts):
            return True
        return bool(re.fullmatch(r"[嗯对好是哦噢]+", text)) and all(ch in self._words for ch in text)


class BargeInProcessor(FrameProcessor):
    """One job: after ASR, turn the user's speech over the agent into cut or carry on."""

    def __init__(self, is_backchannel: BackchannelCheck, *, enabled: bool = True,
                 answer_window_secs: float = 1.0) -> None:
        super().__init__()
        self._is_backchannel = is_backchannel
        self._enabled = enabled
        self._answer_window = answer_window_secs
        self._pause: AgentPausedFrame | None = None   # the agent's voice held for the user's speech

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, AgentPausedFrame):
            self._pause = frame
        elif self._enabled and isinstance(frame, UserTurnFrame) and direction == FrameDirection.DOWNSTREAM:
            if await self._judge(frame.turn):
                return
        elif self._enabled and isinstance(frame, AgentTurnEndFrame) and self._pause is not None:
            # A turn with no words (a cough, a door): the agent only paused; it goes on.
            self._pause = None
            await self.push_frame(BargeInFrame(turn=frame.turn, interrupt=False))
        await self.push_frame(frame, direction)

    async def _judge(self, turn: Turn) -> bool:
        """True when the turn was a backchannel and ends here, unanswered (or a dropped draft)."""
        if turn.dropped:
            return True
        if self._pause is not None and not await turn.stands():
            return True     # the user went on: the pause stays for the turn they are finishing
        pause, self._pause = self._pause, None
        # "Yes" over the last words of "…shall I book it?" answers the question: not a backchannel.
        answers = pause is not None and pause.asks and pause.left_secs is not None \
            and pause.left_secs <= self._answer_window
        if pause is not None and not answers and self._is_backchannel(turn):
            turn.turn_class = TurnClass.BACKCHANNEL
            await self.push_frame(BargeInFrame(turn=turn, interrupt=False))
            await self.push_frame(AgentTurnEndFrame(turn=turn))
            return True
        # A real turn: whatever the agent had not yet said to the earlier turns is dropped —
        # for a draft, once its end is confirmed (a draft changes nothing the user can hear).
        if turn.decided:
            if not turn.dropped:
                await self.push_frame(BargeInFrame(turn=turn, interrupt=True))
        else:
            self.create_task(self._interrupt_when_confirmed(turn), name=f"barge-in-{turn.turn_id}")
        return False

    async def _interrupt_when_confirmed(self, turn: Turn) -> None:
        if await turn.stands():
            await self.push_frame(BargeInFrame(turn=turn, interrupt=True))
