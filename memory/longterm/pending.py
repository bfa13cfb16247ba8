"""A turn's long-term writes as the journal keeps them (`stores/journal.py`), and back.

What is journaled is the turn's inputs, not its `BeforeReply`: replay runs `prepare` again on
the words, against the store as the crash left it, so a conflict, a time-travel change or a
command is found as it was the first time. The one input that lived only in the dead worker's
memory is the question the turn answered (`Awaiting`): it is kept here, so that a "yes" to
"shall I forget everything?" is still a yes after a crash.
"""

from __future__ import annotations

from typing import Any

from monologue.memory.longterm.conflicts import Conflict
from monologue.memory.longterm.exchange import Awaiting, BeforeReply
from monologue.memory.longterm.stream import MemoryStream


def turn_inputs(before: BeforeReply, text: str, *, turn_class: str, reply_text: str, language: str) -> dict[str, Any]:
    """What redoes this turn's writes (JSON-ready)."""
    answered = before.answered[0] if before.answered is not None else None
    return {"text": text, "turn_class": str(turn_class), "reply_text": reply_text, "language": language,
            "awaiting": awaiting_inputs(answered) if answered is not None else None}


def awaiting_inputs(awaiting: Awaiting) -> dict[str, Any]:
    conflict = awaiting.conflict
    return {"kind": awaiting.kind, "memory_id": awaiting.memory_id, "memory_ids": list(awaiting.memory_ids),
            "conflict": None if conflict is None else {
                "old_id": conflict.old.id, "new_text": conflict.new_text, "kind": conflict.kind,
                "risk": conflict.risk, "similarity": conflict.similarity}}


def awaiting_from(inputs: dict[str, Any] | None, stream: MemoryStream) -> Awaiting | None:
    """The question as it was open, its conflict's earlier memory read back from the store
    (gone since, e.g. forgotten: then there is no conflict left to settle)."""
    if not inputs:
        return None
    conflict = None
    held = inputs.get("conflict")
    if held:
        old = stream.get(held["old_id"])
        if old is not None:
            conflict = Conflict(old, held["new_text"], held["kind"], held["risk"], float(held["similarity"]))
    return Awaiting(inputs["kind"], inputs.get("memory_id", ""), conflict, tuple(inputs.get("memory_ids", ())))
