"""The simulated user's own reading of what the agent said (never of the agent's state).

From the reply's words alone: which keys it asks for (the domain's labels, or this user's
question words for a key or its type), which values it reads back (the goal's values, or other
values of the same kind found in the words), whether it offers something, says a thing was
done, refuses or does not know.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from monologue.sim.domain import SimDomain
from monologue.sim.values import ints_in, mentions, surfaces, times_in, weekdays_in

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass
class AgentMove:
    """What one reply did, as the user heard it."""

    text: str
    question: bool = False
    asked: list[str] = field(default_factory=list)          # keys it asks for
    read_back: dict[str, bool] = field(default_factory=dict)  # key → the value heard is the goal's
    offer: bool = False
    yes_no: bool = False
    done: bool = False
    refusal: bool = False
    relax: list[str] = field(default_factory=list)          # keys it asks the user to give up ("could we drop …?")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?。！？;；])\s*", text) if s.strip()]


class ReplyReader:
    def __init__(self, domain: SimDomain, language: str, words: dict[str, dict[str, list[str]]]) -> None:
        self.domain = domain
        self.language = language
        # key → enum value → the words that name it: this user's own, then the domain's (the
        # agent saying 法餐 names what the user calls 法国菜, as a person would hear it).
        self.words = {key: {value: list(dict.fromkeys([*(words.get(key) or {}).get(value, []),
                                                       *spec.words_for(language).get(value, [])]))
                            for value in {*(words.get(key) or {}), *spec.values}}
                      for key, spec in domain.keys.items()}
        data = yaml.safe_load((TEMPLATES / f"{language}.yaml").read_text(encoding="utf-8")).get("reading") or {}
        self.ask_words: dict[str, list[str]] = {
            k: [w.lower() for w in v] for k, v in (data.get("ask_words") or {}).items()}
        self.units: dict[str, list[str]] = {k: list(v) for k, v in (data.get("units") or {}).items()}
        self.done_words = [w.lower() for w in data.get("done_words") or []]
        self.offer_words = [w.lower() for w in data.get("offer_words") or []]
        self.refusal_words = [w.lower() for w in data.get("refusal_words") or []]
        self.yesno_words = [w.lower() for w in data.get("yesno_words") or []]
        self.relax_words = [w.lower() for w in data.get("relax_words") or []]

    def _is_question(self, sentence: str) -> bool:
        if sentence.endswith(("?", "？")):
            return True
        return self.language == "zh" and sentence.rstrip("。").endswith(("吗", "呢"))

    def _asks_for(self, sentence: str, key: str) -> bool:
        spec = self.domain.keys[key]
        lowered = sentence.lower()
        label = spec.label(self.language).lower()
        if label and label in lowered:
            return True
        cues = self.ask_words.get(key) or self.ask_words.get(f"type:{spec.type}") or []
        if any(cue in lowered for cue in cues):
            return True
        if spec.type == "enum" and spec.values:        # "a refund, an exchange or a repair?"
            named = [v for v in spec.values if any(s.lower() in lowered for s in
                                                   surfaces("enum", v, self.language, words=self.words.get(key)))]
            return len(named) >= 2
        return False

    def _names(self, sentence: str, key: str, goal_values: dict[str, Any], today: dt.date | None) -> bool:
        value = goal_values.get(key)
        return value is not None and mentions(self.domain.keys[key].type, value, sentence, self.language, today=today,
                                              words=self.words.get(key))

    def typed_values(self, text: str, key: str, today: dt.date | None) -> list[Any]:
        """Values of `key`'s kind the text names (times, weekdays, counts with their unit)."""
        spec = self.domain.keys[key]
        if spec.type == "time":
            return list(times_in(text))
        if spec.type == "date":
            return list(weekdays_in(text, self.language, today))
        if spec.type == "int":
            units = self.units.get(key)
            if not units:
                return []
            found = []
            for unit in units:
                for match in re.finditer(r"(\S+)\s*" + re.escape(unit), text, re.I):
                    found += ints_in(match.group(0), self.language)
            return list(dict.fromkeys(found))
        return []

    def read(self, text: str, goal_values: dict[str, Any], today: dt.date | None = None,
             old_values: dict[str, list[Any]] | None = None) -> AgentMove:
        move = AgentMove(text)
        lowered = text.lower()
        sentences = _sentences(text)
        questions = [s for s in sentences if self._is_question(s)]
        move.question = bool(questions)
        move.yes_no = any(w in q.lower() for q in questions for w in self.yesno_words)
        for key in self.domain.keys:
            value = goal_values.get(key)
            spec = self.domain.keys[key]
            def named(said: Any, spec: Any = spec, key: str = key) -> bool:
                return mentions(spec.type, said, text, self.language, today=today, words=self.words.get(key))

            if value is not None and named(value):
                move.read_back[key] = True
            # Wrong: another value of the kind, or a value the user replaced or took back.
            elif any(named(old) for old in (old_values or {}).get(key, [])) or (
                    value is not None and self.typed_values(text, key, today)):
                move.read_back[key] = False
        for key in self.domain.keys:
            # A question that reads two values back is a read-back: its labels ask for nothing.
            asking = [q for q in questions
                      if sum(1 for k in move.read_back if self._names(q, k, goal_values, today)) < 2]
            if key not in move.read_back and any(self._asks_for(q, key) for q in asking):
                move.asked.append(key)
        for key in move.read_back:
            if any(self._names(q, key, goal_values, today) and any(w in q.lower() for w in self.relax_words)
                   for q in questions):
                move.relax.append(key)
        move.offer = any(w in lowered for w in self.offer_words) and move.question
        statements = " ".join(s for s in sentences if not self._is_question(s)).lower()
        move.done = any(w in statements for w in self.done_words)
        move.refusal = any(w in lowered for w in self.refusal_words)
        return move
