"""A place said by its name after a word of going there: one no list holds ("42 Baker Street",
"the Museum of Modern Art", 人民广场, 北京大学东门).

English writes names with capitals: the place is the capitalised words (with "of", "on",
"the", "&" between them, and a house number before them) after one of the key's cues.
Chinese has no capitals. There the place is the run of nouns after a cue (导航到, 带我去, 去)
up to the clause's end, as jieba segments and tags it. A bare 去 or 到 also goes where no
place is meant (去吃饭, 调到22度, 到了吗), so after it the run must be a place by its tags
(ns place, nt organisation, nr/nz name, j abbreviation: 国贸) or by its last word, the kind
of place it is (广场, 机场, 路, 大厦). After a word of conveying and going there, which leads
only to a place (导航到, 送我去), any run of nouns is one (外滩); 导航 alone and 开到 are not
such words (导航声音大一点, 风量开到三档).

Without jieba (the `zh` extra) a Chinese place is found by its last word only.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from monologue.memory.language.cues import MONTHS, SELF_REPAIR, WEEKDAYS
from monologue.memory.language.digits import HOUSE_NUMBER_WORDS_EN, house_number_en
from monologue.memory.language.stances import clause_bounds

# Words an English place name does not start with or run into (a day, a pronoun: "to Union
# Square on Friday", "take me to My office").
_NOT_PLACE_WORDS_EN = frozenset(w.capitalize() for w in (
    "a", "an", "my", "any", "some", "this", "that", "it", "what", "there", "here", "i", "me", "you", "us",
    "somewhere", "anywhere", "now", "today", "tonight", "tomorrow", "please", "thanks", "and", "then",
    *WEEKDAYS, *MONTHS))
# Words an answer to "where to?" starts with that name no place ("No", "Cancel", "As I said…").
_NOT_AN_ANSWER_EN = _NOT_PLACE_WORDS_EN | frozenset(w.capitalize() for w in (
    "no", "nope", "yes", "yeah", "sure", "okay", "ok", "cancel", "wait", "stop", "nothing", "never", "later", "maybe",
    "not", "hold", "sorry", "actually", "well", "um", "uh", "hmm", "hi", "hello", "hey", "forget", "as", "if", "so",
    "but", "because", "when", "just", "can", "could", "would", "will", "let", "how", "why", "where", "who", "we",
    "they", "he", "she", "go", "take", "drive", "book", "make", "set", "like", "also", "oh", "again"))
_WORD_EN = r"(?:[A-Z][\w'&.-]*|\d+(?:st|nd|rd|th)?|#\s?\d+|#)"
# A house number and the capitalised words after it; or capitalised words joined by a few small
# words ("Museum of Modern Art", "Rooftop Restaurant & Bar", "2020 Forest Ave # 8"); an article
# before them is not kept (a catalogue's area is "Marina", said "in the Marina").
_JOINERS_EN = ("of", "on", "the", "de", "du", "la", "at", "&", "in")
# (A joiner only before a capitalised word: "Union Station at 6 pm" and "in 10 minutes" end the
# name; "Midtown and Chinatown" are two places.)
# (…and the part of a town said in small letters before its name: "downtown Fresno", "north Denver")
_PLACE_EN = re.compile(r"(?:the |an? )?(?P<v>(?:\d+[A-Za-z]? |(?i:" + HOUSE_NUMBER_WORDS_EN + r")|"
                       r"(?:downtown|uptown|midtown|north|south|east|west|central|old town|greater) )?[A-Z][\w'&.-]*"
                       r"(?: (?:" + "|".join(map(re.escape, _JOINERS_EN)) + r") [A-Z][\w'&.-]*"
                       r"| " + _WORD_EN + r"){0,6})")
# A full stop after these ends no name ("St. Mary's Hospital", "Solomon R. Guggenheim Museum").
_ABBREVIATIONS_EN = frozenset(("St", "Mt", "Ft", "Dr", "Ave", "Blvd", "Rd", "Jr", "Sr", "Sq", "Ln", "Hwy"))
_STREET_WORDS_EN = (r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Way|Square|Place|Plaza|"
                    r"Highway|Hwy|Parkway|Court|Circle")
_STREETS_EN = re.compile(r"\b(?i:" + _STREET_WORDS_EN + r")\.?$")

# The kinds of place a Chinese place name ends with (人民广场, 浦东机场, 南京西路, 国贸大厦).
PLACE_HEADS_ZH = (
    "广场", "机场", "车站", "火车站", "高铁站", "地铁站", "站", "公园", "医院", "诊所", "学校", "大学", "学院",
    "中学", "小学", "幼儿园", "酒店", "宾馆", "饭店", "餐厅", "商场", "商城", "超市", "市场", "中心", "大厦",
    "大楼", "银行", "小区", "花园", "公寓", "家园", "路", "街", "大道", "胡同", "巷", "弄", "号", "桥", "门",
    "寺", "庙", "宫", "馆", "院", "楼", "村", "镇", "区", "县", "市", "城", "湾", "湖", "山", "滩", "港",
    "码头", "影院", "剧院", "体育场", "加油站", "充电站", "停车场", "公司", "厂", "园", "塔", "岛", "口",
    "饭庄", "酒楼", "食府", "餐馆", "民宿", "客栈", "会所", "充电桩", "服务区", "药店", "药房", "便利店",
    "厕所", "洗手间", "卫生间", "店",
)
_HEADS_ZH = re.compile("(?:" + "|".join(sorted(map(re.escape, PLACE_HEADS_ZH), key=len, reverse=True)) + ")$")
# jieba's tags that a place's words carry: nouns of every kind, numbers and measure words (27号),
# direction words (东门's 东) and 的 between them (最近的加油站), English letters (SOHO).
_NOUNISH = re.compile(r"^(?:n\w*|j|m|mq|q|f|s|uj|eng|b)$")
_NAMED = re.compile(r"^(?:ns|nt|nr\w*|nz|j|eng)$")
# Tags that end a place: particles, pronouns (哪), adverbs, conjunctions, prepositions, idioms.
# (And time words: 往后挪一个小时 answers "where to?" with no place.)
_ENDS_A_PLACE = re.compile(r"^(?:y|r\w*|d|c|p|ul|uz|ug|ud|x|w|e|o|i|l|z\w*|t\w*)$")
_NUMBER_ZH = re.compile(r"[\d零一二两三四五六七八九十百千万几半多少久]+")
# Said before the place but not part of it (去趟超市, 去一下银行, 去那个广场).
_LEADING_ZH = re.compile(r"^[\s,，]*(?:是|去|到)?(?:一趟|趟|一下|下|一个|个|那个|这个|那家|这家|一家|家(?![门里]))?"
                         r"(?:名叫|名字叫|名字是|叫做)?(?=.)")
# A place described by its rating or price is one to search for (去一家人均100元的餐馆), not a name.
_SEARCHED_FOR_ZH = re.compile(r"评分|人均|消费|价位|\d+\s*(?:元|分|块)|"
                              r"[\d一二两三四五六七八九十几半]+个?(?:小时|分钟|钟头)")     # (…nor is a while a place)
_POINTING_ZH = frozenset(("那个", "这个", "那家", "这家"))
# Where the car is, said from the driver's seat (前面路口, 路边, 这儿): no named place.
_WHERE_HERE_ZH = re.compile(r"前面|前边|后面|旁边|路边|附近|这|那|下个|下一个|马路")
_BRANCH_ZH = re.compile(r"[(（][^()（）]{1,12}[)）]")
# The part of a place said after it: a terminal, a phase, a building, a gate (首都机场T3, 国贸三期,
# 望京SOHO T1, 西直门B口, 3号航站楼): the driver is going there, not to the place at large.
_PART_ZH = re.compile(r"\s?(?:T\d(?:航站楼)?|[A-Z]\d{0,2}(?:口|座|门|出口|栋)|"
                      r"(?:\d{1,3}|[一二三四五六七八九十]{1,3})(?:号航站楼|号楼|号门|号口|期|栋|座|号院|出口|号出口)|"
                      r"航站楼|[东南西北]门|[东南西北]口)")
_PART_APART_ZH = re.compile(r"[，,、\s]+(?P<part>" + _PART_ZH.pattern.removeprefix(r"\s?")
                            + r")(?=[吧啊呀]*\s*(?:[,，。.!！?？]|$))")
_CLAUSE_END_ZH = re.compile(r"[,，。.!！?？;；、(（]|然后|再|顺便|并且|同时|接着|之后|以后|的时候|(?:的)?路上|"
                            r"乘坐|坐地铁|坐出租|打车|打的|叫车|坐车|"
                            # (去国贸接个人, 回家拿东西: what is done there is no part of the place)
                            r"(?:接|拿|取|买|送|办)(?:[个一下点])?(?:人|孩子|东西|快递|钱|文件|事)")


@dataclass(frozen=True)
class PlaceSaid:
    start: int
    end: int
    name: str
    cue_start: int      # where the word of going there starts (a negation before it refuses the place)


# ("we do not need to stop at Walmart", "I don't want to stop at Joe's", 不用在星巴克停了)
_NOT_GOING = {"en": re.compile(r"\b(?:don'?t|do not|not|never|no need to|no longer)\s+"
                               r"(?:(?:need|want|have|got|going)\s+to\s+)?$", re.IGNORECASE),
               "zh": re.compile(r"(?:不|别|甭|不要|不用|没必要)(?:再|去)?$")}


def not_going(text: str, place: PlaceSaid, lang: str) -> bool:
    """Whether the word of going is refused: 不去人民广场了, "don't take me to Union Square"."""
    pattern = _NOT_GOING.get(lang)
    return pattern is not None and bool(pattern.search(text[:place.cue_start]))


# What an answer to "Where would you like to go?" may say before the place ("To Union Station").
_ANSWER_LEAD_EN = r"^\W*(?:(?:uh|um|er|oh|ok|okay|well|so|yes|yeah|sure|hmm|let'?s (?:do|say|go to)|to|it'?s|just)\W+)*"
_ANSWER_LEAD_ZH = re.compile(r"^(?:嗯|呃|那个|就|我要|我想|要|想|先)*(?:去|到|回)?")


# (a re.sub template: its doubled backslashes write the escaped spaces of the cue's pattern)
_PARTICLE_TO = r"(?:\\ (?:out|over|up|down|across|along|around|round))?\\ to"


def find_place_en(text: str, cues: tuple[str, ...], answering: bool = False) -> list[PlaceSaid]:
    """Capitalised places after the cues ("take me to 42 Baker Street"); `answering` the
    agent's question where to go, also the one the answer opens with ("Cables Wake Park.")."""
    if not cues:
        return []
    found = []
    # A cue in two parts, with a few words between ("pick up … in": "pick up my sister in Truckee").
    parts = [re.escape(c).replace(r"\ …\ ", r"(?: [\w']+){1,4}? ").replace("…", r"(?: [\w']+){1,4}? ")
             for c in sorted(cues, key=len, reverse=True)]
    # (A word of going to takes a particle before its "to": "head out to", "get me over to"; not "go back to
    # the last station".)
    parts = [re.sub(r"\\ to$", _PARTICLE_TO, part) if part.count(r"\ ") <= 2 else part for part in parts]
    alternation = "|".join(parts)
    starts: list[re.Match[str] | None] = list(re.finditer(r"\b(?i:" + alternation + r")(?: |, ?)", text))
    if answering:
        starts.insert(0, re.match(_ANSWER_LEAD_EN, text, re.IGNORECASE))     # (matches the empty lead too)
    for cue in starts:
        if cue is None:
            continue
        # ("directions to uh, it's a town called Ojai": the pause and what the place is come first)
        lead = _LEADS_A_NAME_EN.match(text, cue.end())
        at = lead.end() if lead is not None else cue.end()
        m = _PLACE_EN.match(text, at)
        words = _place_words_en(m.group("v").split(" ")) if m is not None else []
        if m is not None and words and answering and cue is starts[0] and (
                words[0] in _NOT_AN_ANSWER_EN
                or (len(words) == 1 and _SENTENCE_GOES_ON_EN.match(text, m.start("v") + len(words[0])))):
            continue        # "No", "Let me get back to you": a sentence's first word, not a name
        if m is not None and words and words[0] not in _NOT_PLACE_WORDS_EN and any(w[:1].isupper() for w in words):
            start = m.start("v")
            kind = _KIND_AFTER_EN.match(text, start + len(" ".join(words)))
            name = " ".join(words) + (kind.group() if kind else "")    # "JFK airport", "Heathrow terminal 5"
            street = _STREET_AFTER_EN.match(text, start + len(name))
            if street is not None:
                name += street.group()          # "Palo Alto, University Avenue": the street in the town
            found.append(PlaceSaid(start, start + len(name), _house_number_written(name), cue.start()))
            continue
        else:
            # The ASR writes a name in small letters too ("take me to starbucks"): after a word
            # that only leads to a place, the words up to the clause's end are one; after another
            # cue ("get to union station", "go to sleep") and answering "where to?" ("not sure
            # yet"), only an address or words ending in a kind of place.
            low = _LOWER_PLACE_EN.match(text, at)
            lowered = _lower_words_en(low.group("v").split(" ")) if low is not None else []
            # (An address is a number and a street: "make that 23" is a number put right, no place.)
            if low is None or not lowered or (not _DRIVES_EN.search(cue.group()) and not (
                    lowered[0][:1].isdigit() and len(lowered) > 1 or _KIND_AFTER_EN.match(" " + lowered[-1]))):
                continue
            if not answering and _PLANS_TOLD_EN.search(text[:cue.end()]):
                continue        # ("I'm going to the store later to pick up milk": a plan told)
            start, name = low.start("v"), " ".join(lowered)
        found.append(PlaceSaid(start, start + len(name), name, cue.start()))
    return found


# What may come between a word of going and the place's name: a pause, and what the place is
# ("take me to uh, Ojai", "directions to, um, it's a town called Ojai", "to a place called Nobu").
# (…and whose place it is, then where: "heading over to my mom's, it's on Birchwood Lane")
_LEADS_A_NAME_EN = re.compile(r"(?:(?:uh+|um+|er+|erm|hmm+)\b[,.]?\s*"
                              r"|(?:it'?s |it is )?(?:a|an|the|this|that) (?:[a-z]+ ){0,2}(?:called|named) "
                              r"|(?:my|our|his|her|their) (?:[a-z]+'s|[a-z]+)(?: (?:place|house|home|apartment|flat))?"
                              r",? (?:(?:it'?s|that'?s|she'?s|he'?s|they'?re|which is|who lives|lives) )?"
                              r"(?:(?:over|down|up|out) )?(?:on|in|at) )*",
                              re.IGNORECASE)
# A street said after the town it is in ("Palo Alto, University Avenue").
_STREET_AFTER_EN = re.compile(r", (?:\d+ )?(?:[A-Z][\w'.-]* ){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|"
                              r"Dr|Lane|Ln|Way)\b\.?(?=\s*(?:[,.!?]|$|please\b|thanks\b))")
_HOUSE_NUMBER_EN = re.compile(r"^(?i:" + HOUSE_NUMBER_WORDS_EN + r")")


def _house_number_written(name: str) -> str:
    """A house number said in words written in digits ("four twenty five Mission Street" → "425 Mission Street")."""
    said = _HOUSE_NUMBER_EN.match(name)
    if said is None or not _STREETS_EN.search(name):
        return name         # ("the Four Seasons", "Five Guys": a name, not an address)
    number = house_number_en(said.group())
    return f"{number} {name[said.end():]}" if said is not None and number is not None else name


# The words after a house number up to its street's kind ("24 Main Street", "5 n main st"), none of them
# a word that says something else ("22 on the way home" is a setting, said on the way).
_STREET_NAMED_AFTER_EN = re.compile(r"(?P<name>(?:\s+[a-z][\w'.-]*){1,3}?)\s+(?:" + _STREET_WORDS_EN + r")\b\.?",
                                    re.IGNORECASE)
_NOT_IN_A_STREETS_NAME_EN = frozenset(("on", "the", "a", "an", "to", "my", "this", "that", "all", "in", "at", "for",
                                       "of", "and", "or", "by", "your", "our", "it", "is", "please", "then", "way"))


def a_house_number(text: str, end: int) -> bool:
    """Whether the number that ends at `end` is a house number: a street named right after it ("actually
    make it 24 Main Street" is an address, no setting of 24)."""
    m = _STREET_NAMED_AFTER_EN.match(text, end)
    return m is not None and not _NOT_IN_A_STREETS_NAME_EN & set(m.group("name").lower().split())


# (The same street words as the place reader's, so a house number it writes in digits is one grounding finds.)
_HOUSE_NUMBER_SAID_EN = re.compile(r"\b(?i:" + HOUSE_NUMBER_WORDS_EN + r")(?=(?:[A-Z][\w'.-]* ){1,3}"
                                   r"(?i:" + _STREET_WORDS_EN + r")\b)")


def house_numbers_written(text: str) -> str:
    """`text` with each house number said in words before a capitalised name written in digits
    ("get to four twenty five Mission Street" → "get to 425 Mission Street")."""
    def written(m: re.Match[str]) -> str:
        number = house_number_en(m.group())
        return f"{number} " if number is not None else m.group()
    return _HOUSE_NUMBER_SAID_EN.sub(written, text)


# A plan told, not a drive asked for, before a place in small letters.
_PLANS_TOLD_EN = re.compile(r"\b(?:i'?m|i am|we'?re|we are|he'?s|she'?s|they'?re|my \w+ is|was|were)\s+(?:\w+\s+)?"
                            r"(?:going|heading|headed) to\s*$", re.IGNORECASE)
# After one capitalised word, a sentence going on in small letters ("Let me think", "Maybe later").
_SENTENCE_GOES_ON_EN = re.compile(r" (?!please\b|thanks\b|thank\b|then\b|now\b)[a-z]")
# Words that lead only to a place ("take me to", "drive to", "navigate to"); "go to" and "make it"
# also lead elsewhere ("go to sleep", "make it quick").
_DRIVES_EN = re.compile(r"\b(?:take|drive|navigate|head|get (?:me|us)|directions|route|bring|ride|cab|taxi|"
                        r"swing by|drop by|pop (?:by|into)|stop (?:at|by|off at))\b", re.IGNORECASE)
# A kind of place said in small letters after its name ("JFK airport", "the Westfield mall").
_KIND_AFTER_EN = re.compile(r" (?:airport|hospital|station|mall|park|center|centre|terminal(?: \w{1,2}\b)?|school|"
                            r"university|college|hotel|library|museum|stadium|arena|market|bridge|plaza|campus|"
                            r"building|tower|church|zoo|beach|pier|theat(?:er|re)|cinema|restaurant|cafe|store|"
                            r"shop|gym|clinic|garage|street|avenue|road)\b")
_LOWER_PLACE_EN = re.compile(r"(?:the |an? )?(?P<v>[a-z0-9][\w'&.#-]*(?: [a-z0-9#][\w'&.#-]*){0,6})")
# Words a place said in small letters does not run into ("take me to starbucks please").
_NOT_IN_A_LOWER_PLACE_EN = frozenset((
    "please", "and", "then", "so", "because", "now", "first", "instead", "right", "asap", "quickly", "for", "at",
    "by", "with", "via", "from", "before", "after", "today", "tonight", "tomorrow", "thanks", "thank", "i", "we",
    "it's", "that", "which", "where", "when", "but", "or", "to", "if", "too", "again", "as", "real", "quick",
    "fast", "soon", "later", "is", "are", "was", "will", "would", "can", "could", "should", "okay", "ok"))
_NO_LOWER_PLACE_EN = frozenset((
    "never", "nevermind", "wait", "hold", "hmm", "um", "uh", "my", "a", "an", "some", "somewhere", "anywhere", "it",
    "there", "here", "you", "me", "us", "them", "him", "her", "eat", "get", "see", "do", "the", "this", "that", "work",
    "home", "where", "what"))


def _lower_words_en(words: list[str]) -> list[str]:
    kept: list[str] = []
    for word in words:
        if word.rstrip(".,") in _NOT_IN_A_LOWER_PLACE_EN:
            break
        kept.append(word)
        if word.endswith((".", ",")):
            kept[-1] = word.rstrip(".,")
            break
    kept = _place_words_en(kept) if kept else kept
    if not kept or kept[0] in _NO_LOWER_PLACE_EN:
        return []
    return kept


def _place_words_en(words: list[str]) -> list[str]:
    kept: list[str] = []
    for word in words:
        if word in _NOT_PLACE_WORDS_EN or word.startswith("I'"):    # "to Union Square on Friday", "…and I'm"
            break
        if word.endswith(".") and word[:-1] not in _ABBREVIATIONS_EN and not re.fullmatch(r"[A-Z]\.", word):
            kept.append(word.rstrip("."))   # "426 Brannan Street. I'll take…", "Fremont... no": the sentence ends
            break
        kept.append(word)
    if "on" in kept:
        # "Starbucks on Main Street" is one place; "ATL on Southwest Airlines" is a place and a way there.
        at = kept.index("on")
        # ("the bank on the way": no street called "the way")
        on_the_way = [w.lower() for w in kept[at + 1:at + 3]] == ["the", "way"]
        if not _STREETS_EN.search(" ".join(kept[at + 1:])) or on_the_way:
            kept = kept[:at]
    while kept and (kept[-1].lower() in _JOINERS_EN or kept[-1] == "#"):
        kept.pop()
    return kept


def find_place_zh(text: str, cues: tuple[str, ...], answering: bool = False, sure: bool = False) -> list[PlaceSaid]:
    """Places after the cues (去人民广场, 导航到外滩). A cue of one character (去, 到) also goes
    where no place is meant; one of several (导航到, 带我去) leads only to a place. `answering`
    the agent's question where to go, the answer's opening nouns are one (人民广场吧)."""
    if answering:
        # (Only a place by its tag or kind: 等会儿再说吧 answers "where to?" with no place.)
        lead = _ANSWER_LEAD_ZH.match(text)
        place = _place_after(text, 0, lead.end() if lead else 0, sure=False)
        if place is not None:
            return [place]
    found: list[PlaceSaid] = []
    cue_spans: list[tuple[int, int]] = []
    for cue in sorted(set(cues), key=len, reverse=True):
        # A cue in two parts, around the place ("在…停": 在东直门停一下): the place must be followed by the second.
        cue, _, tail = cue.partition("…")
        for m in re.finditer(re.escape(cue), text):
            if any(s < m.end() and m.start() < e for s, e in cue_spans) or _inside_a_word(text, m.start(), m.end()):
                continue
            if not tail:
                cue_spans.append(m.span())      # (去 inside 导航去 is the same cue; 在 of 在…靠边 is not 在…停's)
            if cue == "到" and (_after_a_verb_of_result(text, m.start())
                               or _NUMBER_ZH.fullmatch(text[m.start() - 1:m.start()])):
                continue        # 能吃到腰子的餐馆, 找到: 到 says the verb succeeded; 150到500元 is a range
            if tail:
                # The place is what lies between the two parts, and the second says it is one (在瑞幸停一下;
                # cut there first, or the tagger runs 幸停 together). Not where the car is (在前面路口停一下).
                at_tail = text.find(tail, m.end(), m.end() + 16)
                apart = at_tail > m.end() + 1 and not _CLAUSE_END_ZH.search(text, m.end(), at_tail)
                place = _place_after(text[:at_tail], m.start(), m.end(), sure=True) if apart else None
                if place is not None and _WHERE_HERE_ZH.match(place.name):
                    continue
            else:
                # (呃，去鸟巢; 那就去水立方吧: 去 opening a command is a word of going there, as 带我去 is.)
                opens = cue in ("去", "到") and _OPENS_A_COMMAND_ZH.search(text[:m.start()]) is not None \
                    and not _verb_next(text, m.end())       # (嗯，去买点水: a thing to do, no place)
                place = _place_after(text, m.start(), m.end(), sure=sure or _leads_only_to_a_place(cue) or opens)
            if place is not None and not any(p.start < place.end and place.start < p.end for p in found):
                found.append(place)
    return sorted(found, key=lambda p: p.start)


def _verb_next(text: str, at: int) -> bool:
    """Whether what follows `at` is a thing to do (去买点水, 去看看, 去接孩子), not a place."""
    tagged = _tagged(text[at:at + 8])
    return bool(tagged) and tagged[0][1].startswith("v") or bool(_ACTIVITY_ZH.match(text, at))


# A thing to do after 去, whatever the tagger calls it (买点 is tagged a noun).
_ACTIVITY_ZH = re.compile(r"\s*(?:买|吃|喝|看|拿|取|办|玩|逛|洗|修|接|送|找|打|做|上班|上学|睡|跑|问|交|寄|退|换|"
                          r"加油|充电|停车)")


# What may come before a 去 that opens a command: the clause's start, a filler, a word of going on.
_OPENS_A_COMMAND_ZH = re.compile(r"(?:^|[，,。！!？?；;]\s*)"
                                 r"(?:呃|嗯|啊|哦|那个|好|行|对|那|那就|就|还是|先|直接|我们|咱们|咱|我要|我想|改|再)*\s*$")


def _ends_in_a_named_li(kept: list[tuple[str, str]]) -> bool:
    """A name ending in 里 (太古里, 和平里, 平安里): 里 after a two-character proper name is part of
    it, not "inside" (商场里, 颐和园里)."""
    return len(kept) >= 2 and kept[-1][0] == "里" and len(kept[-2][0]) == 2 and kept[-2][1] in ("ns", "nr", "nz")


def _leads_only_to_a_place(cue: str) -> bool:
    """导航到, 带我去, 送我到: a word of conveying and of going there. Not 导航 alone (导航声音大一点)
    nor 开到, which also sets a control (风量开到三档)."""
    return len(cue) > 1 and cue[-1] in "去到至往" and not cue.startswith("开")


def _place_after(text: str, cue_start: int, at: int, sure: bool) -> PlaceSaid | None:
    at = len(text) - len(text[at:].lstrip(" \t,，"))     # 不对，是浦东机场: the comma goes with the cue
    end = _CLAUSE_END_ZH.search(text, at)
    rest = text[at:end.start() if end else len(text)]
    leading = _LEADING_ZH.match(rest)
    skip = leading.end() if leading else 0
    start = at + skip
    kept: list[tuple[str, str]] = []
    tokens = _tagged(rest[skip:])
    for i, (word, flag) in enumerate(tokens):
        if flag == "uj" and (_is_a_place(kept) or any(f.startswith("n") for _, f in kept)):
            break           # 北京饭店的出租车: the taxi is not the place; 最近的加油站 is one
        if _HEADS_ZH.search(word):      # a kind of place, whatever its tag (jieba tags 超市 a verb)
            kept.append((word, flag))
            continue
        if _ENDS_A_PLACE.match(flag):
            break           # 王府井怎么走, 外滩吧
        if not _NOUNISH.match(flag):
            # A verb or an adjective inside a name comes before its nouns (鑫地来饺子城, 大渔铁板烧);
            # one after the place says what to do there (去学校接孩子, 人民广场看看), and no verb
            # starts a place (去吃火锅) unless a kind of place follows it (远望楼宾馆, 远望 tagged a verb).
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is None or not (_NOUNISH.match(following[1]) or _HEADS_ZH.search(following[0])) \
                    or (flag.startswith("v") and not kept and not _HEADS_ZH.search(following[0])):
                break
        kept.append((word, flag))
    while kept and not _HEADS_ZH.search("".join(w for w, _ in kept)) and not _ends_in_a_named_li(kept) and (
            kept[-1][1] in ("uj", "f", "q") or kept[-1][1].startswith("v") or _NUMBER_ZH.fullmatch(kept[-1][0])):
        kept.pop()          # 到那边的, 去前面, 王府井要多久: no place there
    # (A kind of place the tagger splits, 充电|桩, ends where its last piece does.)
    heads = [i for i in range(len(kept)) if _HEADS_ZH.search("".join(w for w, _ in kept[:i + 1]))]
    if heads:
        kept = kept[:heads[-1] + 1]     # 塔里木石油酒店住宿, 北京大学出租车: the place ends with its kind
    if leading and leading.group() in _POINTING_ZH and len(kept) == 1 and kept[0][0] in PLACE_HEADS_ZH:
        return None         # 就去这个酒店吧: the one just talked about, not a name
    name = "".join(w for w, _ in kept)
    if len(name) < 2 or re.fullmatch(r"[\d零一二两三四五六七八九十百千点半度号]+", name):
        return None
    # 从世界公园到老书虫: after a 从 the 到 leads to a place.
    sure = sure or "从" in text[clause_bounds(text, cue_start, cue_start)[0]:cue_start]
    if not (sure or _is_a_place(kept)) or _SEARCHED_FOR_ZH.search(name):
        return None
    part = _PART_ZH.match(text, start + len(name))
    if part:
        name += part.group()
    elif (apart := _PART_APART_ZH.match(text, start + len(name))) is not None:
        # 导航去首都机场，T3航站楼: the part said on its own just after is the place's too
        return PlaceSaid(start, apart.end("part"), name + apart.group("part"), cue_start)
    branch = _BRANCH_ZH.match(text, start + len(name))      # 海底捞火锅(西单店): the branch is part of it
    if branch:
        name += branch.group()
    return PlaceSaid(start, start + len(name), name, cue_start)


# What corrects a place just said ("500 Fifth Avenue, no wait, 550", 去上海火车站 哦不 上海南站).
# ("wait no, sorry, it's Maple Avenue Dental, not street", "I meant Maple Avenue Dental")
_CORRECTING = {"en": ("no wait", "i mean", "i meant", "sorry", "or rather", "actually", "hang on", "hold on", "no",
                      "it's", "it is", "it's actually", "i said"),
               "zh": ("哦不对", "哦不", "不对", "不是", "错了", "我是说", "我说的是", "应该是", "是")}
# …or chooses again, by its name alone, one held before ("let's do the Getty Center", 还是颐和园吧).
_CHOSEN_AGAIN_EN = ("let's do", "let's just do", "let's go with", "we'll do", "i'll go with", "go with")
_CHOSEN_AGAIN_ZH = re.compile(r"(?:算了[，,\s]*)?还是(?P<v>[^，,。！？\s吧]{2,12})吧\s*[。！!]?\s*$")
_ENDS_THE_CLAUSE_ZH = re.compile(r"\s*(?:吧|啊|呀|了|呢|哈|那边|那儿|那里|附近|门口)*\s*(?:[，,。！？!?；;\s]|$)")
# (…"the Union City one": the one of that place)
_ENDS_THE_CLAUSE_EN = re.compile(r"\s*(?:one\b)?\s*(?:after all|again|instead|then|please|thanks)?\s*(?:[,.!?;]|$)")


# "The Safeway in Fremont... no wait, the one in Union City": the same kind of place, elsewhere.
_THE_ONE_ELSEWHERE_EN = re.compile(r"\bthe one (?P<p>in|on|at|by|near|off) (?:the )?"
                                   r"(?P<v>[A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3})")
_WHERE_IT_IS_EN = re.compile(r" (?:in|on|at|by|near|off) (?:the )?[A-Z].*$")


def the_one_elsewhere(text: str, lang: str, places: list[PlaceSaid]) -> list[PlaceSaid]:
    """The place said before a slip, put right to another of its kind ("the Safeway in Fremont... no
    wait, the one in Union City": Safeway in Union City)."""
    if lang != "en":
        return []
    found = []
    for m in _THE_ONE_ELSEWHERE_EN.finditer(text):
        slipped = [p for p in places if p.end <= m.start() and SELF_REPAIR.search(text[p.end:m.start()])]
        if slipped and _WHERE_IT_IS_EN.search(slipped[-1].name):
            kind = _WHERE_IT_IS_EN.sub("", slipped[-1].name)
            found.append(PlaceSaid(m.start(), m.end(), f"{kind} {m.group('p')} {m.group('v')}", m.start()))
    return found


def places_corrected(text: str, lang: str, just_set: bool = False,
                     said_before: tuple[str, ...] = ()) -> list[PlaceSaid]:
    """Places said after a correction, with no word of going (不对 是虹桥机场): read only where a
    place was just said or is held, and only a name that is a place by itself (a capitalised one;
    in Chinese one tagged as a place or ending in its kind), so 不是，是三个人 is no place. `just_set`:
    a place was set the turn before, and any name put right is one (不对不对，是水立方). `said_before`:
    the places held before, chosen again by name alone ("let's do the Getty Center", 还是颐和园吧)."""
    before = {name.casefold() for name in said_before}
    again = _CHOSEN_AGAIN_ZH.search(text) if lang == "zh" else None
    if again is not None and again.group("v").casefold() in before:
        return [PlaceSaid(again.start("v"), again.end("v"), again.group("v"), again.start())]
    if lang == "zh" and just_set:
        # (…ending its clause: 不对，航班改了 says what changed, not where to)
        return [p for p in find_place_zh(text, _CORRECTING["zh"], sure=True)
                if names_a_place_zh(p.name) and _ENDS_THE_CLAUSE_ZH.match(text, p.end) and _put_right_zh(text, p)
                and not (text.startswith("不是", p.cue_start) and "是" not in text[p.cue_start + 2:p.start])]
    if lang == "en":
        # …ending its clause ("no wait, LaGuardia"; "Sorry, Bluetooth isn't connecting" names none).
        return [p for p in find_place_en(text, _CORRECTING["en"]) if _ENDS_THE_CLAUSE_EN.match(text, p.end)] + [
            p for p in find_place_en(text, _CHOSEN_AGAIN_EN)
            if p.name.casefold() in before and _ENDS_THE_CLAUSE_EN.match(text, p.end)]
    # (不是人民广场，是外滩: the place after 不是 is the one refused; 不是，是外滩 names the right one.)
    return [p for p in find_place_zh(text, _CORRECTING["zh"]) if _is_a_place(_tagged(p.name)) and _put_right_zh(text, p)
            and not (text.startswith("不是", p.cue_start) and "是" not in text[p.cue_start + 2:p.start])]


def _put_right_zh(text: str, place: PlaceSaid) -> bool:
    """A place after a bare 是 is put right only after a word that says so (不对，是大兴机场; not
    出租车的目的地是学校, which only says where)."""
    if text.startswith("是", place.cue_start) and not text[:place.cue_start].endswith(("不", "应该", "我", "说的")):
        return bool(_SAID_WRONG_ZH.search(text[:place.cue_start]))
    return True


_SAID_WRONG_ZH = re.compile(r"不对|不是|错了|说错|改了|哦不|弄错|搞错")


# Nouns of people: 不是，是孩子 puts right who, not where.
_PEOPLE_ZH = re.compile(r"孩子|小孩|老婆|老公|媳妇|朋友|同事|爸|妈|爷|奶|儿子|女儿|老人|客人|人$")


def names_a_place_zh(name: str) -> bool:
    """Whether a Chinese name said where a place is put right may be one: nouns and names only
    (水立方, 东方明珠), not a verb's phrase (明天再去, 买点水), a time, a count, or people (孩子)."""
    tagged = _tagged(name)
    # (…or one ending in a kind of place: 大兴机场, whose 大兴 is tagged a distinguishing word)
    return bool(tagged) and not _PEOPLE_ZH.search(name) and (all(
        _NAMED.match(flag) or flag in ("n", "x", "eng", "nr", "nrt") for _, flag in tagged)
        or bool(_HEADS_ZH.search(name)) and len(tagged) <= 3)


def _is_a_place(words: list[tuple[str, str]]) -> bool:
    """Tagged as a place or a name (ns, nt, nr, nz, j), or ending in a kind of place (广场)."""
    return any(_NAMED.match(flag) for _, flag in words) or bool(_HEADS_ZH.search("".join(w for w, _ in words)))


# Verbs after which 到 still says where to (开到, 走到, 送到); after any other verb it says the
# verb's result (吃到, 找到, 买到).
_MOTION_VERBS_ZH = frozenset("开走回来去送带搬飞跑骑转拐到接载车乘坐行租")


def _after_a_verb_of_result(text: str, at: int) -> bool:
    jieba = _jieba_posseg()
    before = text[max(0, at - 6):at]
    if not before:
        return False
    if jieba is None:
        return before[-1] in "吃找买看听想得收做遇感拿办"
    words = list(jieba.cut(before))
    return bool(words) and words[-1].flag.startswith("v") and words[-1].word[-1] not in _MOTION_VERBS_ZH


def _tagged(text: str) -> list[tuple[str, str]]:
    jieba = _jieba_posseg()
    if jieba is None:        # without the tagger, the whole run is taken as one noun
        return [(text, "n")]
    return [(pair.word, pair.flag) for pair in jieba.cut(text)]


def _inside_a_word(text: str, start: int, end: int) -> bool:
    """Whether a one-character cue is part of a longer word: 调到 (set to), 想到, 到底, 过去."""
    if end - start > 1:
        return False
    jieba = _jieba_posseg()
    if jieba is None:
        return bool(re.match(r"[调降升开设想得找收送拿]", text[start - 1:start])) if start else False
    at = 0
    for pair in jieba.cut(text):
        word_end = at + len(pair.word)
        if at <= start < word_end:
            return len(pair.word) > 1 and not pair.word.startswith(text[start:end])
        at = word_end
    return False


@lru_cache(maxsize=1)
def _jieba_posseg() -> Any:
    try:
        jieba = importlib.import_module("jieba")
        posseg = importlib.import_module("jieba.posseg")
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    return posseg
