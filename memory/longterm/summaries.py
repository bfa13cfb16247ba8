"""The session summary pyramid (seed 001, L9).

Each finished session leaves a detailed summary. The last five stay detailed; the
twenty before them are merged into one summary; one overall summary covers
everything. They are loaded in that priority: the recent sessions first, then the
merged, then the overall one, within a size budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import language_of
from monologue.memory.language.person import second_person, spoken_day
from monologue.memory.language.phrases import say
from monologue.memory.longterm.speech import (
    conditions_of,
    done_words,
    joined_sentences,
    spoken,
    spoken_list,
    task_words,
    unsettled_labels,
)
from monologue.memory.stores.protocols import ProfileStore

Summarize = Callable[[list[str]], "str | None"]       # texts → one condensed text (an LLM)
DETAILED, MERGED_SPAN = 5, 20


def session_summary(last_session: dict[str, Any], said: list[str], language: str = "en",
                    schema: DomainSchema | None = None) -> str:
    """One session in plain sentences, second person, as the agent might read it out: what
    was done or planned and where it stood, and what the user said ("On March 3rd you
    booked Luigi's Trattoria for 4 people on Saturday at 7 pm. You said you're allergic
    to peanuts."). No status tags, no keys."""
    day = spoken_day(float(last_session.get("ended_at") or 0.0), language)
    done = [d for d in last_session.get("done") or [] if done_words(d, language)]
    if done:
        entry = next((d for d in reversed(done) if d.get("completes")), done[-1])
        parts = [say("summary.done", language, day=day, done=done_words(entry, language))]
    elif schema is not None and (last_session.get("said") or last_session.get("goal")):
        details = spoken(conditions_of(last_session), schema, language)
        labels = unsettled_labels(last_session, schema, language)
        parts = [say("summary.planned", language, day=day, goal=task_words(schema, language),
                     conditions=say("opening.with", language, conditions=details) if details else "",
                     standing=say("opening.unsettled", language, labels=labels) if labels else "")]
    else:
        parts = [say("summary.talked", language, day=day)]
    words = [second_person(s, language) for s in said[:3] if language_of(s) == language]
    if words:
        parts.append(say("summary.said", language, said=spoken_list(words, language)))
    return joined_sentences(parts, language)


def _first_clause(text: str, limit: int = 90) -> str:
    """A session's first sentence (what was done or planned), cut to `limit`."""
    head = re.split(r"(?<=[.。])\s*", text.strip(), maxsplit=1)[0]
    return head if len(head) <= limit else head[: limit - 1] + "…"


@dataclass(frozen=True)
class Pyramid:
    recent: list[dict[str, Any]]          # newest first, detailed
    merged: dict[str, Any] | None
    overall: dict[str, Any] | None

    def render(self, max_chars: int = 700) -> str:
        """In priority order, cut at the budget."""
        lines = [s["text"] for s in self.recent]
        if self.merged:
            lines.append("Earlier, " + self.merged["text"])
        if self.overall:
            lines.append("Overall, " + self.overall["text"])
        out: list[str] = []
        used = 0
        for line in lines:
            if used + len(line) > max_chars:
                break
            out.append(line)
            used += len(line) + 1
        return "\n".join(out)


class SummaryPyramid:
    def __init__(self, profiles: ProfileStore, user_id: str, summarize: Summarize | None = None) -> None:
        self.profiles = profiles
        self.user_id = user_id
        self.summarize = summarize
        self.failures = 0        # the summarizer raised; the rule summary was kept

    def add_session(self, session_id: str, text: str, at: float) -> None:
        self.profiles.put_summary(self.user_id, "session", session_id, text, [session_id], at)
        self._rebuild(at, session_id)

    def _condense(self, texts: list[str], fallback: str, session_id: str) -> str:
        if self.summarize is not None:
            try:
                condensed = self.summarize(texts)
                if condensed and len(condensed) < 2000:
                    return condensed.strip()
            except Exception as exc:       # the rule version below is always available
                self.failures += 1
                logger.bind(session=session_id).warning("session {}: summarizer failed ({}: {}); rule summary kept",
                                                        session_id, type(exc).__name__, exc)
        return fallback

    def _rebuild(self, at: float, session_id: str) -> None:
        sessions = self.profiles.summaries(self.user_id, "session")
        older = sessions[:-DETAILED][-MERGED_SPAN:]
        if older:
            rule = " ".join(_first_clause(s["text"]) for s in older)
            condensed = self._condense([s["text"] for s in older], rule, session_id)
            self.profiles.put_summary(self.user_id, "merged", "merged", condensed, [s["key"] for s in older], at)
        rule = say("summary.overall" if len(sessions) > 1 else "summary.overall.one", "en", count=str(len(sessions)),
                   first=spoken_day(sessions[0]["at"]), last=spoken_day(sessions[-1]["at"]))
        self.profiles.put_summary(self.user_id, "overall", "overall",
                                  self._condense([s["text"] for s in sessions], rule, session_id)
                                  if len(sessions) > DETAILED
                                  else rule, [s["key"] for s in sessions], at)

    def load(self) -> Pyramid:
        sessions = self.profiles.summaries(self.user_id, "session")
        merged = self.profiles.summaries(self.user_id, "merged")
        overall = self.profiles.summaries(self.user_id, "overall")
        return Pyramid(list(reversed(sessions[-DETAILED:])), merged[0] if merged and len(sessions) > DETAILED else None,
                       overall[0] if overall else None)
