"""Assembles the agent's processors; `session.py` runs them between a way in's source and sink.

    source → VAD → ASR → barge-in → turn classifier → monologue/state → reply LLM → TTS
           → playout → audio out → trace
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.processors.frame_processor import FrameProcessor

from monologue.configs import MonologueConfig
from monologue.dialogue.dialogue_session import DialogueOptions, DialogueSession
from monologue.dialogue.tools import RecordingTool, Toolbox
from monologue.memory.domain.catalogue import CATALOGUES_DIR, Catalogue, item_names, load_catalogue
from monologue.memory.domain.schema import DomainSchema
from monologue.memory.domain.several import load_domains
from monologue.memory.longterm.engine import LongTermMemory, LongTermStores, MemoryTools, SpeakerOptions
from monologue.memory.stores.actions import SqlActionStore
from monologue.memory.stores.factory import Stores, open_stores, stores_of
from monologue.memory.stores.protocols import ActionStore, StateStore
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.models.asr import Transcriber
from monologue.models.chat import ChatLLM
from monologue.models.model_threads import call_on
from monologue.processors.asr import ASRProcessor
from monologue.processors.barge_in import BackchannelCheck, BargeInProcessor
from monologue.processors.frames import Turn
from monologue.processors.monologue import MonologueProcessor
from monologue.processors.playout import Playout, PlayoutClock
from monologue.processors.reply import ReplyMemory, ReplyOptions, ReplyProcessor
from monologue.processors.reply_whole_history import WholeHistoryReply
from monologue.processors.reply_wording import PromptOptions
from monologue.processors.trace import TraceWriter
from monologue.processors.tts import Synthesizer, TTSProcessor, Voices
from monologue.processors.turn_classifier import TurnClassifierProcessor
from monologue.processors.turn_end import EndProbability, PartialTranscriber, TurnEndJudge, TurnEndOptions
from monologue.processors.vad import SegmentOptions, VADProcessor


@dataclass
class AgentModels:
    """Models loaded once and shared by every pipeline of the process."""

    asr: Transcriber | None   # None in text mode
    tts: Synthesizer | None
    llm: ChatLLM
    load_secs: dict[str, float] = field(default_factory=dict)
    embed: Any = None                   # sentence encoder for long-term memory (loaded on demand)
    turn_end: EndProbability | None = None   # smart-turn; None: the words alone judge a pause

    def encoder(self) -> Any:
        if self.embed is None:
            from monologue.models.embedder import SentenceEncoder

            self.embed = SentenceEncoder().embed
        return self.embed


def reply_system_prompt(config: MonologueConfig, schema: DomainSchema | None = None) -> str:
    """The reply's system prompt: the configured one with the domain's role in it (for the
    whole-history baseline its own, which promises no planner's note)."""
    schema = schema or load_domains(config.monologue.domain).schema
    prompt = config.reply.whole_history_prompt if config.reply.mode == "whole_history" else config.reply.system_prompt
    return prompt.replace("{role}", schema.role.get("en", "helps with whatever the user asks"))


def load_text_models(config: MonologueConfig, llm: ChatLLM | None = None) -> AgentModels:
    """Text mode needs the LLM alone."""
    chat = llm or ChatLLM(config.llm)
    started = time.perf_counter()
    chat.warm_up(reply_system_prompt(config))
    return AgentModels(asr=None, tts=None, llm=chat, load_secs={"llm": round(time.perf_counter() - started, 2)})


def load_models(config: MonologueConfig, *, asr: Transcriber | None = None,
                tts: Synthesizer | None = None, llm: ChatLLM | None = None) -> AgentModels:
    """Load ASR, TTS and LLM side by side in threads; injected fakes are kept as given."""
    from monologue.models.asr import WhisperASR

    chat = llm or ChatLLM(config.llm)
    timings: dict[str, float] = {}

    def timed(name: str, make: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        value = make()
        timings[name] = round(time.perf_counter() - started, 2)
        return value

    with ThreadPoolExecutor(max_workers=3) as pool:
        asr_future = pool.submit(timed, "asr", lambda: asr or call_on("whisper", lambda: WhisperASR(
            "auto" if config.asr.language == "auto" else config.language, config.asr.model,
            beam_size=config.asr.beam_size, compute_type=config.asr.compute_type, cpu_threads=config.asr.cpu_threads,
            initial_prompt_zh=config.asr.initial_prompt_zh, window_secs=config.asr.window_secs)))
        tts_future = pool.submit(timed, "tts", lambda: tts or call_on("tts", lambda: session_voices(config)))
        system_prompt = reply_system_prompt(config)
        llm_future = pool.submit(timed, "llm", lambda: chat.warm_up(system_prompt))
        turn_future = pool.submit(timed, "turn_end", lambda: _turn_model(config))
        loaded_asr, loaded_tts = asr_future.result(), tts_future.result()
        # First calls pay for lazy initialisation (seconds for whisper): pay it here.
        warm_asr = pool.submit(timed, "asr_warm_up",
                               lambda: call_on("whisper", loaded_asr.transcribe, _warm_up_audio()))
        warm_words = _WARM_UP_WORDS[config.language]
        warm_tts = pool.submit(timed, "tts_warm_up",
                               lambda: call_on("tts", lambda: list(loaded_tts.synthesize(warm_words))))
        llm_future.result(), warm_asr.result(), warm_tts.result()
    return AgentModels(asr=loaded_asr, tts=loaded_tts, llm=chat, load_secs=timings, turn_end=turn_future.result())


_WARM_UP_WORDS = {"en": "Okay.", "zh": "好的。"}


def voice_for_language(config: MonologueConfig, language: str) -> Any:
    """The configured voice for one language (tts.voice for English, tts.voice_zh for Mandarin)."""
    from monologue.models.tts import load_tts

    configured = config.tts.voice_zh if language == "zh" else config.tts.voice
    return load_tts(language, configured, config.tts.length_scale)


def session_voices(config: MonologueConfig) -> Voices:
    """The session's voice, loaded now, and the other language's, loaded when a reply first needs it
    (a Chinese answer in an English session). An English session never pays for the Mandarin voice."""
    loaded: dict[str, Any] = {config.language: voice_for_language(config, config.language)}
    if config.asr.language == "auto":       # turns come in either language: no wait on the first of the other
        other = "zh" if config.language == "en" else "en"
        loaded[other] = voice_for_language(config, other)
    return Voices(config.language, loaded, lambda language: voice_for_language(config, language))


def _turn_model(config: MonologueConfig) -> EndProbability | None:
    if config.turn.end_by != "meaning" or not config.turn.smart_turn:
        return None
    from monologue.models.turn import SMART_TURN_THREAD, SmartTurn

    model = call_on(SMART_TURN_THREAD, SmartTurn)
    call_on(SMART_TURN_THREAD, model.probability, _warm_up_audio())
    return model


def turn_end_options(config: MonologueConfig) -> TurnEndOptions:
    t = config.turn
    return TurnEndOptions(by=t.end_by, judge_after_secs=t.judge_after_secs, end_after_secs=t.end_after_secs,
                          unsure_secs=t.unsure_secs, hold_secs=t.hold_secs, silence_secs=config.vad.stop_secs,
                          complete_threshold=t.complete_threshold, draft=t.draft,
                          partial_every_secs=t.partial_every_secs, transcript_wait_secs=t.transcript_wait_secs,
                          unfinished_en=t.unfinished_en, unfinished_zh=t.unfinished_zh)


def _warm_up_audio() -> Any:
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.standard_normal(16000) * 0.01).astype(np.float32)


@dataclass
class AgentProcessors:
    vad: VADProcessor
    asr: ASRProcessor | None          # None without a speech recogniser (text mode)
    classifier: TurnClassifierProcessor
    monologue: MonologueProcessor
    reply: ReplyProcessor | WholeHistoryReply     # reply.mode: monologue | whole_history (the baseline)
    tts: TTSProcessor | None          # None without a voice (text mode)
    trace: TraceWriter
    log: ConversationLog
    barge_in: BargeInProcessor | None = None
    playout: Playout | None = None    # None without a voice (text mode)

    def before_output(self) -> list[FrameProcessor]:
        """The stages between a speech source and the audio sink."""
        if self.asr is None or self.tts is None or self.playout is None or self.barge_in is None:
            raise ValueError("a spoken session needs the speech models: load them with load_models(), "
                             "not load_text_models()")
        return [self.vad, self.asr, self.barge_in, self.classifier, self.monologue, self.reply, self.tts,
                self.playout]


def domain_catalogues(config: MonologueConfig, memory: WorkingMemory | None) -> dict[str, Catalogue]:
    """Each domain's options: its YAML's `catalogue:` for the session's language (Beijing's
    restaurants in Chinese), or `reply.catalogue` for a one-domain agent."""
    domains = memory.domains.domains if memory is not None else load_domains(config.monologue.domain).domains
    out: dict[str, Catalogue] = {}
    for domain in domains:
        name = config.reply.catalogue if config.reply.catalogue and len(domains) == 1 \
            else domain.catalogue_in(config.language)
        if name:
            out[domain.name] = load_catalogue(name)
    return out


def stores(config: MonologueConfig, target: str | None = None) -> Stores:
    """Everything kept, where the config (or `target`: a path or URL from --store) says."""
    return open_stores(target or config.store.url or config.store.path, config.state.url)


def open_store(config: MonologueConfig, target: str | None = None) -> StateStore:
    """Where session states go: Redis when state.url says so, else beside the memories."""
    return stores(config, target).states


def working_memory(config: MonologueConfig, session_id: str, store: StateStore, llm: ChatLLM | None) -> WorkingMemory:
    m = config.monologue
    options = WorkingMemoryOptions(domain=m.domain, language=config.language,
                                   expire_after_turns=m.expire_after_turns, llm_mode=m.llm_mode,
                                   llm_timeout_secs=m.llm_timeout_secs, low_confidence=config.asr.low_confidence)
    return WorkingMemory(session_id, store, options, llm=llm)


def session_memory(config: MonologueConfig, models: AgentModels, session_id: str | None = None,
                   store: StateStore | None = None) -> WorkingMemory | None:
    """The session's working memory (in-process store unless one is given), or None when off
    (and for the whole-history baseline, which keeps no state)."""
    if not config.monologue.enabled or config.reply.mode == "whole_history":
        return None
    from monologue.memory.stores.state import InMemoryStateStore

    return working_memory(config, session_id or new_session_id(), store or InMemoryStateStore(), models.llm)


def user_memory(config: MonologueConfig, models: AgentModels, user_id: str | None,
                store_path: str | None = None, at: float | None = None,
                household: str | None = None) -> LongTermMemory | None:
    """A user's long-term memory, or None when no user is named and no household is (nothing
    is kept then).

    `household` (default: `long_term.household`): what members state as shared goes to the
    household's memory, which every member's recall reads (U5). With a household and no
    user, nobody is known to be speaking: recall reads the household's memories only, never
    anyone's personal ones. `at` (epoch seconds) replays a session as if it happened then:
    memory's clock starts there and runs on in real time (recorded sessions keep their dates)."""
    from monologue.memory.longterm.household import household_id

    household = config.long_term.household if household is None else household
    if not user_id and not household:
        return None
    from monologue.memory.longterm.engine import LongTermOptions
    from monologue.memory.longterm.llm_help import MemoryLLM
    from monologue.memory.longterm.records import RetentionPolicy
    from monologue.memory.longterm.reflection import ReflectionOptions
    o = config.long_term
    kept = stores(config, store_path)
    offset = 0.0 if at is None else at - time.time()
    options = LongTermOptions(recall_k=o.recall_k, budget_ms=o.budget_ms, writes_wait_secs=o.writes_wait_secs,
                              summary_chars=o.summary_chars,
                              reflection=ReflectionOptions(min_contexts=o.reflection_min_contexts),
                              retention=RetentionPolicy(keep_forever_from=o.keep_forever_from,
                                                        decay_days=o.decay_days, archive_days=o.archive_days))
    llm = MemoryLLM(models.llm.complete_json, o.llm_timeout_secs, remote=models.llm.remote) if o.llm_help else None
    shared = household_id(household) if household else ""
    long_term = LongTermMemory(kept.memories, user_id or shared,
                               tools=MemoryTools(embed=models.encoder(), clock=lambda: time.time() + offset),
                               options=options, llm=llm, stores=LongTermStores(profiles=kept.profiles),
                               speaker=SpeakerOptions(household=shared, speaker_known=bool(user_id)))
    if not user_id:
        long_term.core.members = config.long_term.household_members()
    long_term.warm_up()
    return long_term


def new_session_id() -> str:
    return time.strftime("s%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def action_store(store: StateStore | None) -> ActionStore:
    """Where the agent's actions are recorded: beside the session states when they are in
    SQLite (one file holds everything), else in this process."""
    if isinstance(store, SqlStateStore):
        return SqlActionStore(store.db)
    shared = stores_of(store) if store is not None else None
    return shared.actions if shared is not None else SqlActionStore(":memory:")


@lru_cache(maxsize=16)
def elsewhere_names(domain: str) -> frozenset[str]:
    """The options of every bundled catalogue that is not `domain`'s own: a reply in the car that
    names a restaurant is caught by the check."""
    own = load_domains(domain).domains
    mine = {name for d in own for name in (d.catalogue, *d.catalogues.values()) if name}
    names: set[str] = set()
    for path in sorted(CATALOGUES_DIR.glob("*.yaml")):
        items = load_catalogue(path.stem).items if path.stem not in mine else []
        # A city's real restaurants (951 in Beijing) are places a driver may ask to be driven to.
        if len(items) <= REAL_PLACES_FROM:    # every name an option has, in any language (Chili House, 辣椒屋)
            names |= {name for item in items for name in item_names(item)}
    return frozenset(names)


REAL_PLACES_FROM = 200
"""A catalogue this long lists real places, which other domains may name too (a route to one)."""


def dialogue_session(config: MonologueConfig, memory: WorkingMemory | None, long_term: LongTermMemory | None,
                     actions: ActionStore | None) -> DialogueSession:
    """The dialogue policy for a session: its domains' catalogues, and a toolbox that records actions."""
    domains = load_domains(config.monologue.domain).domains
    options = DialogueOptions(language=config.language,
                              user_id=long_term.user_id if long_term is not None else "",
                              domain=domains[0].name,
                              elsewhere={d.name: elsewhere_names(d.name) for d in domains})
    return DialogueSession(memory, domain_catalogues(config, memory),
                           toolbox=Toolbox(RecordingTool(actions or SqlActionStore(":memory:"))),
                           embed=long_term.embed if long_term is not None else None, options=options)


@dataclass
class SessionMemories:
    """What a session's processors remember with, and where it continues from."""

    memory: WorkingMemory | None = None        # the session's working memory; None runs without it
    long_term: LongTermMemory | None = None
    actions: ActionStore | None = None         # where actions are recorded (in this process when None)
    log: ConversationLog | None = None         # the conversation so far (a continued session's)
    continued: bool = False                    # the session's record is added to, not started over


@dataclass
class TurnHooks:
    """What the session is told about each turn (the source paces itself by these)."""

    on_turn_end: Callable[[Turn], None] | None = None        # the VAD closed a user turn
    on_turn_done: Callable[[Turn], None] | None = None       # its trace line was written
    on_reply_produced: Callable[[Turn], None] | None = None  # its reply was made (not yet all played)


def build_processors(config: MonologueConfig, models: AgentModels, out_dir: Path | None, *,
                     memories: SessionMemories | None = None, hooks: TurnHooks | None = None,
                     clock: PlayoutClock = "live") -> AgentProcessors:
    """`clock`: how the agent's voice is played: live (a room, a speaker) or on a replayed
    session's timeline."""
    from monologue.models.vad import load_vad

    memories = memories or SessionMemories()
    hooks = hooks or TurnHooks()
    memory, long_term = memories.memory, memories.long_term
    whole_history = config.reply.mode == "whole_history"
    if whole_history:
        memory = None       # the baseline keeps no state: its model reads every message instead

    v = config.vad
    turn_end = turn_end_options(config)
    # By meaning, the analyzer reports each short pause and the turn-end rule decides; by
    # silence, its stop time is the turn's end.
    pause = turn_end.judge_after_secs if turn_end.by == "meaning" else turn_end.silence_secs
    analyzer = load_vad(v.engine, config.audio.sample_rate,
                        VADParams(confidence=v.confidence, start_secs=v.start_secs,
                                  stop_secs=pause, min_volume=v.min_volume),
                        aggressiveness=v.webrtc_aggressiveness)
    log = memories.log if memories.log is not None else ConversationLog()
    schema = memory.schema if memory else load_domains(config.monologue.domain).schema
    system_prompt = reply_system_prompt(config, schema)
    spoken = models.tts is not None
    reply: ReplyProcessor | WholeHistoryReply
    if whole_history:
        reply = WholeHistoryReply(models.llm, log, system_prompt,
                                  options=ReplyOptions(config.language, config.reply.min_clause_chars,
                                                       commit_when_played=spoken,
                                                       prefill_next=config.reply.prefill_next))
    else:
        reply = ReplyProcessor(models.llm, log,
                               PromptOptions(system_prompt, config.reply.recent_turns,
                                             config.reply.max_utterance_chars, config.reply.context_position),
                               memory=ReplyMemory(memory, long_term,
                                                  dialogue_session(config, memory, long_term, memories.actions)),
                               options=ReplyOptions(config.language, config.reply.min_clause_chars,
                                                    config.reply.wording, config.reply.model_chooses_action,
                                                    commit_when_played=spoken,
                                                    first_audio_budget_ms=config.reply.first_audio_budget_ms
                                                    if spoken else 0.0,
                                                    late_notice_after_ms=config.reply.late_notice_after_ms
                                                    if spoken else 0.0,
                                                    prefill_next=config.reply.prefill_next))
    parts = AgentProcessors(
        vad=VADProcessor(analyzer, SegmentOptions(v.engine, config.audio.sample_rate, v.pre_roll_secs,
                                                  v.max_segment_secs),
                         on_turn_end=hooks.on_turn_end, turn_end=turn_end,
                         judge=TurnEndJudge(models.turn_end, turn_end, config.language),
                         partials=PartialTranscriber(models.asr) if models.asr is not None else None),
        asr=ASRProcessor(models.asr, low_confidence=config.asr.low_confidence,
                         respell=memory.respell if memory is not None and config.language in ("zh", "auto") else None)
        if models.asr is not None else None,
        classifier=TurnClassifierProcessor(memory.reads_condition if memory else None, schema=schema),
        monologue=MonologueProcessor(log, memory, after_replies=True),
        reply=reply,
        tts=TTSProcessor(models.tts) if models.tts is not None else None,
        trace=TraceWriter(out_dir if config.trace.enabled else None, on_turn_done=hooks.on_turn_done,
                          append=memories.continued),
        log=log,
    )
    if spoken:
        b = config.barge_in
        parts.barge_in = BargeInProcessor(BackchannelCheck(b.backchannels(config.language), b.max_backchannel_secs),
                                          enabled=b.enabled, answer_window_secs=b.answer_window_secs)
        parts.playout = Playout(clock, lead_ms=b.playout_lead_ms, barge_in=b.enabled,
                                compute_secs=config.replay.compute_secs)

        @parts.playout.event_handler("on_reply_produced")
        async def produced(_playout: Playout, turn: Turn) -> None:
            if hooks.on_reply_produced is not None:
                hooks.on_reply_produced(turn)
    return parts


def make_worker(processors: list[Any]) -> Any:
    """A PipelineWorker for a headless agent: no RTVI, no idle timeout (a quiet user is
    not a reason to hang up), no pipecat turn tracking (the trace does that)."""
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker

    return PipelineWorker(Pipeline(processors), enable_rtvi=False, cancel_on_idle_timeout=False,
                          idle_timeout_secs=None, enable_turn_tracking=False)


async def run_worker(worker: Any, *, handle_sigint: bool = False) -> None:
    from pipecat.workers.runner import WorkerRunner

    runner = WorkerRunner(handle_sigint=handle_sigint)
    await runner.add_workers(worker)
    await runner.run()


class TurnGate:
    """Counts user turns the agent has not finished answering.

    The VAD opens a turn, the trace writer closes it; a fast replay waits for
    zero before feeding more audio, so each turn is answered before the next
    one starts, as in the live conversation that was recorded. `stall_secs`: how long
    a turn may stay open before the source goes on without it (a stage lost the turn).
    """

    def __init__(self, stall_secs: float = 600.0) -> None:
        self.stall_secs = stall_secs
        self._open = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def turn_started(self, _turn: Turn | None = None) -> None:
        self._open += 1
        self._idle.clear()

    def turn_done(self, _turn: Turn | None = None) -> None:
        self._open = max(self._open - 1, 0)
        if self._open == 0:
            self._idle.set()

    @property
    def busy(self) -> bool:
        return self._open > 0

    async def wait_idle(self) -> bool:
        """True when idle; False if `stall_secs` passed first."""
        try:
            async with asyncio.timeout(self.stall_secs):
                await self._idle.wait()
            return True
        except TimeoutError:
            return False
