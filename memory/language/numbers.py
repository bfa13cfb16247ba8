"""Numbers, times and dates in English and Chinese, deterministically.

The small local LLMs read 七点四个人 as 7:40 or 7 people; these rules do not.
"""

from __future__ import annotations

import re

EN_UNITS = {
    "zero": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "couple": 2,
}
EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
           "eighty": 80, "ninety": 90}
_EN_BELOW_HUNDRED = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]"
    # The teens before the units: "nineteen" is not "nine" followed by "teen".
    r"(?:one|two|three|four|five|six|seven|eight|nine))?|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
    r"nineteen|eleven|twelve|one|two|three|four|five|six|seven|eight|nine|ten|zero)"
)
EN_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|(?:" + _EN_BELOW_HUNDRED + r"|an?(?=\s+(?:hundred|thousand)\b))"
    # ("a hundred and twenty", "two hundred fifty"; "two hundred dollars" ends at the hundred)
    r"(?:\s+hundred(?:\s+(?:and\s+)?(?:" + _EN_BELOW_HUNDRED + r"|\d{1,2})(?![\w-]))?|\s+thousand)?)"
)
ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "仨": 3, "四": 4, "五": 5,
             "六": 6, "七": 7, "八": 8, "九": 9}
ZH_NUMBER = r"(?:\d+(?:\.\d+)?|[零〇一二两俩三仨四五六七八九十百千万]+)"

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
               "六": "saturday", "日": "sunday", "天": "sunday"}
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
# The same words as regex alternations, for patterns that name any weekday or month.
WEEKDAY_PATTERN = "(?:" + "|".join(WEEKDAYS) + ")"
MONTH_PATTERN = "(?:" + "|".join(MONTHS) + ")"
ZH_WEEKDAY_PATTERN = "(?:周|星期|礼拜)[一二三四五六日天]"


def en_to_int(text: str) -> int | None:
    """'four' → 4, 'twenty-five' → 25, 'one hundred' → 100, '7' → 7, '2,000' → 2000."""
    t = text.strip().lower().replace(",", "")
    if not t:
        return None
    if re.fullmatch(r"\d+(?:\.\d+)?", t):
        return int(float(t))
    total, current = 0, 0
    for word in re.split(r"[\s-]+", t):
        if word == "and":
            continue
        if word in EN_UNITS:
            current += EN_UNITS[word]
        elif word in EN_TENS:
            current += EN_TENS[word]
        elif word == "dozen":
            current = max(current, 1) * 12
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "thousand":
            total += max(current, 1) * 1000
            current = 0
        elif word.isdigit() and len(word) <= 2 and current:
            current += int(word)        # "two hundred and 50"
        else:
            return None
    return total + current


def zh_to_int(text: str) -> int | None:
    """'四' → 4, '十二' → 12, '二十五' → 25, '五百' → 500, '三百五' → 350, '两千' → 2000."""
    t = text.strip()
    if not t:
        return None
    if re.fullmatch(r"\d+(?:\.\d+)?", t):
        return int(float(t))
    if any(ch not in ZH_DIGITS and ch not in "十百千万" for ch in t):
        return None
    total, section, digit = 0, 0, None
    last_unit = 1
    zero_gap = False
    for ch in t:
        if ch in ZH_DIGITS:
            zero_gap = zero_gap or ZH_DIGITS[ch] == 0
            digit = ZH_DIGITS[ch]
        else:
            unit = {"十": 10, "百": 100, "千": 1000, "万": 10000}[ch]
            if unit == 10000:
                total = (total + section + (digit or 0)) * 10000
                section, digit = 0, None
                last_unit = 10000
                continue
            section += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
    if digit is not None:
        # 三百五 means 350: a trailing digit after a unit is one place lower.
        section += digit * (last_unit // 10 if last_unit >= 100 and not zero_gap else 1)
    return total + section


def to_int(text: str) -> int | None:
    return en_to_int(text) if re.search(r"[a-z0-9]", text.lower()) else zh_to_int(text)


# A sum said as dollars and cents in words, the way prices are read out: "eighty nine ninety nine"
# (89.99), "twelve fifty" (12.50). The cents are two-digit words: "twelve five" is no sum.
_CENTS_EN = r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|" \
            r"seven|eight|nine))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
# (…said with its cents: only then is "it was …" a price, not a count; its hundreds said, "a hundred and
# twenty nine ninety nine", or left out, "two forty nine ninety nine")
_HUNDREDS_EN = r"(?:(?:(?:a|one|two|three|four|five|six|seven|eight|nine)[\s-]+hundred(?:[\s-]+and)?|" \
               r"one|two|three|four|five|six|seven|eight|nine)[\s-]+)"
EN_SUM_WITH_CENTS = _HUNDREDS_EN + r"?(?:" + _EN_BELOW_HUNDRED + r")[\s-]+" + _CENTS_EN + r"(?![\w-])"
EN_SUM = r"(?:" + EN_SUM_WITH_CENTS + r"|" + EN_NUMBER + r"(?:[\s-]+" + _CENTS_EN + r"(?![\w-]))?)"
_SPOKEN_SUM_EN = re.compile(r"(?P<whole>" + EN_NUMBER + r")[\s-]+(?P<cents>" + _CENTS_EN + r")", re.IGNORECASE)


def to_amount(text: str) -> int | float | None:
    """A sum of money as said: '65.99' keeps its cents, '65.00' is 65, "eighty nine ninety nine"
    is 89.99, words as `to_int`."""
    digits = text.strip().replace(",", "")
    if re.fullmatch(r"\d+\.\d+", digits):
        value = float(digits)
        return int(value) if value.is_integer() else round(value, 2)
    spoken = _SPOKEN_SUM_EN.fullmatch(text.strip())
    if spoken is not None and not spoken.group("whole").isdigit():
        whole_said = spoken.group("whole").lower()
        left_out = _HUNDREDS_LEFT_OUT.fullmatch(whole_said)
        whole = _hundreds_left_out(left_out) if left_out is not None else to_int(whole_said)
        cents = to_int(spoken.group("cents"))
        # (Not "one fifty nine": $1.59 or $159, said alike; the amount is asked again.)
        # (and not after a hundred: "three hundred twenty" is 320; "a hundred and twenty nine ninety nine"
        # and "two forty nine ninety nine", their hundreds left out, have cents)
        if whole is not None and cents is not None and 10 <= cents <= 99 and (
                10 <= whole < 100 or whole >= 100 and not re.search(r"(?:hundred|thousand)$", whole_said)):
            return round(whole + cents / 100, 2)
        if whole is not None and whole < 10:
            return None
    left_out_sum = _HUNDREDS_LEFT_OUT_SUM.fullmatch(text.strip().lower())
    if left_out_sum is not None:     # ("two forty nine ninety nine": $249.99)
        cents = to_int(left_out_sum.group("cents")) or 0
        return round(_hundreds_left_out(left_out_sum) + cents / 100, 2)
    return to_int(text)


def _hundreds_left_out(said: re.Match[str]) -> int:
    """'two forty nine' → 249, 'nine oh five' → 905 (a `_HUNDREDS_LEFT_OUT` match)."""
    rest = said.group("rest")
    return (to_int(said.group("h")) or 0) * 100 + (to_int(rest.split()[-1] if rest.startswith("oh") else rest) or 0)


# A sum's hundreds said without the word: "two forty nine" (249), "nine oh five" (905).
_HUNDREDS_LEFT_OUT = re.compile(r"(?P<h>one|two|three|four|five|six|seven|eight|nine)[\s-]+(?P<rest>(?:twenty|thirty|"
                                r"forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|"
                                r"eight|nine))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
                                r"nineteen|oh[\s-](?:one|two|three|four|five|six|seven|eight|nine))")
_HUNDREDS_LEFT_OUT_SUM = re.compile(_HUNDREDS_LEFT_OUT.pattern + r"[\s-]+(?P<cents>" + _CENTS_EN + r")")


_JIAO_AFTER_ZH = re.compile(r"\s*(?:块|元)(?P<j>[一二两三四五六七八九]|\d)(?:毛|角)?"
                            r"(?![\d一二两三四五六七八九十百千万个位人天件份号])")


def with_jiao_zh(n: int | float, text: str, end: int) -> int | float:
    """A sum said in Chinese with its tenths after the unit (六十九块五, 十二块五毛): `n` said up to
    `end`, and the tenths that follow."""
    jiao = _JIAO_AFTER_ZH.match(text, end)
    tenths = to_int(jiao.group("j")) if jiao is not None else None
    return round(n + tenths / 10, 2) if tenths is not None and 0 < tenths < 10 else n


_CENTS_AFTER_EN = re.compile(r"\s*(?:dollars?|bucks|pounds?|euros?)\s+(?:and\s+)?(?P<c>\d{1,2}|" + _CENTS_EN
                             + r"|one|two|three|four|five|six|seven|eight|nine)\s+(?:cents?|pence|p)\b", re.IGNORECASE)


def with_cents_en(n: int | float, text: str, end: int) -> int | float:
    """A sum said in English with its cents after the unit ("forty nine dollars and fifty cents"):
    `n` said up to `end`, and the cents that follow."""
    cents_said = _CENTS_AFTER_EN.match(text, end)
    cents = to_int(cents_said.group("c")) if cents_said is not None else None
    return round(n + cents / 100, 2) if cents is not None and 0 < cents < 100 and float(n).is_integer() else n


def amount_read_two_ways(text: str) -> tuple[float, int] | None:
    """"One fifty nine": $1.59 or $159, said alike (`to_amount` guesses neither); both readings."""
    spoken = _SPOKEN_SUM_EN.fullmatch(text.strip())
    if spoken is None or spoken.group("whole").isdigit():
        return None
    whole, cents = to_int(spoken.group("whole")), to_int(spoken.group("cents"))
    if whole is None or cents is None or not (1 <= whole < 10 and 10 <= cents <= 99):
        return None
    return round(whole + cents / 100, 2), whole * 100 + cents


def format_time(hour: int, minute: int) -> str | None:
    if 0 <= hour <= 24 and 0 <= minute < 60:
        return f"{hour % 24:02d}:{minute:02d}"
    return None


_EN_PERIOD_PM = re.compile(r"\b(?:pm|p\.m\.|afternoon|evening|tonight|night|dinner)\b")
_EN_PERIOD_AM = re.compile(r"\b(?:am|a\.m\.|morning|breakfast)\b")


def en_hour_24(hour: int, text_after: str, whole: str) -> int:
    """Resolve a 12-hour clock reading with the nearest am/pm cue, then the sentence's."""
    near = text_after[:24].lower()
    if re.match(r"\s*(?:am|a\.m\.)|\s*in the morning", near):
        return 0 if hour == 12 else hour
    if re.match(r"\s*(?:pm|p\.m\.)|\s*in the (?:afternoon|evening)|\s*at night|\s*tonight", near):
        return hour if hour == 12 else hour + 12
    lowered = whole.lower()
    if _EN_PERIOD_AM.search(lowered) and not _EN_PERIOD_PM.search(lowered):
        return 0 if hour == 12 else hour
    if _EN_PERIOD_PM.search(lowered):
        return hour if hour == 12 else hour + 12
    # No cue at all: bookings and plans between 1 and 10 o'clock are afternoon or evening far
    # more often than early morning.
    return hour + 12 if 1 <= hour <= 10 else hour


_EN_PERIOD_AFTER = re.compile(r"\s+(?:in the (?:morning|afternoon|evening)|at night|tonight|"
                              r"this (?:morning|afternoon|evening)|tomorrow (?:morning|afternoon|evening|night))\b")


_EN_CLOCK = re.compile(
    # "half seven" is half past seven (British and Irish usage), not half of anything.
    r"\b(?:(?P<half>half past|half|quarter past|quarter to)\s+)?(?P<h>\d{1,2}|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)(?:(?P<sep>[:.])(?P<m>\d{2})|\s+(?P<mw>thirty|fifteen|forty-five|forty five))?"
    r"(?P<ish>-?ish)?(?P<suffix>\s*(?:o'?clock|am|pm|a\.m\.|p\.m\.))?(?![\w:])"
)


# A setting named just before "like 15", "around 20" ("volume to like 15", "the temp at around 20"):
# its level, not a clock time.
_A_SETTING_BEFORE_EN = re.compile(r"\b(?:volume|temp|temperature|fan|heat|heater|heating|ac|a/c|thermostat|brightness|"
                                  r"speed|degrees?)\b[^,.;!?\d]{0,16}$")


# "take it down by one", "warmer by two": how far a change goes, no time.
_HOW_FAR_BY_EN = re.compile(r"\b(?:up|down|back|forward|lower|higher|warmer|cooler|colder|hotter|louder|quieter|"
                            r"softer|brighter|dimmer|more|less|fewer|earlier|later)\s+by\s+$")


def find_en_times(text: str, require_cue: bool = True, hour_asked: bool = False,
                  bounded: bool = False) -> list[tuple[str, int, int]]:
    """(HH:MM, start, end) for clock times; bare numbers count only with a cue
    (am/pm, o'clock, half past, a colon, or 'at' before them). `hour_asked`: the agent has just
    asked what time, so "a booking for eight in the evening" answers it. `bounded`: the time is
    one that may be a bound (`time_bound`), so "after five" and "before ten" say times too."""
    found = []
    lowered = text.lower()
    for m in _EN_CLOCK.finditer(lowered):
        hour = en_to_int(m.group("h"))
        if hour is None or hour > 24:
            continue
        minute = int(m.group("m")) if m.group("m") else 0
        if m.group("mw"):
            minute = {"thirty": 30, "fifteen": 15}.get(m.group("mw"), 45)
        half = m.group("half")
        before = lowered[max(0, m.start() - 12): m.start()]
        if m.group("sep") == "." and require_cue and not (m.group("suffix") or re.search(r"\bat\s+$", before)):
            continue        # "7.30" alone is a sum or a decimal; "7.30 pm", "at 7.30" are times
        if half == "half" and re.match(r"\s+(?:of|people|persons|guests|dollars|bucks|hours?|minutes?|days?)\b",
                                       lowered[m.end():]):
            continue        # "half 2 of them" counts, it tells no time
        cued = bool(m.group("suffix") or m.group("m") or half or m.group("mw") or m.group("ish"))
        # ("Like 7" in speech is about 7, "closer to 8" about 8; "I'd like 2" is no time.)
        # ("a group of like eight", "party of about 6": so many people, no time)
        if not cued and re.search(r"\b(?:at|around|by|about|until|till|(?:closer|nearer) to|"
                                  + (r"after|before|" if bounded else "") +
                                  r"(?<!'d )(?<!would )like)\s+$", before) \
                and not re.search(r"\b(?:party|group|family|team|bunch|crew) of\s+\w+\s+$",
                                  lowered[max(0, m.start() - 32): m.start()]) \
                and not _A_SETTING_BEFORE_EN.search(lowered[max(0, m.start() - 32): m.start()]) \
                and not _HOW_FAR_BY_EN.search(before):
            after = lowered[m.end(): m.end() + 24]
            # ("at one of them" is a place among several, not one o'clock; "like eight or nine
            # people" counts a party)
            # ("call me at 4 1 5 5 5 5 6 6 7 2": a number said digit by digit, no time)
            cued = not re.match(r"\s+\d\s+\d\s+\d\b", after) and not re.match(
                                r"\s*(?:(?:or|to)\s+\w+\s+(?:people|persons|guests|of us|adults)\b|"
                                r"people|persons|guests|of\b|seats|adults|dollars|bucks|degrees?|percent|%|"
                                r"minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|nights?|miles?|km|kilomet|notch|bars?|levels?|"
                                r"stars?|more|up|down)",
                                after)
        if not cued and _EN_PERIOD_AFTER.match(lowered, m.end()):
            # "Nine in the evening", "seven tonight": the part of the day makes it a clock
            # time, unless the number counts something ("a table for two tonight").
            # (asked what time, "a booking for eight in the evening" answers it; "a table for eight" is
            # still a party)
            counted = re.search(r"\b(?:table|party|reservation|booking|book|seats?|us|people|just) (?:for|of)\s+$",
                                lowered[max(0, m.start() - 24): m.start()])
            cued = counted is None or hour_asked and not re.search(r"\b(?:table|party|seats?|us|people) (?:for|of)\s+$",
                                                                 lowered[max(0, m.start() - 24): m.start()])
        if require_cue and not cued:
            continue
        if half in ("half past", "half"):
            minute = 30
        elif half == "quarter past":
            minute = 15
        elif half == "quarter to":
            hour, minute = hour - 1, 45
        if m.group("m") and hour > 12:
            value = format_time(hour, minute)
        else:
            # (the am or pm said with it first: "10am" has no word boundary before its am)
            after = lowered[m.start("suffix"):] if m.group("suffix") else lowered[m.end():]
            value = format_time(en_hour_24(hour, after, lowered) if hour <= 12 else hour, minute)
        if value:
            found.append((value, m.start(), m.end()))
    # Noon and midnight are clock times by name ("at noon", "12 noon"), when no number said one.
    for m in re.finditer(r"\b(?:12\s+)?(?P<name>noon|midday|midnight)\b", lowered):
        if not any(start <= m.start() < end for _, start, end in found):
            found.append(("00:00" if m.group("name") == "midnight" else "12:00", m.start(), m.end()))
    return sorted(found, key=lambda f: f[1])


_ZH_CLOCK = re.compile(
    # 快一点, 晚一点, 多一点: "a bit (faster, later, more)", not one o'clock.
    r"(?<![快慢多少好大小高低早晚近远热冷暖凉轻重稍])(?P<period>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里)?\s*(?P<h>\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*[点點](?:\s*(?P<frac>半|一刻|三刻|(?P<m>\d{1,2}|[零一二三四五六七八九十]{1,3})\s*分|(?P<m2>\d{2}|[一二三四五]?十[一二三四五六七八九]?|零[一二三四五六七八九])(?![个人位口])))?"
    r"|(?P<hh>\d{1,2}):(?P<mm>\d{2})"
)


# Whisper writes a spoken time as a decimal: 七点半 → "7.5", 七点三十 → "7.30", 三点四十五分 →
# "3.45分". Such a number is a time only where the sentence is about a time (a part of the day
# before it or in the sentence, 到/改/订 just before, 分 after two digits) and no unit follows it
# (评分4.5分, 8.5折, 1.5公里).
_ZH_DOT_CLOCK = re.compile(
    r"(?P<period>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里)?\s*(?<![\d.])(?P<h>\d{1,2})[.．](?P<m>[0-5]\d|5)"
    r"(?![\d.])(?P<after>\s*(?:分(?!钟)|点)?)")
_DOT_CLOCK_CUE_BEFORE_ZH = frozenset("到至改成订定约在等是天日号周末")
_NOT_A_CLOCK_AFTER_ZH = re.compile(
    r"\s*(?:分钟|折|公里|千米|米|元|块|倍|星|度|个|人|位|小时|万|%|斤|岁|号|楼|层|寸|升)")


# What a clock time's 一点 follows (改到一点, 明天一点, 周六一点); after any other character 一点 is
# "a little" (放倒一点, 直一点), as it is after the words of `_BEFORE_A_LITTLE_ZH`.
_BEFORE_ONE_OCLOCK_ZH = frozenset("到在约是改订定号天日午晚早等成为周期拜末零一二两三四五六七八九十凌晨点")
# (…and of a thing: 一点动静都没有, 一点消息也没)
_NOT_AT_ALL_ZH = re.compile(r"(?:[\u4e00-\u9fff]{1,3}?(?:都|也)|(?:都|也)?)(?:不|没)(?!行|可以|方便|合适|太|好|成)")
_A_LITTLE_ZH = re.compile(r"一点(?![钟半整过]|\d|[一二三四五六七八九十]+分)")
_BEFORE_A_LITTLE_ZH = frozenset("推前后上下高低大小快慢远近冷热暖凉多少早晚松紧亮暗轻重稍再强弱长短宽窄点"
                                "调挪开放弄移靠往"
                                "静宜淡好净辣甜咸软硬新贵服便清香酸脆嫩温爽稳省闲熟档")   # 安静一点, 便宜一点


def _hour_of_day_zh(hour: int, period: str, text: str) -> int:
    """A clock hour in the half of the day its period says (晚上七点 → 19), or, with none, in
    the evening when the sentence is about a meal or a booking (订七点的位子 → 19)."""
    if period in ("下午", "傍晚", "晚上", "今晚", "明晚", "夜里") and hour < 12:
        return hour + 12
    if period == "中午" and hour < 6:
        return hour + 12
    if not period and 1 <= hour <= 10 and re.search(r"吃饭|晚饭|晚餐|订", text):
        return hour + 12
    return hour


# Words that make a time a bound: "after five", "no later than 4", 三点以后, 十二点之前 (not "till five", said
# of being busy: "I'm at the dentist till five thirty" asks for a call after).
_AT_LEAST_BEFORE_EN = re.compile(r"\b(?:(?:any ?time )?after|not before|no earlier than|from)\s+$", re.IGNORECASE)
_AT_MOST_BEFORE_EN = re.compile(r"\b(?:before|by|no later than|not after)\s+$", re.IGNORECASE)
_ON_AFTER_EN = re.compile(r"\s*(?:o'?clock\s*)?(?:on|onwards?)\b", re.IGNORECASE)
_BOUND_AFTER_ZH = re.compile(r"\s*(?:(?P<ge>以后|之后|过后|后|往后|开始)|(?P<le>以前|之前|前))")
_BOUND_BEFORE_ZH = re.compile(r"(?P<no>不要|别|不能|不用)?(?:(?P<ge>晚于)|(?P<le>早于))\s*$")
_REFUSED_AFTER_ZH = re.compile(r"\s*(?:都|也|千万|请)?(?:别|不要|不能|不用|不行|不方便|没空|没时间)")
_NOT_BEFORE_EN = re.compile(r"\b(?:not before|no earlier than|not earlier than|not any earlier than)\s+$",
                            re.IGNORECASE)


def time_bound(text: str, start: int, end: int) -> str:
    """">=" where the time at text[start:end] is said as the earliest ("after five", "from 3 on",
    三点以后), "<=" where it is the latest ("before noon", "by 4", 十二点之前), else ""."""
    before = text[max(0, start - 24):start]
    if _NOT_BEFORE_EN.search(before):
        return ">="         # ("not before 10 in the morning, I work nights": the earliest)
    if _AT_MOST_BEFORE_EN.search(before):
        return "<="
    if _AT_LEAST_BEFORE_EN.search(before):
        return "" if before.lower().rstrip().endswith("from") and not _ON_AFTER_EN.match(text, end) else ">="
    said_before_zh = _BOUND_BEFORE_ZH.search(before)
    m = _BOUND_AFTER_ZH.match(text, end)
    if said_before_zh is None and m is None:
        return ""
    at_least = bool(said_before_zh.group("ge")) if said_before_zh is not None else bool(m and m.group("ge"))
    # (十点以前别打, 不要早于十点: not before it, so at the earliest)
    refused = bool(said_before_zh.group("no")) if said_before_zh is not None \
        else bool(m and _REFUSED_AFTER_ZH.match(text, m.end()))
    return ">=" if at_least != refused else "<="


def find_zh_times(text: str) -> list[tuple[str, int, int]]:
    found = []
    sentence_period = re.search(r"凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里", text)
    said_period = sentence_period.group(0) if sentence_period else ""
    for m in _ZH_CLOCK.finditer(text):
        if m.group("hh"):
            value = format_time(int(m.group("hh")), int(m.group("mm")))
            if value:
                found.append((value, m.start(), m.end()))
            continue
        hour = zh_to_int(m.group("h"))
        if hour is None:
            continue
        before = text[m.start() - 1] if m.start() > 0 else ""
        after_a_word = "\u4e00" <= before <= "\u9fff" and before not in _BEFORE_ONE_OCLOCK_ZH
        if _A_LITTLE_ZH.match(text, m.start()) and not m.group("period") and (before and (
                before in _BEFORE_A_LITTLE_ZH or after_a_word) or _NOT_AT_ALL_ZH.match(text, m.end())):
            continue            # 往后一点, 快一点, 凉一点, 高档一点 (晚上六点也行): "a little", not one o'clock
            # (…nor 一点不热, 一点都没反应: "not at all"; 一点不行 is still one o'clock refused)
        frac = m.group("frac") or ""
        minute_text = m.group("m") or m.group("m2")
        minute = 30 if frac == "半" else 15 if frac == "一刻" else 45 if frac == "三刻" else (
            (zh_to_int(minute_text) or 0) if minute_text else 0)
        hour = _hour_of_day_zh(hour, m.group("period") or said_period, text)
        value = format_time(hour, minute)
        if value:
            found.append((value, m.start(), m.end()))
    for m in _ZH_DOT_CLOCK.finditer(text):
        if any(start < m.end() and m.start() < end for _, start, end in found):
            continue
        hour, minute_text, after = int(m.group("h")), m.group("m"), m.group("after").strip()
        if hour > 24 or _NOT_A_CLOCK_AFTER_ZH.match(text, m.end()) or (after == "分" and len(minute_text) < 2):
            continue
        before = text[max(0, m.start("h") - 2):m.start("h")]
        if not (m.group("period") or said_period or after or any(c in _DOT_CLOCK_CUE_BEFORE_ZH for c in before)):
            continue
        hour = _hour_of_day_zh(hour, m.group("period") or said_period, text)
        value = format_time(hour, 30 if minute_text == "5" else int(minute_text))
        if value:
            found.append((value, m.start(), m.end()))
    for m in _TO_NOON_ZH.finditer(text):
        if not any(start <= m.start("noon") < end for _, start, end in found):
            found.append(("12:00", m.start("noon"), m.end("noon")))     # (改到中午吧: noon, said as a change)
    found.sort(key=lambda f: f[1])
    return found


_TO_NOON_ZH = re.compile(r"(?:改到|改成|换到|换成|挪到|调到|提前到|推到)(?P<noon>中午)"
                         r"(?![\d一二两三四五六七八九十点])")


_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9}
ORDINAL_WORDS = {**_ORDINAL_UNITS, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
                 "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                 "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
                 **{f"twenty {w}": 20 + n for w, n in _ORDINAL_UNITS.items()}, "thirty first": 31}
"""A day of the month as it is spelled out (the fifteenth, the twenty-first), as the ASR writes it."""
_ORDINAL_WORD = "|".join(w.replace(" ", r"[\s-]") for w in sorted(ORDINAL_WORDS, key=len, reverse=True))
_EN_ORDINAL = r"(\d{1,2}(?:st|nd|rd|th)?|" + _ORDINAL_WORD + ")"
_EN_DIGIT_ORDINAL = r"(\d{1,2}(?:st|nd|rd|th)|" + _ORDINAL_WORD + ")"
_A_DAY_AFTER = re.compile(r"\s*(?:$|[,.!?;]|(?:at|around|about|for|please|then|instead|or|and|no|not|sorry|"
                          r"would|works|is|if|that|this|next|of)\b)")
"""What may follow a day said in words: the sentence's end, a time, a pause. Anything else is what
the ordinal counts ("the fourth item", "the second package", "the fifth email", "the first date")."""
_A_DAY_CUE_BEFORE = re.compile(r"\b(?:on|for|by|until|till|from)\s+$")


def day_number(said: str) -> int:
    """15, 15th, fifteenth, twenty-first → the day of the month."""
    digits = re.match(r"\d+", said)
    return int(digits.group(0)) if digits else ORDINAL_WORDS[re.sub(r"[\s-]+", " ", said)]


# Holidays on the same day every year (not the lunar ones, 春节, 中秋, whose day moves).
_HOLIDAY_DATES = {"valentine's day": "02-14", "valentines day": "02-14", "valentine's": "02-14",
                  "christmas eve": "12-24", "christmas day": "12-25", "christmas": "12-25",
                  "new year's eve": "12-31", "new years eve": "12-31", "new year's day": "01-01",
                  "new years day": "01-01", "halloween": "10-31",
                  "情人节": "02-14", "平安夜": "12-24", "圣诞节": "12-25", "圣诞": "12-25", "元旦": "01-01",
                  "跨年夜": "12-31", "万圣节": "10-31", "国庆节": "10-01", "劳动节": "05-01", "五一": "05-01"}
# (Not an event or a thing named after one: "the office christmas party", "halloween costumes", 五一广场.)
_HOLIDAYS_EN = re.compile(r"\b(valentine'?s day|valentine'?s|christmas eve|christmas day|christmas|new year'?s eve|"
                          r"new year'?s day|halloween)\b(?!\s+(?:party|parties|market|shopping|tree|lights|gifts?|"
                          r"presents?|sweaters?|movies?|music|songs?|carols?|costumes?|decorations?|sale|special))")
_HOLIDAYS_ZH = re.compile(r"(情人节|平安夜|圣诞节|圣诞|元旦|跨年夜|万圣节|国庆节|劳动节|"
                          r"(?<![零〇幺一二两三四五六七八九十\d])五一(?=那天|当天|节|的时候|[，。,.！？!?\s]|$))"
                          r"(?!假期|长假|期间|黄金周|广场|路|大街|大道|公园|大厦|中心|商场|晚会|派对|礼物|树|老人)")


def find_en_dates(text: str) -> list[tuple[str, int, int]]:
    lowered = text.lower()
    found: list[tuple[str, int, int]] = []
    for m in re.finditer(r"\b(day after tomorrow|today|tonight|tomorrow|this weekend|next weekend|"
                         r"(?<!day before )yesterday|day before yesterday)\b", lowered):
        value = {"tonight": "today", "this weekend": "weekend", "next weekend": "next weekend"}.get(
            m.group(1), m.group(1))
        found.append((value, m.start(), m.end()))
    for m in re.finditer(r"\b(?:the\s+)?(" + "|".join(WEEKDAYS) + r")\s+after\s+next\b", lowered):
        found.append((f"{m.group(1)} after next", m.start(), m.end()))
    for m in re.finditer(r"\b(?:(next|this|coming|last|past)\s+)?(" + "|".join(WEEKDAYS) + r")s?\b", lowered):
        if any(start <= m.start() < end for _, start, end in found):
            continue            # (the Friday after next)
        # ("it was supposed to come last Tuesday": a day gone, not the next one)
        value = {"next": "next ", "last": "last ", "past": "last "}.get(m.group(1) or "", "") + m.group(2)
        found.append((value, m.start(), m.end()))
    for m in re.finditer(r"\b(" + "|".join(MONTHS) + r")\s+(?:the\s+)?" + _EN_ORDINAL + r"\b", lowered):
        found.append((f"{MONTHS.index(m.group(1)) + 1:02d}-{day_number(m.group(2)):02d}", m.start(), m.end()))
    for m in _HOLIDAYS_EN.finditer(lowered):
        if not any(start < m.end() and m.start() < end for _, start, end in found):
            found.append((_HOLIDAY_DATES[m.group(1).replace("’", "'")], m.start(), m.end()))
    for m in re.finditer(r"\b(?:the\s+)?" + _EN_ORDINAL + r"\s+of\s+(" + "|".join(MONTHS) + r")\b", lowered):
        found.append((f"{MONTHS.index(m.group(2)) + 1:02d}-{day_number(m.group(1)):02d}", m.start(), m.end()))
    for m in re.finditer(r"\b(?:on\s+)?the\s+" + _EN_DIGIT_ORDINAL + r"\b(?:\s+of\s+(?:this|next|the)\s+month)?"
                         r"(?!\s+of\s+(?:" + "|".join(MONTHS) + r"))", lowered):
        if any(start <= m.start() < end for _, start, end in found) or not _a_day_of_the_month(lowered, m):
            continue
        found.append((_of_the_month(day_number(m.group(1)), m.group()), m.start(), m.end()))
    for m in re.finditer(r"\b" + _EN_DIGIT_ORDINAL + r" of (?:this|next|the) month\b", lowered):
        if not any(start <= m.start() < end for _, start, end in found):
            found.append((_of_the_month(day_number(m.group(1)), m.group()), m.start(), m.end()))
    return found


def _of_the_month(day: int | None, said: str) -> str:
    """A day of the month as the date readers write it: "day 3", or "next month day 3" when it is
    said to be next month's ("the 3rd of next month", 下个月三号)."""
    return f"next month day {day}" if re.search(r"next month|下个?月", said) else f"day {day}"


def _a_day_of_the_month(lowered: str, m: re.Match[str]) -> bool:
    """"the 15th" is a day, and "the fifteenth" where nothing it counts follows (not "the fourth
    one", "the fifth time"); a spelled-out first, second or third is a day only after a word that
    leads to one ("on the second", "for the third"): alone it is more often a choice among offers."""
    if m.group(0).endswith("month") or m.group(1)[0].isdigit():
        return True
    if not _A_DAY_AFTER.match(lowered, m.end()):
        return False
    if day_number(m.group(1)) > 3:
        return True
    return m.group(0).startswith("on") or bool(_A_DAY_CUE_BEFORE.search(lowered[:m.start()]))


def find_zh_dates(text: str) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for m in re.finditer(r"大后天|后天|明天|明晚|今天|今晚|这周末|周末|昨天|昨晚|前天", text):
        value = {"大后天": "in 3 days", "后天": "day after tomorrow", "明天": "tomorrow", "明晚": "tomorrow",
                 "今天": "today", "今晚": "today", "这周末": "weekend", "周末": "weekend", "昨天": "yesterday",
                 "昨晚": "yesterday", "前天": "day before yesterday"}[m.group(0)]
        found.append((value, m.start(), m.end()))
    for m in re.finditer(r"(大下个?|下下个?|下个?|上个?)?(?:周|星期|礼拜)([一二三四五六日天])", text):
        after_next = (m.group(1) or "")[:2] in ("大下", "下下")      # 大下周五, 下下周五: the Friday after next
        weekday = ZH_WEEKDAYS[m.group(2)]
        last = (m.group(1) or "").startswith("上")      # (上周二就该到了: a day gone)
        found.append((f"{weekday} after next" if after_next else
                      ("last " if last else "next " if m.group(1) else "") + weekday, m.start(), m.end()))
    for m in re.finditer(r"(\d{1,2}|[一二三四五六七八九十]{1,3})月(\d{1,2}|[一二三四五六七八九十]{1,3})[日号]", text):
        month, day = zh_to_int(m.group(1)), zh_to_int(m.group(2))
        if month and day:
            found.append((f"{month:02d}-{day:02d}", m.start(), m.end()))
    for m in _HOLIDAYS_ZH.finditer(text):
        if not any(start < m.end() and m.start() < end for _, start, end in found):
            found.append((_HOLIDAY_DATES[m.group(1)], m.start(), m.end()))
    # A day of the month alone (改成8号, 是3号不是4号), as "the 8th" is in English; not a line, a
    # building, a door or a seat numbered so (3号线, 5号楼, 2号门).
    # (Nor a house number, 中关村大街27号, nor a size, 大一号的, 小两号.)
    # (这个月二十号, 本月20号: a day of this month.)
    # (下个月三号, 下月3号: a day of next month.)
    for m in re.finditer(r"(?:(?<=这个月)|(?<=本月)|(?<=下个月)|(?<=下月)|"
                         r"(?<![月\d零一二三四五六七八九十几单码街路道巷弄楼院村区大小]))"
                         r"(\d{1,2}|[一二三四五六七八九十]{1,3})[号日]"
                         r"(?![码线楼门店位桌厅院口机车床航站台栋座层馆]|停车|展厅|展馆|候车|教学|宿舍|包间|包厢|出口|入口|窗口|通道)",
                         text):
        day = zh_to_int(m.group(1))
        if day and 1 <= day <= 31 and not any(start <= m.start() < end for _, start, end in found):
            found.append((_of_the_month(day, text[max(0, m.start() - 3):m.start()]), m.start(), m.end()))
    return found


def normalise_time(text: str) -> str | None:
    """Any clock expression (either language) → 'HH:MM'."""
    times = find_en_times(text, require_cue=False) or find_zh_times(text)
    return times[0][0] if times else None


def normalise_date(text: str) -> str | None:
    dates = find_en_dates(text) or find_zh_dates(text)
    return dates[0][0] if dates else None


DAY = 86400.0      # seconds


def time_window(query: str, now: float) -> tuple[float, float] | None:
    """'yesterday', 'last week', '上周' … → (start, end) in epoch seconds, else None."""
    q = query.lower()
    spans = [
        (r"\btoday\b|今天", 1), (r"\byesterday\b|昨天", 2), (r"\b(?:last|past) (?:few )?days\b|前几天|这几天", 4),
        (r"\blast week\b|\bpast week\b|上周|上星期|上个星期", 14), (r"\bthis week\b|这周|本周", 7),
        (r"\blast month\b|上个月|上月", 62), (r"\bthis month\b|这个月|本月", 31), (r"\blast year\b|去年", 730),
    ]
    for pattern, days in spans:
        if re.search(pattern, q):
            start = now - days * DAY
            end = now - (DAY if days == 2 else 0)
            return start, end
    return None
