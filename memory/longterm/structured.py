"""Exact questions answered from records, not by similarity (seed 002 §5.5, L15).

"When did I last change the seat?" and "what did I book last time?" have one right
answer: it is looked up in the profile's audit log and the last session's record. If
there is no record, the answer says so instead of guessing (L14).
"""

from __future__ import annotations

import datetime as dt
import re

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.phrases import say
from monologue.memory.stores.protocols import ProfileStore

_WHEN_EN = re.compile(r"\bwhen did (?:i|we) (?:last |most recently )?"
                      r"(?:change|set|move|adjust|update|switch|pick|choose)\s+(?:the |my |our )?(?P<what>[\w ]{2,30})",
                      re.IGNORECASE)
_WHEN_ZH = re.compile(r"(?:我|我们)?上次(?:是)?什么时候(?:改|调|换|设置)(?:的|了)?(?P<what>[\u4e00-\u9fff]{1,6})"
                      r"|(?:我|我们)?上次(?:改|调|换)(?P<what2>[\u4e00-\u9fff]{1,6}?)是什么时候")
_LAST_TIME_EN = re.compile(r"\bwhat (?:did|was it) (?:i|we) (?:order|book|reserve|choose|pick|get|ask for|want)\b.*"
                           r"\blast time\b|\blast time\b.*\bwhat did (?:i|we)\b", re.IGNORECASE)
_LAST_TIME_ZH = re.compile(r"上次(?:我|我们)?(?:订|点|选|要)了?什么")


def _when(at: float) -> str:
    return dt.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


def _key_of(phrase: str, schema: DomainSchema, language: str) -> str | None:
    phrase = phrase.lower()
    for alias, key in schema.alias_lexicon(language):
        if (alias in phrase) if language == "zh" else re.search(r"\b" + re.escape(alias) + r"\b", phrase):
            return key
    return None


def exact_answer(question: str, profiles: ProfileStore, user_id: str, schema: DomainSchema,
                 language: str = "en") -> str | None:
    """An answer from the records, or None when the question is not an exact one.

    It is given in the question's language (`language` only names the label of an
    English question asked in a Chinese session)."""
    asked_in = language_of(question)
    zh = asked_in == "zh"
    when = (_WHEN_ZH if zh else _WHEN_EN).search(question)
    if when:
        what = (when.groupdict().get("what") or when.groupdict().get("what2") or "").strip()
        key = _key_of(what, schema, asked_in)
        if key is None:
            return None
        changes = [e for e in profiles.audit(user_id) if e["what"].split(":")[0] == key]
        label = schema.key(key).label("zh" if zh else language)
        if not changes:
            return say("exact.no_change", asked_in, label=label)
        last = changes[-1]
        after = last["after"] or say("exact.removed", asked_in)
        return say("exact.changed", asked_in, label=label, when=_when(last["at"]), after=after, reason=last["reason"])
    if (_LAST_TIME_ZH if zh else _LAST_TIME_EN).search(question):
        last = profiles.load(user_id).last_session
        if not last:
            return say("exact.no_last_session", asked_in)
        details = "; ".join(last.get("conditions", [])) or say("exact.nothing_specific", asked_in)
        goal = last.get("goal") or say("session.a_conversation", asked_in)
        return say("exact.last_time", asked_in, when=_when(last["ended_at"]), goal=goal, details=details)
    return None
