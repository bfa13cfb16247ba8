"""Text mode: scripted conversations through the same processors, minus audio.

Script format: one user turn per line; `#` starts a comment; a line `---` ends the
session (the next line starts a new one, with a fresh working state).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipecat.frames.frames import EndWorkerFrame, Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.configs import MonologueConfig
from monologue.memory.language.plain_text import has_visible, plain_text
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.stores.protocols import StateStore
from monologue.memory.working.engine import WorkingMemory
from monologue.pipeline.builder import AgentModels, TurnGate, new_session_id
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session
from monologue.processors.frames import Transcription, Turn, UserTurnFrame

SESSION_BREAK = "---"


def parse_script(text: str) -> list[list[str]]:
    """Sessions of user lines, as plain text; comments and lines with nothing visible dropped."""
    sessions: list[list[str]] = [[]]
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line == SESSION_BREAK:
            if sessions[-1]:
                sessions.append([])
        elif has_visible(line):
            sessions[-1].append(plain_text(line))
    return [s for s in sessions if s]


def typed_turn(turn_id: int, text: str, confidence: float = 1.0) -> Turn:
    """A user turn that was typed, not spoken: no audio, its text (as plain text) as the transcript."""
    turn = Turn(turn_id=turn_id, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0,
                detected_at=time.perf_counter(), vad_engine="text")
    turn.asr = Transcription(text=plain_text(text), confidence=confidence, language="", source="text")
    return turn


class TextTurnSource(FrameProcessor):
    """One job: feed typed user turns in, one at a time, each after the agent answered."""

    def __init__(self, lines: list[str], gate: TurnGate, *, confidence: float = 1.0) -> None:
        super().__init__()
        self._lines = lines
        self._gate = gate
        self._confidence = confidence
        self._first_turn = 1

    def continue_after(self, last_turn: int) -> None:
        """Number turns on from `last_turn` (a session another process began)."""
        self._first_turn = last_turn + 1

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.create_task(self._feed(), name="text-feed")

    async def _feed(self) -> None:
        for index, line in enumerate(self._lines, self._first_turn):
            await self._gate.wait_idle()
            turn = typed_turn(index, line, self._confidence)
            self._gate.turn_started(turn)
            await self.push_frame(UserTurnFrame(turn=turn))
        await self._gate.wait_idle()
        await self.push_frame(EndWorkerFrame(reason="script finished"))


@dataclass
class ChatResult:
    session_id: str
    turns: list[Turn] = field(default_factory=list)
    triggered_share: float = 0.0
    opening: str = ""


@dataclass(frozen=True)
class ChatOptions:
    """Which session a scripted chat continues, where its state and record go, and who sees its turns."""

    session_id: str | None = None              # None: a new session
    store: StateStore | None = None            # working memory's store; None keeps the state in this process
    out_dir: Path | None = None                # trace.jsonl and transcript.txt; None writes no files
    memory: WorkingMemory | None = None        # working memory made by the caller (tests); None: made from config
    long_term: LongTermMemory | None = None    # the user's memory across sessions; None: nothing is kept
    on_turn: Callable[[Turn, WorkingMemory | None], None] | None = None   # sees each finished turn


async def chat_session(lines: list[str], config: MonologueConfig, models: AgentModels,
                       options: ChatOptions | None = None) -> ChatResult:
    """Run one scripted session; `options.on_turn` sees each finished turn (printing, tests)."""
    options = options or ChatOptions()
    on_turn = options.on_turn
    gate = TurnGate()
    spec = SessionSpec(config, models, options.out_dir, session_id=options.session_id or new_session_id(),
                       store=options.store, memory=options.memory, long_term=options.long_term, mode="text")

    def show_opening(session: Session) -> None:
        if session.opening and on_turn is not None:
            print(f"\nagent ▸ {session.opening}")

    session = await run_session(spec, TextTurnSource(lines, gate), gate=gate,
                                hooks=SessionHooks(on_start=show_opening, on_turn=on_turn))
    return ChatResult(session.session_id, session.turns, session.triggered_share, session.opening)


def print_turn(turn: Turn, memory: WorkingMemory | None) -> None:
    print(f"\nuser  ▸ {turn.text}")
    print(f"agent ▸ {turn.reply.text}")
    if turn.memories is not None and turn.memories.recalled:
        print("        remembered: " + " / ".join(turn.memories.recalled))
    if turn.memories is not None and turn.memories.reflections:
        print("        noticed: " + " / ".join(turn.memories.reflections))
    if memory is not None:
        label = f"[{turn.turn_class or ''}; state v{turn.reply.state_version}]"
        state_lines = memory.render().splitlines()
        print(f"        {label} " + ("\n        ".join(state_lines)))


def run_script(path: Path, config: MonologueConfig, models: AgentModels, *, store: StateStore,
               session_id: str | None = None, out_dir: Path | None = None,
               long_term: LongTermMemory | None = None) -> list[ChatResult]:
    sessions = parse_script(path.read_text(encoding="utf-8"))
    if not sessions:
        raise ValueError(f"{path} has no user turns (one per line; '#' comments; '---' between sessions)")
    results = []
    for index, lines in enumerate(sessions, 1):
        sid = session_id if session_id and len(sessions) == 1 else (
            f"{session_id}-{index}" if session_id else new_session_id())
        print(f"=== session {sid} ({len(lines)} turns)")
        sub_out = out_dir / sid if out_dir else None
        options = ChatOptions(session_id=sid, store=store, out_dir=sub_out, long_term=long_term, on_turn=print_turn)
        result = asyncio.run(chat_session(lines, config, models, options))
        print(f"\nmonologue triggered on {result.triggered_share:.0%} of {len(result.turns)} turns")
        results.append(result)
    return results
