"""What a user's statement is to long-term memory, how important it is, and how long a
dated one stays true — by rules first (an LLM may score what they abstain on, at
session end).

Each reading has a floor: the least importance any model may give it. A need (health,
accessibility, an allergy) stays at 8 or more, kept until deleted; how the user wants
to be addressed likewise; a lasting like or dislike, a setting to keep, a habit at 5
or more, kept 30 days before it decays (L2). Measured: the local LLM scored a road
dislike and a cabin temperature 1, and both were archived a week later; seed 002
§4.1 names routes and climate as the preferences that matter most.

Questions ("what temperature do I like?") and requests ("turn on the heater", "take the
highway today, I'm late") are not facts about the user: a request is kept as an event
(low importance, never recalled as a fact), a question not at all. A request that
carries a fact ("could you remember that I'm allergic to nuts?") keeps the fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from monologue.memory.language.cues import (
    FIRST_PERSON_CUES,
    HAN,
    HORIZONS,
    NOT_NAMES_EN,
    PLAN_CUES,
    SMALL_TALK_CUES,
)
from monologue.memory.language.memory_cues import (
    ACCESS_NEED,
    ADDRESS,
    ALWAYS_NEVER,
    ASIDE,
    DIET_NEED,
    HABIT,
    HEALTH_NEED,
    INTRODUCTION,
    KEEP_SETTING,
    LASTING,
    LIKES,
    NEED_OF_PARTY,
    NEED_OF_USER,
    ONE_OFF,
    PERSONAL,
    QUESTION,
    REJECTION,
    REMEMBER_FRAME,
    REQUEST,
    SMALL_TALK_MORE,
)
from monologue.memory.longterm.records import MemoryKind
from monologue.memory.working.turn_classes import TurnClass

DEFAULT_IMPORTANCE = 4      # what a statement the rules abstain on gets when no model scores it

# In-car topics (seed 002 §4.1: routes, seats, mirrors, climate): a statement about one is
# kept a month even when no rule reads a preference in it.
_LASTING_TOPIC = re.compile(
    r"\b(?:route|commute|seat|mirror|temperature|climate|heating|heater|a/?c|air ?con\w*|parking|highways?|"
    r"motorways?|freeways?|tolls?|traffic|jams?|junction)\b|路线|座椅|后视镜|温度|空调|暖气|停车|高速|收费|堵",
    re.IGNORECASE)
_INSTRUCTION = re.compile(r"\b(?:please|i|i'?d|my|me|we|us|our)\b|" + HAN, re.IGNORECASE)
_CLAUSE = re.compile(r"[^.!?;,。！？；，]+[.!?;,。！？；，]*")


class Statement(StrEnum):
    """What an utterance is to long-term memory."""

    NEED = "need"                # health, accessibility, allergy, diet
    IDENTITY = "identity"        # how to address the user; who they are
    PREFERENCE = "preference"    # a lasting like or dislike, a setting to keep, a habit
    PLAN = "plan"
    TOPIC = "topic"              # about a lasting topic (route, climate…), no preference read
    OTHER = "other"              # a statement the rules cannot place: a model scores it
    SMALL_TALK = "small_talk"
    REQUEST = "request"          # asks the agent to do something: an event, not a fact
    QUESTION = "question"        # asks something: nothing to remember


_NOT_NAMES = NOT_NAMES_EN | {"Sorry", "Fine", "Good", "Okay", "Ok", "Ready", "Here", "Back", "Late", "Done", "Sure",
                             "Hungry", "Tired", "Cold", "Hot", "Busy", "Free", "Home", "Lost", "Just", "Not", "So",
                             "Still", "Really", "Very", "Also", "Going", "Looking", "Trying", "Driving", "Afraid"}

FACTS = (Statement.NEED, Statement.IDENTITY, Statement.PREFERENCE)


@dataclass(frozen=True)
class Reading:
    """A statement's kind, the rules' importance (None: they abstain) and its floor."""

    statement: Statement
    importance: int | None
    floor: int = 1
    why: str = ""

    def settle(self, scored: int | None) -> int:
        """The importance to keep when a model scored `scored`: it may raise the rules'
        score, never push it below the floor."""
        base = self.importance if scored is None else scored
        return int(min(max(base if base is not None else DEFAULT_IMPORTANCE, self.floor, 1), 10))


def _fact_in(clause: str, form: Statement, lasting_text: bool = False) -> Reading | None:
    """The fact a clause states, if any. `form`: the clause is a question, a request or
    a plain statement; a question carries only a need of someone in the party ("…for
    my mother?"), a request only a need, an address or a lasting preference."""
    whose = {Statement.QUESTION: NEED_OF_PARTY, Statement.REQUEST: NEED_OF_USER}.get(form)
    holder = whose is None or bool(whose.search(clause))
    if HEALTH_NEED.search(clause) and holder:
        return Reading(Statement.NEED, 9, 8, "health or safety need")
    if ACCESS_NEED.search(clause) and holder:
        return Reading(Statement.NEED, 9, 8, "accessibility need")
    if DIET_NEED.search(clause) and holder:
        return Reading(Statement.NEED, 8, 7, "dietary need")
    if form is Statement.QUESTION:
        return None
    if ADDRESS.search(clause) or _introduces(clause):
        return Reading(Statement.IDENTITY, 8, 8, "how to address the user")
    lasting = lasting_text or bool(LASTING.search(clause) or HABIT.search(clause))
    if ONE_OFF.search(clause) and not lasting:
        return None                                  # "avoid the highway today": only for now
    if HABIT.search(clause):
        return Reading(Statement.PREFERENCE, 7, 5, "habit")
    if KEEP_SETTING.search(clause):
        return Reading(Statement.PREFERENCE, 7, 5, "setting to keep")
    if REJECTION.search(clause) and (form is not Statement.REQUEST or lasting):
        return Reading(Statement.PREFERENCE, 7, 5, "rejection")
    if form is Statement.REQUEST and not lasting:
        return None
    if LIKES.search(clause):
        return Reading(Statement.PREFERENCE, 7, 5, "like or dislike")
    if PERSONAL.search(clause) and form is Statement.OTHER:
        return Reading(Statement.IDENTITY, 8, 5, "who the user is")
    return None


def _introduces(clause: str) -> bool:
    """ "I'm Maria", "this is Tom speaking": a name, not "I'm Fine"."""
    named = INTRODUCTION.search(clause)
    return named is not None and named.group("name") not in _NOT_NAMES


def _form_of(clause: str) -> Statement:
    if REQUEST.search(clause) and not REJECTION.match(clause.strip()):
        return Statement.REQUEST
    if QUESTION.search(clause):
        return Statement.QUESTION
    return Statement.OTHER


def read_statement(text: str) -> Reading:
    """What `text` is to long-term memory, by rules, in English and Chinese."""
    text = text.strip()
    if not text:
        return Reading(Statement.SMALL_TALK, 1)
    framed = REMEMBER_FRAME.search(text)
    if framed and text[framed.end():].strip():
        # "Please remember that I hate tolls?": the remembered clause is a statement.
        told = read_statement(re.sub(r"[?？吗]+\s*$", "", text[framed.end():]))
        if told.statement in FACTS:
            return told
    forms: list[Statement] = []
    best: Reading | None = None
    lasting_text = bool(LASTING.search(text))
    for clause in (m.group(0).strip() for m in _CLAUSE.finditer(text)):
        if not clause:
            continue
        form = _form_of(clause)
        forms.append(form)
        fact = _fact_in(clause, form, lasting_text)
        if fact is not None and (best is None or (fact.floor, fact.importance or 0) > (best.floor,
                                                                                         best.importance or 0)):
            best = fact
    if best is not None:
        return best
    # "Seat heating on, every winter morning please", 以后空调都开二十二度: a standing instruction
    # (not "the junction jams every morning", which is about the road).
    instruction = Statement.QUESTION not in forms and (Statement.REQUEST in forms or bool(_INSTRUCTION.search(text)))
    if lasting_text and _LASTING_TOPIC.search(text) and instruction:
        return Reading(Statement.PREFERENCE, 7, 5, "lasting setting")
    if ALWAYS_NEVER.search(text) and FIRST_PERSON_CUES.search(text) and Statement.OTHER in forms:
        return Reading(Statement.PREFERENCE, 7, 5, "always or never")       # "Tea, never coffee, for me."
    one_off = bool(ONE_OFF.search(text))
    if one_off and (REJECTION.search(text) or _LASTING_TOPIC.search(text)):
        return Reading(Statement.REQUEST, 3, why="one-off instruction")     # "avoid the highway today"
    if one_off and (LIKES.search(text) or KEEP_SETTING.search(text)):
        # "I don't want spicy food tonight": a state of the moment (seed 002 §4.1: 5–7, a month).
        return Reading(Statement.OTHER, 5, why="wish for now")
    if (SMALL_TALK_CUES.search(text) or SMALL_TALK_MORE.search(text)) and len(text.split()) <= 6 \
            or ASIDE.search(text):
        return Reading(Statement.SMALL_TALK, 2)
    plan = bool(PLAN_CUES.search(text)) and not one_off
    if Statement.REQUEST in forms and not plan:
        return Reading(Statement.REQUEST, 3, why="request to the agent")
    if Statement.QUESTION in forms and Statement.OTHER not in forms:
        return Reading(Statement.QUESTION, 2, why="question")
    if plan:
        return Reading(Statement.PLAN, 6, why="plan")
    if _LASTING_TOPIC.search(text) and not one_off:
        return Reading(Statement.TOPIC, None, 4, "lasting topic")
    return Reading(Statement.OTHER, None)


def rule_importance(text: str) -> int | None:
    """1–10 by rules, or None when the rules abstain (then an LLM may score it)."""
    return read_statement(text).importance


def importance_floor(text: str) -> int:
    """The least importance any model may give `text`."""
    return read_statement(text).floor


def for_now(text: str) -> bool:
    """Said only for now ("this time", "I'm in a hurry", 这次): a one-off exception, which
    leaves a lasting preference standing."""
    return bool(ONE_OFF.search(text)) and not LASTING.search(text)


def valid_for_days(text: str) -> float | None:
    """How long a time-bound statement stays true ("tomorrow" → 2 days), else None."""
    for pattern, days in HORIZONS:
        if pattern.search(text):
            return days
    return None


def remember_as(text: str, turn_class: str) -> MemoryKind | None:
    """How to keep an utterance: a memory (a fact about the user, or a change to the
    task), an event (a request to the agent), or not at all (questions, yes/no answers,
    small talk). The classifier's chit-chat covers facts about the user that do not
    change the task ("my daughter is 6"): those are memories too."""
    text = text.strip()
    if turn_class == TurnClass.CONFIRMATION or not text:
        return None
    reading = read_statement(text)
    if reading.statement in FACTS or reading.statement is Statement.TOPIC:
        return MemoryKind.MEMORY         # "the junction by the school jams every morning" too
    if reading.statement is Statement.QUESTION or reading.statement is Statement.SMALL_TALK:
        return None
    if reading.statement is Statement.REQUEST:
        return MemoryKind.EVENT
    if turn_class == TurnClass.INFORMATION_CHANGE:
        long_enough = len(text.split()) >= 2 or bool(re.search(HAN + "{4,}", text))
        return MemoryKind.MEMORY if long_enough else None
    if text.endswith(("?", "？")):
        return None
    about_user = bool(FIRST_PERSON_CUES.search(text)) and (len(text.split()) >= 4
                                                           or bool(re.search(HAN + "{6,}", text)))
    return MemoryKind.MEMORY if about_user else None


def worth_remembering(text: str, turn_class: str) -> bool:
    """A statement about the user themselves or a change to the task: kept as a memory."""
    return remember_as(text, turn_class) is MemoryKind.MEMORY
