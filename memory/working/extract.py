"""Deterministic extraction (W11): what is regular is read by rules, in English and Chinese.

Numbers, times, dates, head counts, amounts, negations, withdrawals, corrections and the
schema's enumerated values become `Operation`s. The LLM is asked only for what is left.

Which key a reading goes to is the domain YAML's choice (`reader:` on a key); what the
words mean is the language module's (`memory/language/`). Nothing here names a domain key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from monologue.memory.domain.schema import ActionSpec, DomainSchema, KeySpec, Reader
from monologue.memory.language.asked_for import AskedFor, words_asked_for
from monologue.memory.language.cues import (
    A_NUMBER_ALONE,
    A_YES_BUT,
    ANOTHER_PLACE,
    BARE_CANCEL,
    CAPITALISED_WORD_EN,
    CLOSING,
    EVERYTHING,
    HEAD_COUNT_ALONE,
    HEAD_COUNT_WHOLE,
    HOLD_ON,
    LEFT_TO_YOU,
    NOT_NAMES_EN,
    PER_PERSON,
    REPEAT_COMMAND,
    SELF_REPAIR,
    STATE_CUES,
    THIS_TIME_ONLY,
    TITLE_NAME_EN,
    YES_WORD_DESCRIBING,
    StateCues,
    cue_pattern,
    language_of,
    negated_at,
    not_preferred,
    opens_a_question,
    party_named,
    people_in_group,
    put_right_after,
)
from monologue.memory.language.digits import digits_said, digits_said_en, stations_said
from monologue.memory.language.names import NameFinder, name_finder
from monologue.memory.language.normalise import contains, normalised, with_its_singular
from monologue.memory.language.numbers import (
    EN_NUMBER,
    EN_TENS,
    EN_UNITS,
    MONTHS,
    WEEKDAYS,
    ZH_NUMBER,
    find_en_dates,
    find_en_times,
    find_zh_dates,
    find_zh_times,
    time_bound,
    to_amount,
    to_int,
)
from monologue.memory.language.person import (
    CHINESE_SURNAMES,
    LOOSE_NAME_CUE_ZH,
    character_glosses_zh,
    chinese_name_after,
    spelled_name_after,
)
from monologue.memory.language.places import (
    PlaceSaid,
    find_place_en,
    find_place_zh,
    not_going,
    places_corrected,
    the_one_elsewhere,
)
from monologue.memory.language.relative import COUNTING_IN_ZH
from monologue.memory.language.stances import (
    asks,
    asks_for_information,
    clause_bounds,
    clause_of,
    is_query,
    sentences_with_offsets,
    tells_of_the_past,
)
from monologue.memory.language.wishes import content_words, qualities_named, without_the_de
from monologue.memory.working.on_the_way import (
    ON_A_STREET,
    read_kind_on_a_street,
    read_stops_first_after,
    read_stops_refused,
    read_stops_said_first,
)
from monologue.memory.working.put_right import (
    ONE_MORE,
    PART_PUT_RIGHT,
    held_code_put_right,
    held_number_named,
    held_number_replaced,
    held_part_replaced,
    object_put_right,
)
from monologue.memory.working.readers import (
    OutOfRange,
    about_something_else,
    asked_for_earlier,
    asked_for_just_before,
    called_by_name,
    commanded_keys,
    control_just_carried_out,
    controls_going_with,
    cued,
    named_amounts,
    names_key,
    read_avoided,
    read_codes_put_right,
    read_emails,
    read_identifiers,
    read_lifted,
    read_quantities,
    refused,
    settle,
    sum_read_two_ways,
    value_heads_zh,
    value_pattern,
    with_its_cues,
)
from monologue.memory.working.relative import read_relative_changes
from monologue.memory.working.sides import on_their_sides
from monologue.memory.working.state import (
    NO_ACT,
    WHICH_CONTROL,
    Comparator,
    Condition,
    Op,
    Operation,
    OpSource,
    QuestionKind,
    SessionState,
)
from monologue.memory.working.turn_classes import TurnClass, calls_off
from monologue.memory.working.values import learned_operations
from monologue.memory.working.weighed import (
    A_FEELING,
    ERRAND_CALLED_OFF,
    UP_OR_DOWN,
    a_step_along_its_scale,
    all_the_way,
    errand_called_off,
    errand_in,
    feeling_met_by_a_command,
    feeling_met_by_its_level,
    it_is_the_noise,
    it_is_what_was_dropped,
    level_over_its_step,
    not_either_or,
    not_set_aside_by_its_reason,
    refined,
    step_moves_the_level,
    steps_counted,
    taken_back_not_set_aside,
    the_errands_day,
)
from monologue.memory.working.wishes import free_text_key, held_wish_named, read_wishes

Polarity = Literal["yes", "no", ""]
Span = tuple[int, int]
Found = list[tuple[str, int, int]]          # (normalised value, start, end)
Add = Callable[[Operation, Span], None]


@dataclass(frozen=True)
class _Said:
    """An utterance as the readers see it: its words, the form patterns run on (lower-cased
    where the language has case), its language and that language's cues."""

    text: str
    source: str
    lang: str
    cues: StateCues

_TIMES: dict[str, Callable[[str], Found]] = {"en": find_en_times, "zh": find_zh_times}
_DATES: dict[str, Callable[[str], Found]] = {"en": find_en_dates, "zh": find_zh_dates}
_GOES_ON_TO = re.compile(r"\b(?:and then|then|after that|on the way to|on my way to|on our way to|"
                         r"before (?:going|heading)|and (?:go|head|drive|take me))\b|然后|再去|之后", re.IGNORECASE)
_REFUSING_VERB = re.compile(r"\s*(?:skip|avoid)\b", re.IGNORECASE)      # ("skip the freeway" refuses it)
_FOR_A_WHILE = re.compile(r"\b(?:for a (?:sec|second|minute|moment|bit)|real quick|quickly)\b", re.IGNORECASE)
# (大人两个小孩一个: a run of them, each counted after whom; not 三个大人两个小孩, whose 大人 is counted
# before it, nor 孩子三个月大, an age)
_COUNTED_ONE_ZH = re.compile(r"(大人|成人|小孩|孩子|儿童|老人|小朋友)(" + ZH_NUMBER + r")(个|位|名)(?![月大岁])")
_COUNTED_AFTER_ZH = re.compile(r"(?<![个位名])(?:" + _COUNTED_ONE_ZH.pattern + r"[，,、]?\s*)+")
_NAME_SHAPES = {Reader.TITLE_NAME: TITLE_NAME_EN}    # a place's: memory/language/places.py
# Words that change a value, which lead to a place only where one is held ("make it Union Square").
_CHANGES_EN = re.compile(r"(?i:make that|make it|change it to|change that to|switch to)\b")
_CHANGES_ZH = re.compile(r"换成|改成|改为|改去|换到|改到")
INSTEAD_OF_IT = "another said instead of it"      # a value of several taken back for the one said
NO_LONGER_FOR = "what it was for, no longer asked"   # a note of what another way was for, taken back with it
ANOTHER_TASK = "another task of its kind, the done one let go"   # "another order never showed up"
AS_THE_ONE_DONE = "as the one done just before"   # 联系方式跟刚才一样: a value of the task done before
# Words of one more of a kind, before the task's noun ("another order", 还有一个单子).
# ("can I also get a table at Sakura", "separately, I need to return…": one more asked for)
_ANOTHER_ONE = {"en": re.compile(r"\b(?:another|a second|one more|a different|my other|the other|also (?:have|got) "
                                 r"(?:an?|one)(?: more)?|also (?:get|book|reserve|need|want|make|grab|open|file|"
                                 r"sort out)(?: me| us)? (?:an?|one)|separately)\b", re.IGNORECASE),
                "zh": re.compile(r"还有(?:一个|个|一)|另(?:一个|外一个|外)|再(?:来)?一个|第二个")}
_ANOTHER_ITEM_ZH = re.compile(r"(?:还有|另外还有|另外|另)一(?:件|双|台|条|部|套|箱|个)"
                              r"(?!事|问题|情况|朋友|人|小时|礼拜)")
# 顺便也帮我订一下, 再帮我订一个: the task's own verb said of one more (no noun needed).
_ANOTHER_OF_THE_TASK_ZH = re.compile(r"(?:也|顺便也?|另外|再|还(?:想|要))(?:帮我|给我|帮忙)?(?:订|预订|约)"
                                     r"(?:一下|一个|个|一家)")
# (那就取消吧，不弄了; "forget it, cancel": the task dropped, no value said again.)
_DROPPING_IT = re.compile(r"不弄了|不办了|不用了|不要了|以后再说|再说吧|\b(?:forget it|never ?mind|don'?t bother|"
                          r"not worth it)\b", re.IGNORECASE)


@dataclass
class Extraction:
    operations: list[Operation] = field(default_factory=list)
    correction: bool = False
    hedged: bool = False     # "maybe", "or", "可能": a new value here is not a firm change
    polarity: Polarity = ""  # for confirmation turns
    # Keys a relative change was said for that could not be applied ("two more" with no party
    # size held, or a cabin taken past its range): asked back, never guessed.
    ask_back: list[str] = field(default_factory=list)
    # Numbers said for a quantity outside its range (72 for a cabin of 16 to 30): the agent says
    # the range, or offers the number converted from the key's other scale.
    beyond_range: list[OutOfRange] = field(default_factory=list)
    # A sum said so that it reads two ways ("I paid one fifty nine": $1.59 or $159): the key and
    # both readings, asked back which, never guessed.
    two_ways: tuple[str, tuple[float, int]] | None = None
    # The words the operations were read from, where not the turn's own: a yes to "shall we do the other
    # one now?" reads the words that one was asked in (`Op.LATER`), and they ground what is read.
    read_from: str = ""

    @property
    def keys(self) -> set[str]:
        return {op.key for op in self.operations if op.key}


# A value said as the one that replaces what was just taken back ("forget an exchange; a repair
# instead", 不要退款了，换成维修).
# ("I'll take the exchange after all", 还是换个新的吧，不修了: the new value decides.)
_REPLACES = re.compile(r"\b(?:instead|rather|make it|go with|switch to|change (?:it )?to|after all|i'?ll take)\b|"
                       r"换成|改成|改为|还是|要改", re.I)


# A surname and its title as a clause of its own (刘女士, 我是陈先生, 就写张小姐; "Mr. Chen", "it's Ms
# Lopez"): how a guest gives the name a table is held under.
_TITLED_NAME = {
    # (With a word that gives it, or as the whole turn: "好，高先生" and "thanks, Mr. Chen" address someone.)
    "zh": re.compile(r"(?:(?:^|(?<=[，,。.!！？?\s]))(?:我是|我姓|就写|写|用|免贵姓?|预订人|订位人|(?P<bare>))|^)"
                     rf"(?P<v>(?:欧阳|司马|诸葛|上官|[{CHINESE_SURNAMES}])(?:先生|女士|小姐|太太|经理|老师|医生|主任|总))"
                     r"(?:吧|啊|呀|哈)?(?=[，,。.!！\s]|$)"),
    "en": re.compile(r"(?:(?:^|(?<=[,.!?]\s))(?:(?:it'?s|this is|i'?m|put it under|under)\s+|(?P<bare>))|^)"
                     r"(?P<v>(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?:\s+(?:please|here))?(?=[,.!]|$)"),
}
_REFUSED_BEFORE = re.compile(r"(?:别|不|不要|不想|不用|没必要)$|\b(?:don'?t|do not|not|no|never)\s+(?:\w+\s+){0,2}$",
                             re.IGNORECASE)
_A_PHONE_GIVEN = re.compile(r"电话|手机|号码|\b(?:phone|number|cell|mobile)\b", re.IGNORECASE)
_TITLE_WORD = re.compile(r"先生|女士|小姐|太太|经理|老师|医生|主任|总|mr|mrs|ms|miss|dr", re.IGNORECASE)


def _takes_titles(spec: KeySpec, lang: str) -> bool:
    """Whether `spec` is a person's name: its words before or after it are titles ("Mr", 先生)."""
    titles = (*spec.reading.tail_words.get(lang, ()), *spec.reading.lead_words.get(lang, ()))
    return any(_TITLE_WORD.fullmatch(t) for t in titles)


# A number said with what it counts (十二个, "8 people"): no time, whatever was asked.
_COUNTED_ANSWER = re.compile(r"\d\s*(?:个|位|人|口|people|persons|guests|of us)|"
                             r"[一二两三四五六七八九十](?:个|位|人|口)", re.IGNORECASE)
# Going on with no stop: "straight to" (and the place held after it), 直接去.
_STRAIGHT_TO = {"en": re.compile(r"\b(?:straight|directly|right)\s+(?:over\s+)?to\s+(?:the\s+)?", re.IGNORECASE),
                "zh": re.compile(r"直接(?:去|到|开去|开到|回)")}
# …said after a stop: "the pharmacy, then straight to the airport", 先去药店然后直接去故宫.
_AFTER_A_STOP = {"en": re.compile(r"\b(?:then|after|first|afterwards)\b", re.IGNORECASE),
                 "zh": re.compile(r"先|完|然后|之后|再")}
# What the user will do without the agent ("I'll drive home myself", 我自己回家).
_ON_ONES_OWN = re.compile(r"\b(?:myself|ourselves|on (?:my|our) own|by (?:myself|ourselves))\b|自己", re.IGNORECASE)
# …or what someone else does or did ("forget the airport, my wife will take me home", "I got an exchange
# from the store already", 我老婆送我回家): told, not asked of the agent.
_SOMEONE_ELSE = re.compile(r"\b(?:(?:my|our|his|her|their) \w+(?: \w+)? (?:is|was|will|'ll|can|says|said|has|got|hates|"
                           r"offered|takes|drives|picks|driving|taking)|he|she|they|someone|somebody|"
                           r"(?:i|we) (?:got|already|had))\b|\bsays\b|"
                           r"^\W*(?:我(?:老婆|老公|妈|爸|朋友|哥|姐|弟|妹|同事)|他们?|她们?|别人)", re.IGNORECASE)


# Words that put one of several values in place of another ("a gas station instead", 换成加油站)…
_INSTEAD_OF_ONE = re.compile(r"\b(?:instead|rather)\b|换成|改成|改为|改去|换个|换一个", re.IGNORECASE)
# …and that add one more to them ("and a coffee too", 再加个咖啡).
_ONE_MORE_BESIDE = {"en": re.compile(r"\b(?:too|also|as well|and|plus|another|one more)\b", re.IGNORECASE),
                    "zh": re.compile(r"也|还要|再加|另外|再来|再")}


# What held before, said against what holds now: "…now, not 26", "…now, not no highways", 现在是X，
# 不是Y了, 以后都是X，不再是Y了.
_BEFORE_NOW = {
    "en": re.compile(r"\b(?:now|these days|from now on|any more|anymore)\b[^.;!?]*?,?\s+(?:and\s+)?(?:not|no longer)\s+"
                     r"(?P<old>[^.;!?]+)"),
    "zh": re.compile(r"(?:现在|以后|变了|改了|改成)[^。！？]*?[，,]\s*(?:不再是|不是|而不是|不再)"
                     r"(?P<old>[^，。；！？]+?)了?(?=[。！？]|$)"),
}
_NUMBER_IN = {"en": re.compile(r"\d+(?:\.\d+)?|\b(?:" + EN_NUMBER + r")\b", re.I), "zh": re.compile(ZH_NUMBER)}
# A change said as the present against the past ("…now, not fastest", 现在…，不…了).
_CHANGED_NOW = {"en": re.compile(r"\b(?:now|changed|anymore|any more|no longer|these days|instead)\b", re.I),
                "zh": re.compile(r"现在|变了|改了|不再|已经|了")}


# Words around a command that name nothing ("no wait, don't turn it off", "actually leave it on").
_COMMAND_WORDS = frozenset(content_words("not no more bit little turn switch put leave keep don't dont wait actually "
                                          "please sorry just again back now too also then them those these", "en"))
# "X就是Y", "X is on Y": a place held, said to be another by name.
_EXPLAINED = {"zh": re.compile(r"(?:就是|其实是|指的是|是在|在)"),
              "en": re.compile(r"\s(?:is|'s) (?:at|on|in|actually|just)?\s*", re.IGNORECASE)}
# What a number said alone to put a command right carries around it ("actually 20 is fine", 二十就行).
_INSTEAD = re.compile(r"\s*\b(?:instead|then|is fine|'s fine|works|is good|is ok(?:ay)?|will do|is better|"
                      r"would be (?:fine|good|better))\b\W*$|(?:就行了?|就好|也行|就可以了?|吧)吧?\W*$|"
                      r"^\W*(?:actually|hmm+|um+|uh+)\b\W*", re.IGNORECASE)
# The count said after a slip is put right: a number with a word for people, or on its own at a
# clause's end ("…no wait, five"; not "sorry, 2 of them are kids").
_REPAIRED_COUNT = re.compile(r"(?P<n>" + EN_NUMBER + r"|" + ZH_NUMBER + r")(?=\s*(?:个人|个|位|人|people|persons|of us|"
                             r"guests)|\s*(?:[,，.。!！?？]|$))", re.IGNORECASE)
# Words that settle on the number after them ("let's just say nine", "make it 8").
_SETTLES_ON = re.compile(r"(?:let'?s|let us) (?:just )?say|make (?:it|that)", re.IGNORECASE)
# A reason about the hour, said after a bare number ("…people get off work late", 下班晚).
_ABOUT_THE_HOUR = re.compile(r"\b(?:late|later|early|earlier|off work|get off|finish(?:es)? work|busy|o'?clock)\b|"
                             r"下班|晚点|早点|太早|太晚|来不及|赶不上", re.IGNORECASE)
_NUMBER_RANGE_ZH = re.compile(r"[一二两三四五六七八九]{2}")


# "不是五，是三", "别5了，三吧", "不要六个了，四个吧", "not five, three", "not 6 but 4": a number with a
# no before it, then another. When the first is the value a key holds, the second replaces it.
_VAGUE_TAIL = re.compile(r"(?:那边|那儿|那里|那块儿?|附近|一带|旁边|周边)$")
_PRECISE_LEAD = re.compile(r"^(?:具体(?:是|在|地址是)?|就是|是|在|准确(?:地)?说是?)")


def _most_precise_place(words: str) -> str:
    """Of a place said in pieces (望京那边，望京SOHO), the most precise: the last piece, without
    a vague tail (那边, 附近) or lead (具体是)."""
    pieces = [_VAGUE_TAIL.sub("", _PRECISE_LEAD.sub("", p.strip())).strip()
              for p in re.split(r"[，,；;。]", re.sub(r"[吧啊呀呢了。！!.\s]+$", "", words))]
    pieces = [p for p in pieces if len(p) >= 2]
    return pieces[-1] if pieces else words.strip()


def _masked(text: str, spans: list[Span]) -> str:
    """`text` with the spans blanked out, the same length (offsets stay valid)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


# An hour said bare right after a slip in a time ("around 7, or no, 8"), and what would make it a count.
_HOUR_MEANT_EN = re.compile(r"(?P<h>\d{1,2}|" + EN_NUMBER + r")(?::(?P<m>[0-5]\d))?\b"
                            r"(?!\s*(?:people|persons|guests|of us|adults|kids|minutes?|mins?|hours?|degrees?|"
                            r"dollars|bucks)\b)", re.IGNORECASE)


def _times_put_right(text: str, times: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The times said, with the hour said bare after a slip in one of them ("around 7, or no, 8",
    "at half six, sorry, 7") as a time too, in the same half of the day as the slip."""
    found = list(times)
    for value, _start, end in times:
        meant = put_right_after(text, end)
        hour = _HOUR_MEANT_EN.match(text, meant) if meant is not None else None
        if hour is None or any(s <= hour.start() < e for _v, s, e in times):
            continue
        h = to_int(hour.group("h"))
        if h is None or not 1 <= h <= 12:
            continue
        if int(value[:2]) >= 12 and h < 12:
            h += 12
        found.append((f"{h:02d}:{int(hour.group('m') or 0):02d}", hour.start(), hour.end()))
    return sorted(found, key=lambda t: t[1])


# What describes a kind of thing rather than names one (轻松点, 慢一点, 节奏感强, 安静, 欢快).
_A_DESCRIPTION_ZH = re.compile(r"(?:一?点|些)$|很|比较|特别|有点|挺|更|超|感|强|快|慢|轻|静|欢|柔|嗨|燃|伤|"
                               r"抒情|舒缓|动")


def _what_it_was_for_replaced(notes: str, wanted: str, state: SessionState | None, add: Add) -> None:
    """换个大一码的 … 换成43码的: what an exchange is for, said again, replaces what it was for."""
    for held in state.find(notes) if state is not None else []:
        if _WHAT_IT_IS_FOR.search(str(held.value)) and str(held.value) != wanted:
            add(Operation(Op.WITHDRAW, notes, value=held.value, words=wanted, reason=NO_LONGER_FOR), (0, 0))


def _with_its_own_noun(text: str, found: AskedFor, tails: tuple[str, ...]) -> AskedFor:
    """A kind of thing asked for, with its own noun said after it (轻松点的音乐, 节奏感强的歌): without it, it
    reads back as a bare adjective (音乐开始播放：轻松点). A name stays as said (周杰伦的歌: 周杰伦)."""
    if not _A_DESCRIPTION_ZH.search(found.text.removesuffix("的")) and not qualities_named(found.text, "zh"):
        # (来点周杰伦的: whose songs, the name alone)
        if found.text.endswith("的") and len(found.text) > 2:
            return AskedFor(found.text[:-1], found.start, found.end - 1)
        return found
    for tail in sorted((t for t in tails if t.startswith("的") and len(t) > 1), key=len, reverse=True):
        if text.startswith(tail, found.end):
            return AskedFor(text[found.start:found.end + len(tail)], found.start, found.end + len(tail))
    return found


# What a note is said with and is not part of it ("oh and…", "…by the way", 对了).
_ASIDE_AROUND_A_NOTE = re.compile(r"^(?:(?:oh|and|also|plus|btw)[,\s]+)+|[,\s]+(?:by the way|btw|too|as well)$|"
                                  r"^对了[，,]?", re.IGNORECASE)
# Some of the party, not all of it ("two of them", "one of us", "my sister", 其中有两个, 有一个朋友).
_SOME_OF_THE_PARTY = re.compile(
    r"\b(?:(?:one|two|three|four|a couple|some|a few|half)\s+of\s+(?:them|us|the (?:group|party|guests))|"
    r"(?:my|our|a)\s+(?:friend|sister|brother|mom|mum|mother|dad|father|wife|husband|partner|son|daughter|"
    r"colleague|coworker|guest|kid|child|cousin|aunt|uncle|grandma|grandpa)s?\b)|"
    r"其中|有(?:一|两|二|三|几)?(?:个|位)(?:人|朋友|同事|客人|孩子)?|(?:我|我们)?(?:的)?(?:朋友|同事|老婆|老公|爸|妈|儿子|女儿|"
    r"姐姐|妹妹|哥哥|弟弟|客人)(?:里|中)?(?:有)?", re.IGNORECASE)
# Music named as wanted, then asked for by a pronoun ("the kids want Taylor Swift, can you put some on",
# "I'm in the mood for jazz, play some").
# Music asked for, then said what, after "like" ("can you put some music on? something chill, like jazz").
_MUSIC_THEN_LIKE_EN = re.compile(
    r"\b(?:music|songs?|tunes|something|anything)\b[^.!]*?[,;?.]\s*(?P<kind>(?:something|anything)\s+[\w ]{1,20}?,\s*)?"
    r"(?:like|maybe|perhaps|say|such as|preferably|ideally)\s+(?:some\s+|a bit of\s+)?"
    r"(?P<v>[A-Za-z][\w'&-]*(?: [\w'&-]+){0,3}?)\s*(?:maybe|please|or something|or so)?\s*[.!?]*$", re.IGNORECASE)
# …or whose music, said after it (放点歌吧，周杰伦的; "play some music, Taylor Swift").
_MUSIC_THEN_WHOSE = {
    "zh": re.compile(r"(?:放|来|听|开)(?:点|首|一首|几首|些)?(?:歌|音乐)(?:吧|呗|啊)?[，,]\s*(?:要|来点|听|放)?"
                     r"(?P<v>(?![你我他她它这那])[^，,。！？!?\s的]{2,10})的(?:歌|吧|呗|就行|就好)?\s*[。！!]?$"),
    "en": re.compile(r"\b(?:music|songs?|tunes)\b[^.!?]*?[,;]\s*(?:maybe\s+|like\s+|some\s+)?"
                     r"(?P<v>[A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3})\s*(?:please)?\s*[.!]?$"),
}
_WANTED_THEN_PUT_ON_EN = re.compile(
    r"\b(?:wants?|wanna hear|(?:would|'d) like|like|love|in the mood for|feel(?:ing)? like|fancy|craving)\s+"
    r"(?:to hear\s+|some\s+|a bit of\s+)?(?P<v>[A-Za-z0-9][^,.;!?]{1,40}?)\s*[,.;]\s*(?:so\s+|and\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:put|play|throw|stick)\s+(?:some|it|them|one|a few)\b",
    re.IGNORECASE)


# A size or a colour, said of what an exchange is for (四十二码的, 大一号的, "for a medium", "in black").
_WHAT_IT_IS_FOR = re.compile(r"\d|[一二两三四五六七八九十]+\s*(?:码|号)|[大小]一?[号码]|码数|尺码|"
                             r"[红黑白蓝绿灰粉黄紫]色|"
                             r"\b(?:size|small|medium|large|x+l|colou?r|black|white|blue|red|green|grey|gray|pink|"
                             r"bigger|smaller|larger)\b", re.IGNORECASE)


# Words that take back what was just said ("go home first... no, forget it", 先回家，算了).
_TAKEN_BACK = re.compile(r"\b(?:forget (?:it|that)|never ?mind|scratch that|no no|actually no)\b|算了|不用了|还是不了",
                         re.IGNORECASE)


def _held_kept_after_a_slip(ops: list[Operation], where: dict[int, Span], text: str,
                            state: SessionState | None, schema: DomainSchema) -> list[Operation]:
    """"Go home first... no, forget it, stick with the airport", 先回家吧，算了算了，还是去机场: a value taken back
    after it was said, the one held named again after the repair, changes nothing (nor does a stop said
    on the way to the place held, named again)."""
    if state is None:
        return ops
    kept = []
    for op in ops:
        on_the_way_to = schema.key(op.key).on_the_way_to if op.key in schema.keys else ""
        held = [str(c.value) for key in (op.key, on_the_way_to) if key for c in state.find(key)] \
            if op.op == Op.SET and op.key else []
        after = text[where[id(op)][1]:] if id(op) in where else ""
        repair = SELF_REPAIR.search(after) or _TAKEN_BACK.search(after) if held and str(op.value) not in held else None
        if repair is not None and op.source != OpSource.RELATIVE and any(
                len(value) > 1 and contains(normalised(after[repair.end():]), normalised(value)) for value in held):
            continue
        kept.append(op)
    return kept


# The unit a number said to put something right carries (三个，不对，四个; "three people, no wait four").
_UNIT_AFTER = re.compile(r"\s*(?:个人|个|位|人|点|people|persons|of us|o'?clock)?", re.IGNORECASE)
# A question word inside what was said after a cue (订的名字是啥来着): it asks, it names nothing.
_ASKED_ZH = re.compile(r"啥|什么|谁|哪|来着|吗|呢")
# A degree before a value ("not too spicy", 微辣, 不要太辣, 老人不能吃太辣): less of it, not none; a
# wish in the user's words for a key whose values are refused or not (dietary).
# What the offer is said to be ("that's kinda pricey"), in a turn that asks for another ("got
# something cheaper?"): the complaint, not a wish (the one asked for is).
_SAID_OF_THE_OFFER = {"en": re.compile(r"\b(?:that'?s|it'?s|that is|it is|this is|they'?re|seems|looks|sounds)\s+"
                                       r"(?:(?:kinda|kind of|a bit|a little|pretty|quite|rather|so|way|really|"
                                       r"too|a tad)\s+)*$", re.IGNORECASE),
                      "zh": re.compile(r"(?:这家|那家|它|感觉|有点|稍微)+$")}
_LESS_OF_IT = {"en": re.compile(r"(?:\b(?:not|nothing|don'?t make it|do not make it|can'?t (?:eat|have|take|handle)"
                                r"(?: anything)?)\s+(?:too|very|that|overly|super)|"
                                r"\b(?:a (?:little|bit)|mildly|slightly|medium|lightly))\s+$", re.IGNORECASE),
               "zh": re.compile(r"(?:(?:不要|别|不用|不能|不能吃|吃不了|不敢吃|不太能吃)太|不太|微|中|少|一点点)$")}
# A word of change just before a value ("move it to", 改成): the value asked for, not one named as a reason.
_CHANGED_TO = {"en": re.compile(r"\b(?:change|move|switch|push|make)\s+(?:it|that|the \w+)?\s*(?:to|it)(?:\s+a)?\s*$|"
                                r"\b(?:instead|rather)\s+(?:on\s+)?$", re.IGNORECASE),
               "zh": re.compile(r"(?:改成|换成|改到|换到|挪到|改为|推到|调到|改)$")}
# A time someone is busy to, said as the reason for a change ("dad works till six", 他五点才下班).
# What happens at a time that is not the task's own ("the show starts at half seven", 电影七点半开场).
_ANOTHER_EVENTS_TIME = {
    "en": re.compile(r"\b(?:starts?|starting|begins?|opens?|closes?|ends?|kicks? off|lands?|landing|departs?|boards?|"
                     r"takes? off|finishes)\b", re.IGNORECASE),
    "zh": re.compile(r"开始|开场|开演|开门|关门|起飞|降落|落地|散场|结束|开会"),
}
# A clause that tells an errand of the user's own, put off to the day it names ("go home, I'll grab the
# laptop tomorrow", 公司不去了，东西明天再拿): that day is the errand's, not the task's.
_AN_ERRAND_PUT_OFF = {
    "en": re.compile(r"\b(?:i'?ll|i will|i can|i'?m going to|i'?m gonna|we'?ll|we can)\s+(?:just\s+)?(?!go\b|come\b|"
                     r"drive\b|head\b|leave\b|be\b|arrive\b|book\b|need\b|want\b|take\b|do\b|make\b|have\b|"
                     r"call\b|wait\b|pay\b|see\b|try\b|eat\b|dine\b|meet\b|get there\b)(?:grab|get|pick up|fetch|"
                     r"collect|buy|pick|drop off|return|bring|sort out|deal with)\b", re.IGNORECASE),
    "zh": re.compile(r"(?:明天|后天|下次|改天|周[一二三四五六日天]|下周[一二三四五六日天]?)(?:再|去)"
                     r"(?:拿|取|买|弄|办|搬|送|接)"),
}
_A_BOUND_BEFORE = re.compile(r"\b(?:till|until|til|'til|up to|off at|done at|finishes at|gets out at)\s+$|"
                             r"(?:干到|上班到|忙到|加班到)$", re.IGNORECASE)
# A value chosen with a word of choosing, before or after it ("let's do Italian instead", 还是日料吧).
_CHOSEN_BEFORE = re.compile(r"\b(?:let'?s (?:do|go with|have|try|get)|go with|switch to|change (?:it )?to|how about|"
                            r"what about|make it)\s+(?:some\s+|the\s+)?$|(?:改成|换成|还是|要不|那就)(?:吃|去|订)?$",
                            re.IGNORECASE)
# Words of looking for something ("looking for", "find me", "any good", 有没有, 推荐): with what kind
# is wanted, they ask for the task.
_SEEKS = {"en": re.compile(r"\b(?:look(?:ing)? for|search(?:ing)? for|find (?:me |us )?|any good|know (?:any|of|a)|"
                           r"recommend|suggest|craving|in the mood for|feel like|fancy|where can (?:i|we) (?:get|find)|"
                           r"(?:want|need|like) (?:some|a|an|to (?:get|try|have|eat|grab))|"
                           r"(?:i|we)(?: really)? (?:want|wanna|need|'d like|would like|'d love|feel like)|"
                           r"let'?s (?:do|get|have|go for|go with|try)|"
                           r"(?:is|are) there (?:any|a|an|some))\b", re.IGNORECASE),
           "zh": re.compile(r"想找|找个|找家|找一家|推荐|有没有|有什么好|想吃|想去|附近有|哪里有|哪儿有")}
# …or opens with a bare "no" after its interjections ("oh shoot, no, the interview's at nine forty five").
_OPENS_WITH_NO = re.compile(r"^\W*(?:(?:oh|uh|um|ah|shoot|oops|whoops|damn|darn|dang|crap|argh|wait)\W+)*no\b"
                            r"(?!\s*(?:thanks|thank|problem|worries|need|way|more|longer)\b)\s*[,.!;]", re.IGNORECASE)
_OPENS_WITH_A_REPAIR = re.compile(r"^(?:\W|\b(?:oh|uh|um|no|wait|hold on|hang on|sorry|actually|shoot|oops|whoops|"
                                  r"damn|darn|dang|crap|argh|ah)\b|哦|啊|呃|哎呀|哎|糟了)*"
                                  + SELF_REPAIR.pattern, re.IGNORECASE)
_AMONG_THEM = re.compile(r"\s*(?:among (?:them|us)|of (?:them|us|whom)|included|in (?:that|there))\b", re.IGNORECASE)
# Words that add a value to those said before it ("and also", 也, 还要): no slip put right.
# A slip put right in words that say so ("I mean", 不对), not an apology before one more ("no nuts, sorry, no pork";
# "no seafood, sorry…, no nuts either": a bare "no" there refuses the next value).
_PUTS_RIGHT = re.compile(r"\b(?:i mean|i meant|no wait|wait no|scratch that|strike that|or rather|make that|"
                         r"correction)\b|不对|我是说|说错了|哦不|错了", re.IGNORECASE)
# A held value refused in so many words before the one wanted (别火车站了，家吧; "not the station, home").
_HELD_REFUSED_BEFORE = re.compile(r"(?:别|不要|不去|别去|不是|不用去|\bnot|\bno)\s*(?:the\s+)?$", re.IGNORECASE)
# One character is a word of its own only said as a clause of its own: 别火车站了，家吧 (not 大家, 这家).
_ALONE = r"(?:(?<![^\s，,。！!？?：:；;])|(?<=[，,\s]是)|(?<=^是)|(?<=回)|(?<=去))" \
    r"{}(?=[吧啊呀哈嘛呢]*(?:$|[\s，,。！!？?；;]))"
# "All of them are fine" after a value (除了川菜都行, 除了川菜以外的都可以).
_ALL_FINE_AFTER_ZH = re.compile(r"\s*(?:以外|之外)?的?(?:都行|都可以|都好|随便)")
# Between two values said as alternatives: "Italian or Sichuan", "Thai, or maybe Indian", 川菜或者湘菜.
_ALTERNATIVES_BETWEEN = re.compile(r"\s*(?:food|place|restaurant)?\s*(?:maybe|perhaps|i guess|i think)?\s*,?\s*"
                                   r"(?:or(?:\s+(?:maybe|perhaps|possibly|else))?|either)\s+|"
                                   r"\s*[，,]?\s*(?:或者|或是|或|要么)\s*", re.IGNORECASE)
_CHOSEN_AFTER = re.compile(r"\s*(?:food\s+|place\s+|one\s+)?(?:instead|rather)\b|(?:菜)?吧", re.IGNORECASE)
_COUNT_ANSWERED_ZH = re.compile(r"(?P<n>" + ZH_NUMBER
                                + r")\s*个(?=\s*(?:吧|啊|呢|左右|人|的样子|就够|就行|就好|[，,。.!！?？]|$))")
# How many, asked by the user of themselves before the answer (几个人？嗯，六个), or enough said of a count
# (六个就够了): so many people, with no word for them.
_COUNT_ASKED_OR_ENOUGH_ZH = re.compile(r"几个人|几位|多少人|人数|[个位]就(?:够了?|行了?|好了?|可以了?)")


# A word of asking for a thing, refused (不想听这首, "don't play any Drake"): nothing is asked for.
_NOT_ASKED_FOR = re.compile(r"(?:不|别|甭)(?:想|要|太想)?(?:听|放|来)(?:首|一首|点)?\s*$|"
                            r"\b(?:don'?t|do not|never|no more|not)\s+(?:\w+\s+)?(?:play|put on|hear)"
                            r"\s*(?:any|some)?\s*$",
                            re.IGNORECASE)
_THIS_ONE_PLAYING = re.compile(r"这首|那首|这首歌|这个|这歌|this(?: one| song)?|that(?: one| song)?", re.IGNORECASE)
# What may come before a command's cue in its clause: fillers and ways of asking, nobody else's doing
# ("ok now take me to…", "can you navigate to…", "I need to get to…"; not "my wife is going to…").
_ASKING_LEAD_EN = re.compile(r"(?:\W|\b(?:ok(?:ay)?|so|now|and|then|please|actually|instead|hey|um+|uh+|well|just|"
                             r"no|wait|sorry|can you|could you|would you|will you|let'?s|i (?:want|need|'d like|"
                             r"would like|wanna) to|i wanna|we (?:want|need) to)\b)*")
_ASKING_LEAD_ZH = re.compile(r"(?:\W|嗯|呃|那|好|就|再|帮我|给我|请|麻烦|现在|改|我要|我想|我们|咱们|还是|算了|不对|"
                             r"直接|先)*")
# A bare "no" before a number said instead ("no, 22", 不对，二十二).
_A_BARE_NO = re.compile(r"^\s*(?:no|nah|nope|不是|不对)[\s,，.。!！]+", re.IGNORECASE)
# The words before "name" that make it the name the user gives ("the name is", "my last name is"); other
# words, said as whose ("my son's name is Leo") or naming another key ("the restaurant name is…"), do not.
_THE_USERS_NAME_EN = frozenset({"my", "the", "our", "your", "booking", "reservation", "last", "first", "full",
                                "family"})
# The words that point at a thing before its noun (把这个订位, "this booking").
_THIS_ONE = re.compile(r"^(?:把|将)?(?:这个|那个|这|那|我的|我们的|刚才的|刚才那个|(?:the|my|our|this|that)\s+)?")


def _on_the_clock(said: str, held: list[str]) -> bool:
    """Whether a time said is one held, the same on the clock (七点半 said, 19:30 held)."""
    return any(h[3:] == said[3:] and h[:2].isdigit() and said[:2].isdigit() and int(h[:2]) % 12 == int(said[:2]) % 12
               for h in held)


# What a day is said with when it is offered as the time that suits ("tomorrow morning works", 明天上午可以).
_A_DAY_SUITS = re.compile(r"\b(?:morning|afternoon|evening|night|works?|is|would|be|fine|good|great|okay|ok|"
                          r"best|better|suits?|for me|then|maybe|probably|i guess|around|about)\b|"
                          r"上午|下午|晚上|早上|中午|可以|行|都行|都可以|比较好|好", re.IGNORECASE)


# What to do if the first thing fails, said before it ("if you can't find it, just refund me", "otherwise",
# 找不到的话就退款吧, 不然就退款).
_IF_IT_FAILS = {
    "en": re.compile(r"\b(?:if|in case)\b[^.!?;]*?\b(?:can'?t|cannot|couldn'?t|won'?t|doesn'?t|don'?t|isn'?t|not|never|"
                     r"no|fails?|lost|takes? (?:ages|too long|forever|a while)|too (?:slow|long)|slow)\b[^.!?;]*?$|"
                     r"\b(?:otherwise|failing that|if not)\b[,\s]*(?:just\s+)?$",
                     re.IGNORECASE),
    "zh": re.compile(r"(?:找不到|没找到|查不到|不行|到不了|丢了|追不回)(?:的话)?[，,\s]*(?:就|那就)?[^，。！？]{0,3}$"
                     r"|(?:不然|否则|要不然)[，,\s]*(?:就)?[^，。！？]{0,3}$"
                     # (要是换货很慢的话就直接退钱吧: if the first is too slow, the other)
                     r"|(?:要是|如果|万一|假如)[^。！？]{1,12}(?:的话)?[，,\s]*(?:就|那就)[^，。！？]{0,3}$"),
}


# A number said with "instead" after it ("forget four; 2 instead", "2 instead of 4"): the value held put right.
_A_NUMBER_INSTEAD = {"en": re.compile(r"\b(?P<n>" + EN_NUMBER + r")\s+(?:instead|rather)\b", re.IGNORECASE)}
_NEVER = re.compile(r"(?!)")


# A request made softly ("if possible", "ideally", "if they have one", 最好, 如果有的话), and the words that lead
# a request without being part of it ("yes book it, and …").
_SOFTLY = re.compile(r"\b(?:if (?:possible|you can|they can|they have (?:one|it|any|them)|there(?:'s| is) one|"
                     r"available)|ideally|preferably|if at all possible)\b|最好|如果有的话|有的话|可以的话|尽量",
                     re.IGNORECASE)
_LEAD_OF_A_REQUEST = re.compile(r"^(?:(?:yes|yeah|yep|ok(?:ay)?|sure|and|also|oh|but|please|book it|go ahead|"
                                r"perfect|great)\b[,\s]*)+", re.IGNORECASE)
# The words that lead what a change is wanted for, not part of it (想换大一号的, "can I get it in black").
_LEAD_OF_A_WANT = re.compile(r"^(?:我?(?:想|要|想要|能不能|能|可以|可不可以)|给我|帮我|"
                             r"(?:can|could) (?:i|we|you) (?:get|have)|i'?d like|i want)\s*", re.IGNORECASE)


# A case supposed before what is said in it ("in case it comes tomorrow", 万一明天就到了).
_SUPPOSED = {"en": re.compile(r"\b(?:in case|what if|suppose|supposing|just in case)\b", re.IGNORECASE),
             "zh": re.compile(r"万一|假如|假设|说不定")}


def _in_a_question(text: str, span: Span) -> bool:
    """Whether the sentence around `span` is asked (it ends with a question mark, or asks)."""
    sentence = _its_sentence(text, span[0])
    return sentence.rstrip().endswith(("?", "？")) or asks(text, *span, language_of(text))


def _its_sentence(text: str, at: int) -> str:
    """The sentence `at` is in."""
    return next((sentence for s, sentence in reversed(sentences_with_offsets(text)) if s <= at), text)


def _earlier_in_its_sentence(text: str, at: int) -> str:
    """What the sentence `at` is in says before the clause of `at`."""
    start = max((s for s, _sentence in sentences_with_offsets(text) if s <= at), default=0)
    return text[start:max(start, clause_bounds(text, at, at)[0])]


def _codes_said_at(text: str, lang: str) -> list[Span]:
    """Where a number of six digits or more is said digit by digit (a phone, an order number)."""
    written = digits_said_en(text) if lang == "en" else digits_said(text)
    return [m.span() for m in re.finditer(r"\d[\d ]{4,}\d", written) if len(re.sub(r"\D", "", m.group())) >= 6]


# Between a kind of place and the place named for it: a comma and words of stopping, not one more
# ("coffee on the way, stop at a Starbucks"; not "coffee and then a stop at Walmart", 咖啡，还有超市).
_SAID_AGAIN_AS_A_PLACE = re.compile(r"[^,，.;。；]*[,，—-]\s*(?!.*\b(?:and|then|also|plus|too|as well|another)\b)"
                                    r"(?!.*(?:还有|然后|再|也|另外|顺便))[^.;。；]*", re.IGNORECASE)
# "Not first": "don't go home yet", 先别回家…拿完再回家 (with 再 after it: then there).
_NOT_YET_AFTER_EN = re.compile(r"\s*(?:just\s+)?(?:yet|first|right now|right away|straight away)\b", re.IGNORECASE)
_NOT_FIRST_ZH = re.compile(r"先(?:别|不|不要|不用)")
_THEN_ZH = re.compile(r"再|然后|之后|完了?")
_PREPOSITIONS = frozenset({"under", "as", "for", "with", "to", "by"})
_A_THING_NOT_A_NAME = re.compile(r"(?:an?|the|my|your|our|his|her|their|this|that|some|\d)\b", re.IGNORECASE)
_A_DAY_GONE = re.compile(r"yesterday|day before yesterday|last ")
_THE_ONE_OF_THAT_DAY = {"en": re.compile(r"\s+(?:one|booking|reservation)\b(?!\s+(?:instead|then|please))",
                                         re.IGNORECASE),
                        "zh": re.compile(r"的?(?:那个|那家|那单|那次|那场|那桌|的那个)")}
# In Chinese words, which have no spaces: a number, an order's code (not the identifier reader's shapes).
_CODE_IN_CHINESE_WORDS = re.compile(r"\s*[A-Za-z0-9][A-Za-z0-9-]{3,}\s*")


@dataclass(frozen=True)
class _SaidAcross:
    """A value word said around a code (订单JD88213取消吧 says 订单取消), read as a match: where
    its part after the code is said."""

    at: Span

    def span(self) -> Span:
        return self.at

    def start(self) -> int:
        return self.at[0]

    def end(self) -> int:
        return self.at[1]


def _said_across_codes(pattern: re.Pattern[str], source: str) -> list[re.Match[str] | _SaidAcross]:
    """Where `pattern` is said with a code inside it, in Chinese words (which have no spaces)."""
    codes = [m.span() for m in _CODE_IN_CHINESE_WORDS.finditer(source)]
    kept = [i for i in range(len(source)) if not any(start <= i < end for start, end in codes)]
    found: list[re.Match[str] | _SaidAcross] = []
    for m in pattern.finditer("".join(source[i] for i in kept)):
        start, end = kept[m.start()], kept[m.end() - 1] + 1
        inside = [code_end for code_start, code_end in codes if start < code_start and code_end < end]
        if inside:
            found.append(_SaidAcross((max(inside), end)))
    return found


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def _name_patterns(spec: KeySpec) -> list[re.Pattern[str]]:
    """A name after one of the key's cue words ("try Sakura"), then a name described as
    one of its nouns ("Sakura is a Japanese restaurant")."""
    shape = _NAME_SHAPES[spec.reader]
    patterns = []
    if spec.name_cues.get("en"):
        cues = "|".join(re.escape(w) for w in spec.name_cues["en"])
        patterns.append(re.compile(r"\b(?i:" + cues + r") (?P<v>" + shape + ")"))   # "Take me to X" opens a turn
    if spec.described_as.get("en"):
        nouns = "|".join(re.escape(w) for w in spec.described_as["en"])
        patterns.append(re.compile(r"^(?P<v>" + shape + r")(?= is an? (?:\w+ ){0,2}(?:" + nouns + "))"))
    return patterns


def _open_value_pattern(spec: KeySpec) -> re.Pattern[str] | None:
    """A capitalised word before one of the key's nouns or after one of its verbs."""
    parts = []
    if spec.open_value_nouns.get("en"):
        nouns = "|".join(re.escape(w) for w in spec.open_value_nouns["en"])
        parts.append(r"\b(?P<v>" + CAPITALISED_WORD_EN + r")\s+(?:" + nouns + r")\b")
    if spec.open_value_verbs.get("en"):
        verbs = "|".join(re.escape(w) for w in spec.open_value_verbs["en"])
        parts.append(r"\b(?:" + verbs + r") (?P<v2>" + CAPITALISED_WORD_EN + r")\b")
    return re.compile("|".join(parts)) if parts else None


def _held_value_said(held: Condition, before: str, lang: str) -> bool:
    """Whether `before` says the number `held` holds ("8 is too late" of 20:00, "not four" of 4 people)."""
    said = {to_int(m.group(0)) for m in _NUMBER_IN[lang].finditer(before)} - {None}
    if not said:
        return False
    value = held.value
    if isinstance(value, str) and re.fullmatch(r"\d{1,2}:\d{2}", value):
        hour = int(value[:2])
        return hour in said or (hour % 12 or 12) in said
    return isinstance(value, int) and value in said


# The top of a range said right after an amount ("30 to 50", 三百到四百).
_RANGE_TOP = {"en": re.compile(r"\s*(?:to|-|–|or)\s*\$?(?P<n>" + EN_NUMBER + r")\b", re.IGNORECASE),
              "zh": re.compile(r"\s*(?:到|至|-|~|～)\s*(?P<n>" + ZH_NUMBER + r")")}
# What a withdrawal's words carry around the name ("the", 那个, 不要了).
_WITHDRAW_TRIM = re.compile(r"^(?:the|that|this|那个|这个|那家|这家)\s*|\s*(?:stop|的)$", re.IGNORECASE)


@dataclass
class RelativeOps:
    """The operations a relative reading adds, kept aside (a change read against a value of its own)."""

    ops: list[Operation] = field(default_factory=list)

    def add(self, op: Operation, _span: Span) -> None:
        self.ops.append(op)


class RuleExtractor:
    """Rules over one utterance, guided by a domain schema and the current state."""

    def __init__(self, schema: DomainSchema) -> None:
        self.schema = schema
        self._times = schema.read_by(Reader.CLOCK_TIME)[:1]
        # (the day of another key's time first: "call me back tomorrow" is the call back's day)
        self._dates = sorted(schema.read_by(Reader.DATE), key=lambda spec: not spec.day_of)
        self._amounts = schema.read_by(Reader.AMOUNT_LIMIT)[:1]
        self._counts = schema.read_by(Reader.HEAD_COUNT)[:1]
        self._open_values = [(spec, pattern) for spec in schema.keys.values()
                             if (pattern := _open_value_pattern(spec)) is not None]
        self._names = [(spec, pattern) for spec in schema.keys.values() if spec.reader in _NAME_SHAPES
                       for pattern in _name_patterns(spec)]
        self._places = schema.read_by(Reader.PLACE_NAME)
        self._asked_for = schema.read_by(Reader.WORDS_AFTER)
        # Words that say something else, after a name spelled: no surname ("Kevin, K E V I N, Friday").
        self._around: dict[tuple[str, str], list[str]] = {}      # (`_names_around`, built once per key)
        self._not_names = frozenset(w.casefold() for lang in ("en", "zh") for w, _k, _v in schema.enum_lexicon(lang)) \
            | frozenset((*WEEKDAYS, *MONTHS, "today", "tonight", "tomorrow", "noon", "midnight", *EN_UNITS, *EN_TENS))
        self._options: dict[str, NameFinder] = {}   # key → where its options' names are said
        self._option_words: set[str] = set()        # …and the words in them ("Downtown": no surname)

    def read_option_names(self, key: str, names: Mapping[str, str]) -> None:
        """Read what a catalogue's options are called as `key`'s value, in any language and
        case: `names` maps each way one is said (辣椒屋, "Chili House"; 朝阳 for an area) to the
        value it is kept as, so a user who says either means the same."""
        said = tuple((n, v) for n, v in names.items() if n.strip())
        # (西城那边, 朝阳那块: a district said without its 区)
        bare = {n[:-1]: v for n, v in said if len(n) >= 3 and n.endswith("区") and n[:-1] not in names}
        said += tuple(bare.items())
        if not said:
            self._options.pop(key, None)
            return
        self._options[key] = name_finder(said)
        self._option_words |= {w.casefold() for n, _v in said for w in n.split()}

    def extract(self, text: str, state: SessionState | None = None, turn_class: str = "",
                *, slips_read: bool = False) -> Extraction:
        answered = self._which_control_answered(text, state)
        if answered is not None:
            return answered
        lang = language_of(text)
        if lang == "zh":
            # (名字写王小明，三横王，大小的小，明天的明: how the name is written says no day, no size)
            for start, end in character_glosses_zh(text):
                text = text[:start] + " " * (end - start) + text[end:]
        taken_up = self._later_answered(text, state)
        if taken_up is not None:
            return taken_up
        later = self._another_task_under_way(text, lang, state)
        if later is not None:
            # ("哎，还有件事，这周日中午我俩想吃个烤鸭，顺便也帮我订一下" while this booking is asked for: that
            # one is kept for after, in the user's words, and none of its values goes into this one.)
            rest = (text[:later[0]] + " " + text[later[1]:]).strip()
            result = self.extract(rest, state, turn_class, slips_read=slips_read) if rest else Extraction()
            asked = text[later[0]:later[1]].strip()
            result.operations.append(Operation(Op.LATER, value=asked, words=asked,
                                               reason="another task of its kind, asked for while one is under way"))
            return result
        if not slips_read and SELF_REPAIR.search(text):
            # "turn up the fan, no I mean the volume": read as the command for the thing meant.
            def reads(words: str) -> set[tuple[str, str]]:
                return {(op.key, str(op.value)) for op in self.extract(words, state, turn_class, slips_read=True)
                        .operations if op.op == Op.SET and op.key}
            meant = object_put_right(self.schema, text, lang, reads)
            if meant is not None:
                put_right = self.extract(meant[0], state, turn_class, slips_read=True)
                slip_said = text[meant[1][0]:meant[1][1]].strip()
                put_right.operations = [op if op.words and op.words in text else replace(op, words=slip_said)
                                        for op in put_right.operations]
                put_right.correction = True
                return put_right
        cues = STATE_CUES[lang]
        lowered = text.lower()
        source = lowered if cues.spaced else text
        result = Extraction()
        # (…and a turn that opens by putting a slip right: "oh hold on, I mean Palo Alto", 不对，是水立方.)
        opens = _OPENS_WITH_A_REPAIR.match(source)
        result.correction = bool(cues.correction.search(source)) or (
            opens is not None and _PUTS_RIGHT.search(opens.group()) is not None) \
            or bool(_OPENS_WITH_NO.match(source))     # (not "sorry to bother you")
        result.hedged = bool(cues.hedge.search(source))
        said = _Said(text, source, lang, cues)
        taken: list[Span] = []
        ops: list[Operation] = []
        withdrawn_spans: list[Span] = []

        where: dict[int, Span] = {}

        def add(op: Operation, span: Span) -> None:
            taken.append(span)
            if op.op == Op.WITHDRAW and any(o.op == Op.WITHDRAW and o.key == op.key and o.value == op.value
                                            for o in ops):
                return          # (不去充电站了，改去加油站: refused, and replaced, once)
            ops.append(op)
            where[id(op)] = span
            if op.op == Op.WITHDRAW:
                withdrawn_spans.append(span)

        self._part_put_right(said, taken, add, state)
        part_spans = list(taken)
        digits = held_code_put_right(self.schema, text, lang, state) if not taken else None
        if digits is not None:
            add(*digits)
            result.correction = True
        replaced = held_number_replaced(text, lang, state) if not taken else None
        if replaced is not None:
            add(Operation(Op.SET, replaced[0], Comparator.EQ, replaced[1], replaced[3], correction=True), replaced[2])
            result.correction = True
        self._withdrawals(said, add, state, taken)
        self._another_task(said, add, state, taken)
        self._dropped_whole(said, add, state, taken)
        self._said_before(said, state, taken, add)
        read_lifted(self.schema, text, source, lang, taken, add)
        withdrawn_keys: dict[str, list[Span]] = {}
        for op in ops:
            withdrawn_keys.setdefault(op.key, []).append(where[id(op)])
        commanded = commanded_keys(self.schema, state)
        self._command_repeated(text, commanded, state, add)
        # "Thanks for that, later!" takes leave; it moves nothing later.
        relative = read_relative_changes(self.schema, "" if CLOSING.search(text) else text, lang, state, taken, add)
        result.ask_back = relative.unanchored + relative.out_of_range + self._more_of_what_is_asked(text, state)
        result.beyond_range = read_quantities(self.schema, text, lang, taken, add, result.correction,
                                              self._asked(state))
        result.two_ways = sum_read_two_ways(self.schema, text, lang, taken)
        asked_key = self._asked(state)
        hour_asked = bool(asked_key) and self.schema.key(asked_key).type == "time"
        # (…not the hour inside a number said digit by digit: "text me at two four eight, five five five…")
        in_a_code = _codes_said_at(text, lang) if self._times else []
        for spec in self._times:
            said_times = _times_put_right(text, find_en_times(text, hour_asked=hour_asked,
                                                              bounded=spec.reading.bounds)) \
                if lang == "en" else _TIMES[lang](text)
            times = [t for t in said_times if not self._negated(text, t[1], cues)
                     and not _overlaps((t[1], t[2]), taken) and not _overlaps((t[1], t[2]), in_a_code)]
            # (六点半吧，哦不，七点，六点半太赶了: a time put right by another is not meant where it is
            # named again, as the reason)
            slipped = {t[0] for t in times if put_right_after(text, t[2]) is not None
                       and any(other[1] > t[2] and other[0] != t[0] for other in times)}
            times = [t for t in times if t[0] not in slipped] or times
            # (还是改成一点吧，十二点半怕赶不上: the time held, named again as the reason, is not the new
            # one when another is asked for with a word of change, as with days below.)
            held_times = [str(c.value) for c in state.find(spec.name)] if state is not None else []
            if any(_CHANGED_TO[lang].search(text[:t[1]]) for t in times if not _on_the_clock(t[0], held_times)):
                times = [t for t in times if not _on_the_clock(t[0], held_times)] or times
            # ("make it a quarter past seven, the sitter only gets there at half six": the time after
            # the word of change, not the one in the reason)
            changed_to = [t for t in times if _CHANGED_TO[lang].search(text[:t[1]])]
            # ("we need to be there by seven fifteen, the show starts at half seven": the time of the other
            # thing, said as the reason, is not the one asked for, where another is said)
            own = [t for t in times if not _ANOTHER_EVENTS_TIME[lang].search(clause_of(text, (t[1], t[2])))]
            times = own if len(own) < len(times) and own else times
            for value, start, end in (changed_to or times)[-1:]:
                value = self._same_half_of_day(value, spec, source, cues, state)
                if self._the_reference(spec, value, relative.written, state):
                    continue
                # ("call me back after five": any time from 17:00, where the key takes bounds)
                bound = time_bound(text, start, end) if spec.reading.bounds else ""
                add(Operation(Op.SET, spec.name, Comparator(bound) if bound else Comparator.EQ, value, text[start:end],
                              correction=result.correction), (start, end))
        dated: list[Span] = []      # (a day read for one key is no other's)
        for spec in self._dates:
            # (a day another date key holds, named again, is that key's being changed: 周五换成周六 of the call back)
            held_elsewhere = {str(c.value) for other in self._dates if other.name != spec.name
                              for c in (state.find(other.name) if state is not None else [])}
            # (周五那个先取消吧, "cancel the Friday one": the day names what was done, no change of it)
            said_dates = [d for d in _DATES[lang](text) if not _overlaps((d[1], d[2]), dated)
                          and (spec.reading.past_days or not _A_DAY_GONE.match(d[0]))
                          and not _THE_ONE_OF_THAT_DAY[lang].match(text, d[2])
                          and (spec.day_of or d[0] not in held_elsewhere)
                          and (not spec.day_of or self._the_day_of(spec, text, d[1], d[2], lang, state))]
            # (不是周五，周六，周五要加班: the day refused stays refused when it is named again as the reason.)
            refused_days = {d[0] for d in said_dates if self._negated(text, d[1], cues)}
            dates = [d for d in said_dates if not self._negated(text, d[1], cues) and d[0] not in refused_days
                     and not self._the_reference(spec, d[0], relative.written, state)
                     and not _overlaps((d[1], d[2]), withdrawn_spans)      # 星期二不要了 sets no Tuesday
                     and not _overlaps((d[1], d[2]), part_spans)           # (不是27号，是29号 of an address)
                     and not _AN_ERRAND_PUT_OFF[lang].search(clause_of(text, (d[1], d[2])))
                     # (万一明天就到了, "in case it turns up tomorrow": a day supposed, not given)
                     and not _SUPPOSED[lang].search(text[clause_bounds(text, d[1], d[2])[0]:d[1]])
                     # (明天上午十点打电话给我: the day of the call back, not of the delivery)
                     # (…or said of it earlier in the sentence, where its clause names nothing of its own: 回电话
                     # 打我手机，…，明天下午三点以后都行; not "I ordered it on the 11th and it arrived on the 20th")
                     and not (about_something_else(spec, clause_of(text, (d[1], d[2])) + " " + (
                                  _earlier_in_its_sentence(text, d[1])
                                  if _TIMES[lang](clause_of(text, (d[1], d[2]))) else ""), lang)
                              and not names_key(spec, text[d[2]:clause_bounds(text, d[1], d[2])[1]]
                                                + " " + text[clause_bounds(text, d[1], d[2])[0]:d[1]], lang))]
            # (改成下周六吧，周五好多人加班: the day held, named again as the reason, is not the new one
            # when another is asked for with a word of change; 周四不行，还是周五吧 keeps it.)
            held_days = [str(c.value) for c in state.find(spec.name)] if state is not None else []
            if any(_CHANGED_TO[lang].search(text[:d[1]]) for d in dates
                   if not any(h == d[0] or h.endswith(" " + d[0]) for h in held_days)):
                dates = [d for d in dates if not any(h == d[0] or h.endswith(" " + d[0]) for h in held_days)] or dates
            # (改成下下周三吧，周二我要加班: the day after the word of change, not the one in the reason)
            changed_to = [d for d in dates if _CHANGED_TO[lang].search(text[:d[1]])]
            for value, start, end in (changed_to or dates)[-1:]:
                add(Operation(Op.SET, spec.name, Comparator.EQ, value, text[start:end], correction=result.correction),
                    (start, end))
                dated.append((start, end))
                # ("a table for dinner this Thursday, no wait, Friday": the day put right is no wish either)
                taken.extend((d[1], d[2]) for d in dates if d[2] <= start and SELF_REPAIR.search(text[d[2]:start]))
        for spec in self._amounts:
            self._amount(spec, said, taken, add, result.correction)
        for spec in self._counts:
            last_asked = state.last_act.key if state is not None and state.last_act.act == "ask" else ""
            asked_type = self.schema.key(last_asked).type if last_asked else ""
            time_read = any(op.op == Op.SET and op.key and self.schema.key(op.key).type == "time" for op in ops)
            # ("for 8 please" to "what time?" is the hour; "Saturday at 7 for 4" is the party.)
            self._head_count(spec, said, taken, add, result.correction,
                             for_n_is_the_hour=asked_type == "time" and not time_read
                             or asked_type == "date" and not taken, asked=last_asked == spec.name)
        last = state.last_act if state is not None else NO_ACT
        asked = last.key if last.act == "ask" else ""
        read_emails(self.schema, text, taken, add, result.correction)     # (before codes: "jo 12 at gmail dot com")
        if state is not None:
            read_codes_put_right(self.schema, text, lang, taken, add,
                                 {c.key: str(c.value) for c in state.constraints.values()})
        read_identifiers(self.schema, text, lang, taken, add, result.correction,
                         frozenset({asked}) | (self._codes_put_right(text, lang, state) if SELF_REPAIR.search(text)
                                               else frozenset()))
        read_avoided(self.schema, text, source, lang, taken, add, result.correction)
        # An option's name before the enums: 海底捞火锅 names a place, not a wish for hotpot.
        self._option_named(said, taken, add, result.correction, state)
        self._stations(said, taken, add, result.correction)
        self._things_asked_for(said, taken, add, result.correction, state, commanded)
        self._titled_name(said, taken, add, result.correction, state)
        read_stops_said_first(self.schema, text, lang, taken, add)     # (先去幼儿园，再去公司: a stop, then where to)
        read_stops_first_after(self.schema, text, lang, taken, add,     # (去公司，先回趟家: the same, said after)
                               going_held=state is not None and any(
                                   state.find(spec.on_the_way_to) for spec in self.schema.keys.values()
                                   if spec.on_the_way_to))
        self._places_named(said, taken, add, result.correction, state)
        self._place_explained(said, taken, add, state)
        self._enums(said, taken, add, result.correction, withdrawn_keys, state, commanded)
        self._loose_values(said, ops, taken, add, result.correction, state)
        self._what_it_is_changed_for(ops, where, said.text, add, result.correction, state)
        self._notes_of_another_way(ops, state, said.lang, add)
        # (路上找个地方停一下，买个早饭: the clause that asked for the stop is the stop's, no wish)
        # (…not a note's: 鞋子寄错尺码了，帮我换一双四十二码的 notes both)
        taken.extend(before for op in ops if op.op == Op.SET and op.key and id(op) in where
                     and self.schema.key(op.key).reader != Reader.FREE_TEXT
                     and (before := asked_for_just_before(self.schema.key(op.key), text, where[id(op)], lang)))
        # ("I gotta get to work, the office on Harbor Road": the kind said again is that one place.)
        on_a_street = {op.key for op in ops if op.reason == ON_A_STREET}
        ops[:] = [op for op in ops if not (op.key in on_a_street and op.op == Op.SET and op.reason != ON_A_STREET
                                           and str(op.value) in self.schema.key(op.key).values)]
        ops[:] = not_either_or(self.schema, ops, text, where)
        ops[:] = it_is_the_noise(self.schema, feeling_met_by_a_command(self.schema, ops, text, where), text, where)
        # (我屁股有点冷，开一下座椅加热: the seat heating meets the cold; the cabin is not asked about.)
        carried_out = {op.key for op in ops if op.op == Op.SET and op.source != OpSource.RELATIVE}
        result.ask_back = [key for key in result.ask_back
                           if not (carried_out & set(self.schema.key(key).reading.eased_by) and A_FEELING.search(text)
                                   and not UP_OR_DOWN.search(A_FEELING.sub(" ", text)))]
        ops[:] = errand_called_off(self.schema, it_is_what_was_dropped(self.schema, ops, text, where), text, where)
        ops[:] = level_over_its_step(self.schema, ops, text, where)
        ops[:] = the_errands_day(self.schema, refined(self.schema, ops, text, where), text, where, lang)
        ops[:] = not_set_aside_by_its_reason(self.schema, taken_back_not_set_aside(self.schema, ops, text, state),
                                             text, where)
        ops[:] = a_step_along_its_scale(self.schema, step_moves_the_level(self.schema, ops, state), text, where, state)
        # ("crack the driver's window", 副驾的座椅加热开一下: the value read for the whole is its side's)
        ops[:] = on_their_sides(self.schema, ops, text, where, lang, commanded)
        self._a_fallback(ops, where, text, lang, state, add)
        self._asked_softly(ops, where, text, add, state)
        self._a_need_of_some(ops, where, text, add)
        # (别走高速，今天想走小路: "today" in the sentence keeps its lasting wishes to this trip; the words kept
        # with them say so, and the profile does not learn them)
        for i, op in enumerate(ops):
            sentence = _its_sentence(text, where[id(op)][0]) if id(op) in where else ""
            if op.op == Op.SET and op.key in self.schema.keys and self.schema.key(op.key).durable \
                    and not THIS_TIME_ONLY.search(op.words) and THIS_TIME_ONLY.search(sentence):
                ops[i] = replace(op, words=sentence.strip())
                where[id(ops[i])] = where[id(op)]
        ops[:] = feeling_met_by_its_level(self.schema, ops, [op.key for op in ops if op.op == Op.SET and op.key
                                                             and op.source != OpSource.RELATIVE]
                                          + [b.key for b in result.beyond_range])
        self._left_behind(ops, text, state, add)
        self._bare_number_corrects(said, ops, taken, add, state, where)
        self._number_answered(said, ops, state, add, result.correction, commanded)
        self._choice_answered(said, ops, state, add)
        self._left_to_the_agent(said, ops, state, add)
        if lang == "en":          # the name shapes are English capitalisation
            self._open_and_named(text, taken, add, result.correction, ops)
            ops = learned_operations(self.schema, text, state, ops, taken, result.correction)   # values.py
        # Last: what no reader took and still asks for something is kept in the user's words.
        # (A learned value, read without a span, covers its words.)
        spans = list(taken) + [(at, at + len(str(op.value))) for op in ops if op.op == Op.SET
                               and (at := text.lower().find(str(op.value).lower())) >= 0]
        spans += [m.span() for m in SELF_REPAIR.finditer(text)]      # ("no wait" puts a slip right; it is no wish)
        primary = self.schema.primary_action()
        if not (primary is not None and calls_off(text, primary) and not any(op.op == Op.SET for op in ops)):
            # ("I need to cancel that, something came up": the reason for calling off is no wish;
            # a turn that also sets a value is no calling off, and its wishes are kept.)
            read_wishes(self.schema, text, lang, spans, add, result.correction, state)
        if state is not None and not state.goal and (self._mentions_goal(source, lang, cues)
                                                     or self._seeks_an_option(ops, source, lang)):
            goal = self.schema.goal_text.get(lang) or self.schema.goal_text.get("en", "")
            if goal:
                ops.insert(0, Operation(Op.SET_GOAL, value=goal, words=text.strip()))
        if ops and turn_class != TurnClass.CONFIRMATION and self._polarity(lowered, cues) == "yes" \
                and not self._changes_held(ops, state) and not ANOTHER_PLACE.search(text):
            ops.insert(0, Operation(Op.CONFIRM, words=text.strip()))   # "Yes, and the name is Ward"
        elif turn_class == TurnClass.CONFIRMATION or (not ops and self._is_bare_answer(lowered, cues)) or (
                not ops and state is not None and bool(state.proposal)):
            # The last includes a longer answer to the agent's offer: "Alright, that seems good.
            # I would like to make a booking at this restaurant."
            result.polarity = self._polarity(lowered, cues)
            if result.polarity == "yes":
                ops.append(Operation(Op.CONFIRM, words=text.strip()))
            elif result.polarity == "no":
                ops.append(Operation(Op.REJECT, words=text.strip()))
        # "Earlier, at half six": a value said outright wins over the change said beside it.
        # The change words still say it is a change, not a slip or a second thought to ask about
        # (行，那就晚一点吧，七点半 after seven o'clock was agreed).
        # (…but not a bound in a reason beside it: "half an hour later, dad works till six")
        relative_at = {op.key: clause_bounds(text, *where[id(op)]) for op in ops
                       if op.source == OpSource.RELATIVE and id(op) in where}
        ops = [op for op in ops if not (op.op == Op.SET and op.source != OpSource.RELATIVE and op.key in relative_at
                                        and id(op) in where and _A_BOUND_BEFORE.search(text[:where[id(op)][0]])
                                        and clause_bounds(text, *where[id(op)]) != relative_at[op.key])]
        ops = self._moved_from_the_slip(ops, where, text, lang, state, result)
        ops = self._place_put_right(_held_kept_after_a_slip(ops, where, text, state, self.schema), where, text)
        # (not a value refused: "别高档一点的了，便宜点的吧" steps down from the price held)
        said_outright = {op.key for op in ops if op.op == Op.SET and op.source != OpSource.RELATIVE
                         and op.comparator != Comparator.NE}
        moved = {op.key for op in ops if op.source == OpSource.RELATIVE and op.key in said_outright}
        ops = [replace(op, correction=True) if op.op == Op.SET and op.key in moved else op
               for op in ops if op.source != OpSource.RELATIVE or op.key not in said_outright]
        ops = [replace(op, correction=True) if self._commanded_anew(op, where.get(id(op)), said, result.hedged) else op
               for op in ops]
        ops = settle(self.schema, self._put_right(ops, where, text, state))
        if result.hedged:
            # A hedge reaches the values of its own clause ("maybe six?"), not the whole turn
            # ("I don't think I might like them. Can you find me some Adventure movies?").
            ops = [replace(o, hedged=True) if o.op == Op.SET and self._hedged_clause(text, o, cues) else o
                   for o in ops]
        result.operations = ops
        return result

    def _the_day_of(self, spec: KeySpec, text: str, start: int, end: int, lang: str,
                    state: SessionState | None) -> bool:
        """Whether the day at text[start:end] is the day of `spec.day_of`'s time: said when that was
        asked for ("When should we call?" "Tomorrow after three"), as a change of it where it is the
        only day held, or beside the key's cues in its clause or, where a time is beside it, earlier
        in its sentence (回电话打我手机，明天下午三点以后都行)."""
        if self._asked(state) in (spec.name, spec.day_of):
            return True
        clause = clause_of(text, (start, end))
        # (the only day held, changed: "instead of Sunday, let's do Saturday" of the call back's day)
        if state is not None and state.find(spec.name) and not any(
                state.find(other.name) or names_key(other, clause, lang)
                for other in self._dates if other.name != spec.name):
            return True
        # (a time beside it in its sentence, where the key's time is the domain's only one and no other day's
        # words are said: 明天上午十点左右打吧, "call tomorrow around ten", "tomorrow morning works, like around 10")
        # (…or in its sentence, where its clause says only that the day suits: "tomorrow morning works, like
        # around 10"; not "it should have come Monday, can you call me back at 5")
        rest = _A_DAY_SUITS.sub(" ", clause.replace(text[start:end], " "))
        sentence = _its_sentence(text, start) if not content_words(rest, lang) else clause
        bounded = any(t.reading.bounds for t in self._times)     # ("tomorrow after 3 works best": a bound is its time)
        times = find_en_times(sentence, bounded=bounded) if lang == "en" else _TIMES[lang](sentence)
        if times and [t.name for t in self._times] == [spec.day_of] and not any(
                names_key(other, sentence, lang) for other in self._dates if other.name != spec.name):
            return True
        # (…the clause before it, where it has a time beside it or is the day alone: "For the callback, Sunday.")
        alone = not content_words(clause.replace(text[start:end], " "), lang)
        return with_its_cues(spec, clause + " " + (_earlier_in_its_sentence(text, start)
                                                   if _TIMES[lang](clause) or alone else ""), lang)

    def _changes_held(self, ops: list[Operation], state: SessionState | None) -> bool:
        """Whether `ops` replace a value held ("okay actually push it half an hour later", 嗯那晚半小时吧):
        the yes before such a change agrees to nothing yet; what changed is read back first."""
        return state is not None and any(
            op.op == Op.SET and op.key in self.schema.keys and not self.schema.key(op.key).multi
            and any(str(c.value) != str(op.value) for c in state.find(op.key)) for op in ops)

    def _commanded_anew(self, op: Operation, span: Span | None, said: _Said, hedged: bool) -> bool:
        """Whether `op` sets a key of an action carried out without a read-back, said after one of
        the key's words of going there ("navigate to the mall", 导航去三里屯, with a route set), by the
        user to the agent (`_ASKING_LEAD_*`): a new command, carried out as the first was, not a
        change to ask about. Hedged ("maybe take me home?") or asked (回家吗？) it is still asked about."""
        if op.op != Op.SET or op.correction or span is None \
                or (hedged and self._hedged_clause(said.text, op, said.cues)) \
                or re.match(r"\s*(?:吧|好了)?\s*[吗呢？?]", said.text[span[1]:]) or not any(
                    not action.confirm and op.key in action.triggers for action in self.schema.actions.values()):
            return False
        # (A cue's verb alone goes before a value that is its own place: "take me home"; 回家 says it.)
        cues = {stem for cue in self.schema.key(op.key).name_cues.get(said.lang, ())
                for stem in (cue, re.sub(r"\s+to$|[去到至]$", "", cue)) if stem}
        before = said.source[clause_bounds(said.text, span[0], span[1])[0]:span[0]]
        if said.lang == "en":
            before = re.sub(r"\s*\b(?:the|a|an|my|our)\s*$", "", before)
            return any((m := re.search(r"(?<![\w'])" + re.escape(cue.lower()) + r"\s*$", before))
                       and _ASKING_LEAD_EN.fullmatch(before[:m.start()]) for cue in cues)
        # (Said by the driver to the car, not of someone else: 我朋友明天要去国贸 changes nothing.)
        return any(before.endswith(cue) and _ASKING_LEAD_ZH.fullmatch(before[:len(before) - len(cue)])
                   for cue in cues) or bool(re.match(r"回|去|到", said.source[span[0]:span[1]])
                                            and _ASKING_LEAD_ZH.fullmatch(before))

    def _said_before(self, said: _Said, state: SessionState | None, taken: list[Span], add: Add) -> None:
        """"It's 20 now, not 26", 现在是发邮件，不是发短信了: the part that names what held before is
        no new value. A value held that it names is taken back (a set-valued key keeps the
        new one beside it otherwise); nothing else is read from it."""
        text, source, lang, cues = said.text, said.source, said.lang, said.cues
        m = _BEFORE_NOW[lang].search(source)
        if m is None:
            return
        old = m.span("old")
        held = {(c.key, str(c.value)) for c in state.constraints.values()} if state is not None else set()
        # A value's own words, and the things whose refusal means it ("motorways" → avoid_highways).
        avoided = [(word, spec.name, value) for spec in self.schema.keys.values()
                   for value, table in spec.reading.avoided.items() for word in table.get(lang, ())]
        for word, key, value in [*self.schema.enum_lexicon(lang), *avoided]:
            if (key, value) not in held or not self.schema.key(key).multi:
                continue
            if re.search(value_pattern(word, cues.spaced), source[old[0]:old[1]]):
                add(Operation(Op.WITHDRAW, key, value=value, words=text[old[0]:old[1]],
                              reason="the user said it was so before, not now"), old)
                held.discard((key, value))
        # A number held, named as the old one ("…20 now, not 26", 以后都是20，不再是二十七了): the
        # number said before it is that key's new value.
        number = _NUMBER_IN[lang]
        said_old = {n for found in re.finditer(number, source[old[0]:old[1]]) if (n := to_amount(found.group(0)))}
        new = [found for found in re.finditer(number, source[: old[0]]) if not _overlaps(found.span(), taken)]
        for condition in list(state.constraints.values()) if state is not None and new else []:
            value = condition.value
            if isinstance(value, bool) or not isinstance(value, int | float) or float(value) not in said_old:
                continue
            spec = self.schema.key(condition.key)
            said_now = new[-1]
            n = to_amount(said_now.group(0)) if spec.type == "money" else to_int(said_now.group(0))
            limits = spec.reading.value_range
            if n is not None and not (limits and not limits[0] <= n <= limits[1]):
                add(Operation(Op.SET, condition.key, condition.comparator, n, clause_of(text, said_now.span())),
                    said_now.span())
            break
        taken.append(old)

    def reads_condition(self, text: str) -> bool:
        """Whether the rules read a condition from `text` (used by the turn classifier).

        A bare "today" is how small talk mentions time ("lovely weather today"), so it
        alone does not make a turn an information change.
        """
        extraction = self.extract(text, None)
        # (A change said with nothing held, "still too hot": asked back, so read.)
        return bool(extraction.ask_back) or any(op.op in (Op.SET, Op.WITHDRAW) and not self.small_talk_value(op)
                                                for op in extraction.operations)

    def _which_control_answered(self, text: str, state: SessionState | None) -> Extraction | None:
        """"The fan", 风量: the answer to "which should I change?", asked of a verb said with no
        control named ("turn it down a notch"): that verb, for the control named now."""
        last = state.last_act if state is not None else NO_ACT
        said = str(last.args.get("said", "")) if last.act == "clarify" and last.key == WHICH_CONTROL else ""
        lang = language_of(text)
        named = [k for k, spec in self.schema.keys.items() if spec.reading.verb_values and names_key(spec, text, lang)]
        if not said or not named or any(op.op == Op.SET and op.key in named
                                        for op in self.extract(text).operations):
            return None         # ("Close the windows": a command of its own, not the answer)
        joined = f"{text.rstrip(' .!')}, {said}" if lang == "en" else f"{text.rstrip('。！')}，{said}"
        ops = [replace(op, words=text.strip(), source=OpSource.RELATIVE, reason="the control asked about, named")
               for op in self.extract(joined).operations if op.op == Op.SET and op.key in named]
        return Extraction(operations=ops) if ops else None

    @staticmethod
    def _asked(state: SessionState | None) -> str:
        """The key the agent just asked for: its question ("What day?"), or a question the state
        raised last turn ("I don't have the cabin temperature yet: what should it be?", "72 degrees
        Fahrenheit is about 22 degrees. Shall I set…?": "no, 21" answers it too)."""
        if state is None:
            return ""
        asking = (QuestionKind.OPEN, QuestionKind.CLARIFY)
        return state.asked_key or next((p.key for p in state.pending if p.kind in asking and p.key
                                        and p.turn == state.turn), "")

    def values_read(self, text: str) -> int:
        """How many values the rules set or withdraw from `text`, said first."""
        return sum(1 for op in self.extract(text, None).operations if op.op in (Op.SET, Op.WITHDRAW))

    def small_talk_value(self, op: Operation) -> bool:
        """A reading small talk makes too: a bare "today" ("lovely weather today")."""
        return self.schema.key(op.key).reader == Reader.DATE and op.value == "today"

    # --- pieces -------------------------------------------------------------------------

    @staticmethod
    def _hedged_clause(text: str, op: Operation, cues: StateCues) -> bool:
        at = text.find(op.words) if op.words else -1
        clause = clause_of(text, (at, at + len(op.words))) if at >= 0 else text
        return bool(cues.hedge.search(clause.lower() if cues.spaced else clause))

    @staticmethod
    def _the_reference(spec: KeySpec, value: Any, moved: list[str], state: SessionState | None) -> bool:
        """The value held, said in a turn that moves it ("周五我要加班，能不能往后推一天"): what it is
        moved from, not a value set again over the move."""
        return spec.name in moved and state is not None and any(c.value == value for c in state.find(spec.name))

    @staticmethod
    def _negated(text: str, start: int, cues: StateCues) -> bool:
        """'not tonight', 'instead of Saturday', '不是周六': not a value to write."""
        return negated_at(text, start, cues)

    @staticmethod
    def _same_half_of_day(value: str, spec: KeySpec, source: str, cues: StateCues, state: SessionState | None) -> str:
        """An hour said without its half of the day: '改成八点' after 19:00 means 20:00 (the
        current time's half of the day), and 'seven' for a table means 19:00 when the key's
        declared hours (`range`) hold only that one. A period the utterance names wins."""
        hour, minute = (int(p) for p in value.split(":"))
        hours = spec.reading.value_range
        if not cues.period_of_day.search(source) and hours is not None and 13 <= hour <= 22 \
                and not hours[0] <= hour <= hours[1] and hours[0] <= hour - 12 <= hours[1]:
            return f"{hour - 12:02d}:{minute:02d}"     # ("call me tomorrow at ten": in the hours calls are made)
        if cues.period_of_day.search(source) or not 1 <= hour < 12:
            return value
        later = f"{hour + 12:02d}:{minute:02d}"
        if hour + 12 >= 23:
            return value        # (改成11:30 after 20:30 is half past eleven in the morning, not near midnight)
        held = state.find(spec.name) if state is not None else []
        current = str(held[0].value) if held else ""
        if re.fullmatch(r"\d\d:\d\d", current) and int(current[:2]) >= 12:
            return later
        if hours is not None and not hours[0] <= hour <= hours[1] and hours[0] <= hour + 12 <= hours[1]:
            return later
        return value

    def _seeks_an_option(self, ops: list[Operation], source: str, lang: str) -> bool:
        """Whether the turn looks for an option of the task, saying what kind ("I'm looking for a thai
        place", "can you find me a sushi place downtown", 有没有好吃的川菜): the task, asked for."""
        primary = self.schema.primary_action()
        kinds = set(primary.chosen_by) if primary is not None else set()
        return bool(kinds) and _SEEKS[lang].search(source) is not None and any(
            op.op == Op.SET and op.key in kinds for op in ops)

    def _mentions_goal(self, source: str, lang: str, cues: StateCues) -> bool:
        words = self.schema.goal_words.get(lang, ()) + self.schema.goal_words.get("en", ())
        return any(re.search(cue_pattern((w,), spaced=cues.spaced), source) for w in words)

    def is_bare_answer(self, text: str) -> bool:
        """A short answer ("yes, please", 好的): at most the language's few words."""
        return self._is_bare_answer(text.lower(), STATE_CUES[language_of(text)])

    @staticmethod
    def _is_bare_answer(lowered: str, cues: StateCues) -> bool:
        return (len(lowered.split()) if cues.spaced else len(lowered)) <= cues.max_answer_words

    @staticmethod
    def _polarity(lowered: str, cues: StateCues) -> Polarity:
        if cues.no.search(lowered):
            return "no"
        if YES_WORD_DESCRIBING.search(lowered) or HOLD_ON.search(lowered) or A_YES_BUT.search(lowered) \
                or opens_a_question(lowered):
            # "lovely weather today, isn't it?": small talk; "yes — hold on": not yet a yes; "嗯，你刚才记下时间了吗？":
            # the nod opens a question
            return ""
        return "yes" if cues.yes.search(lowered) else ""

    @staticmethod
    def _head_count(spec: KeySpec, said: _Said, taken: list[Span], add: Add, correction: bool, *,
                    for_n_is_the_hour: bool = False, asked: bool = False) -> None:
        text, source, cues = said.text, said.source, said.cues
        if RuleExtractor._head_count_in_groups(spec, said, taken, add, correction):
            return
        said_at = -1      # where the count written ends: another is read after it only past a slip put right
        # (Asked how many, 就五个吧，中午十一点半: so many, with no word for people.)
        # (…or put right after a slip: 四个人吧，哦不对，算上我老婆是五个)
        answer = (_COUNT_ANSWERED_ZH,) if said.lang == "zh" and (
            asked or _COUNT_ASKED_OR_ENOUGH_ZH.search(source) or SELF_REPAIR.search(source)) else ()
        for pattern in (*cues.head_count, *answer):
            for m in pattern.finditer(source):
                span = m.span("n")
                if said_at >= 0 and not (m.start() > said_at and (SELF_REPAIR.search(source[said_at:span[0]])
                                                                  or COUNTING_IN_ZH.search(source[said_at:span[0]]))):
                    continue      # (四个人吧，哦不对，我老婆她妈也来，五个人: the count after the slip stands;
                    # 四个人，加上我老婆五个人: so does the whole counted with one more in it)
                if _overlaps(span, taken) or RuleExtractor._negated(text, m.start(), cues):
                    continue      # "not four people but six": the refused count is not written
                if for_n_is_the_hour and m.group().lower().startswith("for "):
                    continue      # "for 8 please" to "what time?" is the hour, not the party
                if re.match(r"\s*(?:more|extra|additional)\b", source[span[1]:], re.IGNORECASE) \
                        or re.search(r"(?:再|多|加|又|另外)来?$", source[:span[0]]):
                    continue      # "one more person is coming", 再来一个人: how many more, not the party
                n = to_int(m.group("n"))
                if re.fullmatch(r"[一二两三四五六七八九]{2}", m.group("n")):
                    continue      # (六七个: a guess between two, no count)
                if n == 1 and PER_PERSON.search(clause_of(source, span)):
                    continue      # "多少钱一位?": a price's unit, not a party of one
                repaired = RuleExtractor._count_put_right(source, m.end(), taken)
                if repaired is not None:
                    n, (start, end) = repaired
                    span, m_start, m_end = (start, end), m.start(), end
                else:
                    m_start, m_end = m.start(), m.end()
                if n is not None and 1 <= n <= 200:
                    add(Operation(Op.SET, spec.name, Comparator.EQ, n, text[m_start:m_end],
                                  correction=correction or said_at >= 0), span)
                    said_at = m_end
        party = party_named(source, said.lang) if said_at < 0 else None
        if party is not None and not _overlaps(party[1], taken) \
                and not RuleExtractor._negated(text, party[1][0], cues):
            # "just me and my wife", "me, my wife and our two kids", 我跟老婆孩子三个: said as who comes
            # (its words still the other readers': "me and my wife and our baby" needs a high chair).
            n, (start, end) = party
            add(Operation(Op.SET, spec.name, Comparator.EQ, n, text[start:end], correction=correction), (start, start))

    def _asked_softly(self, ops: list[Operation], where: dict[int, Span], text: str, add: Add,
                      state: SessionState | None) -> None:
        """"Yes book it, and by the window if possible" to a place with no window seats: a detail the task
        can go without, asked for softly, that the place in view does not have, is a request kept in the
        user's words, not a condition that turns the place down. (With no place in view, or one that has
        it, the detail is a condition as any: it picks the place.)"""
        notes = free_text_key(self.schema)
        action = self.schema.primary_action()
        option = state.option_in_view if state is not None else None
        if notes is None or action is None or option is None:
            return
        firm = set(action.needs) | set(action.chosen_by)
        for op in list(ops):
            if op.op != Op.SET or op.key not in action.optional or op.key in firm or op.key == notes.name \
                    or id(op) not in where or self.schema.key(op.key).type != "enum" \
                    or op.comparator not in (Comparator.EQ, Comparator.INCLUDES):
                continue
            has = option.about.get(op.key)
            if has is None or str(op.value) in (map(str, has) if isinstance(has, list) else [str(has)]):
                continue      # (nothing known of it there, or the place has it: it is asked for as it is)
            left, right = clause_bounds(text, *where[id(op)])
            if not _SOFTLY.search(text[left:right]):
                continue
            said = _LEAD_OF_A_REQUEST.sub("", text[left:right].strip()).strip(" ,，。.")
            ops.remove(op)
            add(Operation(Op.SET, notes.name, Comparator.INCLUDES, said, said, correction=op.correction,
                          reason=f"{op.key} {op.value}, asked for softly"), (left, right))

    def _place_put_right(self, ops: list[Operation], where: dict[int, Span], text: str) -> list[Operation]:
        """先回家，不对，去公司, "a stop at home, no wait, just take me to work": a stop put right by where to go,
        said just after the repair, is no stop; and one place said both as a
        stop and as where to go (我先回趟家拿个文件，目的地改成回家) is where to go."""
        places = [op for op in ops if op.op == Op.SET and op.key in self.schema.keys and id(op) in where
                  and self.schema.key(op.key).reader == Reader.PLACE_NAME]
        dropped: set[int] = set()
        for op in places:
            meant = put_right_after(text, where[id(op)][1])
            # (not "导航去公司，呃不对，先回趟家拿东西": a stop first, said after where to go, goes on the way)
            if meant is not None and self.schema.key(op.key).multi and any(
                    other.key != op.key and not self.schema.key(other.key).multi and where[id(other)][0] >= meant
                    for other in places):
                dropped.add(id(op))
        def same_place(other: Operation, value: object) -> bool:
            words = {w.casefold() for table in [self.schema.key(other.key).values.get(str(other.value), {})]
                     for ws in table.values() for w in ws}
            return other.value == value or str(value).casefold() in words

        for op in places:
            if self.schema.key(op.key).multi and any(
                    other.key != op.key and not self.schema.key(other.key).multi and same_place(other, op.value)
                    for other in places):
                dropped.add(id(op))
            # "grab coffee on the way, stop at a Starbucks": the place named just after a kind of place,
            # with nothing that adds one more between them, is where that kind is had: one stop.
            spec = self.schema.key(op.key)
            if spec.multi and str(op.value) in spec.values and any(
                    other.key == op.key and str(other.value) not in spec.values
                    and where[id(op)][1] <= where[id(other)][0]
                    and _SAID_AGAIN_AS_A_PLACE.fullmatch(text[where[id(op)][1]:where[id(other)][0]])
                    for other in places):
                dropped.add(id(op))
        return [op for op in ops if id(op) not in dropped]

    def _a_need_of_some(self, ops: list[Operation], where: dict[int, Span], text: str, add: Add) -> None:
        """"Two of them are vegetarian", 其中有两个同事吃素: a need of some of the party asks for no place of that
        kind (every place can serve a vegetarian dish); it goes on the booking in the user's words."""
        notes = free_text_key(self.schema)
        if notes is None:
            return
        for op in list(ops):
            if op.op != Op.SET or op.comparator != Comparator.INCLUDES or id(op) not in where or op.key == notes.name \
                    or str(op.value) not in self.schema.key(op.key).affirmed_values:
                continue
            left, right = clause_bounds(text, *where[id(op)])
            if not _SOME_OF_THE_PARTY.search(text[left:right]):
                continue
            said = _ASIDE_AROUND_A_NOTE.sub("", text[left:right].strip(" ,，。.")).strip(" ,，。.")
            ops.remove(op)
            add(Operation(Op.SET, notes.name, Comparator.INCLUDES, said, said, correction=op.correction,
                          reason=f"{op.key} {op.value}, for some of the party"), (left, right))

    def _a_fallback(self, ops: list[Operation], where: dict[int, Span], text: str, lang: str,
                    state: SessionState | None, add: Add) -> None:
        """"Where's my package?" … "if you can't find it, just refund me", 找不到的话就退款吧: another value of a
        key held, said for the case the first fails, is no change of it; it goes on the record as said."""
        notes = free_text_key(self.schema)
        if state is None or notes is None:
            return
        for op in list(ops):
            spec = self.schema.keys.get(op.key) if op.op == Op.SET and op.key and id(op) in where else None
            # (the first said in this turn, where none is held: "I want a new one, but if that's slow, refund me")
            first = [o for o in ops if o is not op and o.op == Op.SET and o.key == op.key and id(o) in where
                     and where[id(o)][1] <= where.get(id(op), (0, 0))[0]]
            held = (state.find(op.key) or [Condition(op.key, Comparator.EQ, first[0].value, "", state.turn)]
                    if first else state.find(op.key)) if spec is not None else []
            if spec is None or spec.multi or spec.type != "enum" or not held or str(held[0].value) == str(op.value):
                continue
            start, end = where[id(op)]
            opens = max((s for s, _sentence in sentences_with_offsets(text) if s <= start), default=0)
            condition = _IF_IT_FAILS[lang].search(text[opens:start])
            if condition is None:
                continue
            # (from the condition on: "if that takes ages, just refund me", 要是换货很慢的话就直接退钱吧)
            opens += condition.start()
            said = text[opens:clause_bounds(text, start, end)[1]].strip()
            ops.remove(op)
            add(Operation(Op.SET, notes.name, Comparator.INCLUDES, said, said,
                          reason=f"what to do if {held[0].value} fails"), (opens, opens + len(said)))

    def _moved_from_the_slip(self, ops: list[Operation], where: dict[int, Span], text: str, lang: str,
                             state: SessionState | None, result: Extraction) -> list[Operation]:
        """"时间定六点半，哦不，提前一个小时吧": a change said after a slip moves the value said
        before it in the same turn (17:30), where nothing held anchored it; so does one said in a clause
        after it ("we're four, oh and one more", 我们一共四个人，哦，再加一个: five)."""
        for op in list(ops):
            if op.op != Op.SET or op.source == OpSource.RELATIVE or id(op) not in where \
                    or op.key not in result.ask_back or (state is not None and state.find(op.key)):
                continue
            slip = put_right_after(text, where[id(op)][1]) or (
                m.end() if (m := SELF_REPAIR.search(text, where[id(op)][1])) else None)
            value_ends = clause_bounds(text, *where[id(op)])[1]
            after = text[value_ends:]
            if slip is None and (value_ends >= len(text) or STATE_CUES[lang].hedge.search(
                    after.lower() if lang == "en" else after)):
                continue      # (not "六个人，不过可能少一个", "we're four, maybe one more": a change only maybe)
            anchored = SessionState("slip", domain=state.domain if state is not None else "")
            anchored.constraints[op.key] = Condition(op.key, op.comparator, op.value, op.words, 0)
            read = RelativeOps()
            read_relative_changes(self.schema, text[slip if slip is not None else value_ends:], lang, anchored, [],
                                  read.add)
            moved = [o for o in read.ops if o.key == op.key and o.op == Op.SET]
            if not moved and slip is None:
                # (再加一个 counts what the value said before it counts: read from the value on, past its clause)
                start_at = where[id(op)][0]
                read_relative_changes(self.schema, text[start_at:], lang, anchored, [(0, value_ends - start_at)],
                                      read.add)
                moved = [o for o in read.ops if o.key == op.key and o.op == Op.SET]
            if moved:
                ops[ops.index(op)] = replace(moved[-1], words=text[where[id(op)][0]:].strip(), correction=True)
                result.ask_back = [k for k in result.ask_back if k != op.key]
        return ops

    def _codes_put_right(self, text: str, lang: str, state: SessionState | None) -> frozenset[str]:
        """The keys held that a slip put right in this turn may be about: any but a code, and a code
        only where a number as long as it is said ("sorry, I mean 294" puts no order 55123390 right)."""
        if state is None:
            return frozenset()
        said = digits_said(text) if lang == "zh" else digits_said_en(text)
        runs = [len(re.sub(r"\D", "", m.group())) for m in re.finditer(r"[A-Za-z]*\d(?:[\d ]*\d)?", said)]
        return frozenset(c.key for c in state.constraints.values() if c.key in self.schema.keys and (
            self.schema.key(c.key).reader != Reader.IDENTIFIER
            or any(n >= max(4, len(re.sub(r"\D", "", str(c.value))) - 2) for n in runs)))

    def _bare_number_corrects(self, said: _Said, ops: list[Operation], taken: list[Span], add: Add,
                              state: SessionState | None, where: dict[int, Span]) -> None:
        """"Make it six", "actually make that 8 instead", 改成八: a bare number in a correction is
        the held count or time said last (8 after "around 7:30" is 20:00; after "four of us", 8
        people), where it fits that key."""
        # (the last: "so four... oh and my little brother, so five")
        bare = next(reversed([m for m in said.cues.bare_number.finditer(said.source)
                              if not _overlaps(m.span("n"), taken)]), None) \
            or next(reversed([m for m in _A_NUMBER_INSTEAD.get(said.lang, _NEVER).finditer(said.source)
                              if not _overlaps(m.span("n"), taken)]), None)
        if bare is None or state is None:
            return
        # A count or a time said this turn is the one put right by a bare number after a slip ("four
        # of us actually no make it five"); otherwise it stands. (A relative change beside it,
        # "改成八个吧，又来了两个朋友", is the reason; the number said stands.)
        said_now = [op for op in ops if op.op == Op.SET and op.key and op.source != OpSource.RELATIVE
                    and self.schema.key(op.key).type in ("int", "time") and id(op) in where]
        n, at = to_int(bare.group("n")), bare.span("n")
        if any(op.source == OpSource.RELATIVE and id(op) in where
               and clause_bounds(said.text, *where[id(op)]) == clause_bounds(said.text, *at) for op in ops):
            return      # ("actually two people just dropped out": how many went, the change's own number)
        unit = _UNIT_AFTER.match(said.source, at[1])
        meant = put_right_after(said.source, unit.end() if unit is not None else at[1])
        number_meant = _NUMBER_IN[said.lang].match(said.source, meant) if meant is not None else None
        if number_meant is not None:
            # "make it three, no wait four": the number said after the slip.
            n, at = to_int(number_meant.group(0)), number_meant.span()
        # (改成八个吧 counts; 改成八点 is the hour: a unit after the number says which.)
        after = said.source[at[1]:at[1] + 8]
        counted = bool(re.match(r"\s*(?:个|位|人|口|people|persons|guests|of us)", after, re.IGNORECASE))
        timed = bool(re.match(r"\s*(?:点|o'?clock|pm|am|p\.m\.|a\.m\.)", after, re.IGNORECASE))
        # ("we'll be 20 minutes late", 二十分钟就到了: a length of time, no cabin of 20 degrees)
        measured = bool(re.match(r"\s*(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|km|kilomet|miles?|"
                                 r"分钟|分|小时|钟头|公里|秒)", after, re.IGNORECASE))

        def fits(key: str) -> bool:
            spec = self.schema.key(key)
            span = spec.reading.value_range
            # (and "it was actually 59.99 not 49.99": a sum held, put right; "make that 23" of the
            # cabin's 21 degrees, a reading in its range)
            return spec.reader == Reader.HEAD_COUNT and not timed or spec.type == "time" and not counted \
                or spec.type == "money" and not timed and not counted \
                or spec.reader == Reader.QUANTITY and not timed and not counted and not measured and span is not None \
                and n is not None and span[0] <= n <= span[1]

        gaps = [(op, said.source[where[id(op)][1]:bare.start("n")]) for op in said_now
                if where[id(op)][1] <= bare.start() and fits(op.key)]
        # ("we're eight. well, nine if my aunt makes it. let's just say nine": the number settled on)
        settles = bool(_SETTLES_ON.match(bare.group()))
        slipped = [op for op, gap in gaps if SELF_REPAIR.search(gap) or said.cues.correction.search(gap) or settles]
        if said_now and not slipped:
            return
        held = [c for c in state.constraints.values()
                if c.key in self.schema.keys and c.comparator == Comparator.EQ and fits(c.key)]
        asked = self._asked(state)
        repair = SELF_REPAIR.search(said.source[:bare.start()])
        if asked and asked in self.schema.keys and not state.find(asked) and fits(asked) and not slipped \
                and repair is not None and _NUMBER_IN[said.lang].search(said.source[:repair.start()]):
            # ("What time would suit you?" "let's say seven, no wait, make it eight": the hour asked for, not
            # the party of four held; but 换成6, with no slip, changes the party held, and so does "oh wait,
            # make that six", which puts right what was said before this turn)
            held = [Condition(asked, Comparator.EQ, "", "", state.turn + 1)]
        if slipped:
            last = max(slipped, key=lambda op: where[id(op)])
            held = [Condition(last.key, Comparator.EQ, last.value, last.words, state.turn + 1)]
            ops[:] = [op for op in ops if op is not last]
        if (n is None and to_amount(said.source[at[0]:at[1]]) is None) or not held:
            return
        # "8 is too late, make it 7": the value the turn names before the number is the one put right.
        named = [c for c in held if _held_value_said(c, said.source[:bare.start()], said.lang)]
        held = named or held
        # (the one said last, of two said as long ago the count; the hour where the reason beside the number
        # is about it: "can we do eight instead, people get off work late")
        of_the_hour = bool(_ABOUT_THE_HOUR.search(said.source[at[1]:]))
        latest = max(held, key=lambda c: (self.schema.key(c.key).type == "time", c.last_mentioned) if of_the_hour
                     else (c.last_mentioned, self.schema.key(c.key).reader == Reader.HEAD_COUNT))
        spec = self.schema.key(latest.key)
        value: object = n
        if spec.type == "money":
            # (a sum said as one, with cents or a currency: "sorry, I meant 2 items" is no sum; or as long as
            # the sum held: 249 held, "sorry, I mean 294, I flipped the digits")
            if not re.search(r"\d[.,]\d\d\b|[$£€¥]|dollars?|bucks|euros?|pounds?|块|元",
                             said.source[max(0, at[0] - 1):at[1] + 8]) \
                    and not (n is not None and n >= 10 and len(str(n)) == len(str(int(float(latest.value))))):
                return
            value = to_amount(said.source[at[0]:at[1]])
            if value is None:
                return
        elif n is None:
            return
        elif spec.type == "time":
            if not 1 <= n <= 12:
                return
            value = self._same_half_of_day(f"{n:02d}:00", spec, said.source, said.cues, state)
        elif not 1 <= n <= 200:
            return
        # (The relative change beside it, 又来了两个朋友, is the reason for the number, not more on top.)
        ops[:] = [op for op in ops if not (op.key == spec.name and op.source == OpSource.RELATIVE)]
        add(Operation(Op.SET, spec.name, Comparator.EQ, value, said.text[bare.start():at[1]], correction=True), at)

    def _put_right(self, ops: list[Operation], where: dict[int, Span], text: str,
                   state: SessionState | None = None) -> list[Operation]:
        """Two values of one single-valued key with a slip put right between them (退款，不对，还是
        换货吧): the one said after it stands. Said as alternatives ("Italian or Sichuan, either is
        fine", 川菜或者湘菜都行), one is enough: the one the option on offer already has, else the first
        said (the one thought of first)."""
        dropped: set[int] = set()
        for key in {op.key for op in ops if op.op == Op.SET and op.key}:
            multi = self.schema.key(key).multi
            said = sorted(((where[id(op)], op) for op in ops if op.op == Op.SET and op.key == key and id(op) in where
                           and where[id(op)][1] > where[id(op)][0]), key=lambda pair: pair[0])
            for (first, earlier), (second, _later) in zip(said, said[1:], strict=False):
                gap = text[first[1]:second[0]]
                # (A key that holds several keeps both where the second is said as one more: 不走高速，
                # 我是说也不走收费的路; "no highways, I mean no tolls" puts the first right.)
                if SELF_REPAIR.search(gap) and not (multi and (ONE_MORE.search(text[first[1]:second[1]])
                                                               or not _PUTS_RIGHT.search(gap))):
                    dropped.add(id(earlier))
            if multi:
                continue
            # "let's do italian instead, thai's kinda heavy", 还是吃日料吧，川菜太辣: the one asked for
            # with a word of choosing stands; the other is the reason.
            chosen = [op for span, op in said if _CHOSEN_BEFORE.search(text[:span[0]])
                      or _CHOSEN_AFTER.match(text, span[1])]
            # (日料或者粤菜吧: the 吧 ends the alternatives said together; it chooses neither)
            alternatives = len(said) > 1 and all(_ALTERNATIVES_BETWEEN.fullmatch(text, first[1], second[0])
                                                 for (first, _), (second, _) in zip(said, said[1:], strict=False))
            if len(chosen) == 1 and len(said) > 1 and not any(id(op) in dropped for _, op in said) \
                    and not alternatives:
                dropped |= {id(op) for _, op in said if op is not chosen[0] and op.source != OpSource.RELATIVE}
            elif alternatives and not any(id(op) in dropped for _, op in said):
                on_offer = state.option_in_view if state is not None else None
                has = on_offer.about.get(key, on_offer.values.get(key)) if on_offer is not None else None
                its = {str(v).casefold() for v in (has if isinstance(has, list) else [has]) if v is not None}
                kept = next((op for _, op in said if str(op.value).casefold() in its), said[0][1])
                dropped |= {id(op) for _, op in said if op is not kept}
        return [op for op in ops if id(op) not in dropped]

    def _left_to_the_agent(self, said: _Said, ops: list[Operation], state: SessionState | None, add: Add) -> None:
        """"Up to you", 随便吧你看着办, to the agent's question about a key that declares the value
        it picks (`suggested`): that value, said back as set."""
        cue = LEFT_TO_YOU.search(said.text)
        if cue is None or state is None or any(op.op == Op.SET for op in ops):
            return
        asked = self._asked(state)
        spec = self.schema.keys.get(asked) if asked else None
        if spec is None or spec.suggested is None:
            return
        add(Operation(Op.SET, spec.name, Comparator.EQ, spec.suggested, cue.group(0), source=OpSource.RELATIVE,
                      reason=f"left to the agent: {spec.name}'s suggested value"), cue.span())

    def _number_answered(self, said: _Said, ops: list[Operation], state: SessionState | None, add: Add,
                         correction: bool, commanded: frozenset[str] = frozenset()) -> None:
        """A number said alone ("8", "four please", 二十二) just after the agent asked for a count,
        an amount or a time: the answer to that question, in the key's terms (a table's 8 is 20:00).
        Put right just after a command ("no wait, 22", "hmm maybe 20 instead"): the number the
        control just commanded is set to."""
        if state is None:
            return
        core = _INSTEAD.sub("", _INSTEAD.sub("", SELF_REPAIR.sub("", said.text.strip(), count=1)))
        core = _A_BARE_NO.sub("", core)
        # ("哦不对，太热了，二十四就行", "too cold, 23 please": the feeling is the reason for the number said.)
        clauses = [c for c in re.split(r"[，,。；;]\s*", core) if c.strip()]
        felt = len(clauses) > 1 and all(A_FEELING.search(c) for c in clauses[:-1])
        core = _INSTEAD.sub("", clauses[-1].strip()) if felt else core
        if not A_NUMBER_ALONE.fullmatch(core):
            return
        asked = self._asked(state)
        if not asked:
            # Put right (the controls just commanded, or set last turn beside others: "go to the gym,
            # 19 degrees"); or said bare just after a control was set ("23" after 21 degrees: a number
            # can only be that control's; after a table for four, "5" is no party of five unasked).
            last_turn = {c.key for c in state.constraints.values() if c.last_mentioned == state.turn} \
                if core != said.text.strip() else set()
            # (…or the level of a control just stepped: "a degree warmer", then "22"; "fan up", then "3")
            numeric = [k for k in sorted(commanded | last_turn) if k in self.schema.keys
                       and (state.find(k) or commanded & set(self.schema.key(k).reading.stepped_by))
                       and self.schema.key(k).type in ("int", "quantity")]
            asked = numeric[0] if len(numeric) == 1 else ""
            correction = True
        if not asked or asked not in self.schema.keys or any(
                op.op == Op.SET and not (felt and op.key == asked and op.source == OpSource.RELATIVE) for op in ops):
            return        # (两个人 to "what time?" is the party, read already: no 2 pm)
        spec = self.schema.key(asked)
        numbers = [int(float(n)) for n in re.findall(r"\d+(?:\.\d+)?", said.text)] or [
            n for m in re.finditer(EN_NUMBER + "|" + ZH_NUMBER, said.source, re.IGNORECASE)
            if (n := to_int(m.group(0))) is not None]
        if len(numbers) != 1:
            return
        n = numbers[0]
        value: object
        if spec.type == "time" and _COUNTED_ANSWER.search(said.source):
            # (十二个 to "what time?" counts people: the party, where the domain has one.)
            counts = [k for k in self._counts if k.name != asked]
            if not counts:
                return
            spec, asked = counts[0], counts[0].name
        if spec.type == "time" and 1 <= n <= 24:
            value = self._same_half_of_day(f"{n % 24:02d}:00", spec, said.source, said.cues, state)
        elif spec.type in ("int", "quantity", "money") or spec.reader == Reader.HEAD_COUNT:
            low, high = spec.reading.value_range or (1, 10_000)
            if not low <= n <= high:
                return
            value = n
        else:
            return
        if felt:
            ops[:] = [op for op in ops if not (op.key == asked and op.source == OpSource.RELATIVE)]
        add(Operation(Op.SET, asked, Comparator.EQ, value, said.text.strip(), correction=correction,
                      reason=f"a number said alone, answering the question about {asked}"), (0, len(said.text)))

    def _choice_answered(self, said: _Said, ops: list[Operation], state: SessionState | None, add: Add) -> None:
        """The agent asked which of a key's values ("…or shall I have the order traced or
        cancelled?"), and the answer names one by its own word ("just cancel it", "trace it
        please"): that value, where no reader took another."""
        asked = self._asked(state) if state is not None else ""
        spec = self.schema.keys.get(asked) if asked else None
        if spec is None or spec.type != "enum" or spec.multi or any(op.key == asked for op in ops):
            return
        if said.lang == "zh":
            # (都一个礼拜了，我不想要了，能取消吗: 取消 is the head of 取消订单, the one value it begins;
            # not 取消工单, the request itself, nor 那就取消吧，不弄了, which drops it.)
            if _DROPPING_IT.search(said.text) or re.search(r"算了|不用了", said.text):
                return
            heads = {value: value_heads_zh(spec, value) for value in spec.values}
            said_any = sum(any(h in said.source for h in hs) for hs in heads.values())
            named = [value for value, said_heads in heads.items()
                     if said_any == 1 and any(h in said.source and not re.search(re.escape(h) + r"(?:工单|申请|请求)",
                                                                                     said.source) for h in said_heads)]
        else:
            # (Not the word said of the request itself: "forget it, cancel the request" calls it off.)
            named = [value for value in spec.values
                     if re.search(r"\b" + re.escape(value.replace("_", " ")) + r"\b(?!\s+(?:the|my|this|that)\s+"
                                  r"(?:request|ticket|complaint|claim|case)\b)", said.source)]
        if len(named) == 1:
            add(Operation(Op.SET, asked, Comparator.EQ, named[0], said.text.strip(),
                          reason=f"the choice asked for, named by its own word: {named[0]}"), (0, 0))

    @staticmethod
    def _count_put_right(source: str, after: int, taken: list[Span]) -> tuple[int, Span] | None:
        """The number said right after a slip is put right ("six people, no wait, five"): the
        count meant, and where it is."""
        meant = put_right_after(source, after)
        if meant is None:
            return None
        number = _REPAIRED_COUNT.match(source, meant)
        if number is None or _overlaps(number.span("n"), taken) or _NUMBER_RANGE_ZH.fullmatch(number.group("n")):
            return None       # ("哦不，六七个吧": a guess between two, not a count)
        n = to_int(number.group("n"))
        return (n, number.span("n")) if n is not None else None

    @staticmethod
    def _head_count_in_groups(spec: KeySpec, said: _Said, taken: list[Span], add: Add, correction: bool) -> bool:
        """"Two adults and two kids", 两个大人带一个小孩: groups joined into one party, counted
        together (the first group alone had been the party: 2, not 4)."""
        cues = said.cues
        # (大人两个，再带一个小孩: the number after whom it counts, read as 两个大人; the same length, so
        # every span stays where it was said)
        source = said.source if said.lang != "zh" else _COUNTED_AFTER_ZH.sub(lambda run: _COUNTED_ONE_ZH.sub(
            lambda m: m.group(2) + m.group(3) + m.group(1), run.group()), said.source)
        groups = [m for m in cues.head_count_group.finditer(source)
                  if not _overlaps(m.span("n"), taken) and not RuleExtractor._negated(said.text, m.start(), cues)]
        run: list[re.Match[str]] = []
        for m in groups:
            if run and cues.head_count_join.match(source[run[-1].end():m.start()]):
                run.append(m)
            elif len(run) < 2:
                run = [m]
        counts = [people_in_group(m) for m in run]
        if not run:
            return False
        wholes = [i for i, m in enumerate(run) if HEAD_COUNT_WHOLE.search(m.group())]
        if wholes and (wholes != [0] or len(run) < 2 or None in counts
                       or not RuleExtractor._added_to_the_whole(said.source, run, counts)):
            return False      # "我们三个人，两个大人一个孩子": the party is said whole; its parts add nothing
        if len(run) < 2 and not HEAD_COUNT_ALONE.search(run[0].group()):
            return False      # "my 2 kids" alone is not the party
        if len(run) < 2 and any(not _overlaps(m.span("n"), [run[0].span()]) for p in cues.head_count
                                for m in p.finditer(said.source)):
            return False      # another count is said: the patterns read it
        if len(run) < 2 and run[0].group("n").lower() in ("a", "an"):
            return False      # "an adult" alone says no party
        total = sum(n for n in counts if n is not None)
        if any(n is None for n in counts) or not 1 <= total <= 200:
            return False
        start, end = run[0].start(), run[-1].end()
        add(Operation(Op.SET, spec.name, Comparator.EQ, total, said.text[start:end], correction=correction),
            (start, end))
        return True

    @staticmethod
    def _added_to_the_whole(source: str, run: list[re.Match[str]], counts: list[int | None]) -> bool:
        """Whether the groups said after people counted whole come on top of them: more than them
        ("两个人，三个孩子"), or joined on with a word that adds ("two people and three kids", 三个人带
        两个孩子), when no adults among them say they are its parts ("four people, two adults and…")."""
        whole, parts = counts[0] or 0, sum(n or 0 for n in counts[1:])
        joined = source[run[0].end():run[1].start()]
        adds = re.search(r"\b(?:and|plus)\b|带|加|还有|外加|另外", joined, re.IGNORECASE) is not None
        if _AMONG_THEM.match(source, run[-1].end()):
            return False        # ("four people, and two kids among them", 六个人，其中两个孩子)
        return parts > whole or (adds and not any(HEAD_COUNT_ALONE.search(m.group()) for m in run[1:]))

    @staticmethod
    def _amount(spec: KeySpec, said: _Said, taken: list[Span], add: Add, correction: bool) -> None:
        text, source, cues = said.text, said.source, said.cues
        for pattern in cues.amount_limit + named_amounts(spec, "en" if cues.spaced else "zh"):
            for m in pattern.finditer(source):
                span = m.span("n")
                if _overlaps(span, taken) or cues.not_an_amount.match(source[m.end(): m.end() + 8]):
                    continue
                n = to_amount(m.group("n"))
                # (人均三百到四百, "30 to 50 a head": a range, whose top is the limit)
                top = _RANGE_TOP[said.lang].match(source, m.end())
                if top is not None and (upper := to_amount(top.group("n"))) is not None and n is not None \
                        and upper > n and not _overlaps(top.span("n"), taken):
                    n, span = upper, (span[0], top.end("n"))
                if n is not None and n > 0:
                    add(Operation(Op.SET, spec.name, Comparator.LE, n, text[m.start():span[1]], correction=correction),
                        span)
                    return

    def _before_the_command(self, key: str, refused: str, commanded: frozenset[str],
                            state: SessionState | None) -> object | None:
        """What a control held before the command just carried out, when the turn refuses that
        very command (空调关掉 → 别关): its earlier value, or the other of a two-valued control's."""
        if state is None or key not in commanded:
            return None
        held = state.find(key)
        if len(held) != 1 or str(held[0].value) != refused:
            return None
        if key in state.previous and state.previous[key] != refused:
            return state.previous[key]
        others = [v for v in self.schema.key(key).values if v != refused]
        return others[0] if len(others) == 1 else None

    def _more_of_what_is_asked(self, text: str, state: SessionState | None) -> list[str]:
        """"A little more", 再凉一点, while the agent asks for an amount it holds none of ("I don't
        have the cabin temperature yet: what temperature?"): a change again, with nothing to
        change from, so the number is asked for again (it had been "I didn't quite get that")."""
        asked = self._asked(state)
        if state is None or not asked or not REPEAT_COMMAND.search(text) or state.find(asked):
            return []
        spec = self.schema.key(asked)
        return [asked] if spec.reader == Reader.QUANTITY and (spec.reading.more or spec.reading.less) else []

    def _command_repeated(self, text: str, commanded: frozenset[str], state: SessionState | None, add: Add) -> None:
        """"A bit more", 再来一点 just after a command to a control that moves a step at a time:
        the same command again."""
        if state is None:
            return
        # ("bump it up two more", 再小两格 just after the fan was set: the level it is at, that many steps on)
        # (…and "all the way up", 开到最大: to the top of its range)
        counted = steps_counted(text) or ((0, way) if (way := all_the_way(text)) is not None else None)
        if counted is not None and not any(
                names_key(spec, text, language_of(text)) for spec in self.schema.keys.values()
                if spec.reading.verb_values or spec.reader == Reader.QUANTITY):
            for level_key in sorted(commanded):
                for step_key, steps in self.schema.key(level_key).reading.stepped_by.items():
                    step = next((v for v, by in steps.items() if (by > 0) == (counted[1] > 0)), None)
                    if step is not None and step_key in self.schema.keys and state.find(level_key):
                        add(Operation(Op.SET, step_key, Comparator.EQ, step, text.strip(), source=OpSource.RELATIVE,
                                      reason="the level just set, that many steps further"), (0, len(text)))
                        return
        if not REPEAT_COMMAND.search(text):
            return
        for key in sorted(commanded):
            if any(side.name in commanded for side in self.schema.sides_of(key)):
                continue        # (the passenger seat just moved: "a bit more" moves it, not the driver's)
            held = state.find(key)
            if self.schema.key(key).reading.moves and len(held) == 1:
                add(Operation(Op.SET, key, held[0].comparator, held[0].value, text.strip(),
                              reason="the command just carried out, said again", source=OpSource.RELATIVE),
                    (0, len(text)))
                return
            # (The fan set to 3, "a bit more": a step up, which moves the level held.)
            for level in self.schema.keys.values():
                steps = level.reading.stepped_by.get(key, {})
                if level.name in commanded and state.find(level.name) and steps:
                    up = max(steps, key=lambda value: steps[value])      # (the step that moves it up)
                    add(Operation(Op.SET, key, Comparator.EQ, up, text.strip(), source=OpSource.RELATIVE,
                                  reason="the level just set, a step further"), (0, len(text)))
                    return

    def _continues(self, key: str, commanded: frozenset[str], text: str, span: Span, lang: str) -> bool:
        """A value said without naming its control (再往后一点, "Louder") goes on with the control
        just commanded, unless its clause names another."""
        spec = self.schema.key(key)
        left, right = clause_bounds(text, *span)
        if key not in commanded or about_something_else(spec, text[left:right], lang):
            return False        # 打开天窗 after the windows: the sunroof is no window
        if left > 1:
            # "the fan is too loud, lower it": the clause just before names what "it" is.
            before = text[slice(*clause_bounds(text, left - 2, left - 2))]
            # (温度调高一点，再高一点 just after the music: the temperature, named before, goes on.)
            if any(names_key(other, before, lang) if other.reading.verb_values else called_by_name(other, before, lang)
                   for name, other in self.schema.keys.items()
                   if name != key and (other.reading.verb_values or other.reader == Reader.QUANTITY)):
                return False
        # Nothing else said in the clause: 打开雨刮 ("the wipers") after the windows is no window.
        rest = text[left:span[0]] + " " + text[span[1]:right]
        # (The verb itself names nothing else: 关上's 上 is no cue for the route.)
        return not content_words(rest, lang) - _COMMAND_WORDS and not any(
            names_key(other, rest, lang) for name, other in self.schema.keys.items()
            if name != key and other.reader != Reader.FREE_TEXT)

    def _says_one_control(self, word: str, key: str, lang: str, text: str, span: Span) -> bool:
        """A control's value no other key has, and too long to be said in passing (静音, "louder",
        换一首): it names its control by itself. ("on", 开, "down" are several controls' values.)"""
        spec = self.schema.key(key)
        if not spec.reading.verb_values or len(word) < (5 if lang == "en" else 2):
            return False
        left, right = clause_bounds(text, *span)
        if about_something_else(spec, text[left:right], lang):
            return False
        # …said on its own in its clause (帮我静音一下, "Louder!", "mute it for a sec, I gotta take a
        # call"): 路上在咖啡店停一下 stops the car, not the music.
        # (In Chinese the whole turn: 我想换个地方，去三里屯 changes the place, not the song.)
        if lang == "en":
            rest = _FOR_A_WHILE.sub(" ", text[left:span[0]] + " " + text[span[1]:right])
        else:
            rest = text[:span[0]] + " " + text[span[1]:]
        lexicon = self.schema.enum_lexicon(lang)
        only = [k for w, k, _v in lexicon if w == word] == [key]
        # (找个药店停一下: another key's value beside it, the pharmacy, says what the stop is for.)
        others = any(k != key and len(w) >= 2 and re.search(value_pattern(w.lower(), lang == "en"), rest.lower())
                     for w, k, _v in lexicon)
        return only and not others and not content_words(rest, lang) - {"not", "no"}   # ("not this one, skip it")

    def _shared_verb(self, word: str, read: Operation, said: _Said, span: Span, add: Add,
                     seen: set[tuple[str, str]]) -> None:
        """One verb for several controls its clause names ("lower the volume and the fan",
        把车窗和座椅加热都关了): each of them."""
        for other_word, other_key, other_value in self.schema.enum_lexicon(said.lang):
            other = self.schema.key(other_key)
            if other_word != word or other_key == read.key or not other.reading.verb_values \
                    or any(k == other_key for k, _v in seen):
                continue
            left, right = clause_bounds(said.text, *span)
            # …not a control with a verb of its own there (开窗关空调: the windows open, the AC off).
            own_verb = any(m.start() + left >= span[1] or m.end() + left <= span[0]
                           for words in other.values.values() for w in words.get(said.lang, ())
                           for m in re.finditer(value_pattern(w.lower(), said.cues.spaced), said.source[left:right]))
            # (Named by words besides the verb itself: "the fan is too loud" names no volume.)
            # (…nor by a word inside another control's longer name: "seat heater on" names no heater.)
            beside = said.text[left:span[0]] + " " + said.text[span[1]:right]
            for name in self._names_around(other_key, said.lang):
                beside = re.sub(re.escape(name), " ", beside, flags=re.IGNORECASE)
            if names_key(other, beside, said.lang) and not own_verb:
                add(Operation(Op.SET, other_key, read.comparator, other_value, clause_of(said.text, span),
                              correction=read.correction), span)
                seen.add((other_key, other_value))

    def _names_around(self, key: str, lang: str) -> list[str]:
        """Other keys' names that hold one of `key`'s inside them ("seat heater" holds "heater"),
        longest first."""
        if (key, lang) in self._around:
            return self._around[key, lang]

        def names(spec: KeySpec) -> set[str]:
            return {n.lower() for n in (*spec.aliases.get(lang, ()), *spec.reading.value_cues.get(lang, ()),
                                        spec.label(lang)) if n}
        own = names(self.schema.key(key))
        self._around[key, lang] = sorted({n for name, spec in self.schema.keys.items() if name != key
                                          for n in names(spec) if n not in own and any(o in n for o in own)},
                                         key=len, reverse=True)
        return self._around[key, lang]

    def _enums(self, said: _Said, taken: list[Span], add: Add, correction: bool, withdrawn_keys: dict[str, list[Span]],
               state: SessionState | None = None, commanded: frozenset[str] = frozenset()) -> None:
        text, source, lang, cues = said.text, said.source, said.lang, said.cues
        seen: set[tuple[str, str]] = set()
        lexicon = self.schema.enum_lexicon(lang)
        wishes = free_text_key(self.schema)       # where "less of it" (微辣) is kept
        # (Music just put on: "turn it up a little" goes on with the volume, which goes with it.)
        going_on = commanded | controls_going_with(self.schema, commanded)
        # Where each value word is said: a word inside a longer one said there, which a value
        # read already overlaps, is not said by itself (空调开大一点 says 开大 or 大一点, "turn
        # up", not also 开, "switch on").
        matches: dict[str, list[re.Match[str] | _SaidAcross]] = {
            word: list(re.finditer(value_pattern(word, cues.spaced), source)) for word, _k, _v in lexicon}
        if not cues.spaced and _CODE_IN_CHINESE_WORDS.search(source):
            # 订单JD88213取消吧 says 订单取消: the order's number said inside the words of what is wanted
            for word in matches:
                matches[word] = matches[word] or _said_across_codes(value_pattern(word, False), source)
        said_at = [m.span() for found in matches.values() for m in found]
        for word, key, value in lexicon:
            if (key, value) in seen:
                continue
            # (said twice, once in a question: 海底捞不是川菜吧？我要吃川菜 wants it; the question only checks)
            found = matches[word] if len(matches[word]) < 2 else \
                [m for m in matches[word] if not _in_a_question(text, m.span())] or matches[word]
            for m in found:
                if _overlaps(m.span(), taken) or any(
                        s <= m.start() and m.end() <= e and e - s > m.end() - m.start() and _overlaps((s, e), taken)
                        for s, e in said_at):
                    continue
                spec = self.schema.key(key)
                # "别机场了，公司吧", "not the airport, the office": the held value refused, and another
                # of the key's said bare beside it, is its replacement.
                replacing = not spec.multi and (self._held_refused(spec, value, text, lang, state)
                                                or self._said_instead(spec, value, text, m.span(), lang, state))
                # "a gas station instead", 那还是加油站吧 with a charging stop held: of several, the
                # one asked for last is replaced.
                replaced = self._one_of_several_replaced(spec, value, text, m.span(), lang, state)
                replacing = replacing or replaced is not None
                # "forget the refund": only a new value said as one ("a repair instead"), or in a
                # clause of its own after ("forget the station, take me to the airport"), sets it.
                if key in withdrawn_keys and not spec.multi and not _REPLACES.search(text) and not replacing \
                        and not (all(clause_bounds(text, *w)[1] <= m.start()
                                     and word.lower() not in text[w[0]:w[1]].lower() for w in withdrawn_keys[key])
                                 and not _ON_ONES_OWN.search(text[slice(*clause_bounds(text, *m.span()))])
                                 and not _SOMEONE_ELSE.search(text[slice(*clause_bounds(text, *m.span()))])):
                    continue      # ("cancel the route, I'll drive home myself": no route home)
                # A cue inside another value already read is not this key's ("a child seat in
                # the back" moves no seat).
                if not cued(spec, _masked(text, taken), m.span(), lang, self.schema.keys.values()) \
                        and not self._continues(key, going_on | asked_for_earlier(self.schema, text, m.start(), lang),
                                                text, m.span(), lang) \
                        and not self._says_one_control(word, key, lang, text, m.span()) and not replacing \
                        and not self._one_more_said(spec, text, m.span(), lang, state):
                    continue
                if tells_of_the_past(text, *m.span(), lang):
                    continue      # "I used to work at a bakery": a story, not where to go now
                if not_preferred(text, m.start(), cues.spaced):
                    continue      # "a replacement rather than a refund", 退款不如换货: the other one
                if not spec.multi and ANOTHER_PLACE.search(text) \
                        and _SAID_OF_THE_OFFER[lang].search(source[max(0, m.start() - 40):m.start()]):
                    continue      # "that's kinda pricey, got something cheaper?": the one asked for is cheap
                if lang == "en" and word == "back" and re.match(r"\s+(?:on|off)\b", source[m.end():]):
                    continue      # "turn the seat heating back on": again, not the seat moved back
                less = _LESS_OF_IT[lang].search(source[max(0, m.start() - 24): m.start()])
                if less is not None and value in spec.degree_values and wishes is not None:
                    # 微辣就行, "not too spicy": how much of it, kept as said (no refusal of it)
                    span = (max(0, m.start() - 24) + less.start(), m.end())
                    # (不太辣的: "one not too spicy", the wish is how spicy)
                    add(Operation(Op.SET, wishes.name, Comparator.INCLUDES,
                                  without_the_de(text[span[0]:span[1]].strip()),
                                  clause_of(text, span), correction=correction), span)
                    seen.add((key, value))
                    break
                negated = bool(cues.negated_value.search(source[max(0, m.start() - 24): m.start()]))
                if negated and spec.reading.verb_values and source[:m.start()].rstrip().endswith("要不"):
                    negated = False      # 要不开下窗户吧: "how about" a command (要不辣的 refuses spice)
                if cues.negation_after is not None and cues.negation_after.match(source[m.end():]):
                    negated = True
                if source[:m.start()].endswith("除了") and _ALL_FINE_AFTER_ZH.match(source[m.end():]):
                    negated = True      # (除了川菜都行: all but it; not 除了川菜还想吃烤鸭, which adds)
                negated = negated or refused(spec, text, m.span(), lang)
                if negated and (_NOT_YET_AFTER_EN.match(source, m.end()) if lang == "en" else (
                        _NOT_FIRST_ZH.search(source[max(0, m.start() - 8):m.start()]) and any(
                            later.start() > m.end()
                            and _THEN_ZH.search(source[max(m.end(), later.start() - 8):later.start()])
                            for later in found))):
                    continue      # ("don't go home yet", 先别回家了…拿完再回家: not first, no refusal; then it is read)
                if negated and spec.reading.verb_values:
                    # "Don't open the windows", 别开窗: no command to carry out (not the opposite one);
                    # but "空调关掉" then "不对，别关": the command just carried out is taken back.
                    before = self._before_the_command(key, value, commanded, state)
                    if before is not None:
                        add(Operation(Op.SET, key, Comparator.EQ, before, clause_of(text, m.span()), correction=True,
                                      reason="the command just carried out, taken back", source=OpSource.RELATIVE),
                            m.span())
                    seen.add((key, value))
                    break
                comparator: Comparator | None
                if spec.multi and negated and state is not None and _CHANGED_NOW[lang].search(text) and any(
                        c.value == value and c.comparator == Comparator.INCLUDES for c in state.find(key)):
                    # "it's avoid tolls now, not fastest": a value held, said to be no longer so, is
                    # taken back, not turned into its refusal ("no fastest").
                    add(Operation(Op.WITHDRAW, key, value=value, words=clause_of(text, m.span()),
                                  reason="the user said it no longer holds"), m.span())
                    seen.add((key, value))
                    break
                if spec.multi:
                    comparator = Comparator.EXCLUDES if negated else (
                        Comparator.INCLUDES if value in spec.affirmed_values or spec.default_op == Comparator.INCLUDES
                        else None)
                    if comparator is None:
                        continue  # "I love seafood" is not a condition; "no seafood" is
                else:
                    comparator = Comparator.NE if negated else Comparator.EQ
                if replaced is not None and comparator == Comparator.INCLUDES:
                    add(Operation(Op.WITHDRAW, key, value=replaced, words=clause_of(text, m.span()),
                                  reason=INSTEAD_OF_IT), (m.start(), m.start()))
                add(Operation(Op.SET, key, comparator, value, clause_of(text, m.span()),
                              correction=correction or replacing), m.span())
                seen.add((key, value))
                if spec.reading.verb_values:
                    self._shared_verb(word, Operation(Op.SET, key, comparator, value, correction=correction), said,
                                      m.span(), add, seen)
                break
        # ("she's vegetarian, so somewhere with good veggie options": a value read, said again in other
        # words, is read there too; no wish is left of it)
        for word, key, value in lexicon:
            if (key, value) in seen and not self.schema.key(key).reading.verb_values:
                taken.extend(m.span() for m in matches[word] if not _overlaps(m.span(), taken))

    def _open_and_named(self, text: str, taken: list[Span], add: Add, correction: bool,
                        ops: list[Operation]) -> None:
        """Values the schema cannot list: a capitalised cuisine ('some Burmese food') for a
        key that has no value yet, and capitalised names after the key's cue words."""
        read = {op.key for op in ops}
        for spec, pattern in self._open_values:
            if spec.name in read:
                continue
            for m in pattern.finditer(text):
                group = "v" if m.group("v") else "v2"
                if m.group(group) not in NOT_NAMES_EN and not _overlaps(m.span(group), taken):
                    add(Operation(Op.SET, spec.name, Comparator.EQ, m.group(group).lower(), clause_of(text, m.span()),
                                  correction=correction), m.span(group))
                    break
        for spec, pattern in self._names:
            for m in pattern.finditer(text):
                value = " ".join(w for w in m.group("v").split() if w not in NOT_NAMES_EN)
                if value and not _overlaps(m.span("v"), taken) and value.split()[0] not in NOT_NAMES_EN:
                    add(Operation(Op.SET, spec.name, Comparator.EQ, value, clause_of(text, m.span()),
                                  correction=correction), m.span("v"))
                    break

    def _stations(self, said: _Said, taken: list[Span], add: Add, correction: bool) -> None:
        """A radio station said by its frequency ("turn on the radio, ninety eight point five FM",
        调频97.4): asked for as the music is, whatever words lead to it."""
        for spec in self._asked_for:
            if not spec.reading.brings:
                continue        # (only the key whose choice puts music on)
            for station, start, end in stations_said(said.text):
                if not _overlaps((start, end), taken) and not asks(said.text, start, end, said.lang):
                    add(Operation(Op.SET, spec.name, Comparator.EQ, station, clause_of(said.text, (start, end)),
                                  correction=correction), (start, end))

    def _things_asked_for(self, said: _Said, taken: list[Span], add: Add, correction: bool,
                          state: SessionState | None = None, commanded: frozenset[str] = frozenset()) -> None:
        """What is asked for by name after a word of asking for it ("play some Taylor Swift",
        放首周杰伦的歌): before the places and enums, so no word of a title is read as a place or
        a value ("play Highway to Hell"). Just after one was asked for and carried out, a word of
        switching asks for another (换成五月天, "switch to Adele")."""
        for spec in self._asked_for:
            reading = spec.reading
            words = (reading.lead_words.get(said.lang, ()), reading.tail_words.get(said.lang, ()),
                     reading.nothing_particular.get(said.lang, ()))
            found = words_asked_for(said.text, spec.name_cues.get(said.lang, ()), *words, said.lang)
            plays_music = "play" in spec.name_cues.get("en", ())      # (the key whose choice is heard)
            wanted = _WANTED_THEN_PUT_ON_EN.search(said.text) if found is None and said.lang == "en" \
                and plays_music else None
            if wanted is None and found is None and said.lang == "en" and plays_music:
                wanted = _MUSIC_THEN_LIKE_EN.search(said.text)
                if wanted is not None and wanted.group("kind"):
                    taken.append(wanted.span("kind"))     # ("something chill": the kind of music, no wish)
            if wanted is None and found is None and plays_music and said.lang in _MUSIC_THEN_WHOSE:
                wanted = _MUSIC_THEN_WHOSE[said.lang].search(said.text)
            if wanted is not None and wanted.group("v").casefold() not in {w.casefold() for w in words[2]}:
                # ("the kids want Taylor Swift, can you put some on": what is wanted, then played by a pronoun)
                found = AskedFor(wanted.group("v"), *wanted.span("v"))
            if found is None and said.lang == "zh" and spec.reading.tail_words.get("zh"):
                # (放周杰伦的歌: a bare 放 asks for what is named only with the thing's own tail after it)
                tails = "|".join(map(re.escape, sorted((t for t in spec.reading.tail_words["zh"] if t.startswith("的")),
                                                       key=len, reverse=True)))
                bare = re.search(r"(?:^|(?<=[，,。！？\s吧]))(?:给我|帮我)?放(?:点|些|一些)?"
                                 r"(?P<v>[^，。！？\s的]{1,10})(?:" + tails + ")", said.text) if tails else None
                found = AskedFor(bare.group("v"), *bare.span("v")) if bare is not None else None
            # (While what was asked for goes on, the music it brought still playing: 换成陈奕迅的,
            # "let's do classical instead"; not "how about we take the highway", another key's.)
            if found is None and state is not None and state.find(spec.name) and all(
                    any(str(c.value) == str(value) for c in state.find(key)) for key, value in reading.brings.items()):
                found = words_asked_for(said.text, spec.switch_cues.get(said.lang, ()), *words, said.lang)
                if found is not None and any(names_key(other, found.text, said.lang)
                                             for name, other in self.schema.keys.items() if name != spec.name):
                    found = None
                # (目的地改一下，改成国贸商城: another key called by its name before the switch is what changes.)
                if found is not None and any(
                        called_by_name(other, said.text[:found.start], said.lang)
                        for name, other in self.schema.keys.items()
                        if name != spec.name and name not in reading.brings):
                    found = None
            if found is not None and said.lang == "en" and _A_THING_NOT_A_NAME.match(found.text) and any(
                    cue.lower() in _PREPOSITIONS and said.text[:found.start].rstrip().lower().endswith(cue.lower())
                    for cue in spec.name_cues.get("en", ())):
                found = None      # ("a table under an umbrella": a cue that is a bare preposition, a thing after it)
            if found is not None and said.lang == "zh":
                found = _with_its_own_noun(said.text, found, spec.reading.tail_words.get("zh", ()))
            refused = _NOT_ASKED_FOR.search(said.text[:found.start]) if found is not None else None
            if refused is not None and found is not None and _THIS_ONE_PLAYING.fullmatch(found.text):
                taken.append((refused.start(), found.end))     # 不想听这首: said by "next", no wish besides
            if found is None or _overlaps((found.start, found.end), taken) \
                    or tells_of_the_past(said.text, found.start, found.end, said.lang) or refused is not None \
                    or self._names_another_key(found.text, spec.name, said.lang) \
                    or self._another_keys_name(said.text[:found.start], spec.name, said.lang):
                continue
            loose = LOOSE_NAME_CUE_ZH.search(said.text[:found.start].rstrip(" ，,")) if said.lang == "zh" else None
            value = chinese_name_after(loose.group(), found.text, said.text[found.end:]) if loose else found.text
            if value is None:
                continue      # 我叫王磊, 姓陈 name the user; 帮我叫辆车, 我叫了外卖 name nobody
            end = found.end
            if said.lang == "en" and _takes_titles(spec, said.lang):
                value, end = spelled_name_after(value, said.text, found.end,
                                                self._not_names | self._option_words)   # "…K E V I N, Park"
            left, right = clause_bounds(said.text, found.start, found.end)
            if asks(said.text, found.start, found.end, said.lang) or is_query(said.text[left:right]) \
                    or (said.lang == "zh" and _ASKED_ZH.search(found.text)):
                continue      # "现在放的是谁的歌", "what are you playing?", 名字是啥来着: asked about, not asked for
            add(Operation(Op.SET, spec.name, Comparator.EQ, value, clause_of(said.text, (found.start, found.end)),
                          correction=correction), (found.start, end))

    def _what_it_is_changed_for(self, ops: list[Operation], where: dict[int, Span], text: str, add: Add,
                                correction: bool, state: SessionState | None = None) -> None:
        """帮我换一双四十二码的, 想换大一号的, "exchange it for a medium": the size or colour an exchange is for
        goes on the record, as the loose words of one do (`_loose_values`)."""
        notes = free_text_key(self.schema)
        if notes is None or any(op.key == notes.name for op in ops):
            return
        for op in ops:
            spec = self.schema.keys.get(op.key) if op.op == Op.SET and op.key and id(op) in where else None
            if spec is None or str(op.value) not in spec.loose_values:
                continue
            start = where[id(op)][0]
            right = clause_bounds(text, *where[id(op)])[1]
            piece = text[start:right]
            # (the words of another value are not what it is for: "exchange order 48231")
            others = [where[id(o)] for o in ops if o is not op and id(o) in where]
            rest = "".join(" " if any(a <= start + i < b for a, b in others) else ch for i, ch in enumerate(piece))
            if _WHAT_IT_IS_FOR.search(rest):
                wanted = _LEAD_OF_A_WANT.sub("", re.sub(r"\s{2,}", " ", rest).strip()).strip(" ,，。.!！吧吗呢？?")
                add(Operation(Op.SET, notes.name, Comparator.INCLUDES, wanted, wanted, correction=correction,
                              reason=f"what the {op.value} is for"), (start, right))
                _what_it_was_for_replaced(notes.name, wanted, state, add)
                return

    def _notes_of_another_way(self, ops: list[Operation], state: SessionState | None, lang: str, add: Add) -> None:
        """"帮我换一双四十二码的" … "那要不还是退了吧": the note of what the exchange was for goes with the exchange."""
        notes = free_text_key(self.schema)
        if notes is None or state is None:
            return
        for op in [o for o in ops if o.op == Op.SET and o.key in self.schema.keys]:
            spec = self.schema.key(op.key)
            for value in spec.loose_values:
                if value == str(op.value):
                    continue
                words = [w for w in (*spec.values.get(value, {}).get(lang, ()), *spec.loose_values[value].get(lang, ()))
                         if len(w) >= 2]
                for held in state.find(notes.name):
                    said = str(held.value)
                    if _WHAT_IT_IS_FOR.search(said) and any(
                            re.search(value_pattern(w.lower(), lang == "en"), said.lower()) for w in words):
                        add(Operation(Op.WITHDRAW, notes.name, value=held.value, words=op.words,
                                      reason=NO_LONGER_FOR), (0, 0))

    def _loose_values(self, said: _Said, ops: list[Operation], taken: list[Span], add: Add,
                      correction: bool, state: SessionState | None) -> None:
        """A key's `loose_values` (给我换成黑色的, 想换大一码的: an exchange), where no value of the key
        was read and the rest of the clause names no other key or value (换成退款, 换个地址); and its
        `said_again` words, for the value it held before its last change ("ok, go ahead and cancel")."""
        for spec in self.schema.keys.values():
            # (a value refused leaves room for the one wanted: 别火车站了，家吧)
            if not (spec.loose_values or spec.said_again) or any(
                    op.key == spec.name and op.comparator != Comparator.NE for op in ops):
                continue
            before = state.previous.get(spec.name) if state is not None else None
            held = [c.value for c in state.find(spec.name)] if state is not None else []
            # ("*": whatever it held, 还是去吧，就刚才那个地方 after the route was called off)
            # ("ugh, forget it, let's stick with the market like I said at first": the change is what is dropped)
            again = {before if value == "*" else value: words for value, words in spec.said_again.items()
                     if before is not None and value in (before, "*") and before not in held
                     and (value == "*" or not _DROPPING_IT.search(said.text))}
            for value, words in [*spec.loose_values.items(), *again.items()]:
                for word in words.get(said.lang, ()):
                    m = re.search(_ALONE.format(re.escape(word)) if len(word) == 1 and not said.cues.spaced
                                  else value_pattern(word.lower(), said.cues.spaced), said.source)
                    if m is None or _overlaps(m.span(), taken) or self._negated(said.text, m.start(), said.cues) \
                            or _REFUSED_BEFORE.search(said.source[max(0, m.start() - 12):m.start()]):
                        continue      # (退到支付宝，别换成银行卡; "I don't want a different size")
                    left, right = clause_bounds(said.text, *m.span())
                    rest = said.source[m.end():right]
                    if _overlaps((m.end(), right), taken) or re.search(r"\d(?!\d*\s*(?:码|号|寸))", rest):
                        continue      # (换成W138011, 换成100.50块: another key's value, read already; not 换成43码的)
                    if any(re.search(value_pattern(word.lower(), said.cues.spaced), rest) for word in (
                            *(alias for alias, _key in self.schema.alias_lexicon(said.lang)),
                            *spec.loose_not_when.get(said.lang, ()))) \
                            or asks(said.text, m.start(), m.end(), said.lang) or is_query(said.text[left:right]):
                        continue
                    if value in again and value not in spec.said_again and any(
                            names_key(other, said.text, said.lang) for other in self.schema.keys.values()
                            if other is not spec):
                        continue      # ("*": 温度还是按原来的吧 names the temperature, not the route given up)
                    # (going back to what it held is a change said as one, and so is a value said after
                    # the held one is refused)
                    refused_held = any(op.key == spec.name and op.comparator == Comparator.NE and op.value in held
                                       for op in ops) or any(
                        negated_at(said.source, at.start(), said.cues)
                        or _HELD_REFUSED_BEFORE.search(said.source[max(0, at.start() - 4):at.start()])
                        for value in held for word in spec.value_words(str(value), said.lang)
                        for at in re.finditer(re.escape(word.lower()), said.source[:m.start()].lower()))
                    add(Operation(Op.SET, spec.name, Comparator.EQ, value, clause_of(said.text, m.span()),
                                  correction=correction or value in again or refused_held), m.span())
                    notes = free_text_key(self.schema)
                    if notes is not None and value not in again and content_words(rest, said.lang):
                        # (想换大一号的: what it is to be changed for goes on the record, "大一号的")
                        wanted = _LEAD_OF_A_WANT.sub("", said.text[m.start():right].strip()).strip(" ,，。.吗呢？?")
                        add(Operation(Op.SET, notes.name, Comparator.INCLUDES, wanted, wanted, correction=correction,
                                      reason=f"what the {value} is for"), (m.end(), right))
                        _what_it_was_for_replaced(notes.name, wanted, state, add)
                    return

    def _titled_name(self, said: _Said, taken: list[Span], add: Add, correction: bool,
                     state: SessionState | None = None) -> None:
        """A surname with its title said as a clause of its own (刘女士, 我是陈先生, "Mr. Chen"): the
        name a booking is held under, in a domain whose name key takes titles (`words_after`).
        Inside a turn with no word that gives it, only beside a phone or as the answer asked for
        (订吧，刘女士，电话…; "好，高先生" and "thanks, Mr. Chen" address someone)."""
        pattern = _TITLED_NAME.get(said.lang)
        for spec in self._asked_for:
            if pattern is None or not _takes_titles(spec, said.lang):
                continue
            asked = state is not None and self._asked(state) == spec.name
            for m in pattern.finditer(said.text):
                if m.group("bare") is not None and m.start() > 0 and not asked \
                        and not _A_PHONE_GIVEN.search(said.text):
                    continue
                if not _overlaps(m.span("v"), taken):
                    add(Operation(Op.SET, spec.name, Comparator.EQ, m.group("v"), m.group().strip(" ，,。.!！"),
                                  correction=correction), m.span("v"))
                    return

    def _left_behind(self, ops: list[Operation], text: str, state: SessionState | None, add: Add) -> None:
        """A held key another key's new value leaves behind (`cleared_by`: "next song" after "play
        Bohemian Rhapsody"), not said again this turn, is let go; a key set brings the values it
        brings (`brings`: a song asked for starts the music)."""
        said = {op.key for op in ops if op.key}
        lang = language_of(text)
        for spec in self.schema.keys.values():
            if spec.name in said and any(op.op == Op.SET and op.key == spec.name for op in ops):
                for key, value in spec.reading.brings.items():
                    if key not in said:
                        add(Operation(Op.SET, key, Comparator.EQ, value, text.strip(),
                                      reason=f"brought by {spec.name}"), (0, 0))
                # ("the kids want Taylor Swift, can you put some on" just after the temperature: the bare
                # "on" is the music's, not the air conditioning's)
                ops[:] = [op for op in ops if not (
                    spec.reading.brings and op.op == Op.SET and op.key not in (spec.name, *spec.reading.brings)
                    and self.schema.key(op.key).reading.verb_values and op.source != OpSource.RELATIVE
                    and not any(names_key(other, op.words, lang) for other in self.schema.keys.values()
                                if other.name != spec.name and other.name not in spec.reading.brings))]
        if state is None:
            return
        # (算了不去机场了，改去北京南站: a place given up for another keeps its stops.)
        withdrawn = {op.key for op in ops if op.op == Op.WITHDRAW and op.value in (None, "")} \
            - {op.key for op in ops if op.op == Op.SET}
        for spec in self.schema.keys.values():
            if spec.on_the_way_to in withdrawn and state.find(spec.name) and spec.name not in said:
                # "cancel the navigation": the stops on the way go with the route
                add(Operation(Op.WITHDRAW, spec.name, words=text.strip(),
                              reason=f"on the way to the {spec.on_the_way_to} given up"), (0, 0))
        for spec in self.schema.all_keys():     # (the windows closed: each side's value goes)
            if not spec.reading.cleared_by or not state.find(spec.name) or any(op.key == spec.name for op in ops):
                continue
            if any(op.op == Op.SET and op.key and spec.reading.cleared_by_value(op.key, op.value) for op in ops):
                add(Operation(Op.WITHDRAW, spec.name, words=text.strip(),
                              reason="left behind by another key's new value"), (0, 0))

    def _names_another_key(self, words: str, key: str, lang: str) -> bool:
        """Whether `words` are another key's name ("put on the seat heater", 放空调): that key's
        command, not a thing asked for. ("Heat Waves" is a song: only "the heat" names the key.)"""
        folded = words.casefold()
        for alias, other in self.schema.alias_lexicon(lang):
            if other == key:
                continue
            a = alias.casefold()
            if lang != "en":
                if folded.startswith(a):
                    return True
            elif folded == a or any(folded.startswith(f"{lead} {a}") for lead in ("the", "my", "our", "your")):
                return True
        return False

    def _another_keys_name(self, before: str, key: str, lang: str) -> bool:
        """Whether the name cue ending `before` is someone's or something else's name ("the
        restaurant name is Sakura", "my son's name is Leo"), not the one the user gives."""
        if lang != "en":
            return False
        named = re.search(r"(?i)\b([a-z]+)('s)? name(?:'s| is| should be| will be)?\s*$", before)
        if named is None or named.group(1).casefold() in _THE_USERS_NAME_EN:
            return False
        return bool(named.group(2)) or named.group(1).casefold() in ("his", "her", "their", "its") \
            or self._names_another_key(named.group(1), key, lang)

    def _part_put_right(self, said: _Said, taken: list[Span], add: Add, state: SessionState | None) -> None:
        """"Not Maple Street, it's Maple Avenue", 不是27号，是29号 (put_right.held_part_replaced)."""
        for op, span in held_part_replaced(self.schema, said.text, said.lang, state):
            if not _overlaps(span, taken):
                add(op, span)

    def _place_explained(self, said: _Said, taken: list[Span], add: Add, state: SessionState | None) -> None:
        """"公司就是国贸", "the office is on 5th Avenue": the place held, said to be another place by
        name, is that place (where to go is the one named)."""
        if state is None:
            return
        for spec in self._places:
            for held in state.find(spec.name):
                # (The held value as said: "work" is 公司.)
                names = [str(held.value), *spec.values.get(str(held.value), {}).get(said.lang, ())]
                link = _EXPLAINED[said.lang].search(said.text)
                before = said.text[:link.start()].strip(" ，,").casefold() if link is not None else ""
                if link is None or not any(n and before.endswith(n.casefold()) for n in names):
                    continue
                name = str(held.value)
                place = _most_precise_place(said.text[link.end():])
                if 2 <= len(place) <= 30 and not _overlaps((link.end(), len(said.text)), taken):
                    add(Operation(Op.SET, spec.name, Comparator.EQ, place, said.text.strip(), correction=True,
                                  reason=f"{name} is {place}"), (link.end(), link.end() + len(place)))
                    return

    def _places_named(self, said: _Said, taken: list[Span], add: Add, correction: bool,
                      state: SessionState | None) -> None:
        """A place said by its name after a word of going there (42 Baker Street, 人民广场,
        浦东机场), or as the answer to the agent's question where to: before the enums, so
        浦东机场 is that airport, not any airport. A name that is one of the domain's values
        (去公司, "take me to Work"; "Sorry, Thai please" in a restaurant) is left to the enums."""
        last = state.last_act if state is not None else NO_ACT
        lexicon = self.schema.enum_lexicon(said.lang)
        values = {re.sub(r"^the ", "", word) for word, _key, _value in lexicon}
        for spec in self._places:
            own = {re.sub(r"^the ", "", word) for word, key, _value in lexicon if key == spec.name}
            if said.lang == "en" and not spec.multi:
                read_kind_on_a_street(self.schema, spec, said.text, taken, add, correction)
            cues = spec.name_cues.get(said.lang, ())
            answering = last.act == "ask" and last.key == spec.name
            held = state is not None and bool(state.find(spec.name))
            places = find_place_en(said.text, cues, answering) if said.lang == "en" \
                else find_place_zh(said.text, cues, answering)
            if not (held or answering):
                # "Switch to Spotify", "make it Max", 换成五月天: a change of a place only where one is held.
                places = [p for p in places if not _CHANGES_EN.match(said.text, p.cue_start)
                          and not _CHANGES_ZH.match(said.text, p.cue_start)]
            # (the place was set the turn before: a name put right now is one, 不对不对，是水立方)
            just_set = state is not None and any(c.last_mentioned == state.turn for c in state.find(spec.name))
            put_right_of_held: list[PlaceSaid] = []
            if places or held:
                before = tuple(str(v) for v in [state.previous.get(spec.name)] if v) if state is not None else ()
                places = sorted(places + [p for p in places_corrected(said.text, said.lang, just_set, before)
                                          if not (just_set and any(called_by_name(other, p.name, said.lang)
                                                                   for other in self.schema.keys.values()))
                                          if not any(_overlaps((p.start, p.end), [(q.start, q.end)]) for q in places)],
                                key=lambda p: p.start)
                # ("the Safeway in Fremont... no wait, the one in Union City"; or the turn after it was set)
                slipped_from = places or ([PlaceSaid(0, 0, str(c.value), 0) for c in state.find(spec.name)]
                                          if just_set and state is not None else [])
                elsewhere = the_one_elsewhere(said.text, said.lang, slipped_from)
                put_right_of_held = elsewhere if not places else []
                places = sorted(places + elsewhere, key=lambda p: p.start)
            # 顺路去趟超市 ("drop by the supermarket on the way") names a stop, not where to go.
            # ("make it a coffee shop instead" just after the place was set: another key's value words
            # name the place; just after a stop was added, they put the stop right.)
            last_set = just_set and state is not None and not any(
                c.last_mentioned == state.turn for c in state.constraints.values()
                if c.key != spec.name and self.schema.key(c.key).reader == Reader.PLACE_NAME)
            # ("stop at the office": where to go's own words, said as a stop, are the stop)
            where_to_words = {re.sub(r"^the ", "", word) for word, key, _value in lexicon
                         if key != spec.name and self.schema.key(key).reader == Reader.PLACE_NAME} \
                if spec.multi else set()
            kept = [p for p in places if (p.name.casefold() not in values or last_set and p.name.casefold() not in own
                                          and _CHANGES_EN.match(said.text, p.cue_start) is not None
                                          or p.name.casefold() in where_to_words and p.name.casefold() not in own)
                    and not _overlaps((p.start, p.end), taken)
                    and not not_going(said.text, p, said.lang)     # ("no, make that X": that no corrects)
                    and not tells_of_the_past(said.text, p.start, p.end, said.lang)   # "we used to go to X"
                    and not about_something_else(
                        spec, said.text[clause_bounds(said.text, p.cue_start, p.cue_start)[0]:p.cue_start], said.lang)]
            # The places said before the last were corrected: their words are no value for the
            # enums either (上海火车站 哦不 上海南站 is no station).
            if spec.multi:
                # Every one, where the key holds several (路过东直门和雍和宫), but the one put right
                # ("stop at Starbucks, no wait, stop at Peets", 在星巴克停一下，不对，在瑞幸停一下).
                slipped = [p for i, p in enumerate(kept[:-1]) if SELF_REPAIR.search(said.text[p.end:kept[i + 1].start])]
                taken.extend(clause_bounds(said.text, p.start, p.end) for p in slipped)
                kept = [p for p in kept if p not in slipped]
            for place in kept[:-1] if not spec.multi else []:
                taken.append((place.start, place.end))
            for place in kept[-1:] if not spec.multi else kept:       # "先去公司，算了，去人民广场": the last one said
                where = (place.start, place.end)
                if not spec.multi and self._stop_made_another(spec, place, said, state, add):
                    continue
                add(Operation(Op.SET, spec.name, Comparator.INCLUDES if spec.multi else Comparator.EQ, place.name,
                              clause_of(said.text, where), correction=correction,
                              reason=PART_PUT_RIGHT if place in put_right_of_held else ""), where)
                taken.append((min(place.cue_start, place.start), place.start))   # (its cue is no wish: "head out to")
                if spec.multi:
                    # 在星巴克停一下买咖啡: what is done there is no second stop (up to a word that goes
                    # on to where next: "pick up my mom in Oakland and then go to the airport").
                    left, right = clause_bounds(said.text, place.start, place.end)
                    goes_on = _GOES_ON_TO.search(said.text, place.end, right)
                    taken.append((max(left, place.cue_start), goes_on.start() if goes_on is not None else right))
            if spec.multi and state is not None:
                read_stops_refused(spec, said.text, said.source, said.lang, state, taken, add)

    def _stop_made_another(self, spec: KeySpec, place: PlaceSaid, said: _Said, state: SessionState | None,
                           add: Add) -> bool:
        """"Stop at a McDonald's on the way" … "actually make it a KFC": a place after a word of
        changing it ("make it", "switch to") changes what was asked for last, the stop, not where
        to; the stop said last is replaced."""
        if state is None or not _CHANGES_EN.match(said.text, place.cue_start):
            return False
        where_to = max((c.turn for c in state.find(spec.name)), default=-1)
        for stops in self._places:
            held = sorted((c for c in state.find(stops.name) if c.comparator == Comparator.INCLUDES),
                          key=lambda c: c.turn)
            if stops.on_the_way_to != spec.name or not held or held[-1].turn <= where_to:
                continue
            where = (place.start, place.end)
            add(Operation(Op.WITHDRAW, stops.name, value=held[-1].value, words=clause_of(said.text, where),
                          reason=INSTEAD_OF_IT), (place.cue_start, place.cue_start))
            add(Operation(Op.SET, stops.name, Comparator.INCLUDES, place.name, clause_of(said.text, where),
                          correction=True), where)
            return True
        return False

    def _option_named(self, said: _Said, taken: list[Span], add: Add, correction: bool,
                      state: SessionState | None) -> None:
        for key, names in self._options.items():
            # As written; else, in Chinese, as heard (杨大爷算肉芳 is 羊大爷涮肉坊: see names.py).
            for found in names.find(said.text):
                span = (found.start, found.end)
                if _overlaps(span, taken):
                    continue
                if self._negated(said.text, found.start, said.cues):
                    # 不要海底捞火锅 refuses a place, not hotpot: no reader looks inside. The place
                    # chosen, turned down so (不要四季民福了, any of its branches), is let go.
                    words = said.text[found.start:found.end].casefold()
                    held = [c for c in (state.find(key) if state is not None else [])
                            if str(c.value) == found.value or str(c.value).casefold().startswith(words)]
                    for condition in held:
                        add(Operation(Op.WITHDRAW, key, value=condition.value, words=clause_of(said.text, span),
                                      reason="the user turned the place down", source=OpSource.CATALOGUE), span)
                    if not held:
                        taken.append(span)
                    continue
                add(Operation(Op.SET, key, Comparator.EQ, found.value, clause_of(said.text, span),
                              correction=correction, source=OpSource.CATALOGUE), span)
                break

    def _another_task_cue(self, text: str, lang: str, *, under_way: bool = False) -> Span | None:
        """Where `text` asks for another task of the domain's kind ("another order", "can I also get a
        table", 顺便也帮我订一下), or None. `under_way`: asked while one is (not 再帮我订一下, "go on and
        book it", nor one more item of the same order)."""
        primary = self.schema.primary_action()
        if primary is None:
            return None
        # (the task's own nouns, and what its first need is called: "order", 订单, 单子)
        first = self.schema.key(primary.needs[0]) if primary.needs else None
        nouns = [*primary.task_nouns.get(lang, ()), *(first.aliases.get(lang, ()) if first else ()),
                 *((first.label(lang),) if first else ())]
        nouns += [n.split()[0] for n in nouns if " " in n]      # ("order number": "another order")
        # (any of them: "I also have a different order" is "a different order")
        # (…and where the task is about an item ordered, one more item: 还有一件羽绒服，尺码买小了)
        about_an_item = any(self.schema.key(k).reader == Reader.IDENTIFIER
                            for k in primary.needs if k in self.schema.keys)
        # (…the noun just after it while one is under way: "one more person for the booking", 还有一个朋友要来，
        # 订位改成五个人 are this one's)
        reach = (8 if lang == "en" else 3) if under_way else 20
        m = next((found for found in _ANOTHER_ONE[lang].finditer(text)
                  if found.group(0).lower() == "separately"
                  or any(n and n.lower() in text[found.end():found.end() + reach].lower() for n in nouns)), None) \
            or (_ANOTHER_OF_THE_TASK_ZH.search(text) if lang == "zh" else None) \
            or (_ANOTHER_ITEM_ZH.search(text) if lang == "zh" and about_an_item and not under_way else None)
        if m is None or under_way and lang == "zh" and m.group(0).startswith("再"):
            return None
        return m.span()

    def _another_task_under_way(self, text: str, lang: str, state: SessionState | None) -> Span | None:
        """The words of a task of the same kind asked for while one is under way, not yet done: the
        sentence that asks for it (in English from the clause that does), or None."""
        primary = self.schema.primary_action()
        if state is None or primary is None or not primary.completes \
                or any(d.action == primary.name and d.args for d in state.done) \
                or not any(state.find(k) for k in (*primary.needs, *((primary.choose,) if primary.choose else ()))):
            return None
        cue = self._another_task_cue(text, lang, under_way=True)
        if cue is None:
            return None
        start = max((m.end() for m in re.finditer(r"[.!?。！？]\s*", text[:cue[0]])), default=0)
        if lang == "en":
            start = max(start, clause_bounds(text, *cue)[0])
        end = next((cue[1] + m.end() for m in re.finditer(r"[.!?。！？]", text[cue[1]:])), len(text))
        asked = text[start:end].strip()
        if is_query(asked) or asks_for_information(asked):
            return None     # ("what's the status of my other order?": asked about, not asked for)
        return start, end

    def _another_item_named(self, said: _Said, primary: ActionSpec, state: SessionState) -> Span | None:
        """Where a task about an item (an order by its number) names another item than the one it was
        done for, not put right ("also, I was charged twice for order ZT88120"): another task; None if not."""
        codes = [k for k in primary.needs if k in self.schema.keys and self.schema.key(k).reader == Reader.IDENTIFIER]
        if not codes or said.cues.correction.search(said.source) or SELF_REPAIR.search(said.text):
            return None
        done = [d for d in state.done if d.action == primary.name]
        since = max((d.turn for d in done), default=-1)
        if since < 0 or any(c.turn > since for c in state.constraints.values()):
            return None     # (another task already under way since: its number is its own, given now)
        read: list[tuple[Operation, Span]] = []
        read_identifiers(self.schema, said.text, said.lang, [], lambda op, span: read.append((op, span)), False)
        # (where it is said, taking none of it: the code is the new task's)
        return next(((span[0], span[0]) for op, span in read if op.key in codes and op.op == Op.SET
                     and all(str(d.args.get(op.key)) != str(op.value) for d in done)), None)

    def _later_answered(self, text: str, state: SessionState | None) -> Extraction | None:
        """A yes to "now the other one you asked for: shall we do it now?" reads the words it was
        asked in, as if said now (another task of the kind: the one done is let go); a no lets it go."""
        primary = self.schema.primary_action()
        last = state.last_act if state is not None else NO_ACT
        if state is None or not state.later or primary is None or last.act != "act" or last.action != primary.name \
                or not self.is_bare_answer(text):
            return None
        polarity = self._polarity(text.lower(), STATE_CUES[language_of(text)])
        if polarity == "yes":
            result = self.extract(state.later[0], state)
            result.operations.append(Operation(Op.LATER, words=text.strip(), reason="taken up"))
            result.read_from = state.later[0]
            return result
        if polarity == "no":
            return Extraction(operations=[Operation(Op.LATER, words=text.strip(), reason="the user said no")])
        return None

    def _another_task(self, said: _Said, add: Add, state: SessionState | None, taken: list[Span]) -> None:
        """"Another order never showed up", 我还有一个单子…: once the task is done, another of its kind is
        a new task, and what the done one was done with is let go (the record of it stays)."""
        primary = self.schema.primary_action()
        if state is None or primary is None or not primary.completes \
                or not any(d.action == primary.name and d.args for d in state.done):
            return
        span = self._another_task_cue(said.text, said.lang) or self._another_item_named(said, primary, state)
        last = state.last_act
        if span is None and state.later and last.act == "act" and last.action == primary.name:
            # (just after the one done, with another asked for while it was under way: what is said now
            # is for that one, though it says no "another": "Sunday at noon, the duck place, for two")
            span = (0, 0)
            add(Operation(Op.LATER, words=said.text.strip(), reason="taken up"), span)
        if span is None:
            return
        m = said.text[span[0]:span[1]] or said.text.strip()
        taken.append(span)      # ("another" is one more task, not one more of anything)
        # (…and what kind of option it was: the second booking is not at another vegetarian place in 东城区)
        for key in dict.fromkeys((*primary.needs, *((primary.choose,) if primary.choose else ()), *primary.optional,
                                  *primary.chosen_by)):
            for held in state.find(key):
                add(Operation(Op.WITHDRAW, key, value=held.value if held.multi else None, words=m,
                              reason=ANOTHER_TASK), (0, 0))

    def _dropped_whole(self, said: _Said, add: Add, state: SessionState | None, taken: list[Span]) -> None:
        """Every value a key holds let go by its `dropped_by` words ("let's go straight there", 中途不停了:
        no stops), or by going straight to where they were on the way to (不用接了，直接去雍和宫 with 雍和宫
        held), unless asked about, refused, or said after a stop ("the pharmacy, then straight to the airport")."""
        if state is None:
            return
        for spec in self.schema.keys.values():
            words = spec.reading.dropped_by.get(said.lang, ())
            if not words or not state.find(spec.name):
                continue
            found = [m for word in words for m in value_pattern(word, said.cues.spaced).finditer(said.source)]
            going_to = [c for c in state.find(spec.on_the_way_to)] if spec.on_the_way_to else []
            for m in _STRAIGHT_TO[said.lang].finditer(said.source):
                held = [w for c in going_to for w in (str(c.value), *self.schema.key(c.key).value_words(str(c.value),
                                                                                                          said.lang))]
                if any(said.source[m.end():].lower().startswith(w.lower()) for w in held if w):
                    found.append(m)
            # (…nor where a stop is said in the same breath: "stop at the pharmacy and go straight to the airport")
            stop_said = any(value_pattern(w, said.cues.spaced).search(said.source)
                            for w, key, _v in self.schema.enum_lexicon(said.lang) if key == spec.name) \
                or any(value_pattern(w, said.cues.spaced).search(said.source)
                       for w in spec.name_cues.get(said.lang, ()) if "…" not in w)
            found = [m for m in found if not stop_said and not _overlaps(m.span(), taken)
                     and not asks(said.text, *m.span(), said.lang)
                     and not self._negated(said.text, m.start(), said.cues)
                     and not _AFTER_A_STOP[said.lang].search(said.source[:m.start()])]
            if found:
                add(Operation(Op.WITHDRAW, spec.name, words=said.text[found[0].start():found[0].end()],
                              reason="the user let all of it go"), found[0].span())

    def _lets_a_held_key_go(self, said: _Said, held: frozenset[str]) -> bool:
        """Whether the turn says a held key's `dropped_by` words (中途不用停了, "no need to stop")."""
        return any(value_pattern(word, said.cues.spaced).search(said.source)
                   for key in held if key in self.schema.keys
                   for word in self.schema.key(key).reading.dropped_by.get(said.lang, ()))

    def _withdrawals(self, said: _Said, add: Add, state: SessionState | None = None,
                     taken: list[Span] | None = None) -> None:
        text, source, lang, cues = said.text, said.source, said.lang, said.cues
        matches = [(m.groupdict().get("what") or m.groupdict().get("what2") or m.groupdict().get("what3")
                    or m.groupdict().get("what4"), m.span())
                   for pattern in cues.withdrawals for m in pattern.finditer(source)
                   if not _overlaps(m.span(), taken or [])]    # 别5了，三吧 replaces the 5: nothing withdrawn
        keys_only = [(m.group("what"), m.span()) for m in cues.withdraw_key.finditer(text)] if cues.withdraw_key else []
        withdrawn = False
        held = frozenset(c.key for c in state.constraints.values()) if state is not None else frozenset()
        primary = self.schema.primary_action()
        task_nouns = tuple(w.lower() for lang_words in (primary.task_nouns.values() if primary else ())
                           for w in lang_words)
        for what, span in matches + keys_only:
            if not what:
                continue
            if _THIS_ONE.sub("", what.strip().lower()).startswith(task_nouns):
                continue      # "取消订位的话…", 把这个订位取消: the task itself, not the 位 of its party
            if what.strip().startswith(("还是", "就")):
                continue      # 算了还是关上吧, 算了就去公司吧: a change of mind, the new command read as one
            # (不用在星巴克停了: the stop held by that name, not the music 停 stops.)
            target = self._held_place_named(what, state) \
                or self._key_named(what.strip(), lang, cues, keys_only=(what, span) in keys_only, held=held) \
                or held_wish_named(self.schema, what, lang, state) or held_number_named(what, state) \
                or self._held_day_or_time_named(what, lang, state)
            if target is not None and self._another_keys_value_at(target[0], text, span, lang):
                continue      # "cancel my order" is what the customer wants done, not the order number taken back
            if target is not None and target[0] not in held and self._lets_a_held_key_go(said, held):
                continue      # (中途不用停了 with a stop held: the stops let go, not the music's 停)
            if target is not None and target[0] not in held and re.search(r"\d", what):
                continue      # "can I cancel order 5 5 1 9 0 7": nothing held to take back; the number is given
            if target is not None and target[0] not in held and _REFUSING_VERB.match(text, span[0]):
                continue      # "let's skip the freeway" with nothing held: a refusal, for the readers of those
            if target is not None:
                key, value = target
                add(Operation(Op.WITHDRAW, key, value=value, words=text[span[0]:span[1]],
                              reason="user withdrew it"), span)
                withdrawn = True
        # (同事自己打车了，不用接了; "she's taking a cab, no need to pick her up": the stop made for that errand)
        for m in ERRAND_CALLED_OFF[lang].finditer(text):
            stops = [(spec.name, str(c.value)) for spec in self._places if spec.multi and state is not None
                     for c in state.find(spec.name) if errand_in(m.group("v"), c.words)]
            if len(stops) == 1 and not _overlaps(m.span(), taken or []):
                add(Operation(Op.WITHDRAW, stops[0][0], value=stops[0][1], words=clause_of(text, m.span()),
                              reason="the errand it was for called off"), m.span())
                withdrawn = True
        action = control_just_carried_out(self.schema, state)
        going = any(self.schema.key(k).reader == Reader.PLACE_NAME for k in action.needs) if action else False
        if not withdrawn and action is not None and state is not None \
                and BARE_CANCEL[lang].match(text) and (going or "去" not in text):
            # (不去了, "not going": a route's cancel, not the seat heating's.)
            # "Cancel it" just after a control was carried out: what it was done with is taken back
            # ("forget all of it": the task's own as well, the route with its stops).
            primary = self.schema.primary_action()
            everything = EVERYTHING.search(text)
            keys = list(action.needs) + (list(primary.needs) if everything and primary is not None else [])
            for key in dict.fromkeys(keys):
                if state.find(key):
                    add(Operation(Op.WITHDRAW, key, words=text.strip(), reason="user cancelled what was just done"),
                        (0, len(text)))

    def _held_place_named(self, words: str, state: SessionState | None) -> tuple[str, str | None] | None:
        """(key, value) of a place held by its name that `words` say (星巴克 in 在星巴克停)."""
        held = [(spec.name, str(c.value), c.words) for spec in self._places
                for c in (state.find(spec.name) if state is not None else []) if len(str(c.value)) > 1]
        said = next(((key, value) for key, value, _words in held if value.casefold() in words.casefold()), None)
        # …or a stop held as its kind, by the name it was asked for with (星巴克不要了 after 找个星巴克买杯咖啡:
        # the coffee stop), where no other place held is named so.
        name = _WITHDRAW_TRIM.sub("", words.strip())
        by_words = [(key, value) for key, value, said_as in held
                    if self.schema.key(key).multi and len(name) >= 2 and name.casefold() in said_as.casefold()]
        return said or (by_words[0] if len(by_words) == 1 else None)

    def _another_keys_value_at(self, key: str, text: str, span: Span, lang: str) -> bool:
        """Whether a value of another key, longer than a word, is said across `span` (a
        withdrawal's words that are themselves a value: "cancel my order", 取消订单), or one of
        the key's own from its very verb on ("cancel the order and refund me": the cancellation
        asked for; "forget the exchange" takes the exchange back)."""
        lowered = text.lower()
        return any(len(w) >= (8 if lang == "en" else 4) and any(
                   m.start() < span[1] and span[0] < m.end() and (k != key or m.start() == span[0])
                   for m in re.finditer(re.escape(w), lowered))
                   for w, k, _v in self.schema.enum_lexicon(lang))

    @staticmethod
    def _said_instead(spec: KeySpec, value: str, text: str, span: Span, lang: str,
                      state: SessionState | None) -> bool:
        """"Actually the train station instead", 还是火车站吧: another of a held key's values, said
        bare with a word of replacing, is its new value (no word of driving is needed)."""
        held = [str(c.value) for c in state.find(spec.name)] if state is not None else []
        if not held or value in held or refused(spec, text, span, lang):
            return False        # (学校还是不去了: refused, not the new one)
        if spec.reading.verb_values:
            return False        # (没问题了，开吧: a bare verb names no control; one just carried out is `_continues`)
        left, right = clause_bounds(text, *span)
        rest = _INSTEAD.sub("", _INSTEAD.sub("", text[left:span[0]] + " " + text[span[1]:right]))
        # ("actually my office is near the airport": the place held is named too; it is a remark)
        named_held = any(re.search(value_pattern(word, lang == "en"), rest.lower())
                         for old in held for word in (*spec.value_words(old, lang), old))
        return bool(_REPLACES.search(text[left:right]) or _INSTEAD.search(text[left:right])) \
            and len(content_words(rest, lang)) <= 1 and not named_held

    @classmethod
    def _one_of_several_replaced(cls, spec: KeySpec, value: str, text: str, span: Span, lang: str,
                                 state: SessionState | None) -> str | None:
        """Of the values a key holds several of, the one `value` is said instead of: the one
        refused beside it ("not the charger, a gas station"), else the one asked for last."""
        if not spec.multi or state is None:
            return None
        held = sorted((c for c in state.find(spec.name) if c.comparator == Comparator.INCLUDES),
                      key=lambda c: c.turn)
        if not held or any(str(c.value) == value for c in held):
            return None
        for c in held:
            if any(negated_at(text, found.start()) or refused(spec, text, found.span(), lang)
                   for word in spec.value_words(str(c.value), lang)
                   for found in re.finditer(re.escape(word), text, re.IGNORECASE)):
                return str(c.value)
        left, right = clause_bounds(text, *span)
        clause = text[left:right]
        # (Only with a word of replacing: 再加个咖啡吧, "and the gas is fine" add one.)
        if _ONE_MORE_BESIDE[lang].search(clause) or not (_INSTEAD_OF_ONE.search(clause) or _REPLACES.search(clause)):
            return None
        return str(held[-1].value) if cls._said_instead(spec, value, text, span, lang, state) \
            or _INSTEAD_OF_ONE.search(clause) else None

    @staticmethod
    def _one_more_said(spec: KeySpec, text: str, span: Span, lang: str, state: SessionState | None) -> bool:
        """"And a coffee too", 再加个咖啡: one more of the values a key holds several of, said bare
        beside a word of adding while some are held (no word of the key's own is needed)."""
        if not spec.multi or state is None or not any(c.comparator == Comparator.INCLUDES
                                                      for c in state.find(spec.name)):
            return False
        left, right = clause_bounds(text, *span)
        rest = text[left:span[0]] + " " + text[span[1]:right]
        return _ONE_MORE_BESIDE[lang].search(rest) is not None \
            and not content_words(_ONE_MORE_BESIDE[lang].sub(" ", rest), lang)

    @staticmethod
    def _held_refused(spec: KeySpec, value: str, text: str, lang: str, state: SessionState | None) -> bool:
        """Whether `text` refuses the value `spec` holds ("别机场了", "not the airport") and `value`
        is another one."""
        held = [str(c.value) for c in state.find(spec.name)] if state is not None else []
        for old in held:
            if old == value:
                continue
            for word in spec.value_words(old, lang):
                for found in re.finditer(re.escape(word), text, re.IGNORECASE):
                    if negated_at(text, found.start()) or refused(spec, text, found.span(), lang):
                        return True
        return False

    def _held_day_or_time_named(self, what: str, lang: str, state: SessionState | None) -> tuple[str, Any] | None:
        """A day or a time held, named as it is said ("星期二不要了" with Tuesday held): its key."""
        if state is None:
            return None
        for specs, reader in ((self._dates, _DATES[lang]), (self._times, _TIMES[lang])):
            said = {value for value, _start, _end in reader(what)}
            for spec in specs:
                if any(c.value in said for c in state.find(spec.name)):
                    return spec.name, None
        return None

    def _key_named(self, phrase: str, lang: str, cues: StateCues, keys_only: bool = False,
                   held: frozenset[str] = frozenset()) -> tuple[str, str | None] | None:
        """The key (and, for set-valued keys, the value) a phrase like 'the budget' names.

        `keys_only`: match key names alone, not value words (不要辣 is a negation, 不要预算了 a withdrawal).
        `held`: keys the state holds, first among keys that share a name of the same length ("cancel
        the route" takes back the destination set, not a route preference never given).
        """
        phrase = phrase.lower()
        lexicon = self.schema.alias_lexicon(lang)
        if keys_only:
            value_words = {word for word, _key, _value in self.schema.enum_lexicon(lang)}
            lexicon = [(a, k) for a, k in lexicon if a not in value_words]
        lexicon = sorted(lexicon, key=lambda row: (-len(row[0]), row[1] not in held))   # longest name first
        for alias, key in lexicon:
            # (a one-word name said in the plural is said in the singular too: "forget about the stop")
            said_as = with_its_singular(alias) if cues.spaced else (alias,)
            if re.search(cue_pattern(said_as, spaced=cues.spaced), phrase):
                spec = self.schema.key(key)
                if spec.multi:
                    # "access needs, never mind" is the whole key, though 无障碍需要 holds a value's word.
                    rest = phrase.replace(alias, " ")
                    for value, words in spec.values.items():
                        if any(w.lower() in rest for lang_words in words.values() for w in lang_words):
                            return key, value
                        if any(w.lower() == alias for lang_words in words.values() for w in lang_words):
                            return key, value
                return key, None
        return None
