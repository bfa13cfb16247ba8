"""Session-end consolidation: the LLM's share of long-term memory.

During a session the LLM belongs to the replies; what memory would ask it (importance
for what the rules could not score, the contradiction judge for the session's new
memories) waits for the end of the session. Measured: with it inline, the demo replayed
at ×0.71–0.89 real time instead of ×0.38.

The LLM's importance may raise what the rules read, never lower it below their floor
(`MemoryStream.rescore`): the local model once scored a road dislike and a cabin
temperature 1, and both were archived a week later. Its sensitivity tier, likewise, may
only raise the rules' (`sensitivity.raised`): a wrong "shareable" must not send an address
to a remote provider.
"""

from __future__ import annotations

from typing import Protocol

from monologue.memory.longterm.conflicts import HIGH_RISK, PREFERENCE, find_conflict
from monologue.memory.longterm.importance import rule_importance
from monologue.memory.longterm.sensitivity import Tier, raised
from monologue.memory.longterm.stream import MemoryStream


class ConsolidationLLM(Protocol):
    """The two questions consolidation asks (`MemoryLLM` answers them; None: no answer)."""

    def importance(self, text: str) -> int | None: ...
    def contradicts(self, old: str, new: str) -> bool | None: ...


class TierLLM(Protocol):
    """A third, where the model answers it (`MemoryLLM.sensitivity`)."""

    def sensitivity(self, text: str) -> str | None: ...


def raise_tiers(stream: MemoryStream, llm: TierLLM, memory_ids: list[str], session_id: str,
                max_calls: int = 5) -> int:
    """Ask the model the tier of this session's new memories that the rules did not make
    local-only; apply only a raise. Returns how many were raised."""
    raised_count = 0
    for memory_id in memory_ids[:max_calls]:
        record = stream.get(memory_id)
        if record is None or not record.current or record.tier == "local_only":
            continue
        current: Tier = "shareable" if record.tier == "shareable" else "private"
        tier = raised(current, llm.sensitivity(record.text) or "")
        if tier != current:
            before, record.tier = record.tier, tier
            stream.save(record, f"tier {before or 'private'} → {tier} (raised by the LLM)", session_id)
            raised_count += 1
    return raised_count


def consolidate(stream: MemoryStream, llm: ConsolidationLLM, memory_ids: list[str], session_id: str,
                max_calls: int = 10) -> dict[str, int]:
    """Score and judge this session's new memories (blocking; off any voice turn). Each
    call is bounded; a failure leaves the rule result in place."""
    done = {"scored": 0, "judged": 0, "conflicts": 0}
    calls = 0
    for memory_id in memory_ids:
        record = stream.get(memory_id)
        if record is None or not record.current or calls >= max_calls:
            continue
        scored = None
        if rule_importance(record.text) is None:
            calls += 1
            scored = llm.importance(record.text)
        # The model may raise what the rules read, never lower it below their floor.
        if scored is not None and stream.rescore(record, scored, "scored by the LLM", session_id):
            done["scored"] += 1
        records, vectors = stream.records()
        # Only what was said before it can be contradicted by it.
        others = [i for i, r in enumerate(records) if r.id != record.id and r.created_at < record.created_at]
        if calls >= max_calls or not others:
            continue
        vector = stream.vector_of(record)
        conflict = find_conflict(record.text, vector, [records[i] for i in others], vectors[others],
                                 judge=llm.contradicts)
        done["judged"] += 1
        calls += 1
        if conflict is not None:
            done["conflicts"] += 1
            if conflict.risk == HIGH_RISK:
                record.held = True          # asked about before the next conversation (open to-dos)
                stream.save(record, f"held: contradicts \"{conflict.old.text}\" (LLM judge)", session_id)
            else:
                stream.supersede(conflict.old, record, f"{conflict.risk} updated (LLM judge)", session_id,
                                 misstatement=conflict.risk != PREFERENCE)
    sensitivity = getattr(llm, "sensitivity", None)
    if sensitivity is not None:
        done["tiers_raised"] = raise_tiers(stream, llm, memory_ids, session_id)   # type: ignore[arg-type]
    return done
