"""After the reply: what one turn changes in long-term memory.

Write the utterance, resolve a contradiction by its risk, apply a time-travel change,
settle the user's answer to a question (a plan, a forget, an erase, a contradiction),
record the agent's promises, reflect when an event calls for it, and bring a lasting
change to the profile at once.
"""

from __future__ import annotations

from monologue.memory.language.cues import PROMISE_CUES
from monologue.memory.language.memory_cues import SHARED
from monologue.memory.longterm.commands import read_command
from monologue.memory.longterm.conflicts import HIGH_RISK, PREFERENCE, Conflict
from monologue.memory.longterm.exchange import Awaiting, BeforeReply, SessionSnapshot
from monologue.memory.longterm.importance import remember_as
from monologue.memory.longterm.profile import forget_drawn_from, lasting_conditions, update_profile
from monologue.memory.longterm.records import MemoryKind
from monologue.memory.longterm.stream import AddOptions
from monologue.memory.longterm.user_memory import UserMemory
from monologue.memory.stores.journal import evidence_id
from monologue.memory.working.turn_classes import TurnClass


def restore_after(before: BeforeReply) -> str | None:
    """The earlier statement the user kept ("No, I still am"), which this session's
    state should hold again; None when the turn kept nothing."""
    if before.answered is None:
        return None
    awaiting, yes = before.answered
    if awaiting.kind != "conflict" or awaiting.conflict is None or yes:
        return None
    return awaiting.conflict.old.text


class Writing(UserMemory):
    """The core's writes after each reply (`after_reply`), and erasing the user (U1)."""

    def after_reply(self, before: BeforeReply, text: str, *, session_id: str, turn: int, turn_class: str,
                    reply_text: str = "", session: SessionSnapshot | None = None) -> list[str]:
        """Apply what this turn changes; returns the ids written.

        `session`: the session's state after this turn, when the caller has it: a
        lasting change reaches the profile at once (L8)."""
        written: list[str] = []
        evidence = [evidence_id(session_id, turn)]
        if before.answered is not None:
            self._settle(*before.answered, text, session_id, evidence)
        if before.command is not None or read_command(text) is not None \
                or (session_id and session_id in self.no_history):
            return written      # a command is not a fact about the user; off the record, nothing is
        self.stream.touch(before.used)
        # An answer to a contradiction question settles it; it says nothing new to remember.
        answered_conflict = before.answered is not None and before.answered[0].kind == "conflict"
        if before.travel is not None:
            old = before.travel.item
            new = self.stream.add(before.travel.new_text, source="user_stated",
                                  evidence=old.evidence + evidence, session_id=session_id,
                                  context={"revises": old.id},
                                  options=AddOptions(importance=max(old.importance, 6), merge=False))
            self.stream.supersede(old, new, f"changed on the user's request: \"{text}\"", session_id)
            written.append(new.id)
        elif not answered_conflict:
            written += self._said(text, turn_class, before.conflict, session_id, evidence)
        for promise in PROMISE_CUES.findall(reply_text or ""):
            self.profiles.add_commitment(self.user_id, session_id, promise.strip(), self.clock())
        holding = self.awaiting is not None and self.awaiting.kind == "conflict"
        if session is not None and turn_class == TurnClass.INFORMATION_CHANGE and not holding:
            self.refresh_profile(session)     # a contradiction being asked about waits for the answer
        return written

    def _said(self, text: str, turn_class: str, conflict: Conflict | None, session_id: str,
              evidence: list[str]) -> list[str]:
        """Keep what the user said, where it belongs: the household's when stated as shared,
        the user's own otherwise (a request as an event); returns the ids written."""
        kind = remember_as(text, turn_class)
        shared = SHARED.search(text) is not None
        if kind is MemoryKind.MEMORY and self.shared is not None and shared:
            # Stated as shared by a member: the household's, read by every member's recall.
            return [self.shared.add(text, source="user_stated", session_id=session_id, evidence=evidence,
                                    context=self.context_now()).id]
        if not self.speaker_known and not shared:
            return []       # an unknown speaker's personal words belong to nobody here: not kept
        if kind is MemoryKind.MEMORY:
            return self._remember(text, conflict, session_id, evidence)
        if kind is MemoryKind.EVENT:        # a request: kept a week, merged when repeated, never a fact
            return [self.stream.add(text, source="user_stated", kind=kind, session_id=session_id,
                                    evidence=evidence, context=self.context_now()).id]
        return []

    def wrote(self, evidence: str) -> bool:
        """Whether a memory (the user's or the household's) cites this turn: its writes landed."""
        streams = [self.stream, *([self.shared] if self.shared is not None else [])]
        return any(evidence in r.evidence for stream in streams for r in stream.records()[0])

    def refresh_profile(self, session: SessionSnapshot) -> int:
        """An important change — a lasting preference set or withdrawn — reaches the
        profile at once, not only at the end of the session (L8); returns audit entries."""
        if not self.speaker_known:
            return 0
        state, schema, withdrawn = session.state, session.schema, session.withdrawn
        profile = self.profiles.load(self.user_id)
        live = lasting_conditions(state, schema, self.forgotten)
        unchanged = all(slot in profile.facts and profile.facts[slot].value == c.value
                        and profile.facts[slot].comparator == c.comparator for slot, c in live.items())
        if unchanged and not any(f.key in withdrawn and s not in live for s, f in profile.facts.items()):
            return 0
        now = self.clock()
        earlier = profile.last_session
        audit = update_profile(profile, state, schema, withdrawn, now=now, forgotten=self.forgotten)
        if earlier.get("id") != state.session_id:
            # This session is not the "last" one until it ends: "what did I book last
            # time?" asked now is about the one before.
            profile.last_session = earlier
        self.profiles.save(profile, audit, at=now)
        return len(audit)

    def _remember(self, text: str, conflict: Conflict | None, session_id: str, evidence: list[str]) -> list[str]:
        record = self.stream.add(text, source="user_stated", session_id=session_id, evidence=evidence,
                                 context=self.context_now(), options=AddOptions(merge=conflict is None))
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
        """The user's yes or no to the question the agent asked on the previous turn."""
        if awaiting.kind == "forget":
            if yes:
                self._forget(awaiting.memory_ids, session_id)
        elif awaiting.kind == "erase":
            if yes:
                self.erase()
                # What this session holds came partly from what was just erased (the
                # state seeded from the profile): none of it is written back.
                self.no_history.add(session_id)
        elif awaiting.kind == "plan":
            if yes:
                self.planner.accept(awaiting.memory_id, session_id)
            else:
                self.planner.reject(awaiting.memory_id, text, session_id)
        elif awaiting.conflict is not None:
            self._settle_conflict(awaiting.conflict, awaiting.memory_id, yes, session_id, evidence)

    def _forget(self, memory_ids: tuple[str, ...], session_id: str) -> None:
        """Forget these memories, what was derived from them, and the profile's values drawn from them."""
        said = [(r.text, r.session_id) for i in memory_ids if (r := self.stream.get(i)) is not None]
        self.forgotten += said
        self.stream.forget_with_derived(list(memory_ids), session_id)
        profile = self.profiles.load(self.user_id)
        audit = forget_drawn_from(profile, said, session_id)
        if audit:
            self.profiles.save(profile, audit, at=self.clock())

    def _settle_conflict(self, conflict: Conflict, held_id: str, yes: bool, session_id: str,
                         evidence: list[str]) -> None:
        """A high-risk contradiction answered: the new statement replaces the old on a yes,
        and is kept only as a misstatement on a no. `held_id`: the new statement, held since
        it was said ("" when it was not written)."""
        new = self.stream.get(held_id) if held_id else None
        if new is None:       # the held statement was not written (yet): write it now
            new = self.stream.add(conflict.new_text, source="user_stated", session_id=session_id, evidence=evidence,
                                  options=AddOptions(merge=False))
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

    def erase(self) -> int:
        """Forget the user entirely (U1): every memory and its vector, the profile, summaries,
        commitments and the audit log (a content-free tombstone stays). Returns the memories
        erased; the sessions' states and files are listed in `erased_sessions`."""
        self.erased_sessions += self.profiles.sessions_of(self.user_id)
        count = self.stream.erase()
        self.profiles.erase(self.user_id, keep_sessions=True)   # the index goes once states and files have
        self.awaiting, self._to_consolidate, self.reports = None, [], []
        return count
