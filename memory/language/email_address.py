"""An email address as it is written or said aloud.

The ASR writes an address it hears spelled out in words ("jenna dot price at gmail dot com",
zhangsan 艾特 163 点 com), or, now and then, as written (sam.lee@outlook.com). Either is the
address; only a domain that ends in a known top-level domain makes one, so "I'm at the office"
or 我在公司 never do.
"""

from __future__ import annotations

import re

_TOP_LEVEL = r"(?:com|net|org|edu|gov|io|co|uk|cn|de|fr|jp|ca|au|us|info|me|ai|app|dev|hk|tw|sg)"
_DOT = r"(?:\s+dot\s+|\s*\.\s*|\s*点\s*)"
_JOIN = r"(?:\s+(?:dot|underscore|dash|hyphen)\s+|[._+-]|\s*点\s*|\s*下划线\s*)"
_AT = r"(?:\s*@\s*|\s+at\s+|\s*艾特\s*)"
# (Initials spelled before it: "m j johnson at outlook dot com" is mjjohnson, "t kim 88 at yahoo
# dot com" tkim88; one alone not "a" or "i", which are words. A number said after the name is its.)
_INITIALS = r"(?:(?<![a-z'])[a-z] (?=[a-z] )(?:[a-z] )+|(?<![a-z'])[b-hj-z] (?=[a-z]{2}))"
_ADDRESS = re.compile(r"(?<![a-z0-9._+-])(?P<local>" + _INITIALS + r"?[a-z0-9]+(?:" + _JOIN
                      + r"[a-z0-9]+)*(?: \d+)?)" + _AT
                      + r"(?P<domain>[a-z0-9-]+(?:" + _DOT + r"[a-z0-9-]+)*" + _DOT + _TOP_LEVEL + r")(?![a-z0-9])",
                      re.IGNORECASE)


def _written(said: str, joins: dict[str, str]) -> str:
    out = said.lower()
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
