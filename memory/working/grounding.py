"""Grounding: an operation changes only what the user's words refer to (W4).

Every operation that writes the state is checked against the utterance before it is
applied, whatever produced it (the rules, the local model, any provider):

- its words must be in the utterance;
- a value it writes must have been said, or be a normalisation of what was said
  ("nine" → 21:00 when the time is in the evening, "four" → 4, "veggie" → vegetarian);
- the slot it writes or withdraws must be one the turn refers to: by name ("the time"),
  by one of its values, by its current value ("from six to nine"), or because the agent
  just asked about it;
- a question never sets a value ("what temperature do I like?").

The rules read keys through the domain's own readers, so for them the slot is referred
to by construction; everything else is still checked. A rejected operation is kept with
its reason for the trace, never applied.

The agent's read-backs are grounded too (`ground_proposal`): a later "yes" may confirm
only values the state already holds or the options the agent was given, never a value
the reply model made up.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import (
    BARE_CANCEL,
    EVERYTHING,
    HEAD_COUNT_WHOLE,
    STATE_CUES,
    language_of,
    party_named,
    people_in_group,
)
from monologue.memory.language.digits import digits_of_zh, digits_said, digits_said_en
from monologue.memory.language.email_address import emails_said
from monologue.memory.language.normalise import contains, normalised, with_its_singular
from monologue.memory.language.numbers import (
    EN_NUMBER,
    EN_TENS,
    EN_UNITS,
    find_en_dates,
    find_en_times,
    find_zh_dates,
    find_zh_times,
    to_int,
)
from monologue.memory.language.places import house_numbers_written
from monologue.memory.language.stances import (
    OPTIONS_AS_A_KIND,
    POINTS_AT_THE_ONE,
    asks_for_information,
    asks_for_one,
    clause_of,
    is_query,
    sentences_with_offsets,
)
from monologue.memory.working.extract import ANOTHER_TASK, AS_THE_ONE_DONE, INSTEAD_OF_IT, NO_LONGER_FOR
from monologue.memory.working.put_right import DIGITS_PUT_RIGHT, PART_PUT_RIGHT, digits_in
from monologue.memory.working.readers import control_just_carried_out, value_heads_zh, value_pattern
from monologue.memory.working.state import Comparator, OfferedOption, Op, Operation, OpSource, SessionState
from monologue.memory.working.weighed import ERRAND_CALLED_OFF, errand_in

_WRITES = (Op.SET, Op.WITHDRAW, Op.SET_GOAL)
# Words that take something back, in either language: what a model's withdrawal must rest on.
_WITHDRAWING = re.compile(
    r"\b(?:no|not|n't|never\s*mind|forget|drop|cancel|remove|delete|without|skip|scrap|no longer|"
    r"doesn't matter|don't care|whatever|any(?:thing|where|time|one)?|either|instead|rather|change|switch|"
    r"leave (?:it|that|out|off))\b|n't\b|"
    r"不|别|没|无所谓|随便|算了|取消|去掉|删|忘|免了|换|改", re.IGNORECASE)
_EN_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(sorted(set(EN_UNITS) | set(EN_TENS), key=len, reverse=True))
                             + r")(?:[\s-](?:" + "|".join(EN_UNITS) + r"))?\b")
_EN_NUMBER_WHOLE = re.compile(r"\b" + EN_NUMBER + r"\b")
_ZH_NUMBER = re.compile(r"[零〇一二两俩三仨四五六七八九十百千万]+")


@dataclass(frozen=True)
class Rejected:
    """An operation that was not applied, and why (for the trace)."""

    operation: Operation
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"operation": self.operation.to_dict(), "reason": self.reason}


@dataclass
class Grounding:
    kept: list[Operation] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def _compact(text: str) -> str:
    """`text` lowered, without spaces and dashes, a dash said too ("W R dash 207758": wr207758)."""
    return re.sub(r"\bdash\b|[\s-]+", "", text.lower())


def numbers_said(text: str) -> set[int]:
    """Every number in `text`: digits, English number words, Chinese numerals."""
    found = {int(float(m)) for m in re.findall(r"\d+(?:\.\d+)?", text)}
    found |= {n for m in _EN_NUMBER_WORD.finditer(text.lower()) if (n := to_int(m.group(0))) is not None}
    # (…and whole, with its hundreds: "a hundred and fifty nine" says 159, not only 1 and 59)
    found |= {n for m in _EN_NUMBER_WHOLE.finditer(text.lower()) if (n := to_int(m.group(0))) is not None}
    found |= {n for m in _ZH_NUMBER.finditer(text) if (n := to_int(m.group(0))) is not None}
    return found


def _times(text: str) -> set[str]:
    return {t[0] for t in find_en_times(text) + find_zh_times(text)} | {
        t[0] for t in find_en_times(text, require_cue=False)}


def _dates(text: str) -> set[str]:
    return {d[0] for d in find_en_dates(text) + find_zh_dates(text)}


def _without_times(text: str) -> str:
    for _value, start, end in sorted(find_en_times(text) + find_zh_times(text), key=lambda t: -t[1]):
        text = text[:start] + " " + text[end:]
    return text


def _people_counted(utterance: str) -> set[int]:
    """The party sizes a turn says as its parts: groups ("two adults and three kids", 三个大人两个小孩;
    "两个人，三个孩子", people and more besides), or who comes ("me, my wife and our two kids")."""
    lang = language_of(utterance)
    groups = list(STATE_CUES[lang].head_count_group.finditer(utterance))
    counts = [people_in_group(m) for m in groups]
    parts = [n for m, n in zip(groups, counts, strict=True) if not HEAD_COUNT_WHOLE.search(m.group())]
    said = {sum(n for n in ns if n is not None) for ns in (parts, counts) if ns and None not in ns}
    party = party_named(utterance, lang)
    return said | ({party[0]} if party is not None else set())


def _each_word_said_or_spelled(value: str, utterance: str) -> bool:
    """Whether each word of a name was said, as a word or letter by letter ("Kevin, K E V I N,
    Park" says Kevin Park; "Shawn, that's S E A N" says Sean)."""
    lowered = utterance.lower()
    said = set(re.findall(r"[a-z'-]+", lowered))
    said |= {re.sub(r"[^a-z]", "", m.group()) for m in re.finditer(r"\b[a-z](?:[\s.-]+[a-z]\b){1,20}", lowered)}
    words = re.findall(r"[a-z'-]+", value.lower())
    return bool(words) and value.isascii() and all(w in said for w in words)


def _tail_put_right(code: str, text: str) -> bool:
    """Whether `code` is a code said in `text` with its last digits said again after it."""
    # (…the digits said in words too: "eight eight zero seven. no wait, the last bit is eight eight zero nine")
    said = [_compact(digits_said(text)), _compact(digits_said_en(text)), digits_in(text)]
    digits = _compact(digits_of_zh(digits_said(text)))
    for k in range(1, max(1, len(code) - 3)):
        head, tail = code[:-k], code[-k:]
        if any(head in s and s.find(tail, s.find(head) + len(head)) >= 0 for s in (*said, digits)):
            return True
    return False


def value_said(value: Any, spec: KeySpec, utterance: str, *, strict: bool = False) -> bool:
    """Whether `value` was said in `utterance`, as it is or in a form it normalises from.

    `strict`: only as itself — a bare number is not an hour ("for 6" is not 18:00), and a
    number inside a clock time is not a count."""
    text = normalised(utterance)
    if isinstance(value, bool):
        return True    # a yes/no on a key: the key's mention carries it (checked separately)
    # (…and as said: a code's letters spelled apart are capitals, "K L seven oh, uh, four four")
    if spec.reader == Reader.IDENTIFIER and any(_compact(str(value)) in _compact(said) for said in (
            digits_said(text), digits_said_en(text), digits_said_en(utterance))):
        return True    # a code said in pieces ("A94 9714") is the code
    if spec.reader == Reader.IDENTIFIER and _tail_put_right(_compact(str(value)), text):
        return True    # 一三九零零一二三四五六，不对，最后是五七: its head said whole, its tail put right
    if spec.reader == Reader.EMAIL:
        return any(address == str(value).lower() for address, _, _ in emails_said(utterance))
    if spec.reader == Reader.HEAD_COUNT and isinstance(value, int) and value in _people_counted(utterance):
        return True    # "two adults and three kids": 5, said as its parts
    if isinstance(value, int | float) or (isinstance(value, str) and re.fullmatch(r"\d+(?:\.\d+)?", value)):
        return int(float(value)) in numbers_said(_without_times(utterance) if strict else utterance)
    raw = str(value)
    if spec.reader == Reader.FREE_TEXT:
        # A wish in the user's words, less its lead: every word of it was said ("说话要大声点" →
        # 说话大声点; "I'd rather not go through the centre" → "not go through the centre").
        pieces = re.findall(r"[a-z0-9']+", raw.lower()) if language_of(raw) == "en" else re.findall(r"\S", raw)
        return all(piece in utterance.lower() for piece in pieces)
    raw = str(value)
    if spec.type == "time" and not re.fullmatch(r"\d\d:\d\d", raw):
        return False     # a time key holds clock times: "what a long day" is not one
    if strict and re.fullmatch(r"\d\d:\d\d", raw):
        cued = {t[0] for t in find_en_times(utterance) + find_zh_times(utterance)}
        return any(t[3:] == raw[3:] and int(t[:2]) % 12 == int(raw[:2]) % 12 for t in cued)
    if contains(text, normalised(raw)):
        return True
    if spec.reader == Reader.PLACE_NAME and contains(normalised(house_numbers_written(utterance)), normalised(raw)):
        return True     # "four twenty five Mission Street" says 425 Mission Street
    # ("the Safeway in Fremont... no wait, the one in Union City": Safeway in Union City, each word said)
    if spec.reader in (Reader.WORDS_AFTER, Reader.PLACE_NAME) and _each_word_said_or_spelled(raw, utterance):
        return True
    # The value's own words, and the things whose refusal means it ("motorways" → avoid_highways).
    surface = list(spec.values.get(raw, {}).values()) + list(spec.reading.avoided.get(raw, {}).values()) \
        + list(spec.loose_values.get(raw, {}).values()) + list(spec.said_again.get(raw, {}).values()) \
        + list(spec.said_again.get("*", {}).values())     # (还是去吧，就刚才那个地方: the place given up, again)
    if any(contains(text, normalised(word)) for words in surface for word in words):
        return True
    # As the rules read it: 听力不太好 says 听力不好 (a softened negation is the same value).
    if any(re.search(value_pattern(word, spaced=False), utterance) for words in surface for word in words
           if "不" in word):
        return True
    if re.fullmatch(r"\d\d:\d\d", raw):
        hour, minute = int(raw[:2]), int(raw[3:])
        # A time read in the half of the day the state already had (八点半 → 20:30 in the evening).
        if any(t[3:] == raw[3:] and int(t[:2]) % 12 == hour % 12 for t in _times(utterance)):
            return True
        # A bare hour ("nine" → 21:00).
        return minute == 0 and any(n % 12 == hour % 12 for n in numbers_said(utterance) if 0 < n <= 24)
    if spec.type == "date" or raw in _dates(utterance):
        return raw in _dates(utterance)
    return False


def names_value(value: Any, spec: KeySpec, phrase: str) -> bool:
    """Whether `phrase` names a value a slot holds, as people point at it: as said, or a
    time by its hour ("from half six to eight" names 18:30)."""
    if isinstance(value, bool):
        return False
    if value_said(value, spec, phrase):
        return True
    raw = str(value)
    return bool(re.fullmatch(r"\d\d:\d\d", raw)) and any(
        n % 12 == int(raw[:2]) % 12 for n in numbers_said(phrase) if 0 < n <= 24)


def value_fits(value: Any, spec: KeySpec) -> bool:
    """Whether `value` is of the key's type: a time key holds clock times, a number key numbers."""
    raw = str(value)
    if spec.type == "time":
        return re.fullmatch(r"\d\d:\d\d", raw) is not None
    if spec.type in ("int", "money"):
        return isinstance(value, int | float) and not isinstance(value, bool) or re.fullmatch(r"\d+", raw) is not None
    if spec.type == "date":
        # The date readers' own forms ("03-09", "day 14"), or words they read as a date.
        return re.fullmatch(r"\d\d-\d\d|(?:next month )?day \d{1,2}|in \d+ days", raw) is not None or bool(_dates(raw))
    return True


def _referral_words(spec: KeySpec) -> list[str]:
    words = [spec.name.replace("_", " ")] + [label for label in spec.labels.values()]
    words += [said for ws in spec.aliases.values() for w in ws for said in with_its_singular(w)]
    words += [w for by_lang in spec.values.values() for ws in by_lang.values() for w in ws]
    words += [w for ws in spec.described_as.values() for w in ws]
    words += [w for ws in spec.reading.dropped_by.values() for w in ws]     # ("go straight there": the stops)
    return [normalised(w) for w in words if w]


class Grounder:
    """Checks operations against the utterance they came from, for one domain."""

    def __init__(self, schema: DomainSchema) -> None:
        self.schema = schema
        self._referrals = {name: _referral_words(spec) for name, spec in schema.keys.items()}

    def names_key(self, key: str, text: str) -> bool:
        """Whether `text` names the key itself (its label, aliases or value words)."""
        said = normalised(text)
        words = self._referrals.get(key) or [normalised(key.replace("_", " "))]
        return any(contains(said, w) for w in words)

    def refers_to(self, key: str, utterance: str, state: SessionState | None) -> bool:
        """Whether the turn refers to `key`: names it, says its current value, or answers
        the agent's question about it."""
        if self.names_key(key, utterance):
            return True
        if state is None:
            return False
        spec = self.schema.key(key)
        if any(not isinstance(c.value, bool) and value_said(c.value, spec, utterance, strict=True)
               for c in state.find(key)):
            return True
        if any(p.key == key for p in state.pending):
            return True
        asked = state.last_turn_action     # the agent's last words: "How many people?"
        return bool(re.search(r"[?？]", asked)) and self.names_key(key, asked)

    def check(self, ops: Sequence[Operation], utterance: str, state: SessionState | None) -> Grounding:
        result = Grounding()
        question_spans = _question_spans(utterance)

        def not_for_an_option(sentence: str) -> bool:
            return not self._asks_for_an_option(sentence, state, utterance)

        # "Is there a Sichuan place?", 有川菜吗: the kind of option it names is asked for (set); the
        # rest it says is still asked about.
        option_spans = _question_spans(utterance, not_for_an_option)
        kinds = self.schema.kinds_of_option()
        query_spans = _query_spans(utterance)
        kind_query_spans = _query_spans(utterance, not_for_an_option)
        # A key let go because another key's new value leaves it behind ("next song" lets the song
        # asked for go) is grounded in that value.
        left_behind = {spec.name for spec in self.schema.all_keys() if any(
            o.op == Op.SET and o.key and spec.reading.cleared_by_value(o.key, o.value) for o in ops)}
        # …and a value another key set brings with it (a song asked for starts the music).
        brought = {(key, value) for o in ops if o.op == Op.SET
                   for key, value in self.schema.key(o.key).reading.brings.items()}
        # …and a value of several replaced by one said instead of it ("make it a KFC" for the stop).
        replaced = {o.key for o in ops if o.op == Op.SET and o.comparator == Comparator.INCLUDES}
        for op in ops:
            if op.op not in _WRITES or (op.op == Op.WITHDRAW and op.key in left_behind) \
                    or (op.op == Op.WITHDRAW and op.reason == INSTEAD_OF_IT and op.key in replaced) \
                    or (op.op == Op.WITHDRAW and op.reason == ANOTHER_TASK) \
                    or (op.op == Op.SET and op.reason == AS_THE_ONE_DONE) \
                    or (op.op == Op.WITHDRAW and op.reason == NO_LONGER_FOR and any(
                        o.op == Op.SET and o.reason != NO_LONGER_FOR for o in ops)) \
                    or (op.op == Op.SET and (op.key, str(op.value)) in brought):
                result.kept.append(op)
                continue
            grounded, reason = self._ground(op, utterance, state, *((option_spans, kind_query_spans) if op.key in kinds
                                                                    else (question_spans, query_spans)))
            if grounded is None:
                result.rejected.append(Rejected(op, reason))
            else:
                result.kept.append(grounded)
        return result

    def _asks_for_an_option(self, sentence: str, state: SessionState | None, utterance: str = "") -> bool:
        """Whether an existence question ("is there a Sichuan place?", 有川菜吗) asks for an option:
        where the domain offers options, with none offered yet, or asked of the agent or of the
        options as a kind; with a place on offer, "is there a private room?" asks about it."""
        if not (self.schema.catalogue or self.schema.catalogues) or not asks_for_one(sentence):
            return False
        chosen = [a.choose for a in self.schema.actions.values() if a.choose]
        in_view = state is not None and (any(state.find(k) for k in chosen) or any(act.option for act in state.acts))
        # (那换个吧，有没有粤菜: the turn asks for another kind, though the clause that names it does not say so;
        # 有没有川菜啊 with a hotpot place on offer asks for a kind it is not.)
        return not in_view or (bool(OPTIONS_AS_A_KIND.search(utterance or sentence)
                                    or self._another_kind(sentence, state))
                               and not POINTS_AT_THE_ONE.search(sentence))

    def _another_kind(self, sentence: str, state: SessionState | None) -> bool:
        """Whether `sentence` names a kind of option (a cuisine) other than the one the option in
        view is: asking for it is asking for another option, not about this one."""
        option = state.option_in_view if state is not None else None
        if option is None:
            return False
        for key in self.schema.kinds_of_option():
            spec = self.schema.keys.get(key)
            kind = option.about.get(key)
            if spec is None or spec.multi or not isinstance(kind, str):
                continue
            if any(value != kind and value_said(value, spec, sentence) for value in spec.values):
                return True
        return False

    def _cancels_what_was_just_done(self, key: str, utterance: str, state: SessionState | None) -> bool:
        """"Cancel it", 不去了，取消吧, said right after a control was carried out, refers to what it
        was done with, though it names nothing."""
        action = control_just_carried_out(self.schema, state)
        pattern = BARE_CANCEL.get(language_of(utterance))
        primary = self.schema.primary_action()
        # ("forget all of it": the task's own as well)
        everything = primary is not None and key in primary.needs and bool(
            EVERYTHING.search(utterance))
        return action is not None and (key in action.needs or everything) and pattern is not None \
            and bool(pattern.match(utterance))

    def _said_as_where_to(self, op: Operation, spec: KeySpec, said: str) -> bool:
        """A stop named as the place it is on the way to names one ("先回趟家": a stop at 家里, the
        word the destination key says home with): any of that value's words was said."""
        if not spec.on_the_way_to:
            return False
        going = self.schema.key(spec.on_the_way_to)
        return any(str(op.value) in words and any(contains(said, normalised(w)) for w in words)
                   for by_lang in going.values.values() for words in by_lang.values())

    @staticmethod
    def _asked_as_itself(spec: KeySpec, value: object, said: str) -> bool:
        """Whether one of the words of `value` said in `said` is itself a question ("where is my
        order", 到哪了: to have the order traced)."""
        words = [w for by_lang in spec.values.get(str(value), {}).values() for w in by_lang]
        return any(_ASKS_WHERE.search(w) and contains(said, normalised(w)) for w in words)

    def _ground(self, op: Operation, utterance: str, state: SessionState | None,
                question_spans: list[tuple[int, int]],
                query_spans: list[tuple[int, int]]) -> tuple[Operation | None, str]:
        said = normalised(utterance)
        words = op.words.strip()
        if op.op == Op.WITHDRAW and self._cancels_what_was_just_done(op.key, utterance, state):
            return op, ""
        if op.source in (OpSource.RELATIVE, OpSource.CATALOGUE):
            # Computed by the rules from the value held and the change said ("two more people"), or
            # from the catalogue's name for what was said (Green Table → 绿桌素食).
            if not words or not contains(said, normalised(words)):
                return None, f"its words {words!r} are not in the utterance"
            if _inside(utterance, words, question_spans):
                return None, "a question never sets a value"
            if op.source == OpSource.CATALOGUE and _inside(utterance, words, query_spans):
                return None, "a question about an option ('where is it?') talks about it; it does not choose it"
            return op, ""
        if words and not contains(said, normalised(words)):
            if op.source == OpSource.RULES:
                return None, f"its words {words!r} are not in the utterance"
            words = ""      # a model's paraphrase: find the words again from the value below
        if op.op == Op.SET_GOAL:
            if question_spans and all(_inside(utterance, w, question_spans) for w in [words or utterance]):
                return None, "a question never sets the goal"
            if op.source != OpSource.RULES and state is not None and state.goal:
                return None, "the goal is set; a model may not rewrite it (the user names a new task in words)"
            return op, ""
        spec = self.schema.key(op.key)
        if op.op == Op.SET and op.value is not None and not words:
            words = _clause_with(utterance, op.value, spec)
        # (A code said in a question is the user's own, "where is my order 90211?"; not one asked
        # about as someone else's, "is their phone number 415 555 0199?".)
        # ("How do I get to Union Square?": a question that asks for the value to be set.)
        asked_for = op.op == Op.SET and any(contains(said, normalised(w)) for ws in spec.asked_for_by.values()
                                            for w in ws)
        code_given = op.op == Op.SET and spec.reader == Reader.IDENTIFIER and not (
            state is not None and state.find(op.key)) and not _SOMEONE_ELSES.search(words or utterance)
        if _inside(utterance, words or utterance, question_spans) and not code_given \
                and not (op.op == Op.SET and not (state is not None and state.find(op.key))
                         and self._asked_as_itself(spec, op.value, said)) \
                and not asked_for:
            # (But see `code_given`; and a value whose own words ask, "where is my order", 到哪了,
            # is asked for so while the key holds nothing.)
            return None, "a question never sets a value"
        if op.op == Op.WITHDRAW and words and _inside(utterance, words, query_spans):
            return None, f"a question about the world ('取消订位的话要提前多久') talks about {op.key}; it keeps it"
        if op.op == Op.SET and spec.reader == Reader.FREE_TEXT and _inside(utterance, words or utterance, [
                (start, end) for start, end in query_spans if _ASKED_OUTRIGHT.search(utterance[start:end].strip())]):
            return None, "a question about the world ('有哪些烤鸭店可以选？') asks; it is no wish"
        if op.op == Op.SET and spec.type in ("enum", "bool") and _inside(utterance, words or utterance, query_spans) \
                and not asked_for:
            return None, f"a question about the world ('what happens if…') talks about {op.key}; it does not set it"
        if op.op == Op.SET:
            if op.value is None or not (value_said(op.value, spec, utterance) or self._from_state(op, state)
                                        or self._said_as_where_to(op, spec, said)
                                        or _part_said(op, state, said) or _head_answers(op, spec, state, utterance)):
                return None, f"{op.key} = {op.value!r} was not said"
            if not value_fits(op.value, spec):
                return None, f"{op.key} = {op.value!r} is not a {spec.type}"
            if op.source == OpSource.LLM and spec.type == "enum" and spec.values and str(op.value) not in spec.values \
                    and spec.reader == Reader.NONE and not (spec.open_value or spec.open_value_nouns
                                                            or spec.open_value_verbs):
                # (我要出发了，规划个路线吧: no route preference called 出发; a key that lists its values
                # and reads no others takes one of them)
                return None, f"{op.key} = {op.value!r} is none of the values it lists"
            if _asked_how(op.value, spec, utterance):
                return None, f"'how …' asks about {op.key}; it does not set it"
            asked = state.asked_key if state is not None else ""
            if spec.type == "date" and op.value == "today" and not self._about_the_task(utterance, words) \
                    and not (op.key == asked and _only_the_value(utterance, words)):
                # ("What day?" "Today.", 就今天: the answer to the question, had been asked again and
                # again; "今天好累啊" just after it is still small talk.)
                return None, "a bare 'today' in small talk ('I'm tired today') is not a date for the task"
        # A key the schema does not know, written for the first time, is named after what
        # the user said ("occasion = birthday"): the said value is its reference.
        new_open_key = (op.op == Op.SET and not self.schema.knows(op.key)
                        and not (state is not None and state.find(op.key)))
        # A reference was resolved against the state: its slot is the one holding what was named.
        resolved = op.source == OpSource.REFERENCE and (self._from_state(op, state) or self._names_old_value(op, state))
        if (op.source != OpSource.RULES or op.op == Op.WITHDRAW) and not new_open_key and not resolved:
            # (The stops go with the route given up: "cancel the navigation" names the route.)
            with_its_place = op.op == Op.WITHDRAW and bool(spec.on_the_way_to) \
                and self.refers_to(spec.on_the_way_to, utterance, state)
            # (…and a stop goes with its errand called off: "no need to pick her up" after "pick up my
            # colleague at Union Square")
            with_its_errand = op.op == Op.WITHDRAW and state is not None and any(
                errand_in(m.group("v"), c.words) for m in ERRAND_CALLED_OFF[language_of(utterance)].finditer(utterance)
                for c in state.find(op.key) if c.value == op.value)
            if not self.refers_to(op.key, utterance, state) and not self._read_by_type(op, utterance) \
                    and not with_its_place and not with_its_errand:
                action = "withdraws" if op.op == Op.WITHDRAW else "writes"
                return None, f"it {action} {op.key}, which the turn does not refer to"
        if op.op == Op.WITHDRAW and op.source == OpSource.LLM and not _WITHDRAWING.search(utterance):
            # "我想想，联系方式是多少来着？" names the key and takes nothing back: a model may read a
            # withdrawal only where the user said one (a no, a never mind, 不用, 算了).
            return None, f"it withdraws {op.key}, but nothing in the turn takes it back"
        return (replace(op, words=words) if words != op.words else op), ""

    def _names_old_value(self, op: Operation, state: SessionState | None) -> bool:
        """"From six to nine": the reference's words name the value the slot holds now."""
        spec = self.schema.key(op.key)
        return state is not None and any(names_value(c.value, spec, op.words) for c in state.find(op.key))

    def _about_the_task(self, utterance: str, words: str) -> bool:
        """Whether the clause around `words` is about the task: it names a goal word or a key."""
        at = utterance.find(words) if words else -1
        clause = clause_of(utterance, (at, at + len(words))) if at >= 0 else utterance
        said = normalised(clause)
        goal_words = [w for ws in self.schema.goal_words.values() for w in ws]
        if any(contains(said, normalised(w)) for w in goal_words):
            return True
        rest = clause.replace(words, " ") if words else clause
        if find_en_times(rest) or find_zh_times(rest):
            return True       # "今晚七点": the day of a time said with it
        # (今天晚上, "tonight, in the evening": a part of the day says nothing more than the day.)
        if words and not re.sub(r"[\W_]+", "", _DAY_PART.sub(" ", rest)) and clause != utterance:
            # "订个位子，今晚，三个人": the day said as a clause of its own, in a turn about the task.
            return self._about_the_task(utterance, "")
        return any(self.names_key(key, rest) for key in self.schema.keys)

    @staticmethod
    def _from_state(op: Operation, state: SessionState | None) -> bool:
        """A value a reference took from the state: the slot's earlier value, or an offered option's."""
        if op.source != OpSource.REFERENCE or state is None:
            return False
        if any(slot.split(":")[0] == op.key and value == op.value for slot, value in state.previous.items()):
            return True
        return any(option.values.get(op.key) == op.value for option in state.offered)

    def _read_by_type(self, op: Operation, utterance: str) -> bool:
        """A time or date said for the only key of that type refers to that key."""
        spec = self.schema.key(op.key)
        if spec.type not in ("time", "date") or op.op != Op.SET:
            return False
        same_type = [s for s in self.schema.keys.values() if s.type == spec.type]
        if len(same_type) != 1:
            return False
        if spec.type == "date":
            return str(op.value) in _dates(utterance)
        # A clock time said ("八点") in the half of the day the value is in ("20:00").
        cued = {t[0] for t in find_en_times(utterance) + find_zh_times(utterance)}   # "at 8", 八点; not "8 of us"
        return any(t[3:] == str(op.value)[3:] and int(t[:2]) % 12 == int(str(op.value)[:2]) % 12
                   for t in cued if re.fullmatch(r"\d\d:\d\d", str(op.value)))


_CLAUSE = re.compile(r"[^,;，；、]+[,;，；、]?")
_DAY_PART = re.compile(r"\b(?:in the |at )?(?:evening|night|morning|afternoon|lunch ?time|dinner ?time)\b|"
                       r"晚上|中午|早上|上午|下午|傍晚|夜里", re.IGNORECASE)
# What an answer may say besides its value ("just today, please", 就今天吧).
_ANSWER_FILLER = re.compile(r"[\s,.;:!?，。；：！？、…]+|\b(?:just|please|then|ok(?:ay)?|how about|what about|"
                            r"let'?s (?:do|say|go with)|make it|for|on|it'?s|is|yes|yeah|sure|maybe|probably|"
                            r"if (?:possible|you can|that works|it'?s possible)|"
                            r"(?:would|will) (?:be )?(?:great|good|fine)|"
                            r"(?:works|is fine|is good) (?:for (?:me|us))?|i (?:guess|think)|"
                            r"(?:in the )?(?:morning|afternoon|evening)|at night|lunch|dinner)\b"
                            # (今天晚上 to "what day?": the day, with its half of the day)
                            r"|[就吧啊呀呢了嗯哦好的是定订那]|晚上|中午|下午|上午|早上|傍晚|晚饭|午饭", re.IGNORECASE)


def _only_the_value(utterance: str, words: str) -> bool:
    """Whether the clause that says `words` says nothing else ("Today, please.", 就今天吧): an
    answer, not a remark that mentions the value ("今天好累啊")."""
    at = utterance.find(words) if words else -1
    if at < 0:
        return False
    clause = clause_of(utterance, (at, at + len(words)))
    return not _ANSWER_FILLER.sub("", clause.replace(words, " ")).strip()


# A sentence asked outright: a question mark, a closing question particle, or which ones there are
# (有哪些烤鸭店可以选); "希望有人解释一下怎么回事" is a wish with a question word inside.
_ASKED_OUTRIGHT = re.compile(r"[?？]$|[吗呢]\W*$|^(?:有)?(?:哪些|什么|哪)")


def _head_answers(op: Operation, spec: KeySpec, state: SessionState | None, utterance: str) -> bool:
    """Whether, asked which of the key's values, the user said the head of one of the value's
    Chinese words (能取消吗 to 退款、换货……还是取消订单: 取消)."""
    if state is None or op.key != state.asked_key or spec.type != "enum":
        return False
    return any(head in utterance for head in value_heads_zh(spec, str(op.value)))


def _question_spans(utterance: str, asks: Callable[[str], bool] = lambda _: True) -> list[tuple[int, int]]:
    """Where the utterance asks: each clause that is a question ("我妈妈坐轮椅，你们那边方便吗？"
    asks only in its second clause), and in English a whole sentence that opens as one
    ("What temperature do I like, 22?"); only those `asks` keeps (a sentence that asks for an
    option, "any Italian places?", asks for the kind it names)."""
    spans: list[tuple[int, int]] = []
    for start, sentence in sentences_with_offsets(utterance):
        if not asks(sentence):
            continue
        english = language_of(sentence) == "en"
        if english and asks_for_information(sentence):
            spans.append((start, start + len(sentence)))
            continue
        # "Yes what is the address and do they have live music?": the part after "and" asks.
        parts = re.split(r"(,|;|\s(?:and|but|or)\s)", sentence) if english else None
        if parts is not None:
            at = start
            for part in parts:
                if asks_for_information(part) and asks(part):
                    spans.append((at, at + len(part)))
                at += len(part)
            continue
        for m in _CLAUSE.finditer(sentence):
            if asks_for_information(m.group(0)) and asks(m.group(0)):
                spans.append((start + m.start(), start + m.end()))
    return spans


def _asked_how(value: Any, spec: KeySpec, utterance: str) -> bool:
    """"How expensive is it?", "how spicy are the dishes?", 有多贵: the value's word asked about."""
    words = [str(value)] + [w for by_lang in spec.values.get(str(value), {}).values() for w in by_lang]
    said = normalised(utterance)
    return any(contains(said, "how " + normalised(w)) or ("多" + w) in utterance for w in words if w)


def _query_spans(utterance: str, asks: Callable[[str], bool] = lambda _: True) -> list[tuple[int, int]]:
    return [(start, start + len(sentence)) for start, sentence in sentences_with_offsets(utterance)
            if is_query(sentence) and asks(sentence)]


def _part_said(op: Operation, state: SessionState | None, said: str) -> bool:
    """A value held with a part put right ("not Maple Street, it's Maple Avenue"): the new part
    (what differs from the value held) was said."""
    if op.reason == DIGITS_PUT_RIGHT and state is not None:
        # ("the last digit is 3, not 2": the digits that differ were said, as digits or words; "the second
        # letter is P": the letter, on its own.)
        new = str(op.value)
        return any(len(old := str(c.value)) == len(new) and all(
            d in digits_in(said) if d.isdigit() else re.search(r"(?<![A-Za-z])" + re.escape(d) + r"(?![A-Za-z])",
                                                                said, re.IGNORECASE) is not None
            for d, was in zip(new, old, strict=True) if d != was) for c in state.find(op.key))
    if op.reason != PART_PUT_RIGHT or state is None:
        return False
    new = str(op.value)
    for condition in state.find(op.key):
        old = str(condition.value)
        head = len(os.path.commonprefix([old, new]))
        tail = len(os.path.commonprefix([old[head:][::-1], new[head:][::-1]]))
        while head > 0 and new[head - 1].isdigit():
            head -= 1            # (the whole number: 27号 → 29号 says "29", not "9")
        while tail > 0 and new[len(new) - tail].isdigit():
            tail -= 1
        part = new[head:len(new) - tail]
        if part.strip() and contains(said, normalised(part)):
            return True
    return False


_SOMEONE_ELSES = re.compile(r"\b(?:their|his|her|its|the restaurant'?s|the shop'?s|the store'?s)\b|"
                            r"他们的|她的|他的|店的|餐厅的", re.IGNORECASE)
_ASKS_WHERE = re.compile(r"\bwhere\b|哪", re.IGNORECASE)


def _inside(utterance: str, words: str, spans: list[tuple[int, int]]) -> bool:
    if not spans:
        return False
    at = utterance.lower().find(words.lower()) if words else -1
    if at < 0:      # words not found: a question only if the whole utterance asks
        return sum(end - start for start, end in spans) >= 0.9 * len(utterance.strip())
    # ("but is it romantic?": the word that joins the question on is not outside it.)
    lead = re.match(r"\s*(?:and|but|or|so|though|然后|但是|不过|可是)\s*", utterance[at:], re.IGNORECASE)
    at += lead.end() if lead else 0
    return any(start <= at < end for start, end in spans)


def _clause_with(utterance: str, value: Any, spec: KeySpec) -> str:
    """The user's words for a value a model wrote without them: the sentence that says it."""
    for _start, sentence in sentences_with_offsets(utterance):
        if value_said(value, spec, sentence):
            return sentence.strip()
    return utterance.strip()


def ground_proposal(extracted: Sequence[Operation], agent_text: str, state: SessionState, schema: DomainSchema,
                    offered: Sequence[OfferedOption] = ()) -> tuple[list[Operation], list[Rejected]]:
    """The values in the agent's reply a later "yes" may confirm.

    Kept: values the state already holds (a read-back) and offered options the reply
    names. Dropped: anything else the reply model said, for it is not the user's wish.
    """
    text = normalised(agent_text)
    offered_pairs = {(key, _comparable(value)) for option in offered for key, value in option.values.items()}
    held = {(c.key, _comparable(c.value)) for c in state.constraints.values()}
    kept: list[Operation] = []
    rejected: list[Rejected] = []
    seen: set[tuple[str, str]] = set()
    for op in extracted:
        if op.op != Op.SET:
            continue
        pair = (op.key, _comparable(op.value))
        if pair in held or pair in offered_pairs:
            if pair not in seen:
                kept.append(op)
                seen.add(pair)
        else:
            rejected.append(Rejected(op, f"the reply named {op.key} = {op.value!r}, which neither the "
                                                   "user nor the offered options gave"))
    for option in offered:
        for key, value in option.values.items():
            pair = (key, _comparable(value))
            if pair in seen or value in (None, "") or not contains(text, normalised(str(value))):
                continue
            kept.append(Operation(Op.SET, key, value=value, words=str(value), source=OpSource.AGENT_PROPOSAL,
                                  reason="the agent offered it"))
            seen.add(pair)
    # Two values for one single-valued key ("Sakura or Green Table?"): a yes cannot say which;
    # but the value held and one offered instead ("Sakura doesn't fit that; Green Table would"):
    # the yes takes the one offered.
    named: dict[str, int] = {}
    for item in kept:
        named[item.key] = named.get(item.key, 0) + 1
    ambiguous = {key for key, count in named.items() if count > 1 and not schema.key(key).multi}
    instead = {key for key in ambiguous
               if sum(1 for item in kept if item.key == key and (key, _comparable(item.value)) not in held) == 1}
    return [item for item in kept if item.key not in ambiguous
            or (item.key in instead and (item.key, _comparable(item.value)) not in held)], rejected


def _comparable(value: Any) -> str:
    return normalised(str(value))
