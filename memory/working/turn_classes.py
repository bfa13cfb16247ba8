"""Turn classifier (seed 000 §3.1): information change, confirmation or chit-chat.

Only the first two need the monologue; chit-chat is answered from the current
state. Rules first, in English and Chinese: they are instant and predictable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class TurnClass(str, Enum):
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


YES_EN = (r"(?:yes|yeah|yep|yup|sure|ok|okay|alright|all right|right|correct|exactly|perfect|great|fine|"
          r"(?:that |this |it )?(?:'s |is |would be |sounds |works|will work)?(?:good|great|fine|perfect|right|correct|"
          r"works|wonderful|excellent|awesome|lovely)|sounds \w+|go ahead|please do|do it|book it|works for me|"
          r"confirm\w*|absolutely|definitely|of course|that(?:'s| is) it)")
NO_EN = (r"(?:no|nope|nah|not (?:that|at this time|now|really)|wrong|that'?s (?:wrong|not)|not that one|"
         r"another one|something else|i don'?t think so)")
_EN_CONFIRM_START = re.compile(
    r"^(?:" + YES_EN + "|" + NO_EN + r"|the (?:first|second|third|last) one)\b", re.IGNORECASE)
_ZH_CONFIRM = re.compile(
    r"^(?:好的?|对的?|是的?|嗯|可以|行|没错|没问题|确定|确认|就这样|就这个|不行|不要|不对|换一个|第[一二三四五]个)"
    r"[吧啊呀嗯了，。！!,. ]*(?:谢谢)?[。！!. ]*$"
)
_EN_NEGATION = re.compile(r"\b(?:no|not|nothing|without|avoid|never)\s+(?!thanks|thank|problem|worries|way)[a-z]{3,}")
_CHANGE_VERBS = ("cancel", "forget", "change", "make it", "instead", "actually", "switch",
                 "取消", "改成", "换成", "改")
_MAX_CONFIRM_WORDS = 10

_EN_CHANGE_WORDS = (
    r"\b(?:book|reserve|reservation|table|order|want|need|would like|i'd like|looking for|"
    r"change|make it|instead|actually|switch|move|cancel|forget|remove|drop|add|"
    r"no longer|don't|do not|can't|cannot|won't|without|avoid|allergic|vegetarian|vegan|spicy|"
    r"budget|under|at least|at most|less than|more than|cheaper|price|"
    r"people|persons|guests|party|seat|seats|window|outside|indoor|"
    r"today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"morning|noon|afternoon|evening|night|am|pm|o'clock|"
    r"route|highway|toll|temperature|warmer|cooler|navigate|destination|"
    r"my name|call me|i live|i prefer|i like|i hate|i love|"
    r"quiet|romantic|birthday|anniversary|occasion|celebrat\w*|parking|kids|children|wheelchair|allergy)\b"
)
_EN_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|hundred)\b",
    re.IGNORECASE,
)
_ZH_CHANGE = re.compile(
    r"订|预订|预约|要|想|需要|改|换成|换到|改成|取消|不要|别|不吃|不能|忌口|过敏|预算|以内|以下|不超过|"
    r"人|位|桌|靠窗|包间|点|周[一二三四五六日天]|星期|今天|明天|后天|晚上|中午|早上|下午|"
    r"路线|高速|温度|导航|目的地|座椅|空调|喜欢|讨厌|我叫|住在"
)
_ZH_NUMBER = re.compile(r"[0-9零一二两三四五六七八九十百千万]")


def classify_turn(text: str, reads_condition: Callable[[str], bool] | None = None) -> TurnClassification:
    """Classify one user utterance; empty text is chit-chat (nothing to remember).

    `reads_condition`: the domain's rule extractor; an utterance it can read a condition
    from is an information change whatever its wording ("And nothing spicy").
    """
    stripped = text.strip()
    if not stripped:
        return TurnClassification(TurnClass.CHIT_CHAT, ())
    lowered = stripped.lower()
    cues: list[str] = [m.group(0) for m in _EN_NEGATION.finditer(lowered)][:2]
    cues += [m.group(0) for m in re.finditer(_EN_CHANGE_WORDS, lowered)][:4]
    cues += [m.group(0) for m in _ZH_CHANGE.finditer(stripped)][:4]
    if _EN_NUMBER.search(lowered) or _ZH_NUMBER.search(stripped):
        cues.append("number")
    # A lone weak cue ("I like the weather") is not enough; two cues or a change verb are.
    changes = len(cues) >= 2 or any(c in _CHANGE_VERBS for c in cues)
    short = len(lowered.split()) <= _MAX_CONFIRM_WORDS
    if not changes and ((_EN_CONFIRM_START.match(lowered) and short) or _ZH_CONFIRM.match(stripped)):
        return TurnClassification(TurnClass.CONFIRMATION, ("confirmation phrase",))
    if changes:
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues))
    if reads_condition is not None and reads_condition(stripped):
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("rules read a condition",))
    return TurnClassification(TurnClass.CHIT_CHAT, tuple(cues))
