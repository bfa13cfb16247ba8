"""Long-term memory as the pipeline uses it (seeds 001, 002).

Before a reply (`before_reply`, on the critical path, within `budget_ms`): recall what
earlier sessions remember, answer exact questions from records, find the plan a "last
week" request names, notice a contradiction with what the user said before — a
high-risk one is asked about instead of answered — and settle a question asked on
the previous turn. After the reply (`after_reply`, in the background): write the
utterance, resolve conflicts by risk, apply a time-travel change, feed the user's
answer back into a plan, record the agent's promises, and reflect when an event calls
for it. Sessions start with the profile, the pre-conversation checks, a scheduled
reflection and a plan in the opening line, and end with the profile, a summary in the
pyramid and retention.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import PAST_CUES, PROMISE_CUES, yes_or_no
from monologue.memory.language.phrases import say
from monologue.memory.longterm.checks import PreConversationChecks, run_checks
from monologue.memory.longterm.conflicts import HIGH_RISK, PREFERENCE, Conflict, find_conflict
from monologue.memory.longterm.importance import rule_importance, worth_remembering
from monologue.memory.longterm.llm_help import MemoryLLM
from monologue.memory.longterm.planning import Plan, Planner
from monologue.memory.longterm.profile import opening_line, seed_operations, update_profile
from monologue.memory.longterm.records import RetentionPolicy, UserProfile
from monologue.memory.longterm.reflection import ReflectionOptions, ReflectionReport, Reflector
from monologue.memory.longterm.retrieval import RetrievalWeights, Retriever, time_window
from monologue.memory.longterm.stream import MemoryStream
from monologue.memory.longterm.structured import exact_answer
from monologue.memory.longterm.summaries import SummaryPyramid, session_summary
from monologue.memory.longterm.timetravel import TimeTravelMatch
from monologue.memory.longterm.timetravel import match as time_travel_match
from monologue.memory.stores.profiles import SQLiteProfileStore
from monologue.memory.stores.protocols import MemoryStore, ProfileStore
from monologue.memory.working.engine import WorkingMemory

Embed = Callable[[list[str]], np.ndarray]
RECALL_WEIGHTS = RetrievalWeights(recency=0.05, importance=0.10, relevance=0.85)

@dataclass(frozen=True)
class LongTermOptions:
    recall_k: int = 3
    budget_ms: float = 250.0
    summary_chars: int = 500
    reflection: ReflectionOptions = field(default_factory=ReflectionOptions)
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)


@dataclass
class Awaiting:
    """A question the agent asked that the user's next turn answers."""
    kind: str                 # conflict | plan
    memory_id: str = ""       # the plan, or the held new statement (written after the reply)
    conflict: Conflict | None = None


@dataclass
class BeforeReply:
    """What long-term memory gives one reply; `say` replaces the LLM's answer."""
    recalled: list[str] = field(default_factory=list)
    reflections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    say: str | None = None
    exact: str | None = None
    conflict: Conflict | None = None
    travel: TimeTravelMatch | None = None
    answered: tuple[Awaiting, bool] | None = None
    used: list[str] = field(default_factory=list)     # memory ids recalled: their access counts are written later
    ms: float = 0.0
    timed_out: bool = False

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"recalled": self.recalled, "ms": round(self.ms, 1), "timed_out": self.timed_out}
        if self.reflections:
            out["reflections"] = self.reflections
        if self.exact:
            out["exact"] = self.exact
        if self.conflict:
            out["conflict"] = {"with": self.conflict.old.text, "kind": self.conflict.kind, "risk": self.conflict.risk}
        if self.travel:
            out["time_travel"] = {"before": self.travel.item.text, "after": self.travel.new_text,
                                  "session": self.travel.item.session_id}
        if self.answered:
            out["answered"] = {"question": self.answered[0].kind, "yes": self.answered[1]}
        if self.say:
            out["said"] = self.say
        return out


class LongTermMemory:
    """One user's long-term memory across sessions (seed 002's memory stream)."""

    def __init__(self, store: MemoryStore, user_id: str, embed: Embed | None = None,
                 options: LongTermOptions | None = None, clock: Callable[[], float] = time.time,
                 profiles: ProfileStore | None = None, llm: MemoryLLM | None = None) -> None:
        self.user_id = user_id
        self.clock = clock
        self.profiles = profiles or SQLiteProfileStore(":memory:")
        self.options = options or LongTermOptions()
        self.llm = llm
        self.stream = MemoryStream(store, user_id, embed=embed, clock=clock, retention=self.options.retention,
                                   audit=lambda what, before, after, reason, session: self.profiles.append_audit(
                                       user_id, what, before, after, reason, session, at=clock()),
                                   importance_fn=None)
        # Recall favours relevance: the seed's recency/importance weights bury the
        # answer on question-style queries (LoCoMo R@10 .48 vs .76, scripts/bench_locomo.py).
        self.retriever = Retriever(self.stream, RECALL_WEIGHTS)
        # During a session the LLM belongs to the replies: memory's LLM work (importance,
        # contradiction judge, reflection wording) waits for `consolidate` at session end.
        # Measured: with it inline, the demo replayed at ×0.71–0.89 real time instead of ×0.38.
        self.reflector = Reflector(self.stream, self.options.reflection)
        self._to_consolidate: list[str] = []    # this session's new memories, for the LLM at session end
        self.planner = Planner(self.stream, self.retriever)
        self.pyramid = SummaryPyramid(self.profiles, user_id, summarize=llm.summarize if llm else None)
        self.awaiting: Awaiting | None = None
        self.checks = PreConversationChecks()
        self.reports: list[ReflectionReport] = []
        self.failed_writes: list[str] = []
        # What the transport knows about the moment (passengers, weather, place…), stored
        # with each memory beside the time of day and weekday (L1).
        self.situation: dict[str, Any] = {}
        self._retry: list[tuple[BeforeReply, str, dict[str, Any]]] = []
        self._lock = asyncio.Lock()
        self._background: set[asyncio.Task] = set()

    # --- reading ---------------------------------------------------------------------

    def exact_answer(self, question: str, schema: DomainSchema, language: str = "en") -> str | None:
        """Exact questions ("when did I last change the seat?") answered from records."""
        return exact_answer(question, self.profiles, self.user_id, schema, language)

    def profile(self) -> UserProfile:
        return self.profiles.load(self.user_id)

    def warm_up(self) -> float:
        """Load the stream, build its index and run the encoder once, before the first
        turn: a cold first recall would spend its whole budget on start-up work."""
        started = time.perf_counter()
        self.retriever.retrieve("warm up", k=1, touch=False)
        return time.perf_counter() - started

    def _prepare(self, text: str, session_id: str, turn_class: str, schema: DomainSchema | None,
                 language: str) -> BeforeReply:
        out = BeforeReply()
        now = self.clock()
        records, vectors = self.stream.records()
        if self.awaiting is not None:
            answer = yes_or_no(text)
            if answer is not None:
                out.answered = (self.awaiting, answer)
                out.say, note = self._answer_words(self.awaiting, answer, language)
                if note:
                    out.notes.append(note)
            if answer is not None or self.awaiting.kind == "plan":
                self.awaiting = None     # an unanswered contradiction stays open (and held) for later
        if out.say is None:
            out.travel = time_travel_match(text, records, now, session_id)
            if out.travel is not None:
                out.say = out.travel.confirmation()
        vector = self.stream.embed([text])[0] if self.stream.embed and text.strip() else None
        if out.say is None and worth_remembering(text, turn_class):
            out.conflict = find_conflict(text, vector, records, vectors)
            if out.conflict is not None and out.conflict.risk == HIGH_RISK:
                # Ask and hold: the reply does not reason on either version until the user answers.
                out.say = out.conflict.question(language)
                self.awaiting = Awaiting("conflict", conflict=out.conflict)
            elif out.conflict is not None:
                out.notes.append(f"This updates what the user said before (\"{out.conflict.old.text}\").")
        held = {out.conflict.old.id} if out.conflict and out.conflict.risk == HIGH_RISK else set()
        # touch=False: access counts are a write, done after the reply (`after_reply_now`).
        result = self.retriever.retrieve(text, k=self.options.recall_k + 3, touch=False, query_vector=vector)
        # Only what the user said or accepted: a proposed plan is the agent's own words.
        items = [m for m in result.memories
                 if m.record.session_id != session_id and m.record.id not in held
                 and (m.record.source != "plan" or m.record.context.get("status") == "accepted")]
        out.recalled = [m.record.text for m in items[: self.options.recall_k]]
        out.reflections = [m.record.text for m in result.reflections[:1]]      # the second channel
        out.used = [m.record.id for m in items[: self.options.recall_k] + result.reflections[:1]]
        if schema is not None:
            out.exact = self.exact_answer(text, schema, language)
        if PAST_CUES.search(text) or time_window(text, now):
            summaries = self.pyramid.load().render(self.options.summary_chars)
            if summaries:
                out.notes.append("Earlier sessions (summaries, newest first):\n" + summaries)
        return out

    def _answer_words(self, awaiting: Awaiting, yes: bool, language: str) -> tuple[str | None, str]:
        if awaiting.kind == "conflict" and awaiting.conflict is not None:
            new, old = awaiting.conflict.new_text, awaiting.conflict.old.text
            return (say("conflict.updated", language, new=new) if yes else say("conflict.kept", language, old=old)), ""
        plan = self.stream.get(awaiting.memory_id)
        what = plan.text if plan else "the suggestion"
        return None, (f"The user accepted your suggestion ({what}); go ahead with it." if yes
                      else f"The user declined your suggestion ({what}); ask what they would prefer.")

    async def before_reply(self, text: str, *, session_id: str, turn_class: str,
                           schema: DomainSchema | None = None, language: str = "en") -> BeforeReply:
        """Everything long-term memory adds to this reply — never longer than the budget."""
        started = time.perf_counter()
        try:
            async with self._lock:
                out = await asyncio.wait_for(
                    asyncio.to_thread(self._prepare, text, session_id, turn_class, schema, language),
                    self.options.budget_ms / 1000)
        except TimeoutError:
            out = BeforeReply(timed_out=True)
        out.ms = (time.perf_counter() - started) * 1000
        return out

    async def recall(self, query: str, *, exclude_session: str = "") -> tuple[list[str], float, bool]:
        """(memory texts, ms spent, timed out) — recall alone, within the budget."""
        out = await self.before_reply(query, session_id=exclude_session, turn_class="chit_chat")
        return out.recalled, out.ms, out.timed_out

    # --- writing (background) ----------------------------------------------------------

    def after_reply_now(self, before: BeforeReply, text: str, *, session_id: str, turn: int, turn_class: str,
                        reply_text: str = "", working: WorkingMemory | None = None) -> list[str]:
        """Apply what this turn changes; returns the ids written. Blocking: run off the loop."""
        written: list[str] = []
        evidence = [f"{session_id}:{turn}"]
        self.stream.touch(before.used)
        if before.answered is not None:
            self._settle(*before.answered, text, session_id, evidence)
        # An answer to a contradiction question settles it; it says nothing new to remember.
        answered_conflict = before.answered is not None and before.answered[0].kind == "conflict"
        if before.travel is not None:
            old = before.travel.item
            new = self.stream.add(before.travel.new_text, source="user_stated", importance=max(old.importance, 6),
                                  evidence=old.evidence + evidence, session_id=session_id,
                                  context={"revises": old.id}, merge=False)
            self.stream.supersede(old, new, f"changed on the user's request: \"{text}\"", session_id)
            written.append(new.id)
        elif worth_remembering(text, turn_class) and not answered_conflict:
            written += self._remember(text, before.conflict, session_id, evidence)
        for promise in PROMISE_CUES.findall(reply_text or ""):
            self.profiles.add_commitment(self.user_id, session_id, promise.strip(), self.clock())
        holding = self.awaiting is not None and self.awaiting.kind == "conflict"
        if working is not None and turn_class == "information_change" and not holding:
            self.refresh_profile_now(working)     # a contradiction being asked about waits for the answer
        return written

    def refresh_profile_now(self, working: WorkingMemory) -> int:
        """An important change — a lasting preference set or withdrawn — reaches the
        profile at once, not only at the end of the session (L8); returns audit entries."""
        state, schema = working.state, working.schema
        profile = self.profiles.load(self.user_id)
        live = {slot: c for slot, c in state.constraints.items() if schema.key(c.key).durable and c.status == "active"}
        withdrawn = {c.slot.split(":")[0] for c in working.history() if c.action == "withdrawn"}
        unchanged = all(slot in profile.facts and profile.facts[slot].value == c.value
                        and profile.facts[slot].comparator == c.comparator for slot, c in live.items())
        if unchanged and not any(f.key in withdrawn and s not in live for s, f in profile.facts.items()):
            return 0
        now = self.clock()
        audit = update_profile(profile, state, schema, withdrawn, now=now)
        self.profiles.save(profile, audit, at=now)
        return len(audit)

    def context_now(self) -> dict[str, Any]:
        moment = dt.datetime.fromtimestamp(self.clock())
        hour = moment.hour
        part = "morning" if 5 <= hour < 12 else "afternoon" if hour < 17 else "evening" if hour < 22 else "night"
        return {"time_of_day": part, "weekday": moment.strftime("%A").lower(), **self.situation}

    def _remember(self, text: str, conflict: Conflict | None, session_id: str, evidence: list[str]) -> list[str]:
        record = self.stream.add(text, source="user_stated", session_id=session_id, evidence=evidence,
                                 merge=conflict is None, context=self.context_now())
        if conflict is not None and conflict.old.id != record.id:
            if conflict.risk == HIGH_RISK:
                record.held = True
                self.stream.save(record, f"held: contradicts \"{conflict.old.text}\"; the user was asked",
                                 session_id)
                if self.awaiting is not None and self.awaiting.conflict is conflict:
                    self.awaiting.memory_id = record.id
                elif self.awaiting is None:
                    self.awaiting = Awaiting("conflict", record.id, conflict)
            elif conflict.risk == PREFERENCE:
                self.stream.supersede(conflict.old, record, "preference updated; the earlier one is kept as history",
                                      session_id)
            else:
                self.stream.supersede(conflict.old, record, "factual correction; the earlier statement is kept "
                                      "as a misstatement", session_id, misstatement=True)
        if conflict is None and record.merged == 1:
            self._to_consolidate.append(record.id)   # scored (if the rules abstained) and judged at session end
        if self.reflector.event_due(record):
            self.reports.append(self.reflector.reflect("event", session_id))
        return [record.id]

    def _settle(self, awaiting: Awaiting, yes: bool, text: str, session_id: str, evidence: list[str]) -> None:
        if awaiting.kind == "plan":
            if yes:
                self.planner.accept(awaiting.memory_id, session_id)
            else:
                self.planner.reject(awaiting.memory_id, text, session_id)
            return
        conflict = awaiting.conflict
        if conflict is None:
            return
        new = self.stream.get(awaiting.memory_id) if awaiting.memory_id else None
        if new is None:       # the held statement was not written (yet): write it now
            new = self.stream.add(conflict.new_text, source="user_stated", session_id=session_id, evidence=evidence,
                                  merge=False)
        if yes:
            new.held = False
            new.confirmed = True
            self.stream.save(new, "the user confirmed the change", session_id)
            self.stream.supersede(conflict.old, new, "high-risk correction confirmed by the user; the earlier "
                                  "statement is kept as a misstatement", session_id, misstatement=True)
        else:
            conflict.old.confirmed = True
            self.stream.save(conflict.old, "the user confirmed the earlier statement", session_id)
            new.held = False
            self.stream.supersede(new, conflict.old, "the user kept the earlier statement", session_id,
                                  misstatement=True)

    async def after_reply(self, before: BeforeReply, text: str, *, session_id: str, turn: int, turn_class: str,
                          reply_text: str = "", working: WorkingMemory | None = None) -> None:
        """The background half of a turn. A failure is reported and the work kept to retry
        with the next turn and at the end of the session: an acknowledged turn is not lost."""
        job = (before, text, dict(session_id=session_id, turn=turn, turn_class=turn_class, reply_text=reply_text,
                                  working=working))
        async with self._lock:
            await self._run_jobs(self._retry + [job])
        answered = before.answered
        if working is not None and answered and answered[0].kind == "conflict" and answered[0].conflict \
                and not answered[1]:
            # "No, I still am": the earlier statement stands, in this session's state too.
            await working.update(answered[0].conflict.old.text, turn=turn, turn_class="information_change")

    async def _run_jobs(self, jobs: list[tuple[BeforeReply, str, dict[str, Any]]]) -> None:
        self._retry = []
        for before, text, kwargs in jobs:
            try:
                await asyncio.to_thread(self.after_reply_now, before, text, **kwargs)
            except Exception as exc:
                self.failed_writes.append(f"turn {kwargs['turn']}: {type(exc).__name__}: {exc}")
                self._retry.append((before, text, kwargs))

    # --- sessions ----------------------------------------------------------------------

    async def start_session(self, memory: WorkingMemory | None, session_id: str = "") -> str:
        """Load the profile into a fresh session's state, run the pre-conversation checks,
        reflect if the schedule says so, and return the opening line (with a plan)."""
        if self.llm is not None:
            self.llm.bind(asyncio.get_running_loop())
        session_id = session_id or (memory.session_id if memory else "")
        profile = await asyncio.to_thread(self.profile)
        schema = memory.schema if memory else None
        if memory is not None and profile.facts:
            await memory.seed(seed_operations(profile), "Loaded from the profile, to confirm: "
                              + ", ".join(f"{f.key} {f.comparator} {f.value}" for f in profile.facts.values()))
        if schema is None:
            from monologue.memory.domain.schema import load_schema

            schema = load_schema("restaurant")
        language = memory.options.language if memory else "en"
        async with self._lock:
            line = await asyncio.to_thread(self._open, profile, schema, language, session_id)
        if self.reflector.scheduled_due(profile.last_session.get("reflected_at"), self.clock()):
            self.spawn(self._reflect_later("scheduled", session_id))
        return line

    async def _reflect_later(self, trigger: str, session_id: str) -> None:
        async with self._lock:
            try:
                self.reports.append(await asyncio.to_thread(self.reflector.reflect, trigger, session_id))
            except Exception as exc:     # reported; the next schedule tries again
                self.reports.append(ReflectionReport(trigger, errors=[f"{type(exc).__name__}: {exc}"]))

    def _open(self, profile: UserProfile, schema: DomainSchema, language: str, session_id: str) -> str:
        now = self.clock()
        self.stream.maintain()
        self.checks = run_checks(self.profiles, self.stream, now, profile=profile)
        parts = [opening_line(profile, schema, language, now=now)]
        parts += self.checks.lines(language)
        for promise in self.checks.promises[:1]:
            self.profiles.keep_commitment(self.user_id, promise["id"], now)
        goal = profile.last_session.get("goal") or ""
        plan: Plan | None = self.planner.propose(goal, session_id, language) if goal else None
        if plan is not None:
            parts.append(plan.spoken(language))
            self.awaiting = Awaiting("plan", plan.record.id)
        return " ".join(p.strip() for p in parts if p)

    def consolidate(self, session_id: str, max_calls: int = 10) -> dict[str, int]:
        """Session-end work that needs the LLM (blocking; off any voice turn): importance
        for what the rules could not score, the contradiction judge for this session's new
        memories, and the scheduled reflection worded by the LLM. Each call is bounded;
        a failure leaves the rule result in place."""
        done = {"scored": 0, "judged": 0, "conflicts": 0}
        pending, self._to_consolidate = self._to_consolidate, []
        if self.llm is None:
            return done
        calls = 0
        for memory_id in pending:
            record = self.stream.get(memory_id)
            if record is None or not record.current or calls >= max_calls:
                continue
            scored = None
            if rule_importance(record.text) is None:
                calls += 1
                scored = self.llm.importance(record.text)
            if scored is not None and scored != record.importance:
                before = record.importance
                record.importance = scored
                record.expires_at = self.stream.retention.expires_at(scored, record.created_at)
                self.stream.save(record, f"importance {before} → {scored} (scored by the LLM)", session_id)
                done["scored"] += 1
            records, vectors = self.stream.records()
            # Only what was said before it can be contradicted by it.
            others = [i for i, r in enumerate(records) if r.id != record.id and r.created_at < record.created_at]
            if calls >= max_calls or not others:
                continue
            vector = self.stream.vector_of(record)
            conflict = find_conflict(record.text, vector, [records[i] for i in others], vectors[others],
                                     judge=self.llm.contradicts)
            done["judged"] += 1
            calls += 1
            if conflict is not None:
                done["conflicts"] += 1
                if conflict.risk == HIGH_RISK:
                    record.held = True          # asked about before the next conversation (open to-dos)
                    self.stream.save(record, f"held: contradicts \"{conflict.old.text}\" (LLM judge)", session_id)
                else:
                    self.stream.supersede(conflict.old, record, f"{conflict.risk} updated (LLM judge)", session_id,
                                          misstatement=conflict.risk != PREFERENCE)
        return done

    async def end_session(self, memory: WorkingMemory | None, session_id: str = "") -> int:
        """Fold the session into the profile and the summary pyramid; returns audit entries written."""
        await self.drain()
        if self._retry:
            async with self._lock:
                await self._run_jobs(self._retry)
        session_id = session_id or (memory.session_id if memory else "")

        def run() -> int:
            self.consolidate(session_id)
            if self.llm is not None and any(r.trigger == "scheduled" for r in self.reports):
                # The day's scheduled reflection ran with rule wording at session start;
                # new patterns found now get the LLM's words.
                self.reflector.insight = self.llm.insight
                self.reports.append(self.reflector.reflect("scheduled", session_id))
                self.reflector.insight = None
            now = self.clock()
            written = 0
            profile = self.profiles.load(self.user_id)
            if memory is not None and memory.state.version:
                state = memory.state
                withdrawn = {c.slot.split(":")[0] for c in memory.history() if c.action == "withdrawn"}
                audit = update_profile(profile, state, memory.schema, withdrawn, now=now)
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
            language = memory.options.language if memory else "en"
            self.pyramid.add_session(session_id, session_summary(profile.last_session, said, language), now)
            return written

        async with self._lock:
            return await asyncio.to_thread(run)

    def spawn(self, coro: Any) -> None:
        """Run background memory work, kept referenced until it finishes."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain(self) -> None:
        if self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
