"""The one way two pieces of text are compared: the user's words against a value, a reply
against the one before it, a turn against the backchannel words.

`normalised` lower-cases, turns punctuation into spaces (keeping what belongs to a value:
the colon of "7:30", a decimal point, currency and per-cent signs), makes one space between
words, and writes Chinese without spaces. `contains` finds a normalised needle as whole
words in a normalised haystack (Chinese by characters).
"""

from __future__ import annotations

import re

from monologue.memory.language.cues import HAN

_PUNCTUATION = re.compile(r"[^\w:\u4e00-\u9fff$£€¥%.]+")
_BETWEEN_HAN = re.compile(r"(?<=" + HAN + r") (?=" + HAN + r")")


def normalised(text: str) -> str:
    """Lower case, one space between words, punctuation gone; Chinese without spaces."""
    lowered = _PUNCTUATION.sub(" ", str(text).lower().replace("_", " ")).strip(" .")
    lowered = re.sub(r"\s+", " ", lowered)
    return _BETWEEN_HAN.sub("", lowered)


def contains(haystack: str, needle: str) -> bool:
    """`needle` as whole words in `haystack` (both already normalised); Chinese by characters."""
    if not needle:
        return False
    if re.search(HAN, needle):
        # (a pause the ASR wrote as a comma is no break in a name: 首都机场，T3航站楼)
        return needle in haystack or needle.replace(" ", "") in haystack.replace(" ", "")
    # Latin words end at any non-Latin character: "是A12345" holds the code A12345.
    return re.search(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])", haystack) is not None


_ONE_WORD_PLURAL = re.compile(r"[a-z]{2,}[^sxhe\W]s")


def with_its_singular(name: str) -> tuple[str, ...]:
    """A key's one-word English name said in the plural, with its singular ("stops": "forget about the
    stop"); any other name alone. Not a plural in -es or -ss (wishes, access), nor a phrase."""
    return (name, name[:-1]) if _ONE_WORD_PLURAL.fullmatch(name) else (name,)
