"""A session's two ends, as long-term memory sees them.

It opens (`open_session`) with retention applied, the pre-conversation checks, and an
opening line that says the last session, the checks' findings and a plan; the profile's
preferences seed the session's state, to confirm. It closes (`close_session`) with the
LLM's share of the session's memories (`consolidate`), the profile, a summary in the
pyramid and the day's reflection.
"""

from __future__ import annotations

from loguru import logger

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.longterm.checks import run_checks
from monologue.memory.longterm.consolidation import consolidate
from monologue.memory.longterm.exchange import Awaiting, Opening, SessionSnapshot
from monologue.memory.longterm.planning import Plan
from monologue.memory.longterm.profile import opening_line, seed_operations, update_profile
from monologue.memory.longterm.records import UserProfile
from monologue.memory.longterm.reflection import ReflectionReport
from monologue.memory.longterm.speech import joined_sentences
from monologue.memory.longterm.summaries import session_summary
from monologue.memory.longterm.user_memory import UserMemory
from monologue.memory.working.state import Condition


class SessionEnds(UserMemory):
    """The core's work as a session opens and as it closes."""

    def open_session(self, profile: UserProfile, schema: DomainSchema, language: str, session_id: str) -> Opening:
        """Apply retention, run the pre-conversation checks, and open with the last
        session, the checks' findings and a plan; the profile's preferences seed the
        session's state, to confirm."""
        now = self.clock()
        self.stream.maintain()
        self.checks = run_checks(self.profiles, self.stream, now, profile=profile)
        parts = [opening_line(profile, schema, language, now=now)]
        # The opening line already asks about every lasting preference: the stale ones too.
        parts += self.checks.lines(language, schema, stale=not profile.facts)
        for promise in self.checks.promises[:1]:
            self.profiles.keep_commitment(self.user_id, promise["id"], now)
        last = profile.last_session
        # The plan is looked up by what the last session was about (its goal as the state
        # held it, only as a query) and said in the domain's own task words.
        query = " ".join([last.get("goal") or "", schema.goal_text.get("en", "")]).strip() if last else ""
        keeping = [Condition(f.key, f.comparator, f.value, f.words, 0) for f in profile.facts.values()]
        plan: Plan | None = (self.planner.propose(query, session_id, language, schema=schema, keeping=keeping)
                             if query else None)
        if plan is not None:
            # The opening already read the preferences back: the plan's "because you told me" would say them twice.
            parts.append(plan.spoken(language, with_reason=not profile.facts))
            self.awaiting = Awaiting("plan", plan.record.id)
        line = joined_sentences(parts, language)
        if not profile.facts:
            return Opening(line)
        note = "Loaded from the profile, to confirm: " + ", ".join(
            f"{f.key} {f.comparator} {f.value}" for f in profile.facts.values())
        return Opening(line, seed_operations(profile), note)

    def reflection_due(self, profile: UserProfile) -> bool:
        """The scheduled reflection: the first session of a day, or a week since the last."""
        return self.reflector.scheduled_due(profile.last_session.get("reflected_at"), self.clock())

    def reflect(self, trigger: str, session_id: str) -> ReflectionReport:
        """Reflect now; a failure is logged and reported (the next schedule tries again)."""
        try:
            report = self.reflector.reflect(trigger, session_id)
        except Exception as exc:
            logger.bind(session=session_id).opt(exception=exc).warning(
                "session {}: {} reflection failed: {}: {}", session_id, trigger, type(exc).__name__, exc)
            report = ReflectionReport(trigger, errors=[f"{type(exc).__name__}: {exc}"])
        self.reports.append(report)
        return report

    def consolidate(self, session_id: str, max_calls: int = 10) -> dict[str, int]:
        """Session-end work that needs the LLM (blocking; off any voice turn): importance
        for what the rules could not score and the contradiction judge for this session's
        new memories. Each call is bounded; a failure leaves the rule result in place."""
        pending, self._to_consolidate = self._to_consolidate, []
        if self.llm is None:
            return {"scored": 0, "judged": 0, "conflicts": 0}
        return consolidate(self.stream, self.llm, pending, session_id, max_calls)

    def close_session(self, session_id: str, session: SessionSnapshot | None) -> int:
        """Fold the session into the profile and the summary pyramid; returns audit entries written.
        A session the user asked not to be remembered is not folded in, nor one with nobody
        known to be speaking (a household's profile is not one person's preferences)."""
        if (session_id and session_id in self.no_history) or not self.speaker_known:
            return 0
        self.consolidate(session_id)
        self._reflect_in_llm_words(session_id)
        now = self.clock()
        written = 0
        profile = self.profiles.load(self.user_id)
        if session is not None and session.state.version:
            audit = update_profile(profile, session.state, session.schema, session.withdrawn, now=now,
                                   forgotten=self.forgotten)
            written = len(audit)
        else:
            audit = []
            if not session_id:
                return 0
            profile.last_session = {"id": session_id, "ended_at": now, "goal": "", "status": "IN_PROGRESS",
                                    "conditions": [], "open": []}
        reports = [r for r in self.reports if r.trigger == "scheduled" and not r.errors]
        profile.last_session["reflected_at"] = now if reports else profile.last_session.get("reflected_at")
        self.profiles.save(profile, audit, at=now)
        said = [r.text for r in self.stream.records()[0]
                if r.session_id == session_id and r.kind == "memory" and r.current and r.source == "user_stated"]
        said.sort(key=len)
        language = session.language if session is not None else "en"
        schema = session.schema if session is not None else None
        self.pyramid.add_session(session_id, session_summary(profile.last_session, said, language, schema), now)
        return written

    def _reflect_in_llm_words(self, session_id: str) -> None:
        """The day's scheduled reflection ran with rule wording at session start; new
        patterns found now get the LLM's words."""
        if self.llm is None or not any(r.trigger == "scheduled" for r in self.reports):
            return
        self.reflector.insight = self.llm.insight
        try:
            self.reports.append(self.reflector.reflect("scheduled", session_id))
        finally:
            self.reflector.insight = None
