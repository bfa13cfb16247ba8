"""Conflicts across sessions (seed 001; seed 002 §5.1; L12).

A new statement is compared with what is remembered. Exact conflicts: the same thing
with a different number, date or time ("my daughter is 7" after "my daughter is 6").
Semantic ones: a highly similar statement about the same entity that a judge (the LLM
when configured, else a polarity rule) calls a contradiction ("I'm not allergic to
peanuts" after "I'm allergic to peanuts"). Resolution by risk: a preference is updated
and the old one kept as history; a factual correction updates and marks the earlier
statement as a misstatement; a high-risk contradiction (health, safety) is held and the
user asked — nothing that depends on it is used until they answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from monologue.memory.language.cues import PREFERENCE_CUES, SAFETY_CUES
from monologue.memory.language.numbers import MONTH_PATTERN, WEEKDAY_PATTERN
from monologue.memory.language.phrases import say
from monologue.memory.longterm.importance import for_now, valid_for_days
from monologue.memory.longterm.records import MemoryRecord
from monologue.memory.longterm.retrieval import stem, tokenize

PREFERENCE, FACT, HIGH_RISK = "preference", "fact", "high_risk"

_FILLER = frozenset("actually really now just please correction sorry wait mean meant anymore longer still "
                    "thing also too said told last time that this how again".split())
_NEGATION = re.compile(r"\b(?:not|no longer|never|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|wasn'?t|won'?t|"
                       r"can'?t|cannot|no)\b|不|没有|别", re.IGNORECASE)
_VALUE = re.compile(r"\b\d+(?:[.:]\d+)?(?:\s*(?:am|pm))?\b|\b(?:" + WEEKDAY_PATTERN + "|" + MONTH_PATTERN + r")\b",
                    re.IGNORECASE)
_NOT_VALUE = re.compile(r"\bnot\s+(\d+(?:[.:]\d+)?|[a-z]+day)\b", re.IGNORECASE)
# A clause that names the value said before, in a correction ("I said 22 last time", 上次说的是22).
_OLD_VALUE = re.compile(r"\b(?:i|you) (?:said|told you|had|put|set)\b|\blast time\b|\binstead of\b|\brather than\b|"
                        r"\bused to\b|\bbefore\b|\bwas\b|上次|之前|原来|不是|而不是|说的是", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;.!?，。；！？]|\bbut\b", re.IGNORECASE)

_EXCLUSIVE = re.compile(r"\bi(?:'d| would)? (?:rather|prefer)\b|\bmy favou?rite\b|"
                        r"\bi always (?:take|choose|pick|sit)\b|"
                        r"我(?:更)?喜欢坐|我最喜欢|我习惯", re.IGNORECASE)
Judge = Callable[[str, str], "bool | None"]       # (old, new) → contradicts? None: cannot tell


def risk_of(text: str) -> str:
    if SAFETY_CUES.search(text):
        return HIGH_RISK
    if PREFERENCE_CUES.search(text):
        return PREFERENCE
    return FACT


def _values(text: str) -> set[str]:
    """The values a statement gives: not those it names as what was said before ("I said 22
    last time, I actually like 21" gives 21; "not 22" gives nothing)."""
    denied = {m.lower() for m in _NOT_VALUE.findall(text)}
    every = {v.lower().replace(" ", "") for v in _VALUE.findall(text)}
    old = {v.lower().replace(" ", "") for clause in _CLAUSE.split(text) if _OLD_VALUE.search(clause)
           for v in _VALUE.findall(clause)}
    if every - old - denied:
        denied |= old
    return every - denied


def _entities(text: str) -> set[str]:
    return {stem(t) for t in tokenize(_VALUE.sub(" ", text), stemmed=False)
            if t not in _FILLER and not _NEGATION.fullmatch(t)}


def _negated(text: str) -> bool:
    return len(_NEGATION.findall(text)) % 2 == 1


@dataclass
class Conflict:
    old: MemoryRecord
    new_text: str
    kind: str            # exact | semantic
    risk: str            # preference | fact | high_risk
    similarity: float

    def question(self, language: str = "en") -> str:
        """What the agent asks before it believes either version (a high-risk contradiction), even
        when the user says it changed: a safety fact is not dropped on one turn that may be
        misheard. A quote ends no sentence of the question ("对了，我朋友坐轮椅。" would, and the
        reply's two sentences would cut the question off before it asks)."""
        return say("conflict.question", language, old=quoted(self.old.text), new=quoted(self.new_text))


def quoted(text: str) -> str:
    """A statement as quoted inside the agent's sentence: one line, without its own full stop."""
    return re.sub(r"\s+", " ", text).strip().rstrip(".。!！?？;；")



def find_conflict(new_text: str, new_vector: np.ndarray | None, records: list[MemoryRecord],
                  vectors: np.ndarray, *, judge: Judge | None = None, similarity: float = 0.85,
                  overlap: float = 0.6) -> Conflict | None:
    """The remembered memory this statement contradicts, if any (the closest first)."""
    new_entities, new_values = _entities(new_text), _values(new_text)
    if not new_entities or valid_for_days(new_text) is not None or for_now(new_text):
        # A dated event ("tonight", "tomorrow") does not contradict another day's, nor a
        # one-off exception ("this time", "I'm in a hurry") a lasting preference.
        return None
    dense = (vectors @ new_vector if new_vector is not None and vectors.shape[0] and vectors.shape[1]
             else np.zeros(len(records), dtype=np.float32))
    scored = []
    for i, record in enumerate(records):
        if not record.current or record.kind != "memory" or record.source not in ("user_stated", "inferred") \
                or record.context.get("time_sensitive"):
            continue
        old_entities = _entities(record.text)
        shared = new_entities & old_entities
        if not shared:
            continue
        coefficient = len(shared) / min(len(new_entities), len(old_entities))
        if coefficient >= overlap or dense[i] >= similarity:
            scored.append((max(coefficient, float(dense[i])), i))
    for closeness, i in sorted(scored, reverse=True):
        old = records[i]
        if _norm(old.text) == _norm(new_text):
            continue
        old_values = _values(old.text)
        if new_values and old_values and new_values != old_values and not (new_values >= old_values):
            return Conflict(old, new_text, "exact", _risk(old.text, new_text), closeness)
        if _swapped_choice(old.text, new_text):
            return Conflict(old, new_text, "exact", _risk(old.text, new_text), closeness)
        verdict = judge(old.text, new_text) if judge is not None else None
        if verdict is None:
            verdict = _negated(old.text) != _negated(new_text)
        if verdict:
            return Conflict(old, new_text, "semantic", _risk(old.text, new_text), closeness)
    return None


def _swapped_choice(old: str, new: str) -> bool:
    """"I prefer window seats" → "I prefer aisle seats": an exclusive preference whose
    one or two words changed (liking Thai food does not undo liking Italian; preferring
    does)."""
    if not (_EXCLUSIVE.search(old) and _EXCLUSIVE.search(new)) or _negated(old) != _negated(new):
        return False
    a, b = _entities(old), _entities(new)
    return 1 <= len(a - b) <= 2 and 1 <= len(b - a) <= 2 and len(a & b) >= 1


def _risk(old: str, new: str) -> str:
    risks = {risk_of(old), risk_of(new)}
    return HIGH_RISK if HIGH_RISK in risks else PREFERENCE if PREFERENCE in risks else FACT


def _norm(text: str) -> str:
    return " ".join(tokenize(text))
