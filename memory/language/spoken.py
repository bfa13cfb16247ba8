"""Values as a person says them aloud: "19:00" is "7 pm" (晚上7点), "saturday" is "Saturday" (周六).

The state stores values in one normal form so that they compare; whatever the agent
says aloud — a question, a read-back, the opening line — goes through here so that no
"19:00", "next friday" or "03-09" is read out as stored.
"""

from __future__ import annotations

import re

from monologue.memory.language.numbers import MONTHS, WEEKDAYS, ZH_WEEKDAYS

_ZH_WEEKDAY = {english: "周" + han for han, english in ZH_WEEKDAYS.items() if han != "天"}
_ZH_RELATIVE = {"today": "今天", "tomorrow": "明天", "day after tomorrow": "后天", "in 3 days": "大后天",
                "weekend": "这个周末", "next weekend": "下个周末", "yesterday": "昨天", "day before yesterday": "前天"}
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
_MONTH_DAY = re.compile(r"^(\d{2})-(\d{2})$")
_DAY_OF_MONTH = re.compile(r"^day (\d{1,2})$")
_DAY_OF_NEXT_MONTH = re.compile(r"^next month day (\d{1,2})$")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def spoken_time(value: str, language: str = "en") -> str:
    """'19:00' → '7 pm' / '晚上7点'; '12:30' → '12:30 pm' / '中午12点半'; other text as it is."""
    m = _TIME.match(str(value).strip())
    if not m:
        return str(value)
    hour, minute = int(m.group(1)) % 24, int(m.group(2))
    if language == "zh":
        part = ("凌晨" if hour < 5 else "早上" if hour < 9 else "上午" if hour < 12 else "中午" if hour < 13
                else "下午" if hour < 18 else "晚上")
        twelve = hour if hour <= 12 else hour - 12
        tail = "" if minute == 0 else "半" if minute == 30 else f"{minute}分"
        return f"{part}{twelve}点{tail}"
    if hour == 12 and minute == 0:
        return "noon"
    if hour == 0 and minute == 0:
        return "midnight"
    twelve = hour % 12 or 12
    clock = f"{twelve}" if minute == 0 else f"{twelve}:{minute:02d}"
    return f"{clock} {'am' if hour < 12 else 'pm'}"


def spoken_date(value: str, language: str = "en") -> str:
    """'saturday' → 'Saturday' / '周六'; 'next friday' → 'next Friday' / '下周五'; '03-09' → 'March 9th' / '3月9日'."""
    text = str(value).strip().lower()
    if text.endswith(" after next") and text[:-11] in WEEKDAYS:
        day = text[:-11]
        return "大下" + _ZH_WEEKDAY[day] if language == "zh" else f"the {day.title()} after next"
    nxt, last = text.startswith("next "), text.startswith("last ")
    day = text[5:] if nxt or last else text
    if day in WEEKDAYS:
        if language == "zh":
            return ("下" if nxt else "上" if last else "") + _ZH_WEEKDAY[day]
        return ("next " if nxt else "last " if last else "") + day.title()
    if language == "zh" and text in _ZH_RELATIVE:
        return _ZH_RELATIVE[text]
    m = _MONTH_DAY.match(text)
    if m:
        month, date = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12:
            return f"{month}月{date}日" if language == "zh" else f"{MONTHS[month - 1].title()} {_ordinal(date)}"
    m = _DAY_OF_MONTH.match(text)
    if m:
        return f"{int(m.group(1))}号" if language == "zh" else f"the {_ordinal(int(m.group(1)))}"
    m = _DAY_OF_NEXT_MONTH.match(text)
    if m:
        return f"下个月{int(m.group(1))}号" if language == "zh" else f"the {_ordinal(int(m.group(1)))} of next month"
    return str(value)


_RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "day after tomorrow": 2, "in 3 days": 3}


def absolute_date(value: str, at: float) -> str:
    """A relative day ("tomorrow") as the weekday it meant when said at `at` ("saturday"), so a
    record read out next week still names the right day; other dates as they are."""
    import datetime as dt

    offset = _RELATIVE_DAYS.get(str(value).strip().lower())
    if offset is None:
        return str(value)
    return WEEKDAYS[(dt.datetime.fromtimestamp(at) + dt.timedelta(days=offset)).weekday()]
