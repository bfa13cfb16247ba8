"""The domain's own words where the ASR wrote them with other characters of the same sound.

Whisper base writes a Mandarin word it finds rare with commoner characters of the same sound:
座椅 (zuò yǐ, the seat) as 做以 or 做一, 这首 (this song) as 这手, 座椅加热 as 做一家热. The driver said
"打开座椅加热" and the transcript reads "打开做一家热": no rule reads it, and the agent answered as if
nothing had been asked. `names.py` finds a catalogue's names by their sound; this does the same
for the domain's vocabulary (its keys' labels, aliases, values and cue words, its goal words):
a stretch of Chinese characters whose syllables, tones aside, are a domain word's is written as
that word.

Kept safe three ways. Only words of two syllables or more, matched syllable for syllable, tones
too (no near syllables: 轰条 is not taken for 空调, nor 美食 for 美式); never a stretch inside a longer
word of the text or cutting into words at both its ends (jieba's: 会议室 keeps its 议室, though 意式
is Italian food, and 二十一世纪 its 一世). And the respelled transcript is used only where the rules
read more from it than from the transcript as written: "帮我做一下" respelled "帮我座椅下" reads
nothing, so it stays as heard. The turn keeps what the ASR wrote (`heard_as` in the trace).

Needs `pypinyin` (the `zh` extra); without it, nothing is respelled.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.names import syllables

_HANZI_RUN = re.compile(r"[\u4e00-\u9fff]+")
_HANZI_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")
LONGEST = 6


def domain_words_zh(schema: DomainSchema) -> set[str]:
    """The Chinese words the domain writes: labels, aliases, listed values, cue words, units,
    goal words, turn cues (two characters or more, Chinese characters only)."""
    words: set[str] = set(schema.goal_words.get("zh", ())) | set(schema.turn_cues.get("zh", ()))
    for spec in schema.keys.values():
        words |= {spec.label("zh"), *spec.aliases.get("zh", ()), *spec.reading.value_cues.get("zh", ()),
                  *spec.reading.units.get("zh", ())}
        words |= {w for table in spec.values.values() for w in table.get("zh", ())}
    return {w for w in words if _HANZI_WORD.fullmatch(w)}


def _sound(chars: str, said: list[str]) -> tuple[str, ...]:
    """Syllables with their tones, but 一 and 不, whose tone changes with the next syllable's
    (一家 yì, 一首 yì, 一点 yì; 不对 bú), with any tone."""
    return tuple(s.rstrip("012345") if c in "一不" else s for c, s in zip(chars, said, strict=True))


class Respeller:
    """Respells, in Chinese text, what sounds like one of `words` (tones too) as that word."""

    def __init__(self, words: set[str]) -> None:
        self._by_sound: dict[tuple[str, ...], str | None] | None = None
        self._words = words

    def _index(self) -> dict[tuple[str, ...], str | None]:
        if self._by_sound is None:
            self._by_sound = {}
            for word in sorted(self._words):
                said = syllables(word)
                if said is None or len(said) > LONGEST:
                    continue
                sound = _sound(word, said)
                # Two words that sound alike are neither's to claim (None).
                self._by_sound[sound] = word if self._by_sound.get(sound, word) == word else None
        return self._by_sound

    def respelled(self, text: str) -> str:
        """`text` with every stretch that sounds like a domain word, and is not written so,
        written as that word (longest first, no overlaps) — but never a stretch inside a longer
        word of the text (会议室 keeps its 议室, though 意式 is Italian food)."""
        index = self._index()
        if not index:
            return text
        out = list(text)
        for run in _HANZI_RUN.finditer(text):
            heard = syllables(run.group(0))
            if heard is None:
                continue
            sounds = tuple(_sound(run.group(0), heard))
            inside = _inside_a_word(run.group(0))
            at = 0
            while at < len(sounds):
                for length in range(min(LONGEST, len(sounds) - at), 1, -1):
                    word = _look_up(index, sounds[at:at + length])
                    if word is not None and not inside(at, at + length):
                        start = run.start() + at
                        out[start:start + length] = list(word)
                        at += length
                        break
                else:
                    at += 1
        return "".join(out)


def _look_up(index: dict[tuple[str, ...], str | None], heard: tuple[str, ...]) -> str | None:
    """The word that sounds as `heard`, where a toneless 一 or 不 may carry any tone."""
    options: list[tuple[str, ...]] = [()]
    for syllable in heard:
        tones = [syllable, *(syllable + t for t in "12345")] if syllable in ("yi", "bu") else [syllable]
        options = [o + (t,) for o in options for t in tones]
    found = {index.get(o) for o in options} - {None}
    return found.pop() if len(found) == 1 else None


def _inside_a_word(run: str) -> Callable[[int, int], bool]:
    """Whether run[start:end] is part of the text's own words (jieba's): inside one that is
    longer than it (会议室's 议室), or cutting into a word at both ends (二十一世纪's 一世)."""
    jieba = _jieba()
    if jieba is None:
        return lambda start, end: False
    spans = []
    at = 0
    for token in jieba.lcut(run):
        spans.append((at, at + len(token)))
        at += len(token)

    def inside(start: int, end: int) -> bool:
        within = any(s <= start and end <= e and e - s > end - start for s, e in spans)
        cuts_both = any(s < start < e for s, e in spans) and any(s < end < e for s, e in spans)
        return within or cuts_both

    return inside


@lru_cache(maxsize=1)
def _jieba() -> Any:
    try:
        jieba = importlib.import_module("jieba")
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    return jieba


def respeller_for(schema: DomainSchema, reads: Callable[[str], int]) -> Callable[[str], str | None]:
    """`text` → the respelled text where the rules (`reads`: how many values they read) read more
    from it than from `text`; else None."""
    respeller = Respeller(domain_words_zh(schema))

    def respell(text: str) -> str | None:
        if not _HANZI_RUN.search(text):
            return None
        candidate = respeller.respelled(text)
        if candidate == text or reads(candidate) <= reads(text):
            return None
        return candidate

    return respell


__all__ = ["Respeller", "domain_words_zh", "respeller_for"]
