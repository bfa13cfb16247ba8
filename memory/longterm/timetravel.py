"""Time travel (seed 001, L13): "the plan I mentioned last week — change it to Friday".

The request names a time ("last week", "上周") and an item ("the plan", "the dinner");
the item is found among that window's memories, the change is applied as a new memory
that replaces the old one, and the audit log keeps both (before → after).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from monologue.memory.language.cues import PLAN_CUES
from monologue.memory.language.numbers import WEEKDAY_PATTERN, WEEKDAYS, ZH_WEEKDAY_PATTERN, time_window
from monologue.memory.language.phrases import say
from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.longterm.retrieval import BM25, tokenize

_ITEMS_EN = r"plan|booking|reservation|appointment|meeting|trip|dinner|lunch|party|visit|call|idea|table"
_REQUEST_EN = re.compile(
    r"\b(?:the|that|my|our)\s+(?P<what>(?:[\w'-]+\s+){0,3}?(?:" + _ITEMS_EN + r"))\b"
    r"(?P<rest>.*)", re.IGNORECASE)
_MENTIONED_EN = re.compile(r"\b(?:i|we)\s+(?:mentioned|made|talked about|told you about|discussed|planned|"
                           r"booked|set up|had)\b|\bfrom\b", re.IGNORECASE)
_CHANGE_EN = re.compile(r"\b(?:change|move|switch|make|push|reschedule|shift|put)\b(?:\s+[\w'-]+){0,9}?"
                        r"\s+(?:to|on|for)\s+(?P<to>(?:next\s+)?(?:" + WEEKDAY_PATTERN + r"|tomorrow|tonight|today)|"
                        r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|"
                        r"\d{1,2}\s*o'?clock)", re.IGNORECASE)
_REQUEST_ZH = re.compile(r"(?:上周|上星期|上个星期|上次|上个月|前几天|昨天)(?:我|我们)?(?:说|提|讲|定|订|约)(?:过)?的"
                         r"(?:那个)?(?P<what>[\u4e00-\u9fff]{1,6}?)(?:[，,。]|\s)*"
                         r"(?:改|换|挪|调)(?:到|成|在)(?P<to>(?:下)?" + ZH_WEEKDAY_PATTERN + r"|明天|后天|今天|今晚|"
                         r"[零一二三四五六七八九十两\d]{1,3}点)")
_WHEN_EN = re.compile(r"\b(?:on\s+)?(?:next\s+)?(?:" + WEEKDAY_PATTERN + r"|tomorrow|tonight|today)\b",
                      re.IGNORECASE)
_TIME_EN = re.compile(r"\b(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}\s*o'?clock\b", re.IGNORECASE)
_WHEN_ZH = re.compile(r"(?:下)?" + ZH_WEEKDAY_PATTERN + r"|明天|后天|今天|今晚")
_TIME_ZH = re.compile(r"[零一二三四五六七八九十两\d]{1,3}点(?:半)?")


@dataclass(frozen=True)
class TimeTravelRequest:
    what: str            # "plan", "dinner with Anna"
    to: str              # "Friday", "7 pm", "周五"
    window: tuple[float, float]
    language: str


@dataclass(frozen=True)
class TimeTravelMatch:
    request: TimeTravelRequest
    item: MemoryRecord
    new_text: str

    def confirmation(self) -> str:
        day = dt.datetime.fromtimestamp(self.item.created_at).strftime("%Y-%m-%d")
        return say("travel.done", self.request.language, day=day, before=self.item.text, after=self.new_text)


def parse_request(text: str, now: float) -> TimeTravelRequest | None:
    window = time_window(text, now)
    if window is None and not re.search(r"上次|\blast time\b|\bbefore\b", text, re.IGNORECASE):
        return None
    window = window or (0.0, now)
    zh = _REQUEST_ZH.search(text)
    if zh:
        return TimeTravelRequest(zh.group("what"), zh.group("to"), window, "zh")
    request = _REQUEST_EN.search(text)
    if not request or not _MENTIONED_EN.search(request.group("rest")):
        return None
    change = _CHANGE_EN.search(text)
    if not change:
        return None
    return TimeTravelRequest(request.group("what").strip(), change.group("to").strip(), window, "en")


def _is_plan(record: MemoryRecord) -> bool:
    if record.source == "plan":           # the agent's suggestion counts once the user accepted it
        return record.context.get("status") == "accepted"
    return record.source == "user_stated" and bool(PLAN_CUES.search(record.text) or _WHEN_EN.search(record.text)
                                             or _WHEN_ZH.search(record.text))


def rewrite(text: str, to: str, language: str) -> str:
    """The item with its day or time replaced by the new one (or, when it names none,
    the new one added after it). The language picks the patterns that find a day or time."""
    if language == "zh":
        at_time = bool(_TIME_ZH.fullmatch(to))
        pattern = _TIME_ZH if at_time else _WHEN_ZH
        if pattern.search(text):
            return pattern.sub(to, text, count=1)
        return text + say("travel.now_at" if at_time else "travel.moved_to", language, to=to)
    if _TIME_EN.fullmatch(to) or re.fullmatch(r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}\s*o'?clock", to, re.I):
        return _TIME_EN.sub(f"at {to}", text, count=1) if _TIME_EN.search(text) else text + say(
            "travel.now_at", language, to=to)
    day = to[0].upper() + to[1:] if to.lower().split()[-1] in WEEKDAYS else to

    def replace(match: re.Match[str]) -> str:
        return ("on " if match.group(0).lower().startswith("on ") else "") + day

    return _WHEN_EN.sub(replace, text, count=1) if _WHEN_EN.search(text) else text + say(
        "travel.moved_to", language, to=day)


def find_item(request: TimeTravelRequest, records: list[MemoryRecord], session_id: str = "") -> MemoryRecord | None:
    """The plan in the window (from an earlier session) that best matches the words
    naming it; the latest on a tie."""
    start, end = request.window
    candidates = [r for r in records if r.current and r.kind == "memory" and start <= r.created_at <= end
                  and _is_plan(r) and not (session_id and r.session_id == session_id)]
    if not candidates:
        return None
    words = [w for w in tokenize(request.what) if w not in ("plan", "计划")]
    if words:
        scores = BM25([r.text for r in candidates]).scores(" ".join(words))
        best = max(range(len(candidates)), key=lambda i: (scores[i], candidates[i].created_at))
        return candidates[best]
    return max(candidates, key=lambda r: r.created_at)


def match(text: str, records: list[MemoryRecord], now: float, session_id: str = "") -> TimeTravelMatch | None:
    request = parse_request(text, now)
    if request is None:
        return None
    item = find_item(request, records, session_id)
    if item is None:
        return None
    return TimeTravelMatch(request, item, rewrite(item.text, request.to, request.language))
