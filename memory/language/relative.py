"""The words of a relative change, in English and Chinese: which way, by how much, in what unit.

"Another friend is coming", 又多了一位, "a little warmer", 调低两度, "push it back half an hour",
"the day after": a change said against the value the state holds, not a value of its own.
What a clause says is read here; which key it applies to, and to what value, is
`memory/working/relative.py`'s, from the domain YAML (types, readers, units, `step`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from monologue.memory.language.numbers import EN_NUMBER, to_amount, with_jiao_zh

Direction = Literal[1, -1]
Dimension = Literal["people", "minutes", "days", "amount", ""]

_I = re.IGNORECASE

# ("Put the heat up", "crank it down": not "put the roof up", "put the phone down".)
_THE_HEAT = (r"(?:it |that |the (?:heat|heating|temp|temperature|ac|a/c|air|air con|aircon|thermostat|volume|"
             r"music|fan) )?")
# Which way, said of any quantity ("more", 多) or of one kind (later, earlier; 推迟, 提前).
# ("one more thing, my dad uses a walker": something more to say, no one more to come)
_UP_EN = (r"\b(?:more(?!\s+(?:thing|things|question|questions|request|detail|details|favou?r|point|time)\b)|"
          r"another(?!\s+(?:thing|question|request|detail|favou?r|point)\b)|extra|additional|plus|higher|raise|"
          r"increase|bump(?:ed)? up|add(?:ing)?|"
          r"turn(?:ed)? (?:it |that |the \w+ )?up|(?:put|crank(?:ed)?|kick(?:ed)?) " + _THE_HEAT + r"up|"
          r"up (?:a (?:bit|notch|little|touch)|by)|go up|"
          r"up(?= (?:a couple(?: of)?|another|[\w.]+) (?:degrees?|notch(?:es)?|levels?|steps?)\b)|"   # "up two degrees"
          r"also (?:coming|joining)|(?:is|are|'s|'re|will be|'ll be) (?:coming|joining) (?:too|as well|now|along)|"
          r"(?:coming|joining|come|join) (?:along|with us|too|as well)|tag(?:ging)? along|(?:will|'ll|gonna|going to|"
          r"wants to|wanna) (?:come|join)(?: us)?(?= too| as well| along|\s*$|\s*[,.!])|join(?:ing)? us)\b")
_DOWN_EN = (r"\b(?:fewer|less|minus|lower|reduce|decrease|drop(?:ped)?|knock(?:ed)? off|(?:can'?t|cannot|won'?t) "
            r"(?:make it|come|join)|turn(?:ed)? (?:it |that |the \w+ )?down|(?:put|crank(?:ed)?|knock(?:ed)?) "
            + _THE_HEAT + r"down|"
            r"down (?:a (?:bit|notch|little|touch)|by)|"
            r"down(?= (?:a couple(?: of)?|another|[\w.]+) (?:degrees?|notch(?:es)?|levels?|steps?)\b)|"
            r"go down|(?:can'?t|cannot|won'?t) "
            r"(?:make it|come|join)|(?:isn'?t|aren'?t|not) (?:coming|joining) (?:any ?more|after all)|dropped out|"
            r"one short)\b")
# (好多人 is many people, 加班 overtime; 我同事也要来 is one more; 多长时间, 多久, 多远 ask how long, how far.)
# (加上我老婆五个人: counting her in, the five is the whole party; 再加上两个人 adds two)
_COUNTING_IN_ZH = (r"(?<![再又])加上(?:我|你|他|她|咱)?的?(?:老婆|老公|媳妇儿?|爱人|爸|妈|孩子|朋友|同事|哥|姐|弟|妹|"
                   r"爷爷|奶奶|儿子|女儿|家人|领导|客户)")
COUNTING_IN_ZH = re.compile(_COUNTING_IN_ZH)
_UP_ZH = (r"(?<![好很许挺太么])多(?!少|谢|长|久|远|大|高|重|宽|快|贵)|"
          r"(?!" + _COUNTING_IN_ZH + r")加(?!油|州|班)|又来|再来|"
          r"(?<=[人友事子客爸妈哥姐弟妹婆公儿])也(?:要|会)?来(?!一|不|过)|增加|调高|升高|提高|高(?!兴|速|架|铁)")
_DOWN_ZH = r"(?<!多)少(?!于)|减|不来了|来不了|去掉|拿掉|降低|调低|降|低"
# ("push it half an hour" is later; "push it an hour earlier" is not; "push two tables together" moves no time.)
_LATER_EN = (r"\b(?:later|push(?:ed)? (?![^,.;]*\b(?:earlier|sooner|forward)\b)(?:it |that |the \w+ )?"
             r"(?:back|out|(?=(?:by )?(?:half an hour|an? hour|"
             r"(?:an?|one|two|three|\d+|a couple of)\s+(?:hours?|minutes?|mins?)\b)))|"
             r"delay(?:ed)?|postpone[d]?|the day after|next day)\b")
_EARLIER_EN = r"\b(?:earlier|sooner|bring (?:it |that |the \w+ )?forward|move (?:it |that )?up|the day before)\b"
_LATER_ZH = r"推迟|延后|往后|推后|(?<![今明傍])晚(?!上|饭|餐|安|会)|后一天|第二天"
_EARLIER_ZH = r"提前|提早|往前|(?<![今明])早(?!上|餐|饭|晨|安)|前一天"

# What is counted: people, time on the clock, days, money.
# ("fewer" counts what can be counted, and in a party that is heads: "two fewer actually, my in-laws cancelled")
_PEOPLE_EN = re.compile(r"\b(?:people|persons?|guests?|friends?|colleagues?|kids?|child(?:ren)?|someone|fewer|"
                        r"in-laws?|parents|grandparents|relatives|cousins|we'?ll be|"
                        r"somebody|one of us|of us|(?:my|our) (?:\w+ )?(?:brother|sister|mum|mom|dad|father|mother|"
                        r"wife|husband|partner|son|daughter|boss|cousin|aunt|uncle)|seats?|chairs?|"
                        r"one more|two more|three more|(?:one|two|three|four|five|\d) of them)\b", _I)
_PEOPLE_ZH = re.compile(r"人|位|朋友|同事|孩子|客人|爸|妈|哥|姐|弟|妹|老婆|老公|儿子|女儿|亲戚|领导|老板")
_MINUTES_EN = re.compile(r"\b(?:hours?|minutes?|mins?|half an hour|quarter of an hour)\b", _I)
_MINUTES_ZH = re.compile(r"小时|钟头|分钟|半个?钟")
_DAYS_EN = re.compile(r"\b(?:days?|the day after|the day before|next day|a day)\b", _I)
_DAYS_ZH = re.compile(r"天|日(?!元)")
_MONEY_EN = re.compile(r"[$£€]|\b(?:dollars?|bucks|euros?|pounds?)\b", _I)
_MONEY_ZH = re.compile(r"[¥]|元|块")

# By how much: "a bit", 一点 (the key's own step), "a couple", "half an hour", a number.
_A_BIT_EN = re.compile(r"\b(?:a (?:little|bit|touch|tad|notch)(?: more| less)?|slightly|somewhat|a few degrees)\b", _I)
_A_BIT_ZH = re.compile(r"一点|一些|一下|稍微|稍|有点|点儿")
_HALF_HOUR = re.compile(r"\bhalf an hour\b|半个?小时|半个?钟头", _I)
_QUARTER_HOUR = re.compile(r"\bquarter of an hour\b|一刻钟", _I)
_HOUR_AND_HALF = re.compile(r"\b(?:an|one) hour and a half\b|一个半小时", _I)
_COUPLE = re.compile(r"\b(?:a )?couple(?: of)?\b", _I)     # ("couple degrees warmer", spoken without its "a")
_NUMBER_EN = re.compile(r"(?<![\w:.])(?P<n>" + EN_NUMBER + r"|an?|one)(?![\w:])", _I)
# (俩, 仨 count with no measure word: 再加俩孩子)
_NUMBER_ZH = re.compile(r"(?<![\d.])(?P<n>(?:\d+(?:\.\d+)?|[零〇一二两俩三仨四五六七八九十百千万]+)"
                        r"(?=\s*(?:个|位|度|块|元|天|小时|分钟|钟头|人|名)|$)|(?<![零〇一二两三四五六七八九十])[俩仨](?=\S))")


@dataclass(frozen=True)
class RelativeWords:
    """What one clause says about a change: its direction, what it counts, and by how much
    (None: no amount said; `a_bit`: 'a little', the key's own step)."""

    direction: Direction
    dimension: Dimension
    amount: float | None
    a_bit: bool
    start: int
    end: int


_TO_A_LEVEL = re.compile(r"\bto (?:level|setting) (?:\d|one|two|three|four|five|six|seven|eight|nine|ten)\b|"
                         r"到(?:第)?[一二两三四五六七八九十\d]+[档挡级]", re.IGNORECASE)
_A_LEVEL_BEFORE = re.compile(r"\b(?:level|setting|notch)\s+$|第$", re.IGNORECASE)


def _amount(clause: str, lang: str, dimension: Dimension, words: tuple[int, int] = (0, 0)) -> float | None:
    """How much the change is: the number said nearest the change's words ("make it five, one
    more friend is coming" is one more: the five is the new count, said outright)."""
    if _HOUR_AND_HALF.search(clause):
        return 90
    if _HALF_HOUR.search(clause):
        return 30
    if _QUARTER_HOUR.search(clause):
        return 15
    if _COUPLE.search(clause):
        amount: float | None = 2
    else:
        amount = None
        pattern = _NUMBER_EN if lang == "en" else _NUMBER_ZH
        nearest = len(clause) + 1
        for m in pattern.finditer(clause):
            word = m.group("n").lower()
            if _A_LEVEL_BEFORE.search(clause[:m.start()]):
                continue        # ("bring it down to level three": where a control is set, not how far it moves)
            if lang == "en" and word in ("a", "an") and not re.match(
                    r"\s+(?:hour|minute|day|dollar|buck|euro|pound|degree)s?\b", clause[m.end():], _I):
                continue        # "a bit later" is a step; "a friend" counts one only with "another"
            n = 1 if word in ("a", "an", "one") else to_amount(word)      # 45.5元 keeps its .5
            if n is not None and lang == "zh" and dimension == "amount":
                n = with_jiao_zh(n, clause, m.end())        # (多扣了一百九十九块九)
            distance = max(words[0] - m.end(), m.start() - words[1], 0)
            if n is not None and distance < nearest:
                amount, nearest = n, distance
    if amount is not None and dimension == "minutes" and re.search(r"hours?|小时|钟头", clause, _I):
        amount *= 60
    return amount


def read_relative(clause: str, lang: str, own_up: str = "", own_down: str = "",
                  context: str = "") -> RelativeWords | None:
    """The relative change one clause says, if any. `own_up` / `own_down`: a key's own words
    for its directions ("warmer", 暖), as one alternation (empty: none). `context`: the whole
    utterance, for what is counted when the clause does not say ("two cancelled, so two fewer")."""
    if lang == "en":
        patterns = [(1, _LATER_EN), (-1, _EARLIER_EN), (1, _UP_EN), (-1, _DOWN_EN)]
    else:
        patterns = [(1, _LATER_ZH), (-1, _EARLIER_ZH), (1, _UP_ZH), (-1, _DOWN_ZH)]
    if own_up:
        patterns.insert(0, (1, own_up))
    if own_down:
        patterns.insert(0, (-1, own_down))
    for direction, pattern in patterns:
        m = re.search(pattern, clause, _I)
        if m is None or _bound_after(clause[m.end():]):
            continue             # "more than four" is a bound, not a change
        if _TO_A_LEVEL.search(clause):
            return None          # ("bring it down to level three": a control set to a level, no step)
        on_the_clock = pattern in (_LATER_EN, _EARLIER_EN, _LATER_ZH, _EARLIER_ZH)
        dimension = _dimension(clause, lang, on_the_clock) or (
            _dimension(context, lang, on_the_clock) if context else "")
        a_bit = bool((_A_BIT_EN if lang == "en" else _A_BIT_ZH).search(clause))
        amount = _amount(clause, lang, dimension, m.span())
        if amount is None and dimension == "people" and (
                re.search(r"\b(?:another|one more|a|an)\b", clause, _I) or re.search(r"又|再|一位|一个", clause)):
            amount = 1
        return RelativeWords(direction, dimension, amount, a_bit and amount is None, m.start(), m.end())  # type: ignore[arg-type]
    return None


_THAN_A_VALUE = re.compile(rf"\s*than\s+[^\w\s]?\s*(?:\d|(?:{EN_NUMBER})\b)", _I)   # "than $50" too


def _bound_after(rest: str) -> bool:
    """Whether the words after a direction compare with a value ("more than four", "warmer than
    22"): a bound. Compared with what is held ("a couple of degrees cooler than that", "later
    than now"), it is a change like any other."""
    return _THAN_A_VALUE.match(rest) is not None


def _dimension(clause: str, lang: str, on_the_clock: bool) -> Dimension:
    people, minutes, days, money = ((_PEOPLE_EN, _MINUTES_EN, _DAYS_EN, _MONEY_EN) if lang == "en"
                                    else (_PEOPLE_ZH, _MINUTES_ZH, _DAYS_ZH, _MONEY_ZH))
    if days.search(clause) and on_the_clock or days.search(clause) and not minutes.search(clause) \
            and re.search(r"\bday (?:after|before)\b|后一天|前一天|第二天", clause, _I):
        return "days"
    if minutes.search(clause) or on_the_clock:
        return "minutes"
    if money.search(clause):
        return "amount"
    if people.search(clause):
        return "people"
    return ""


__all__ = ["COUNTING_IN_ZH", "RelativeWords", "read_relative"]
