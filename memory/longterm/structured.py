"""Exact questions answered from records, not by similarity (seed 002 §5.5, L15).

"When did I last change the seat?" and "what did I book last time?" have one right
answer: it is looked up in the profile's audit log and the last session's record. If
there is no record, the answer says so instead of guessing (L14).
"""

from __future__ import annotations

import datetime as dt
import re

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.stores.protocols import ProfileStore

_WHEN_EN = re.compile(r"\bwhen did (?:i|we) (?:last |most recently )?(?:change|set|move|adjust|update|switch|pick|choose)"
                      r"\s+(?:the |my |our )?(?P<what>[\w ]{2,30})", re.IGNORECASE)
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
    """An answer from the records, or None when the question is not an exact one."""
    zh = bool(re.search(r"[\u4e00-\u9fff]", question))
    when = (_WHEN_ZH if zh else _WHEN_EN).search(question)
    if when:
        what = (when.groupdict().get("what") or when.groupdict().get("what2") or "").strip()
        key = _key_of(what, schema, "zh" if zh else "en")
        if key is None:
            return None
        changes = [e for e in profiles.audit(user_id) if e["what"].split(":")[0] == key]
        label = schema.key(key).label("zh" if zh else language)
        if not changes:
            return f"没有{label}改动的记录。" if zh else f"There is no record of the {label} being changed."
        last = changes[-1]
        after = last["after"] or ("已取消" if zh else "removed")
        return (f"{label}上次在 {_when(last['at'])} 改为 {after}。" if zh
                else f"The {label} was last changed on {_when(last['at'])}: {after} ({last['reason']}).")
    if (_LAST_TIME_ZH if zh else _LAST_TIME_EN).search(question):
        last = profiles.load(user_id).last_session
        if not last:
            return "没有上次的记录。" if zh else "There is no record of an earlier session."
        details = "; ".join(last.get("conditions", [])) or ("无" if zh else "nothing specific")
        goal = last.get("goal") or ("对话" if zh else "a conversation")
        return (f"上次（{_when(last['ended_at'])}）：{goal}，{details}。" if zh
                else f"Last time ({_when(last['ended_at'])}): {goal} — {details}.")
    return None
