"""Whether a statement is worth remembering, how important it is, and how long a dated
one stays true — by rules first (an LLM may score what they abstain on, at session end)."""

from __future__ import annotations

import re

from monologue.memory.language.cues import (
    FIRST_PERSON_CUES,
    HAN,
    HORIZONS,
    IDENTITY_CUES,
    PLAN_CUES,
    PREFERENCE_CUES,
    ROUTINE_CUES,
    SAFETY_CUES,
    SMALL_TALK_CUES,
)
from monologue.memory.working.turn_classes import TurnClass


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


def worth_remembering(text: str, turn_class: str) -> bool:
    """A change to the task, or a statement about the user themselves; not questions,
    yes/no answers or small talk (the classifier's chit-chat covers facts about the user
    that do not change the task, like "my daughter is 6")."""
    text = text.strip()
    if turn_class == TurnClass.CONFIRMATION or not text:
        return False
    if turn_class == TurnClass.INFORMATION_CHANGE:
        return len(text.split()) >= 2 or bool(re.search(HAN + "{4,}", text))
    if text.endswith(("?", "？")) or rule_importance(text) == 2:
        return False
    return bool(FIRST_PERSON_CUES.search(text)) and (len(text.split()) >= 4
                                                     or bool(re.search(HAN + "{6,}", text)))
