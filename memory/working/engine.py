"""The working-memory engine: one session's state, updated turn by turn (seed 000).

    rules → (LLM for what is left) → explicit operations → conflict checks → expiry
    → compare-and-set commit → monologue

Knows nothing of frames or audio; the pipeline's monologue stage calls `update`.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from loguru import logger

from monologue.memory.domain.schema import DEFAULT_DOMAIN, DomainSchema
from monologue.memory.domain.several import Combined, DomainDetector, combine, domain_view, load_domains
from monologue.memory.language.phrases import say
from monologue.memory.stores.protocols import StateStore, VersionConflict
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.apply import Applied, ApplyOptions, apply_operations
from monologue.memory.working.extract import Extraction, RuleExtractor
from monologue.memory.working.grounding import Grounder, Rejected, ground_proposal
from monologue.memory.working.heard import respeller_for
from monologue.memory.working.llm_ops import JsonLLM, llm_operations
from monologue.memory.working.references import ReferenceResolver
from monologue.memory.working.render import (
    clarify_question,
    out_of_range_question,
    render_monologue,
    render_state,
    with_unit,
)
from monologue.memory.working.state import (
    ActionDone,
    AgentAct,
    Change,
    Comparator,
    ConditionStatus,
    InvalidOperation,
    OfferedOption,
    Op,
    Operation,
    OpSource,
    QuestionKind,
    SessionState,
    member_of,
    state_diff,
)
from monologue.memory.working.turn_classes import TurnClass

MAX_COMMIT_RETRIES = 30

LLMMode = Literal["auto", "always", "never"]


async def _back_off(attempt: int) -> None:
    """Jittered, growing pause after losing a compare-and-set race, so two writers that
    keep colliding fall out of step instead of retrying in lockstep."""
    await asyncio.sleep(random.uniform(0, min(0.002 * 2 ** attempt, 0.2)))


class UpdateWithdrawn(Exception):
    """An update whose utterance was withdrawn (`ready` said no) before anything was written."""


@dataclass(frozen=True)
class WorkingMemoryOptions:
    domain: str = DEFAULT_DOMAIN
    language: str = "en"
    expire_after_turns: int = 8
    llm_mode: LLMMode = "auto"        # auto: only when rules read nothing
    llm_timeout_secs: float = 20.0
    low_confidence: float = 0.45


MAX_ACTS_KEPT = 6      # the agent's recent acts the state keeps, for the dialogue policy


@dataclass
class UpdateResult:
    turn: int
    version: int
    state: SessionState
    monologue: str
    operations: list[Operation]
    diff: dict[str, Any]
    state_before: dict[str, Any]
    clarify: str = ""
    llm_used: bool = False
    llm_error: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    rejected: list[Rejected] = field(default_factory=list)   # operations grounding refused, with reasons

    def trace(self) -> dict[str, Any]:
        return {"text": self.monologue, "version": self.version,
                "operations": [op.to_dict() for op in self.operations],
                "rejected": [r.to_dict() for r in self.rejected],
                "state_before": self.state_before, "state_after": self.state.to_dict(),
                "diff": self.diff, "clarify": self.clarify, "llm_used": self.llm_used,
                "llm_error": self.llm_error, "timings_ms": self.timings_ms}


class WorkingMemory:
    """One session's working memory; safe to share between tasks of one event loop and,
    through the store's compare-and-set, between processes."""

    def __init__(self, session_id: str, store: StateStore | None = None,
                 options: WorkingMemoryOptions | None = None, llm: JsonLLM | None = None,
                 schema: DomainSchema | None = None) -> None:
        self.session_id = session_id
        self.store: StateStore = store or InMemoryStateStore()
        # "settings", not "options": here options are what a catalogue holds and the agent offers.
        self.settings = options or WorkingMemoryOptions()
        # One domain, or several ("restaurant+in_car") combined into one schema whose
        # keys stay apart; each turn is read by the rules of the domain it is about.
        self.domains: Combined = combine([schema]) if schema is not None else load_domains(self.settings.domain)
        self.schema = self.domains.schema
        self.detector = DomainDetector(self.domains.domains)
        self._rules = {d.name: RuleExtractor(d) for d in self.domains.domains}
        self.rules = self._rules[self.domains.domains[0].name]     # the first domain's rules
        self.grounder = Grounder(self.schema)
        self.references = ReferenceResolver(self.schema)
        self._seen: SessionState | None = None      # the state last loaded, for reads_condition
        self.llm = llm
        self._lock = asyncio.Lock()
        self._respellers = [respeller_for(d, self._rules[d.name].values_read) for d in self.domains.domains]

    def read_option_names(self, domain: str, key: str, names: Mapping[str, str]) -> None:
        """The names of the options `domain`'s catalogue offers, read as `key`'s value (each
        way an option is named → the value kept): see `RuleExtractor.read_option_names`."""
        if domain in self._rules:
            self._rules[domain].read_option_names(key, names)

    @property
    def state(self) -> SessionState:
        """The latest committed state (a fresh copy)."""
        state = self.store.load(self.session_id) or SessionState(self.session_id, domain=self.domains.domains[0].name)
        self._seen = state
        return state

    def extract(self, text: str, state: SessionState | None,
                turn_class: str = TurnClass.INFORMATION_CHANGE) -> tuple[Extraction, str]:
        """The rules' reading of `text`, by the rules of the domain it is about, with keys
        named as the combined schema names them; and that domain."""
        current = state.domain if state is not None else ""
        domain = self.detector.detect(text, current)
        if len(self.domains.domains) == 1:
            return self._rules[domain].extract(text, state, turn_class), domain
        view = None
        if state is not None:
            view = domain_view(self.domains, state, domain)
            if domain != current:
                view.goal = ""        # a new domain is a new task: its goal is read afresh
        extraction = self._rules[domain].extract(text, view, turn_class)
        extraction.operations = [replace(op, key=self.domains.qualified(domain, op.key)) if op.key else op
                                 for op in extraction.operations]
        return extraction, domain

    def respell(self, text: str) -> str | None:
        """A Chinese transcript with the domains' words written as they write them, where the ASR
        wrote them by sound and the rules read more so (打开做一家热 → 打开座椅加热); None to keep
        it as heard (`heard.py`)."""
        return next((r for respell in self._respellers if (r := respell(text)) is not None), None)

    def reads_condition(self, text: str) -> bool:
        """Whether `text` would change a slot, read as the update would read it: rules,
        references to the state ("from six to nine", "the other one") and grounding. For
        the turn classifier; uses the state this engine last saw, so it never blocks on
        the store."""
        state = self._seen or SessionState(self.session_id, domain=self.domains.domains[0].name)
        extraction = self.extract(text, state)[0]
        if extraction.ask_back or extraction.beyond_range or extraction.two_ways:
            return True     # "车里有点冷" with no temperature held, "set it to 72": asked back, not small talk
        ops = self.references.resolve(text, state, list(extraction.operations))
        kept = self.grounder.check(ops, text, state).kept
        # A longer yes or no to an offer the agent made answers it too ("Alright, that seems
        # good. I would like to make a booking at this restaurant."); a short one the
        # classifier calls a confirmation itself.
        answers_offer = (state.proposal or state.offered) and not self.rules.is_bare_answer(text)
        # A bare "today" is small talk ("lovely weather today") unless it answers the agent's
        # question for that very key ("What day?" "Today.", 就今天): it had been asked again and again.
        return any(op.op in (Op.SET, Op.WITHDRAW) and (op.key == state.asked_key or not self.rules.small_talk_value(op))
                   for op in kept) or bool(answers_offer and any(op.op in (Op.REJECT, Op.CONFIRM) for op in kept))

    def render(self, state: SessionState | None = None) -> str:
        return render_state(state or self.state, self.schema, self.settings.language)

    def history(self) -> list[Change]:
        return self.store.history(self.session_id)

    async def update(self, text: str, *, turn: int, turn_class: str = TurnClass.INFORMATION_CHANGE,
                     asr_confidence: float | None = None,
                     ready: Callable[[], Awaitable[bool]] | None = None) -> UpdateResult:
        """Read the utterance into operations and commit them; returns once durable.

        `ready`: asked after reading and before anything is written; False withdraws the update
        (`UpdateWithdrawn`) with nothing written — a provisional utterance the user went on from."""
        async with self._lock:
            return await self._update(text, turn, turn_class, asr_confidence, ready)

    async def _update(self, text: str, turn: int, turn_class: str, asr_confidence: float | None,
                      ready: Callable[[], Awaitable[bool]] | None = None) -> UpdateResult:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        before = await asyncio.to_thread(lambda: self.state)   # a store read stays off the event loop
        extraction, domain = self.extract(text, before, turn_class)
        # (a yes to "shall we do the other one now?" is read, and grounded, as the words it was asked in)
        text = extraction.read_from or text
        ops = self.references.resolve(text, before, list(extraction.operations))
        timings["rules"] = (time.perf_counter() - started) * 1000
        llm_used, llm_error, note = False, "", ""
        if self.llm is not None and self._wants_llm(ops, turn_class):
            llm_started = time.perf_counter()
            llm_used = True
            answer = await llm_operations(self.llm, self.render(before), ops, text, self.schema,
                                          self.settings.llm_timeout_secs)
            timings["llm"] = (time.perf_counter() - llm_started) * 1000
            llm_error, note = answer.error, answer.note
            if llm_error:       # in the trace too; the rules' operations stand alone
                logger.bind(session=self.session_id).warning("session {}: turn {}: the LLM's operations were "
                                                             "dropped: {}", self.session_id, turn, llm_error)
            ops += answer.operations
        grounding = self.grounder.check(ops, text, before)
        ops = grounding.kept
        if grounding.rejected:
            logger.bind(session=self.session_id).info(
                "session {}: turn {}: {} operation(s) not grounded in the utterance: {}", self.session_id, turn,
                len(grounding.rejected), "; ".join(r.reason for r in grounding.rejected))
        clarify = ""
        unapplied = [key for key in extraction.ask_back if not any(op.key == key for op in ops)]
        if unapplied:
            # "Two more people" with no party size held: ask what it is now, never guess.
            spec = self.schema.key(unapplied[0])
            lang = self.settings.language
            # (Its own question where it has one: 时间还没定，几点钟合适？, not "要定成多少" of a time.)
            clarify = say("clarify.relative_ask", lang, label=spec.label(lang), question=spec.ask[lang]) \
                if spec.ask.get(lang) else say("clarify.relative", lang, label=spec.label(lang))
            if before is not None and spec.ask.get(lang) \
                    and any(p.key == spec.name and p.question.endswith(spec.ask[lang]) for p in before.pending):
                # Asked so last turn, and the user went on in words again ("warmer", then "heat
                # things up"): the same question, not the same sentence.
                clarify = say("clarify.relative_again", lang, question=spec.ask[lang])
            # An open question on the key: a bare "22" next answers it.
            ops.append(Operation(Op.ASK, spec.name, question=clarify, reason="a relative change with nothing held"))
        missed = [m for m in extraction.beyond_range if not any(op.key == m.key for op in ops)]
        if missed and not clarify:
            # "Set it to 72": never a guess. The number on the key's other scale is offered for
            # a yes (22); else the agent says the range and asks.
            clarify = out_of_range_question(missed[0], self.schema, self.settings.language)
            offered = missed[0].offered
            candidate = None if offered is None else Operation(
                Op.SET, missed[0].key, Comparator.EQ, offered, words=text.strip(), correction=True).to_dict()
            ops.append(Operation(Op.ASK, missed[0].key, question=clarify, value=candidate,
                                 reason=f"{missed[0].number} is outside the key's range"))
        two_ways = extraction.two_ways
        if two_ways is not None and not clarify and not any(op.key == two_ways[0] for op in ops):
            # "I paid one fifty nine": $1.59 or $159, said alike; asked which, never guessed.
            spec = self.schema.key(two_ways[0])
            lang = self.settings.language
            clarify = say("clarify.two_ways", lang, label=spec.label(lang),
                          first=with_unit(spec, f"{two_ways[1][0]:.2f}", lang),
                          second=with_unit(spec, str(two_ways[1][1]), lang))
            ops.append(Operation(Op.ASK, spec.name, question=clarify, reason="a sum said that reads two ways"))
        low = asr_confidence is not None and asr_confidence < self.settings.low_confidence
        writes = [op for op in ops if op.op == Op.SET]
        if low and writes:
            # Misheard key information must not reach the state: ask back instead (W8).
            clarify = clarify_question(writes, self.schema, self.settings.language)
            ops = [op for op in ops if op.op != Op.SET]
            for op in writes:
                ops.append(Operation(Op.ASK, op.key, question=clarify, value=dict(op.to_dict(), correction=True),
                                     reason=f"ASR confidence {asr_confidence:.2f}"))
        if any(op.op in (Op.SET, Op.WITHDRAW) for op in ops):
            ops.append(Operation(Op.PROPOSE, value=[]))   # the user moved on from the read-back
        # A question that offered a value lapses once the user has gone on to other things: "should
        # I change it to 1 pm?", then "set the volume to twelve", and a "correct" three turns later
        # agrees to what the agent said last, not to that.
        ops[:0] = [Operation(Op.RESOLVE, p.key, reason="the user went on without answering")
                   for p in before.pending if p.candidate is not None and p.turn < turn - 1]
        if ready is not None and not await ready():
            raise UpdateWithdrawn(f"turn {turn}: withdrawn before it was written")
        applied, base = await self._commit(ops, turn, asr_confidence, note, domain)
        raised = [p for p in applied.state.pending if p.turn == turn and p.kind == QuestionKind.CONFLICT
                  and all(p.id != q.id for q in base.pending)]
        if raised and not clarify:
            # "Forward earlier, back now: change it?" is asked now, or a later "okay" would answer
            # a question the user never heard.
            clarify = raised[-1].question
        timings["total"] = (time.perf_counter() - started) * 1000
        # A "yes" that took a value offered for it ("…about 22 degrees. Shall I set it?") set that
        # value this turn: the policy carries out what it sets, as if said.
        taken = [Operation.from_dict(p.candidate) for p in base.pending if p.candidate is not None
                 and all(p.id != q.id for q in applied.state.pending)
                 and any(op.op == Op.CONFIRM and op.key in ("", p.key) for op in ops)]
        return UpdateResult(
            turn=turn, version=applied.state.version, state=applied.state,
            monologue=applied.state.last_monologue, operations=list(ops) + taken,
            diff=state_diff(base, applied.state), state_before=base.to_dict(), clarify=clarify,
            llm_used=llm_used, llm_error=llm_error, timings_ms={k: round(v, 2) for k, v in timings.items()},
            rejected=grounding.rejected,
        )

    async def record_agent_turn(self, text: str, *, turn: int, offered: Sequence[OfferedOption] = (),
                                act: AgentAct | None = None, done: Sequence[ActionDone] = ()) -> list[Rejected]:
        """Remember the values the agent just read back or offered, so a plain "yes" can confirm them.

        `offered`: the options the agent was given to offer (from the catalogue, or a
        booking system). A "yes" later confirms
        only values the state already holds and offered values the reply names; any
        other value in the reply is the reply model's own and is returned as rejected.
        Nothing is written to the conditions: only the user's confirmation does that.
        `act`: the dialogue policy's act (kept, the last few, for its next decision);
        `done`: the actions carried out this turn (`SessionState.done`).
        """
        async with self._lock:
            extracted = self.extract(text, self._seen)[0].operations     # read in the session's current domain
            # The catalogue's names are read for the user's words: a reply's options are `offered`,
            # and "Sakura doesn't fit; Green Table would" must not propose Sakura again.
            extracted = [op for op in extracted if op.source != OpSource.CATALOGUE]
            for attempt in range(MAX_COMMIT_RETRIES):
                base = await asyncio.to_thread(lambda: self.state)
                proposal, rejected = ground_proposal(extracted, text, base, self.schema, offered)
                if proposal:
                    # An offer the user has not answered stays open when the agent goes on to
                    # read back other values ("Sakura? … It's at 5 Main Street, for 2 people."):
                    # the new read-back adds to it, replacing only the keys it names again.
                    named = {item.key for item in proposal}
                    proposal = [item for item in base.proposal if item.key not in named] + proposal
                if rejected:
                    logger.bind(session=self.session_id).info(
                        "session {}: turn {}: not confirmable, the reply model's own: {}", self.session_id, turn,
                        "; ".join(r.reason for r in rejected))
                ops: list[Operation] = []
                # An operation's value is plain data, as a trace shows it.
                if offered:
                    ops.append(Operation(Op.OFFER, value=[option.to_dict() for option in offered]))
                for entry in done:     # the option the user said yes to, when the state has no value for it yet
                    for key, value in entry.args.items():
                        qualified = self.domains.qualified(base.domain, key)
                        if not base.find(qualified) and not isinstance(value, list):
                            ops.append(Operation(Op.SET, qualified, value=value, words=text[:200],
                                                 reason="the user said yes and the agent acted on it",
                                                 source=OpSource.AGENT_PROPOSAL))
                if proposal:
                    ops += [Operation(Op.PROPOSE, value=[item.to_dict() for item in proposal]),
                            Operation(Op.NOTE_ACTION, value=text[:200])]
                else:
                    # Small talk about the offer ("It is a moderate one") keeps it open; the
                    # words are still what the agent last said (a question it asked).
                    ops.append(Operation(Op.NOTE_ACTION, value=text[:200]))
                applied = apply_operations(base, ops, self.schema, turn=base.turn,
                                           options=ApplyOptions(expire_after=0, language=self.settings.language))
                applied.state.version = base.version + 1
                if act is not None:
                    applied.state.acts = [*base.acts, act][-MAX_ACTS_KEPT:]
                applied.state.done = [*base.done, *done]
                for entry in done:     # what the agent acted on, after the user's yes, is confirmed
                    for key, value in entry.args.items():
                        for condition in applied.state.find(self.domains.qualified(applied.state.domain, key)):
                            if condition.value == value or (isinstance(value, list) and condition.value in [
                                    member_of(v, Comparator.INCLUDES)[1] for v in value]):
                                # (acted on with the user's yes: held again, not "to confirm" beside it)
                                condition.confirmed = True
                                condition.status = ConditionStatus.ACTIVE
                try:
                    await asyncio.to_thread(self.store.commit, applied.state, base.version, [])
                    self._seen = applied.state
                    return rejected
                except VersionConflict:
                    await _back_off(attempt)
            # Losing the read-back only means a later "yes" confirms nothing: said, not hidden.
            logger.bind(session=self.session_id).warning(
                "session {}: turn {}: the agent's read-back was not recorded after {} conflicting writes",
                self.session_id, turn, MAX_COMMIT_RETRIES)
            return []

    async def relax(self, slots: Sequence[str], *, turn: int, reason: str) -> SessionState:
        """Drop the conditions the user agreed to give up: the agent asked "could we drop the
        window seat?" because nothing fitted, and the user said yes."""
        async with self._lock:
            base = await asyncio.to_thread(lambda: self.state)
            ops = [Operation(Op.WITHDRAW, c.key, c.comparator, c.value, words=reason, reason=reason,
                             source=OpSource.RELAXED) for slot, c in base.constraints.items() if slot in slots]
            if not ops:
                return base
            applied, _ = await self._commit(ops, turn, None, "")
            return applied.state

    async def seed(self, ops: list[Operation], note: str) -> bool:
        """Start a fresh session from known preferences, each marked "to confirm"."""
        async with self._lock:
            base = await asyncio.to_thread(lambda: self.state)
            if base.version or not ops:
                return False
            applied = apply_operations(base, ops, self.schema, turn=0,
                                       options=ApplyOptions(expire_after=0, language=self.settings.language))
            for op in ops:
                for condition in applied.state.find(op.key):
                    condition.status = ConditionStatus.TO_CONFIRM
            applied.state.last_monologue = note
            await asyncio.to_thread(self.store.commit, applied.state, base.version, applied.changes)
            self._seen = applied.state       # the classifier reads the first turn against what was seeded
            return True

    def _wants_llm(self, ops: list[Operation], turn_class: str) -> bool:
        if self.llm is None or self.settings.llm_mode == "never":
            return False
        if self.settings.llm_mode == "always":
            return True
        read = [op for op in ops if op.op in (Op.SET, Op.WITHDRAW, Op.CONFIRM, Op.REJECT)]
        return turn_class == TurnClass.INFORMATION_CHANGE and not read

    async def _commit(self, ops: list[Operation], turn: int, asr_confidence: float | None,
                      note: str, domain: str = "") -> tuple[Applied, SessionState]:
        options = ApplyOptions(expire_after=self.settings.expire_after_turns, language=self.settings.language)
        for attempt in range(MAX_COMMIT_RETRIES):
            base = await asyncio.to_thread(lambda: self.state)
            try:
                applied = apply_operations(base, ops, self.schema, turn=turn, asr_confidence=asr_confidence,
                                           options=options)
            except InvalidOperation as exc:
                # A malformed candidate (a question's stored operation) is refused whole; the
                # turn still commits its expiry sweep and monologue.
                logger.bind(session=self.session_id).warning("session {}: turn {}: operations refused: {}",
                                                             self.session_id, turn, exc)
                applied = apply_operations(base, [], self.schema, turn=turn, options=options)
            if domain and applied.state.domain != domain:
                applied.state.domain = domain       # the turn moved to another of the agent's domains
            applied.state.last_monologue = render_monologue(applied.state, applied.changes, self.schema,
                                                            self.settings.language, note)
            if applied.state.version == base.version:
                applied.state.version += 1   # the monologue itself is part of the state
                applied.state.updated_at = time.time()
            try:
                await asyncio.to_thread(self.store.commit, applied.state, base.version, applied.changes)
                self._seen = applied.state
                return applied, base
            except VersionConflict:
                await _back_off(attempt)   # another writer won: re-read and re-apply the same operations
        raise VersionConflict(f"session {self.session_id}: gave up after {MAX_COMMIT_RETRIES} conflicting writes")
