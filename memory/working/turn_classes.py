"""Turn classifier (seed 000 §3.1): information change, confirmation or chit-chat.

Only the first two need the monologue; chit-chat is answered from the current
state. Rules first, in English and Chinese: they are instant and predictable. The
language's cue words come from `memory/language/cues.py`, the domain's from its YAML
(`turn_cues:`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import (
    CHANGE_CUES_ZH,
    CHANGE_VERBS,
    CHANGE_WORDS_EN,
    NO_EN,
    YES_EN,
    cue_pattern,
)


class TurnClass(StrEnum):
    INFORMATION_CHANGE = "information_change"
    CONFIRMATION = "confirmation"
    CHIT_CHAT = "chit_chat"

    @property
    def triggers_monologue(self) -> bool:
        return self is not TurnClass.CHIT_CHAT


@dataclass(frozen=True)
class TurnClassification:
    turn_class: TurnClass
    cues: tuple[str, ...]


_EN_CONFIRM_START = re.compile(
    r"^(?:" + YES_EN + "|" + NO_EN + r"|the (?:first|second|third|last) one)\b", re.IGNORECASE)
_ZH_CONFIRM = re.compile(
    r"^(?:好的?|对的?|是的?|嗯|可以|行|没错|没问题|确定|确认|就这样|就这个|不行|不要|不对|换一个|第[一二三四五]个)"
    r"[吧啊呀嗯了，。！!,. ]*(?:谢谢)?[。！!. ]*$"
)
_EN_NEGATION = re.compile(r"\b(?:no|not|nothing|without|avoid|never)\s+(?!thanks|thank|problem|worries|way)[a-z]{3,}")
_EN_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|hundred)\b",
    re.IGNORECASE,
)
_ZH_NUMBER = re.compile(r"[0-9零一二两三四五六七八九十百千万]")
_MAX_CONFIRM_WORDS = 10


@dataclass(frozen=True)
class TurnCues:
    """The change cues of one domain: the language's generic words plus the domain's own."""

    en: re.Pattern[str]
    zh: re.Pattern[str]


@lru_cache(maxsize=16)
def _cues(en_words: tuple[str, ...], zh_words: tuple[str, ...]) -> TurnCues:
    return TurnCues(re.compile(cue_pattern(CHANGE_WORDS_EN + en_words, spaced=True)),
                    re.compile("|".join(CHANGE_CUES_ZH + tuple(re.escape(w) for w in zh_words))))


def turn_cues(schema: DomainSchema | None = None) -> TurnCues:
    """The cues for `schema`'s domain (generic cues alone without one)."""
    if schema is None:
        return _cues((), ())
    return _cues(schema.turn_cues.get("en", ()), schema.turn_cues.get("zh", ()))


def classify_turn(text: str, reads_condition: Callable[[str], bool] | None = None, *,
                  schema: DomainSchema | None = None) -> TurnClassification:
    """Classify one user utterance; empty text is chit-chat (nothing to remember).

    `reads_condition`: the domain's rule extractor; an utterance it can read a condition
    from is an information change whatever its wording ("And nothing spicy").
    `schema`: the domain whose own words are change cues too ("table", "route").
    """
    stripped = text.strip()
    if not stripped:
        return TurnClassification(TurnClass.CHIT_CHAT, ())
    cues_of_domain = turn_cues(schema)
    lowered = stripped.lower()
    cues: list[str] = [m.group(0) for m in _EN_NEGATION.finditer(lowered)][:2]
    cues += [m.group(0) for m in cues_of_domain.en.finditer(lowered)][:4]
    cues += [m.group(0) for m in cues_of_domain.zh.finditer(stripped)][:4]
    if _EN_NUMBER.search(lowered) or _ZH_NUMBER.search(stripped):
        cues.append("number")
    # A lone weak cue ("I like the weather") is not enough; two cues or a change verb are.
    changes = len(cues) >= 2 or any(c in CHANGE_VERBS for c in cues)
    short = len(lowered.split()) <= _MAX_CONFIRM_WORDS
    if not changes and ((_EN_CONFIRM_START.match(lowered) and short) or _ZH_CONFIRM.match(stripped)):
        return TurnClassification(TurnClass.CONFIRMATION, ("confirmation phrase",))
    if changes:
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues))
    if reads_condition is not None and reads_condition(stripped):
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("rules read a condition",))
    return TurnClassification(TurnClass.CHIT_CHAT, tuple(cues))
