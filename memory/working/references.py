"""Reference resolution against the state: values named by what they were.

People rarely name the slot they change. They name the old value ("push it from six to
nine"), point back ("the earlier time", "same as last time") or point at what the agent
offered ("that one", "not that one", "the other place"). Each is resolved here against
the state the turn starts from, in English and Chinese, into ordinary operations marked
`OpSource.REFERENCE`; grounding then checks that the value came from the state or the
offered options. When a reference is ambiguous (the old value fits two slots), nothing
is written: a wrong slot is worse than asking again.
"""

from __future__ import annotations

import re

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import SELF_REPAIR, language_of
from monologue.memory.language.normalise import contains, normalised
from monologue.memory.language.numbers import (
    find_en_dates,
    find_en_times,
    find_zh_dates,
    find_zh_times,
    format_time,
    to_amount,
)
from monologue.memory.language.places import names_a_place_zh
from monologue.memory.language.stances import asks, clause_bounds, is_query
from monologue.memory.working.extract import AS_THE_ONE_DONE
from monologue.memory.working.grounding import Grounder, names_value, numbers_said
from monologue.memory.working.state import Comparator, Condition, OfferedOption, Op, Operation, OpSource, SessionState

# (a sum's decimal point is inside a value: "change the amount to 95.99 dollars")
_OLD = r"(?P<old>(?:[\w:' ]|(?<=\d)\.(?=\d)){1,24}?)"
_NEW = r"(?P<new>(?:[\w:' ]|(?<=\d)\.(?=\d)){1,24}?)"
_END = r"(?=\s*(?:[,!?;]|\.(?!\d)|$|\s(?:please|instead|then|if|and|for|on|because|thanks)\b))"

# "from six to nine", "nine instead of six", "not six but nine", "change six to nine".
OLD_TO_NEW_EN = (
    re.compile(r"\bfrom " + _OLD + r" (?:to|until|till) " + _NEW + _END, re.IGNORECASE),
    re.compile(r"\b(?:change|switch|move|swap|turn|bump|push|replace) " + _OLD + r" (?:to|for|with|into) " + _NEW
               + _END, re.IGNORECASE),
    re.compile(r"\bnot " + _OLD + r",? but " + _NEW + _END, re.IGNORECASE),
)
NEW_FOR_OLD_EN = (
    re.compile(r"\b" + _NEW + r" instead of " + _OLD + _END, re.IGNORECASE),
    # (a comma or a verb between them: "instead of a repair" is one thing refused, no "a" put right)
    re.compile(r"\binstead of " + _OLD + r"(?:, (?:make it |let'?s do |go with |do |try )?"
               r"| (?:make it|let'?s do|go with|do|try) )" + _NEW + _END, re.IGNORECASE),
)
_ZH_VALUE = r"[^，。！？,.!?；;\s]{1,10}?"     # (ending where a sum's decimal point is not: 65.50块)
OLD_TO_NEW_ZH = (
    re.compile(r"(?:把|从)(?P<old>" + _ZH_VALUE + r")(?:改成|换成|改为|改到|挪到|推到|调到|调成|调为|设成|设为|变成|到)"
               r"(?P<new>" + _ZH_VALUE + r")(?=[吧了的啊呀，。！？,!?]|\.(?!\d)|$)"),
    # (麦当劳改成肯德基吧: the value held first in its clause, without 把)
    re.compile(r"(?:^|[，。！？,.!?；;]\s*)(?P<old>" + _ZH_VALUE + r")(?:改成|换成)(?P<new>" + _ZH_VALUE
               + r")(?=[吧了的啊呀，。！？,!?]|\.(?!\d)|$)"),
    re.compile(r"不是(?P<old>" + _ZH_VALUE + r")[，, ]?(?:而)?是(?P<new>" + _ZH_VALUE
               + r")(?=[吧了的啊，。！？,!?]|\.(?!\d)|$)"),
)

# "the earlier time", "change it back", 改回原来的时间 ("earlier than that" compares: no way back).
BACK_EN = re.compile(r"\b(?:(?:the |my )?(?:earlier|previous|original|old|first|former|other) (?!than\b)"
                     r"(?P<what>[a-z ]{2,20}?)"
                     r"(?:\s+(?:i said|we had))?" + _END + r"|(?:change|switch|put|move|set) (?:it |that )?back"
                     # (gone back to by the user, not "will the money go back to my card?")
                     r"|(?:^|(?<=[,.!;] )|(?<=\blet's )|(?<=\blets )|(?<=\bwe )|(?<=\bto )|(?<=\bjust ))go back"
                     r"|what i (?:said|had|asked for) (?:before|earlier|at first|first|originally|at the start))",
                     re.IGNORECASE)
BACK_ZH = re.compile(r"(?:改回|换回|调回|设回|弄回|恢复到?|还是用?|用回|回到)"
                     r"(?:原来|之前|刚才|一开始|最早|先前)?(?:的|那个)?"
                     r"(?P<what>[\u4e00-\u9fff]{0,4})|(?:原来|之前|刚才|一开始|最早|先前)(?:的|那个|说的)(?P<what2>[\u4e00-\u9fff]{1,4})")
BACK_GUARD_ZH = re.compile(r"改回|换回|调回|设回|弄回|恢复|用回|回到|还是用?(?:原来|之前|刚才|一开始|最早|先前)")

# "same as last time", "the usual", 和上次一样, 老样子.
AS_BEFORE = re.compile(r"\b(?:same (?:[a-z]+ ){0,4}as (?:last time|before|usual)|like last time|the usual|"
                       r"as usual|as always)\b"
                       r"|和上次一样|跟上次一样|同上次|老样子|照旧|还是老规矩", re.IGNORECASE)

# "the same as the last one", 跟刚才一样: as the task done just before in this session.
# (…or the detail said as the same, with a task done before: "same name is fine", "use the same number")
AS_JUST_NOW = re.compile(r"\bsame (?:[a-z]+ ){0,3}as (?:the |my )?(?:last|previous|other|first) "
                         r"(?:one|ticket|order|booking)\b|\b(?:the )?same as before\b|"
                         r"\b(?:the )?same (?:name|number|phone(?: number)?|email(?: address)?|contact(?: details)?|"
                         r"details|address)\b(?! as (?:last time|usual))|"
                         r"[跟和同]刚才(?:那个|那单|那张)?一样|[跟和同]上一[个单张次]一样|同上", re.IGNORECASE)

# "that one", "the second one", 就这家; "not that one", 换一家; "the other place", 另一家.
NOT_THAT_ONE = re.compile(r"\b(?:not (?:that|this) (?:one|place)|(?:another|a different|some other) "
                          r"(?:one|place|option)|something else)\b|不要(?:这|那)(?:个|家)|换一(?:个|家)|别的",
                          re.IGNORECASE)
THE_OTHER = re.compile(r"\bthe other (?:one|place|option|restaurant)\b|\bother one\b"
                       r"|另一(?:个|家)|另外(?:那|一)(?:个|家)", re.IGNORECASE)
ORDINAL = re.compile(r"\bthe (?P<en>first|second|third|last) (?:one|place|option)\b|第(?P<zh>[一二三])(?:个|家)",
                     re.IGNORECASE)
# An offered option said by what it is: "the French one", "that first French place you said",
# "I meant the Korean place", 第一家川菜, 那家烤鸭店 (what it is is read against the options' `about`).
THE_KIND_OF_ONE = re.compile(r"\b(?:the|that|this)\s+(?:(?P<en>first|second|third|last)\s+)?"
                             r"(?P<kind>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+(?:one|place|option|restaurant|spot|joint)\b"
                             r"|(?:第(?P<zh>[一二三])家|那家|这家)(?P<kind_zh>[\u4e00-\u9fff]{1,6})", re.IGNORECASE)
POINTED_AT = "the option the user pointed at"
_WHICH_ZH = re.compile(r"哪|什么|啥|多少")       # 第一家是哪个？: asked about, not chosen
_TURNED_DOWN = re.compile(r"\b(?:not|no|too|don'?t|didn'?t|wasn'?t|isn'?t|never|hated?|noisy|awful)\b|"
                          r"不|别|太|没", re.IGNORECASE)
# The one offered before the one on the table ("the previous one", 还是刚才那家吧).
EARLIER_ONE = re.compile(r"\bthe (?:previous|earlier) (?:one|place|option|restaurant)\b|"
                         r"\bthe one (?:before|from before)\b|"
                         r"(?:刚才|之前|前面|原来|上一)那?家|(?:刚才|之前|前面|原来|上一)那?个(?=[吧吗呢啊就好。，,！!？?]|$)",
                         re.IGNORECASE)
# (not "make that one degree warmer": one what is said after it)
# (…nor "that sounds a bit fancy", "that one's kinda far": said against it)
THAT_ONE = re.compile(r"\b(?:that|this) (?:one|place|sounds(?=\s+(?:good|great|fine|perfect|nice|lovely|ok(?:ay)?|"
                      r"right|about right|like a plan|wonderful|excellent|amazing|awesome|cool|delicious|fun)\b))\b"
                      r"(?!\s+(?:degree|notch|more|less|level|step|hour|minute|"
                      r"person|people|day|dollar|table|seat)s?\b)"
                      r"(?!(?:'s|\s+is|\s+sounds|\s+seems|\s+looks)?\s+(?:a bit|a little|kinda|kind of|too|pretty|"
                      r"rather|quite|way too|really)\b)|就(?:这|那)(?:个|家)|就它", re.IGNORECASE)


# A question about the offer named in it ("where's that one?", "how far is that place?").
_ASKED_ABOUT = re.compile(r"\s*(?:where|what|how|which|when|who|why|is|does|do|are|can|could|would|will)\b[^.!?]*\?",
                          re.IGNORECASE)


class ReferenceResolver:
    """Turns references to the state into operations, for one domain."""

    def __init__(self, schema: DomainSchema) -> None:
        self.schema = schema
        self.grounder = Grounder(schema)

    def resolve(self, text: str, state: SessionState, ops: list[Operation]) -> list[Operation]:
        """`ops` with what the references in `text` resolve to; operations the rules read
        from the same words for another slot are replaced."""
        for step in (self._old_to_new, self._back, self._offers, self._as_before):
            ops = step(text, state, ops)
        return ops

    # --- "from six to nine" ----------------------------------------------------------------

    def _old_to_new(self, text: str, state: SessionState, ops: list[Operation]) -> list[Operation]:
        lang = language_of(text)
        patterns = OLD_TO_NEW_ZH if lang == "zh" else OLD_TO_NEW_EN + NEW_FOR_OLD_EN
        found = [(m.group("old"), m.group("new"), m.group(0)) for p in patterns for m in p.finditer(text)]
        for old, new, words in found:
            holders = [c for c in state.constraints.values() if self._holds(c, old)]
            if not holders:
                # "把六个人改成八个人" when no slot holds six: the slot is the one the rules read
                # from these words, and the new value, not the first one read, is meant.
                read = [op for op in ops if op.op == Op.SET and op.words and _overlaps(op, words)]
                if len({op.key for op in read}) == 1:
                    holders = [Condition(read[0].key, read[0].comparator, read[0].value, read[0].words, state.turn)]
            source = OpSource.REFERENCE if holders and holders[0].slot in state.constraints else OpSource.RULES
            if len({c.key for c in holders}) != 1:
                continue      # the old value is in no slot, or in two: not a reference we can resolve
            condition = holders[0]
            value = self._read_as(condition, new, old)
            if value is None or value == condition.value:
                continue
            comparator = condition.comparator if condition.comparator != Comparator.NE else Comparator.EQ
            resolved = Operation(Op.SET, condition.key, comparator, value, words.strip(), correction=True,
                                 source=source, reason=f"named the old value ({old.strip()})")
            # What the rules read from these words for any slot is replaced by the resolved reading.
            ops = [op for op in ops if not (op.op == Op.SET and (op.key == condition.key or _overlaps(op, words)))]
            if condition.comparator == Comparator.INCLUDES:
                # (one of several put right: the old one goes, the new one joins the rest)
                ops.append(Operation(Op.WITHDRAW, condition.key, value=condition.value, words=words.strip(),
                                     source=source, reason=f"put right as {value}"))
            ops.append(resolved)
        return ops

    def _holds(self, condition: Condition, phrase: str) -> bool:
        return names_value(condition.value, self.schema.key(condition.key), phrase)

    def _read_as(self, condition: Condition, phrase: str, old: str = "") -> object | None:
        """`phrase` read as a value of `condition`'s slot, in the old value's terms (`old`: the
        words said of the value held)."""
        spec: KeySpec = self.schema.key(condition.key)
        phrase = phrase.strip()
        if spec.type == "time" or re.fullmatch(r"\d\d:\d\d", str(condition.value)):
            times = [t[0] for t in find_en_times(phrase, require_cue=False) + find_zh_times(phrase)]
            if times:
                value = times[-1]
            else:
                numbers = sorted(numbers_said(phrase))
                if not numbers or not 0 < numbers[0] <= 24:
                    return None
                value = format_time(numbers[0], 0) or ""
            old_hour, hour = int(str(condition.value)[:2]), int(value[:2])
            if old_hour >= 12 and 1 <= hour < 12 and not re.search(r"am|a\.m|morning|上午|早上", phrase, re.IGNORECASE):
                value = f"{hour + 12:02d}{value[2:]}"      # "from six to nine" in the evening is 21:00
            return value
        if spec.type == "money":
            # ("change the amount to 95.99 dollars": a sum keeps its cents)
            amount = re.search(r"\d+(?:[.,]\d{1,2})?", phrase)
            sum_said = to_amount(amount.group().replace(",", ".")) if amount is not None else None
            if sum_said is not None:
                return sum_said
        if spec.type in ("int", "money") or isinstance(condition.value, int | float):
            numbers = sorted(numbers_said(phrase))
            return numbers[0] if numbers else None
        if spec.type == "date":
            dates = [d[0] for d in find_en_dates(phrase) + find_zh_dates(phrase)]
            return dates[-1] if dates else None
        if spec.type == "enum":
            said = normalised(phrase)
            for value, by_lang in spec.values.items():
                if contains(said, normalised(value)) or any(contains(said, normalised(w))
                                                            for ws in by_lang.values() for w in ws):
                    return value
            # (A place by its name, where the key reads places too: 麦当劳改成肯德基; not a part of
            # one, 不是27号，是29号, put right in it by the rules.)
            whole = normalised(old) == normalised(str(condition.value))
            # (国贸改成明天再去吧: no place after 改成, but when to go)
            a_place = names_a_place_zh(phrase) if language_of(phrase) == "zh" else bool(phrase)
            return phrase if spec.reader == Reader.PLACE_NAME and whole and a_place else None
        return phrase if phrase and not re.fullmatch(r"(?:it|that|this|them|one)", phrase, re.IGNORECASE) else None

    # --- "the earlier time", "change it back" ------------------------------------------------

    def _back(self, text: str, state: SessionState, ops: list[Operation]) -> list[Operation]:
        if not state.previous:
            return ops
        lang = language_of(text)
        match = BACK_ZH.search(text) if lang == "zh" else BACK_EN.search(text)
        if match is None or (lang == "zh" and not (BACK_GUARD_ZH.search(text) or match.group("what2"))):
            return ops
        left, right = clause_bounds(text, match.start(), match.end())
        if asks(text, match.start(), match.end(), lang) or is_query(text[left:right]):
            return ops      # 你刚才说的温度是多少, "what was the earlier time?": asked about, not gone back to
        what = (match.groupdict().get("what") or match.groupdict().get("what2") or "").strip()
        named = [slot for slot in state.previous if self.grounder.names_key(slot.split(":")[0], text)]
        by_name = {k for k, spec in self.schema.keys.items() if any(
            w and contains(normalised(text), normalised(w))
            for w in (*spec.labels.values(), *(a for ws in spec.aliases.values() for a in ws)))}
        if by_name and not {slot.split(":")[0] for slot in named} & by_name:
            return ops      # "刚才那个风量再调大一些": the fan, which has no earlier value, not the last change
        if match.groupdict().get("what2") and any(op.op == Op.SET and op.key in by_name for op in ops):
            return ops      # …and with a new value said for it, 刚才那个 only points at it
        if SELF_REPAIR.search(text) and any(op.op == Op.SET for op in ops):
            return ops      # (刚才那个说错了，是DD-556-0912: what was just said, put right by the new value)
        if lang == "en" and re.search(r"\bother\b", match.group(0), re.IGNORECASE) and not named:
            return ops      # "the other one" points at an offer; "the other time" at the earlier time
        if not named and what and not re.fullmatch(r"(?:one|ones|the one|it|that)", what, re.IGNORECASE) \
                and lang == "en":
            return ops      # "the earlier train": a slot with no earlier value
        # (还是国贸，改回去 after the song and the destination both changed: the slot whose earlier value is said)
        by_value = [slot for slot, v in state.previous.items()
                    if isinstance(v, str) and len(v) > 1 and contains(normalised(text), normalised(v))]
        slot = by_value[-1] if by_value else named[-1] if named else list(state.previous)[-1]
        key = slot.split(":")[0]
        value = state.previous[slot]
        current = state.constraints.get(slot)
        if current is not None and current.value == value:
            return ops
        comparator = current.comparator if current is not None else Comparator(self.schema.key(key).default_op)
        ops = [op for op in ops if not (op.op == Op.SET and op.key == key)]
        ops.append(Operation(Op.SET, key, comparator, value, match.group(0).strip(), correction=True,
                             source=OpSource.REFERENCE, reason="back to the earlier value"))
        return ops

    # --- "that one", "not that one", "the other place" ---------------------------------------

    def _offers(self, text: str, state: SessionState, ops: list[Operation]) -> list[Operation]:
        if not state.offered and not state.proposal:
            return ops
        if NOT_THAT_ONE.search(text) and not THE_OTHER.search(text):
            return [op for op in ops if op.op != Op.CONFIRM] + [Operation(Op.REJECT, words=_first(NOT_THAT_ONE, text))]
        chosen: OfferedOption | None = None
        words = ""
        proposed = {(p.key, str(p.value).lower()) for p in state.proposal}
        if (m := THE_OTHER.search(text)) and len(state.offered) >= 2:
            others = [o for o in state.offered if not any((k, str(v).lower()) in proposed or self._is_set(state, k, v)
                                                          for k, v in o.values.items())]
            if len(others) == 1:
                chosen, words = others[0], m.group(0)
        elif (kind := self._one_of_a_kind(text, state)) is not None:
            chosen, words = kind
        elif (m := EARLIER_ONE.search(text) or ORDINAL.search(text)) and (
                asks(text, *m.span(), language_of(text)) or text.rstrip().endswith(("?", "？"))
                or _WHICH_ZH.search(clause := text[slice(*clause_bounds(text, *m.span()))])
                or _TURNED_DOWN.search(clause)):
            # "第一家是哪个？", "what was the previous one called?": asked about; 别订刚才那家, "the
            # previous one was too expensive": turned down. Neither chooses it.
            return ops
        elif (m := EARLIER_ONE.search(text)) and state.offered:
            # (The one before the offer on the table; with none on the table, the last one offered.)
            on_the_table = state.last_act.act in ("propose", "suggest", "resume", "only_option")
            if len(state.offered) >= 2 or not on_the_table:
                chosen, words = state.offered[-2 if on_the_table else -1], m.group(0)
        elif (m := ORDINAL.search(text)) and state.offered:
            index = {"first": 0, "second": 1, "third": 2, "last": -1, "一": 0, "二": 1, "三": 2}[
                (m.group("en") or m.group("zh")).lower()]
            if -len(state.offered) <= index < len(state.offered):
                chosen, words = state.offered[index], m.group(0)
        elif (m := THAT_ONE.search(text)) and state.proposal:
            left, right = clause_bounds(text, *m.span())
            if _ASKED_ABOUT.match(text[left:]) or asks(text, *m.span(), language_of(text)) \
                    or is_query(text[left:right + 1]):
                return ops      # "where's that one?", "is that one pricey?": asked about, not taken
            # ("for that one I just want a refund": the one read back is named, and changed, not taken)
            changes_it = any(op.op == Op.SET and any(p.key == op.key and str(p.value) != str(op.value)
                                                     for p in state.proposal) for op in ops)
            if not any(op.op == Op.CONFIRM for op in ops) and not changes_it:
                ops = ops + [Operation(Op.CONFIRM, words=m.group(0))]
            return ops
        if chosen is None:
            return ops
        ops = [op for op in ops if op.op != Op.CONFIRM]
        for key, value in chosen.values.items():
            ops.append(Operation(Op.SET, key, Comparator.EQ, value, words, correction=True,
                                 source=OpSource.REFERENCE, reason=POINTED_AT))
        return ops + [Operation(Op.PROPOSE, value=[])]

    def _one_of_a_kind(self, text: str, state: SessionState) -> tuple[OfferedOption, str] | None:
        """The offered option the user chose by what it is ("let's go with that first French place
        you said": of those offered, the first that is French), with the words that chose it; not
        one asked about or turned down ("is the French one pricey?", "not the Mexican one")."""
        lang = language_of(text)
        for m in THE_KIND_OF_ONE.finditer(text):
            kind = m.group("kind") or m.group("kind_zh") or ""
            left, right = clause_bounds(text, *m.span())
            clause = text[left:right]
            if asks(text, *m.span(), lang) or clause.rstrip().endswith(("?", "？")) or _WHICH_ZH.search(clause) \
                    or _TURNED_DOWN.search(text[left:m.start()]) or _TURNED_DOWN.search(text[m.end():right]):
                continue
            of_the_kind = [o for o in state.offered if any(
                key in self.schema.keys and any(names_value(v, self.schema.key(key), normalised(kind))
                                                for v in (value if isinstance(value, list) else [value]))
                for key, value in o.about.items())]
            index = {"first": 0, "second": 1, "third": 2, "last": -1, "一": 0, "二": 1, "三": 2}.get(
                (m.group("en") or m.group("zh") or "").lower())
            if index is None and len(of_the_kind) == 1:
                return of_the_kind[0], m.group(0)
            if index is not None and -len(of_the_kind) <= index < len(of_the_kind):
                return of_the_kind[index], m.group(0)
        return None

    @staticmethod
    def _is_set(state: SessionState, key: str, value: object) -> bool:
        return any(str(c.value).lower() == str(value).lower() for c in state.find(key))

    # --- "same as last time" -------------------------------------------------------------------

    def _as_before(self, text: str, state: SessionState, ops: list[Operation]) -> list[Operation]:
        just_now = AS_JUST_NOW.search(text)
        if just_now is not None and state.done and not ops:
            return self._as_the_last_one(text, state, just_now.group(0))
        match = AS_BEFORE.search(text)
        if match is None:
            return ops
        # The lasting preferences this session started from are what "last time" had.
        seeded = [c for c in state.constraints.values() if c.turn == 0]
        named = [c for c in seeded if self.grounder.names_key(c.key, text)]
        return ops + [Operation(Op.CONFIRM, c.key, words=match.group(0), reason="same as last time")
                      for c in (named or seeded)]


    def _as_the_last_one(self, text: str, state: SessionState, words: str) -> list[Operation]:
        """"联系方式就跟刚才一样", "same contact details as the last one": a second task takes the named
        keys' values from the one done just before (and what they need: the email address of an email)."""
        done = state.done[-1]
        action = self.schema.actions.get(done.action)
        # ("same name is fine": the key whose name has that word, the name for the booking; not the place
        # picked, whose name it is too)
        noun = re.search(r"\bsame (\w+)", words, re.IGNORECASE)
        named = [key for key in done.args if key in self.schema.keys and not state.find(key)
                 and (self.grounder.names_key(key, text) or noun is not None
                      and (action is None or key != action.choose) and any(
                     noun.group(1).lower() in alias.lower().split()
                     for alias in (*self.schema.key(key).aliases.get("en", ()), self.schema.key(key).label("en"))))]
        needed = [n for key in named for n in (action.needs_when.get(key, {}).get(str(done.args[key]), ())
                                               if action is not None else ()) if n in done.args]
        return [Operation(Op.SET, key, Comparator.EQ, done.args[key], words, reason=AS_THE_ONE_DONE)
                for key in dict.fromkeys([*named, *needed]) if not state.find(key)]


def _overlaps(op: Operation, words: str) -> bool:
    return bool(op.words) and (normalised(op.words) in normalised(words) or normalised(words) in normalised(op.words))


def _first(pattern: re.Pattern[str], text: str) -> str:
    match = pattern.search(text)
    return match.group(0) if match else text

