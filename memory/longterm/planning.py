"""Planning (seed 002 §3.4, §6; L7): memories and reflections become a plan with its reason.

A plan says why ("you said spicy food is out, in three conversations, so I'll only
look at mild places"), is written back to the stream (source "plan", evidence = what
it rests on), and the user's answer feeds back: acceptance raises it and marks it
confirmed; a refusal lowers it and records the user's reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.person import second_person
from monologue.memory.language.phrases import join, say
from monologue.memory.longterm.records import MemoryKind, MemoryRecord
from monologue.memory.longterm.retrieval import Retriever
from monologue.memory.longterm.speech import capitalized, joined_sentences, task_words
from monologue.memory.longterm.stream import AddOptions, MemoryStream
from monologue.memory.working.render import spoken_condition
from monologue.memory.working.state import Condition


@dataclass(frozen=True)
class Plan:
    record: MemoryRecord
    text: str           # what to do, said aloud: "book a restaurant table again, keeping to no spicy food"
    reason: str         # why, in the user's words turned to the second person ("you told me you never…"); may be ""
    language: str = "en"

    def spoken(self, language: str | None = None, *, with_reason: bool = True) -> str:
        """"Shall I book a restaurant table again, keeping to no spicy food? You told me you
        never want spicy food." (The plan is worded in the language it was proposed in.)
        `with_reason`: False when the opening has just read the preferences back."""
        language = language or self.language
        reason = capitalized(self.reason) + say("plan.stop", language) if self.reason and with_reason else ""
        return joined_sentences([say("plan.spoken", language, plan=self.text), reason], language)


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
                   and r.record.source != "plan" and r.record.kind != MemoryKind.EVENT
                   and not r.record.context.get("time_sensitive")][: 3 - len(picked)]
        return picked

    def propose(self, goal: str, session_id: str = "", language: str = "en", *, schema: DomainSchema | None = None,
                keeping: Sequence[Condition] = ()) -> Plan | None:
        """A plan for `goal` (the retrieval query: what the last session was about), said
        with the domain's task words (`schema.goal_text`) and the preferences it keeps to."""
        basis = self.basis(goal) if goal else []
        if not basis:
            return None
        # The reason is the user's own words, not a paraphrase: a small model's paraphrase
        # of them (measured with the local 0.5B) invented things they never said. Words in
        # another language than the session's are not read out in it.
        words = [second_person(_as_condition(b), language) for b in basis[:2]
                 if language_of(_as_condition(b)) == language]
        kept = say("spoken.join", language).join(spoken_condition(c, schema, language) for c in keeping[:2]) \
            if schema is not None else ""
        text = say("plan.text", language, goal=task_words(schema, language),
                   keeping=say("plan.keeping", language, conditions=kept) if kept else "") \
            if schema is not None else say("plan.pick_up", language)
        reason = say("plan.reason", language, conditions=join(words, language, "plan.reason.and")) if words else ""
        record = self.stream.add(f"Plan: {text} — because {reason or 'of what the user said before'}",
                                 source="plan", evidence=[b.id for b in basis], session_id=session_id,
                                 context={"goal": goal, "status": "proposed"}, options=AddOptions(importance=6))
        return Plan(record, text, reason, language)

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
    # "Hi, I never eat pork" is quoted as "I never eat pork": the greeting was not the point.
    return re.sub(r"^\W*(?:hi|hello|hey|ok(?:ay)?|so|well)\b[,!.]?\s*|^(?:你好|您好)[，,！!。]?", "",
                  match.group(1) if match else text, flags=re.IGNORECASE)
