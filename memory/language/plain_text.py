"""What a user's words may hold once they are stored or printed: plain text.

A turn typed into `/api/chat`, a chat script or a transcript can carry characters that say
nothing to the agent but act on whoever reads them later: terminal escapes (ESC colour
codes, BEL), other control characters, and the bidirectional overrides that make text read
in another order than it is stored ("Trojan Source", CVE-2021-42574). Two jobs here:

- `plain_text` is applied where words come in (typed turns, transcripts) and where memories
  are written: controls become spaces, bidi and invisible formatting characters go, spaces
  collapse. Joiners stay (ZWJ/ZWNJ build emoji and some scripts' words), and so does every
  printable character of every script.
- `shown_safely` is for printing what a store holds (rows written before this existed, or
  by another tool): each such character is shown as its escape (`\\u001b`, `\\u202e`), so the
  terminal never acts on it and the reader sees that it was there.

`has_visible` tells whether a turn says anything at all: a turn of only spaces, zero-width
or control characters is not a turn.
"""

from __future__ import annotations

import re
import unicodedata

# Bidirectional formatting: embeddings, overrides, isolates and the implicit marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Invisible characters with no job in a spoken or typed sentence (zero-width space, word
# joiner, byte-order mark, invisible operators); the joiners U+200C/U+200D are not here.
INVISIBLE = frozenset("\u200b\u2060\u2061\u2062\u2063\u2064\ufeff")
LINE_BREAKS = frozenset("\u2028\u2029\x85")
_SPACES = re.compile(r"\s+")


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def plain_text(text: str) -> str:
    """`text` with controls as spaces, bidi and invisible formatting characters removed, and
    runs of whitespace made one space (trimmed)."""
    kept = []
    for ch in text:
        if _is_control(ch) or ch in LINE_BREAKS:
            kept.append(" ")
        elif ch not in BIDI_CONTROLS and ch not in INVISIBLE:
            kept.append(ch)
    return _SPACES.sub(" ", "".join(kept)).strip()


def has_visible(text: str) -> bool:
    """Whether `text` has a character a person would see (not a space, control or format character)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf", "Zs", "Zl", "Zp")
               for ch in text)


def shown_safely(text: str) -> str:
    """`text` for a terminal: controls and bidi/invisible formatting characters as visible
    escapes; everything else (every script, emoji) as it is."""
    out = []
    for ch in text:
        if ch in "\t\n":
            out.append(ch)
        elif _is_control(ch) or ch in BIDI_CONTROLS or ch in INVISIBLE or ch in LINE_BREAKS:
            out.append(f"\\u{ord(ch):04x}")       # as JSON writes it, so a JSON output stays valid
        else:
            out.append(ch)
    return "".join(out)
