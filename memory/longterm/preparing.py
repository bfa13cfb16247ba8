"""Before a reply: what long-term memory adds to it, and the question left open after it.

Recall what earlier sessions remember, answer exact questions from records, find the plan a
"last week" request names, notice a contradiction with what the user said before (a
high-risk one is asked about instead of answered), settle a question asked on the previous
turn, and hear a memory command ("forget my address"). Reads only: work abandoned at the
latency budget must leave memory as it found it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import PAST_CUES, yes_or_no
from monologue.memory.language.memory_cues import NAME_QUESTION, introduced_name
from monologue.memory.language.numbers import time_window
from monologue.memory.language.phrases import say
from monologue.memory.longterm.answers import about_user, has_topic, memory_answer, name_answer
from monologue.memory.longterm.commands import (
    command_language,
    forget_question,
    last_said,
    listing_words,
    matching,
    read_command,
    remembered,
)
from monologue.memory.longterm.conflicts import HIGH_RISK, find_conflict, quoted
from monologue.memory.longterm.exchange import Awaiting, BeforeReply, Prepared, Recalled
from monologue.memory.longterm.household import is_household
from monologue.memory.longterm.importance import worth_remembering
from monologue.memory.longterm.records import MemoryKind, MemoryRecord
from monologue.memory.longterm.retrieval import Retrieved
from monologue.memory.longterm.timetravel import match as time_travel_match
from monologue.memory.longterm.user_memory import UserMemory


@dataclass(frozen=True)
class _Command:
    """What a memory command leaves: a question awaiting the user's yes, and whether the
    session is off the record from now on."""
    awaiting: Awaiting | None
    no_history: bool


@dataclass(frozen=True)
class _Turn:
    """One turn as `prepare` reads it: what was said, where, and the user's memories this
    speaker may see (with their vectors, row for row)."""
    text: str
    session_id: str
    turn_class: str
    schema: DomainSchema | None
    language: str
    now: float
    records: list[MemoryRecord]
    vectors: np.ndarray


class Preparing(UserMemory):
    """The core's reading before each reply (`prepare`); changes nothing."""

    def prepare(self, text: str, *, session_id: str, turn_class: str, schema: DomainSchema | None,
                language: str, awaiting: Awaiting | None) -> Prepared:
        """What long-term memory adds to this reply, and the question left open after it.

        Changes nothing (`awaiting` is the question open now; the caller keeps the one
        returned only if the reply used the result): work abandoned at the latency
        budget must leave memory as it found it."""
        now = self.clock()
        records, vectors = self.stream.records()
        out = BeforeReply(local_only=self._local_only(records))
        turn = _Turn(text, session_id, turn_class, schema, language, now, *self._readable(records, vectors))
        member = self._introduced_member(turn, awaiting, out)
        if member:
            return Prepared(out, awaiting, introduced=member)
        awaiting = self._take_answer(turn, awaiting, out)
        if out.answered is not None and out.answered[0].kind in ("forget", "erase"):
            return Prepared(out, None)      # the answer to a command: nothing to recall
        command = self._command(turn, out) if out.say is None else None
        if command is not None:
            return Prepared(out, command.awaiting if command.awaiting is not None else awaiting, command.no_history)
        if session_id and session_id in self.no_history:
            return Prepared(out, awaiting)      # off the record: nothing is recalled
        self._time_travel(turn, out)
        vector = self.stream.embed([text])[0] if self.stream.embed and text.strip() else None
        asked = self._contradiction(turn, vector, out)
        if asked is not None:
            awaiting = asked
        recalled = self._recall(turn, vector, out)
        self._answer(turn, recalled, out)
        self._summaries(turn, out)
        return Prepared(out, awaiting)

    def _local_only(self, records: list[MemoryRecord]) -> list[str]:
        """The user's and the household's local-only memories, to keep out of any prompt for a
        remote provider."""
        shared_records = self.shared.records()[0] if self.shared is not None else []
        return [r.text for r in [*records, *shared_records] if r.tier == "local_only" and not r.archived]

    def _readable(self, records: list[MemoryRecord], vectors: np.ndarray) -> tuple[list[MemoryRecord], np.ndarray]:
        """The memories this speaker may read, with their vectors."""
        if self.verified:
            return records, vectors
        # Known only by their word: their local-only memories stay out of this session.
        keep = [i for i, r in enumerate(records) if r.tier != "local_only"]
        return [records[i] for i in keep], vectors[keep]

    def _introduced_member(self, turn: _Turn, awaiting: Awaiting | None, out: BeforeReply) -> str:
        """The household member who said who they are ("it's Anna"), with the words to greet
        them in `out`; "" when nobody did (or somebody is already known to be speaking)."""
        if self.speaker_known or not self.members or awaiting is not None:
            return ""
        name = introduced_name(turn.text)
        member = next((m for m in sorted(self.members) if m.lower() == name.lower()), "") if name else ""
        if member:
            out.say = say("memory.introduced", command_language(turn.text, turn.language), name=name)
            out.command = {"kind": "introduce", "member": member}
        return member

    def _take_answer(self, turn: _Turn, awaiting: Awaiting | None, out: BeforeReply) -> Awaiting | None:
        """The user's yes or no to the question open now, with what to say to it in `out`;
        returns the question still open: an unanswered contradiction stays open (and held)
        for later, an unanswered plan, forget or erase does not."""
        if awaiting is None:
            return None
        answer = yes_or_no(turn.text)
        if answer is not None:
            out.answered = (awaiting, answer)
            out.say, note = self._answer_words(
                awaiting, answer, command_language(turn.text, turn.language) if awaiting.kind in ("forget", "erase")
                else turn.language)
            if note:
                out.notes.append(note)
        if answer is not None or awaiting.kind in ("plan", "forget", "erase"):
            return None
        return awaiting

    def _answer_words(self, awaiting: Awaiting, yes: bool, language: str) -> tuple[str | None, str]:
        """What to say to the user's answer (a settled contradiction, a forget or an erase
        confirmed or not), or a note for the reply's prompt (an accepted or declined plan)."""
        if awaiting.kind == "forget":
            return say("memory.forget.done" if yes else "memory.forget.kept", language), ""
        if awaiting.kind == "erase":
            return say("memory.erase.done" if yes else "memory.erase.kept", language), ""
        if awaiting.kind == "conflict" and awaiting.conflict is not None:
            new, old = quoted(awaiting.conflict.new_text), quoted(awaiting.conflict.old.text)
            return (say("conflict.updated", language, new=new) if yes else say("conflict.kept", language, old=old)), ""
        plan = self.stream.get(awaiting.memory_id)
        what = plan.text if plan else "the suggestion"
        return None, (f"The user accepted your suggestion ({what}); go ahead with it." if yes
                      else f"The user declined your suggestion ({what}); ask what they would prefer.")

    def _command(self, turn: _Turn, out: BeforeReply) -> _Command | None:
        """A memory command: the words for it in `out`, and what it leaves open. Reads only."""
        command = read_command(turn.text)
        if command is None:
            return None
        language = command_language(turn.text, turn.language)
        items = remembered(turn.records)
        awaiting: Awaiting | None = None
        if not self.speaker_known and command.kind in ("list", "forget", "forget_last", "erase"):
            # Nobody is known to be speaking: the household's memories are not one person's to
            # list, forget or erase by voice.
            out.say = say("memory.unknown_speaker", language)
            out.command = command.trace()
            return _Command(None, False)
        if not self.verified and command.kind in ("forget", "forget_last", "erase"):
            out.say = say("memory.unverified", language)
            out.command = command.trace()
            return _Command(None, False)
        if command.kind == "list":
            out.say = listing_words(items, language)
            out.listed = [r.text for r in items]
            out.listed_items = [Recalled(r.text, r.created_at, r.session_id, str(r.source), r.tier) for r in items]
        elif command.kind in ("forget", "forget_last"):
            chosen = (matching(command.topic, items, turn.schema, self._similarity(command.topic, turn.records))
                      if command.kind == "forget" else last_said(items, turn.session_id))
            if not chosen and (command.kind == "forget_last" or command.tentative):
                return None     # "forget that", "forget my window seat": the task's own words
            out.say = forget_question(chosen, language) if chosen else say("memory.forget.none", language)
            out.listed = [r.text for r in chosen]
            if chosen:
                awaiting = Awaiting("forget", memory_ids=tuple(r.id for r in chosen))
        elif command.kind == "erase":
            out.say = say("memory.erase.ask", language)
            awaiting = Awaiting("erase")
        else:
            out.say = say("memory.no_history", language)
        out.command = command.trace()
        return _Command(awaiting, command.kind == "no_history")

    def _similarity(self, text: str, records: list[MemoryRecord]) -> dict[str, float]:
        """Cosine similarity of `text` to each memory, by id (empty without an encoder)."""
        _, vectors = self.stream.records()
        if self.stream.embed is None or not records or vectors.shape[1] == 0:
            return {}
        sims = vectors @ self.stream.embed([text])[0]
        return {r.id: float(sims[i]) for i, r in enumerate(records)}

    def _time_travel(self, turn: _Turn, out: BeforeReply) -> None:
        """A change to a plan made in an earlier session ("move last week's dinner to 8"):
        confirmed in `out`, written after the reply."""
        if out.say is not None:
            return
        out.travel = time_travel_match(turn.text, turn.records, turn.now, turn.session_id)
        if out.travel is not None:
            out.say = out.travel.confirmation()

    def _contradiction(self, turn: _Turn, vector: np.ndarray | None, out: BeforeReply) -> Awaiting | None:
        """What this turn contradicts of what the user said before, in `out`; returns the
        question a high-risk contradiction opens (None otherwise)."""
        if out.say is not None or not worth_remembering(turn.text, turn.turn_class):
            return None
        out.conflict = find_conflict(turn.text, vector, turn.records, turn.vectors)
        if out.conflict is not None and out.conflict.risk == HIGH_RISK:
            # Ask and hold: the reply does not reason on either version until the user answers.
            out.say = out.conflict.question(turn.language)
            return Awaiting("conflict", conflict=out.conflict)
        if out.conflict is not None:
            out.notes.append(f"This updates what the user said before (\"{out.conflict.old.text}\").")
        return None

    def _recall(self, turn: _Turn, vector: np.ndarray | None, out: BeforeReply) -> list[Retrieved]:
        """The memories relevant to this turn (the user's and the household's, ranked together)
        and one reflection, in `out`; returns every memory this reply may use, best first."""
        held = {out.conflict.old.id} if out.conflict and out.conflict.risk == HIGH_RISK else set()
        # touch=False: access counts are a write, done after the reply (`after_reply`).
        result = self.retriever.retrieve(turn.text, k=self.options.recall_k + 3, touch=False, query_vector=vector)
        if self.shared_retriever is not None:
            # The household's memories beside the user's own, ranked together (each list is
            # scored on its own scale, normalised the same way).
            shared = self.shared_retriever.retrieve(turn.text, k=self.options.recall_k, touch=False,
                                                    query_vector=vector)
            result.memories = sorted([*result.memories, *shared.memories], key=lambda m: m.score, reverse=True)
        # Only what the user said or accepted: a proposed plan is the agent's own words.
        items = [m for m in result.memories
                 if m.record.session_id != turn.session_id and m.record.id not in held
                 and (self.verified or m.record.tier != "local_only" or is_household(m.record.user_id))
                 and (m.record.source != "plan" or m.record.context.get("status") == "accepted")]
        out.recalled = [m.record.text for m in items[: self.options.recall_k]]
        out.sources = [Recalled(m.record.text, m.record.created_at, m.record.session_id, str(m.record.source),
                                m.record.tier, "household" if is_household(m.record.user_id) else "personal")
                       for m in items[: self.options.recall_k]]
        # Reflections are drawn from the user's memories: an unverified speaker gets none that
        # the rules find local-only (an insight about a health need or an address).
        reflections = [m for m in result.reflections if self.verified or m.record.tier != "local_only"]
        out.reflections = [m.record.text for m in reflections[:1]]      # the second channel
        out.used = [m.record.id for m in items[: self.options.recall_k] + reflections[:1]]
        return items

    def _answer(self, turn: _Turn, recalled: list[Retrieved], out: BeforeReply) -> None:
        """What memory says to a question about the user or the past, in `out`: an exact
        answer from the records first, then the name they asked to be called by, then what
        they said."""
        if turn.schema is not None:
            out.exact = self.exact_answer(turn.text, turn.schema, turn.language)
        out.about_user = about_user(turn.text)
        named = self._name_answer(turn)
        if out.exact:
            out.answer = out.exact
        elif named:
            out.answer, out.about_user = named, True
        elif out.about_user:
            out.answer = self._what_they_said(turn, recalled)

    def _name_answer(self, turn: _Turn) -> str | None:
        """"What's my name?": the name the user asked to be called by, from any session, not
        the memories that happen to rank first. Only a name question reads every record:
        this runs before each reply."""
        if not NAME_QUESTION.search(turn.text):
            return None
        return name_answer(turn.text, [Recalled(r.text, r.created_at, r.session_id, str(r.source))
                                       for r in turn.records
                                       if r.current and r.kind == MemoryKind.MEMORY and r.source == "user_stated"],
                           turn.now)

    def _what_they_said(self, turn: _Turn, recalled: list[Retrieved]) -> str | None:
        """What the user said or was inferred about them: never a plan, and the latest
        earlier session's words for a question with no topic of its own."""
        said = [m.record for m in recalled if m.record.source in ("user_stated", "inferred")]
        if not has_topic(turn.text, turn.schema) and PAST_CUES.search(turn.text):
            earlier = [r for r in turn.records if r.session_id and r.session_id != turn.session_id and r.current
                       and r.kind == MemoryKind.MEMORY and r.source == "user_stated"]
            latest = max((r.created_at, r.session_id) for r in earlier)[1] if earlier else ""
            said = [r for r in earlier if r.session_id == latest]
        return memory_answer(turn.text, [Recalled(r.text, r.created_at, r.session_id, str(r.source)) for r in said],
                             turn.now, turn.schema)

    def _summaries(self, turn: _Turn, out: BeforeReply) -> None:
        """Earlier sessions' summaries, for a turn about the past, as a note for the reply."""
        if (PAST_CUES.search(turn.text) or time_window(turn.text, turn.now)) and self.verified:
            # Summaries mix every kind of memory: not for a speaker known only by their word.
            summaries = self.pyramid.load().render(self.options.summary_chars)
            if summaries:
                out.notes.append("Earlier sessions (summaries, newest first):\n" + summaries)
