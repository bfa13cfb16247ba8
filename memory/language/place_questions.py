"""A question about a place on offer: "do they have parking?", "can I bring my dog?", 有包间吗.

With a place offered or chosen, such a question is about that place, whatever it names; the
catalogue answers it (`memory/domain/catalogue.py`, `answer_about`), or says its listing does
not. It is told apart here from the user's own booking ("can I change the time?", 能改时间吗), a
request for another place (有没有别的) and a question about the world ("is it going to rain?").
"""

from __future__ import annotations

import re

from monologue.memory.language.cues import language_of
from monologue.memory.language.stances import LEAD_IN_EN, YES_NO_QUESTION_ZH
from monologue.memory.language.wishes import qualities_named

# A yes/no question about a place or what one may do there ("do they have parking?", "can I bring
# my dog?", "is there a private room?", 可以带狗吗, 有包间吗, 能刷卡吗): with a place offered or chosen,
# it asks about that place, whatever it names. Not the user's own state ("is it for four?", 我订的是
# 几点) nor a request to the agent ("can you…", 你能…); a request that sets something ("can I have
# a window seat?") is read as one before this is asked.
PLACE_QUESTION_EN = re.compile(
    r"^(?:(?:do|does|will|would|can|could|may)\s+(?:they|the (?:place|restaurant)|i|we|dogs?|kids?|children|"
    r"guests?|people)\b|does it\b|(?:is|are)\s+(?:there|it|they|(?:the|that|this) (?:place|restaurant|one))\b|"
    r"(?:are|is)\s+(?:dogs?|kids?|children|pets?)\b|"
    r"(?:do you know|any idea)\s+(?:if|whether)\b)", re.IGNORECASE)
# What a place is like, asked outright ("what's the atmosphere like there?", "how's the vibe?", 环境怎么样,
# 那家是什么样的): its description answers it.
WHAT_IT_IS_LIKE = {
    "en": re.compile(r"\b(?:what'?s|what is|how'?s|how is)\s+(?:the\s+)?(?:atmosphere|vibe|ambien[cs]e|decor|feel|"
                     r"setting|crowd|place|restaurant|it)\b(?:\s+like)?|"
                     r"\bwhat (?:kind|sort) of (?:place|vibe|atmosphere)|"
                     r"\bwhat'?s (?:it|that place|the place|that one) like\b", re.IGNORECASE),
    "zh": re.compile(r"环境(?:怎么样|如何|好不好|咋样)|氛围(?:怎么样|如何)|(?:是|长)?什么样的?(?:地方|店)?[？?]|"
                     r"感觉怎么样|装修(?:怎么样|如何)|那家(?:店)?怎么样|这家(?:店)?怎么样")}
_PLACE_VERB_ZH = re.compile(r"有|可以|能|让|允许|方便|提供|支持|带|收")
# Not a question about the place: the agent ("你能…"), the user's own words (记得, 我订的), another
# place (有没有别的: the options answer it), or whether it can be booked (还有位子吗, 能订到吗: the
# booking answers that).
# ("能改时间吗", "is it confirmed?", "will I get a text?": the booking's, not the place's; 有没有安静
# 一点的 asks for another place.)
_NOT_ABOUT_A_PLACE_ZH = re.compile(r"你|记得|说过|提过|我[订定要说的]|别的|其他|其它|另外|换|订|位子|空位|有位|桌|"
                                   r"改|确认|取消|帮我|短信|通知|附近|哪里|哪儿|"
                                   r"有没有[^，。？?吗]{1,8}的[吗呢]?[?？。]?\s*$")
_NOT_ABOUT_A_PLACE_EN = re.compile(r"\b(?:going to|gonna|rain|snow|other|else|another|different|instead|book|booking|"
                                   r"reserv\w*|available|availability|tables?|room for|space for|seats?|change|move|"
                                   r"confirm\w*|done|cancel\w*|text|email|message|call me|remind|anywhere|somewhere|"
                                   r"any ?place|places)\b",
                                   re.IGNORECASE)


def asks_about_a_place(sentence: str) -> bool:
    """Whether `sentence` is a yes/no question about a place or what one may do there."""
    stripped = sentence.strip()
    if not stripped:
        return False
    if language_of(stripped) == "zh":
        asks = bool(YES_NO_QUESTION_ZH.search(stripped)) or bool(re.search(r"(?:吗|行不行|可不可以|能不能)[?？。]?\s*$",
                                                                            stripped))
        # (A bare 可以吗, 行吗 answers an offer with a question; it asks nothing about the place.)
        named = re.sub(r"[吗么呢吧啊呀，。？?！!\s]|可以|能|行|有|不", "", stripped)
        # (…or what it is like: 那家吵不吵？环境安静吗？)
        # (你推荐的那家是什么样的？: what the place offered is like, whoever offered it; not another place)
        if WHAT_IT_IS_LIKE["zh"].search(stripped) and not re.search(r"别的|其他|其它|另外|换", stripped):
            return True
        return asks and bool(named) and bool(_PLACE_VERB_ZH.search(stripped) or qualities_named(stripped, "zh")) \
            and not _NOT_ABOUT_A_PLACE_ZH.search(stripped)
    stripped = LEAD_IN_EN.sub("", stripped) or stripped
    return bool(PLACE_QUESTION_EN.match(stripped) or WHAT_IT_IS_LIKE["en"].search(stripped)) \
        and not _NOT_ABOUT_A_PLACE_EN.search(stripped)
