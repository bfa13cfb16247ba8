"""The check a reply passes before TTS speaks it (D3).

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
from functools import cached_property
from typing import Any

from monologue.dialogue.policy import Act, Decision
from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.normalise import normalised
from monologue.memory.language.phrases import say
from monologue.memory.working.state import SessionState


class Failure(StrEnum):
    """Why a reply, or a clause of it, was not the model's to say."""

    CLAIMS_DONE = "claims_done"          # "Done: I've found…" when nothing was done
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
    # Not the check's findings but the model's: its call failed or timed out mid-reply (the
    # template says the rest), or the reply stage itself raised.
    LLM_ERROR = "llm_error"
    INTERNAL_ERROR = "internal_error"
    # The model had no checked first clause when the user's silence reached the first-audio
    # budget: the policy's words went instead (reply.first_audio_budget_ms).
    OVER_BUDGET = "over_budget"


@dataclass(frozen=True)
class CheckFailure:
    """One failure, with the clause (or the whole reply, or the error) it was found in."""

    kind: Failure
    clause: str

    def trace(self) -> dict[str, str]:
        return {"kind": str(self.kind), "clause": self.clause}


MAX_SENTENCES = 2

# The instructions read aloud: the system prompt's own sentences, or talk about them. A model
# that repeats its prompt (or is asked to, "print your system prompt") must not be heard.
_INSTRUCTIONS = re.compile(
    r"\byou are (?:monologue|an? (?:friendly |helpful )?(?:voice )?assistant)\b|\bnever speak as the user\b|"
    r"\bnever read the note\b|\bno lists, no markdown\b|\bone or two short (?:spoken )?sentences\b|"
    r"\b(?:system prompt|my instructions|my planner)\b|never an instruction to you|not an instruction|"
    # The note's own words for the act (wording._PURPOSE), said as if they were the reply.
    r"\b(?:ask exactly this one question|offer this (?:one )?option|read the details back|say it is (?:done|already "
    r"done|the only option)|answer the user's question briefly|answer the small talk|ask whether to go ahead|"
    r"say nothing fits|say you are passing|say goodbye warmly|greet the user|ask what the user wants)\b|"
    r"你是.{0,12}助手|系统提示|我的指令", re.IGNORECASE)

_NOTATION = re.compile(
    r"[\[\]{}()（）=<>→≤≥≠|#*_]|\bcontext\s*:|\bnote\s*:|\bfacts?\s*:|\bplanner\b|\bsay this\b|"
    r"\bin your own words\b|^\s*(?:you|me|user|assistant|agent|monologue|你|我|用户|助手)\s*[:：]|"
    r"\b(?:the user|user wants|places that fit|from the records|remembered from|noticed across|open question|"
    r"last action|to confirm\b|\(confirmed\)|suggested reply|reply in (?:english|chinese))|"
    r"用户想|用户说|待确认|上下文|已确认|回复要点", re.IGNORECASE)
_STORED_TIME = re.compile(r"\b(?:1[3-9]|2[0-3]|00):\d{2}\b")
_AS_USER_EN = re.compile(
    r"\b(?:my name is|call me|i(?:'m| am) allergic|i can'?t eat|i don'?t eat|i(?:'m| am) (?:a )?vegetarian|"
    r"i (?:really |also |usually |always )?(?:like|love|prefer|hate|dislike|enjoy|can'?t stand)|"
    r"i(?:'d| would) like to (?:book|reserve|order|go|get|have|eat|drive)|i(?:'d| would) like (?:a|an|my|the) |"
    r"i want to (?:book|go|eat|drive|order)|i(?:'m| am) (?:a )?(?:human|real person|person|man|woman)|"
    r"i need (?:a table|to get to|to go)|my (?:wife|husband|kids?|children|daughter|son|dad|mum|mom|mother|father|"
    r"order|budget|car|seat|favou?rite|preference)s?|take me to|book (?:me|us) a|"
    # the agent's own action given to the user ("You've booked Luigi's")
    r"you(?:'ve| have) (?:just )?(?:booked|reserved|opened|set|moved|added|adjusted))\b", re.IGNORECASE)
_AS_USER_ZH = re.compile(r"我叫|我的名字|我喜欢|我不喜欢|我爱吃|我想要|我想订|我要订|我不吃|我对.{0,6}过敏|"
                         r"请叫我|带我去|我的订单|我老婆|我老公|我妈|我爸|我是(?:真)?人")
# A greeting said again mid-conversation: a small model copies its first reply's "Hi!" / 你好！.
_GREETING_ONLY = re.compile(r"^\W*(?:hi|hello|hey|hi there|你好|您好|嗨)\W*$", re.IGNORECASE)
_AGENT_NAME = re.compile(r"\bmy name is monologue\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:i(?:'m| am) (?:sorry,? )?(?:but )?(?:not able|unable) to|i can(?:'?t|not) (?:assist|help|do that|provide|"
    r"book|make)|as an ai|i(?:'m| am) just an ai|i don'?t have (?:access|the ability)|beyond my (?:capabilities|"
    r"abilities))\b|无法帮|不能帮|我只是一个|作为一个ai|作为ai|我没有办法|我无法|无法回答|无法协助|无法完成|无法继续|"
    r"抱歉，我不能|我不能帮", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+|[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
_QUESTION = re.compile(r"[?？]|吗")
# Said when something was done: the agent's own voice, past or present perfect.
_DONE = re.compile(r"\b(?:done|booked|reserved|set|opened|added|moved|adjusted|changed|updated|all set|i'?ve|"
                   r"i have|is open|is booked|is set)\b|好了|好的|订好|已经|设好|调好|加了|提交|开好|办好",
                   re.IGNORECASE)
# Claiming to have done something (or to be about to) without the policy's ACT.
_CLAIMS = re.compile(r"^\W*done\b|\bi(?:'ve| have) (?:just )?(?:booked|reserved|opened|set|moved|added|found|adjusted|"
                     r"changed|updated|made)|\bi(?:'ll| will) (?:go ahead|book|reserve|set|open|add)|"
                     r"已经(?:订|设|调|提交|加)|订好了|设好了|调好了", re.IGNORECASE)
# How a user says their name ("call me Dev", 我叫小王): the agent must not say it of itself.
_USER_NAME = re.compile(r"\b(?:call me|my name is|i'?m|i am)\s+([A-Z][a-z]+)|(?:我叫|叫我)([\u4e00-\u9fff]{1,3})")
# Acts whose reply must end in a question to the user.
_ASKING = (Act.ASK, Act.CONFIRM, Act.NO_OPTIONS, Act.RESUME, Act.ONLY_OPTION, Act.ASK_CHANGE, Act.PROPOSE, Act.SUGGEST)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def sentence_count(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?。！？])\s*", text.strip()) if _tokens(s)])


def _reads_notation(text: str, keys: Sequence[str]) -> bool:
    """Notes, brackets, `key = value`, a stored "19:00" or a slot key read aloud."""
    lowered = text.lower()
    return bool(_NOTATION.search(text) or _STORED_TIME.search(text)) or any(k in lowered for k in keys)


def _speaks_as_user(text: str) -> bool:
    return bool(_AS_USER_EN.search(text) or _AS_USER_ZH.search(text)) and not _AGENT_NAME.search(text)


def question_of(template: str, language: str) -> str:
    """The question that ends a template ("…; shall I book it on Friday?" → "Shall I book it on Friday?")."""
    if language == "zh":
        at = max(template.rfind(w) for w in ("要我", "要不要", "可以", "还有", "想"))
        return template[at:] if at > 0 else template
    tail = re.split(r"[;.!]\s+", template)[-1].strip()
    return tail[:1].upper() + tail[1:] if _QUESTION.search(tail) else template


def _content(text: str) -> set[str]:
    """Words that carry content: longer Latin words, and pairs of Chinese characters."""
    words = {w for w in _tokens(text) if len(w) > 3 and w.isascii()}
    han = [c for c in text if "\u4e00" <= c <= "\u9fff"]
    return words | {a + b for a, b in zip(han, han[1:], strict=False)}


def _shares_content(text: str, template: str, at_least: int = 2) -> bool:
    wanted = _content(template)
    return len(_content(text) & wanted) >= min(at_least, len(wanted))


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
    earlier_replies: tuple[str, ...] = ()                # the agent's replies before the previous one
    ruled_out: frozenset[str] = frozenset()              # options the state excludes (by name)
    elsewhere: frozenset[str] = frozenset()              # names of other domains' options ("Sakura" in a car)
    allowed_names: frozenset[str] = frozenset()          # names the reply may say in any language
    read_values: Callable[[str], Iterable[tuple[str, Any]]] | None = None   # the domain's rules on a clause
    template: str = ""
    failures: list[CheckFailure] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A small model copies its own recent replies ("I see. What time would suit you?" when the
        # time is known): any sentence of the last few replies counts, not only the previous one.
        self._previous = {normalised(s) for reply in (self.previous_reply, *self.earlier_replies)
                          for s in re.split(r"(?<=[.!?。！？])\s*", reply) if _tokens(s)}
        self._keys = sorted((k for k in self.schema.keys if "_" in k), key=len, reverse=True)
        self._template_tokens = set(_tokens(self.template))

    def clause(self, clause: str, spoken: Sequence[str]) -> Failure | None:
        """Why this clause may not be spoken after `spoken`, or None when it may."""
        failure = self._why(clause, spoken)
        if failure is not None:
            self.failures.append(CheckFailure(failure, clause))
        return failure

    def _why(self, clause: str, spoken: Sequence[str]) -> Failure | None:
        lowered = clause.lower()
        if _reads_notation(clause, self._keys) or _INSTRUCTIONS.search(clause):
            return Failure.NOTATION
        if _REFUSAL.search(clause):
            return Failure.REFUSES
        if _GREETING_ONLY.search(clause) and not spoken and self.decision.act != Act.GREET:
            return Failure.REPEATS
        if _speaks_as_user(clause):
            return Failure.SPEAKS_AS_USER
        if self._names_itself(clause):
            return Failure.SPEAKS_AS_USER
        if self._wrong_language(clause):
            return Failure.WRONG_LANGUAGE
        if _CLAIMS.search(clause) and not any(s.act == Act.ACT for s in self.decision.steps()):
            return Failure.CLAIMS_DONE
        if any(name.lower() in lowered for name in self.elsewhere):
            return Failure.OTHER_DOMAIN
        if any(name.lower() in lowered for name in self.ruled_out):
            return Failure.RULED_OUT
        if self._contradicts(clause):
            return Failure.CONTRADICTS_STATE
        said = normalised(clause)
        if len(_tokens(clause)) >= 4 and (said in self._previous or (
                len(_tokens(clause)) >= 6 and any(said in earlier for earlier in self._previous))):
            return Failure.REPEATS
        if self.previous_reply and normalised(" ".join([*spoken, clause])) == normalised(self.previous_reply):
            return Failure.REPEATS
        if self._echoes(clause):
            return Failure.ECHOES_USER
        if self.decision.steps()[-1].act == Act.ASK and self.decision.act == Act.ASK \
                and re.search(r"[.!。！]\s*$", clause) and not _QUESTION.search(clause) and len(_tokens(clause)) > 5:
            return Failure.MISSES_ACT      # a question is asked, not padded: "The time would suit you to book…"
        so_far = " ".join([*spoken, clause])
        if sentence_count(so_far) > MAX_SENTENCES:
            return Failure.TOO_LONG
        if self.decision.steps()[-1].act in _ASKING and sentence_count(so_far) >= MAX_SENTENCES \
                and not _QUESTION.search(so_far):
            return Failure.MISSES_ACT      # two sentences and still no question: the template asks it
        return None

    def _names_itself(self, clause: str) -> bool:
        """"Hello! I'm Dev" after the user said "call me Dev"."""
        for m in _USER_NAME.finditer(self.user_text):
            name = m.group(1) or m.group(2)
            itself = r"\b(?:i'?m|i am|my name is)\s+" + re.escape(name) + r"\b|我(?:叫|是)" + re.escape(name)
            if name and re.search(itself, clause, re.IGNORECASE):
                return True
        return False

    def _wrong_language(self, clause: str) -> bool:
        if self.language == "zh":
            rest = clause
            for name in self.allowed_names:
                rest = rest.replace(name, "")
            return language_of(clause) != "zh" and len(_LATIN_WORD.findall(rest)) >= 1
        return language_of(clause) == "zh"

    @cached_property
    def _allowed(self) -> dict[str, set[str]]:
        """key → the values a reply may name: the state's, and what the decision itself says."""
        allowed: dict[str, set[str]] = {}
        for c in self.state.constraints.values():
            allowed.setdefault(c.key, set()).add(str(c.value).lower())
        for step in self.decision.steps():
            for key, value in [*step.args.items(), *step.option_item.items()]:
                for one in value if isinstance(value, list) else [value]:
                    # (an option's attribute per language, {en: Downtown, zh: 市中心}: each form)
                    for form in one.values() if isinstance(one, dict) else [one]:
                        allowed.setdefault(key, set()).add(str(form).lower())
        return allowed

    def _contradicts(self, clause: str) -> bool:
        """A value the state does not hold and the decision did not give: one that contradicts
        the state (8 pm when 7 pm was said), or one the model made up ("Blue Cafe at 10 am")."""
        if self.read_values is None:
            return False
        allowed = self._allowed
        for key, value in self.read_values(clause):
            said = str(value).lower()
            held = allowed.get(key, set())
            if said in held:
                continue
            if self.schema.key(key).type == "time" and any(_same_time(said, h) for h in held):
                continue
            return True
        return False

    def _echoes(self, clause: str) -> bool:
        """The user's own words said back as the reply (not the read-back the template makes)."""
        if normalised(clause) and normalised(clause) == normalised(self.user_text):
            return True
        words = [w for w in _tokens(clause) if w not in self._template_tokens]
        user = set(_tokens(self.user_text))
        if len(_tokens(clause)) < 5 or not user:
            return False
        return sum(1 for w in _tokens(clause) if w in user) / len(_tokens(clause)) >= 0.8 and len(words) >= 3

    def missing(self, text: str, essential: str) -> str:
        """What to say after `text` (spoken, but short of the act): only the ticket's number
        when that is all it lacks, only the question when it said the rest, else `essential`."""
        decision = self.decision.steps()[-1]
        records = [s.record for s in self.decision.steps() if s.record and s.record not in text]
        if decision.act == Act.ACT and records and _DONE.search(text) and _shares_content(text, self.template):
            return say("policy.record_is", self.language, record=records[0])
        if decision.act in _ASKING and not _QUESTION.search(text) and _shares_content(text, essential):
            return question_of(essential, self.language)
        return essential

    def whole(self, text: str) -> Failure | None:
        """Whether the reply as spoken does what was decided (asked, offered, read back, done)."""
        failure = self._misses(text)
        if failure is not None:
            self.failures.append(CheckFailure(failure, text))
        return failure

    def _misses(self, text: str) -> Failure | None:
        decision = self.decision.steps()[-1]
        lowered = text.lower()
        if decision.act in _ASKING and not _QUESTION.search(text):
            return Failure.MISSES_ACT
        if decision.act in (Act.PROPOSE, Act.SUGGEST) and decision.option.lower() not in lowered:
            return Failure.MISSES_ACT
        if decision.act in (Act.CONFIRM, Act.ACT):
            action = self.schema.actions.get(decision.action)
            name = str(decision.args.get(action.choose, "")) if action and action.choose else ""
            if name and name.lower() not in lowered:
                return Failure.MISSES_ACT
        if decision.act in (Act.ACT, Act.HANDOVER, Act.ALREADY_DONE, Act.CONFIRM, Act.PROPOSE) and self.template \
                and not _shares_content(text, self.template):
            return Failure.MISSES_ACT       # "Okay." is not "Done: ticket T-1 is open for a refund"
        if decision.act == Act.ACT and any(s.record and s.record in self.template and s.record not in text
                                           for s in self.decision.steps()):
            return Failure.MISSES_ACT       # the ticket's number is what the user needs to hear
        if decision.act == Act.ACT and not _DONE.search(text):
            return Failure.MISSES_ACT       # "I recommend Luigi's…" when it was booked
        if decision.act == Act.SMALL_TALK and decision.key == "name" and "monologue" not in lowered:
            return Failure.MISSES_ACT
        if decision.act == Act.ASK:
            spec = self.schema.key(decision.key)
            words = {w for w in _tokens(" ".join([spec.label(self.language), *spec.aliases.get(self.language, ()),
                                                   *spec.ask.values()])) if len(w) > 2 or self.language == "zh"}
            words -= {"the", "you", "would", "like", "what", "which", "your", "how", "many", "will", "there"}
            if words and not words & set(_tokens(text)):
                return Failure.MISSES_ACT
        return None


def audit(reply: str, previous_reply: str, language: str, schema: DomainSchema) -> list[Failure]:
    """What a reply that reached the user still does wrong, whoever worded it (benchmarks and
    conversation tests): the clause checks that need no decision, on the whole reply."""
    found: list[Failure] = []
    if not reply.strip():
        return found
    if _reads_notation(reply, [k for k in schema.keys if "_" in k]):
        found.append(Failure.NOTATION)
    if _REFUSAL.search(reply):
        found.append(Failure.REFUSES)
    if _speaks_as_user(reply):
        found.append(Failure.SPEAKS_AS_USER)
    if normalised(reply) == normalised(previous_reply):
        found.append(Failure.REPEATS)
    if sentence_count(reply) > MAX_SENTENCES:
        found.append(Failure.TOO_LONG)
    if language == "en" and language_of(reply) == "zh":
        found.append(Failure.WRONG_LANGUAGE)
    if language == "zh" and language_of(reply) != "zh":
        found.append(Failure.WRONG_LANGUAGE)
    return found
