"""An email address as it is written or said aloud.

The ASR writes an address it hears spelled out in words ("jenna dot price at gmail dot com",
zhangsan 艾特 163 点 com), or, now and then, as written (sam.lee@outlook.com). Either is the
address; only a domain that ends in a known top-level domain makes one, so "I'm at the office"
or 我在公司 never do.
"""

from __future__ import annotations

import re

from monologue.memory.language.digits import digits_of_zh

_TOP_LEVEL = r"(?:com|net|org|edu|gov|io|co|uk|cn|de|fr|jp|ca|au|us|info|me|ai|app|dev|hk|tw|sg)"
_DOT = r"(?:\s+dot\s+|\s*\.\s*|\s*点\s*)"
_JOIN = r"(?:\s+(?:dot|underscore|dash|hyphen)\s+|[._+-]|\s*点\s*|\s*下划线\s*)"
_AT = r"(?:\s*@\s*|\s+at\s+|\s*艾特\s*)"
# (Initials spelled before it: "m j johnson at outlook dot com" is mjjohnson, "t kim 88 at yahoo
# dot com" tkim88; one alone not "a" or "i", which are words. A number said after the name is its.)
_INITIALS = r"(?:(?<![a-z'])[a-z] (?=[a-z] )(?:[a-z] )+|(?<![a-z'])[b-hj-z] (?=[a-z]{2}))"
# (A number said in words after the name is its digits: "priya underscore r ninety nine" is priya_r99.)
_UNITS = ("zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBER_WORD = r"(?:" + "|".join(_TENS + _TEENS + _UNITS) + r")"
# (…or in Chinese digits: zhangwei 八八 at qq 点 com)
_DIGITS_ZH = r"[零〇幺一二两三四五六七八九]+"
_ADDRESS = re.compile(r"(?<![a-z0-9._+-])(?P<local>" + _INITIALS + r"?[a-z0-9]+(?:" + _JOIN
                      + r"[a-z0-9]+)*(?: \d+| " + _NUMBER_WORD + r"(?: " + _NUMBER_WORD + r")*|\s*" + _DIGITS_ZH
                      + r")?)" + _AT
                      + r"(?P<domain>[a-z0-9-]+(?:" + _DOT + r"[a-z0-9-]+)*" + _DOT + _TOP_LEVEL + r")(?![a-z0-9])",
                      re.IGNORECASE)


def _digits(words: re.Match[str]) -> str:
    """Number words as the digits they say: "ninety nine" 99, "oh seven" 07, "twenty" 20."""
    out, said = "", words.group().split()
    i = 0
    while i < len(said):
        word = said[i]
        if word in _TENS:
            tens = 2 + _TENS.index(word)
            if i + 1 < len(said) and said[i + 1] in _UNITS[2:]:
                out += f"{tens}{_UNITS.index(said[i + 1]) - 1}"
                i += 2
                continue
            out += f"{tens}0"
        elif word in _TEENS:
            out += str(10 + _TEENS.index(word))
        else:
            out += "0" if word in ("zero", "oh") else str(_UNITS.index(word) - 1)
        i += 1
    return out


def _written(said: str, joins: dict[str, str]) -> str:
    out = re.sub(r"(?<![a-z])" + _NUMBER_WORD + r"(?: " + _NUMBER_WORD + r")*(?![a-z])", _digits,
                 digits_of_zh(said.lower()))
    for pattern, symbol in joins.items():
        out = re.sub(pattern, symbol, out)
    return re.sub(r"\s+", "", out)


def emails_said(text: str) -> list[tuple[str, int, int]]:
    """(address, start, end) for each email address in `text`, written as an address."""
    found = []
    for m in _ADDRESS.finditer(text):
        local = _written(m.group("local"), {r"\s+dot\s+|\s*点\s*": ".", r"\s+underscore\s+|\s*下划线\s*": "_",
                                            r"\s+(?:dash|hyphen)\s+": "-"})
        domain = _written(m.group("domain"), {r"\s+dot\s+|\s*点\s*": "."})
        found.append((f"{local}@{domain}", m.start(), m.end()))
    return found


__all__ = ["emails_said"]
