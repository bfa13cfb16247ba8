"""The check a reply passes before TTS speaks it (issue 10, item 3).

Clause by clause, as the model streams: a clause that passes is spoken at once (the
first one still leaves early); the first that fails stops the model, and the policy's
template says what the act needs (`processors/reply.py`). What fails:

- notation: the context note, brackets, `key = value`, a slot key, a stored form ("19:00");
- speaking as the user ("my name is …", "I like …", "I'm allergic …");
- a value that contradicts the state, or an option the state rules out, or one of
  another domain (a restaurant offered to a driver);
- repeating the previous reply; refusing a task the domain does; echoing the user;
- more than two spoken sentences; the wrong language;
- and, on the whole reply, missing the act (an offer that names no option, a question
  that is never asked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from monologue.dialogue.policy import Act, Decision
from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.working.state import Comparator, SessionState


class Failure(StrEnum):
    NOTATION = "notation"
    SPEAKS_AS_USER = "speaks_as_user"
    CONTRADICTS_STATE = "contradicts_state"
    RULED_OUT = "ruled_out"
    OTHER_DOMAIN = "other_domain"
    REPEATS = "repeats"
    REFUSES = "refuses"
    TOO_LONG = "too_long"
    WRONG_LANGUAGE = "wrong_language"
    ECHOES_USER = "echoes_user"
    MISSES_ACT = "misses_act"


MAX_SENTENCES = 2

_NOTATION = re.compile(
    r"[\[\]{}=<>→≤≥≠|#*_]|\bcontext\s*:|\bnote\s*:|\bfacts?\s*:|\bsay this\b|\bin your own words\b|"
    r"\b(?:the user|user wants|places that fit|from the records|remembered from|noticed across|open question|"
    r"last action|to confirm\b|\(confirmed\)|suggested reply|reply in (?:english|chinese))|"
    r"用户想|用户说|待确认|上下文|已确认|回复要点", re.IGNORECASE)
_STORED_TIME = re.compile(r"\b(?:1[3-9]|2[0-3]|00):\d{2}\b")
_AS_USER_EN = re.compile(
    r"\b(?:my name is|call me|i(?:'m| am) allergic|i can'?t eat|i don'?t eat|i(?:'m| am) (?:a )?vegetarian|"
    r"i (?:really |also |usually |always )?(?:like|love|prefer|hate|dislike|enjoy|can'?t stand)|"
    r"i(?:'d| would) like to (?:book|reserve|order|go|get|have|eat|drive)|i want to (?:book|go|eat|drive|order)|"
    r"i need (?:a table|to get to|to go)|my (?:wife|husband|kids?|children|daughter|son|dad|mum|mom|mother|father|"
    r"order|budget|car|seat|favou?rite|preference)s?|take me to|book (?:me|us) a)\b", re.IGNORECASE)
_AS_USER_ZH = re.compile(r"我叫|我的名字|我喜欢|我不喜欢|我爱吃|我想要|我想订|我要订|我不吃|我对.{0,6}过敏|请叫我|带我去|"
                         r"我的订单|我老婆|我老公|我妈|我爸")
_AGENT_NAME = re.compile(r"\bmy name is monologue\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:i(?:'m| am) (?:sorry,? )?(?:but )?(?:not able|unable) to|i can(?:'?t|not) (?:assist|help|do that|provide|"
    r"book|make)|as an ai|i(?:'m| am) just an ai|i don'?t have (?:access|the ability)|beyond my (?:capabilities|"
    r"abilities))\b|无法帮|不能帮|我只是一个|作为一个ai|作为ai|我没有办法", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+|[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
_QUESTION = re.compile(r"[?？]|吗")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _normal(text: str) -> str:
    return " ".join(_tokens(text))


def sentence_count(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?。！？])\s*", text.strip()) if _tokens(s)])


def _same_time(a: Any, b: Any) -> bool:
    """Times compare on the clock face: "at 7" read as 07:00 is the 19:00 the state holds."""
    try:
        ha, ma = (int(x) for x in str(a).split(":"))
        hb, mb = (int(x) for x in str(b).split(":"))
    except ValueError:
        return str(a) == str(b)
    return ha % 12 == hb % 12 and ma == mb


@dataclass
class ReplyCheck:
    """The check for one reply: what the state holds, what the agent said last, what was decided."""

    decision: Decision
    schema: DomainSchema
    state: SessionState                                  # the domain's view: its own key names
    language: str = "en"
    previous_reply: str = ""
    user_text: str = ""
    ruled_out: frozenset[str] = frozenset()              # options the state excludes (by name)
    elsewhere: frozenset[str] = frozenset()              # names of other domains' options ("Sakura" in a car)
    allowed_names: frozenset[str] = frozenset()          # names the reply may say in any language
    read_values: Callable[[str], Iterable[tuple[str, Any]]] | None = None   # the domain's rules on a clause
    template: str = ""
    failures: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._previous = {_normal(s) for s in re.split(r"(?<=[.!?。！？])\s*", self.previous_reply) if _tokens(s)}
        self._keys = sorted((k for k in self.schema.keys if "_" in k), key=len, reverse=True)
        self._template_tokens = set(_tokens(self.template))

    def clause(self, clause: str, spoken: Sequence[str]) -> Failure | None:
        """Why this clause may not be spoken after `spoken`, or None when it may."""
        failure = self._why(clause, spoken)
        if failure is not None:
            self.failures.append({"kind": str(failure), "clause": clause})
        return failure

    def _why(self, clause: str, spoken: Sequence[str]) -> Failure | None:
        lowered = clause.lower()
        if _NOTATION.search(clause) or _STORED_TIME.search(clause) or any(k in lowered for k in self._keys):
            return Failure.NOTATION
        if _REFUSAL.search(clause):
            return Failure.REFUSES
        if (_AS_USER_EN.search(clause) or _AS_USER_ZH.search(clause)) and not _AGENT_NAME.search(clause):
            return Failure.SPEAKS_AS_USER
        if self._wrong_language(clause):
            return Failure.WRONG_LANGUAGE
        if any(name.lower() in lowered for name in self.elsewhere):
            return Failure.OTHER_DOMAIN
        if any(name.lower() in lowered for name in self.ruled_out):
            return Failure.RULED_OUT
        if self._contradicts(clause):
            return Failure.CONTRADICTS_STATE
        if _normal(clause) in self._previous and len(_tokens(clause)) >= 4:
            return Failure.REPEATS
        if self._echoes(clause):
            return Failure.ECHOES_USER
        if sentence_count(" ".join([*spoken, clause])) > MAX_SENTENCES:
            return Failure.TOO_LONG
        return None

    def _wrong_language(self, clause: str) -> bool:
        if self.language == "zh":
            rest = clause
            for name in self.allowed_names:
                rest = rest.replace(name, "")
            return language_of(clause) != "zh" and len(_LATIN_WORD.findall(rest)) >= 1
        return language_of(clause) == "zh"

    def _contradicts(self, clause: str) -> bool:
        if self.read_values is None:
            return False
        held = {c.key: c.value for c in self.state.constraints.values()
                if c.comparator == Comparator.EQ and not self.schema.key(c.key).multi}
        for key, value in self.read_values(clause):
            if key not in held or str(value).lower() == str(held[key]).lower():
                continue
            if self.schema.key(key).type == "time" and _same_time(value, held[key]):
                continue
            return True
        return False

    def _echoes(self, clause: str) -> bool:
        """The user's own words said back as the reply (not the read-back the template makes)."""
        words = [w for w in _tokens(clause) if w not in self._template_tokens]
        user = set(_tokens(self.user_text))
        if len(_tokens(clause)) < 5 or not user:
            return False
        return sum(1 for w in _tokens(clause) if w in user) / len(_tokens(clause)) >= 0.8 and len(words) >= 3

    def whole(self, text: str) -> Failure | None:
        """Whether the reply as spoken does what was decided (asked, offered, read back, done)."""
        failure = self._misses(text)
        if failure is not None:
            self.failures.append({"kind": str(failure), "clause": text})
        return failure

    def _misses(self, text: str) -> Failure | None:
        decision = self.decision.steps()[-1]
        lowered = text.lower()
        if decision.act in (Act.ASK, Act.CONFIRM, Act.NO_OPTIONS, Act.RESUME, Act.ONLY_OPTION, Act.ASK_CHANGE,
                            Act.PROPOSE) \
                and not _QUESTION.search(text):
            return Failure.MISSES_ACT
        if decision.act == Act.PROPOSE and decision.option.lower() not in lowered:
            return Failure.MISSES_ACT
        if decision.act in (Act.CONFIRM, Act.ACT):
            action = self.schema.actions.get(decision.action)
            name = str(decision.args.get(action.choose, "")) if action and action.choose else ""
            if name and name.lower() not in lowered:
                return Failure.MISSES_ACT
        if decision.act == Act.ASK:
            spec = self.schema.key(decision.key)
            words = {w for w in _tokens(" ".join([spec.label(self.language), *spec.aliases.get(self.language, ()),
                                                   *spec.ask.values()])) if len(w) > 2 or self.language == "zh"}
            words -= {"the", "you", "would", "like", "what", "which", "your", "how", "many", "will", "there"}
            if words and not words & set(_tokens(text)):
                return Failure.MISSES_ACT
        return None
