"""A place said by its name after a word of going there: one no list holds ("42 Baker Street",
"the Museum of Modern Art", 人民广场, 北京大学东门).

English writes names with capitals: the place is the capitalised words (with "of", "on",
"the", "&" between them, and a house number before them) after one of the key's cues.
Chinese has no capitals. There the place is the run of nouns after a cue (导航到, 带我去, 去)
up to the clause's end, as jieba segments and tags it. A bare 去 or 到 also goes where no
place is meant (去吃饭, 调到22度, 到了吗), so after it the run must be a place by its tags
(ns place, nt organisation, nr/nz name, j abbreviation: 国贸) or by its last word, the kind
of place it is (广场, 机场, 路, 大厦). After a cue of several characters, which leads only to
a place (导航到, 送我去), any run of nouns is one (外滩).

Without jieba (the `zh` extra) a Chinese place is found by its last word only.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from monologue.memory.language.cues import MONTHS, WEEKDAYS

# Words an English place name does not start with or run into (a day, a pronoun: "to Union
# Square on Friday", "take me to My office").
_NOT_PLACE_WORDS_EN = frozenset(w.capitalize() for w in (
    "a", "an", "my", "any", "some", "this", "that", "it", "what", "there", "here", "i", "me", "you", "us",
    "somewhere", "anywhere", "now", "today", "tonight", "tomorrow", "please", "thanks", "and", "then",
    *WEEKDAYS, *MONTHS))
_WORD_EN = r"(?:[A-Z][\w'&.-]*|\d+(?:st|nd|rd|th)?)"
# A house number and the capitalised words after it; or capitalised words joined by a few small
# words ("Museum of Modern Art", "Starbucks on Main Street", "Bar & Grill"); an article before
# them is not kept (a catalogue's area is "Marina", said "in the Marina").
_PLACE_EN = re.compile(r"(?:the )?(?P<v>(?:\d+[A-Za-z]? )?[A-Z][\w'&.-]*"
                       r"(?: (?:(?:of|on|the|de|du|la|at|and|&|in) )?" + _WORD_EN + r"){0,5})")

# The kinds of place a Chinese place name ends with (人民广场, 浦东机场, 南京西路, 国贸大厦).
PLACE_HEADS_ZH = (
    "广场", "机场", "车站", "火车站", "高铁站", "地铁站", "站", "公园", "医院", "诊所", "学校", "大学", "学院",
    "中学", "小学", "幼儿园", "酒店", "宾馆", "饭店", "餐厅", "商场", "商城", "超市", "市场", "中心", "大厦",
    "大楼", "银行", "小区", "花园", "公寓", "家园", "路", "街", "大道", "胡同", "巷", "弄", "号", "桥", "门",
    "寺", "庙", "宫", "馆", "院", "楼", "村", "镇", "区", "县", "市", "城", "湾", "湖", "山", "滩", "港",
    "码头", "影院", "剧院", "体育场", "加油站", "充电站", "停车场", "公司", "厂", "园", "塔", "岛", "口",
)
_HEADS_ZH = re.compile("(?:" + "|".join(sorted(map(re.escape, PLACE_HEADS_ZH), key=len, reverse=True)) + ")$")
# jieba's tags that a place's words carry: nouns of every kind, numbers and measure words (27号),
# direction words (东门's 东) and 的 between them (最近的加油站), English letters (SOHO).
_NOUNISH = re.compile(r"^(?:n\w*|j|m|mq|q|f|s|uj|eng|b)$")
_NAMED = re.compile(r"^(?:ns|nt|nr\w*|nz|j|eng)$")
# Said before the place but not part of it (去趟超市, 去一下银行, 去那个广场).
_LEADING_ZH = re.compile(r"^(?:一趟|趟|一下|下|个|那个|这个|那家|这家|一家|家)(?=.)")
_CLAUSE_END_ZH = re.compile(r"[,，。.!！?？;；、]|然后|再|顺便|并且|同时|接着|之后|以后|的时候|(?:的)?路上")


@dataclass(frozen=True)
class PlaceSaid:
    start: int
    end: int
    name: str
    cue_start: int      # where the word of going there starts (a negation before it refuses the place)


_NOT_GOING = {"en": re.compile(r"\b(?:don'?t|do not|not|never|no need to|no longer)\s+$", re.IGNORECASE),
               "zh": re.compile(r"(?:不|别|甭|不要|不用|没必要)$")}


def not_going(text: str, place: PlaceSaid, lang: str) -> bool:
    """Whether the word of going is refused: 不去人民广场了, "don't take me to Union Square"."""
    pattern = _NOT_GOING.get(lang)
    return pattern is not None and bool(pattern.search(text[:place.cue_start]))


def find_place_en(text: str, cues: tuple[str, ...]) -> list[PlaceSaid]:
    """Capitalised places after the cues ("take me to 42 Baker Street")."""
    if not cues:
        return []
    found = []
    alternation = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    for cue in re.finditer(r"\b(?i:" + alternation + r") ", text):
        m = _PLACE_EN.match(text, cue.end())
        if m is None:
            continue
        words = m.group("v").split(" ")
        while words and (words[-1] in _NOT_PLACE_WORDS_EN or words[-1].lower() in _JOINERS_EN):
            words.pop()
        for i, word in enumerate(words):    # "to Union Square on Friday": the day is not the place
            if word in _NOT_PLACE_WORDS_EN:
                words = words[:i]
                while words and words[-1].lower() in _JOINERS_EN:
                    words.pop()
                break
        if not words or words[0] in _NOT_PLACE_WORDS_EN or not any(w[:1].isupper() for w in words):
            continue
        name = " ".join(words).rstrip(".")
        start = m.start("v")
        found.append(PlaceSaid(start, start + len(name), name, cue.start()))
    return found


_JOINERS_EN = frozenset(("of", "on", "the", "de", "du", "la", "at", "and", "&", "in"))


def find_place_zh(text: str, cues: tuple[str, ...]) -> list[PlaceSaid]:
    """Places after the cues (去人民广场, 导航到外滩). A cue of one character (去, 到) also goes
    where no place is meant; one of several (导航到, 带我去) leads only to a place."""
    found: list[PlaceSaid] = []
    cue_spans: list[tuple[int, int]] = []
    for cue in sorted(set(cues), key=len, reverse=True):
        for m in re.finditer(re.escape(cue), text):
            if any(s < m.end() and m.start() < e for s, e in cue_spans) or _inside_a_word(text, m.start(), m.end()):
                continue
            cue_spans.append(m.span())
            place = _place_after(text, m.start(), m.end(), sure=len(cue) > 1)
            if place is not None and not any(p.start < place.end and place.start < p.end for p in found):
                found.append(place)
    return sorted(found, key=lambda p: p.start)


def _place_after(text: str, cue_start: int, at: int, sure: bool) -> PlaceSaid | None:
    end = _CLAUSE_END_ZH.search(text, at)
    rest = text[at:end.start() if end else len(text)]
    leading = _LEADING_ZH.match(rest)
    skip = leading.end() if leading else 0
    start = at + skip
    tokens = _tagged(rest[skip:])
    kept: list[tuple[str, str]] = []
    for word, flag in tokens:
        # A word naming a kind of place is one, whatever its tag (jieba tags 超市 a verb).
        if _NOUNISH.match(flag) or _HEADS_ZH.search(word):
            kept.append((word, flag))
        else:
            break
    while kept and (kept[-1][1] in ("uj", "f", "m", "q") and not _HEADS_ZH.search(kept[-1][0])):
        kept.pop()          # 到那边的 / 去前面: no place yet
    name = "".join(w for w, _ in kept)
    if len(name) < 2 or re.fullmatch(r"[\d零一二两三四五六七八九十百千点半度号]+", name):
        return None
    named = any(_NAMED.match(flag) for _, flag in kept) or bool(_HEADS_ZH.search(name))
    if not (sure or named):
        return None
    return PlaceSaid(start, start + len(name), name, cue_start)


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
