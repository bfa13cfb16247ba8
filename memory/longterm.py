"""Long-term memory as the pipeline uses it: write what the user said, recall within a budget.

Writes never block a voice turn (the caller runs them in the background); recall on
the reply's critical path gives up after `budget_ms` and the reply goes on without it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from memory.profile import ProfileStore, UserProfile, opening_line, seed_operations, update_profile
from memory.retrieval import RetrievalWeights, Retriever
from memory.schema import DomainSchema
from memory.structured import exact_answer
from memory.stream import MemoryStore, MemoryStream
from memory.working import WorkingMemory

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class LongTermOptions:
    recall_k: int = 3
    budget_ms: float = 250.0


class LongTermMemory:
    """One user's long-term memory across sessions (seed 002's memory stream)."""

    def __init__(self, store: MemoryStore, user_id: str, embed: Embed | None = None,
                 options: LongTermOptions | None = None, clock: Callable[[], float] = time.time,
                 profiles: ProfileStore | None = None) -> None:
        self.user_id = user_id
        self.profiles = profiles or ProfileStore(":memory:")
        self.options = options or LongTermOptions()
        self.stream = MemoryStream(store, user_id, embed=embed, clock=clock)
        # Recall favours relevance: the seed's recency/importance weights bury the
        # answer on question-style queries (LoCoMo R@10 .445 vs .693, bench_locomo.py).
        self.retriever = Retriever(self.stream, RetrievalWeights(recency=0.05, importance=0.15, relevance=0.8))
        self._lock = asyncio.Lock()

    def exact_answer(self, question: str, schema: DomainSchema, language: str = "en") -> str | None:
        """Exact questions ("when did I last change the seat?") answered from records."""
        return exact_answer(question, self.profiles, self.user_id, schema, language)

    def profile(self) -> UserProfile:
        return self.profiles.load(self.user_id)

    async def start_session(self, memory: WorkingMemory | None) -> str:
        """Load the profile into a fresh session's state; returns the opening line."""
        profile = await asyncio.to_thread(self.profile)
        schema = memory.schema if memory else None
        if memory is not None:
            await memory.seed(seed_operations(profile), "Loaded from the profile, to confirm: "
                              + ", ".join(f"{f.key} {f.comparator} {f.value}" for f in profile.facts.values()))
        if schema is None:
            from memory.schema import load_schema

            schema = load_schema("restaurant")
        language = memory.options.language if memory else "en"
        return opening_line(profile, schema, language)

    async def end_session(self, memory: WorkingMemory | None) -> int:
        """Fold the session's lasting preferences into the profile; returns audit entries written."""
        if memory is None:
            return 0

        def run() -> int:
            state = memory.state
            if not state.version:
                return 0
            withdrawn = {c.slot.split(":")[0] for c in memory.history() if c.action == "withdrawn"}
            profile = self.profiles.load(self.user_id)
            audit = update_profile(profile, state, memory.schema, withdrawn)
            self.profiles.save(profile, audit)
            return len(audit)

        async with self._lock:
            return await asyncio.to_thread(run)

    def warm_up(self) -> float:
        """Load the stream, build its index and run the encoder once, before the first
        turn: a cold first recall would spend its whole budget on start-up work."""
        started = time.perf_counter()
        self.retriever.retrieve("warm up", k=1, touch=False)
        return time.perf_counter() - started

    def remember(self, text: str, *, session_id: str, turn: int, turn_class: str) -> str | None:
        """Store a user utterance that carried information; returns the memory id (blocking)."""
        if turn_class == "chit_chat" or len(text.split()) < 2:
            return None
        record = self.stream.add(text, source="user_stated", session_id=session_id,
                                 evidence=[f"{session_id}:{turn}"])
        return record.id

    async def remember_later(self, text: str, *, session_id: str, turn: int, turn_class: str) -> None:
        async with self._lock:
            await asyncio.to_thread(self.remember, text, session_id=session_id, turn=turn, turn_class=turn_class)

    async def recall(self, query: str, *, exclude_session: str = "") -> tuple[list[str], float, bool]:
        """(memory texts, ms spent, timed out) — never longer than the budget."""
        started = time.perf_counter()

        def run() -> list[str]:
            result = self.retriever.retrieve(query, k=self.options.recall_k + 3)
            items = [m for m in result.memories + result.reflections
                     if not (exclude_session and m.record.session_id == exclude_session)]
            return [m.record.text for m in items[: self.options.recall_k]]

        try:
            async with self._lock:
                texts = await asyncio.wait_for(asyncio.to_thread(run), self.options.budget_ms / 1000)
            return texts, (time.perf_counter() - started) * 1000, False
        except asyncio.TimeoutError:
            return [], (time.perf_counter() - started) * 1000, True
