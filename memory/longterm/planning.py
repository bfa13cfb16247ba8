"""Planning (seed 002 §3.4, §6; L7): memories and reflections become a plan with its reason.

A plan says why ("you said spicy food is out, in three conversations, so I'll only
look at mild places"), is written back to the stream (source "plan", evidence = what
it rests on), and the user's answer feeds back: acceptance raises it and marks it
confirmed; a refusal lowers it and records the user's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monologue.memory.language.phrases import join, say
from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.longterm.retrieval import Retriever
from monologue.memory.longterm.stream import MemoryStream


@dataclass(frozen=True)
class Plan:
    record: MemoryRecord
    text: str
    reason: str

    def spoken(self, language: str = "en") -> str:
        return say("plan.spoken", language, plan=self.text, reason=self.reason)


def _quote(text: str) -> str:
    return "\u201c" + text.rstrip(".!。") + "\u201d"


class Planner:
    def __init__(self, stream: MemoryStream, retriever: Retriever, min_importance: int = 6) -> None:
        self.stream = stream
        self.retriever = retriever
        self.min_importance = min_importance

    def basis(self, goal: str) -> list[MemoryRecord]:
        """What the plan rests on: the best reflection, then important memories."""
        result = self.retriever.retrieve(goal, k=4, touch=False)
        picked = [r.record for r in result.reflections[:1]]
        # Lasting things (preferences, safety, reflections) — not one-off dated items.
        picked += [r.record for r in result.memories if r.record.importance >= self.min_importance
                   and r.record.source != "plan" and not r.record.context.get("time_sensitive")][: 3 - len(picked)]
        return picked

    def propose(self, goal: str, session_id: str = "", language: str = "en") -> Plan | None:
        basis = self.basis(goal) if goal else []
        if not basis:
            return None
        # The reason quotes the user's own words, not a paraphrase: a small model's
        # paraphrase of them (measured with the local 0.5B) invented things they never said.
        text = say("plan.text", language, goal=goal)
        reason = say("plan.reason", language,
                     conditions=join((_quote(_as_condition(b)) for b in basis[:2]), language, "plan.reason.and"))
        record = self.stream.add(f"Plan: {text} — because {reason}", source="plan", importance=6,
                                 evidence=[b.id for b in basis], session_id=session_id,
                                 context={"goal": goal, "status": "proposed"})
        return Plan(record, text, reason)

    def accept(self, plan_id: str, session_id: str = "") -> MemoryRecord | None:
        record = self.stream.get(plan_id)
        if record is None:
            return None
        record.importance = min(10, record.importance + 2)
        record.confirmed = True
        record.context["status"] = "accepted"
        self.stream.save(record, f"plan accepted by the user: importance → {record.importance}", session_id)
        return record

    def reject(self, plan_id: str, reason: str, session_id: str = "") -> MemoryRecord | None:
        record = self.stream.get(plan_id)
        if record is None:
            return None
        record.importance = max(1, record.importance - 2)
        record.context["status"] = "rejected"
        record.notes.append(f"rejected: {reason.strip()}")
        self.stream.save(record, f"plan rejected by the user: {reason.strip()}", session_id)
        return record


def _as_condition(record: MemoryRecord) -> str:
    text = record.text
    match = re.search(r"the user said \"(.+?)\"", text)
    return match.group(1) if match else text
