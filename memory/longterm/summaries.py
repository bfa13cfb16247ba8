"""The session summary pyramid (seed 001, L9).

Each finished session leaves a detailed summary. The last five stay detailed; the
twenty before them are merged into one summary; one overall summary covers
everything. They are loaded in that priority: the recent sessions first, then the
merged, then the overall one, within a size budget.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from monologue.memory.language.phrases import say
from monologue.memory.stores.protocols import ProfileStore

Summarize = Callable[[list[str]], "str | None"]       # texts → one condensed text (an LLM)
DETAILED, MERGED_SPAN = 5, 20


def _day(at: float) -> str:
    return dt.datetime.fromtimestamp(at).strftime("%Y-%m-%d")


def session_summary(last_session: dict[str, Any], said: list[str], language: str = "en") -> str:
    """A detailed summary of one session from its record and what the user said."""
    goal = last_session.get("goal") or say("session.a_conversation", language)
    parts = [f"{_day(last_session.get('ended_at', 0.0))}: {goal}"]
    if last_session.get("conditions"):
        parts.append("; ".join(last_session["conditions"]))
    if last_session.get("status"):
        parts.append(f"[{last_session['status']}]")
    if last_session.get("open"):
        parts.append(say("summary.open", language, items="; ".join(last_session["open"])))
    if said:
        parts.append(say("summary.said", language, said=" / ".join(said[:3])))
    return " — ".join(parts)


def _first_clause(text: str, limit: int = 90) -> str:
    head = text.split(" — the user said")[0]
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
            lines.append("Earlier: " + self.merged["text"])
        if self.overall:
            lines.append("Overall: " + self.overall["text"])
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
            rule = "; ".join(_first_clause(s["text"]) for s in older)
            condensed = self._condense([s["text"] for s in older], rule, session_id)
            self.profiles.put_summary(self.user_id, "merged", "merged", condensed, [s["key"] for s in older], at)
        goals = Counter(s["text"].split(" — ")[0].split(": ", 1)[-1] for s in sessions)
        common = ", ".join(f"{goal} ({count}×)" for goal, count in goals.most_common(3))
        rule = f"{len(sessions)} conversations from {_day(sessions[0]['at'])} to {_day(sessions[-1]['at'])}: {common}"
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
