"""Finding the names of a catalogue's options in what the user said, as written or as heard.

A Chinese turn reaches us through the ASR, which writes a rare name by its sound with other
characters: 羊大爷涮肉坊 comes back as 杨大爷算肉芳, 馨德润烤鸭店 as 新德任考压店 (whisper base on
the agent's own voice: 96 of the 195 character errors left in `scripts/bench_tts.py` are such
homophones, most of them in names). So a name is found where it is written, and else where it
is *said*: its syllables, without tones, with the sounds many Mandarin speakers (and the ASR)
do not keep apart taken as one (zh/z, ch/c, sh/s, n/l; -ng/-n after a vowel: the fuzzy pinyin
of Chinese input methods) in a name of five syllables or more, which may also have one
syllable heard as a near one (sharing its initial or its final: 润 run as 任 ren), when no
other name is as near. A four-syllable name must sound exactly so, tones too (in 4,229 real users'
turns of CrossWOZ, 豪华型餐厅 had been heard as the restaurant 华馨餐厅; 哪家小馆 is not 那家小馆).

Needs `pypinyin` (the `zh` extra) for the sounds; without it, names are found as written only.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_HANZI_RUN = re.compile(r"[\u4e00-\u9fff]+")
_INITIAL = re.compile(r"^(?:[zcs]h|[bpmfdtnlgkhjqxrzcsyw])")
# A name this short is too easily said by accident ("北京", 大董): found as written only.
MIN_SOUNDED_SYLLABLES = 4
# From this many syllables, one may be heard as a near one.
NEAR_MISS_SYLLABLES = 5
FOUND_KEPT = 8


@dataclass(frozen=True)
class FoundName:
    start: int
    end: int
    value: str      # what the name is kept as
    heard: bool     # found by its sound, not as written
    near_miss: bool = False     # …with one syllable heard as a near one


def name_pattern(name: str) -> str:
    """A name as a pattern: whole words at a Latin edge ("Sakura", not "sakuras"), anywhere at
    a Chinese one (我想去辣椒屋吧)."""
    body = re.escape(name.strip())
    before = r"(?<![A-Za-z0-9])" if re.match(r"[A-Za-z0-9]", name.strip()) else ""
    after = r"(?![A-Za-z0-9])" if re.search(r"[A-Za-z0-9]$", name.strip()) else ""
    return before + body + after


def fuzzy_syllable(syllable: str) -> str:
    """A toneless syllable as it is heard: zh/ch/sh as z/c/s, n as l, -ng after a vowel as -n."""
    syllable = re.sub(r"^([zcs])h", r"\1", syllable)
    syllable = re.sub(r"^n(?=[aeiouv])", "l", syllable)
    return re.sub(r"(?<=[aeiv])ng$", "n", syllable)


def _near_syllables(a: str, b: str) -> bool:
    """Two (fuzzy) syllables that share their initial or their final: 任 ren and 润 run."""
    ia, ib = _INITIAL.match(a), _INITIAL.match(b)
    initial_a, initial_b = ia.group(0) if ia else "", ib.group(0) if ib else ""
    return (initial_a == initial_b and initial_a != "") or a[len(initial_a):] == b[len(initial_b):]


@lru_cache(maxsize=1)
def _pinyin() -> Any:
    try:
        return importlib.import_module("pypinyin")
    except ImportError:
        return None


def syllables(hanzi: str) -> list[str] | None:
    """The syllables of a run of Chinese characters with their tones (na3), one per character
    (None without pypinyin, or where a character has no reading)."""
    pypinyin = _pinyin()
    if pypinyin is None:
        return None
    said = pypinyin.lazy_pinyin(hanzi, style=pypinyin.Style.TONE3, neutral_tone_with_five=True,
                                errors=lambda chars: ["?"] * len(chars))
    if len(said) != len(hanzi):
        return None
    return list(said)


def _as_heard(sounds: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A name's sounds as they are compared: a short name's exactly, tones too (华型 is not 华馨,
    哪家小馆 not the restaurant 那家小馆); a longer one's without tones, fuzzily."""
    if len(sounds) < NEAR_MISS_SYLLABLES:
        return tuple(sounds)
    return tuple(fuzzy_syllable(s.rstrip("012345")) for s in sounds)


class NameFinder:
    """Where each of `names` (each way an option is said → the value it is kept as) is in a text:
    as written first; in Chinese also as heard (see the module's doc)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        said = {n: v for n, v in names.items() if n.strip()}
        self._value_of = {n.casefold(): v for n, v in said.items()}
        self._written = re.compile("|".join(name_pattern(n) for n in sorted(said, key=len, reverse=True)),
                                   re.IGNORECASE) if said else None
        # Filled by `_index`: sounds → values; (missed syllable, the other sounds) → names.
        self._sounds: dict[tuple[str, ...], set[str]] | None = None
        self._near: dict[tuple[int, tuple[str, ...]], set[str]] = {}
        self._syllables_of: dict[str, list[str]] = {}
        self._lengths: set[int] = set()
        self._found: dict[str, list[FoundName]] = {}     # text → names found, the last FOUND_KEPT
        self._chinese = {n: v for n, v in said.items() if _HANZI_RUN.fullmatch(n.strip())
                         and len(n.strip()) >= MIN_SOUNDED_SYLLABLES}

    def written(self, text: str) -> list[FoundName]:
        if self._written is None:
            return []
        return [FoundName(m.start(), m.end(), self._value_of[m.group(0).casefold()], False)
                for m in self._written.finditer(text)]

    def heard(self, text: str) -> list[FoundName]:
        """Names found by their sound in the Chinese runs of `text`, longest first, not
        overlapping; each only where one value sounds so."""
        if not self._chinese or not self._index():
            return []
        found: list[FoundName] = []
        for run in _HANZI_RUN.finditer(text):
            heard = syllables(run.group(0))
            if heard is None:
                continue
            for length in sorted(self._lengths, reverse=True):
                for at in range(len(heard) - length + 1):
                    start, end = run.start() + at, run.start() + at + length
                    if any(f.start < end and start < f.end for f in found):
                        continue
                    sounded = self._sounded(_as_heard(heard[at:at + length]))
                    if sounded is not None:
                        found.append(FoundName(start, end, sounded[0], True, sounded[1]))
        return sorted(found, key=lambda f: f.start)

    def find(self, text: str) -> list[FoundName]:
        """See `_find`; the last few texts' answers are kept (each turn asks three times)."""
        found = self._found.get(text)
        if found is None:
            found = self._found[text] = self._find(text)
            while len(self._found) > FOUND_KEPT:
                self._found.pop(next(iter(self._found)))
        return list(found)

    def _find(self, text: str) -> list[FoundName]:
        """The names written in `text` and those heard in it, in order; where two overlap, the
        longer (东来顺前门大街电 is the branch 东来顺前门大街店, not the chain's 东来顺). A name only nearly
        heard must be longer than the written one by more than its one missed syllable:
        护国寺小吃到 is the written 护国寺小吃, not 护国寺小吃店; 金百万口压电 is 金百万烤鸭店."""
        written = self.written(text)
        heard = [h for h in self.heard(text) if not (h.near_miss and any(
            w.start < h.end and h.start < w.end and (h.end - h.start) - (w.end - w.start) < 2 for w in written))]
        found: list[FoundName] = []
        for name in sorted(written + heard, key=lambda f: (f.start - f.end, f.heard)):
            if not any(f.start < name.end and name.start < f.end for f in found):
                found.append(name)
        return sorted(found, key=lambda f: f.start)

    def _sounded(self, heard: tuple[str, ...]) -> tuple[str, bool] | None:
        """(the one value whose name sounds as `heard`, whether only nearly), or None."""
        assert self._sounds is not None
        values = self._sounds.get(heard, set())
        near_miss = not values
        if not values and len(heard) >= NEAR_MISS_SYLLABLES:
            # One syllable heard as a near one: the names that sound so at every other syllable,
            # and near it at that one.
            values = {self._chinese[name] for miss in range(len(heard))
                      for name in self._near.get((miss, heard[:miss] + heard[miss + 1:]), ())
                      if _near_syllables(heard[miss], self._syllables_of[name][miss])}
        return (next(iter(values)), near_miss) if len(values) == 1 else None

    def _index(self) -> bool:
        """The names' sounds, computed on the first Chinese turn that names none as written."""
        if self._sounds is not None:
            return bool(self._sounds)
        self._sounds = {}
        if _pinyin() is None:
            return False
        for name, value in self._chinese.items():
            raw = syllables(name.strip())
            if raw is None:
                continue        # a character with no reading: found as written only
            sounds = list(_as_heard(raw))
            self._syllables_of[name] = sounds
            self._lengths.add(len(sounds))
            self._sounds.setdefault(tuple(sounds), set()).add(value)
            if len(sounds) >= NEAR_MISS_SYLLABLES:
                for miss in range(len(sounds)):
                    self._near.setdefault((miss, tuple(sounds[:miss] + sounds[miss + 1:])), set()).add(name)
        return True


@lru_cache(maxsize=16)
def name_finder(names: tuple[tuple[str, str], ...]) -> NameFinder:
    """One finder per set of names: every session over the same catalogue shares its index."""
    return NameFinder(dict(names))
