"""Applying operations to the state (seed 000 §4.2): the only way the state changes.

Each operation names what it touches, so a turn can never drop a condition it did not
mention ("the pit" of wholesale rewrites). A new value for a condition replaces the old
one with a recorded reason, or — when the turn is ambiguous — is asked about first
(§3.2); conditions not mentioned for a while fall back to "to confirm" and then leave
the live state; every change is recorded with its reason and turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from monologue.memory.domain.schema import DomainSchema, KeySpec
from monologue.memory.language.phrases import say
from monologue.memory.working.render import spoken_value
from monologue.memory.working.state import (
    MAX_PENDING,
    Change,
    ChangeAction,
    Comparator,
    Condition,
    ConditionStatus,
    OfferedOption,
    Operation,
    OpSource,
    PendingQuestion,
    QuestionKind,
    SessionState,
    describe_condition,
    slot_of,
)


@dataclass
class Applied:
    state: SessionState
    changes: list[Change]
    clarify: str = ""                   # a question to ask instead of answering (W8)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


class _Applier:
    def __init__(self, state: SessionState, schema: DomainSchema, turn: int, asr_confidence: float | None,
                 now: float, language: str) -> None:
        self.state = state
        self.schema = schema
        self.turn = turn
        self.confidence = asr_confidence
        self.now = now
        self.language = language
        self.changes: list[Change] = []
        self.mentioned: set[str] = set()

    def record(self, action: ChangeAction, slot: str, before: Any = None, after: Any = None, reason: str = "") -> None:
        self.changes.append(Change(self.state.version + 1, self.turn, action, slot, before, after, reason, self.now))

    def ask(self, kind: QuestionKind, question: str, key: str = "", candidate: dict[str, Any] | None = None) -> None:
        # One open question per key: a newer one replaces the older.
        for old in [p for p in self.state.pending if key and p.key == key]:
            self.state.pending.remove(old)
            self.record(ChangeAction.QUESTION_REPLACED, f"pending:{old.id}", old.question, question)
        pending = PendingQuestion(self.state.next_question_id, kind, question, key, self.turn, candidate)
        self.state.next_question_id += 1
        self.state.pending.append(pending)
        self.record(ChangeAction.ASKED, f"pending:{pending.id}", None, question, kind)
        while len(self.state.pending) > MAX_PENDING:
            dropped = self.state.pending.pop(0)
            self.record(ChangeAction.QUESTION_DROPPED, f"pending:{dropped.id}", dropped.question, None,
                        "too many open questions")

    def resolve(self, pending: PendingQuestion, reason: str) -> None:
        if pending in self.state.pending:
            self.state.pending.remove(pending)
            self.record(ChangeAction.RESOLVED, f"pending:{pending.id}", pending.question, None, reason)

    def apply(self, op: Operation) -> None:
        getattr(self, f"_op_{op.op}")(op)

    # --- operations -------------------------------------------------------------------

    def _op_set_goal(self, op: Operation) -> None:
        goal = str(op.value or op.words).strip()
        if goal and goal != self.state.goal:
            self.record(ChangeAction.GOAL, "goal", self.state.goal or None, goal, op.reason or "user stated the goal")
            self.state.goal = goal

    def _op_note_action(self, op: Operation) -> None:
        self.state.last_turn_action = str(op.value or op.words)

    def _op_set(self, op: Operation) -> None:
        spec: KeySpec = self.schema.key(op.key)
        comparator = op.comparator if op.comparator != Comparator.EQ else Comparator(spec.default_op)
        slot = slot_of(op.key, op.value, spec.multi)
        new = Condition(op.key, comparator, op.value, op.words, self.turn, self.confidence,
                        last_mentioned=self.turn, multi=spec.multi)
        self.mentioned.add(slot)
        waiting = [p for p in self.state.pending
                   if p.key == op.key and p.kind in (QuestionKind.CONFLICT, QuestionKind.CLARIFY, QuestionKind.OPEN)]
        existing = self.state.constraints.get(slot)
        if existing is None:
            self.state.constraints[slot] = new
            self.record(ChangeAction.ADDED, slot, None, describe_condition(new), op.reason or "user stated it")
            for pending in waiting:
                self.resolve(pending, "answered")
            return
        same = existing.value == new.value and existing.comparator == new.comparator
        if same:
            existing.last_mentioned = self.turn
            existing.words = op.words or existing.words
            if existing.status != ConditionStatus.ACTIVE:
                existing.status = ConditionStatus.ACTIVE
                self.record(ChangeAction.REAFFIRMED, slot, ConditionStatus.TO_CONFIRM, ConditionStatus.ACTIVE,
                            "user mentioned it again")
            for pending in waiting:
                self.resolve(pending, "user restated the same value")
            return
        # A new value replaces the old one (with the reason recorded) unless the turn is
        # ambiguous: said with a hedge ("maybe six?") or overriding something the user
        # had confirmed without saying it is a correction. Then it is asked about first.
        # A control's new value is a new command (座椅往前, after 往后): carried out, not asked about.
        # (The agent just asked for this key's new value, "能改一下人数吗" → "一共几位？": the answer is it.)
        asked_anew = self.state.last_act.act == "ask" and self.state.last_act.key == op.key
        ambiguous = not op.correction and not waiting and (op.hedged or existing.confirmed) \
            and not self.schema.is_control(op.key) and not asked_anew
        if ambiguous and new.comparator == Comparator.NE and existing.comparator == Comparator.EQ \
                and new.value == existing.value:
            # "别火车站了" with the station set, and no other place said: it is taken back, not asked
            # about as "you said the station, now not the station: change it to the station?".
            del self.state.constraints[slot]
            self.record(ChangeAction.WITHDRAWN, slot, describe_condition(existing), None, "user refused the value held")
            return
        if not ambiguous:
            before = describe_condition(existing)
            self.state.previous[slot] = existing.value   # "the earlier time" refers to it
            self.state.constraints[slot] = new
            reason = op.reason or ("user corrected it" if op.correction else
                                   "user answered the question" if waiting else "user gave a new value")
            self.record(ChangeAction.REPLACED, slot, before, describe_condition(new), reason)
            for pending in waiting:
                self.resolve(pending, "answered")
            return
        # The user may have changed their mind, or been misheard: keep the old value and ask.
        spec = self.schema.key(op.key)
        old_text = spoken_value(spec, existing.value, self.language)
        new_text = spoken_value(spec, new.value, self.language)
        label = spec.label(self.language)
        question = say("state.changed_question", self.language, old=old_text, new=new_text, label=label)
        candidate = dict(op.to_dict(), correction=True)
        self.ask(QuestionKind.CONFLICT, question, op.key, candidate)
        self.record(ChangeAction.MAYBE_CHANGED, slot, describe_condition(existing), describe_condition(new),
                    "user may have changed their mind: asked before writing")

    def _op_withdraw(self, op: Operation) -> None:
        targets = [c for c in self.state.find(op.key) if op.value in (None, "") or c.value == op.value]
        for condition in targets:
            del self.state.constraints[condition.slot]
            self.state.previous[condition.slot] = condition.value
            # Dropped at the agent's proposal (nothing fitted) is set aside for this task, not
            # taken back: a lasting preference behind it stays in the profile.
            action = ChangeAction.RELAXED if op.source == OpSource.RELAXED else ChangeAction.WITHDRAWN
            self.record(action, condition.slot, describe_condition(condition), None, op.reason or "user withdrew it")
        for pending in [p for p in self.state.pending if p.key == op.key]:
            self.resolve(pending, "condition withdrawn")

    def _op_confirm(self, op: Operation) -> None:
        pending = self._pending_for(op.key)
        if pending is not None and pending.candidate is not None:
            self.resolve(pending, "user said yes")
            self.apply(Operation.from_dict(pending.candidate, source=OpSource.CONFIRMED))
            candidate_key = pending.candidate.get("key", "")
            for condition in self.state.find(candidate_key):
                condition.confirmed = True
            return
        proposed: list[str] = []
        if pending is not None:
            self.resolve(pending, "user confirmed")
        elif self.state.proposal and not op.key:
            # "Yes" to the agent's read-back ("a table for 2 at 11:30 today?") takes its values.
            proposal, self.state.proposal = self.state.proposal, []
            for item in proposal:
                # Checked again as any written operation is (its key normalised, a set needs a value).
                self.apply(Operation.from_dict({**item.to_dict(), "correction": True}, source=OpSource.AGENT_PROPOSAL))
                proposed.append(item.key)
        # A yes confirms what it answers: the key it names, the question pending, the values
        # the agent proposed or, when the agent proposed nothing, what the user's previous
        # turn said ("make it six" — "yes, that's right"). It never confirms the whole state:
        # "ok thanks, have a nice day" after small talk confirms nothing.
        if op.key:
            targets = self.state.find(op.key)
        elif pending is not None:
            targets = self.state.find(pending.key) if pending.key else []
        elif proposed:
            targets = [c for c in self.state.constraints.values() if c.key in proposed]
        else:
            targets = [c for c in self.state.constraints.values()
                       if c.last_mentioned == self.state.turn and self.state.turn > 0]
        for condition in targets:
            condition.last_mentioned = self.turn
            self.mentioned.add(condition.slot)
            if condition.status != ConditionStatus.ACTIVE:
                condition.status = ConditionStatus.ACTIVE
            if not condition.confirmed:
                condition.confirmed = True
                self.record(ChangeAction.CONFIRMED, condition.slot, None, describe_condition(condition),
                            "user confirmed")

    def _op_later(self, op: Operation) -> None:
        words = str(op.value or "").strip()
        if words and words not in self.state.later:
            self.state.later.append(words)
            self.record(ChangeAction.LATER, "later", None, words, op.reason or "asked for while the task was under way")
        elif not words and self.state.later:
            self.record(ChangeAction.LATER, "later", "; ".join(self.state.later), None, op.reason or "taken up")
            self.state.later = []

    def _op_propose(self, op: Operation) -> None:
        # An operation's value is plain data (as an LLM or a trace writes it): each item a stored operation.
        self.state.proposal = [Operation.stored(item) for item in op.value or []]

    def _op_offer(self, op: Operation) -> None:
        self.state.offered = [OfferedOption.from_dict(option) for option in op.value or []]

    def _op_reject(self, op: Operation) -> None:
        self.state.proposal = []
        pending = self._pending_for(op.key)
        if pending is not None:
            self.resolve(pending, "user said no")

    def _op_ask(self, op: Operation) -> None:
        # An ask may carry the operation to apply if the user says yes (a clarification).
        candidate = op.value if isinstance(op.value, dict) else None
        if op.question:
            self.ask(QuestionKind.CLARIFY if candidate else QuestionKind.OPEN, op.question, op.key, candidate)

    def _op_resolve(self, op: Operation) -> None:
        for pending in [p for p in self.state.pending if not op.key or p.key == op.key]:
            self.resolve(pending, op.reason or "resolved")

    def _pending_for(self, key: str) -> PendingQuestion | None:
        candidates = [p for p in self.state.pending if not key or p.key == key]
        return candidates[-1] if candidates else None

    # --- every update compares all fields -------------------------------------------------

    def sweep(self, expire_after: int) -> None:
        """A value not mentioned for `expire_after` turns becomes "to confirm": still held (the
        policy never asks for it again), read back before the agent acts on it. It never
        leaves the state by age: only the user changes or withdraws what the user said
        (seed 000 §3.2: stale conditions are re-confirmed, not lost)."""
        if expire_after <= 0:
            return
        for slot, condition in list(self.state.constraints.items()):
            if slot in self.mentioned or condition.confirmed:
                continue  # confirmed conditions stay as they are until the user changes them
            idle = self.turn - condition.last_mentioned
            if idle >= expire_after and condition.status == ConditionStatus.ACTIVE:
                condition.status = ConditionStatus.TO_CONFIRM
                self.record(ChangeAction.TO_CONFIRM, slot, ConditionStatus.ACTIVE, ConditionStatus.TO_CONFIRM,
                            f"not mentioned for {idle} turns")


@dataclass(frozen=True)
class ApplyOptions:
    """How operations are applied: the session's settings, and the clock."""

    expire_after: int = 8            # turns unmentioned before a value is read back ("to confirm"); 0: never
    language: str = "en"             # the language of the questions a change asks back
    now: float | None = None         # when the changes happen (tests fix it); None: time.time()


def apply_operations(state: SessionState, ops: list[Operation], schema: DomainSchema, *, turn: int,
                     asr_confidence: float | None = None, options: ApplyOptions | None = None) -> Applied:
    """Apply `ops` to a copy of `state`; the original is never modified.

    An `Operation` is validated when it is built, so a malformed one never gets here.
    """
    options = options or ApplyOptions()
    now = time.time() if options.now is None else options.now
    applier = _Applier(state.copy(), schema, turn, asr_confidence, now, options.language)
    for op in ops:
        applier.apply(op)
    applier.sweep(options.expire_after)
    new = applier.state
    new.turn = turn
    if applier.changes or new.goal != state.goal or new.last_turn_action != state.last_turn_action:
        new.version = state.version + 1
        new.updated_at = applier.now
    for change in applier.changes:
        change.version = new.version
    return Applied(new, applier.changes)
