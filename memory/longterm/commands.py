"""The user's spoken control over what is remembered (U1, U2, U6): what to read out, what
to offer to forget, and the words for each step.

"What do you remember about me?" lists; "forget what I said about my address" and
"forget that" show what matches and ask first; "forget everything about me" asks first,
then erases; "don't remember this conversation" stops this session reading or writing
long-term memory from that turn on. Nothing here writes: the core asks, and destroys only
after the user's yes (`LongTermCore.after_reply`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.memory_cues import (
    MEMORY_ERASE_ALL,
    MEMORY_FORGET_ABOUT,
    MEMORY_FORGET_THAT,
    MEMORY_LIST,
    MEMORY_NO_HISTORY,
    MEMORY_TOPICS,
    address_name,
)
from monologue.memory.language.person import gist, second_person
from monologue.memory.language.phrases import say
from monologue.memory.longterm.answers import relevant
from monologue.memory.longterm.records import MemoryKind, MemoryRecord
from monologue.memory.longterm.speech import spoken_list

CommandKind = Literal["list", "forget", "forget_last", "erase", "no_history"]
SPOKEN_ITEMS = 3            # a spoken summary names this many; the trace and the page have all
MAX_FORGET = 5              # "forget my address" offers at most this many matches at once
CLOSE_MEANING = 0.55        # cosine, multilingual USE: "my allergy" ~ "I'm allergic to peanuts" 0.68
_TRAILING = re.compile(r"[\s.!?。！？,，]+$")
_ZH_LEAD = re.compile(r"^(?:的|关于|有关)+")


@dataclass(frozen=True)
class MemoryCommand:
    kind: CommandKind
    topic: str = ""          # what to forget ("my address"), for `forget`
    # "Forget what I said about X" is about memory whatever it holds; "forget my X" may be
    # the task's words ("forget my window seat"): a command only if memory holds an X.
    tentative: bool = False

    def trace(self) -> dict[str, str]:
        return {"kind": self.kind, **({"topic": self.topic} if self.topic else {})}


def read_command(text: str) -> MemoryCommand | None:
    """The memory command `text` gives, or None. Erase is read before forget ("forget
    everything about me"), and not remembering before both ("don't remember this conversation")."""
    if MEMORY_ERASE_ALL.search(text):
        return MemoryCommand("erase")
    if MEMORY_NO_HISTORY.search(text):
        return MemoryCommand("no_history")
    if MEMORY_LIST.search(text):
        return MemoryCommand("list")
    if MEMORY_FORGET_THAT.search(text):
        return MemoryCommand("forget_last")
    found = MEMORY_FORGET_ABOUT.search(text)
    if found is not None:
        topic = next(v for v in found.groupdict().values() if v)
        topic = _ZH_LEAD.sub("", _TRAILING.sub("", topic.strip()))
        if topic:
            return MemoryCommand("forget", topic, tentative=not (found.group("topic") or found.group("zh_topic")))
    return None


def remembered(records: list[MemoryRecord]) -> list[MemoryRecord]:
    """What memory holds about the user, newest first: what they said or what was gathered
    from it, still current (not replaced, archived or held for a question)."""
    kept = [r for r in records if r.kind == MemoryKind.MEMORY and r.current and not r.held
            and r.source in ("user_stated", "inferred")]
    return sorted(kept, key=lambda r: r.created_at, reverse=True)


def said_as_meant(text: str, language: str) -> str:
    """A memory as what it means for the user, in the second person: "call me Sam from now on"
    is "you go by Sam"; a correction is its point ("you like it at 21 degrees")."""
    name = address_name(text)
    if name:
        return say("memory.goes_by", language, name=name)
    return second_person(gist(text, language), language)


def listing_words(items: list[MemoryRecord], language: str) -> str:
    """The spoken summary of what is remembered: a count and the newest few."""
    if not items:
        return say("memory.list.none", language)
    # Read out in the language spoken now; the others are counted (and all are on the page).
    named = [said_as_meant(r.text, language) for r in items if language_of(r.text) == language][:SPOKEN_ITEMS]
    if not named:
        return say("memory.list.elsewhere", language, count=len(items))
    if len(items) > len(named):
        return say("memory.list.some", language, count=len(items), items=spoken_list(named, language),
                   more=len(items) - len(named))
    return say("memory.list.all", language, count=len(items), items=spoken_list(named, language))


def matching(topic: str, items: list[MemoryRecord], schema: DomainSchema | None,
             similarity: dict[str, float] | None = None) -> list[MemoryRecord]:
    """The remembered items that `topic` is about, newest first: shared words or domain keys,
    a topic that covers the memory ("my address": "I live at …"), or a close meaning
    (`similarity` by memory id, from the embedding; the encoder alone confuses "my address"
    with "my door code", so it must be close)."""
    covers = [memory for topic_cue, memory in MEMORY_TOPICS if topic_cue.search(topic)]
    similarity = similarity or {}
    return [r for r in items if relevant(topic, r.text, schema) or any(c.search(r.text) for c in covers)
            or similarity.get(r.id, 0.0) >= CLOSE_MEANING][:MAX_FORGET]


def last_said(items: list[MemoryRecord], session_id: str) -> list[MemoryRecord]:
    """"Forget that": the newest memory of this session, if this session wrote any."""
    mine = [r for r in items if r.session_id == session_id and r.source == "user_stated"]
    return mine[:1]


def forget_question(items: list[MemoryRecord], language: str) -> str:
    """"I remember you said "I live at 12 Baker Street". Shall I forget that?" """
    quoted = [say("memory.quote", language, text=_TRAILING.sub("", r.text.strip())) for r in items]
    return say("memory.forget.ask", language, items=spoken_list(quoted, language))


def command_language(text: str, language: str) -> str:
    """The language to answer a command in: the command's own."""
    return language_of(text) if text.strip() else language
