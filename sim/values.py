"""Values as a simulated user says them, and as it finds them again in the agent's words.

Canonical forms (what goals hold and scores compare): int → int, time → "HH:MM",
date → a weekday name ("friday") or an ISO date, money → float, enum → the value's name,
text → the string, bool → True/False. Surfaces are the simulator's own, written apart
from the agent's readers.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = ("一", "二", "三", "四", "五", "六", "日")
EN_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
              "twelve")
ZH_DIGITS = "零一二三四五六七八九"


def zh_number(n: int) -> str:
    """1–99 in Chinese characters (两 for a lone 2 before a measure word is left to the template)."""
    if n < 10:
        return ZH_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else ZH_DIGITS[tens]) + "十" + (ZH_DIGITS[ones] if ones else "")


def hhmm(hour: int, minute: int = 0) -> str:
    return f"{hour:02d}:{minute:02d}"


def time_surfaces(value: str, language: str) -> list[str]:
    hour, minute = (int(p) for p in value.split(":"))
    twelve = hour % 12 or 12
    if language == "zh":
        part = "上午" if hour < 11 else ("中午" if hour < 13 else ("下午" if hour < 18 else "晚上"))
        tail = "点" + ("半" if minute == 30 else (f"{minute}分" if minute else ""))
        return [f"{part}{twelve}{tail}", f"{part}{zh_number(twelve)}{tail}", f"{hour}:{minute:02d}"]
    meridiem = "am" if hour < 12 else "pm"
    clock = f"{twelve}:{minute:02d}" if minute else f"{twelve}"
    out = [f"{clock} {meridiem}", f"{clock}{meridiem}", f"{twelve}:{minute:02d} {meridiem}"]
    if hour >= 17:
        out.append(("half past " + EN_NUMBERS[twelve] if minute == 30 else EN_NUMBERS[twelve] + (
            f" {minute}" if minute else "")) + " in the evening")
    elif hour >= 12:
        out.append(("half past " + EN_NUMBERS[twelve] if minute == 30 else EN_NUMBERS[twelve]) + " in the afternoon")
    else:
        out.append(("half past " + EN_NUMBERS[twelve] if minute == 30 else EN_NUMBERS[twelve]) + " in the morning")
    return list(dict.fromkeys(out))


def date_surfaces(value: str, language: str, today: dt.date | None) -> list[str]:
    """A weekday (or ISO date) as a person says it; "tomorrow" only when it is tomorrow."""
    day = weekday_of(value, today)
    out: list[str] = []
    if day is not None:
        index = WEEKDAYS.index(day)
        if language == "zh":
            out = [f"周{ZH_WEEKDAYS[index]}", f"星期{ZH_WEEKDAYS[index]}", f"这周{ZH_WEEKDAYS[index]}"]
            out = [s.replace("周日", "周日").replace("星期日", "星期天") for s in out]
        else:
            out = [day.capitalize(), f"this {day.capitalize()}", f"{day.capitalize()}"]
        if today is not None and WEEKDAYS[(today.weekday() + 1) % 7] == day:
            out.append("明天" if language == "zh" else "tomorrow")
    return out or [value]


def weekday_of(value: Any, today: dt.date | None) -> str | None:
    """The weekday a date value names: a weekday, an ISO date, today or tomorrow."""
    text = str(value).strip().lower()
    for day in WEEKDAYS:
        if day in text:
            return day
    try:
        return WEEKDAYS[dt.date.fromisoformat(text[:10]).weekday()]
    except ValueError:
        pass
    if today is not None:
        if text in ("today", "今天", "tonight", "今晚"):
            return WEEKDAYS[today.weekday()]
        if text in ("tomorrow", "明天"):
            return WEEKDAYS[(today.weekday() + 1) % 7]
    return None


def int_surfaces(value: int, language: str) -> list[str]:
    if language == "zh":
        return [str(value), zh_number(value)]
    return [str(value)] + ([EN_NUMBERS[value]] if 0 <= value < len(EN_NUMBERS) else [])


def money_surfaces(value: float, language: str) -> list[str]:
    amount = f"{value:.2f}" if value != int(value) else str(int(value))
    if language == "zh":
        return [f"{amount}元", f"{amount}块"]
    return [f"${amount}", f"{amount} dollars"]


def surfaces(kind: str, value: Any, language: str, *, today: dt.date | None = None,
             words: dict[str, list[str]] | None = None) -> list[str]:
    """Ways to say `value` of a key of type `kind`; `words` gives an enum value's own words."""
    if kind == "time":
        return time_surfaces(str(value), language)
    if kind == "date":
        return date_surfaces(str(value), language, today)
    if kind == "int":
        return int_surfaces(int(value), language)
    if kind == "money":
        return money_surfaces(float(value), language)
    if kind == "enum":
        own = list((words or {}).get(str(value)) or [])
        return own or [str(value).replace("_", " ")]
    if kind == "bool":
        return ["yes" if value else "no"] if language == "en" else (["要"] if value else ["不要"])
    return [str(value)]


def say(kind: str, value: Any, language: str, rng: random.Random, **kwargs: Any) -> str:
    return rng.choice(surfaces(kind, value, language, **kwargs))


# --- finding values again in the agent's words ------------------------------------------

_EN_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])", re.I)
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_ZH_TIME = re.compile(r"(凌晨|早上|上午|中午|下午|傍晚|晚上)?\s*"
                      r"(\d{1,2}|[一二三四五六七八九十两]{1,3})\s*[点點](半|(\d{1,2})分)?")
_ZH_PARTS = {"下午": 12, "傍晚": 12, "晚上": 12}


def _zh_int(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    text = text.replace("两", "二")
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (ZH_DIGITS.index(tens) if tens else 1) * 10 + (ZH_DIGITS.index(ones) if ones else 0)
    return ZH_DIGITS.index(text) if len(text) == 1 and text in ZH_DIGITS else None


def times_in(text: str) -> list[str]:
    """Clock times the text names, as HH:MM."""
    found: list[str] = []
    for match in _EN_TIME.finditer(text):
        hour, minute = int(match.group(1)) % 12, int(match.group(2) or 0)
        if match.group(3).lower().startswith("p"):
            hour += 12
        found.append(hhmm(hour, minute))
    for match in _CLOCK.finditer(text):
        found.append(hhmm(int(match.group(1)), int(match.group(2))))
    for match in _ZH_TIME.finditer(text):
        said_hour = _zh_int(match.group(2))
        if said_hour is None or said_hour > 24:
            continue
        hour = said_hour
        minute = 30 if match.group(3) == "半" else int(match.group(4) or 0)
        if match.group(1) in _ZH_PARTS and hour < 12:
            hour += 12
        found.append(hhmm(hour, minute))
    return list(dict.fromkeys(found))


_EN_INT = re.compile(r"\b(\d+|" + "|".join(EN_NUMBERS[1:]) + r")\b", re.I)
_ZH_INT = re.compile(r"(\d+|[一二三四五六七八九十两]{1,3})(?=\s*(个人|位|人|度|摄氏度))")


def ints_in(text: str, language: str) -> list[int]:
    out: list[int] = []
    if language == "zh":
        for match in _ZH_INT.finditer(text):
            n = _zh_int(match.group(1))
            if n is not None:
                out.append(n)
    for match in _EN_INT.finditer(re.sub(r"\d{1,2}:\d{2}", " ", text)):
        word = match.group(1).lower()
        out.append(int(word) if word.isdigit() else EN_NUMBERS.index(word))
    return out


def weekdays_in(text: str, language: str, today: dt.date | None) -> list[str]:
    lowered = text.lower()
    found = [d for d in WEEKDAYS if d in lowered]
    if language == "zh":
        for index, ch in enumerate(ZH_WEEKDAYS):
            if any(f"{p}{ch}" in text for p in ("周", "星期", "礼拜")) or (ch == "日" and "星期天" in text):
                found.append(WEEKDAYS[index])
    if today is not None:
        if "tomorrow" in lowered or "明天" in text:
            found.append(WEEKDAYS[(today.weekday() + 1) % 7])
        if "today" in lowered or "tonight" in lowered or "今天" in text or "今晚" in text:
            found.append(WEEKDAYS[today.weekday()])
    return list(dict.fromkeys(found))


def mentions(kind: str, value: Any, text: str, language: str, *, today: dt.date | None = None,
             words: dict[str, list[str]] | None = None) -> bool:
    """Whether `text` names `value` (any of its surfaces, or the same value in another form)."""
    if value is None:
        return False
    if kind == "time":
        return str(value) in times_in(text)
    if kind == "date":
        return weekday_of(value, today) in weekdays_in(text, language, today)
    if kind == "int":
        return int(value) in ints_in(text, language)
    if kind == "money":
        amounts = [float(m) for m in re.findall(r"\d+(?:\.\d+)?", text)]
        return float(value) in amounts
    lowered = text.lower()
    forms = surfaces(kind, value, language, today=today, words=words) + [str(value).replace("_", " ")]
    # A Latin form is a whole word: "on" is not in "Done: route set", nor "up" in "updated".
    return any(re.search(r"(?<![a-z])" + re.escape(s.lower()) + r"(?![a-z])", lowered) if s.isascii()
               else s.lower() in lowered for s in forms if s)


def same_value(kind: str, goal: Any, held: Any, *, today: dt.date | None = None) -> bool:
    """Whether the agent's stored value `held` is the goal's value (both canonical, loosely)."""
    if held is None:
        return False
    if isinstance(held, (list, tuple, set)):
        return any(same_value(kind, goal, h, today=today) for h in held)
    if kind == "date":
        return weekday_of(goal, today) is not None and weekday_of(goal, today) == weekday_of(held, today)
    if kind == "time":
        found = times_in(str(held)) or ([str(held)] if re.fullmatch(r"\d{2}:\d{2}", str(held)) else [])
        return str(goal) in found
    if kind in ("int", "money"):
        try:
            return abs(float(str(held).lstrip("$¥£€")) - float(goal)) < 0.005
        except ValueError:
            return False
    if kind == "bool":
        return bool(goal) == (str(held).lower() in ("true", "1", "yes"))
    return _norm(goal) == _norm(held) or (kind == "text" and _norm(goal) in _norm(held))


def _norm(value: Any) -> str:
    return re.sub(r"[\s_\-'.]+", " ", str(value).lower()).strip()
