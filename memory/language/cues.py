"""Cue words in English and Chinese: what marks a statement as a preference, a need,
an identity, a plan, small talk, a yes or a no.

Each pattern covers both languages; callers never branch on the language to pick one.
"""

from __future__ import annotations

import re

from monologue.memory.working.turn_classes import NO_EN, YES_EN

SAFETY_CUES = re.compile(r"\b(?:allerg\w*|epipen|asthma|diabet\w*|pregnan\w*|medic\w*|wheelchair|seizure|emergency|"
                    r"heart condition|blood pressure|disab\w*)\b|过敏|哮喘|糖尿病|怀孕|药|轮椅", re.IGNORECASE)
PREFERENCE_CUES = re.compile(r"\b(?:i (?:always|never|usually|prefer|hate|love|like|dislike|can'?t stand|"
                             r"don'?t like|want)|my favou?rite|please (?:always|never|don'?t))\b|"
                             r"我(?:喜欢|不喜欢|讨厌|习惯|总是|从不|偏好)|别再", re.IGNORECASE)
ROUTINE_CUES = re.compile(r"\b(?:route|commute|seat|temperature|climate|heating|parking|highway|toll|traffic|jam)\b|"
                     r"路线|座椅|温度|空调|停车|高速|堵", re.IGNORECASE)
IDENTITY_CUES = re.compile(r"\b(?:my name is|call me|i live|i work|my (?:wife|husband|son|daughter|kids?|children|"
                           r"partner|mom|mother|dad|father|birthday|address))\b|"
                           r"我叫|我住|我的(?:孩子|老婆|老公|生日)", re.IGNORECASE)
PLAN_CUES = re.compile(r"\b(?:tomorrow|next (?:week|month|year)|on (?:monday|tuesday|wednesday|thursday|friday|"
                       r"saturday|sunday)|appointment|meeting|plan(?:ning)? to|going to|will)\b|"
                       r"明天|下周|计划|打算|预约", re.IGNORECASE)
SMALL_TALK_CUES = re.compile(r"^\W*(?:hi|hello|hey|thanks|thank you|ok(?:ay)?|cool|nice|great|haha|lol|bye|"
                        r"good (?:morning|night))\b", re.IGNORECASE)

# How long a dated statement stays true, in days, by the time it names.
HORIZONS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b|今天|今晚", re.I), 1.0),
    (re.compile(r"\btomorrow\b|明天", re.I), 2.0),
    (re.compile(r"\b(?:this week|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|"
                r"这周|本周|(?:周|星期)[一二三四五六日天]", re.I), 7.0),
    (re.compile(r"\bnext week\b|下周", re.I), 14.0),
    (re.compile(r"\bnext month\b|下个月", re.I), 45.0),
)


_CJK = re.compile(r"[\u4e00-\u9fff]")


def language_of(text: str) -> str:
    """'zh' when the text has Chinese characters, else 'en'."""
    return "zh" if _CJK.search(text) else "en"


# --- long-term memory: answers to its questions, the past, first person, promises --------

# A yes or no to a question memory asked ("has that changed?", "shall I go ahead?"):
# the turn classifier's English lexicons, plus the ways Chinese answers those questions.
ANSWER_YES = re.compile(r"^\W*(?:" + YES_EN + r")\b|^(?:好的?|对的?|是的?|嗯|可以|行|没错|变了|确定)", re.IGNORECASE)
ANSWER_NO = re.compile(r"^\W*(?:" + NO_EN + r"|not anymore)\b|^(?:不|没有|没变|不用|不要)", re.IGNORECASE)
PAST_CUES = re.compile(r"\b(?:last time|before|earlier|previous(?:ly)?|remember|we talked|you said)\b|"
                       r"上次|之前|以前|记得", re.IGNORECASE)
# What the agent said it would do: kept as a commitment and checked before the next conversation.
PROMISE_CUES = re.compile(r"\bI(?:'ll| will) (?:remind|send|book|check|call|follow up|look into|get back|let you know|"
                          r"find)\b[^.!?]*", re.IGNORECASE)
FIRST_PERSON_CUES = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|we|we're|our|us)\b|我", re.IGNORECASE)


def yes_or_no(text: str) -> bool | None:
    """True for a yes, False for a no, None when it is neither. A no is looked for first:
    a no misread as a yes would replace what the user meant to keep."""
    if ANSWER_NO.search(text):
        return False
    if ANSWER_YES.search(text):
        return True
    return None
