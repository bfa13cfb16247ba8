"""What the user asks for by name, in their own words, after a word of asking for it: "play some
Taylor Swift" → Taylor Swift, "put on Bohemian Rhapsody by Queen", 放首周杰伦的歌 → 周杰伦,
我想听周杰伦的稻香 → 周杰伦的稻香.

Language knowledge only: where the clause after the cue ends, and how its lead and trail are
taken off. Which words ask, lead or trail, and which name nothing in particular ("some music",
放首歌) are the domain key's (its YAML `name_cues` and `words_after`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where what was asked for ends: the clause's punctuation (not a station's decimal point, "98.5"),
# or another request joined on ("play Adele and turn it up", 放首周杰伦的歌然后声音大一点), never
# an "and" inside a name ("Simon and Garfunkel").
_CLAUSE_END = {
    "en": re.compile(r"[,;!?]|\.(?!\d)"
                     r"|\s+(?:and|then)\s+(?=(?:please\s+)?(?:turn|make|set|open|close|roll|put|start|stop|"
                     r"pause|skip|crank|lower|raise|bring|take|drive|navigate|go|head|also|can|could|and)\b)"
                     r"|\s+(?:so|because|cause|cos|since|while|when|as long as)\s+"
                     # ("name is priya nair and 4 people", "under smith for 6 at 8": a count or a time goes on)
                     r"|\s+(?:and|for|at|on)\s+(?=\d)|\s+and\s+(?=(?:he|she|they|i|we|it|you)(?:'s|'re|'m)?\b)"
                     # ("play my road trip playlist at volume 8": the volume goes on)
                     r"|\s+at\s+(?=(?:the\s+)?(?:volume|level)\b)"
                     # ("put it under marcus hale 07700 900123", "name is o'brien phone is 0412…": a number goes on)
                     r"|\s+(?=\d{5,}|\d{3}[ -]\d{3,}|(?:and\s+)?(?:my\s+)?(?:phone|number|cell|mobile|email|e-mail)"
                     r"(?:\s+number)?\s+(?:is|'s)\b)",
                     re.IGNORECASE),
    "zh": re.compile(r"[，。；！？,;!?\s]|\.(?!\d)|然后|再把|再帮|顺便|另外|同时"),
}
_LONGEST = {"en": 8, "zh": 16}      # words / characters: longer is a sentence, not a name
# Words of not having decided, after a pause: what is asked for has not come yet.
_HESITATION = {"en": re.compile(r"(?:let me (?:think|see|check)|hold on|hang on|wait|one sec(?:ond)?|"
                                r"just a (?:sec|second|minute)|i'?m not sure|not sure|never ?mind|"
                                r"i (?:don'?t|do not) know|you know what|good question|no idea|whatever you think|"
                                r"hmm+)\b", re.IGNORECASE),
               "zh": re.compile(r"我想想|想想|让我想|等一下|等等|稍等|不知道|不确定|我看看|算了|还没想好")}


@dataclass(frozen=True)
class AskedFor:
    text: str
    start: int
    end: int


def words_asked_for(text: str, cues: tuple[str, ...], lead: tuple[str, ...], tail: tuple[str, ...],
                    nothing_particular: tuple[str, ...], lang: str) -> AskedFor | None:
    """The thing asked for after the last of `cues` in `text`, less its `lead` ("some", "a
    song by", 一首) and `tail` ("please", 的歌, 吧), or None where it names nothing in particular
    (a word of `nothing_particular`, alone or first: "some music", "it louder", 放首歌)."""
    if not cues:
        return None
    spaced = lang == "en"
    flags = re.IGNORECASE if spaced else 0
    body = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    # (not the name inside "last name Kelly": the part of a name spelled on from the first)
    pattern = re.compile(r"(?<![\w'])(?<!last )(?<!first )(?<!middle )(?:" + body + r")(?![\w'])" if spaced
                         else "(?:" + body + ")", flags)
    found = None
    for m in pattern.finditer(text):
        rest_end = _clause_end(text, m.end(), lang)
        start, end = _trimmed(text, m.end(), rest_end, lead, tail, spaced)
        if start < end:
            found = (start, end)
    if found is None:
        return None
    start, end = found
    said = text[start:end]
    folded = said.casefold()
    generic = {g.casefold() for g in nothing_particular}
    first = folded.split()[0] if spaced else ""
    if folded in generic or first in generic or (not spaced and (said[:1] in "的是了" or any(
            folded.startswith(g) and len(g) >= 2 for g in generic))):
        return None       # (放的是谁的歌: what follows 放 there is no name)
    if _HESITATION.get(lang, _HESITATION["en"]).match(said):
        return None       # ("the name is, uh, let me think", "play, um, never mind": nothing asked for yet)
    size = len(said.split()) if spaced else len(said)
    return AskedFor(said, start, end) if size <= _LONGEST.get(lang, 8) else None


# A pause filled after the cue ("the name is, uh, Park", "play, um, some Adele", "play, like, Drake",
# 名字是，呃，王磊).
_FILLED_PAUSE = {"en": re.compile(r"[\s,.…]*(?:(?:uh+|um+|erm?|hmm+|ah+|like(?=\s*,)|you know(?=\s*,))[\s,.…]*)*",
                                  re.IGNORECASE),
                 "zh": re.compile(r"[\s，,。…]*(?:(?:嗯+|呃+|额+|啊+|那个)[\s，,。…]*)*")}


def _clause_end(text: str, at: int, lang: str) -> int:
    m = _CLAUSE_END.get(lang, _CLAUSE_END["en"]).search(text, at)
    # (A space right after a Chinese cue is the ASR's pause, not the clause's end.)
    while m is not None and lang != "en" and m.group(0).isspace() and not text[at:m.start()].strip():
        m = _CLAUSE_END[lang].search(text, m.end())
    # (Nor a pause filled right after the cue: what is asked for comes after it.)
    pause = _FILLED_PAUSE.get(lang, _FILLED_PAUSE["en"]).match(text, at)
    if m is not None and pause is not None and m.start() < pause.end() < len(text) and pause.group().strip():
        m = _CLAUSE_END.get(lang, _CLAUSE_END["en"]).search(text, pause.end())
    return m.start() if m else len(text)


def _trimmed(text: str, start: int, end: int, lead: tuple[str, ...], tail: tuple[str, ...],
             spaced: bool) -> tuple[int, int]:
    """[start, end) less the lead and trail words, repeatedly ("some songs by" → ""; 的歌吧 → "")."""
    def strip_spaces(s: int, e: int) -> tuple[int, int]:
        while s < e and not text[s].isalnum() and not _is_han(text[s]):
            s += 1
        while e > s and not text[e - 1].isalnum() and not _is_han(text[e - 1]) and text[e - 1] not in "'!":
            e -= 1
        return s, e

    start, end = strip_spaces(start, end)
    pause = _FILLED_PAUSE["en" if spaced else "zh"].match(text, start, end)
    if pause is not None and pause.end() < end:
        start = pause.end()
    changed = True
    while changed and start < end:
        changed = False
        piece = text[start:end].casefold()
        for word in sorted(lead, key=len, reverse=True):
            w = word.casefold()
            if piece.startswith(w) and (not spaced or len(piece) == len(w) or not piece[len(w)].isalnum()):
                start, end = strip_spaces(start + len(w), end)
                changed = True
                break
        piece = text[start:end].casefold()
        for word in sorted(tail, key=len, reverse=True):
            w = word.casefold()
            if piece.endswith(w) and (not spaced or len(piece) == len(w) or not piece[-len(w) - 1].isalnum()):
                start, end = strip_spaces(start, end - len(w))
                changed = True
                break
    return start, end


def _is_han(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


__all__ = ["AskedFor", "words_asked_for"]
