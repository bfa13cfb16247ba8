"""Deterministic extraction (W11): what is regular is read by rules, in English and Chinese.

Numbers, times, dates, party sizes, amounts, negations, withdrawals, corrections and the
schema's enumerated values become `Operation`s. The LLM is asked only for what is left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.numbers import (
    EN_NUMBER,
    ZH_NUMBER,
    en_to_int,
    find_en_dates,
    find_en_times,
    find_zh_dates,
    find_zh_times,
    zh_to_int,
)
from monologue.memory.working.state import Operation, SessionState
from monologue.memory.working.turn_classes import NO_EN, YES_EN

_CORRECTION_EN = re.compile(
    r"\b(?:actually|instead|make it|make that|change (?:it|that|the \w+)? ?to|switch (?:it )?to|rather|"
    r"no wait|sorry,? i meant|i meant|correction|let'?s (?:do|say|make it)|not \w+ but|move it to|update)\b"
)
_CORRECTION_ZH = re.compile(r"改成|换成|改为|改到|换到|还是|其实|不对|应该是|更正")
_NEGATION_EN = (r"(?:no|not|nothing|without|avoid|don'?t want|do not want|can'?t eat|cannot eat|can'?t have|"
                r"don'?t eat|do not eat|allergic to|hold the|skip the|no more)")
_NEGATION_ZH = r"(?:不吃|不要|不能吃|别放|别要|忌口|忌|对.{0,3}过敏|不想吃|不加|去掉)"
_WITHDRAW_EN = re.compile(
    r"\b(?:forget(?: about)?|drop|remove|cancel|scrap|scratch|never mind|ignore|no need for|"
    r"(?:i )?don'?t (?:need|care about)|skip|get rid of|no longer need|"
    r"(?:i'?m |i am )?(?:not|no longer) allergic to|i can (?:eat|have)(?=\s[\w' -]+\b(?:now|again|after all)\b))"
    r"\s+(?:the |my |that |a |any )?(?P<what>[\w' -]{2,30})"
)
_WITHDRAW_EN_AFTER = re.compile(
    r"(?:the |my )?(?P<what>[\w' -]{2,30}?)\s+(?:doesn'?t|does not|no longer|won'?t) matter"
    r"|(?:any|whatever) (?P<what2>[\w]+) (?:is|works) fine"
)
_WITHDRAW_ZH = re.compile(r"(?:取消|去掉|算了|不用|不需要|别管)(?:那个|这个)?(?P<what>[\u4e00-\u9fff]{1,6})"
                          r"|(?P<what2>[\u4e00-\u9fff]{1,4})(?:无所谓|不限|随便|算了|不用了|不要了)")
_NOT_ALLERGIC_ZH = re.compile(r"(?:不再对|对)(?P<what>[\u4e00-\u9fff]{1,4}?)(?:不过敏|不再过敏|已经不过敏)")
_WITHDRAW_ZH_KEY = re.compile(r"不要(?:那个|这个)?(?P<what>[\u4e00-\u9fff]{1,4}?)了")
_LOCATION_EN = re.compile(r"\b(?:in|near|around|close to) (?P<v>[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+){0,2})")
_NAME_EN = re.compile(r"\b(?:try(?: out)?|called|named|at|book|reserve|how about|what about|first is|one is|"
                      r"suggest|recommend|go to|eat at) (?P<v>[A-Z][\w'&]+(?: (?:[A-Z][\w'&]+|&)){0,4})")
_NAME_SUBJECT_EN = re.compile(r"^(?P<v>[A-Z][\w'&]+(?: (?:[A-Z][\w'&]+|&)){0,4})(?= is an? (?:\w+ ){0,2}(?:restaurant|place))")
_NOT_NAMES = {w.capitalize() for w in ("a", "an", "my", "any", "some", "this", "that", "it", "what", "there",
                                        "good", "nice", "great", "local", "new", "monday", "tuesday",
                                        "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
                                        "august", "september", "october", "november", "december", "the", "i")}
_PARTY_EN = [
    re.compile(r"\b(?P<n>" + EN_NUMBER + r")\s+(?:people|persons|person|guests|adults|diners|of us|seats|pax|ppl)\b"),
    re.compile(r"\bparty of (?P<n>" + EN_NUMBER + r")\b"),
    re.compile(r"\b(?:table|reservation|booking|seats?) for (?P<n>" + EN_NUMBER + r")\b(?!\s*(?::|am|pm|a\.m|p\.m|o'?clock|dollars|bucks|\$))"),
    re.compile(r"\bfor (?P<n>" + EN_NUMBER + r")\b(?=\s*(?:,|\.|$|on |at |this |next |tomorrow|today|tonight))"),
    re.compile(r"\bwe(?:'re| are| will be|'ll be) (?P<n>" + EN_NUMBER + r")\b"),
]
_PARTY_ZH = [
    re.compile(r"(?P<n>" + ZH_NUMBER + r")\s*(?:个人|位|口人|人)(?!民|均|工|家)"),
    re.compile(r"我们(?:一共)?(?P<n>" + ZH_NUMBER + r")个"),
]
_BARE_NUMBER_EN = re.compile(r"\b(?:make it|change it to|actually|instead|rather|let'?s say|i meant|now)\s+(?P<n>" + EN_NUMBER + r")\b(?!\s*(?::|am|pm|o'?clock|dollars|bucks))")
_BARE_NUMBER_ZH = re.compile(r"(?:改成|换成|改为|还是|应该是)(?P<n>" + ZH_NUMBER + r")(?![点號号月])")
_MONEY_EN = [
    re.compile(r"\b(?:under|below|less than|no more than|at most|max(?:imum)?|up to|within|cheaper than|not over|not more than)\s+"
               r"(?:\$|£|€|¥)?\s?(?P<n>" + EN_NUMBER + r")"),
    re.compile(r"\bbudget(?: is| of| around| about|'s)?\s*(?:\$|£|€|¥)?\s?(?P<n>" + EN_NUMBER + r")"),
    re.compile(r"(?:\$|£|€|¥)\s?(?P<n>\d+)\s*(?:max|tops|or less|at most)"),
]
_MONEY_ZH = [
    re.compile(r"(?P<n>" + ZH_NUMBER + r")\s*(?:块钱?|元)?\s*(?:以内|以下|之内|左右)"),
    re.compile(r"(?:不超过|不要超过|最多|预算(?:是|大概|在)?)\s*(?P<n>" + ZH_NUMBER + r")"),
]
_YES_EN = re.compile(r"^\s*" + YES_EN + r"\b")
_NO_EN = re.compile(r"^\s*" + NO_EN + r"\b")
_HEDGE_EN = re.compile(r"\b(?:maybe|perhaps|might|not sure|or maybe|possibly|i guess|probably)\b")
_HEDGE_ZH = re.compile(r"也许|可能|或者|不确定|大概吧")
_CUISINE_OPEN_EN = re.compile(r"\b(?P<v>[A-Z][a-z]+)\s+(?:food|cuisine|restaurant|place|dishes)\b"
                              r"|\bserv(?:es|ing) (?P<v2>[A-Z][a-z]+)\b")
_YES_ZH = re.compile(r"^\s*(?:好|对|是|嗯|可以|行|没错|没问题|确定|确认|就这样|就这个)")
_NO_ZH = re.compile(r"^\s*(?:不行|不对|不是|不要|不用|错了|换一个)")


@dataclass
class Extraction:
    operations: list[Operation] = field(default_factory=list)
    correction: bool = False
    hedged: bool = False     # "maybe", "or", "可能": a new value here is not a firm change
    polarity: str = ""       # yes | no | "" for confirmation turns

    @property
    def keys(self) -> set[str]:
        return {op.key for op in self.operations if op.key}


def _lang_of(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


def clause_of(text: str, span: tuple[int, int]) -> str:
    """The user's own words around a match: the clause that contains it."""
    start = max((m.end() for m in re.finditer(r"[,.!?;，。！？；]", text[: span[0]])), default=0)
    end_match = re.search(r"[,.!?;，。！？；]", text[span[1]:])
    end = span[1] + end_match.start() if end_match else len(text)
    return text[start:end].strip()


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


class RuleExtractor:
    """Rules over one utterance, guided by a domain schema and the current state."""

    def __init__(self, schema: DomainSchema) -> None:
        self.schema = schema
        self._has = {k: k in schema.keys for k in ("party_size", "time", "date", "budget")}

    def extract(self, text: str, state: SessionState | None = None, turn_class: str = "") -> Extraction:
        lang = _lang_of(text)
        lowered = text.lower()
        result = Extraction()
        result.correction = bool(_CORRECTION_ZH.search(text) if lang == "zh" else _CORRECTION_EN.search(lowered))
        result.hedged = bool(_HEDGE_ZH.search(text) if lang == "zh" else _HEDGE_EN.search(lowered))
        taken: list[tuple[int, int]] = []
        ops: list[Operation] = []

        def add(op: Operation, span: tuple[int, int]) -> None:
            taken.append(span)
            ops.append(op)

        self._withdrawals(text, lowered, lang, add)
        withdrawn_keys = {op.key for op in ops}
        if self._has["time"]:
            times = find_zh_times(text) if lang == "zh" else find_en_times(text)
            for value, start, end in [t for t in times if not self._negated(text, t[1], lang)][-1:]:
                value = self._same_half_of_day(value, text, lang, state)
                add(Operation("set", "time", "=", value, text[start:end], correction=result.correction), (start, end))
        if self._has["date"]:
            dates = find_zh_dates(text) if lang == "zh" else find_en_dates(text)
            for value, start, end in [d for d in dates if not self._negated(text, d[1], lang)][-1:]:
                add(Operation("set", "date", "=", value, text[start:end], correction=result.correction), (start, end))
        if self._has["budget"]:
            self._money(text, lowered, lang, taken, add, result.correction)
        if self._has["party_size"]:
            self._party(text, lowered, lang, taken, add, result.correction, state)
        self._enums(text, lowered, lang, taken, add, result.correction, withdrawn_keys)
        if lang == "en":
            self._names(text, taken, add, result.correction, has_cuisine=any(o.key == "cuisine" for o in ops))
        if state is not None and not state.goal and self._mentions_goal(lowered, lang):
            goal = self.schema.goal_text.get(lang) or self.schema.goal_text.get("en", "")
            if goal:
                ops.insert(0, Operation("set_goal", value=goal, words=text.strip()))
        if ops and turn_class != "confirmation" and self._polarity(lowered, lang) == "yes":
            ops.insert(0, Operation("confirm", words=text.strip()))   # "Yes, and make it 7 pm"
        elif turn_class == "confirmation" or (not ops and self._is_bare_answer(lowered, lang)):
            result.polarity = self._polarity(lowered, lang)
            if result.polarity == "yes":
                ops.append(Operation("confirm", words=text.strip()))
            elif result.polarity == "no":
                ops.append(Operation("reject", words=text.strip()))
        if result.hedged:
            ops = [Operation(o.op, o.key, o.comparator, o.value, o.words, o.reason, o.question, o.correction,
                             o.source, hedged=True) if o.op == "set" else o for o in ops]
        result.operations = ops
        return result

    @staticmethod
    def _negated(text: str, start: int, lang: str) -> bool:
        """'not tonight', 'instead of Saturday', '不是周六': not a value to write."""
        before = text[max(0, start - 16): start].lower()
        return bool(re.search(r"\b(?:not|no|never|isn'?t|except|instead of|rather than)\s+(?:on\s+|at\s+|this\s+)?$",
                              before) if lang == "en" else re.search(r"(?:不是|不要|除了|而不是)$", before))

    @staticmethod
    def _same_half_of_day(value: str, text: str, lang: str, state: SessionState | None) -> str:
        """'改成八点' after 19:00 means 20:00: keep the current time's half of the day
        unless the utterance names a period itself."""
        if state is None or not state.find("time"):
            return value
        hour, minute = (int(p) for p in value.split(":"))
        current = str(state.find("time")[0].value)
        named = re.search(r"am|pm|a\.m|p\.m|morning|evening|afternoon|night|tonight|noon", text.lower()) if lang == "en" \
            else re.search(r"凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里", text)
        if not named and re.fullmatch(r"\d\d:\d\d", current) and int(current[:2]) >= 12 and 1 <= hour < 12:
            return f"{hour + 12:02d}:{minute:02d}"
        return value

    def reads_condition(self, text: str) -> bool:
        """Whether the rules read a condition from `text` (used by the turn classifier).

        A bare "today" is how small talk mentions time ("lovely weather today"), so it
        alone does not make a turn an information change.
        """
        return any(op.op in ("set", "withdraw") and not (op.key == "date" and op.value == "today")
                   for op in self.extract(text, None).operations)

    # --- pieces -------------------------------------------------------------------------

    def _mentions_goal(self, lowered: str, lang: str) -> bool:
        words = self.schema.goal_words.get(lang, ()) + self.schema.goal_words.get("en", ())
        return any((re.search(r"\b" + re.escape(w) + r"\b", lowered) if lang == "en" else w in lowered) for w in words)

    @staticmethod
    def _is_bare_answer(lowered: str, lang: str) -> bool:
        return len(lowered.split()) <= 6 if lang == "en" else len(lowered) <= 8

    @staticmethod
    def _polarity(lowered: str, lang: str) -> str:
        if lang == "zh":
            if _NO_ZH.search(lowered):
                return "no"
            return "yes" if _YES_ZH.search(lowered) else ""
        if _NO_EN.search(lowered):
            return "no"
        return "yes" if _YES_EN.search(lowered) else ""

    def _number(self, text: str, lang: str) -> int | None:
        return zh_to_int(text) if lang == "zh" and not text.isdigit() else en_to_int(text)

    def _party(self, text, lowered, lang, taken, add, correction, state) -> None:
        patterns = _PARTY_ZH if lang == "zh" else _PARTY_EN
        source = text if lang == "zh" else lowered
        for pattern in patterns:
            for m in pattern.finditer(source):
                span = m.span("n")
                if _overlaps(span, taken):
                    continue
                n = self._number(m.group("n"), lang)
                if n is not None and 1 <= n <= 200:
                    add(Operation("set", "party_size", "=", n, text[m.start():m.end()], correction=correction), span)
                    return
        # "make it six": a bare number in a correction refers to the key the state already has.
        bare = (_BARE_NUMBER_ZH if lang == "zh" else _BARE_NUMBER_EN).search(source)
        if bare and state is not None and not _overlaps(bare.span("n"), taken):
            n = self._number(bare.group("n"), lang)
            if n is not None and state.find("party_size") and 1 <= n <= 200:
                add(Operation("set", "party_size", "=", n, text[bare.start():bare.end()], correction=True),
                    bare.span("n"))

    def _money(self, text, lowered, lang, taken, add, correction) -> None:
        source = text if lang == "zh" else lowered
        for pattern in (_MONEY_ZH if lang == "zh" else _MONEY_EN):
            for m in pattern.finditer(source):
                span = m.span("n")
                if _overlaps(span, taken):
                    continue
                after = source[m.end(): m.end() + 8]
                if lang == "zh" and re.match(r"\s*(?:个人|位|人|点)", after):
                    continue
                if lang == "en" and re.match(r"\s*(?:people|persons|guests|pm|am|o'?clock|minutes|km|miles)", after):
                    continue
                n = self._number(m.group("n"), lang)
                if n is not None and n > 0:
                    add(Operation("set", "budget", "<=", n, text[m.start():m.end()], correction=correction), span)
                    return

    def _enums(self, text, lowered, lang, taken, add, correction, withdrawn_keys) -> None:
        source = text if lang == "zh" else lowered
        negation = _NEGATION_ZH if lang == "zh" else _NEGATION_EN
        seen: set[tuple[str, str]] = set()
        for word, key, value in self.schema.enum_lexicon(lang):
            if key in withdrawn_keys or (key, value) in seen:
                continue
            pattern = re.escape(word) if lang == "zh" else r"\b" + re.escape(word) + r"\b"
            for m in re.finditer(pattern, source):
                if _overlaps(m.span(), taken):
                    continue
                spec = self.schema.key(key)
                before = source[max(0, m.start() - 24): m.start()]
                negated = bool(re.search(negation + (r"\s*(?:\S+\s*){0,2}$" if lang == "en" else r".{0,2}$"), before))
                if lang == "zh" and re.match(r"(?:也|都)?过敏", source[m.end():]):
                    negated = True           # 对花生过敏: the value sits inside the phrase
                if spec.multi:
                    comparator = "excludes" if negated else (
                        "includes" if value == "vegetarian" or spec.default_op == "includes" else None)
                    if comparator is None:
                        continue  # "I love seafood" is not a condition; "no seafood" is
                else:
                    comparator = "!=" if negated else "="
                add(Operation("set", key, comparator, value, clause_of(text, m.span()), correction=correction),
                    m.span())
                seen.add((key, value))
                break

    def _names(self, text, taken, add, correction, has_cuisine: bool) -> None:
        """Capitalised place and restaurant names after 'in' / 'try', and a capitalised
        cuisine the schema does not list ('some Burmese food'): open values."""
        if "cuisine" in self.schema.keys and not has_cuisine:
            for m in _CUISINE_OPEN_EN.finditer(text):
                group = "v" if m.group("v") else "v2"
                if m.group(group) not in _NOT_NAMES and not _overlaps(m.span(group), taken):
                    add(Operation("set", "cuisine", "=", m.group(group).lower(), clause_of(text, m.span()),
                                  correction=correction), m.span(group))
                    break
        for key, pattern in (("location", _LOCATION_EN), ("restaurant_name", _NAME_EN),
                             ("restaurant_name", _NAME_SUBJECT_EN)):
            if key not in self.schema.keys:
                continue
            for m in pattern.finditer(text):
                value = " ".join(w for w in m.group("v").split() if w not in _NOT_NAMES)
                if value and not _overlaps(m.span("v"), taken) and value.split()[0] not in _NOT_NAMES:
                    add(Operation("set", key, "=", value, clause_of(text, m.span()), correction=correction),
                        m.span("v"))
                    break

    def _withdrawals(self, text, lowered, lang, add) -> None:
        if lang == "zh":
            matches = [(m.group("what") or m.group("what2"), m.span()) for m in _WITHDRAW_ZH.finditer(text)]
            matches += [(m.group("what"), m.span()) for m in _NOT_ALLERGIC_ZH.finditer(text)]
        else:
            matches = [(m.group("what"), m.span()) for m in _WITHDRAW_EN.finditer(lowered)]
            matches += [(m.group("what") or m.group("what2"), m.span()) for m in _WITHDRAW_EN_AFTER.finditer(lowered)]
        keys_only = [(m.group("what"), m.span()) for m in _WITHDRAW_ZH_KEY.finditer(text)] if lang == "zh" else []
        for what, span in matches + [(w, sp) for w, sp in keys_only]:
            if not what:
                continue
            target = self._key_named(what.strip(), lang, keys_only=(what, span) in keys_only)
            if target is not None:
                key, value = target
                add(Operation("withdraw", key, value=value, words=text[span[0]:span[1]],
                              reason="user withdrew it"), span)

    def _key_named(self, phrase: str, lang: str, keys_only: bool = False) -> tuple[str, str | None] | None:
        """The key (and, for set-valued keys, the value) a phrase like 'the budget' names.

        `keys_only`: match key names alone, not value words (不要辣 is a negation, 不要预算了 a withdrawal).
        """
        phrase = phrase.lower()
        lexicon = self.schema.alias_lexicon(lang)
        if keys_only:
            value_words = {word for word, _key, _value in self.schema.enum_lexicon(lang)}
            lexicon = [(a, k) for a, k in lexicon if a not in value_words]
        for alias, key in lexicon:
            hit = alias in phrase if lang == "zh" else re.search(r"\b" + re.escape(alias) + r"\b", phrase)
            if hit:
                spec = self.schema.key(key)
                if spec.multi:
                    for value, words in spec.values.items():
                        if any(w.lower() in phrase for lang_words in words.values() for w in lang_words):
                            return key, value
                    return key, None
                return key, None
        return None
