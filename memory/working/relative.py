"""Relative changes applied to the value the state holds.

"Another friend is coming too" adds one to the party; 温度再高两度 raises the cabin by two;
"push it back half an hour" moves the time; "the day after" moves the date. The words are
read by `memory/language/relative.py`; here they go to a key by what they count (people,
minutes, days, money, or the key's own words: "warmer"), and the new value is computed from
the one held. "A bit" is the key's own `step` (domain YAML). A change with nothing to apply
to, or one that leaves the key's range, is not written: the caller asks back.

Nothing here names a domain or a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import SELF_REPAIR, STATE_CUES, party_named
from monologue.memory.language.numbers import EN_NUMBER, WEEKDAYS, ZH_NUMBER, find_en_times, find_zh_times, to_amount
from monologue.memory.language.relative import RelativeWords, read_relative
from monologue.memory.language.stances import asks, clause_bounds, is_query
from monologue.memory.working.readers import (
    about_something_else,
    asked_for_earlier,
    called_by_name,
    commanded_keys,
    cued,
    names_key,
    value_pattern,
)
from monologue.memory.working.state import Comparator, Op, Operation, OpSource, SessionState

Span = tuple[int, int]
Add = Callable[[Operation, Span], None]

# The step of "a bit" for a key that declares none, by what it counts.
_DEFAULT_STEP = {"time": 30, "date": 1, "money": 10, "int": 1}
# 45.50 and 1,200 are not two clauses; the ASR's pause between Chinese words ends one where a new
# command starts after it (好热啊 把空调打开), not inside one (温度 高一点).
_CLAUSES = re.compile(r"(?:[^,.;!?，。；！？\s]|(?<=\d)[.,](?=\d)|"
                      r"\s(?!(?:把|再|帮我|给我|请|打开|关掉|关上|别|放|换)[\u4e00-\u9fff]))+")
_ONE_MORE_OF_A_KIND = re.compile(r"another|extra|additional|add(?:ing)?|plus|再来|另外|加", re.IGNORECASE)
_NEXT_DAY = {"today": "tomorrow", "tonight": "tomorrow", "tomorrow": "day after tomorrow",
             "day after tomorrow": "in 3 days"}
_DAY_BEFORE = {value: key for key, value in _NEXT_DAY.items() if key != "tonight"}


@dataclass
class RelativeReading:
    """What the relative reader found in one utterance."""

    written: list[str] = field(default_factory=list)       # keys changed
    unanchored: list[str] = field(default_factory=list)    # keys a change was said for, with nothing held
    out_of_range: list[str] = field(default_factory=list)  # keys the change would take out of their range


def _felt_of(spec: KeySpec, text: str, lang: str) -> bool:
    """Whether `text` says a change of the key in the key's own words ("way too hot in here")."""
    lowered = text.lower()
    return any(re.search(r"(?<![a-z])" + re.escape(w.lower()) + r"(?![a-z])" if lang == "en" else re.escape(w), lowered)
               for table in (spec.reading.more, spec.reading.less) for w in table.get(lang, ()))


# A change any control makes, named by none ("bring it down", "knock it up"; not "warm it up").
_ANY_CONTROLS_MOVE = re.compile(r"(?:bring|turn|put|knock|crank|drop|take|kick)\s+(?:it|that|this)\s+(?:up|down)"
                                r"|(?:drop|lower|raise)\s+(?:it|that|this)", re.IGNORECASE)

def _own_words(spec: KeySpec, lang: str, direction: str) -> str:
    words = spec.reading.more if direction == "up" else spec.reading.less
    said = words.get(lang, ()) + (words.get("en", ()) if lang != "en" else ())
    if not said:
        return ""
    body = "|".join(_said_of_anything(w) if w.isascii() else _said_by_degree(w)
                    for w in sorted(said, key=len, reverse=True))
    return r"(?<!\w)(?:" + body + r")(?!\w)" if lang == "en" else "(?:" + body + ")"


# What "it" stands for in a phrasal verb of the domain ("cool it down"): the car, the cabin,
# things; and the particle may come first ("warm up the car").
_IT_EN = r"(?:it|things|(?:the|this|my|our) (?:car|cabin|place|inside)|everything|us)"
_PHRASAL_EN = re.compile(r"^(\w+) it (up|down|off)$")


# How much a feeling is said to be (太热, 还是热, 挺冷的, 热死了): any degree word does, where the
# domain lists one; the feeling word is not the start of another (热闹, 冷静, 热情).
# (不是很热, 不太冷, 没那么热: the feeling denied moves nothing.)
_DEGREE_ZH = r"(?<!不是)(?<![不没])(?:还是|还|有点儿?|有些|太|好|真|挺|很|特别|非常|超级?|蛮|怪)"
_BY_DEGREE_ZH = re.compile(r"^(?:有点|太|好)(\w)$")
_NOT_THE_FEELING_ZH = r"(?![闹情门心爱水饭菜静淡饮])"


def _said_by_degree(words: str) -> str:
    """`words` as a pattern; a feeling with a degree word (有点热) said with any degree word,
    or with its own intensifier after it (热死了)."""
    m = _BY_DEGREE_ZH.match(words)
    if m is None:
        return re.escape(words)
    feeling = re.escape(m.group(1))
    return rf"{_DEGREE_ZH}{feeling}{_NOT_THE_FEELING_ZH}|{feeling}(?:死了|得要命|得不行|得受不了)"


def _said_of_anything(words: str) -> str:
    """`words` as a pattern; a phrasal verb with "it" ("cool it down") also said of the car
    ("cool the car down", "warm up the cabin")."""
    m = _PHRASAL_EN.match(words)
    if m is None:
        return re.escape(words)
    verb, particle = m.groups()
    return rf"{verb}\s+{_IT_EN}\s+{particle}|{verb}\s+{particle}\s+{_IT_EN}"


def _counts(spec: KeySpec, dimension: str) -> bool:
    if dimension == "people":
        return spec.reader == Reader.HEAD_COUNT
    if dimension == "minutes":
        return spec.type == "time"
    if dimension == "days":
        return spec.type == "date"
    if dimension == "amount":
        return spec.type == "money"
    return False


def _named(spec: KeySpec, clause: str, lang: str) -> bool:
    words = [spec.label(lang), *spec.aliases.get(lang, ()), *spec.reading.units.get(lang, ())]
    lowered = clause.lower()
    return any(w and (re.search(r"(?<!\w)" + re.escape(w.lower()) + r"(?!\w)", lowered) if lang == "en"
                      else w in clause) for w in words)


def _keys_named(schema: DomainSchema, clause: str, lang: str) -> set[str]:
    """The keys whose label, aliases or listed values the clause says."""
    lowered = clause.lower()
    out = set()
    for alias, key in schema.alias_lexicon(lang):
        if len(alias) < (3 if lang == "en" else 1):
            continue
        spec = schema.key(key)
        if spec.reading.verb_values and any(alias == w.lower() for t in spec.values.values() for w in t.get(lang, ())):
            continue        # a control's verb ("down", 打开) names no control: "turn it down" is the cabin's
        if (re.search(r"(?<!\w)" + re.escape(alias) + r"(?!\w)", lowered) if lang == "en" else alias in clause):
            out.add(key)
    return out


_AND = {"en": re.compile(r"\s(?:and|then|also|plus)\s", re.IGNORECASE),
        "zh": re.compile(r"然后|再把|还有|并且|同时|顺便")}


def _said_in(schema: DomainSchema, spec: KeySpec, clause: str, words_end: int, span: Span, lang: str) -> Span:
    """The part of the clause at `span` the change to `spec` is said in."""
    for m in _AND[lang].finditer(clause, words_end):
        if _keys_named(schema, clause[m.end():], lang) - {spec.name}:
            return span[0], span[0] + m.start()
    return span


def _without_controls(schema: DomainSchema, clause: str, lang: str) -> str:
    """`clause` with the names of the controls whose values are verbs blanked out, offsets kept."""
    # (Not a word another key goes by too: 空调 is the fan's cue and the temperature's name.)
    theirs = {n for spec in schema.keys.values() if not spec.reading.verb_values
              for n in (spec.label(lang), *spec.aliases.get(lang, ()))}
    names = sorted({n for spec in schema.keys.values() if spec.reading.verb_values
                    for n in (spec.label(lang), *spec.aliases.get(lang, ()), *spec.reading.value_cues.get(lang, ()))
                    if len(n) > 1 and n not in theirs}, key=len, reverse=True)
    for name in names:
        pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w)" if lang == "en" else re.escape(name)
        clause = re.sub(pattern, lambda m: " " * len(m.group(0)), clause, flags=re.IGNORECASE)
    return clause


def _without_values(schema: DomainSchema, clause: str, lang: str) -> str:
    """`clause` with every listed value blanked out: what is left names keys by their labels."""
    for word, _key, _value in schema.enum_lexicon(lang):
        if len(word) > 1:
            pattern = r"(?<!\w)" + re.escape(word) + r"(?!\w)" if lang == "en" else re.escape(word)
            clause = re.sub(pattern, lambda m: " " * len(m.group(0)), clause, flags=re.IGNORECASE)
    return clause


def _set_to_a_number(spec: KeySpec, clause: str, lang: str, change_end: int) -> bool:
    """Whether the clause sets the key to a number after the words of the change ("warm it up
    to 24"; not "make it 1.5 degrees warmer", whose number is the change's)."""
    cues = spec.reading.set_cues.get(lang, ())
    number = EN_NUMBER if lang == "en" else ZH_NUMBER
    spaced = r"\s+" if lang == "en" else r"\s*"
    return any(m.end() > change_end for c in cues
               for m in re.finditer(re.escape(c) + spaced + "(?:" + number + ")", clause, re.IGNORECASE))


def _said_as_it_is_now(spec: KeySpec, text: str, change: Span, lang: str) -> tuple[float, Span] | None:
    """(value, where) of a number the user says the key is at now: after "it's at" ("it's at
    19 right now"), or in Chinese with the key's unit and a feeling, in a clause apart from the
    change's own words ("再低一度，二十三度有点热"). Only for a measured key (units and a range)."""
    units = spec.reading.units.get(lang, ())
    if spec.reader != Reader.QUANTITY or not units or spec.reading.value_range is None:
        return None
    number = EN_NUMBER if lang == "en" else ZH_NUMBER
    unit = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
    # ("Warmer, 24 degrees" is the value wanted: in English only "it's at" says what it is now.)
    said_now = [(rf"\b(?:it'?s|it is|currently|now)\s+(?:only\s+)?(?:at\s+|on\s+)?(?P<n>{number})\b", False)] \
        if lang == "en" else [(rf"(?P<n>{number})\s*(?:{unit})(?=.{{0,4}}(?:热|冷|闷|凉))", True)]
    change_clause = clause_bounds(text, *change)
    low, high = spec.reading.value_range
    for pattern, apart in said_now:
        for found in re.finditer(pattern, text, re.IGNORECASE):
            value, where = to_amount(found.group("n")), found.span("n")
            clause = text[slice(*clause_bounds(text, *where))]
            if value is None or not low <= value <= high or about_something_else(spec, clause, lang) \
                    or (apart and clause_bounds(text, *where) == change_clause) \
                    or any(text[:found.start()].rstrip().lower().endswith(c.lower())
                           for c in spec.reading.set_cues.get(lang, ())):
                continue
            return value, where
    return None


# "…, like two degrees", "…, say three degrees or so", 三度左右, 大概两度吧: an amount said alone.
_AMOUNT_ALONE = {
    "en": r"(?:(?:like|say|maybe|about|around|roughly|just|oh|um|uh|perhaps|another|by|something like)\s+)*"
          r"(?P<n>{number})\s+(?:more\s+)?(?:{unit})(?:\s+(?:or so|more|or something|please|maybe))*",
    "zh": r"(?:大概|差不多|就|再|大约|那就|调|再调)*(?P<n>{number})\s*(?:{unit})(?:吧|左右|的样子|就行|就好|上下)*"}


def _amount_said_after(spec: KeySpec, text: str, end: int, lang: str) -> tuple[float, int] | None:
    """(amount, where its clause ends) of an amount in the key's unit said alone in the clause right
    after a change with none: "a little more, like two degrees". Not a value of the key itself
    ("warmer, 24 degrees" is the value wanted, read as such)."""
    units = spec.reading.units.get(lang, ())
    if spec.reader != Reader.QUANTITY or not units or spec.reading.value_range is None:
        return None
    unit = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
    alone = _AMOUNT_ALONE[lang].format(number=EN_NUMBER if lang == "en" else ZH_NUMBER, unit=unit)
    found = re.match(r"\s*[,，]\s*" + alone + r"\s*(?=[,.;!?，。；！？]|$)", text[end:], re.IGNORECASE)
    amount = to_amount(found.group("n")) if found is not None else None
    low, high = spec.reading.value_range
    if found is None or amount is None or low <= amount <= high:
        return None
    return amount, end + found.end()


def _said_outright(spec: KeySpec, clause: str, words: RelativeWords, lang: str) -> bool:
    """Whether the clause also says the key's new value itself: a time on the clock, a head
    count apart from the change's own amount (not 再多加一个人, "add two people")."""
    if spec.type == "time":
        return bool(find_en_times(clause) if lang == "en" else find_zh_times(clause))
    if spec.reader == Reader.HEAD_COUNT:
        # (and "make it five, one more friend is coming": a bare number after a word of change)
        cues = (*STATE_CUES[lang].head_count, STATE_CUES[lang].bare_number)
        return any(found.end() < words.start - 3 or found.start() > words.end + 3
                   for p in cues for found in p.finditer(clause.lower()))
    return False


def _sentence(text: str, span: Span) -> str:
    left = max((m.end() for m in re.finditer(r"[.!?。！？]", text[: span[0]])), default=0)
    after = re.compile(r"[.!?。！？]").search(text, span[1])
    return text[left: after.start() if after else len(text)]


def _another_keys_value(schema: DomainSchema, spec: KeySpec, clause: str, words: RelativeWords, lang: str,
                        commanded: frozenset[str] = frozenset()) -> bool:
    """Whether the words of the change are a listed value of another key, said of it in the
    clause (风小一点, "turn the music down") or going on with it, just commanded (再小一点)."""
    lowered = clause.lower()
    for word, key, _value in schema.enum_lexicon(lang):
        if key == spec.name or not word:
            continue
        pattern = r"(?<!\w)" + re.escape(word) + r"(?!\w)" if lang == "en" else re.escape(word)
        for m in re.finditer(pattern, lowered):
            # …and said of that key: 温度调低一点 is the temperature's, though 调低 lowers a seat too.
            # (温度调到22度 just carried out, 再调低一点 goes on with it: no seat is named; "turn the
            # music down a bit", 车窗再降低一点 name theirs.)
            going_on = spec.name in commanded and not names_key(schema.key(key), clause, lang)
            # (温度调高一点 just after the music: the temperature named is what the words change.)
            named_here = called_by_name(spec, clause, lang) and not called_by_name(schema.key(key), clause, lang)
            if m.start() < words.end and words.start < m.end() and (key in commanded and not named_here or (
                    not going_on and cued(schema.key(key), clause, m.span(), lang, schema.keys.values()))):
                return True
    return False


def _numeric(spec: KeySpec) -> bool:
    return spec.type in ("int", "money", "time", "date")


def _moved(spec: KeySpec, current: Any, words: RelativeWords) -> Any:
    """The held value moved by the change, or None when it cannot be (or leaves the range)."""
    step = spec.reading.step if spec.reading.step is not None else _DEFAULT_STEP.get(spec.type, 1)
    by = words.amount if words.amount is not None else step
    delta = words.direction * by
    if spec.type == "time":
        m = re.fullmatch(r"(\d\d):(\d\d)", str(current))
        if not m:
            return None
        minutes = int(m.group(1)) * 60 + int(m.group(2)) + int(delta)
        if not 0 <= minutes < 24 * 60:
            return None
        return f"{minutes // 60:02d}:{minutes % 60:02d}"
    if spec.type == "date":
        return _moved_day(str(current), int(delta))
    if not isinstance(current, int | float) or isinstance(current, bool):
        return None
    value = current + delta
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    low, high = spec.reading.value_range or ((1, 10_000) if spec.reader == Reader.HEAD_COUNT else (0, 1e9))
    return value if low <= value <= high else None


def _moved_day(current: str, days: int) -> str | None:
    if current in WEEKDAYS:
        return WEEKDAYS[(WEEKDAYS.index(current) + days) % 7]
    if re.fullmatch(r"\d{4}-\d\d-\d\d", current):
        return (date.fromisoformat(current) + timedelta(days=days)).isoformat()
    table = _NEXT_DAY if days > 0 else _DAY_BEFORE
    value: str | None = current
    for _ in range(abs(days)):
        value = table.get(value or "")
    return value


# A sum of money said in a clause: its sign, unit or a word of paying.
_MONEY_SAID = re.compile(r"[$£€¥]|块|元|钱|扣|收费|费|\b(?:dollars?|bucks|cents?|charged?|charges|refund\w*|price|"
                         r"paid|pay|cost|bill\w*|fee|money)\b", re.IGNORECASE)


def read_relative_changes(schema: DomainSchema, text: str, lang: str, state: SessionState | None,
                          taken: list[Span], add: Add) -> RelativeReading:
    """Each clause that says a relative change, applied to the key it counts."""
    found = RelativeReading()
    numeric = [spec for spec in schema.keys.values() if _numeric(spec) and not spec.multi]
    said: dict[str, tuple[KeySpec, RelativeWords, str, Span]] = {}
    stepping: dict[str, tuple[str, str, Span, str]] = {}     # step key → (value, words, where, the level it moves)
    for m in _CLAUSES.finditer(text):
        clause, span = m.group(0), m.span()
        if not clause.strip() or any(span[0] < end and start < span[1] for start, end in taken) \
                or asks(text, span[0], span[1], lang) or is_query(clause):
            continue            # a question about the value ("how much warmer is it?") changes nothing
        said_clause = clause
        # A control's own name is no change word: "seat warmer on", "no more seat heating", 空调风.
        clause = _without_controls(schema, clause, lang)
        spec, words, own = _reading(numeric, clause, lang, text)
        if spec is None or words is None:
            continue
        amount_said_after = None
        if words.amount is None and (after := _amount_said_after(spec, text, span[1], lang)) is not None:
            # "a little more, like two degrees", 再低点，三度左右: how much, said in a clause of its own
            words = replace(words, amount=after[0], a_bit=False)
            span, amount_said_after = (span[0], after[1]), (span[1], after[1])
        if spec.reader == Reader.HEAD_COUNT and (party := party_named(text, lang)) is not None \
                and party[1][0] < span[1] and span[0] < party[1][1]:
            continue            # ("me and my wife plus our two kids", 我跟我媳妇儿，再加俩孩子: the party said whole)
        if spec.type == "money" and not _MONEY_SAID.search(said_clause):
            continue            # 还少发了一个盖子, "one more item": so many things, no sum
        if clause[words.start:words.end] in spec.reading.units.get(lang, ()):
            continue            # 住五晚: the "direction" word is the key's own unit (nights), not a change
        if _set_to_a_number(spec, said_clause, lang, words.end):
            continue            # "warm it up to 24": the value itself, read by the quantity reader
        if about_something_else(spec, text[slice(*clause_bounds(text, *span))], lang) \
                or (not own and about_something_else(spec, _sentence(text, span), lang)):
            continue            # "freezing outside, minus five degrees": the weather, not the cabin
        commanded = commanded_keys(schema, state) | asked_for_earlier(schema, text, span[0], lang)
        if not own and _another_keys_value(schema, spec, said_clause, words, lang, commanded):
            continue            # 空调风小一点: "smaller" is the fan's own value, not the cabin's temperature
        if own and not _named(spec, clause, lang) \
                and _keys_named(schema, _WAY_TOO.sub("", _without_values(schema, clause, lang)), lang):
            continue            # "my seat's getting too hot": said of the seat, not the cabin
        generic = clause[words.start:words.end].strip()
        if commanded and spec.name not in commanded and not _named(spec, clause, lang) \
                and _ANY_CONTROLS_MOVE.fullmatch(generic) and not _felt_of(spec, text.replace(generic, " "), lang):
            # "that's too loud, bring it down (to like 5)" just after the music: the volume's, not the
            # cabin's; its number is the volume's too, for no other reader (not 5 pm). ("turn that down,
            # the baby's asleep" just after a song skipped: the control's own verb, left for it.)
            if own:
                taken.append((m.start() + words.start, m.end()))
            continue
        # (Going on with the key just set, 再调低一点 after 温度调到22度: "lower" alone names no seat.)
        naming = _without_values(schema, clause, lang) if spec.name in commanded else clause
        if spec.type == "time" and words.dimension in ("minutes", "hours") and words.amount is not None:
            # ("push it back twenty minutes", 往后推二十分钟: a while said moves a time; its "back" is no seat)
            naming = naming[:words.start] + " " * (words.end - words.start) + naming[words.end:]
        naming = _WAY_TOO.sub("", naming)       # ("way too hot" names no way to go)
        if spec.name in commanded and any(names_key(other, said_clause, lang, but_not=spec)
                                          for other in schema.keys.values()
                                          if other.name != spec.name and other.reading.verb_values):
            continue            # ("lower the window a bit" just after the temperature: the window's)
        named = _keys_named(schema, naming, lang) | ({spec.name} if own or _named(spec, clause, lang) else set())
        if named - {spec.name} and spec.name not in named:
            continue            # "move the seat back a bit": the clause is about another key
        held = state.find(spec.name) if state is not None else []
        # "Warmer please and turn the fan up": the change is said up to the "and" that goes on to
        # another key; what follows is that key's, for its own reader.
        span = _said_in(schema, spec, said_clause, words.end, span, lang)
        if _said_outright(spec, said_clause, words, lang):
            # "a bit later, like quarter past seven", "my sister can't make it so just two of us":
            # the value said is read as itself (and wins); only the words of the change are this reading's.
            span = (m.start() + words.start, m.start() + words.end)
        if not held and spec.reading.extra_is_the_value and words.direction == 1 and words.amount is not None:
            add(Operation(Op.SET, spec.name, Comparator.EQ, words.amount, clause.strip(),
                          reason="the extra sum said is the sum", source=OpSource.RELATIVE), span)
            found.written.append(spec.name)
            continue
        now = _said_as_it_is_now(spec, text, (m.start() + words.start, m.start() + words.end), lang) \
            if not held else None
        moved = _moved(spec, now[0], words) if now is not None else None
        if moved is not None and now is not None:
            # "turn the heat up two degrees, it's at 19 right now", 再低一度，二十三度有点热: the
            # value said as it is now is what the change moves.
            add(Operation(Op.SET, spec.name, Comparator.EQ, moved, clause.strip(), correction=True,
                          reason="a change said against the value the user says it is now",
                          source=OpSource.RELATIVE), span)
            taken.append(now[1])
            found.written.append(spec.name)
            continue
        # (Asked for the number itself, "a little more" still asks it: there is nothing to step from.
        # Only the cabin's own words or its name step it: not "drop it", not "don't make it warmer", not
        # "turn up the heat on my seat", where another control is named.)
        asked = state is not None and state.asked_key == spec.name
        # ("warm it up a bit", then "bring it down a little more": the step just taken goes on, named by nothing)
        # (…or said just before in the same turn: "it's a bit stuffy, knock it down one")
        going_on = bool(set(spec.reading.stepped_by) & (commanded | set(stepping)))
        # ("knock it down a couple degrees": its unit says what "it" is)
        in_its_unit = words.amount is not None and any(
            re.search(value_pattern(u.lower(), lang == "en"), clause.lower())
            for u in spec.reading.units.get(lang, ()) if len(u) > 1 or lang != "en")
        step = _step_for(schema, spec, words) if not held and not asked and (own or _named(spec, clause, lang)
                                                                             or going_on or in_its_unit) \
            and not _REFUSED_CHANGE[lang].search(said_clause[:words.end]) \
            and (going_on or in_its_unit
                 or not _SAYS_WHAT_IT_MOVES_NOT.fullmatch(clause[words.start:words.end].strip())) and not any(
                names_key(other, said_clause, lang, but_not=spec) for other in schema.keys.values()
                if other.name != spec.name and other.reading.verb_values) else None
        if step is not None and step[0] in stepping:
            taken.append(span)      # ("it's too hot, make it cooler": one step; "好热，往下降个两度": the two)
            if words.amount is not None:
                stepping[step[0]] = (step[1], clause.strip(), stepping[step[0]][2], spec.name)
            continue
        # (Five degrees, with nothing held, is more than any step: asked back, as before.)
        if step is not None and spec.name in named:
            # 再暖和一点, "it's a bit hot in here" with no temperature held: the car's climate moves a
            # step from wherever it is, as the fan does (`stepped_by`: the key of such steps).
            # (only the change's own words are taken: "close the window it's a bit cold" still closes it)
            stepping[step[0]] = (step[1], clause.strip(), (m.start() + words.start, m.start() + words.end),
                                 spec.name)
            if amount_said_after is not None:
                taken.append(amount_said_after)
            continue
        if not held:
            if spec.name in named or words.amount is not None:
                found.unanchored.append(spec.name)    # "two more people" with no party held: asked back
                # (Without an amount only the change's words are taken: "I want the extra charge
                # refunded" still asks for a refund.)
                taken.append(span if words.amount is not None else (m.start() + words.start, m.start() + words.end))
            continue
        taken.append(span)
        # "Too hot, down two degrees" is one change: the clause with an amount says how much.
        # (…but one put right after a slip is the one meant: "one fewer... no wait, two fewer")
        if spec.name not in said or (said[spec.name][1].amount is None and words.amount is not None) or (
                words.amount is not None and SELF_REPAIR.search(text[said[spec.name][3][1]:span[0]])):
            said[spec.name] = (spec, words, said_clause.strip(), span)
    for step_key, (step_value, clause, span, moved) in stepping.items():
        add(Operation(Op.SET, step_key, Comparator.EQ, step_value, clause, source=OpSource.RELATIVE,
                      reason=f"{moved} moved a step, with none held"), span)
        found.written.append(step_key)
    for key, (spec, words, clause, span) in said.items():
        held_condition = state.find(key)[0] if state is not None else None
        value = _moved(spec, held_condition.value, words) if held_condition is not None else None
        if held_condition is None or value is None:
            found.out_of_range.append(key)
            continue
        comparator = held_condition.comparator if held_condition.comparator != Comparator.NE else Comparator.EQ
        add(Operation(Op.SET, key, comparator, value, clause, reason="a change said against the value held",
                      correction=True, source=OpSource.RELATIVE), span)
        found.written.append(key)
    return found


_WAY_TOO = re.compile(r"\bway (?=too\b|more\b|less\b|hotter\b|colder\b|warmer\b|cooler\b)", re.IGNORECASE)
# (Words of moving "it" that, with nothing held, say no more what "it" is: "let's drop it" drops a thing.)
_SAYS_WHAT_IT_MOVES_NOT = re.compile(r"(?:drop|bring|knock|turn|take) it(?: down| up)?", re.IGNORECASE)
_REFUSED_CHANGE = {"en": re.compile(r"\b(?:don'?t|do not|not|no|never|stop)\b", re.IGNORECASE),
                   "zh": re.compile(r"别|不要|不用|不想|没")}


def _step_for(schema: DomainSchema, spec: KeySpec, words: RelativeWords) -> tuple[str, str] | None:
    """The key and value that move `spec` a step in the change's direction (the cabin's
    temperature_step: warmer), where the schema has one: a key whose values step the level; by
    as many as said where it has such a step ("a couple of degrees warmer": two_warmer)."""
    by = (words.amount or 1) * (1 if words.direction > 0 else -1)
    for step_key, steps in spec.reading.stepped_by.items():
        if step_key in schema.keys and not schema.key(step_key).reading.verb_values:
            value = next((v for v, moved in steps.items() if moved == by), None)
            if value is not None:
                return step_key, value
    return None


def _reading(numeric: list[KeySpec], clause: str, lang: str,
             text: str) -> tuple[KeySpec | None, RelativeWords | None, bool]:
    """The key a clause's change is for, the change, and whether the key's own words said it."""
    for spec in numeric:
        up, down = _own_words(spec, lang, "up"), _own_words(spec, lang, "down")
        if (up and re.search(up, clause, re.I)) or (down and re.search(down, clause, re.I)):
            return spec, read_relative(clause, lang, up, down), True
    words = read_relative(clause, lang, context=text)
    if words is None:
        return None, None, False
    counting = [spec for spec in numeric if _counts(spec, words.dimension)]
    if not counting:
        counting = [spec for spec in numeric if _named(spec, clause, lang)]
    if not counting and not words.dimension and not _ONE_MORE_OF_A_KIND.fullmatch(clause[words.start:words.end]):
        # "Turn it down a bit": up or down alone is about the domain's one measured quantity, if it
        # has one ("put on another one" is one more of a kind, no warmer cabin).
        # (A control's level, the fan's or the volume's, moves by its own control's words only.)
        measured = [spec for spec in numeric if spec.reader == Reader.QUANTITY
                    and (not spec.reading.stepped_by or spec.reading.more or spec.reading.less)]
        counting = measured if len(measured) == 1 else []
    if len(counting) > 1:
        counting = [spec for spec in counting if _named(spec, clause, lang)] or counting[:1]
    return (counting[0], words, False) if counting else (None, None, False)


__all__ = ["RelativeReading", "read_relative_changes"]
