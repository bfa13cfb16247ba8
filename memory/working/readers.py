"""Schema-driven readers for phrasings the value words alone miss.

- a quantity with its unit, or after the key's own set-words ("keep it at 21 degrees",
  "leave it at 21", 温度保持在二十二度);
- a thing the user refuses or dislikes standing for a value ("I can't stand motorways" →
  avoid_highways), from the key's `avoided:`;
- a refusal anywhere in the value's clause (别给我们安排靠窗, "anywhere but the patio"),
  with the key's own refusal words (`negation:`);
- a value read only when its clause has one of the key's `value_cues` ("move my seat back",
  never "call me back"), and never from a question;
- an identifier with a digit after the key's name ("order number A-4471").

What the words mean is `memory/language/`'s; which key a reading goes to is the domain
YAML's. Nothing here names a domain or a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from monologue.memory.domain.schema import ActionSpec, DomainSchema, KeySpec, OtherScale, Reader
from monologue.memory.language.cues import AMOUNT_AFTER_NAME, put_right_after
from monologue.memory.language.digits import digits_of_zh, digits_said, digits_said_en
from monologue.memory.language.email_address import emails_said
from monologue.memory.language.numbers import (
    EN_NUMBER,
    EN_SUM,
    EN_SUM_WITH_CENTS,
    ZH_NUMBER,
    amount_read_two_ways,
    to_amount,
    to_int,
    with_cents_en,
    with_jiao_zh,
)
from monologue.memory.language.places import a_house_number
from monologue.memory.language.stances import (
    CHANGED,
    asks,
    clause_bounds,
    describes_something_else,
    disliked_after,
    refused_before,
)
from monologue.memory.working.put_right import digits_in
from monologue.memory.working.state import Comparator, Op, Operation, SessionState

Span = tuple[int, int]
Add = Callable[[Operation, Span], None]

_NUMBER = {"en": EN_NUMBER, "zh": ZH_NUMBER}
_CURRENCY = "$£€¥"          # units written before the number
# After a number: what shows it is a clock time, a head count or money, not a quantity of this key.
# (A level is no quantity either: 风速开到三档, "fan to level 3".)
_NOT_A_QUANTITY = {"en": re.compile(r"\s*(?::\d|am\b|pm\b|a\.m|p\.m|o'?clock|people|persons|guests|of us|"
                                    r"dollars|bucks|minutes|mins?\b|hours|hrs?\b|secs?\b|seconds|years|days?\b|weeks?\b|"
                                    r"months?\b|times\b|km|miles|items?\b|pairs?\b|box(?:es)?\b|inch(?:es)?\b|orders?\b|"
                                    r"packages?\b|parcels?\b|pieces?\b|units?\b|things\b|stars?\b|"
                                    r"levels?\b|notch|notches|settings?\b|%|percent)"),
                   "zh": re.compile(r"\s*(?:[点點个位人块元号月日分档挡级格%天周年次遍"
                                    r"件箱斤笔双盒包台张份瓶袋]|点钟|小时|公里|星期)")}


def overlaps(span: Span, taken: list[Span]) -> bool:
    """Whether `span` overlaps any span already read."""
    return any(span[0] < end and start < span[1] for start, end in taken)


def words_of(table: dict[str, tuple[str, ...]], lang: str) -> tuple[str, ...]:
    """A per-language word table's words in `lang`, with the English ones too."""
    return table.get(lang, ()) + (table.get("en", ()) if lang != "en" else ())


def _alternation(words: tuple[str, ...], spaced: bool) -> str:
    body = "|".join(re.escape(w.lower()) for w in sorted(words, key=len, reverse=True))
    return r"(?<![\w])(?:" + body + r")(?![\w])" if spaced else "(?:" + body + ")"


def about_something_else(spec: KeySpec, text: str, lang: str) -> bool:
    """Whether `text` says one of the key's `not_when` words: it is about another thing ("30
    degrees outside", 天窗 beside the windows)."""
    return mentions(text, words_of(spec.reading.not_when, lang), lang == "en")


def with_its_cues(spec: KeySpec, text: str, lang: str) -> bool:
    """Whether `text` says one of the key's `value_cues` ("call me" beside a call back's day)."""
    return mentions(text, words_of(spec.reading.value_cues, lang), lang == "en")


def _clause(text: str, span: Span) -> str:
    left, right = clause_bounds(text, span[0], span[1])
    return text[left:right].strip()


def mentions(clause: str, words: tuple[str, ...], spaced: bool) -> bool:
    """Whether `clause` says one of `words` (in English whole, or in the plural: "the seats")."""
    pattern = _alternation(words, spaced)
    if spaced:
        pattern = pattern.removesuffix(r"(?![\w])") + r"(?:s|es)?(?![\w])"
    return bool(words) and bool(compiled(pattern).search(clause.lower()))


@lru_cache(maxsize=16384)
def value_pattern(word: str, spaced: bool) -> re.Pattern[str]:
    """A value word as said: in English also its plural ("bar seats", "window tables"). Compiled
    once: a domain's words are more than the `re` module's own cache holds, and a turn reads them all."""
    if not spaced:
        # 听力不太好 says 听力不好: a degree word after 不 softens it, it does not change the value.
        return re.compile(re.escape(word).replace("不", "不(?:太|很|大|怎么|那么|是很)?"))
    return re.compile(r"\b" + re.escape(word) + (r"(?:s|es)?\b" if word[-1:].isalpha() else r"\b"))


@lru_cache(maxsize=16384)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled once (the patterns built from a domain's words, read every turn)."""
    return re.compile(pattern, flags)


# --- quantities ----------------------------------------------------------------------------


def _quantity_candidates(spec: KeySpec, source: str, lang: str,
                         bare: bool = False) -> Iterator[tuple[int | float, Span, bool]]:
    """(number, span of the number, whether it is firmly this key's), best evidence first: a
    unit, the key's set-words, its name; with `bare`, a number said alone too (the answer to a
    question about the key). Only a number after the key's name is not firm ("turn the AC on for
    5 mins", "the heat, my kid is 3"): out of range, it is no number for this key at all."""
    patterns, by_name = _quantity_patterns(spec, lang, bare)
    number_of = to_amount if spec.type == "money" else to_int     # an amount keeps its cents
    # After the key's name, a number said as its setting ("the temperature to 40", 温度调成35) is firm.
    setting = re.compile(r"(?:\bto|\bat|到|成|为)\s*" + _FILLER[lang] + "$")
    for pattern in patterns:
        for m in compiled(pattern).finditer(source):
            n = number_of(m.group("n"))
            if n is not None and not (lang == "en" and a_house_number(source, m.end("n"))):
                yield n, m.span("n"), pattern != by_name or bool(setting.search(source[m.start():m.start("n")]))


def sum_read_two_ways(schema: DomainSchema, text: str, lang: str,
                      taken: list[Span]) -> tuple[str, tuple[float, int]] | None:
    """A sum said for a money key that reads two ways ("I paid one fifty nine": $1.59 or $159),
    where its key's words or units say it is one: the key and both readings."""
    if lang != "en":
        return None
    source = text.lower()
    for spec in schema.read_by(Reader.QUANTITY):
        if spec.type != "money":
            continue
        # (the last said: "one fifty nine, no wait, one sixty nine" asks of the sixty nine)
        said = sorted(((m.span("n"), readings) for pattern in _quantity_patterns(spec, lang)[0]
                       for m in compiled(pattern).finditer(source)
                       if (readings := amount_read_two_ways(m.group("n"))) is not None
                       and not overlaps(m.span("n"), taken)), key=lambda found: found[0])
        if said:
            meant = put_right_after(source, said[-1][0][1])     # ("…, no wait, one sixty nine": put right)
            again = _SPOKEN_SUM_AT.match(source, meant) if meant is not None else None
            readings = amount_read_two_ways(again.group()) if again is not None else None
            return spec.name, readings or said[-1][1]
    return None


_SPOKEN_SUM_AT = re.compile(r"\s*(?:" + EN_SUM + r")")
# ("set it to um 22", "to like 70": a filler between the setting and its number)
_FILLER = {"en": r"(?:(?:like|about|around|maybe|um|uh|er|say|roughly)\W+)*", "zh": r"(?:大概|差不多|嗯)?"}


def _quantity_patterns(spec: KeySpec, lang: str, bare: bool = False) -> tuple[list[str], str]:
    """The patterns a number for `spec` is said in, best evidence first (see
    `_quantity_candidates`), and the one that finds it by the key's name."""
    spaced = lang == "en"
    # (a sum read out as dollars and cents: "eighty nine ninety nine")
    number = EN_SUM if spec.type == "money" and lang == "en" else _NUMBER[lang]
    reading = spec.reading
    units = words_of(reading.units, lang) + (words_of(reading.other_scale.words, lang) if reading.other_scale else ())
    suffixes = tuple(u for u in units if u[:1] not in _CURRENCY)
    prefixes = tuple(u for u in units if u not in suffixes)
    patterns: list[str] = []
    if suffixes:
        tail = r"(?![a-z])" if spaced else ""
        patterns.append(r"(?P<n>" + number + r")\s*(?:" + "|".join(re.escape(u.lower()) for u in suffixes) + ")" + tail)
    if prefixes:
        patterns.append(r"(?:" + "|".join(re.escape(u) for u in prefixes) + r")\s?(?P<n>" + number + ")")
    if spec.type == "money" and lang == "en":
        # ("it was eighty nine ninety nine": a price read out with its cents)
        patterns.append(r"\bit (?:was|is|'s|came to)\s+(?:like\s+|about\s+)?(?P<n>" + EN_SUM_WITH_CENTS + ")")
    cues = words_of(reading.set_cues, lang)
    filler = _FILLER[lang]
    if cues:
        # ("set it to, uh, twenty one": a pause between the setting and its number)
        patterns.append(_alternation(cues, spaced) + (r"[\s,]+" if spaced else "") + filler + r"(?P<n>" + number + ")")
    names = words_of(spec.aliases, lang) + (spec.label(lang),)
    gap = r"\W+(?:\w+\W+){0,3}?" if spaced else r".{0,4}?"
    by_name = _alternation(names, spaced) + gap + r"(?P<n>" + number + ")"
    patterns.append(by_name)
    if bare:
        # ("No, 21 please" turns down what the agent offered and answers it.)
        lead = r"(?:(?:no|nope|nah|actually|make it|set it to|let'?s say|maybe|um|uh|ok(?:ay)?|about|around)\W+)*" \
            if spaced else r"(?:不[是用要]?[，,]?)?(?:就|大概|嗯，?|那就|调到|要)?"
        patterns.append(r"^\W*" + lead + r"(?P<n>" + number + r")"
                        r"(?:\W+(?:please|thanks))?\W*(?:吧|就行|好了|可以)?\W*$")
    return patterns, by_name


def _less_own_set_cue(spec: KeySpec, before: str, lang: str, schema: DomainSchema) -> str:
    """`before` (the words before a number) less what the key's own set-words that end it tell: a
    set-word with a control's name in it ("the fan to", 音量调到) says whose number it is, whatever
    was named before ("turn the fan up and the volume to 10"); a plain one ("make it") only drops
    out ("the fan, make it 20" still names the fan)."""
    cues = words_of(spec.reading.set_cues, lang)
    if not cues:
        return before
    spaced = lang == "en"
    found = re.search(_alternation(cues, spaced) + r"\s*" + _FILLER[lang] + r"$", before.lower())
    if found is None:
        return before
    names_a_control = any(called_by_name(key, found.group(), lang) for key in schema.keys.values())
    return "" if names_a_control else before[:found.start()]


def _unit_next(after: str, spec: KeySpec, lang: str) -> bool:
    units = words_of(spec.reading.units, lang)
    return bool(units) and bool(re.match(r"\s*" + _alternation(units, lang == "en"), after))


@dataclass(frozen=True)
class OutOfRange:
    """A number said for a quantity key outside its range ("72 degrees" for a cabin of 16 to
    30): `offered` is it converted from the key's other scale (22), or None."""

    key: str
    number: float
    offered: float | None = None


def read_quantities(schema: DomainSchema, text: str, lang: str, taken: list[Span], add: Add,
                    correction: bool, asked: str = "") -> list[OutOfRange]:
    """A number for each `quantity` key: in its range, not a time or a count, not in a
    clause about something else ("30 degrees outside"), not asked about; a bare number ("22",
    二十二吧) when the agent has just asked for the key (`asked`). Returned: the numbers said for
    a key outside its range, converted where the key's other scale has them (72 → 22)."""
    source = text.lower() if lang == "en" else text
    beyond: list[OutOfRange] = []
    for spec in schema.read_by(Reader.QUANTITY):
        reading = spec.reading
        missed: OutOfRange | None = None
        for n, span, firm in _quantity_candidates(spec, source, lang, bare=spec.name == asked):
            after = source[span[1]:]
            if overlaps(span, taken) or (_NOT_A_QUANTITY[lang].match(after) and not _unit_next(after, spec, lang)):
                continue
            if _A_STEP_BEFORE[lang].search(source[:span[0]]):
                continue      # 风速开大一档, 音量调低两格, "turn it up two notches": how far it moves, no level
            clause = _clause(text, span)
            if about_something_else(spec, clause, lang) or asks(text, *span, lang):
                continue
            before = _less_own_set_cue(spec, text[clause_bounds(text, *span)[0]:span[0]], lang, schema)
            if not _unit_next(after, spec, lang) and not called_by_name(spec, before, lang) and any(
                    called_by_name(other, before, lang) for other in schema.keys.values() if other.name != spec.name):
                continue      # 声音调到十: a number said for another key named before it, with no unit of this one's
            scale = reading.other_scale
            on_scale = False
            if scale is not None:
                named = _alternation(words_of(scale.words, lang), lang == "en")
                # 72 degrees Fahrenheit; 华氏七十二度, the scale's name first
                on_scale = bool(re.match(r"\s*(?:degrees?\s*)?" + named, after)
                                or re.search(named + r"\s*$", source[:span[0]]))
            if on_scale or reading.value_range and not reading.value_range[0] <= n <= reading.value_range[1]:
                # ("that's too loud, bring it down to like 5": another control's level, not a cabin of 5 degrees)
                of_another = not _unit_next(after, spec, lang) and not names_key(spec, text, lang) and any(
                    names_key(other, text, lang) for other in schema.keys.values()
                    if other.name != spec.name and other.reading.verb_values)
                if missed is None and (firm or on_scale) and not of_another:
                    missed = OutOfRange(spec.name, n, _converted(n, scale, lang, on_scale, reading.value_range))
                continue
            n, span = _quantity_put_right(source, n, span, reading.value_range, words_of(spec.reading.units, lang))
            if spec.type == "money":
                # 六十九块五, 十二块五毛: the tenths after the unit; "forty nine dollars and fifty cents"
                n = with_jiao_zh(n, source, span[1]) if lang == "zh" else with_cents_en(n, source, span[1])
            add(Operation(Op.SET, spec.name, Comparator.EQ, n, clause, correction=correction), span)
            missed = None
            break
        if missed is not None:
            beyond.append(missed)
    return beyond


# A word of moving up or down just before a number: the number is the step, not where it ends up.
_A_STEP_BEFORE = {"en": re.compile(r"\b(?:up|down|louder|quieter|higher|lower)\s+(?:by\s+)?$", re.IGNORECASE),
                  "zh": re.compile(r"(?:[大小高低强弱]|调大|调小|调高|调低|开大|开小|加|减|再)\s*$")}


_REPAIRED_NUMBER = re.compile(r"(?P<n>" + EN_NUMBER + "|" + ZH_NUMBER + r")(?!\s*(?:点|:|am|pm|o'?clock))",
                              re.IGNORECASE)


def _quantity_put_right(source: str, n: float, span: Span, value_range: tuple[float, float] | None,
                        units: tuple[str, ...] = ()) -> tuple[float, Span]:
    """The number said right after a slip in the one at `span` is put right (调到二十六，不对，二十五吧;
    "set it to 23, no wait, 22", its unit between: 二十六度，哦不对，二十五度): that number and where
    it is, if it is in the key's range."""
    ordered = sorted(units, key=len, reverse=True)
    unit = re.match(r"\s*(?:" + "|".join(map(re.escape, ordered)) + r")", source[span[1]:]) if units else None
    meant = put_right_after(source, span[1] + (unit.end() if unit else 0))
    if meant is None:
        # (…or a pause and another number, settled on: 空调二十六度，嗯……二十五吧, "22... um, 21 then")
        paused = _PAUSED_TO_ANOTHER.match(source, span[1] + (unit.end() if unit else 0))
        if paused is None:
            return n, span
        meant = paused.end()
        found = _REPAIRED_NUMBER.match(source, meant)
        if found is None or not _SETTLED_ON.match(source, found.end()):
            return n, span
    found = _REPAIRED_NUMBER.match(source, meant)
    later = to_amount(found.group("n")) if found is not None else None
    if found is None or later is None or value_range is not None and not value_range[0] <= later <= value_range[1]:
        return n, span
    return later, found.span("n")


_PAUSED_TO_ANOTHER = re.compile(r"[\s,，]*(?:(?:…+|\.{3,}|嗯+|呃+|um+|uh+|hmm+|erm?)[\s,，.…]*)+", re.IGNORECASE)
_SETTLED_ON = re.compile(r"\s*(?:度|degrees?)?\s*(?:吧|好了|就行|then|instead|actually)\s*(?:[,，。.!！]|$)",
                         re.IGNORECASE)


def _converted(n: float, scale: OtherScale | None, lang: str, said_on_scale: bool,
               key_range: tuple[float, float] | None) -> float | None:
    """`n` on the key's own scale, where the other scale holds it (said so, or bare in a
    language that says it bare) and the result is in the key's range."""
    if scale is None or not (said_on_scale or lang in scale.bare):
        return None
    if not scale.value_range[0] <= n <= scale.value_range[1]:
        return None
    value: float = round(n * scale.factor + scale.offset)      # a whole degree, as the key holds it
    return value if key_range is None or key_range[0] <= value <= key_range[1] else None


# --- refusals and dislikes ---------------------------------------------------------------


def refused(spec: KeySpec, text: str, span: Span, lang: str) -> bool:
    """Whether the value at `span` is refused: a refusal before it in its clause, or a
    dislike after it, in the language's words or the key's own."""
    return (refused_before(text, span[0], lang, words_of(spec.reading.negation_before, lang))
            or disliked_after(text, span[1], lang, words_of(spec.reading.negation_after, lang)))


def read_avoided(schema: DomainSchema, text: str, source: str, lang: str, taken: list[Span], add: Add,
                 correction: bool) -> None:
    """'I can't stand motorways', 高速太吓人: a refused thing that names one of a key's values."""
    for spec in schema.keys.values():
        for value, table in spec.reading.avoided.items():
            words = words_of(table, lang)
            if not words:
                continue
            for m in re.finditer(_alternation(words, lang == "en"), source):
                if overlaps(m.span(), taken) or asks(text, *m.span(), lang):
                    continue
                if refused(spec, text, m.span(), lang):
                    comparator = Comparator(spec.default_op) if spec.multi else Comparator.EQ
                    add(Operation(Op.SET, spec.name, comparator, value, _clause(text, m.span()),
                                  correction=correction), m.span())
                    break


_BARE_ANSWER_EN = frozenset({"a", "an", "the", "by", "via", "please", "just", "oh", "um", "uh", "well", "ok", "okay",
                             "so", "maybe", "probably", "i", "guess", "think", "then", "yes", "yeah", "sure"})


_JOINED_REQUEST = re.compile(r"\s+(?:and|then|and then|but)\s+|然后|再把|再帮|并且|同时", re.IGNORECASE)


def conjunct(text: str, span: Span, left: int, right: int) -> str:
    """The one of several requests joined in a clause ("open the sunroof | and | close the windows")
    that holds `span`."""
    start = max((m.end() for m in _JOINED_REQUEST.finditer(text, left, span[0])), default=left)
    after = _JOINED_REQUEST.search(text, span[1], right)
    return text[start:after.start() if after else right]


def cued(spec: KeySpec, text: str, span: Span, lang: str, controls: Iterable[KeySpec] = ()) -> bool:
    """A key with `value_cues` is read only from a clause that has one and does not ask.
    A key whose values describe its nouns (`open_values: nouns`, "Italian food") does not
    read a value that describes something else ("Italian opera")."""
    nouns = words_of(spec.open_value_nouns, lang)
    if nouns:
        others = tuple(w for table in spec.values.values() for w in words_of(table, lang))
        if describes_something_else(text, span[1], lang, nouns + others):
            return False
    cues = words_of(spec.reading.value_cues, lang)
    if not cues:
        return True
    if not spec.reading.verb_values and spec.reading.not_when \
            and about_something_else(spec, text[slice(*clause_bounds(text, *span))], lang):
        return False        # ("turn the seat heater off, my back's roasting": one's back moves no seat)
    # A Chinese verb comes before its object (走高速, 上高速, 发邮件); 高速上 is a place, not a request.
    left, right = clause_bounds(text, *span)
    where = text[left:right] if lang == "en" or spec.reading.verb_values else text[left:span[1]]
    if asks(text, *span, lang):
        return False
    if spec.reading.verb_values:
        # A control's value is a verb ("on", 打开, 小一点): only its own clause says what it is for
        # (座椅加热打开，车窗关上 opens no window), and not where it is about another thing (天窗)…
        # ("open the sunroof instead and close the windows": the sunroof is the other request's.)
        if about_something_else(spec, conjunct(text, span, left, right), lang):
            return False
        if mentions(where, cues, lang == "en"):
            # …the nearest control named, where a clause names several ("打开车窗关掉座椅加热",
            # "turn the fan down and the volume up"); a tie goes to the one after the verb.
            return _nearest_control(text, span, left, right, spec, controls, lang) is spec
        # …or the clause just before it in the same sentence, naming only this control
        # (空调风太小了，调大一点吧).
        before = text[:left].rstrip()
        # (A stretch blanked out in `where` is a value another reader already took there.)
        # (A word naming one of this control's sides names no other control: 把副驾的窗户关上，主驾的
        # 打开 opens the driver's window, though 主驾 and 副驾 also move the seats.)
        if left == 0 or not re.search(r"[,，、;；]$", before) or re.search(r"\s{2,}", where) or any(
                other is not spec and _names_or_values(other, _sides_unsaid(spec, where, lang), lang,
                                                       _words_of_values(spec, lang))
                for other in controls):
            return False        # (座椅加热打开，车窗关上 / 把窗户关上，开内循环: the clause says its own thing)
        previous = before[slice(*clause_bounds(before, len(before) - 1, len(before) - 1))]
        # (…a cue that is the other's own value names it less than this one's name: "the fan is too
        # loud, lower it" lowers the fan.)
        return mentions(previous, cues, lang == "en") and not any(
            other is not spec and other.reading.verb_values
            and mentions(_sides_unsaid(spec, previous, lang),
                         tuple(c for c in words_of(other.reading.value_cues, lang)
                               if c not in _words_of_values(other, lang)), lang == "en")
            for other in controls)
    # The value said on its own is an answer ("A text message."), whatever cue it lacks.
    rest = (text[left:span[0]] + " " + text[span[1]:right]).lower()
    # …and with another of the key's own words beside it ("A phone call.": call is the phone's too).
    own = {w for table in spec.values.values() for phrase in words_of(table, lang)
           for w in re.findall(r"[a-z']+", phrase)}
    if lang == "en" and set(re.findall(r"[a-z']+", rest)) - own <= _BARE_ANSWER_EN:
        return True
    # The key named in the same sentence is its cue ("my contact method has changed: it's a phone
    # call now", 联系方式改了，现在打电话).
    start = max((m.end() for m in re.finditer(r"[.!?。！？]", text[: span[0]])), default=0)
    end = next((m.start() for m in re.finditer(r"[.!?。！？]", text[span[1]:])), len(text) - span[1]) + span[1]
    names = (*words_of(spec.aliases, lang), spec.label(lang))
    if mentions(text[start:end], names, lang == "en"):
        return True
    if lang != "en" and re.search(r"(?:[在到去]|找(?:个|一个|一?家)?)\s*$", text[left:span[0]]) \
            and mentions(text[span[1]:right], cues, False):
        return True     # 在药店停一下, 找个药店停一下: a place, then the verb (a place to go to, not a road to be on)
    return mentions(where, cues, lang == "en") or asked_for_just_before(spec, text, span, lang) is not None


def _sides_unsaid(spec: KeySpec, text: str, lang: str) -> str:
    """`text` with the words naming `spec`'s sides (主驾, "passenger") blanked out."""
    words = tuple(w for table in spec.sides.values() for w in words_of(table, lang))
    if not words:
        return text
    return compiled(_alternation(words, lang == "en")).sub(lambda m: " " * len(m.group()), text.lower())


def asked_for_just_before(spec: KeySpec, text: str, span: Span, lang: str) -> Span | None:
    """The clause just before the value's, in the same sentence, where it asks for one of the key
    with no value (路上找个地方停一下，买个早饭: a stop, and the errand after it says which); None if not."""
    cues = words_of(spec.reading.value_cues, lang)
    left = clause_bounds(text, *span)[0]
    before = text[:left].rstrip()
    if not cues or left == 0 or not re.search(r"[,，、]$", before):
        return None
    bounds = clause_bounds(before, len(before) - 1, len(before) - 1)
    previous = before[slice(*bounds)]
    if mentions(previous, cues, lang == "en") and not mentions(previous, _words_of_values(spec, lang), lang == "en"):
        return bounds
    return None


def control_just_carried_out(schema: DomainSchema, state: SessionState | None) -> ActionSpec | None:
    """The control (an action with no read-back) the agent carried out in its last turn."""
    last = state.last_act if state is not None else None
    if last is None or last.act != "act" or last.action not in schema.actions:
        return None
    action = schema.actions[last.action]
    return None if action.confirm else action


def commanded_keys(schema: DomainSchema, state: SessionState | None) -> frozenset[str]:
    """The controls the agent carried out a command for in its last turn: a value said next
    without naming one (再往后一点, "louder") goes on with it."""
    action = control_just_carried_out(schema, state)
    if action is None or state is None:
        return frozenset()
    # (Several commands at once, "放周杰伦的歌，声音小一点": each control set last turn, not only the first.)
    keys = frozenset(action.triggers) | frozenset(c.key for c in state.constraints.values()
                                                  if c.last_mentioned == state.turn and schema.is_control(c.key))
    # (After "the fan on three", "a bit more" is the fan's step up; after "a degree warmer", "22" is the
    # cabin's temperature: the level and its steps go together.)
    steps = frozenset(step for key in keys if key in schema.keys for step in schema.key(key).reading.stepped_by)
    levels = frozenset(spec.name for spec in schema.keys.values() if keys & set(spec.reading.stepped_by))
    # (…and one side's command goes on as its whole's, which the rules read: "a bit more" after the
    # passenger window; memory/working/sides.py moves it back to the side.)
    wholes = frozenset(schema.key(key).side_of for key in keys if schema.key(key).side_of)
    return keys | steps | levels | wholes


def asked_for_earlier(schema: DomainSchema, text: str, at: int, lang: str) -> frozenset[str]:
    """The controls asked for earlier in the same turn, before `at`, by a key whose value starts
    them ("put on some jazz, and turn it up a notch": the music, so "it" is the volume): that key,
    what it brings, and the controls that go with them."""
    before = text[:clause_bounds(text, at, at)[0]]
    asked = frozenset(spec.name for spec in schema.keys.values()
                      if spec.reader == Reader.WORDS_AFTER and spec.reading.brings
                      and mentions(before, words_of(spec.name_cues, lang), lang == "en"))
    keys = asked | frozenset(k for name in asked for k in schema.key(name).reading.brings)
    return keys | controls_going_with(schema, keys) if keys else frozenset()


def controls_going_with(schema: DomainSchema, keys: frozenset[str]) -> frozenset[str]:
    """The controls that go with `keys`: those whose own cue words name one of them (the
    volume's cues name the music). Just after music was put on, "turn it up a little" is the
    volume, not the windows or the fan."""
    names = {w.casefold() for key in keys if key in schema.keys
             for table in (schema.key(key).labels, schema.key(key).aliases) for words in table.values()
             for w in ((words,) if isinstance(words, str) else words)}
    return frozenset(spec.name for spec in schema.keys.values()
                     if spec.name not in keys and spec.reading.verb_values
                     and any(w.casefold() in names for words in spec.reading.value_cues.values() for w in words))


def _words_of_values(spec: KeySpec, lang: str) -> tuple[str, ...]:
    return tuple(w for table in spec.values.values() for w in words_of(table, lang))


def _nearest_control(text: str, span: Span, left: int, right: int, spec: KeySpec, controls: Iterable[KeySpec],
                     lang: str) -> KeySpec | None:
    """Of the controls named between `left` and `right`, the one named nearest the verb at `span`."""
    best: tuple[int, int, int, int] | None = None
    nearest: KeySpec | None = None
    clause = text[left:right].lower()
    for candidate in [spec, *(c for c in controls if c is not spec and c.reading.verb_values)]:
        for cue in words_of(candidate.reading.value_cues, lang):
            # (in English with its plural: "heat up the seats")
            pattern = r"(?<![a-z])" + re.escape(cue.lower()) + r"(?:s|es)?(?![a-z])" if lang == "en" else re.escape(cue)
            for m in re.finditer(pattern, clause):
                start, end = m.start() + left, m.end() + left
                gap = span[0] - end if end <= span[0] else start - span[1] if start >= span[1] else 0
                # (A cue that is the value's own words, "too loud", names its control only where
                # the clause names no other: "the fan is too loud" is the fan's noise.)
                own_words = start < span[1] and span[0] < end
                # (another's word first; then nearer; after; longer)
                rank = (int(own_words), max(gap, 0), 0 if start >= span[1] else 1, -len(cue))
                if best is None or rank < best:
                    best, nearest = rank, candidate
    return nearest


def _names_or_values(spec: KeySpec, clause: str, lang: str, shared: tuple[str, ...] = ()) -> bool:
    """Whether `clause` names the key (label, alias, cue) or says one of its values that is no
    control's verb (内循环, 高速; not 开 or "down", which many controls share), nor one of
    `shared` (the other key's own: "lower" is the seat's and the fan's)."""
    words = (*words_of(spec.aliases, lang), spec.label(lang), *words_of(spec.reading.value_cues, lang))
    if not spec.reading.verb_values:
        words += tuple(w for table in spec.values.values() for w in words_of(table, lang) if w not in shared)
    return mentions(clause, tuple(w for w in words if len(w) > 1), lang == "en")


def value_heads_zh(spec: KeySpec, value: str) -> frozenset[str]:
    """The verb a value's Chinese words open with, where three or more of them do (取消 of 取消订单,
    取消这个订单, 取消购买…): said alone to the question which value (能取消吗), it names that one."""
    heads = [w[:2] for w in spec.values.get(value, {}).get("zh", ()) if len(w) > 2]
    return frozenset(h for h in set(heads) if heads.count(h) >= 3 and h not in _NO_VERB_HEADS_ZH)


# Heads that are no verb of a value's own: the thing (订单), who for (帮我, 给我), where (到哪).
_NO_VERB_HEADS_ZH = frozenset({"订单", "单子", "帮我", "给我", "申请", "直接", "重新", "我想", "想要", "到哪", "把订"})


def controls_unnamed(schema: DomainSchema, text: str, lang: str) -> list[str]:
    """The controls (`verb_values` keys) one of whose values `text` says without naming any
    control ("turn it down a notch", 关了吧): the ones it may be about, in the YAML's order."""
    lowered = text.lower()
    found = []
    for spec in schema.keys.values():
        if not spec.reading.verb_values or about_something_else(spec, lowered, lang):
            continue
        # (Not a one-character verb, nor "up", "on": 开快点, "speed up", "go on" command no control;
        # "turn it on" does.)
        shortest = 2 if lang == "en" and re.search(r"\b(?:turn|switch|put|crank|roll)\b", lowered) \
            else 3 if lang == "en" else 2
        words = tuple(w for table in spec.values.values() for w in words_of(table, lang) if len(w) >= shortest)
        if mentions(lowered, words, lang == "en"):
            found.append(spec.name)
    return found


# A level said as what to set a control to ("set the volume to 15", "turn the fan to level 3",
# 风量开到三档, 调到最大), not a step (再大一格, 大一档) nor a level remembered ("it was fine at 3").
# ("set the volume to 15"; spoken bare, "volume to like 15", "fan to level 3")
_A_LEVEL = re.compile(r"(?:\b(?:set|turn|put|crank|change|make|bring)\b.*)?\b(?:to|at|on)\s+"
                      r"(?:like\s+|about\s+|around\s+)?"
                      r"(?:level\s+)?"
                      r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                      r"max(?:imum)?|min(?:imum)?)\b|"
                      r"(?:调|开|设|放|弄)(?:到|成)\s*"
                      r"(?:[零一二两三四五六七八九十百\d]+|最大|最小|最高|最低)", re.IGNORECASE)
# A level for a control that is only on or off ("put it on high", 调到最高档, 开到二档).
_A_GEAR = re.compile(r"\b(?:on|to)\s+(?:high|low|medium|max(?:imum)?|level\s+\w+)\b|"
                     r"(?:最高|最低|中|[一二两三四五\d])档", re.IGNORECASE)
# …or its hottest, said of the one just turned on ("put it on the hottest", 开到最热; 空调开到最热 is the cabin's).
_THE_HOTTEST = re.compile(r"\b(?:on|to)\s+(?:the\s+)?(?:hottest|warmest)\b|(?:开|调|加热)到最(?:热|烫|暖)",
                          re.IGNORECASE)


def controls_given_a_level(schema: DomainSchema, text: str, lang: str) -> list[str]:
    """The controls that move a step at a time (`moves`, with up and down) named with a level
    they cannot be set to ("set the volume to 15", 风量开到三档): to be told what they can do."""
    lowered = text.lower()
    if not _A_LEVEL.search(lowered):
        return []
    return [spec.name for spec in schema.keys.values()
            if spec.reading.verb_values and spec.reading.moves and {"up", "down"} <= set(spec.values)
            and names_key(spec, lowered, lang) and not about_something_else(spec, lowered, lang)]


def controls_only_on_or_off(schema: DomainSchema, text: str, lang: str, state: SessionState | None) -> list[str]:
    """The controls that are only on or off, given a level (座椅加热调到最高档, "put the seat
    heater on high"): named, or else the one just carried out; to be told they have no levels."""
    lowered = text.lower()
    hottest = bool(_THE_HOTTEST.search(lowered))
    if not _A_GEAR.search(lowered) and not hottest:
        return []           # (空调调到最高 may be the coldest or the strongest: the controls with levels read it)
    switches = [spec for spec in schema.keys.values() if spec.reading.verb_values and set(spec.values) == {"on", "off"}]
    named = [spec.name for spec in switches if names_key(spec, lowered, lang) and not about_something_else(
        spec, lowered, lang)]
    if named or any(names_key(spec, lowered, lang) for spec in schema.keys.values()
                    if spec.reading.verb_values or spec.reader == Reader.QUANTITY):
        # (空调调到最高: another control, which has its own reading; 空调开到最热, the cabin's warmest)
        return named if _A_GEAR.search(lowered) else []
    just_done = control_just_carried_out(schema, state)
    return [spec.name for spec in switches if just_done is not None and spec.name in just_done.needs]


_SUGGESTS = re.compile(r"\bwhy (?:don'?t|not|do not)\b|\bcan'?t you\b|\bcould(?:n'?t| not) you\b|"
                       r"为什么不|怎么不|干嘛不")


def controls_refused(schema: DomainSchema, text: str, lang: str) -> list[str]:
    """The controls a turn names only to refuse a command to them (别开空调, 不用开窗, "don't turn
    on the seat heating"): nothing to carry out, and to be told so rather than "I'm not sure"."""
    lowered = text.lower()
    if _SUGGESTS.search(lowered):
        return []       # "Why don't you turn on the AC?", 为什么不开空调: a suggestion, not a refusal
    found = []
    for spec in schema.keys.values():
        if not spec.reading.verb_values or not names_key(spec, lowered, lang) \
                or about_something_else(spec, lowered, lang):
            continue
        for word in sorted({w for table in spec.values.values() for w in words_of(table, lang)}, key=len, reverse=True):
            match = re.search(value_pattern(word.lower(), lang == "en"), lowered)
            if match is not None and refused_before(lowered, match.start(), lang):
                found.append(spec.name)
                break
    return found


def called_by_name(spec: KeySpec, text: str, lang: str) -> bool:
    """Whether `text` calls the key by its label or an alias (not by a cue word such as "to")."""
    return mentions(text, tuple(n for n in (*words_of(spec.aliases, lang), spec.label(lang)) if n), lang == "en")


def names_key(spec: KeySpec, text: str, lang: str, but_not: KeySpec | None = None) -> bool:
    """Whether `text` names the key itself: its label, an alias or a cue word (not a value); not
    by a word that names `but_not` too ("the heat" is the heater's and the temperature's)."""
    theirs = {n.lower() for n in (*words_of(but_not.aliases, lang), but_not.label(lang))} if but_not else set()
    names = (*words_of(spec.aliases, lang), spec.label(lang), *words_of(spec.reading.value_cues, lang))
    return mentions(text, tuple(n for n in names if n and n.lower() not in theirs), lang == "en")


def _lifted_at(spec: KeySpec, text: str, span: Span, lang: str) -> bool:
    spaced = lang == "en"
    left, right = clause_bounds(text, span[0], span[1])
    before, after, clause = text[left:span[0]].lower(), text[span[1]:right].lower(), text[left:right].lower()

    def near(words: tuple[str, ...]) -> bool:
        if not words:
            return False
        pattern = _alternation(words, spaced)
        gap_before, gap_after = (r"\s+(?:\S+\s+){0,2}$", r"^\s*") if spaced else (r".{0,3}$", r"^.{0,2}?")
        return bool(re.search(pattern + gap_before, before) or re.search(gap_after + pattern, after))

    reading = spec.reading
    return near(words_of(reading.lifted, lang)) or (
        near(words_of(reading.lifted_now, lang)) and bool(CHANGED[lang].search(clause)))


def read_lifted(schema: DomainSchema, text: str, source: str, lang: str, taken: list[Span], add: Add) -> None:
    """'I'm not allergic to peanuts anymore', 我对花生不过敏了: a refusal lifted is a withdrawal
    of that value, never a new refusal."""
    for spec in schema.keys.values():
        if not (spec.reading.lifted or spec.reading.lifted_now):
            continue
        for value, table in spec.values.items():
            for word in words_of(table, lang):
                m = re.search(value_pattern(word.lower(), lang == "en"), source)
                if m and not overlaps(m.span(), taken) and _lifted_at(spec, text, m.span(), lang):
                    add(Operation(Op.WITHDRAW, spec.name, value=value, words=_clause(text, m.span()),
                                  reason="user withdrew it"), m.span())
                    break


def named_amounts(spec: KeySpec, lang: str) -> tuple[re.Pattern[str], ...]:
    """'budget is $300', 预算五百: an amount after one of the key's own names."""
    names = words_of(spec.aliases, lang) + (spec.label(lang),)
    return (re.compile(_alternation(names, lang == "en") + AMOUNT_AFTER_NAME[lang]),)


# --- identifiers -----------------------------------------------------------------------------

_CODE = (r"(?P<v>[A-Za-z]{0,4}[-#]?\d[A-Za-z0-9_-]{2,}(?:\s\d[\d-]{1,})*|"
         r"\d{2,}(?:[ -]\d{2,})+)")   # ASCII: 没错吧 never joins a code; "90 77 12" said in pairs
# (In a Chinese sentence, capitals apart before the digits are the code's: 订单号是 JD 五五六六七七八八.)
_CODE_ZH = _CODE.replace("(?P<v>", "(?P<v>(?:(?-i:[A-Z]{1,4}) (?=\\d))?", 1)
# A code by its shape alone: letters then digits ("W892872"), or a long run of digits, said whole
# or in pieces ("A94 9714", "4471 0032"); a sum ("$65.99"), a time or a date never has this shape.
_APART = r"(?<![A-Za-z0-9$£€¥])(?<!\d[.,:])"          # not inside a word, a sum, a decimal or a time
_APART_AFTER = r"(?![A-Za-z0-9]|[.,:]\d)"
_SHAPED_CODE = re.compile(_APART + r"(?P<v>[A-Za-z]{1,3}[-#]?\d{4,}|[A-Z] \d{4,}|[A-Z]{1,3}[- ]?\d{2,}(?:[ -]\d{2,})+|"
                          r"\d{6,}|\d{3,}(?:[ -]\d{3,})+(?: \d{2})?|\d(?: \d){5,})" + _APART_AFTER)


# A phone number by its shape: 555 201 3344, (415) 555-0192, +1 415 555 0192, 13812345678.
# (…a mobile said in groups, 158 00 12 34 56; and a British one: 07700 900123, 020 7946 0958, +44 7700 900123)
_PHONE_SHAPE = re.compile(_APART + r"(?P<v>(?:\+?\d{1,3}[ -])?\(?\d{3}\)?[ -]\d{3}[ -]\d{4}|1[3-9]\d{9}|"
                          r"1[3-9]\d(?:[ -]?\d){8}|(?:0|\+44[ -]?)\d{4}[ -]?\d{6}|0\d{2}[ -]\d{4}[ -]\d{4})"
                          + _APART_AFTER)
# A code spelled out, a symbol at a time ("A B 4 5 7 2", "7 7 1 0 4").
_SPELLED = (r"(?<![\w'’])(?P<v>(?:(?:[A-Za-z] ){0,3}|[A-Za-z]{1,2}(?=\d))\d(?: [A-Za-z0-9](?![\w'’])){3,})")
"""A code spelled out ("A B 4 5 7 2", "k7 3 2 9 1": a letter or two touching the first digit)."""
_PHONE_BEFORE = re.compile(r"\b(?:phone|cell|mobile|call me|text me|reach me|ring me|give me a (?:ring|call|bell)|"
                           r"whatsapp|my number|contact number)\b[^0-9]*$|"
                           r"(?:电话|手机|短信|号码)[^0-9]*$", re.IGNORECASE)


_CODE_REFUSED = re.compile(r"(?:\b(?:not|no longer|instead of|rather than)|不是|不要)\s*(?:the |my |that |it'?s )?"
                           r"(?:order |ticket |phone )?(?:number |no\.? |#)?\s*(?:是)?$", re.IGNORECASE)


def _joined(code: str) -> str:
    """A code said in pieces, as one: 'a94 9714' → 'A949714' (a written hyphen stays)."""
    return re.sub(r"\s+", "", code).upper()


def read_codes_put_right(schema: DomainSchema, text: str, lang: str, taken: list[Span], add: Add,
                         held: Mapping[str, str]) -> None:
    """A code said with no name that is all but the one `held` for a key, a digit or two apart
    ("oh wait, it's 503 555 1289" just after phone 503 555 1288): that key's, put right (before
    `read_identifiers`, which would take any code in a code's shape for the order)."""
    original = text
    text = digits_said(text) if lang == "zh" else digits_said_en(text)
    codes = schema.read_by(Reader.IDENTIFIER)
    keys = {s.name for s in codes}
    names = tuple(w for s in codes for w in (*words_of(s.aliases, lang), s.label(lang)))
    for m in _SHAPED_CODE.finditer(text):
        if re.search(_alternation(names, lang == "en"), text[max(0, m.start() - 30):m.start()], flags=re.IGNORECASE) \
                or overlaps(m.span("v"), taken):
            continue
        said = _joined(m.group("v"))
        key = next((k for k, value in held.items() if k in keys and _all_but(said, _joined(value))), None)
        if key is not None:
            add(Operation(Op.SET, key, Comparator.EQ, said, _clause(original, m.span("v")), correction=True),
                m.span("v"))


# A code said a character at a time with hyphens between ("B-K-2-0-2-4-0-8-1-5").
# (…or between commas, as it is read out: "J，D，1，2，3，4，5，6")
_HYPHENATED = re.compile(r"(?<![\w-])[A-Za-z0-9](?:-[A-Za-z0-9]){3,}(?![\w-])|"
                         r"(?<![\w，,、])[A-Za-z0-9零〇一二三四五六七八九幺](?:(?:\s?[，,、]\s?|\s)[A-Za-z0-9零〇一二三四五六七八九幺])*"
                         r"(?:\s?[，,、]\s?[A-Za-z0-9零〇一二三四五六七八九幺])(?:(?:\s?[，,、]\s?|\s)[A-Za-z0-9零〇一二三四五六七八九幺]){3,}"
                         r"(?![\w，,、])")
_AS_IN = re.compile(r"(?<![\w'])([A-Za-z]) (?:as in|for|like) ([A-Za-z]+)\b")
_DIGIT_ZH = str.maketrans("零〇一二三四五六七八九幺", "001234567891")


def _hyphens_joined(text: str) -> str:
    """`text` with each code said a character at a time between hyphens written whole, padded so
    that every other word stays where it was: "B-K-2-0-2-4" → "BK2024     "."""
    # ("B as in bravo, X, 7…": the letter, said with a word that starts with it)
    text = _AS_IN.sub(lambda m: m.group(1) + " " * (len(m.group()) - 1)
                      if m.group(2)[:1].lower() == m.group(1).lower() else m.group(), text)

    def joined(m: re.Match[str]) -> str:
        code = re.sub(r"[-，,、\s]", "", m.group()).translate(_DIGIT_ZH)
        # (a list of numbers is no code: a digit for each of three or more of its places)
        return code + " " * (len(m.group()) - len(code)) if sum(c.isdigit() for c in code) >= 3 else m.group()

    return _HYPHENATED.sub(joined, text)


def read_identifiers(schema: DomainSchema, text: str, lang: str, taken: list[Span], add: Add,
                     correction: bool, open_to: frozenset[str] = frozenset()) -> None:
    """A code with a digit in it after one of the key's names ('order number A-4471', 订单号是12345);
    without a name, a code in the shape of one, or any code when the agent has just asked for
    this key ('Here it is: A275068'), or the turn puts a slip in it right ("sorry, I mean 12354"):
    `open_to`. A code said in Chinese digits is read as its digits."""
    original = text
    text = _hyphens_joined(digits_said(text) if lang == "zh" else digits_said_en(text))
    for spec in schema.read_by(Reader.IDENTIFIER):
        names = words_of(spec.aliases, lang) + (spec.label(lang),)
        link = r"\W*(?:is|'s|was|number|no\.?|#|:)?\s*" if lang == "en" else r"\s*(?:号码)?(?:是|为|留|:|：)?\s*"
        named = _alternation(names, lang == "en") + link
        shapes = (_SPELLED, _CODE_ZH if lang == "zh" else _CODE)
        found = [m.span("v") for code in shapes
                 for m in re.finditer(named + code, text, flags=re.IGNORECASE)]
        a_phone = any(_PHONE_BEFORE.search(name) for name in names)      # (a phone key reads phone numbers)
        phones = {m.span("v") for m in _PHONE_SHAPE.finditer(text)}
        if not a_phone:     # (a number in a code's shape is no phone number unless said to be one…)
            # (…and one in a phone's shape, said alone, is the phone's: "555 201 8890" after "phone is best")
            found += [m.span("v") for m in _SHAPED_CODE.finditer(text)
                      if m.span("v") not in phones or spec.name in open_to]
        # Asked for it, or putting a slip right in it: any code, spelled out too.
        if spec.name in open_to:
            found += [m.span("v") for code in shapes
                      for m in re.finditer(_APART + code + _APART_AFTER, text)]
        else:               # "you can reach me at 617 555 0142": a number in a code's shape, said to be a phone's
            # ("call me tomorrow at nine on 2024567890": the clause says whose number it is)
            found += [m.span("v") for m in _SHAPED_CODE.finditer(text) if _PHONE_BEFORE.search(
                text[max(clause_bounds(text, *m.span("v"))[0], m.start() - 60):m.start()])]
        if a_phone and not any(other.name in open_to for other in schema.read_by(Reader.IDENTIFIER)
                               if not any(_PHONE_BEFORE.search(n) for n in words_of(other.aliases, lang))):
            # ("ok name's Rodriguez, 555 201 3344": where no other code is asked for, a number in a
            # phone's shape is the phone.)
            found += sorted(phones)
        elif a_phone:
            # (…and where one is, a number said to be the phone's: 电话就打这个号码，188…, asked for the order)
            found += sorted(span for span in phones if _PHONE_BEFORE.search(text[max(0, span[0] - 20):span[0]]))
        refused = [span for span in found if _CODE_REFUSED.search(text[max(0, span[0] - 30):span[0]])]
        if refused and spec.name not in open_to:
            # "not order 44719, it's 44791": after the one refused, any code is the one meant.
            found += [m.span("v") for code in shapes for m in re.finditer(_APART + code + _APART_AFTER, text)
                      if m.start("v") >= min(refused)[1]]
        spans = sorted(set(found), key=lambda span: (span[0], -span[1]))     # (the whole code said, AK1024 7783)
        for span in spans:
            window = text[max(0, span[0] - 20):span[0]]
            phone_cue = next(reversed(list(_PHONE_BEFORE.finditer(window))), None)
            if not a_phone and phone_cue is not None and not re.search(
                    _alternation(names, lang == "en"), window[phone_cue.start():], flags=re.IGNORECASE):
                continue          # "call me, my number is 555 0123": a phone number, not the order
                # (but "call me about order 55123": the order, named after the call)
            if not a_phone and _a_phone_said_before(text, span, names, lang):
                continue          # (我电话是一五八零零，嗯，零零零，一二一二: the phone's later groups, not an order)
            before = text[clause_bounds(text, span[0], span[1])[0]:span[0]]
            own = [m.end() for m in re.finditer(_alternation(names, lang == "en"), before, flags=re.IGNORECASE)]
            if about_something_else(spec, before[max(own, default=0):], lang):
                continue          # "the tracking number is SF…": another thing's (not "…but the order number is")
            if _CODE_REFUSED.search(text[max(0, span[0] - 30):span[0]]) and any(s[0] >= span[1] for s in spans):
                continue          # "not A347544 anymore, make it 638185": the one refused is not it
            if any(_said_again_put_right(text, span, later) for later in spans if later[0] >= span[1]):
                continue          # (DD20240518，呃，等下我看看，是 DD20240581: the one said last, no repair word)
            if not overlaps(span, taken):
                code, span = _code_meant(text, span)
                code = _letters_kept(code, [_joined(text[slice(*e)]) for e in spans if e[1] <= span[0]])
                add(Operation(Op.SET, spec.name, Comparator.EQ, code, _clause(original, span),
                              correction=correction), span)
                break


_ANOTHER_ONE = re.compile(r"\b(?:and|also|plus|or)\b|和|还有|以及|或者|另外|跟", re.IGNORECASE)


def _said_again_put_right(text: str, first: Span, later: Span) -> bool:
    """Whether the code at `later` puts right the one at `first`: as long, a digit or two apart, with no
    word of another one between them ("48213... hmm let me check... it's 48231", not "48213 and 48231")."""
    one, other = _joined(text[slice(*first)]), _joined(text[slice(*later)])
    return len(one) == len(other) >= 4 and one != other and sum(a != b for a, b in zip(one, other, strict=True)) <= 2 \
        and not _ANOTHER_ONE.search(text[first[1]:later[0]]) \
        and not _CODE_REFUSED.search(text[max(first[1], later[0] - 30):later[0]])     # (A12345，不是A12344)


def _letters_kept(code: str, earlier: list[str]) -> str:
    """The digits of a code put right keep the letters said before them ("B as in boy, 4 4 7 1 9... sorry,
    4 4 7 1 8": B44718): a code of digits only, as long as an earlier one's digits, a digit or two apart."""
    if not code.isdigit():
        return code
    for before in reversed(earlier):
        m = re.fullmatch(r"([A-Za-z]+)(\d+)", before)
        if m and len(m.group(2)) == len(code) and sum(a != b for a, b in zip(m.group(2), code, strict=True)) <= 2:
            return m.group(1).upper() + code
    return code


def _all_but(said: str, held: str) -> bool:
    """Whether a code said is the one held with a digit or two put right (as long, six or more)."""
    return len(said) == len(held) >= 6 and said != held and sum(a != b for a, b in zip(said, held, strict=True)) <= 2


_A_PHONE_WORD = re.compile(r"电话|手机|短信|\b(?:phone|cell|mobile|my number|call me|text me|reach me)\b",
                           re.IGNORECASE)


def _a_phone_said_before(text: str, span: Span, names: tuple[str, ...], lang: str) -> bool:
    """Whether the sentence, before `span`, says a phone is being given, and names no code of
    this key after that (the key's own names: "my phone is …, and the order is 44719")."""
    start = max(text.rfind(mark, 0, span[0]) for mark in ".。!！?？;；") + 1
    before = text[start:span[0]]
    phone = next(reversed(list(_A_PHONE_WORD.finditer(before))), None)
    return phone is not None and not re.search(_alternation(names, lang == "en"), before[phone.end():],
                                               flags=re.IGNORECASE)


def read_emails(schema: DomainSchema, text: str, taken: list[Span], add: Add, correction: bool) -> None:
    """An email address, written or spelled out: the last one said (after a slip, the one meant)."""
    for spec in schema.read_by(Reader.EMAIL):
        said = [e for e in emails_said(text) if not overlaps((e[1], e[2]), taken)]
        if said:
            address, start, end = said[-1]
            add(Operation(Op.SET, spec.name, Comparator.EQ, address, _clause(text, (start, end)),
                          correction=correction), (start, end))


# A code on its own, spelled out or written ("6 6 0 3 7", "30481"), as said after a slip.
_CODES_APART = tuple(re.compile(_APART + shape + _APART_AFTER) for shape in (_SPELLED, _CODE))


# Where a code said again is only its last digits ("oh wait, it's 0143 at the end", 不对，最后是四三二一),
# or goes on (DD20241108，后面是3345).
_TAIL_BEFORE = re.compile(r"(?:最后|后面?(?:[一二两三四五六七八九几\d])位|末尾|尾号)"
                          r"(?:几位|[一二两三四五六七八九\d]位)?(?:是|改成|应该是)?\s*|"
                          r"(?:the )?last (?:\w+ )?(?:digits? |numbers? )?(?:is |are |should be )?|ending (?:in|with) ",
                          re.IGNORECASE)
_TAIL_AFTER = re.compile(r"\s*(?:at|on) the end\b|\s*for the last (?:\w+ )?(?:digits?|numbers?)\b", re.IGNORECASE)
_GOES_ON = re.compile(r"[\s,，、]*(?:后面是|后面还有|后边是|接着是|然后是|followed by|and then)\s*", re.IGNORECASE)


_DIGITS_ZH_ONE_OR_MORE = re.compile(r"[零〇幺一二两三四五六七八九]+")
_DIGIT_WORDS_RUN_EN = re.compile(r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b"
                                 r"(?:[\s,-]+(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b|\d)){0,5}",
                                 re.IGNORECASE)


def _code_meant(text: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """The code at `span` as meant, and where it is said: the code said right after a slip in
    it puts it right ("30418... no wait, 30481", 12345，不对，是12354); said as its last digits
    only, it puts right the tail ("617 555 0142 oh wait it's 0143 at the end"); a code said
    after 后面是 goes on with it (DD20241108，后面是3345)."""
    said = _joined(text[span[0]:span[1]])
    goes_on = _GOES_ON.match(text, span[1])
    if goes_on is not None:
        for pattern in _CODES_APART:
            more = pattern.match(text, goes_on.end())
            if more is not None:
                return said + _joined(more.group("v")), (span[0], more.end("v"))
    meant = put_right_after(text, span[1])
    if meant is None:
        return said, span
    while meant < len(text) and text[meant] == " ":
        meant += 1          # (a code's letters written against its digits are padded before)
    tail = _TAIL_BEFORE.match(text, meant)
    start = tail.end() if tail is not None else meant
    # (after 最后一位是, one Chinese digit is enough: 最后一位是一，不是二)
    few = _DIGITS_ZH_ONE_OR_MORE.match(text, start) if tail is not None else None
    if few is not None and len(few.group()) < len(said):          # (最后是四三二一: too few for digits_said)
        return said[:len(said) - len(few.group())] + digits_of_zh(few.group()), (span[0], few.end())
    # (…and in English words: "the last bit is eight eight zero nine")
    words = _DIGIT_WORDS_RUN_EN.match(text, start) if tail is not None else None
    if words is not None:
        new = digits_in(words.group())
        if len(new) < len(said):
            return said[:len(said) - len(new)] + new, (span[0], words.end())
    for pattern in _CODES_APART:       # ("6 6 0 3 1, no sorry, 6 6 0 3 7": spelled out again)
        code = pattern.match(text, start)
        if code is None:
            continue
        new = _joined(code.group("v"))
        if (tail is not None or _TAIL_AFTER.match(text, code.end("v"))) and len(new) < len(said):
            return said[:len(said) - len(new)] + new, (span[0], code.end("v"))
        return new, code.span("v")
    return said, span


# --- one value per single-valued key -----------------------------------------------------------


_TODAY = frozenset({"today"})      # the date readers' value for today and tonight


def settle(schema: DomainSchema, ops: list[Operation]) -> list[Operation]:
    """What the readings of one turn mean together.

    - 'I don't want a refund, just fix it': of a single-valued key, the value wanted stands
      and the refused one is dropped (it is implied by the other).
    - 'Take the toll road today': 'today' beside a one-off key's value says the exception
      is for now; it is not a new date for the trip.
    """
    wanted = {op.key for op in ops if op.op == Op.SET and op.comparator == Comparator.EQ
              and not schema.key(op.key).multi}
    one_off = [op.words for op in ops if op.op == Op.SET and schema.key(op.key).reading.one_off]

    def marks_one_off(op: Operation) -> bool:
        return (schema.key(op.key).reader == Reader.DATE and op.value in _TODAY
                and any(op.words and op.words in clause for clause in one_off))

    return [op for op in ops if op.op != Op.SET or not (
        (op.comparator == Comparator.NE and op.key in wanted) or marks_one_off(op))]
