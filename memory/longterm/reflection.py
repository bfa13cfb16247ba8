"""Reflection (seed 002 §3.3, §4.3, §5.3; L6): patterns drawn from many memories.

Input is the most-retrieved recent memories. Similar memories are grouped; a group
becomes a reflection only when it was seen in at least three distinct contexts (a
context is a conversation plus its situation: time of day, passengers, weather…) —
three mentions in one conversation, or two anywhere, prove no habit. A reflection is
written back to the stream with its evidence (the memory ids) and an importance above
its members'. Triggers: an event (a write that makes ≥ 3 similar memories in a short
window) and a schedule (the first session of a day, and weekly).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from loguru import logger

from monologue.memory.longterm.records import DAY, MemoryRecord
from monologue.memory.longterm.retrieval import tokenize
from monologue.memory.longterm.stream import AddOptions, MemoryStream

Insight = Callable[[list[str]], "str | None"]      # member texts → one-sentence pattern (an LLM)
_SITUATION_KEYS = ("time_of_day", "weekday", "passengers", "weather", "place")


@dataclass(frozen=True)
class ReflectionOptions:
    min_contexts: int = 3
    similarity: float = 0.75          # dense cosine for "similar"
    overlap: float = 0.5              # or: share of content words in common (no encoder)
    window_days: float = 30.0         # recent memories only
    event_window_days: float = 7.0    # the "short window" of the event trigger
    max_inputs: int = 60
    weekly_days: float = 7.0


@dataclass
class ReflectionReport:
    trigger: str
    written: list[MemoryRecord] = field(default_factory=list)
    refreshed: list[MemoryRecord] = field(default_factory=list)
    too_few_contexts: list[list[str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def context_of(record: MemoryRecord) -> tuple[str, ...]:
    """A conversation and its situation; memories without a session count by day."""
    where = record.session_id or dt.datetime.fromtimestamp(record.created_at).strftime("%Y-%m-%d")
    return (where,) + tuple(str(record.context.get(k, "")) for k in _SITUATION_KEYS)


def _overlap(a: str, b: str) -> float:
    x, y = set(tokenize(a)), set(tokenize(b))
    return len(x & y) / min(len(x), len(y)) if x and y else 0.0


class Reflector:
    def __init__(self, stream: MemoryStream, options: ReflectionOptions | None = None,
                 insight: Insight | None = None) -> None:
        self.stream = stream
        self.options = options or ReflectionOptions()
        self.insight = insight

    def inputs(self, now: float) -> tuple[list[MemoryRecord], np.ndarray]:
        """Recent current memories, the most retrieved first."""
        records, vectors = self.stream.records()
        since = now - self.options.window_days * DAY
        chosen = [i for i, r in enumerate(records)
                  if r.kind == "memory" and r.current and r.source == "user_stated" and r.created_at >= since]
        chosen.sort(key=lambda i: (records[i].access_count, records[i].last_accessed_at), reverse=True)
        chosen = chosen[: self.options.max_inputs]
        picked = vectors[chosen] if vectors.shape[1] and chosen else np.zeros((len(chosen), 0), dtype=np.float32)
        return [records[i] for i in chosen], picked

    def _similar(self, a: int, b: int, records: list[MemoryRecord], vectors: np.ndarray) -> bool:
        if vectors.shape[1] and float(vectors[a] @ vectors[b]) >= self.options.similarity:
            return True
        return _overlap(records[a].text, records[b].text) >= self.options.overlap

    def clusters(self, records: list[MemoryRecord], vectors: np.ndarray) -> list[list[int]]:
        """Greedy single-pass grouping around the most-retrieved memories."""
        groups: list[list[int]] = []
        for i in range(len(records)):
            for group in groups:
                if self._similar(group[0], i, records, vectors):
                    group.append(i)
                    break
            else:
                groups.append([i])
        return groups

    def event_due(self, record: MemoryRecord) -> bool:
        """A write that makes three similar memories within the short window."""
        records, vectors = self.stream.records()
        since = record.created_at - self.options.event_window_days * DAY
        own = next((i for i, r in enumerate(records) if r.id == record.id), None)
        if own is None:
            return False
        similar = [i for i, r in enumerate(records) if i != own and r.kind == "memory" and r.current
                   and r.created_at >= since and self._similar(own, i, records, vectors)]
        return len(similar) >= 2

    def scheduled_due(self, last_run_at: float | None, now: float) -> bool:
        """First session of the day, or a week since the last run."""
        if last_run_at is None:
            return True
        same_day = dt.datetime.fromtimestamp(last_run_at).date() == dt.datetime.fromtimestamp(now).date()
        return not same_day or now - last_run_at >= self.options.weekly_days * DAY

    def reflect(self, trigger: str, session_id: str = "") -> ReflectionReport:
        report = ReflectionReport(trigger)
        now = self.stream.clock()
        records, vectors = self.inputs(now)
        existing = [r for r in self.stream.records()[0] if r.kind == "reflection" and r.current]
        for group in self.clusters(records, vectors):
            if len(group) < 2:
                continue
            members = [records[i] for i in group]
            contexts = {context_of(m) for m in members}
            if len(contexts) < self.options.min_contexts:
                report.too_few_contexts.append([m.text for m in members])
                continue
            self._write(members, len(contexts), existing, report, session_id)
        return report

    def _write(self, members: list[MemoryRecord], contexts: int, existing: list[MemoryRecord],
               report: ReflectionReport, session_id: str) -> None:
        ids = [m.id for m in members]
        importance = min(10, max(m.importance for m in members) + 1)
        previous = next((r for r in existing if len(set(r.evidence) & set(ids)) * 2 >= len(r.evidence)), None)
        if previous is not None:
            if set(ids) <= set(previous.evidence):
                return
            before = list(previous.evidence)
            previous.evidence = list(dict.fromkeys(previous.evidence + ids))
            previous.importance = max(previous.importance, importance)
            previous.context["contexts"] = contexts
            self.stream.save(previous, f"reflection refreshed: evidence {len(before)} → {len(previous.evidence)}",
                             session_id)
            report.refreshed.append(previous)
            return
        text = self._phrase(members, contexts, report, session_id)
        record = self.stream.add(text, source="reflection", kind="reflection", evidence=ids, session_id=session_id,
                                 context={"contexts": contexts, "trigger": report.trigger},
                                 options=AddOptions(importance=importance))
        report.written.append(record)

    def _phrase(self, members: list[MemoryRecord], contexts: int, report: ReflectionReport, session_id: str) -> str:
        texts = [m.text for m in members]
        if self.insight is not None:
            try:
                sentence = self.insight(texts)
                if sentence and 8 <= len(sentence.strip()) <= 300:
                    return sentence.strip()
                report.errors.append(f"the insight model gave no usable sentence ({sentence!r}); rule wording used")
            except Exception as exc:     # timeout or a bad answer: the rule wording still records the pattern
                report.errors.append(f"insight model failed ({type(exc).__name__}: {exc}); rule wording used")
            logger.bind(session=session_id).warning("session {}: {} reflection: {}", session_id, report.trigger,
                                                    report.errors[-1])
        central = min(texts, key=len)
        return f"Pattern seen in {contexts} separate conversations: the user said \"{central}\" (and similar)."
