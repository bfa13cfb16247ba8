"""Numbers put right against the ones the state holds.

"不是五，是三", "it's nine, not ten", "七点，不是八点", "24 Maple Street, not 42": the number said as
wrong names the held value it replaces, a count or an amount itself, the hour of a time, or the
number inside a held name; "forget the 40 dollars" names the held value it takes back. And a slip
in what a command is for, put right with only the thing meant ("turn up the fan, no I mean the
volume"): the command is for that thing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import SELF_REPAIR
from monologue.memory.language.digits import digits_of_zh
from monologue.memory.language.numbers import EN_NUMBER, ZH_NUMBER, to_amount
from monologue.memory.working.state import Comparator, Condition, Op, Operation, SessionState

Span = tuple[int, int]

# The unit a number put right may carry (nine people, 七个, 八点).
_COUNTED_EN = r"(?:\s+(?:people|of us|guests|degrees|dollars))?"
_COUNTED_ZH = r"(?:个人|位|个|度|块|元|号|点)?"
_REPLACED = {
    "en": (re.compile(r"\b(?:not|no)\s+(?P<old>" + EN_NUMBER + r")\b" + _COUNTED_EN +
                      r"\s*(?:[,;]|\bbut\b|[.!]?\s*(?:it'?s|make it|rather|just|actually))\s*(?:it'?s\s+|make it\s+)?"
                      r"(?P<new>" + EN_NUMBER + r")\b", re.IGNORECASE),
           # "it's nine, not ten", "24 Maple Street, not 42"
           re.compile(r"\b(?P<new>" + EN_NUMBER + r")\b(?:\s+[A-Z]\w*){0,3}" + _COUNTED_EN +
                      r"\s*,?\s*(?:and\s+)?not\s+(?P<old>" + EN_NUMBER + r")\b(?!\s*(?:but|,\s*but)\b)",
                      re.IGNORECASE)),
    "zh": (re.compile(r"(?:不是|别|不要)(?P<old>" + ZH_NUMBER + r")(?:个人|位|个|度|块|元|号)?了?\s*[，,、。.]?\s*"
                      r"(?:是|改成|换成|要|就|改为)?(?P<new>" + ZH_NUMBER
                      + r")(?![\d.零〇一二两俩三仨四五六七八九十百千万点:：月日号])"),
           # 是九个不是十个, 七点，不是八点 (not 是3号不是4号: a day, which the date reader puts right)
           re.compile(r"(?P<new>" + ZH_NUMBER + r")" + _COUNTED_ZH + r"\s*[，,]?\s*(?:而)?不是(?P<old>" + ZH_NUMBER
                      + r")(?P<hour>点)?(?![号號月日天])")),
}


PART_PUT_RIGHT = "a part of the value put right"
DIGITS_PUT_RIGHT = "some of its digits put right"
# A part of a value refused, then said as meant ("not Maple Street, it's Maple Avenue", 不是27号，是29号).
_PART_PUT_RIGHT = {
    "en": re.compile(r"\bnot (?:the )?(?P<old>[\w' ]{2,40}?),?\s+(?:it'?s|it is|i meant|i mean|but|rather)\s+"
                     r"(?:the )?(?P<new>[\w' ]{2,40}?)(?=\s*(?:[,.!?]|$)|\s+(?:sorry|please|thanks)\b)",
                     re.IGNORECASE),
    "zh": re.compile(r"不是(?P<old>[^，,。！？\s]{1,12}?)[，,\s]*(?:而)?(?:是|应该是)"
                     r"(?P<new>[^，,。！？\s吧啊]{1,12})"),
}


# A slip put right in words that say so ("I mean", "no wait", 不对), not an apology alone ("sorry").
PUTS_RIGHT = re.compile(r"\b(?:i mean|i meant|no wait|wait no|wait|scratch that|strike that|or rather|make that|"
                        r"correction|no)\b|不对|我是说|说错了|哦不|错了|不是", re.IGNORECASE)
# Words that add to what was said before ("and also", 也, 还要): one more, no slip put right.
ONE_MORE = re.compile(r"\b(?:also|too|as well|plus|and|either)\b|也|还要|还有|另外|再加|加上", re.IGNORECASE)
# Where the words of one clause end (a slip's clause, or the thing meant after it).
_CLAUSE_BREAK = re.compile(r"[.!?;。！？；]|(?<!\d)[,，](?!\d)")
_SENTENCE_BREAK = re.compile(r"[.!?;。！？；]")
# What leads the thing meant ("no I mean *the* volume", 不对，*是*座椅加热).
_LEAD_EN = re.compile(r"^(?:(?:the|my|our|just|only|like|uh|um|for)\s+)*", re.IGNORECASE)
_LEAD_ZH = re.compile(r"^(?:是|把|那个|就|只|呃|嗯)*")
_MOST_WORDS_LEFT = {"en": 2, "zh": 2}     # "the *back* windows", 后车窗: a word or two beside the thing's name


def _names_of(spec: KeySpec, lang: str) -> tuple[str, ...]:
    words = (*spec.aliases.get(lang, ()), spec.label(lang), *spec.reading.value_cues.get(lang, ()))
    return tuple(w for w in words if w)


def _named_at(text: str, words: tuple[str, ...], lang: str) -> tuple[int, int] | None:
    """Where the last of `words` (the longest, where two start together) is said in `text`."""
    if not words:
        return None
    body = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    pattern = r"(?<![\w])(?:" + body + r")(?:s|es)?(?![\w])" if lang == "en" else "(?:" + body + ")"
    found = list(re.finditer(pattern, text, re.IGNORECASE))
    return found[-1].span() if found else None


def object_put_right(schema: DomainSchema, text: str, lang: str,
                     reads: Callable[[str], set[tuple[str, str]]]) -> tuple[str, Span] | None:
    """`text` with a slip put right by what is meant alone, after it: the thing a command is for
    ("turn up the fan, no I mean the volume" → "turn up the volume", "open the sunroof, no wait,
    the back windows" → "open the windows", 把空调打开，不对，是座椅加热 → 把座椅加热打开), or the
    value it gives (在加油站停一下，不对，充电站 → 在充电站停一下). What is meant is said alone
    (`reads`, the keys and values the rules set from some words, finds nothing in it) and names
    one key, or one value; in the clause before it, what it replaces gives way to it. None where
    no such slip is put right, or the command does not fit what is meant. With the text, where in
    `text` the slip and what is meant are said."""
    for repair in SELF_REPAIR.finditer(text):
        start = max((m.end() for m in _SENTENCE_BREAK.finditer(text, 0, repair.start())), default=0)
        slip = text[start:repair.start()].rstrip(" ,，")
        after = _CLAUSE_BREAK.search(text, repair.end())
        end = after.start() if after else len(text)
        meant = text[repair.end():end].strip()
        core = (_LEAD_EN if lang == "en" else _LEAD_ZH).sub("", meant).strip()
        if not slip or not core or not PUTS_RIGHT.search(repair.group()) or ONE_MORE.search(meant) or reads(meant):
            continue        # (an apology, "sorry, and the volume", "I mean also a pharmacy": one more, no slip)
        put_right = _thing_put_right(schema, slip, core, lang, reads) or _value_put_right(schema, slip, core, lang,
                                                                                         reads)
        if put_right is not None:
            return text[:start] + put_right + text[end:], (start, end)
    return None


def _thing_put_right(schema: DomainSchema, slip: str, core: str, lang: str,
                     reads: Callable[[str], set[tuple[str, str]]]) -> str | None:
    # The key named at greatest length ("heated seats" is the seat heating's, not the seat's;
    # "AC" names the air conditioning and the temperature: the one the command then sets).
    named = {spec.name: span for spec in schema.keys.values()
             if (span := _named_at(core, _names_of(spec, lang), lang)) is not None}
    longest = max((b - a for a, b in named.values()), default=0)
    for meant_key in (schema.key(k) for k, (a, b) in named.items() if b - a == longest):
        said_as = named[meant_key.name]
        if _more_than(core, said_as, lang):
            continue        # more than the thing's name: a clause of its own
        # The thing the slip's command is for: another key's name, or a thing the meant key is not (天窗).
        own = {w.casefold() for w in _names_of(meant_key, lang)}
        things = (*(w for spec in schema.keys.values() if spec is not meant_key for w in _names_of(spec, lang)
                    if w.casefold() not in own), *meant_key.reading.not_when.get(lang, ()))
        wrong = _named_at(slip, things, lang)
        if wrong is None or slip[wrong[0]:wrong[1]].casefold() in own:
            continue
        put_right = slip[:wrong[0]] + core[said_as[0]:said_as[1]] + slip[wrong[1]:]
        if any(key == meant_key.name for key, _ in reads(put_right)):
            return put_right
    return None


def _value_put_right(schema: DomainSchema, slip: str, core: str, lang: str,
                     reads: Callable[[str], set[tuple[str, str]]]) -> str | None:
    """The slip with the value it gave replaced by the one meant (在加油站停一下 → 在充电站停一下),
    where the one meant is another value of the same key."""
    for key, value in sorted(reads(slip)):
        spec = schema.key(key)
        table = spec.values.get(value)
        if spec.type != "enum" or table is None:
            continue
        others = tuple(w for v, t in spec.values.items() if v != value for w in t.get(lang, ()))
        said_as = _named_at(core, others, lang)
        wrong = _named_at(slip, table.get(lang, ()), lang)
        if said_as is None or wrong is None or _more_than(core, said_as, lang):
            continue
        put_right = slip[:wrong[0]] + core[said_as[0]:said_as[1]] + slip[wrong[1]:]
        if any(k == key and v != value for k, v in reads(put_right)):
            return put_right
    return None


def _more_than(core: str, said_as: Span, lang: str) -> bool:
    """Whether `core` says more than the name at `said_as` ("the *back* windows", 后车窗: a word or two)."""
    rest = (core[:said_as[0]] + " " + core[said_as[1]:]).strip()
    return (len(rest.split()) if lang == "en" else len(rest)) > _MOST_WORDS_LEFT[lang]


def held_number_replaced(text: str, lang: str,
                          state: SessionState | None) -> tuple[str, object, Span, str] | None:
    """(key, new value, span, words) when `text` replaces a number a key holds ("不是五，是三",
    "it's nine, not ten"): the count or amount itself, the hour of a time (七点不是八点), or the
    number inside a held name ("24 Maple Street, not 42")."""
    if state is None:
        return None
    for pattern in _REPLACED[lang]:
        for m in pattern.finditer(text):
            old, new = to_amount(m.group("old")), to_amount(m.group("new"))
            if old is None or new is None or old == new:
                continue
            # (七点，不是八点: the hour of a time, never a party of eight.)
            key = None if m.groupdict().get("hour") else _key_holding_number({float(old)}, state)
            if key is not None:
                return key, int(new) if float(new).is_integer() else new, m.span(), m.group(0)
            found = _number_inside_held(int(old), int(new), state) if float(old).is_integer() \
                and float(new).is_integer() else None
            if found is not None:
                return found[0], found[1], m.span(), m.group(0)
    return None


def held_part_replaced(schema: DomainSchema, text: str, lang: str,
                       state: SessionState | None) -> list[tuple[Operation, Span]]:
    """"Not Maple Street, it's Maple Avenue", 不是27号，是29号: a part of a value held, refused and
    said anew, put right in that value (42 Maple Street → 42 Maple Avenue), with where it is said."""
    found: list[tuple[Operation, Span]] = []
    if state is None or lang not in _PART_PUT_RIGHT:
        return found
    for m in _PART_PUT_RIGHT[lang].finditer(text):
        old, new = m.group("old").strip(), m.group("new").strip()
        if not old or not new or old.casefold() == new.casefold():
            continue
        for condition in list(state.constraints.values()):
            held = condition.value
            spec = schema.keys.get(condition.key)
            # (A value in the user's words: a text, or an open key's value none of its listed ones.)
            if not isinstance(held, str) or spec is None or spec.type not in ("text", "enum") \
                    or held in spec.values or old.casefold() not in held.casefold() \
                    or old.casefold() == held.casefold():
                continue
            at = held.casefold().index(old.casefold())
            found.append((Operation(Op.SET, condition.key, condition.comparator, held[:at] + new + held[at + len(old):],
                                    text[m.start():m.end()], correction=True, reason=PART_PUT_RIGHT), m.span()))
            break
    if lang == "zh" and not found:
        found += _held_tail_changed(schema, text, state)
    return found


# A change to the last part of a place held, said as its kind (换成一号航站楼 of 浦东机场二号航站楼, 改成西门).
# (…or said as the one it is, then the one it is not: 是三号航站楼，不是二号)
_CHANGED_TO_ZH = re.compile(r"(?:换成|改成|改为|改到|换到)(?P<new>[^，,。！？\s吧啊]{2,10}?)(?=[吧啊了，,。！？\s]|$)|"
                            r"(?<![^，,。！？\s])是(?P<is>[^，,。！？\s吧啊是]{2,10}?)[，,]?\s*(?:而)?不是")
_KIND_TAILS_ZH = frozenset("门楼座号")
_A_SPECIFIER_ZH = re.compile(r"[零〇一二两三四五六七八九十百\dA-Za-z]+号?|[东南西北前后左右]")


def _held_tail_changed(schema: DomainSchema, text: str, state: SessionState) -> list[tuple[Operation, Span]]:
    """The held text value whose last part has the shape of the one said (一号航站楼 for 二号航站楼:
    the same last two characters, or one that names a kind, 西门 for 东门), that part replaced."""
    for m in _CHANGED_TO_ZH.finditer(text):
        new = m.group("new") or m.group("is")
        for condition in list(state.constraints.values()):
            held, spec = condition.value, schema.keys.get(condition.key)
            if not isinstance(held, str) or spec is None or spec.type not in ("text", "enum") or held in spec.values \
                    or len(held) <= len(new):
                continue
            tail = held[-len(new):]
            shared = next((n for n in range(len(new), 0, -1) if tail.endswith(new[-n:])), 0)
            # (only a number or a side put right: 人民医院 then 换成中医院 is another hospital)
            heads = (tail[:len(tail) - shared], new[:len(new) - shared])
            if tail != new and (shared >= 2 or shared == 1 and new[-1] in _KIND_TAILS_ZH) \
                    and all(_A_SPECIFIER_ZH.fullmatch(h) for h in heads):
                return [(Operation(Op.SET, condition.key, condition.comparator, held[:-len(new)] + new,
                                   text[m.start():m.end()], correction=True, reason=PART_PUT_RIGHT), m.span())]
    return []


# Some of a code's digits put right by where they are ("the last digit is 8, not 7", "last two digits
# are 4 5", 最后一位是八，不是七, 尾号应该是五七, 第三位是二).
_DIGIT_WORDS_EN = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|\d)"
_WHICH_DIGITS = {
    "en": re.compile(r"\b(?<!to )(?:the\s+)?(?:(?P<last>last)(?!\s+(?:name|time|one)\b)|(?P<first>first)|"
                     r"(?P<nth>second|third|fourth|fifth|sixth|seventh|"
                     r"eighth|ninth))\s+(?:(?P<n>one|two|three|four|\d)\s+)?(?:digits?|numbers?|bit|part|few)\s+"
                     r"(?:(?:of|in)\s+(?:the\s+|my\s+|that\s+)?(?P<named>[a-z]+(?:\s+number)?)\s+)?"
                     r"(?:is|are|should be|should have been|was meant to be|'s)\s+(?:actually\s+)?(?:a\s+|an\s+)?"
                     r"(?P<new>" + _DIGIT_WORDS_EN + r"(?:[\s,-]+" + _DIGIT_WORDS_EN + r"){0,3})\b"
                     r"(?:,?\s*(?:and\s+)?not\s+(?:a\s+|an\s+)?(?P<old>" + _DIGIT_WORDS_EN
                     + r"(?:[\s,-]+" + _DIGIT_WORDS_EN + r"){0,3})\b)?", re.IGNORECASE),
    "zh": re.compile(r"(?<!倒数)(?P<named>电话|手机|订单|单号|号码|银行卡|卡)?[号码的]*"
                     r"(?:(?P<last>最后|末|尾号)(?P<n>[一两二三四1-4])?(?:位|个数字?)(?:数字)?|(?P<last2>尾号)|(?P<first>第一|前)"
                     r"(?P<n2>[一两二三四1-4])?位|第(?P<nth>[二三四五六七八九2-9])位)(?:数)?(?:应该)?(?:是|为)"
                     r"(?P<new>[零〇幺一二三四五六七八九\d]{1,4})(?![零〇幺一二三四五六七八九\d]|个|位|人|点|号|天|的)"
                     r"(?:[，,]?\s*(?:而)?不是(?P<old>[零〇幺一二三四五六七八九\d]{1,4}))?"),
}
_ORDINAL_DIGIT = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                  "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_HOW_MANY = {"one": 1, "two": 2, "three": 3, "four": 4, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4}


# "The second letter is P not R", "the first letter should be a B": a letter of a code held, by its place.
_WHICH_LETTER_EN = re.compile(r"\b(?:the\s+)?(?:(?P<last>last)|(?P<first>first)|"
                              r"(?P<nth>second|third|fourth|fifth))\s+(?:letter|character)\s+"
                              r"(?:is|should be|should have been|'s)\s+(?:actually\s+)?"
                              r"(?:an?\s+)?(?P<new>[a-z])(?:\s+as\s+in\s+\w+)?\b"
                              r"(?:,?\s*(?:and\s+)?not\s+(?:an?\s+)?(?P<old>[a-z])\b)?", re.IGNORECASE)
# 中间那个四是七, "the four should be a seven": a digit of a code held, named by itself, said anew (where it is
# there once).
_THAT_DIGIT = {"zh": re.compile(r"(?:中间|前面|后面|里面)?(?:那个|的)(?P<old>[零〇幺一二三四五六七八九\d])(?:应该)?是"
                                r"(?P<new>[零〇幺一二三四五六七八九\d])(?![零〇幺一二三四五六七八九\d个位人点号天])"),
               "en": re.compile(r"\bthe\s+(?P<old>" + _DIGIT_WORDS_EN + r")\s+(?:should be|should have been|"
                                r"is actually|is meant to be)\s+(?:an?\s+)?(?P<new>" + _DIGIT_WORDS_EN + r")\b",
                                re.IGNORECASE)}


def _held_codes(schema: DomainSchema, state: SessionState) -> list[Condition]:
    """The codes the state holds (an order number, a phone), the one said last first."""
    return sorted((c for c in state.constraints.values() if isinstance(c.value, str)
                   and (spec := schema.keys.get(c.key)) is not None and spec.reader == Reader.IDENTIFIER),
                  key=lambda c: -c.last_mentioned)


def held_code_put_right(schema: DomainSchema, text: str, lang: str,
                        state: SessionState | None) -> tuple[Operation, Span] | None:
    """A letter of a code held put right by its place ("the second letter is P not R"), or one of its
    digits named by itself (中间那个四是七), or its digits by their place (`held_digits_replaced`)."""
    if state is None:
        return None
    letter = _WHICH_LETTER_EN.search(text) if lang == "en" else None
    if letter is not None:
        for condition in _held_codes(schema, state):
            held = str(condition.value)
            at = [i for i, ch in enumerate(held) if ch.isalpha()]
            index = -1 if letter.group("last") else 0 if letter.group("first") else \
                _ORDINAL_DIGIT.get(letter.group("nth").lower(), 0) - 1
            if not at or not -len(at) <= index < len(at):
                continue
            old = letter.group("old")
            if old and held[at[index]].upper() != old.upper():
                continue
            value = held[:at[index]] + letter.group("new").upper() + held[at[index] + 1:]
            return Operation(Op.SET, condition.key, Comparator.EQ, value, letter.group(0), correction=True,
                             reason=DIGITS_PUT_RIGHT), letter.span()
    that = _THAT_DIGIT[lang].search(text) if lang in _THAT_DIGIT else None
    if that is not None:
        for condition in _held_codes(schema, state):
            held, old, new = str(condition.value), digits_in(that.group("old")), digits_in(that.group("new"))
            if len(old) == 1 and len(new) == 1 and held.count(old) == 1 and old != new:
                return Operation(Op.SET, condition.key, Comparator.EQ, held.replace(old, new), that.group(0),
                                 correction=True, reason=DIGITS_PUT_RIGHT), that.span()
    return held_digits_replaced(schema, text, lang, state)


def held_digits_replaced(schema: DomainSchema, text: str, lang: str,
                         state: SessionState | None) -> tuple[Operation, Span] | None:
    """"The last digit is 8, not 7", 最后一位是八，不是七: the digits of a code the state holds (an
    order number, a phone), by where they are in it, said anew. Of several codes held, the one
    whose digits there are the ones refused, else the one said last."""
    pattern = _WHICH_DIGITS.get(lang)
    m = pattern.search(text) if pattern is not None and state is not None else None
    if m is None or state is None:
        return None
    new = digits_in(m.group("new"))
    old = digits_in(m.group("old") or "")
    if not new:
        return None
    if len(digits_in(text[:m.start()])) >= 5 and not m.group("named"):
        return None      # (电话打13912340000，哦不对，最后四位是5678: the number just said, put right by its reader)
    count = m.groupdict().get("n") or m.groupdict().get("n2")
    wanted = (_HOW_MANY.get(count, int(count) if count and count.isdigit() else 0) if count else 0) or len(new)
    codes = sorted((c for c in state.constraints.values() if isinstance(c.value, str)
                    and (spec := schema.keys.get(c.key)) is not None and spec.reader == Reader.IDENTIFIER
                    and sum(ch.isdigit() for ch in c.value) > len(new)), key=lambda c: c.last_mentioned)
    candidates: list[tuple[bool, str, str]] = []
    for condition in codes:
        held = str(condition.value)
        at = [i for i, ch in enumerate(held) if ch.isdigit()]
        if m.group("last") or m.groupdict().get("last2"):
            places = at[-wanted:]
        elif m.group("first"):
            places = at[:wanted]
        else:
            start = _ORDINAL_DIGIT.get(m.group("nth"), int(m.group("nth")) if m.group("nth").isdigit() else 0) - 1
            places = at[start:start + len(new)]
        if len(places) != len(new):
            continue
        was = "".join(held[i] for i in places)
        if was == new:
            continue
        changed = list(held)
        for i, digit in zip(places, new, strict=True):
            changed[i] = digit
        candidates.append((bool(old) and was == old, condition.key, "".join(changed)))
    named = m.group("named")
    if named:
        # ("the last two digits of the order are 3 2", 电话最后一位是八: the code named; 银行卡最后四位
        # names none held.)
        candidates = [c for c in candidates if any(named.lower() in word.lower() or word.lower() in named.lower()
                                                   for lang_words in schema.key(c[1]).aliases.values()
                                                   for word in lang_words)]
    if not candidates:
        return None
    _refused, key, value = max(candidates, key=lambda c: c[0])     # (the last said, among equals)
    return Operation(Op.SET, key, Comparator.EQ, value, m.group(0), correction=True,
                     reason=DIGITS_PUT_RIGHT), m.span()


def digits_in(said: str) -> str:
    """'八', 'four five', '4 5' → the digits."""
    out = digits_of_zh(said)
    words = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
             "seven": "7", "eight": "8", "nine": "9"}
    out = re.sub(r"[a-z]+", lambda w: words.get(w.group(0).lower(), ""), out, flags=re.IGNORECASE)
    return re.sub(r"\D", "", out)


def _number_inside_held(old: int, new: int, state: SessionState) -> tuple[str, str] | None:
    """The held value with `old` in it, `new` in its place: a time's hour in the same half of
    the day (19:00, "8 not 7" → 20:00), or a number in a name (42 Maple Street → 24 Maple Street)."""
    for condition in state.constraints.values():
        held = condition.value
        if not isinstance(held, str):
            continue
        clock = re.fullmatch(r"(\d{2}):(\d{2})", held)
        if clock is not None:
            hour = int(clock.group(1))
            if hour % 12 == old % 12 and 1 <= new <= 12:
                return condition.key, f"{(new % 12) + (12 if hour >= 12 else 0):02d}:{clock.group(2)}"
            continue
        inside = re.search(rf"(?<!\d){old}(?!\d)", held)
        if inside is not None:
            return condition.key, held[:inside.start()] + str(new) + held[inside.end():]
    return None


def _key_holding_number(numbers: set[float], state: SessionState) -> str | None:
    """The key whose held value is one of `numbers` (a count, an amount, degrees)."""
    for condition in state.constraints.values():
        held = condition.value
        if isinstance(held, (int, float)) and not isinstance(held, bool) and float(held) in numbers:
            return condition.key
    return None


def held_number_named(phrase: str, state: SessionState | None) -> tuple[str, str | None] | None:
    """The held condition a withdrawal names by its number ("55.50元不要了", "forget the 40
    dollars"): the number said is the value held, with or without its cents."""
    if state is None:
        return None
    key = _key_holding_number({float(n) for n in re.findall(r"\d+(?:\.\d+)?", phrase)}, state)
    return (key, None) if key is not None else None


__all__ = ["DIGITS_PUT_RIGHT", "PART_PUT_RIGHT", "digits_in", "held_code_put_right", "held_digits_replaced",
           "held_number_named", "held_number_replaced", "held_part_replaced"]
