"""run_session: the one lifecycle every way in uses, in its order, and its ending when stopped."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.configs import load_config
from monologue.memory.longterm.engine import LongTermMemory, WorkingSession
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.working.engine import WorkingMemory
from monologue.pipeline.builder import AgentModels, TurnGate
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session, session_pipeline
from monologue.pipeline.text_chat import TextTurnSource
from monologue.processors.frames import Turn

from fakes import FakeSynthesizer, FakeTranscriber, StateFollowingLLM, until


class RecordedLongTerm(LongTermMemory):
    """Real long-term memory that notes when its session starts and ends."""

    def __init__(self, path: Path, events: list[str]) -> None:
        super().__init__(SqlMemoryStore(path), "ann")
        self.events = events

    async def start_session(self, memory: WorkingSession | None, session_id: str = "", folder: str = "") -> str:
        self.events.append(f"long-term start {session_id}")
        return await super().start_session(memory, session_id=session_id, folder=folder)

    async def end_session(self, memory: WorkingSession | None, session_id: str = "") -> int:
        self.events.append(f"long-term end {session_id}")
        return await super().end_session(memory, session_id=session_id)


class SilentSource(FrameProcessor):
    """A source whose user never speaks and never hangs up (a live line)."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)


def _spec(tmp_path: Path, events: list[str]) -> SessionSpec:
    config = load_config(environ={})
    models = AgentModels(asr=None, tts=None, llm=StateFollowingLLM())
    return SessionSpec(config, models, tmp_path / "out", session_id="s1", mode="text",
                       long_term=RecordedLongTerm(tmp_path / "m.db", events))


def _hooks(events: list[str]) -> SessionHooks:
    def turn(turn: Turn, memory: WorkingMemory | None) -> None:
        events.append(f"turn {turn.turn_id}" + (" with working memory" if memory is not None else ""))

    return SessionHooks(on_start=lambda s: events.append(f"start: {s.opening}"), on_turn=turn,
                        on_end=lambda s: events.append(f"end after {len(s.turns)} turns"))


async def test_a_text_session_runs_its_lifecycle_in_order(tmp_path):
    events: list[str] = []
    gate = TurnGate()
    source = TextTurnSource(["Table for four on Saturday at 7 pm.", "Nice weather."], gate)
    session = await run_session(_spec(tmp_path, events), source, gate=gate, hooks=_hooks(events))
    assert events[0] == "long-term start s1" and events[1].startswith("start: Hi!")
    assert events[2:] == ["turn 1 with working memory", "turn 2 with working memory", "long-term end s1",
                          "end after 2 turns"]
    assert session.session_id == "s1" and session.memory is not None and session.opening
    assert [t.text for t in session.turns] == ["Table for four on Saturday at 7 pm.", "Nice weather."]
    lines = [json.loads(line) for line in (tmp_path / "out" / "trace.jsonl").read_text().splitlines()]
    assert [line["turn"] for line in lines] == [1, 2] and session.wall_secs > 0
    assert not gate.busy


async def test_a_stopped_session_still_closes_its_trace_and_ends_its_long_term_session(tmp_path):
    events: list[str] = []
    task = asyncio.create_task(run_session(_spec(tmp_path, events), SilentSource(), hooks=_hooks(events)))
    await until(lambda: any(e.startswith("start:") for e in events), every=0.05)
    task.cancel()
    try:
        await asyncio.wait_for(task, 30)
    except asyncio.CancelledError:
        pass
    assert events[-2:] == ["long-term end s1", "end after 0 turns"]
    assert (tmp_path / "out" / "trace.jsonl").read_text() == ""


def test_the_pipeline_of_each_mode(tmp_path):
    config = load_config(environ={})
    models = AgentModels(asr=FakeTranscriber([]), tts=FakeSynthesizer(), llm=StateFollowingLLM())
    from monologue.pipeline.builder import build_processors

    parts = build_processors(config, models, None)
    source, sink = SilentSource(), SilentSource()
    assert session_pipeline(parts, source, sink) == [source, parts.vad, parts.asr, parts.barge_in, parts.classifier,
                                                     parts.monologue, parts.reply, parts.tts, parts.playout, sink,
                                                     parts.trace]
    tap = SilentSource()
    assert session_pipeline(parts, source, sink, taps=(tap,)).index(tap) == 6   # sees each turn before the reply
    assert session_pipeline(parts, source, None, "text") == [source, parts.classifier, parts.monologue,
                                                             parts.reply, parts.trace]
    assert Session("s", None, None, parts).turns == []
