"""One composer for every spoken reply the policy words: the pieces a turn's reply is built
from (an acknowledgement, an answer, the step that follows, a "just to check again" wrapper)
are joined here and nowhere else, so that the joins read as one reply.

What it guarantees, in both languages:
- one acknowledgement at most, and only at the head ("Got it. Just to check again: got it.
  And …" says "Got it" once);
- no word doubled across a join ("the the", "好的，好的") and no capital after a comma
  ("Chili House, Shall I …");
- a count agrees with its noun ("for 1 people" is "for one person");
- two sentences at most: the first (what this turn answers) and the last (what it asks or
  does); a middle one is the first to go, since the last carries the act;
- the language's own punctuation and spacing.
"""

from __future__ import annotations

import re

# An acknowledgement said on its own: it adds nothing but "I heard you".
_ACK_EN = re.compile(r"^(?:got it|noted|ok(?:ay)?|sure|alright|all right|right|understood|great|perfect|"
                     r"no problem|of course|certainly)[.!,]?$", re.I)
_ACK_ZH = re.compile(r"^(?:好的|好|嗯|明白|知道了|收到|没问题|行|记下了|好的，记下了)[。！，,.]?$")
# An acknowledgement leading a sentence ("Got it. And what day…", "好的，那…").
_ACK_HEAD_EN = re.compile(r"^(?:got it|noted|ok(?:ay)?|sure|alright|all right|understood)[.!,]\s+(?:and\s+)?", re.I)
_ACK_HEAD_ZH = re.compile(r"^(?:好的|好|嗯|明白|收到|记下了)[，,。]\s*(?:那)?")

_SENTENCE_EN = re.compile(r"(?<=[.!?])\s+(?=[\"'“(]?[A-Z0-9])")
_SENTENCE_ZH = re.compile(r"(?<=[。！？])")

# Counts that agree with their noun: 1 takes the singular.
_SINGULAR = {"people": "person", "persons": "person", "guests": "guest", "degrees": "degree",
             "minutes": "minute", "hours": "hour", "days": "day", "nights": "night", "seats": "seat",
             "adults": "adult", "children": "child", "kids": "kid", "tickets": "ticket", "rooms": "room",
             "stops": "stop", "items": "item", "dollars": "dollar", "weeks": "week"}
_ONE_PLURAL = re.compile(r"\b(1|one|One)\s+(" + "|".join(_SINGULAR) + r")\b")
_PLURAL = {v: k for k, v in _SINGULAR.items() if k != "persons"}
_MANY_SINGULAR = re.compile(r"\b([2-9]|[1-9]\d+)\s+(person|guest|degree|minute|hour|night|seat|adult|ticket|room)\b")
_DOUBLED_EN = re.compile(r"\b([A-Za-z][a-z']*)([\s,;:]+)(\1)\b", re.I)
_KEEP_DOUBLED = {"that", "had", "is", "no", "very", "bye", "so", "ha", "really", "far", "on", "2", "3"}
_DOUBLED_ZH = re.compile(r"(好的|好|嗯|对|那)[，,]\s*\1(?=[，,。])")


def split_sentences(text: str, language: str) -> list[str]:
    """A reply split where its sentences end (the end marks stay with their sentence)."""
    pattern = _SENTENCE_EN if language == "en" else _SENTENCE_ZH
    return [s.strip() for s in pattern.split(text.strip()) if s.strip()]


def _is_ack(sentence: str, language: str) -> bool:
    return bool((_ACK_EN if language == "en" else _ACK_ZH).match(sentence.strip()))


def _unacknowledged(sentence: str, language: str) -> str:
    """A sentence without the acknowledgement at its head ("Got it. And what day…" → "What day…")."""
    head = _ACK_HEAD_EN if language == "en" else _ACK_HEAD_ZH
    rest = head.sub("", sentence, count=1)
    if rest == sentence or not rest:
        return sentence
    return rest[:1].upper() + rest[1:] if language == "en" else rest


def _agreement(text: str) -> str:
    def singular(m: re.Match[str]) -> str:
        number = "one" if m.group(1) in ("1", "one") else "One"
        return f"{number} {_SINGULAR[m.group(2)]}"

    text = _ONE_PLURAL.sub(singular, text)
    return _MANY_SINGULAR.sub(lambda m: f"{m.group(1)} {_PLURAL.get(m.group(2), m.group(2) + 's')}", text)


def _undoubled(text: str, language: str) -> str:
    if language != "en":
        return _DOUBLED_ZH.sub(r"\1", text)

    def once(m: re.Match[str]) -> str:
        if m.group(1).lower() in _KEEP_DOUBLED or m.group(3)[:1].isupper():
            return m.group(0)       # "that that" can be meant; "Bora Bora" is a name
        return m.group(1)

    return _DOUBLED_EN.sub(once, text)


def _inner_acks(text: str, language: str) -> str:
    """An acknowledgement after a colon or a comma inside a sentence ("Just to check again:
    got it. And what…") is dropped: the reply has acknowledged already, or is not one."""
    if language == "en":
        text = re.sub(r"([:,;]\s+)(?:got it|noted|ok(?:ay)?|sure|alright)[.!,]\s+(?:and\s+)?(\w)",
                      lambda m: m.group(1) + m.group(2).lower(), text, flags=re.I)
        # "Yes, Luigi's Trattoria, Noted.": an acknowledgement trailing a clause ends nothing.
        text = re.sub(r",\s+(?:noted|got it|ok(?:ay)?)([.!])", r"\1", text, flags=re.I)
        # "Chili House, Shall I …": a capital after a comma is a join, not a sentence.
        return re.sub(r",\s+(Shall|Would|What|When|Which|How|Could|Can|Do|Is|Are|And|So)\b",
                      lambda m: ", " + m.group(1).lower(), text)
    return re.sub(r"([：:]\s*)(?:好的|好|收到|记下了)[，,。]\s*(?:那)?", r"\1", text)


def compose(text: str, language: str, *, most: int = 2) -> str:
    """The reply as one speaker says it: one acknowledgement at most, no doubled joins, counts
    that agree, `most` sentences at most (the first and the last are kept)."""
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return text
    if language == "en":
        text = _agreement(text)
    text = _undoubled(_inner_acks(text, language), language)
    parts = split_sentences(text, language)
    kept: list[str] = []
    for i, part in enumerate(parts):
        if _is_ack(part, language) and (kept or i < len(parts) - 1 and _starts_with_ack(parts[i + 1], language)):
            continue        # a second acknowledgement, or one that the next sentence makes again
        kept.append(part if not kept else _unacknowledged(part, language))
    if len(kept) > most and _is_ack(kept[0], language):
        kept = kept[1:]
    if len(kept) > most:
        kept = kept[: most - 1] + kept[-1:]
    return (" " if language == "en" else "").join(kept)


def _starts_with_ack(sentence: str, language: str) -> bool:
    head = _ACK_HEAD_EN if language == "en" else _ACK_HEAD_ZH
    return bool(head.match(sentence)) or _is_ack(sentence, language)


__all__ = ["compose", "split_sentences"]
