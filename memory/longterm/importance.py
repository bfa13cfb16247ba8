"""How important a statement is to remember, and how long a dated one stays true —
by rules first (an LLM may score what they abstain on, at session end)."""

from __future__ import annotations

from monologue.memory.language.cues import (
    HORIZONS,
    IDENTITY_CUES,
    PLAN_CUES,
    PREFERENCE_CUES,
    ROUTINE_CUES,
    SAFETY_CUES,
    SMALL_TALK_CUES,
)


def rule_importance(text: str) -> int | None:
    """1–10 by rules, or None when the rules abstain (then an LLM may score it)."""
    if SAFETY_CUES.search(text):
        return 9
    if IDENTITY_CUES.search(text):
        return 8
    if PREFERENCE_CUES.search(text) or ROUTINE_CUES.search(text):
        return 7
    if PLAN_CUES.search(text):
        return 6
    if SMALL_TALK_CUES.search(text) and len(text.split()) <= 6:
        return 2
    return None


def valid_for_days(text: str) -> float | None:
    """How long a time-bound statement stays true ("tomorrow" → 2 days), else None."""
    for pattern, days in HORIZONS:
        if pattern.search(text):
            return days
    return None
