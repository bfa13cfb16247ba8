"""Questions about the task's own state, read from the domain's declarations.

"For how many was it?", "where are we headed again?", 几点来着？, "give me a quick recap",
"what happens next?": the user asks what the agent holds, and the answer is in the state,
not in the model. What a question is about is found, in order of evidence:

1. a key's own words: its label, its aliases and its listed values ("the seating", 人数);
2. the kind of thing the question word asks for, matched to the keys' declared types and
   readers ("how many" → a count, "when" → a time or a date, 去哪 → a place);
3. the multilingual sentence encoder, against each key's label in both languages, for
   phrasings neither of the above reaches (optional: without an encoder, 1 and 2 decide).

A yes/no question that checks a value ("is the booking for four people?", "did I say
seven?", 是周五还是周六来着？) is about the keys whose values it says, read by the same rules
that read values into the state; its `checks` let the answer begin with a yes or a no.

A summary or "what next" is a kind of its own. Nothing here names a domain or a key.
A plain library: no frames, no audio, no pipecat.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

import numpy as np

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import PAST_CUES, cue_pattern, language_of
from monologue.memory.language.normalise import normalised
from monologue.memory.language.stances import (
    ABOUT_THE_USER_EN,
    ABOUT_THE_USER_ZH,
    CHANGE_REQUEST_EN,
    LEAD_IN_EN,
    REQUEST_QUESTION_EN,
    YES_NO_QUESTION_EN,
    YES_NO_QUESTION_ZH,
    asks_for_one,
    sentences_with_offsets,
)
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.grounding import numbers_said
from monologue.memory.working.state import Op, OpSource, SessionState

Embed = Callable[[list[str]], np.ndarray]
Kind = Literal["slot", "summary", "next", "record", "done"]

# A sentence that asks: a question mark, a question word anywhere ("for how many was it"),
# or a Chinese question particle. Requests phrased as questions are left to the task.
# In English a question mark alone is not enough ("any good places on the way?" asks the world): a
# question word, a tag ("Friday, right?"), or a yes/no question about what we or you hold.
_ASKS_EN = re.compile(r"\b(?:what|which|when|where|who|how many|how much|how long|what time|whats|wheres)\b|"
                      r"\b(?:again|right|correct)\s*\?|"
                      # either/or: "did the seat heating go on or off?", "are the windows up or down?"
                      r"^\W*(?:(?:uh|um|so|hmm|ok(?:ay)?),?\s+)*(?:is|are|was|were|did|does|do|has|have)\b[^?]*\bor\b[^?]*\?",
                      re.IGNORECASE)
_ABOUT_US_EN = re.compile(r"\b(?:i|my|me|we|our|us|you|it|still|again|remember)\b", re.IGNORECASE)
_ASKS_ZH = re.compile(r"[?？]|[吗嘛呢]\s*$|几|多少|什么|啥|哪|谁(?![都也])|怎么样|来着|还是|没有[?？]?$")
_REQUEST_ZH = re.compile(r"^(?:请|帮我|麻烦|能不能|可不可以|可以.*吗|给我|我要(?!的)|我想(?!想))")

_SUMMARY = re.compile(
    r"\b(?:recap|summar(?:y|ise|ize)|sum (?:it |that |things )?up|so far|run (?:it |that )?(?:by|through)|"
    r"go (?:over|through) (?:it|that|everything|what)|(?:run|walk|take) me through|"
    r"read (?:it|that|everything|the details) back|read (?:me )?back (?:what|everything|all)\b|"
    r"read (?:me )?(?:what|everything) (?:you(?:'ve| have)|you got)|"
    r"where (?:are|were) we (?:at|up to|with)|what (?:do|did) (?:you|we|i) (?:have|got)|what have (?:you|we|i) got|"
    r"what(?:'s| is| have i got| do i have) (?:booked|set up|lined up)|"
    r"everything (?:you have|we have|we said|so far)|all the details|"
    r"what (?:exactly |precisely )?(?:are|have) you (?:doing|done) for (?:me|us)|"
    r"what (?:are|have) you (?:arranging|arranged|setting up|set up|put down|got down)|"
    r"what (?:exactly |precisely )?(?:are|will|did) you (?:putting|put|writing|write|adding|add|noting|note)"
    r"(?: down)?(?: on| in| into| for)? (?:the|my|our) (?:ticket|booking|reservation|request)|"
    r"what'?s (?:going |gone |been put )?(?:on|in|into|onto) (?:the|my|our) (?:ticket|booking|reservation|request)"
    r"(?: so far| now)?|"
    r"what you(?:'re| are) (?:arranging|setting up|doing for (?:me|us))|"
    r"what'?s the (?:plan|arrangement|set-?up)(?: so far| now)?|"
    # ("what's the booking looking like now", "how does the reservation look?", "where's the ticket at")
    r"(?:what|how|where)(?:'s| is| does| do)? (?:the|my|our) (?:booking|reservation|ticket|request|plan)"
    r" (?:looking|look|looks|stand|standing|say|says|at)\b|"
    r"(?:tell|give|read|remind) me (?:about )?(?:the|my|our) (?:booking|reservation|ticket|order|details|plan)|"
    r"what did (?:i|we) ask (?:you )?(?:to do|for)|"
    r"what (?:did|have) (?:i|we|you) (?:just )?(?:book|booked|reserve|reserved|order|ordered|set up|open|opened)"
    r"(?: for (?:me|us))?(?=\s*[?.!]*$))\b|"
    r"总结|汇总|概括|复述|重复一下|目前(?:都)?(?:有|定|记)|到现在为止|现在(?:都)?(?:定|记)了(?:哪些|什么)|"
    r"都(?:记|定)了(?:哪些|什么|些啥)|说一下(?:目前|现在)|现在是什么情况|捋一下|(?<!处)理一下|"
    r"(?:都|现在|目前)(?:都)?(?:帮我|给我)?(?:(?:定|记|订|安排|办)了?|(?:开|设|调)了)(?:些|哪些)?(?:什么|啥)|(?:什么|啥)安排|"
    r"(?:念|读)一下(?:现在|目前)?(?:工单|订单|预订|路线)?|记的(?:东西|内容)?(?:给我|跟我)?(?:念|读|说)(?:给我)?听?(?:一遍|一下)|"
    r"(?:念|读)一遍(?:记的|你记的)|(?:工单|预订|订单)上(?:现在)?(?:都)?有(?:些)?(?:啥|什么|哪些)|"
    r"(?:情况|安排|内容)(?:再)?(?:说|讲)(?:一遍|一下)|(?:给我|帮我)?办的(?:是)?(?:什么|啥)|"
    r"我(?:刚才|刚刚|之前)?(?:让|叫)你(?:干|做|办)(?:了)?(?:嘛|什么|啥)|(?:订|定|办)的(?:是)?(?:啥|什么)情况|"
    r"(?:都是|是)?(?:啥|什么)设置", re.IGNORECASE)
# Questions joined in one sentence: "where are we going and what stops do we have", 去哪儿，几点到.
_JOINED_QUESTIONS = re.compile(r"\s(?:and|or|also|plus)\s(?=(?:what|where|when|who|how|which)\b)|[，,]\s*(?=\w)",
                               re.IGNORECASE)
_NEXT = re.compile(
    r"\bwhat(?:'s| is| comes| happens| do (?:we|i) do)? next\b|\bthen what\b|\bwhat now\b|\bnext step|"
    r"\bwhat (?:else )?(?:do you|is) (?:still )?(?:need|needed|missing|left)\b|\bwhat'?s left\b|"
    r"\bhow do we (?:go on|proceed|continue)\b|\bwhat happens (?:now|after)|"
    r"接下来|下一步|然后呢|还(?:需要|差|缺)(?:什么|啥|哪些)|之后(?:呢|怎么办|做什么)|现在(?:该|要)(?:做什么|干嘛|怎么办)",
    re.IGNORECASE)

# Asking to be told, worded as a request ("can you read back my order number?", 再说一遍时间).
_SAY_BACK = re.compile(r"\b(?:read (?:it |that )?(?:back|out)|repeat|remind me|tell me|say (?:it |that )?again|"
                       r"double[- ]check|confirm)\b|再说一遍|重复|告诉我|提醒我|再确认|"
                       r"(?:给我|跟我)?说一下|报一下|念一下",
                       re.IGNORECASE)

# What a question word asks for, as the keys declare it (their type and reader).
_ASKS_FOR: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bhow many\b|几(?:位|个人|个|口)|多少(?:人|位|个)", re.IGNORECASE), ("head_count", "int")),
    (re.compile(r"\bhow much\b|多少钱|几块|多少块|多少元|金额", re.IGNORECASE), ("money",)),
    (re.compile(r"\b(?:what|which) (?:time|hour)\b|\bhow late\b|\bhow early\b|几点|什么时间|啥时间", re.IGNORECASE),
     ("time",)),
    (re.compile(r"\b(?:what|which) (?:day|date)\b|\bwhat'?s the date\b|\b(?:same|that|the) day\b|"
                r"哪天|哪一天|几号|星期几|周几|礼拜几|(?:同一|那一?)天",
                re.IGNORECASE), ("date",)),
    (re.compile(r"\bwhen\b|什么时候|啥时候", re.IGNORECASE), ("time", "date")),
    (re.compile(r"\bwhere\b|哪里|哪儿|去哪|到哪|目的地", re.IGNORECASE), ("place_name",)),
    (re.compile(r"\bhow (?:warm|cold|hot|high|low)\b|多少度|几度", re.IGNORECASE), ("quantity",)),
    # (我刚才留的电话是多少来着, "what number did I give you?": a code or a number given)
    (re.compile(r"\b(?:what|which) (?:number|code)\b|\bwhat(?:'s| is| was) the number\b|号码|"
                r"(?<!几)多少(?![钱块元人位个度])", re.IGNORECASE), ("identifier",)),
    # (订的是哪家来着: the place chosen, which a catalogue's name fills)
    (re.compile(r"\bwhich (?:restaurant|place)\b|哪家|哪一家|哪个(?:餐厅|饭店|店|馆子)", re.IGNORECASE),
     ("title_name",)),
)

_POINTS_BACK_ZH = r"来着|刚才|说的|定的|设的|订的"
_POINTS_BACK = re.compile(r"\bagain\b|\bstill\b|\bthe same\b|"
                          r"\b(?:did|do) (?:i|we|you) (?:say|pick|choose|set|book|agree|give|tell)|"
                          r"\b(?:we|i) (?:said|agreed|picked|chose|set|booked)\b|\bremind me\b|"
                          + _POINTS_BACK_ZH, re.IGNORECASE)

# A yes/no question that checks what was agreed, not one about the world ("is the place open on
# Friday?" asks the world; "is it Friday?", "is the booking for four?", "Friday, right?" check).
_CHECKS_HELD_EN = re.compile(
    # (…with a word or two before the thing: "is the passenger window open?", "is my seat heater on?")
    r"^(?:is|was|are|were) (?:it|that|this|we|(?:the|my) (?:[\w']+ ){0,2}?(?:booking|reservation|table|ticket|order|"
    r"route|trip|plan|drive|temperature|time|date|day|party|pickup|return|refund|repair|exchange|stop|destination|"
    r"seat|seat heating|heater|windows?|fan|volume|music|air|radio|ac|a/c|air conditioning|air con|aircon))\b|"
    r"\b(?:did|do) (?:i|we|you) (?:say|pick|choose|set|book|agree|give|tell|put|ask)|"
    r"\b(?:we|i|you) (?:said|agreed|picked|chose|set|booked|put|asked for)\b|\bstill\b|\bagain\b|"
    r"\b(?:right|correct|isn'?t it|wasn'?t it|aren'?t we|weren'?t we|yeah)\s*\?*$", re.IGNORECASE)
# (空调开着吗, 车窗关了没有: a control's state, checked.)
_CHECKS_HELD_ZH = re.compile(_POINTS_BACK_ZH + r"|对吧|对吗|(?<!不)对不对|是不是|没错吧|是吧|还是"
                             r"|是[^吗？?]{1,15}吗[?？]?$"
                             r"|(?:开着|关着|开了|关了|打开了|关上了)的?(?:吗|没有?|吧)[^，。,]{0,4}?[?？]?$")
# "Is it going to rain tomorrow?", "is it open on Sunday?", "is it busy tonight?": what happens
# or what a place is like, asked of the world; the day it names checks nothing agreed.
# ("Is it going to be at 8?" and "is that booking for tomorrow?" still check.)
_ASKS_THE_WORLD_EN = re.compile(r"^(?:is|was|are|were) (?:it|that|this) (?:still |really )?"
                                r"(?:(?:going to|gonna) (?!be\b)|"
                                r"(?:raining|snowing|pouring|open|closed|busy|crowded|far|near|safe|worth|likely)\b)",
                                re.IGNORECASE)
# What a control just commanded is at, asked of "it" ("what's it on now?", 现在开到多少了).
_ASKS_ABOUT_IT = re.compile(r"\bwhat(?:'s| is) (?:it|that) (?:on|at|set (?:to|at))\b|"
                            r"\bhow (?:high|low|warm|cold|loud|strong|hot) is (?:it|that)\b|"
                            r"(?:现在|它)(?:是|开到|调到|设到)(?:几|多少)|现在多少了", re.IGNORECASE)
_ALTERNATIVES = re.compile(r"\bor\b|还是", re.IGNORECASE)
# Whether the task itself is done yet ("is it booked?", "is the route set?", "did you book it?",
# "are we all set?", 订好了吗, 工单提交了没有): answered from what was done, not as a value.
_ASKS_IF_DONE_EN = re.compile(
    r"^(?:(?:so|and|ok(?:ay)?|alright|all right|right|great|cool|um|uh|wait|oh|hey|hang on)\W+)*"
    r"(?:is|was|are|has|have)\s+(?:it|that|this|we|everything|(?:my|our|the) "
    r"(?:booking|reservation|table|ticket|request|claim|route|navigation|trip|return|refund|exchange|repair|order))\s+"
    r"(?:all\s+|already\s+|been\s+|now\s+)*(?:booked|reserved|done|set(?: up)?|confirmed|sorted|finished|submitted|"
    r"filed|opened|made|complete|completed|all set|good to go|locked in|processed|being processed|in process|"
    r"cancell?ed|canceled|refunded|replaced|exchanged|repaired|traced|"
    r"under way|underway|(?:going|gone) through(?=\s*(?:yet|already|now|ok(?:ay)?)?\W*$))\b(?! (?:to|at|for) \d)|"
    r"\b(?:did|have) you (?:already |actually )?(?:book|booked|reserve|reserved|submit|submitted|file|filed|open|"
    r"opened|set|set up|do|done|make|made|finish|finished) (?:it|that|this|the (?:booking|reservation|table|ticket|"
    r"route))\b",
    re.IGNORECASE)
# (订好了吗, 订了没有, 工单提交了没: a word of having done it, 好/完/上/了, is needed: 能订吗 asks whether it can be.)
_ASKS_IF_DONE_ZH = re.compile(r"(?:(?<![确一决肯])定|订|预订|预约|设|设置|提交|办|弄|搞|导航)"
                              r"(?:(?:好|完|上|成功)了?|了)(?:吗|没有?|没|不)\W*$|"
                              r"(?:好了|完成了|成功了|搞定了|弄好了|办好了)(?:吗|没有?|没)\W*$")


def _mentions_name(spec: KeySpec, lowered: str, spaced: bool) -> bool:
    names = [n.lower() for n in (spec.label("en"), spec.label("zh"), *spec.aliases.get("en", ()),
                                 *spec.aliases.get("zh", ())) if n]
    return any(re.search(r"(?<!\w)" + re.escape(n) + r"(?:s|es)?(?!\w)", lowered) if spaced else n in lowered
               for n in names)


def points_back(text: str) -> bool:
    """Whether `text` points back at what was said or agreed ("what did I say?", 刚才订的)."""
    return bool(_POINTS_BACK.search(text))


def checks_held(sentence: str) -> bool:
    """Whether a sentence asks whether a value is what was agreed (a yes/no or either/or question)."""
    stripped = sentence.strip()
    if not stripped:
        return False
    if language_of(stripped) == "zh":
        return bool(_CHECKS_HELD_ZH.search(stripped) and (YES_NO_QUESTION_ZH.search(stripped)
                                                          or re.search(r"[?？]\s*$|还是", stripped)))
    lead = LEAD_IN_EN.sub("", stripped)
    if REQUEST_QUESTION_EN.match(lead) or CHANGE_REQUEST_EN.search(lead):
        return False
    question = bool(YES_NO_QUESTION_EN.match(lead)) or stripped.endswith("?")
    return question and bool(_CHECKS_HELD_EN.search(lead)) and not _ASKS_THE_WORLD_EN.match(lead)


# The encoder's answer is taken only above this cosine (USE multilingual v3; a question that
# names a key scores 0.45–0.7 against its label question, an unrelated one under 0.35).
ENCODER_THRESHOLD = 0.42


@dataclass(frozen=True)
class StateQuestion:
    """What the user asked about the task: slots by key, a summary, or what comes next."""

    kind: Kind
    keys: tuple[str, ...] = ()
    found_by: str = ""          # "words", "question word", "encoder", "cue", "value said"
    yours: bool = False         # asked as what the user said ("what did I say?"): answered as theirs
    # A yes/no question's values, key → value as the state would hold it ("is it for four?":
    # party_size → 4); none for an either/or question ("Friday or Saturday?") or any other.
    checks: tuple[tuple[str, object], ...] = ()


# A question that starts with a question word asks what, not whether ("what have you set up so far?").
_WH_FIRST = re.compile(r"\W*(?:so\s+|and\s+)?(?:what|which|where|when|how|who|why)\b", re.IGNORECASE)


def _asks_if_done(sentence: str) -> bool:
    """"Is it booked?", 订好了吗: a yes/no question whether the task is done (not "what have you
    set up so far?", which asks for a summary)."""
    stripped = sentence.strip()
    # ("wait what temperature did you set it to" asks for a value, not whether it is done)
    if _SUMMARY.search(stripped) or _NEXT.search(stripped) or _WH_FIRST.match(LEAD_IN_EN.sub("", stripped)):
        return False
    return bool(_ASKS_IF_DONE_EN.search(stripped) or _ASKS_IF_DONE_ZH.search(stripped))



def _asks(sentence: str) -> bool:
    stripped = sentence.strip()
    if not stripped:
        return False
    if _SAY_BACK.search(stripped):
        return True
    if language_of(stripped) == "zh":
        return bool(_ASKS_ZH.search(stripped)) and not _REQUEST_ZH.search(stripped)
    stripped = LEAD_IN_EN.sub("", stripped) or stripped
    if REQUEST_QUESTION_EN.match(stripped):
        return False
    if stripped.endswith("?") and _ASKS_EN.search(stripped):
        return True
    # Without a question mark the question word leads ("what time did we say"): "find me a place
    # near where I live" is a request.
    lead = re.sub(r"^\W*(?:(?:so|and|oh|um|uh|well|sorry|hang on|remind me|hey|hi)\W+)*", "", stripped)
    return bool(_ASKS_EN.match(lead) or (YES_NO_QUESTION_EN.match(stripped) and _ABOUT_US_EN.search(stripped)))


def _words_of(spec: KeySpec, lang: str) -> tuple[str, ...]:
    """A key's names in `lang`: its label and aliases."""
    return (spec.label(lang), *spec.aliases.get(lang, ()))


def _matches(spec: KeySpec, wanted: tuple[str, ...]) -> bool:
    return spec.type in wanted or (spec.reader is not None and str(spec.reader) in wanted)


class StateQuestionReader:
    """Reads whether a turn asks about the state, and about which keys."""

    def __init__(self, schema: DomainSchema, embed: Embed | None = None) -> None:
        self.schema = schema
        self._embed = embed
        self._prototypes: tuple[list[str], np.ndarray] | None = None
        self._values = RuleExtractor(schema)

    def read(self, text: str, language: str = "", held: Sequence[str] = (),
             view: SessionState | None = None) -> StateQuestion | None:
        """The state question in `text`, if any. `held`: the keys the state has a value for
        (a question word that fits several keys goes to the held one); `view`: the state, so
        a number a yes/no question says alone ("did I say seven?") finds the value it checks."""
        question = self._read(text, language, held, view)
        if question is not None and question.kind == "slot" and PAST_CUES.search(text) \
                and not set(question.keys) & set(held):
            return None        # "what did I order last time?" is long-term memory's
        if question is not None and (ABOUT_THE_USER_EN.search(text) or ABOUT_THE_USER_ZH.search(text)):
            question = replace(question, yours=True)
        if question is not None and question.kind == "slot" and not question.checks:
            # "What's the route now?", 现在路线是什么: where to, and the stops held on the way there.
            on_the_way = tuple(spec.name for spec in self.schema.keys.values()
                               if spec.on_the_way_to in question.keys and spec.name in held
                               and spec.name not in question.keys)
            # "What's the fan on?" with the fan set to a level, "what's the temperature?" with the
            # cabin made warmer a step: the one of the pair held is the answer.
            paired = tuple(spec.name for spec in self.schema.keys.values() if spec.name in held
                           and spec.name not in question.keys and any(
                               spec.name in self.schema.key(k).reading.stepped_by
                               or k in spec.reading.stepped_by for k in question.keys))
            asked = tuple(k for k in question.keys if k in held or not any(
                k in self.schema.key(p).reading.stepped_by or p in self.schema.key(k).reading.stepped_by
                for p in paired))
            question = replace(question, keys=asked + paired + on_the_way)
        return question

    def _read(self, text: str, language: str, held: Sequence[str],
              view: SessionState | None = None) -> StateQuestion | None:
        sentences = [s for _, s in sentences_with_offsets(text)]
        asked = [s for s in sentences if _asks(s) or _SUMMARY.search(s) or _NEXT.search(s)]
        checking = [s for s in sentences if checks_held(s)]
        # ("Is the refund going through?" asks whether it is done, not whether a refund was said.)
        if checking and not any(_SUMMARY.search(s) or _NEXT.search(s) for s in asked) \
                and not (view is not None and any(_asks_if_done(s) for s in checking)):
            # ("is it a quiet place?" reads as a wish, but asks of the place: a wish checked is one held)
            checked = tuple((k, v) for k, v in self._checked(checking, view)
                            if self.schema.key(k).reader != Reader.FREE_TEXT or view is not None and any(
                                normalised(str(c.value)) in normalised(str(v)) for c in view.find(k)))
            if checked:
                keys = tuple(dict.fromkeys(k for k, _ in checked))
                alternatives = any(_ALTERNATIVES.search(s) for s in checking)
                return StateQuestion("slot", keys, "value said", checks=() if alternatives else checked)
        if view is not None and any(_asks_if_done(s) for s in sentences) \
                and not any(self._names_a_control(s) for s in sentences):
            # "Is it booked?", 订好了吗: whether the task is done (not "is the AC on?", a control's value).
            return StateQuestion("done", found_by="words")
        if not asked:
            return None
        naming_the_record = [s for s in asked if self._names_the_record(s)]
        if view is not None and naming_the_record and (any(entry.record for entry in view.done) or not any(
                self._names_a_key(s, language or language_of(s)) for s in naming_the_record)):
            # "What was my ticket number again?", 工单号是多少来着: the record of what was done;
            # asked before anything is ("what's the reference?"), that there is none yet.
            return StateQuestion("record", found_by="words")
        joined = " ".join(asked)
        if _SUMMARY.search(joined):
            return StateQuestion("summary", found_by="cue")
        if _NEXT.search(joined):
            return StateQuestion("next", found_by="cue")
        # (有没有不太辣的？, "any vegetarian places?": asks for an option, not what the task holds)
        offers_options = bool(self.schema.catalogue or self.schema.catalogues)
        questions = [s for s in asked if _asks(s) and not (offers_options and asks_for_one(s))]
        if not questions:
            return None
        lang = language or language_of(joined)
        for sentence in questions:
            keys = self._named(sentence, lang, held)
            if keys:
                # ("where are we going and what stops do we have": each question joined asks its own)
                parts = _JOINED_QUESTIONS.split(sentence)
                if len(parts) > 1:
                    keys = tuple(dict.fromkeys(k for part in parts for k in (
                        self._named(part, lang, held) or self._by_question_word(part, held)))) or keys
                return StateQuestion("slot", self._the_whole_task(sentence, lang, keys, held), "words")
        if view is not None and lang == "en":
            for sentence in questions:
                keys = _by_a_word_of_the_value(sentence, view, self.schema)
                if keys:
                    return StateQuestion("slot", keys, "a word of the value held")
        for sentence in questions:
            keys = self._by_question_word(sentence, held)
            if keys:
                return StateQuestion("slot", keys, "question word")
        if view is not None and view.last_act.act == "act" and view.last_act.args \
                and any(_ASKS_ABOUT_IT.search(s) for s in questions):
            # "What's it on now?" just after a command: what was just set.
            return StateQuestion("slot", tuple(k for k in view.last_act.args if self.schema.knows(k)),
                                 "the command just carried out")
        if self._embed is not None:
            # The encoder only places a question that points back at what was agreed ("what was
            # the thing we picked again?"); "what do you recommend?" is not about the state.
            for sentence in (q for q in questions if _POINTS_BACK.search(q)):
                key = self._nearest(sentence)
                if key:
                    return StateQuestion("slot", (key,), "encoder")
        return None

    def _names_the_record(self, sentence: str) -> bool:
        """Whether `sentence` names the record of what was done: the task's noun with a number
        ("ticket number", "booking reference", 工单号), or a confirmation number."""
        return bool(self._record_words.search(sentence))

    def _names_a_control(self, sentence: str) -> bool:
        """Whether `sentence` names one of the domain's controls ("is the AC on?", 空调开好了吗)."""
        lowered = sentence.lower()
        return any(spec.reading.verb_values and _mentions_name(spec, lowered, language_of(sentence) == "en")
                   for spec in self.schema.keys.values())

    def _names_a_key(self, sentence: str, language: str) -> bool:
        """Whether `sentence` names one of the domain's keys by an alias ("order number": the
        user's order, not the record of what the agent did)."""
        folded = sentence.casefold()
        return any(re.search(r"(?<!\w)" + re.escape(alias.casefold()) + r"(?!\w)", folded) if language == "en"
                   else alias in sentence for alias, _key in self.schema.alias_lexicon(language))

    @cached_property
    def _record_words(self) -> re.Pattern[str]:
        """The words for a record of what was done, from the schema's actions (built once)."""
        nouns = [re.sub(r"^(?:the|a|an)\s+", "", w.lower()) for a in self.schema.actions.values()
                 for w in (*a.task.values(), *(n for ns in a.task_nouns.values() for n in ns)) if w]
        spaced = "|".join(re.escape(n) for n in nouns if n.isascii())
        unspaced = "|".join(re.escape(n) for n in nouns if not n.isascii())
        return re.compile(r"\b(?:" + spaced + r"|confirmation|reference)\s+(?:number|no\.?|id|code|reference|ref)\b|"
                          r"\b(?:the|my|a|your|any)\s+(?:reference|confirmation)\b(?!\s+(?:to|of)\b)|"
                          r"(?:" + unspaced + r"|确认|预订|预约)(?:号|编号|单号|码)", re.IGNORECASE)

    def _checked(self, sentences: Sequence[str], view: SessionState | None) -> tuple[tuple[str, object], ...]:
        """The values the checking questions say, as the rules read them into the state; a
        number said alone ("did I say seven?") is the held value it can be (a count, 19:00)."""
        found: list[tuple[str, object]] = []
        for sentence in sentences:
            # The readers never take a value from a question ("a question never sets a value"):
            # the question's frame goes, and what is left is read as a statement of the values.
            extraction = self._values.extract(_as_statement(sentence), view)
            for op in extraction.operations:
                if op.op == Op.SET and self.schema.knows(op.key) and op.source == OpSource.RULES \
                        and op.value is not None and (op.key, op.value) not in found:
                    found.append((op.key, op.value))
            if not found and view is not None:
                found += _held_number_said(sentence, view)
        return tuple(found)

    def _the_whole_task(self, sentence: str, lang: str, keys: tuple[str, ...], held: Sequence[str]) -> tuple[str, ...]:
        """"What route do you have?", 路线是怎么设的: the key named by what an action makes (the route names
        the destination) stands for all that action holds (the destination, the arrival, the stops)."""
        if len(keys) != 1:
            return keys
        aliases = {a.lower() for a in self.schema.key(keys[0]).aliases.get(lang, ())}
        for action in self.schema.actions.values():
            noun = re.sub(r"^(?:the|a|an)\s+", "", action.task.get(lang, "")).lower()
            if noun in aliases and keys[0] in action.keys and re.search(cue_pattern((noun,), spaced=lang == "en"),
                                                                         sentence.lower()):
                return tuple(k for k in action.keys if k in held) or keys
        return keys

    def _named(self, sentence: str, lang: str, held: Sequence[str] = ()) -> tuple[str, ...]:
        lowered = sentence.lower()
        spaced = lang == "en"
        found: list[str] = []
        sharing: list[str] = []          # keys whose name is said where another key's, the same, was
        taken: dict[tuple[int, int], str] = {}
        for alias, key in self.schema.alias_lexicon(lang):
            if len(alias) < (3 if spaced else 2):
                continue
            pattern = r"(?<!\w)" + re.escape(alias) + r"(?:s|es)?(?!\w)" if spaced else re.escape(alias)
            for m in re.finditer(pattern, lowered):
                if any(m.start() < end and start < m.end() for start, end in taken):
                    if taken.get(m.span()) == alias and key not in found:
                        sharing.append(key)
                    continue
                taken[m.span()] = alias
                if key not in found:
                    found.append(key)
        # A name two keys share, asked with one key's unit, is that key's: 空调是多少度 asks the
        # temperature, not whether the air conditioning is on.
        by_unit = [k for k in found + sharing if any(
            re.search(r"(?:多少|几|how many)\s*" + re.escape(unit.lower()), lowered)
            for unit in self.schema.key(k).reading.units.get(lang, ()))]
        if by_unit:
            return tuple(by_unit)
        # The kind of value the question word asks for picks among the keys named ("what time did I say
        # for the call?": the call's time, not how to call; 电话是多少: the number, not calling), or a key
        # of that kind that shares a word of the name said ("call" of "time to call").
        # (only where one kind is asked: 几号几点几个人 asks for three)
        kinds = [wanted for pattern, wanted in _ASKS_FOR if pattern.search(sentence)]
        for wanted in kinds if len(kinds) == 1 else []:
            of_the_kind = [k for k in found + sharing if _matches(self.schema.key(k), wanted)]
            words_named = {w for alias in taken.values() for w in re.findall(r"\w+", alias) if len(w) >= 3} \
                if spaced else set()
            related = [k for k, spec in self.schema.keys.items() if _matches(spec, wanted) and found and words_named
                       & {w for alias in _words_of(spec, lang) for w in re.findall(r"\w+", alias.lower())}]
            if of_the_kind or related:
                found = list(dict.fromkeys(of_the_kind or related))
        # ("how much did you note down for the order?", 订单多少钱: the sum, whatever else is named)
        sums = [k for k, spec in self.schema.keys.items() if spec.type == "money"]
        if sums and re.search(r"\bhow much\b|多少钱", lowered):
            return tuple(sums)
        # A control's own verbs are values, not names: "are the windows up or down?" asks about
        # the windows, not the fan whose values "up" and "down" also are.
        # (A name two keys share, asked of with no kind or unit, is both's where both are held: 路线是怎样的 is
        # where to, and how.)
        named = [k for k in dict.fromkeys(found + [k for k in sharing if k in held])
                 if not self.schema.key(k).reading.verb_values
                 or _mentions_name(self.schema.key(k), lowered, spaced)]
        # ("what did you put down for the callback?": its day with its time, "tomorrow after 3 pm")
        return tuple(dict.fromkeys(day for k in named for day in (
            *(d.name for d in self.schema.keys.values() if d.day_of == k), k)))

    def _by_question_word(self, sentence: str, held: Sequence[str]) -> tuple[str, ...]:
        for pattern, wanted in _ASKS_FOR:
            if not pattern.search(sentence):
                continue
            keys = [spec.name for spec in self.schema.keys.values() if _matches(spec, wanted)]
            # The reader named first is the better evidence ("how many" → the head count before any int).
            keys.sort(key=lambda k: min((i for i, w in enumerate(wanted) if _matches(self.schema.key(k), (w,))),
                                        default=len(wanted)))
            if not keys:
                continue
            first_kind = [k for k in keys if _matches(self.schema.key(k), wanted[:1])] or keys
            held_ones = [k for k in keys if k in held]
            if (len(wanted) > 1 or wanted == ("identifier",)) and held_ones:
                # ("when": the time and the date the state holds; "what number did I give you?": each number)
                return tuple(held_ones)
            chosen = [k for k in first_kind if k in held] or first_kind
            if chosen[0] not in held and chosen[0] not in self._task_keys and not _POINTS_BACK.search(sentence):
                continue     # "什么时候能到?": no callback time was asked for; the world is asked about
            return (chosen[0],)
        return ()

    @cached_property
    def _task_keys(self) -> frozenset[str]:
        """The keys an action needs: asked about before they are held, they are said to be missing
        ("what time?" before one is given); another key's question word asks the world."""
        return frozenset(k for action in self.schema.actions.values() for k in action.needs)

    def _nearest(self, sentence: str) -> str:
        assert self._embed is not None
        if self._prototypes is None:
            keys, texts = [], []
            for spec in self.schema.keys.values():
                for lang in ("en", "zh"):
                    label = spec.label(lang)
                    texts.append(f"What is the {label}?" if lang == "en" else f"{label}是什么？")
                    keys.append(spec.name)
            self._prototypes = (keys, self._embed(texts))
        keys, vectors = self._prototypes
        scores = vectors @ self._embed([sentence])[0]
        best = int(np.argmax(scores))
        return keys[best] if float(scores[best]) >= ENCODER_THRESHOLD else ""


_QUESTION_FRAME_EN = re.compile(
    r"^(?:(?:is|was|are|were) (?:it|that|this|we)(?: still)?|(?:is|was|are|were)(?= the )|"
    r"(?:did|do) (?:i|we|you) (?:say|pick|choose|set|book|agree|give|tell|put|ask(?: for)?)(?: it (?:was|is))?)\s+|"
    r"\b(?:we|i|you) (?:said|agreed|picked|chose|set|booked|put|asked for)\b|"
    r",?\s*\b(?:right|correct|isn'?t it|wasn'?t it|aren'?t we|weren'?t we|yeah|again|still)\s*(?=\?*$)|\?",
    re.IGNORECASE)
_QUESTION_FRAME_ZH = re.compile(r"来着|对吧|对吗|(?<!不)对不对|是不是|没错吧|是吧|吗|呢|[?？]")


# Words of a question that say nothing of what it is about ("which one did I say again?").
_NOT_ABOUT_EN = frozenset({"what", "which", "when", "where", "again", "said", "tell", "told", "have", "that", "this",
                           "there", "they", "them", "your", "yours", "mine", "remind", "down", "written", "note",
                           "noted", "just", "then", "with", "from", "about", "were", "was", "did", "does", "sorry"})


def _by_a_word_of_the_value(sentence: str, view: SessionState, schema: DomainSchema) -> tuple[str, ...]:
    """The keys whose held value, a name in the user's words, has a word the question names: "which
    station did I say again?" with "Union City BART station" held asks the destination (not a day or
    a time: "is it going to rain tomorrow?" asks nothing of the booking's day)."""
    asked = set(re.findall(r"[a-z]{4,}", sentence.lower())) - _NOT_ABOUT_EN
    return tuple(dict.fromkeys(c.key for c in view.constraints.values() if isinstance(c.value, str)
                               and schema.knows(c.key) and schema.key(c.key).type in ("text", "enum")
                               and asked & set(re.findall(r"[a-z]{4,}", c.value.lower()))))


def _as_statement(sentence: str) -> str:
    """The values a checking question says, as a statement: "is it still 23 degrees?" →
    "23 degrees.", 是四个人对吧？ → 是四个人。"""
    stripped = sentence.strip()
    if language_of(stripped) == "zh":
        return _QUESTION_FRAME_ZH.sub("", stripped) + "。"
    return _QUESTION_FRAME_EN.sub(" ", LEAD_IN_EN.sub("", stripped)).strip(" ,") + "."


def _held_number_said(sentence: str, view: SessionState) -> list[tuple[str, object]]:
    """(key, value) for a number said that is a held count, amount or clock hour: "seven"
    checks 19:00 or a party of 7, whichever the state holds."""
    # Decimals as said ("55.50"), besides every whole number grounding would find.
    numbers = {float(n) for n in numbers_said(sentence)} | {float(d) for d in re.findall(r"\d+\.\d+", sentence)}
    found: list[tuple[str, object]] = []
    for condition in view.constraints.values():
        held = condition.value
        if isinstance(held, bool):
            continue
        if isinstance(held, (int, float)) and float(held) in numbers:
            found.append((condition.key, next(n for n in numbers if n == float(held))))
        elif isinstance(held, str) and re.fullmatch(r"\d\d:\d\d", held):
            hour = int(held[:2]) % 12 or 12
            said = next((n for n in numbers if n.is_integer() and (int(n) % 12 or 12) == hour), None)
            if said is not None:
                found.append((condition.key, held if held.endswith(":00") else f"{int(said) % 24:02d}:00"))
    return found


__all__ = ["ENCODER_THRESHOLD", "StateQuestion", "StateQuestionReader", "checks_held", "points_back"]
