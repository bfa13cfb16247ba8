"""Turn classifier (seed 000 §3.1): information change, confirmation or chit-chat.

Only the first two need the monologue; chit-chat is answered from the current
state. Rules first, in English and Chinese: they are instant and predictable. The
language's cue words come from `memory/language/cues.py`, the domain's from its YAML
(`turn_cues:`).

It runs on the same schema as the extractor: a turn the domain's rules read a value from
is never chit-chat, and a number or a day counts as a cue only through them ("it's 30
degrees outside today" names no slot's value).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from monologue.memory.domain.schema import ActionSpec, DomainSchema
from monologue.memory.language.cues import (
    A_NUMBER_ALONE,
    CHANGE_CUES_ZH,
    CHANGE_VERBS,
    CHANGE_WORDS_EN,
    CONFIRM_ONLY_ZH,
    CONFIRM_START_EN,
    GO_AHEAD,
    LEFT_TO_YOU,
    NEGATED_WORD_EN,
    NUMBER_MENTION_EN,
    NUMBER_MENTION_ZH,
    REPEAT_COMMAND,
    VALUE_CUES_ZH,
    VALUE_WORDS_EN,
    cue_pattern,
    language_of,
)
from monologue.memory.language.memory_cues import MEMORY_FORGET_ABOUT, is_memory_command
from monologue.memory.language.stances import WH_QUESTION_EN, WH_QUESTION_ZH, sentences_with_offsets
from monologue.memory.working.readers import controls_unnamed


class TurnClass(StrEnum):
    INFORMATION_CHANGE = "information_change"
    CONFIRMATION = "confirmation"
    CHIT_CHAT = "chit_chat"
    # "Mm-hm" over the agent's reply: it only paused the agent. The barge-in stage sets it;
    # `classify_turn` never returns it.
    BACKCHANNEL = "backchannel"

    @property
    def triggers_monologue(self) -> bool:
        return self not in (TurnClass.CHIT_CHAT, TurnClass.BACKCHANNEL)


@dataclass(frozen=True)
class TurnClassification:
    turn_class: TurnClass
    cues: tuple[str, ...]


_MAX_CONFIRM_WORDS = 10


@dataclass(frozen=True)
class TurnCues:
    """The change cues of one domain: the language's generic words plus the domain's own."""

    en: re.Pattern[str]
    zh: re.Pattern[str]


@lru_cache(maxsize=32)
def _cues(en_words: tuple[str, ...], zh_words: tuple[str, ...], values: bool) -> TurnCues:
    en = CHANGE_WORDS_EN + (VALUE_WORDS_EN if values else ()) + en_words
    zh = CHANGE_CUES_ZH + (VALUE_CUES_ZH if values else ()) + tuple(re.escape(w) for w in zh_words)
    return TurnCues(re.compile(cue_pattern(en, spaced=True)), re.compile("|".join(zh)))


def turn_cues(schema: DomainSchema | None = None, *, values: bool = True) -> TurnCues:
    """The cues for `schema`'s domain (generic cues alone without one). `values`: count the
    words that are values themselves (days, times of day) as cues, for a caller without rules."""
    if schema is None:
        return _cues((), (), values)
    return _cues(schema.turn_cues.get("en", ()), schema.turn_cues.get("zh", ()), values)


def names_the_task(text: str, schema: DomainSchema | None) -> bool:
    """Whether the turn says one of the domain's goal words of more than one character (设置导航,
    "I need directions"; 去 alone goes too many places to start a task)."""
    if schema is None:
        return False
    words = [w for lang in ("en", "zh") for w in schema.goal_words.get(lang, ()) if len(w) > 1]
    return _says_any(text.lower(), words)


class CallOff(StrEnum):
    """How a turn calls a task off: not at all, as not needed any more, or by cancelling it."""

    NONE = ""
    DROP = "drop"        # "forget it, I'll cook at home", 算了，不订了, 不用了: not needed (any more)
    CANCEL = "cancel"    # "cancel that", 帮我把工单取消吧: undo it, even once it is done


def calls_off(text: str, action: ActionSpec) -> CallOff:
    """Whether and how the turn calls `action`'s task off. Only for a task whose YAML says how
    it is called off (`called_off:`). Once the task is done only a cancel undoes it: "不用了，谢谢"
    to "anything else?" drops nothing.

    Nothing is called off by a cancel of something else ("cancel my order" is a customer's
    request), a refused or past one ("I don't want to cancel it", 千万别取消, 订单被取消了), or a
    question ("what happens if I cancel it?", 取消预订要扣钱吗) unless it asks the agent to do it
    ("can you cancel the booking?", 能帮我取消吗)."""
    if not action.task_nouns:
        return CallOff.NONE
    return _calls_off(text.strip().lower(), tuple(w.lower() for w in action.task_nouns.get("en", ())),
                      tuple(action.task_nouns.get("zh", ())), tuple(w.lower() for w in action.task_verbs.get("en", ())),
                      tuple(action.task_verbs.get("zh", ())))


# Said before a cancel in its clause, these keep it from calling anything off: a refusal ("I don't
# want to cancel", 我不想取消, 千万别), a report (被取消了, 已经取消) or a condition ("what if I cancel").
# ("Never mind, cancel that" calls it off: never mind is no refusal.)
_CANCEL_KEPT_EN = re.compile(r"\b(?:not|never(?! mind)|don'?t|doesn'?t|didn'?t|won'?t|no need to|if|whether|when|why|"
                             r"what|how|should|would|will)\b[^,.;!?]*$")
_CANCEL_KEPT_ZH = re.compile(r"[不别没被已]|如果|要是|会不会|为什么|怎么|千万")
_QUESTION_END = re.compile(r"[?？]\s*$|[吗呢么]\W*$")
# A drop said just after the user's own question, of "that" or "it" (or bare): the question's thing.
# ("are you there? we don't need it anymore" is the task's: any more, after all.)
_OF_THE_QUESTION = re.compile(r"\b(?:that|it|this|one)\b|never ?mind$|不用了|没事", re.IGNORECASE)
_OF_IT_ALL = re.compile(r"\b(?:this|it|that|them)\W*$|^\W*(?:are you there|hello)\b", re.IGNORECASE)
_ANY_MORE = re.compile(r"\b(?:any ?more|after all|at all)\b|不用了?再|都不", re.IGNORECASE)
# A question that asks the agent to do it ("can you cancel it?", 能帮我取消吗) is a request.
# ("oh shoot, we can't make it, can you cancel that": asked in its own clause.)
_ASKS_THE_AGENT = re.compile(r"^\W*(?:(?:so|and|then|actually|just|oh|hey|ok(?:ay)?)\W+)*"
                             r"(?:(?:can|could|would|will) you|"
                             r"please)\b|帮我|给我|麻烦你?")


@lru_cache(maxsize=512)
def _calls_off(lowered: str, nouns_en: tuple[str, ...], nouns_zh: tuple[str, ...], verbs_en: tuple[str, ...],
               verbs_zh: tuple[str, ...]) -> CallOff:
    cancels, drops = _called_off_patterns(nouns_en, nouns_zh, verbs_en, verbs_zh)
    found = CallOff.NONE
    after_a_question = False
    for at, sentence in sentences_with_offsets(lowered):
        asked = _QUESTION_END.search(sentence) or (WH_QUESTION_ZH.search(sentence) if language_of(sentence) == "zh"
                                                   else WH_QUESTION_EN.search(sentence))
        # ("do we even need this? forget it, we don't need that": a question of the task itself.)
        follows_a_question, after_a_question = after_a_question, bool(
            asked or lowered[at + len(sentence):at + len(sentence) + 1] in ("?", "？")) \
            and not _OF_IT_ALL.search(sentence)
        for how, patterns in ((CallOff.CANCEL, cancels), (CallOff.DROP, drops)):
            for m in (m for pattern in patterns for m in pattern.finditer(sentence)):
                if how == CallOff.DROP and follows_a_question and _OF_THE_QUESTION.search(m.group()) \
                        and not _ANY_MORE.search(m.group()):
                    continue    # "is there a kids menu? never mind, we don't need that": the question's thing
                clause_start = max(sentence.rfind(mark, 0, m.start()) for mark in ",，.。;；!！") + 1
                before = sentence[clause_start:m.start()]
                if asked and not _ASKS_THE_AGENT.search(sentence[clause_start:m.end()]):
                    # ("你们取消预订要扣钱吗", "I might need to cancel, and can you text me…?": not asked for)
                    continue
                # (要不 is "how about": 要不就不订了吧 calls it off; 要不要取消 still weighs it.)
                kept = _CANCEL_KEPT_ZH.search(re.sub(r"要不(?!要)", "", before)) if language_of(m.group()) == "zh" \
                    else _CANCEL_KEPT_EN.search(before)
                if not kept or m.group().startswith(("don", "do not", "no longer", "won")):
                    if how == CallOff.CANCEL:
                        return how
                    found = how
    return found


@lru_cache(maxsize=16)
def _called_off_patterns(nouns_en: tuple[str, ...], nouns_zh: tuple[str, ...], verbs_en: tuple[str, ...],
                         verbs_zh: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]]:
    """(The ways of cancelling it; the ways of saying it is not needed.)"""
    def any_of(words: tuple[str, ...]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"
    noun_en, noun_zh, verb_en, verb_zh = any_of(nouns_en), any_of(nouns_zh), any_of(verbs_en), any_of(verbs_zh)
    clause_end = r"(?:\s+(?:any ?more|after all|at all|please|then))*\s*(?:[,.!;?]|$)"
    undo_zh = r"(?:取消|撤销|撤回|撤掉)"
    cancels = (
        # ("let's cancel the whole thing, plans changed")
        re.compile(r"\b(?:cancel|call off|scrap)\s+(?:the|my|our|this|that)\s+(?:whole\s+)?(?:" + noun_en
                   + r")\b|\b(?:cancel|call off|scrap)\s+the\s+whole\s+(?:thing|lot)\b"),
        # (…or before the next clause, unpunctuated as the ASR writes it: "cancel that we're gonna stay in")
        re.compile(r"\b(?:cancel|call off|scrap)\s+(?:it|that|this|them|everything)(?:" + clause_end
                   + r"|\s+(?=(?:we|i|we'?re|i'?m|we'?ll|i'?ll|they|something came up)\b))"),
        re.compile(r"\b(?:cancel|call it off)" + clause_end),
        # ("forget about the boots, I'll just keep them": the thing kept, the request for it undone too)
        re.compile(r"\b(?:forget|never ?mind)(?: about)? (?:it|them|the \w+)\b.*\b(?:i'?ll|we'?ll|i will|we will|"
                   r"i'?m (?:gonna|going to)) (?:just )?keep (?:it|them)\s*(?:[,.!;]|$)"),
        re.compile(undo_zh + r"掉?(?:" + noun_zh + r"|这个|那个|它|吧|掉|一下|吗|[。！!，,？?]|$)|"
                   r"把(?:" + noun_zh + r"|这个|那个|它)?(?:[\u4e00-\u9fff]{0,2}(?:工单|订单|订位))?"
                   r"(?:取消|撤销|撤回|撤)(?:了|掉|吧)"),
    )
    drops = (
        # "we don't need the table any more", "I don't want to book after all": the object ends the
        # clause ("I don't want a table outside" asks for another table).
        re.compile(r"\b(?:don'?t|do not|no longer|won'?t)\s+(?:need|want|be needing)\s+(?:it|that|(?:the|an?)\s+(?:"
                   + noun_en + r")|one|to (?:" + verb_en + r"))" + clause_end),
        re.compile(r"\b(?:forget (?:it|about it|all of it|all that|everything|the (?:" + noun_en + r"))|"
                   r"never ?mind(?: it| about it| the (?:" + noun_en + r"))?)"
                   r"\b.*\b(?:i'?ll|we'?ll|i will|we will|i'?m not|we'?re not|not going|i'?d rather|"
                   r"i just|we just|myself|ourselves|(?:i|we)(?:'?re|'?m| are| am)? (?:just |gonna |going to ))"),
        re.compile(r"\bnot (?:going|coming) (?:any ?more|after all)\b"),
        # 算了，不订了, 我们就不去了 (not 海底捞不去了, a place turned down; nor 辣的就不吃了)
        re.compile(r"(?:^|[，,。！!\s]|算了|那就|就|我们|我|还是|先)(?:不|别|不用|不要|不想)再?(?:" + verb_zh + r")了"),
        re.compile(r"^(?:算了)?[，,\s]*(?:不用了|不需要了)(?:[，,\s]*谢谢(?:你|啦)?)?[。！!]?$"),
        # 算了，我自己打电话订吧; 嗯没事了，不用处理了: done some other way, or not needed
        re.compile(r"算了.{0,12}(?:我自己|我们自己|自己来|自己去|我再等等|再说吧)|没事了|不用(?:处理|办|弄|管|帮我)了"),
    )
    return cancels, drops


def _forgets_a_task_key(text: str, schema: DomainSchema | None) -> bool:
    """Whether "forget what I said about …" names one of the domain's keys or listed values."""
    found = MEMORY_FORGET_ABOUT.search(text)
    if schema is None or found is None:
        return False
    topic = next((v for v in found.groupdict().values() if v), "").lower()
    words = [alias for lang in ("en", "zh") for alias, _key in schema.alias_lexicon(lang)]
    words += [word for lang in ("en", "zh") for word, _key, _value in schema.enum_lexicon(lang)]
    return _says_any(topic, [w for w in words if len(w) > 1])


def _says_any(lowered: str, words: list[str]) -> bool:
    """Whether `lowered` says one of `words`: whole English words, Chinese anywhere."""
    return any(re.search(r"(?<!\w)" + re.escape(w.lower()) + r"(?!\w)", lowered) if w.isascii() else w in lowered
               for w in words)


# The speaker's own doing ("我先关了", "I turned off my phone", "my kids opened the presents"): no command.
_TELLS_OF_ONESELF = re.compile(r"(?<!帮)(?<!给)(?<!让)我(?!们?的车)|\b(?:i|i'm|i've|my|we|our)\b", re.IGNORECASE)


def classify_turn(text: str, reads_condition: Callable[[str], bool] | None = None, *,
                  schema: DomainSchema | None = None) -> TurnClassification:
    """Classify one user utterance; empty text is chit-chat (nothing to remember).

    `reads_condition`: the domain's rule extractor; an utterance it can read a condition
    from is an information change whatever its wording ("And nothing spicy").
    `schema`: the domain whose own words are change cues too ("table", "route").
    """
    stripped = text.strip()
    if not stripped:
        return TurnClassification(TurnClass.CHIT_CHAT, ())
    if is_memory_command(stripped) and not _forgets_a_task_key(stripped, schema):
        # "Forget what I said about my address": long-term memory's business, not the task's
        # (its "forget" is not a change to what the user wants now). "Forget what I said about
        # the seating" names the task's own key: a withdrawal, read as any other.
        return TurnClassification(TurnClass.CHIT_CHAT, ("memory command",))
    has_rules = reads_condition is not None
    cues_of_domain = turn_cues(schema, values=not has_rules)
    lowered = stripped.lower()
    cues: list[str] = [m.group(0) for m in NEGATED_WORD_EN.finditer(lowered)][:2]
    cues += [m.group(0) for m in cues_of_domain.en.finditer(lowered)][:4]
    cues += [m.group(0) for m in cues_of_domain.zh.finditer(stripped)][:4]
    if reads_condition is not None and reads_condition(stripped):
        # A value for a slot: never chit-chat, whatever else the turn says ("Sure, 21 degrees").
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("rules read a condition",))
    if not has_rules and (NUMBER_MENTION_EN.search(lowered) or NUMBER_MENTION_ZH.search(stripped)):
        cues.append("number")
    named = [m.group(0) for pattern in (cues_of_domain.en, cues_of_domain.zh) for m in pattern.finditer(lowered)]
    bare = re.sub(r"[\W_]+|\b(?:the|a|an|my|please|just|um|uh)\b", "", lowered)
    if named and bare and sum(len(re.sub(r"\W+", "", n)) for n in named) >= len(bare):
        # Only the domain's words ("the fan", 车窗): the answer to "which one?", or a thing the
        # task is about, named on its own.
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("the domain's words alone",))
    if schema is not None and not _TELLS_OF_ONESELF.search(stripped) \
            and controls_unnamed(schema, stripped, language_of(stripped)):
        # "还是关上吧", "turn it off" with no control named: the one just commanded, if any (the
        # state knows), else which one is asked.
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("a control's verb",))
    if LEFT_TO_YOU.search(stripped):
        # "Up to you", 你看着办: the agent picks what it just asked for, where it has a pick.
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("left to the agent",))
    if A_NUMBER_ALONE.fullmatch(stripped):
        # "8", "four please", 二十二度, 七点吧: the answer to the question just asked (the state knows which).
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("a number said alone",))
    if REPEAT_COMMAND.search(stripped):
        # "A bit more", 再来一点: the last command again, if there was one (the state knows).
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("a command said again",))
    # A lone weak cue ("I like the weather") is not enough; two cues or a change verb are.
    changes = len(cues) >= 2 or any(c in CHANGE_VERBS for c in cues)
    short = len(lowered.split()) <= _MAX_CONFIRM_WORDS
    if not changes and ((CONFIRM_START_EN.match(lowered) and short) or CONFIRM_ONLY_ZH.match(stripped)):
        return TurnClassification(TurnClass.CONFIRMATION, ("confirmation phrase",))
    if not changes and short and len(stripped) <= 24 and GO_AHEAD.search(stripped):
        # "好的，帮我订了吧", "ok go ahead and book it": a go-ahead with what was offered, not small talk.
        return TurnClassification(TurnClass.CONFIRMATION, ("a go-ahead",))
    if changes:
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues))
    if names_the_task(stripped, schema):
        # A word that names the task starts it (设置一下导航, "I need directions"); after a yes
        # ("Yes, take me there") it confirms, above.
        return TurnClassification(TurnClass.INFORMATION_CHANGE, tuple(cues) + ("the task named",))
    return TurnClassification(TurnClass.CHIT_CHAT, tuple(cues))
