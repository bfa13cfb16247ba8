"""Each processor alone, through pipecat's run_test."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import numpy as np
import pytest
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams
from pipecat.frames.frames import (
    InputAudioRawFrame,
    TextFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.tests.utils import run_test

from monologue.configs import LLMOptions
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatLLM
from monologue.processors.asr import ASRProcessor
from monologue.processors.audio_out import ReplyRecorder
from monologue.processors.frames import (
    AgentTurnEndFrame,
    Classification,
    MemoryRecall,
    MonologueOutcome,
    ReplyAudioFrame,
    ReplyTextFrame,
    SpeechSegmentFrame,
    SpeechStartedFrame,
    SpeechSynthesis,
    Transcription,
    Turn,
    TurnEnd,
    UserTurnFrame,
)
from monologue.processors.monologue import MonologueProcessor
from monologue.processors.reply import ReplyMemory, ReplyOptions, ReplyProcessor
from monologue.processors.reply_wording import ClauseSplitter, PromptOptions, build_reply_prompt
from monologue.processors.trace import TraceWriter, trace_line
from monologue.processors.tts import TTSProcessor
from monologue.processors.turn_classifier import TurnClassifierProcessor
from monologue.processors.vad import SegmentOptions, VADProcessor

from fakes import FakeSynthesizer, FakeTranscriber, ScriptedJsonLLM, until


class LoudnessVAD(VADAnalyzer):
    """Deterministic analyzer for tests: a window is speech when it is loud."""

    def num_frames_required(self) -> int:
        return 320

    def voice_confidence(self, buffer: bytes) -> float:
        samples = np.frombuffer(buffer, dtype=np.int16).astype(np.float32)
        return 1.0 if np.sqrt(np.mean(samples ** 2)) > 1000 else 0.0


def _chunks(seconds_loud_pattern: list[tuple[float, bool]], rate: int = 16000) -> list[InputAudioRawFrame]:
    frames = []
    for secs, loud in seconds_loud_pattern:
        n = int(secs * rate)
        samples = (np.sin(np.arange(n) * 0.3) * 8000).astype(np.int16) if loud else np.zeros(n, np.int16)
        for i in range(0, n, 320):
            frames.append(InputAudioRawFrame(audio=samples[i:i + 320].tobytes(), sample_rate=rate, num_channels=1))
    return frames


def _turn(text: str = "book a table for four at seven", turn_id: int = 1) -> Turn:
    turn = Turn(turn_id=turn_id, start_pts=0.0, end_pts=1.0, end_wait_secs=0.5,
                detected_at=time.perf_counter())
    turn.asr = Transcription(text=text, confidence=0.9)
    return turn


async def test_vad_cuts_one_segment_per_turn_with_timestamps():
    ended: list[Turn] = []
    vad = VADProcessor(LoudnessVAD(params=VADParams(start_secs=0.1, stop_secs=0.3, min_volume=0.0)),
                       SegmentOptions(engine="test"), on_turn_end=ended.append)
    frames = _chunks([(0.5, False), (1.0, True), (1.0, False), (0.6, True), (0.8, False)])
    down, _ = await run_test(vad, frames_to_send=frames, expected_down_frames=[
        UserStartedSpeakingFrame, SpeechStartedFrame, UserStoppedSpeakingFrame, SpeechSegmentFrame,
        UserStartedSpeakingFrame, SpeechStartedFrame, UserStoppedSpeakingFrame, SpeechSegmentFrame,
    ])
    started = [f for f in down if isinstance(f, SpeechStartedFrame)]
    assert started[0].start_pts == pytest.approx(0.5, abs=0.05)      # speech began here …
    assert started[0].detected_pts == pytest.approx(0.6, abs=0.05)   # … and the VAD was sure start_secs later
    segments = [f for f in down if isinstance(f, SpeechSegmentFrame)]
    assert [s.turn.turn_id for s in segments] == [1, 2]
    assert segments[0].turn.start_pts == pytest.approx(0.5 - 0.3, abs=0.05)  # pre-roll kept
    assert segments[0].turn.end_pts == pytest.approx(1.5, abs=0.05)
    assert segments[1].turn.end_pts == pytest.approx(3.1, abs=0.05)
    # Speech and pre-roll, cut at the first quiet window: the transcript of exactly this audio
    # was started there, while the turn's end was still being decided.
    assert len(segments[0].audio) / 2 / 16000 == pytest.approx(1.0 + 0.3 + 0.02, abs=0.03)
    assert [t.turn_id for t in ended] == [1, 2]


async def test_vad_closes_a_turn_still_open_at_the_end_of_input():
    vad = VADProcessor(LoudnessVAD(params=VADParams(start_secs=0.1, stop_secs=0.3, min_volume=0.0)))
    down, _ = await run_test(vad, frames_to_send=_chunks([(0.2, False), (0.8, True)]))
    assert any(isinstance(f, SpeechSegmentFrame) for f in down)


async def test_vad_splits_overlong_speech():
    vad = VADProcessor(LoudnessVAD(params=VADParams(start_secs=0.1, stop_secs=0.3, min_volume=0.0)),
                       SegmentOptions(max_segment_secs=1.0))
    down, _ = await run_test(vad, frames_to_send=_chunks([(2.5, True), (0.6, False)]))
    segments = [f for f in down if isinstance(f, SpeechSegmentFrame)]
    assert len(segments) == 3 and all(len(s.audio) / 32000 <= 1.6 for s in segments)


async def test_vad_rejects_audio_at_the_wrong_rate():
    vad = VADProcessor(LoudnessVAD(params=VADParams()))
    frame = InputAudioRawFrame(audio=b"\0\0" * 960, sample_rate=48000, num_channels=1)
    with pytest.raises(ValueError, match="expects 16000 Hz mono"):
        await vad._handle_audio(frame)


async def test_asr_emits_transcript_and_turn():
    fake = FakeTranscriber(["Book a table for four."], confidence=0.3)
    turn = _turn("")
    segment = SpeechSegmentFrame(turn=turn, audio=b"\1\0" * 16000, sample_rate=16000)
    down, _ = await run_test(ASRProcessor(fake, low_confidence=0.45), frames_to_send=[segment],
                             expected_down_frames=[TranscriptionFrame, UserTurnFrame])
    assert isinstance(down[0], TranscriptionFrame) and down[0].text == "Book a table for four."
    assert turn.asr is not None and turn.asr.confidence == 0.3 and turn.asr.low_confidence is True
    assert fake.seen[0].dtype == np.float32 and fake.seen[0].size == 16000
    assert "asr_done" in turn.marks


async def test_asr_ends_a_turn_without_words():
    segment = SpeechSegmentFrame(turn=_turn(""), audio=b"\0\0" * 1600, sample_rate=16000)
    await run_test(ASRProcessor(FakeTranscriber([""])), frames_to_send=[segment],
                   expected_down_frames=[AgentTurnEndFrame])


async def test_asr_failure_is_recorded_not_raised():
    class Broken:
        def transcribe(self, audio):
            raise RuntimeError("model file damaged")

    turn = _turn("")
    await run_test(ASRProcessor(Broken()), frames_to_send=[SpeechSegmentFrame(turn=turn, audio=b"\0\0")],
                   expected_down_frames=[AgentTurnEndFrame])
    assert turn.asr is not None and "model file damaged" in (turn.asr.error or "")


async def test_classifier_labels_turns_and_counts_share():
    classifier = TurnClassifierProcessor()
    turns = [_turn("Make it six people instead.", 1), _turn("Nice weather today.", 2)]
    await run_test(classifier, frames_to_send=[UserTurnFrame(turn=t) for t in turns],
                   expected_down_frames=[UserTurnFrame, UserTurnFrame])
    assert [t.turn_class for t in turns] == ["information_change", "chit_chat"]
    assert classifier.triggered_share == 0.5


async def test_classifier_reads_values_with_its_domain_schema():
    from monologue.memory.domain.schema import load_schema

    classifier = TurnClassifierProcessor(schema=load_schema("in_car"))
    turns = [_turn("Keep it at 21 degrees.", 1), _turn("It's 30 degrees outside today.", 2),
             _turn("我不喜欢走高速。", 3)]
    await run_test(classifier, frames_to_send=[UserTurnFrame(turn=t) for t in turns],
                   expected_down_frames=[UserTurnFrame] * 3)
    assert [t.turn_class for t in turns] == ["information_change", "chit_chat", "information_change"]


async def test_monologue_slot_records_the_user_turn():
    log = ConversationLog()
    turn = _turn("Four people please.")
    await run_test(MonologueProcessor(log), frames_to_send=[UserTurnFrame(turn=turn)],
                   expected_down_frames=[UserTurnFrame])
    assert [u.text for u in log.all()] == ["Four people please."]
    assert turn.monologue is not None and turn.monologue.skipped is True


def test_clause_splitter_cuts_sentences_and_long_commas():
    splitter = ClauseSplitter(min_chars=12)
    out = []
    for piece in ["Sure", ", I can", " help. The table is for", " four people, on Saturday", " at 7.5 pm!"]:
        out += splitter.feed(piece)
    out.append(splitter.flush())
    assert out == ["Sure, I can help.", "The table is for four people,", "on Saturday at 7.5 pm!"]
    zh = ClauseSplitter(min_chars=4)
    assert zh.feed("好的，我帮你订。周六晚上") == ["好的，我帮你订。"]
    assert zh.flush() == "周六晚上"


def test_reply_prompt_is_bounded_and_ends_with_the_utterance():
    log = ConversationLog()
    for i in range(1, 40):
        log.add("user", f"user says {i}", i)
        log.add("assistant", f"agent says {i}", i)
    turn = _turn("what now?", 40)
    log.add("user", "what now?", 40)
    messages = build_reply_prompt(log, turn, PromptOptions("be brief", recent_turns=4))
    assert messages[0] == {"role": "system", "content": "be brief"}
    assert messages[-1] == {"role": "user", "content": "what now?"}
    assert len(messages) == 1 + 4 + 1
    assert messages[-2]["content"] == "agent says 39"


def _chat(**kwargs: Any) -> ChatLLM:
    options: dict[str, Any] = dict(model="openai/gpt-4o-mini", fallback=None,
                                   mock_response="Sure. Four people at seven, noted!")
    options.update(kwargs)
    return ChatLLM(LLMOptions(**options))


async def test_reply_streams_clauses_then_ends_turn():
    log = ConversationLog()
    turn = _turn()
    reply = ReplyProcessor(_chat(), log, PromptOptions("be brief"), options=ReplyOptions(min_clause_chars=4))
    down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    clauses = [f.text for f in down if isinstance(f, ReplyTextFrame)]
    assert clauses == ["Sure.", "Four people at seven,", "noted!"]
    assert isinstance(down[-1], AgentTurnEndFrame)
    assert turn.reply.text == "Sure. Four people at seven, noted!"
    # The utterance, then the policy's note (what to say, and why); no state without working memory.
    assert turn.reply.prompt[-1]["content"].startswith(turn.text + "\n\nPlanner:")
    assert turn.reply.source == "model" and turn.reply.decision["act"] == "greet"
    assert log.all()[-1].role == "assistant"
    assert "llm_first_token" in turn.marks


async def test_reply_survives_an_llm_that_fails():
    turn = _turn()
    broken = _chat(model="openai/no-such-model", mock_response=None, api_base="http://127.0.0.1:9/v1",
                   timeout_secs=5)
    reply = ReplyProcessor(broken, ConversationLog(), PromptOptions("be brief"))
    down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    # The policy's own words answer, and the trace says why.
    assert [type(f) for f in down][-1] is AgentTurnEndFrame
    assert all(isinstance(f, ReplyTextFrame) for f in down[:-1]) and len(down) > 1
    assert turn.reply.text == "Hi! What can I do for you?" and turn.reply.source == "template"
    assert "no-such-model" in turn.reply.error
    assert turn.reply.check[-1].kind == "llm_error"


async def test_reply_falls_back_to_the_second_model(monkeypatch):
    turn = _turn()
    chat = _chat(model="openai/no-such-model", fallback="openai/gpt-4o-mini",
                 api_base="http://127.0.0.1:9/v1", mock_response=None, timeout_secs=5)

    async def fake_stream_one(model, messages, *_):
        if model == "openai/no-such-model":
            raise ConnectionError("refused")
        yield "Fallback answer."

    monkeypatch.setattr(chat, "_stream_one", fake_stream_one)
    down, _ = await run_test(ReplyProcessor(chat, ConversationLog(), PromptOptions("x")),
                             frames_to_send=[UserTurnFrame(turn=turn)])
    assert isinstance(down[0], ReplyTextFrame) and down[0].text == "Fallback answer."
    assert turn.reply.model == "openai/gpt-4o-mini"


async def test_llm_timeout_becomes_a_clear_error():
    import asyncio

    from monologue.models.chat import ChatError, StreamStats

    chat = _chat(timeout_secs=0.2)

    async def slow(**kwargs):
        await asyncio.sleep(5)

    import monologue.models.chat as chat_module
    litellm = chat_module.import_litellm()
    original = litellm.acompletion
    litellm.acompletion = slow
    try:
        with pytest.raises(ChatError, match="TimeoutError"):
            async for _ in chat.stream([{"role": "user", "content": "hi"}], StreamStats()):
                pass
    finally:
        litellm.acompletion = original


async def test_tts_speaks_each_clause():
    synth = FakeSynthesizer()
    turn = _turn()
    frames = [ReplyTextFrame(text="Sure.", turn=turn), ReplyTextFrame(text="Seven it is.", turn=turn),
              AgentTurnEndFrame(turn=turn)]
    down, _ = await run_test(TTSProcessor(synth), frames_to_send=frames,
                             expected_down_frames=[ReplyAudioFrame, ReplyAudioFrame, AgentTurnEndFrame])
    assert synth.spoken == ["Sure.", "Seven it is."]
    assert turn.tts.clauses == 2 and turn.tts.audio_secs == pytest.approx(0.2, abs=0.01)


async def test_recorder_places_reply_after_the_users_speech():
    from pipecat.pipeline.pipeline import Pipeline

    from monologue.processors.playout import Playout

    recorder = ReplyRecorder()
    turn = _turn()
    audio = np.ones(2205, dtype=np.int16).tobytes()
    frames = [ReplyAudioFrame(audio=audio, sample_rate=22050, num_channels=1, turn=turn)] * 2
    await run_test(Pipeline([Playout("timeline"), recorder]), frames_to_send=[*frames, AgentTurnEndFrame(turn=turn)])
    start = turn.tts.session_start_secs
    assert start is not None
    assert start >= turn.end_pts + turn.end_wait_secs
    rendered, rate = recorder.render(min_secs=5.0)
    assert rate == 22050 and rendered.size >= 5 * 22050
    assert recorder.end_secs == pytest.approx(start + 0.2, abs=0.01)


async def test_trace_writes_one_line_per_turn(tmp_path):
    done: list[int] = []
    writer = TraceWriter(tmp_path, on_turn_done=lambda t: done.append(t.turn_id))
    turn = _turn("Four people.")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    turn.reply.text = "Noted."
    turn.reply.prompt = [{"role": "user", "content": "Four people."}]
    turn.mark("first_audio", turn.detected_at + 0.8)
    await run_test(writer, frames_to_send=[TextFrame(text="passes through"), AgentTurnEndFrame(turn=turn)],
                   expected_down_frames=[TextFrame, AgentTurnEndFrame])
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    assert record["turn"] == 1 and record["asr"]["text"] == "Four people."
    assert record["reply"]["prompt"] == [{"role": "user", "content": "Four people."}]
    assert record["latency_ms"]["voice_to_voice"] == pytest.approx(1300, abs=1)
    for key in ("vad", "turn_class", "monologue", "tts", "compute_ms"):
        assert key in record
    assert "user: Four people." in (tmp_path / "transcript.txt").read_text()
    assert done == [1]


async def test_opening_line_is_spoken_first_and_kept_off_the_timeline():
    log = ConversationLog()
    reply = ReplyProcessor(_chat(), log, PromptOptions("be brief"))
    reply.set_opening("Welcome back! Shall I book the usual table?")
    down, _ = await run_test(reply, frames_to_send=[])
    spoken = [f for f in down if isinstance(f, ReplyTextFrame)]
    assert [f.text for f in spoken] == ["Welcome back! Shall I book the usual table?"] and spoken[0].turn.turn_id == 0
    assert log.all()[0].role == "assistant"                    # the next reply knows what was offered
    recorder = ReplyRecorder()
    audio = np.ones(2205, dtype=np.int16).tobytes()
    await run_test(recorder, frames_to_send=[ReplyAudioFrame(audio=audio, sample_rate=22050, num_channels=1,
                                                             turn=spoken[0].turn)])
    assert len(recorder.opening) == 1 and recorder.end_secs == 0.0   # opening.wav, not over the user's speech


async def test_memory_writes_never_delay_the_reply(tmp_path, monkeypatch):
    """A slow long-term write (background) and a slow recall (over budget) leave the turn on time."""
    import asyncio as aio

    from monologue.memory.longterm.engine import LongTermMemory, LongTermOptions
    from monologue.memory.stores.memories import SqlMemoryStore

    long_term = LongTermMemory(SqlMemoryStore(tmp_path / "m.db"), "ann", options=LongTermOptions(budget_ms=50))
    # Both are held until the reply has started: if it waited for either, it would never start.
    release = threading.Event()

    def slow_write(*args, **kwargs):
        release.wait(60)
        return []

    def slow_prepare(*args, **kwargs):
        release.wait(60)
        raise AssertionError("should have been abandoned")

    monkeypatch.setattr(long_term, "after_reply_now", slow_write)
    monkeypatch.setattr(long_term, "_prepare", slow_prepare)
    reply = ReplyProcessor(_chat(), ConversationLog(), PromptOptions("be brief"),
                           memory=ReplyMemory(long_term=long_term), options=ReplyOptions(min_clause_chars=4))
    turn = _turn("I always want a window seat")
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    async def release_once_the_reply_starts() -> bool:
        await until(lambda: "llm_start" in turn.marks)
        release.set()
        return True

    watcher = aio.ensure_future(aio.wait_for(release_once_the_reply_starts(), 30))
    try:
        down, _ = await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
        assert await watcher                                      # the reply started with memory still held
    finally:
        release.set()
    assert isinstance(down[-1], AgentTurnEndFrame)
    assert turn.memories is not None and turn.memories.timed_out is True


def _full_turn() -> Turn:
    """A voice turn every stage wrote to: what trace.jsonl has carried since trace v1."""
    from monologue.memory.longterm.engine import BeforeReply

    turn = Turn(turn_id=3, start_pts=9.4, end_pts=12.1, end_wait_secs=0.5, detected_at=100.0,
                      vad_engine="silero")
    turn.asr = Transcription(text="Four people at seven.", language="en", confidence=0.91, avg_logprob=-0.2,
                             no_speech_prob=0.01, audio_secs=2.7, low_confidence=False)
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    turn.classifier = Classification(cues=["four", "seven"], triggers_monologue=True)
    turn.monologue = MonologueOutcome(update={
        "text": "Settled: party size = 4.", "version": 2, "operations": [{"op": "set"}], "state_before": {},
        "state_after": {"version": 2}, "diff": {"party_size": 4}, "clarify": "", "llm_used": False,
        "llm_error": "", "timings_ms": {"rules": 1.5}})
    turn.memories = MemoryRecall.of(BeforeReply(recalled=["I prefer window seats."],
                                                 reflections=["Likes quiet places."], ms=12.34, exact="party of four"))
    turn.reply.model, turn.reply.text, turn.reply.state_version = "openai/gpt-4o-mini", "Noted.", 2
    turn.reply.prompt = [{"role": "user", "content": "Four people at seven."}]
    turn.reply.decision, turn.reply.source = {"act": "ask", "key": "time"}, "model"
    turn.reply.tokens = {"prompt_tokens": 310, "cached_tokens": 280, "evaluated_tokens": 30, "generated_tokens": 6}
    turn.tts = SpeechSynthesis(compute_secs=0.08, clauses=1, audio_secs=0.58, session_start_secs=13.7)
    for name, at in (("asr_done", 100.2), ("classified", 100.21), ("llm_first_token", 100.9),
                     ("first_audio", 101.0)):
        turn.mark(name, at)
    turn.compute.update(asr=0.2, classifier=0.0004)
    turn.turn_end = TurnEnd(rule="meaning", verdict={"finished": True, "ms": 40.0, "probability": 0.9}, partials=2)
    return turn


def test_trace_line_keeps_its_keys_and_values():
    """trace.jsonl is read by benchmarks and people: a section's shape changes only with TRACE_VERSION."""
    line = trace_line(_full_turn())
    assert list(line) == ["v", "turn", "vad", "asr", "turn_class", "classifier", "monologue", "memories",
                          "reply", "tts", "latency_ms", "compute_ms", "barge_in", "turn_end"]
    assert line == {
        "v": 3, "turn": 3,
        "vad": {"engine": "silero", "start_secs": 9.4, "end_secs": 12.1, "turn_end_wait_secs": 0.5},
        "asr": {"text": "Four people at seven.", "language": "en", "confidence": 0.91, "avg_logprob": -0.2,
                "no_speech_prob": 0.01, "audio_secs": 2.7, "low_confidence": False},
        "turn_class": "information_change",
        "classifier": {"cues": ["four", "seven"], "triggers_monologue": True},
        "monologue": {"text": "Settled: party size = 4.", "version": 2, "operations": [{"op": "set"}],
                      "state_before": {}, "state_after": {"version": 2}, "diff": {"party_size": 4},
                      "clarify": "", "llm_used": False, "llm_error": "", "timings_ms": {"rules": 1.5}},
        "memories": {"recalled": ["I prefer window seats."], "ms": 12.3, "timed_out": False,
                     "reflections": ["Likes quiet places."], "exact": "party of four"},
        "reply": {"model": "openai/gpt-4o-mini", "state_version": 2,
                  "prompt": [{"role": "user", "content": "Four people at seven."}], "text": "Noted.", "error": "",
                  "decision": {"act": "ask", "key": "time"}, "source": "model", "check": [],
                  "tokens": {"prompt_tokens": 310, "cached_tokens": 280, "evaluated_tokens": 30,
                             "generated_tokens": 6}},
        "tts": {"compute_secs": 0.08, "clauses": 1, "audio_secs": 0.58, "session_start_secs": 13.7},
        "latency_ms": {"turn_end_wait": 500.0, "start_wait": 500.0, "asr_done": 200.0, "classified": 210.0,
                       "llm_first_token": 900.0, "first_audio": 1000.0, "voice_to_voice": 1500.0},
        "compute_ms": {"asr": 200.0, "classifier": 0.4}, "barge_in": {},
        "turn_end": {"rule": "meaning", "verdict": {"finished": True, "ms": 40.0, "probability": 0.9}, "partials": 2},
    }
    assert list(line["asr"]) == ["text", "language", "confidence", "avg_logprob", "no_speech_prob", "audio_secs",
                                 "low_confidence"]
    assert list(line["tts"]) == ["compute_secs", "clauses", "audio_secs", "session_start_secs"]


def test_trace_line_leaves_sections_a_turn_never_reached_empty():
    turn = Turn(turn_id=1, start_pts=0.0, end_pts=0.4, end_wait_secs=0.5, detected_at=100.0, vad_engine="webrtc")
    turn.asr = Transcription(text="", error="RuntimeError: model file damaged")
    line = trace_line(turn)
    assert line["asr"] == {"text": "", "error": "RuntimeError: model file damaged"}
    assert line["classifier"] == line["monologue"] == line["memories"] == line["tts"] == {}
    assert line["turn_class"] == "" and line["reply"] == {"model": "", "state_version": None, "prompt": [],
                                                          "text": "", "error": "", "decision": {},
                                                          "source": "", "check": [], "tokens": {}}
    assert line["latency_ms"] == {"turn_end_wait": 500.0, "start_wait": 500.0} and line["compute_ms"] == {}
    assert line["turn_end"] == {}


def test_trace_line_of_a_chit_chat_turn_and_a_failed_clause():
    turn = Turn(turn_id=2, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0, detected_at=100.0, vad_engine="text")
    turn.asr = Transcription(text="Nice weather.", confidence=1.0, language="", source="text")
    turn.classifier = Classification(cues=[], triggers_monologue=False)
    turn.monologue = MonologueOutcome.skip("chit-chat")
    turn.tts = SpeechSynthesis(compute_secs=0.05, clauses=1, audio_secs=0.4, errors=["RuntimeError: voice gone"])
    line = trace_line(turn)
    assert line["asr"] == {"text": "Nice weather.", "confidence": 1.0, "language": "", "source": "text"}
    assert line["classifier"] == {"cues": [], "triggers_monologue": False}
    assert line["monologue"] == {"text": "", "skipped": True, "reason": "chit-chat"}
    assert line["tts"] == {"compute_secs": 0.05, "clauses": 1, "audio_secs": 0.4,
                           "errors": ["RuntimeError: voice gone"]}
    failed = MonologueOutcome.failed("TimeoutError: update took too long")
    assert trace_line(Turn(2, 0.0, 0.0, 0.0, 100.0, monologue=failed))["monologue"] == {
        "text": "", "error": "TimeoutError: update took too long"}


def test_the_template_does_not_repeat_the_words_the_model_ended_with():
    from monologue.processors.reply_wording import without_overlap

    assert without_overlap("Done:", "Done: I've booked it.") == "I've booked it."
    assert without_overlap("Sure.", "What time would suit you?") == "What time would suit you?"
    assert without_overlap("好的，", "好了，订好了。") == "好了，订好了。"


def _draft(text: str, turn_id: int = 1) -> Turn:
    turn = _turn(text, turn_id)
    turn.start_draft()
    return turn


@pytest.mark.parametrize("stands", [False, True])
async def test_a_chit_chat_draft_enters_the_log_only_once_it_stands(stands: bool):
    log = ConversationLog()
    turn = _draft("By the way.")
    await run_test(MonologueProcessor(log), frames_to_send=[UserTurnFrame(turn=turn)],
                   expected_down_frames=[UserTurnFrame])
    assert log.all() == []          # provisional: the user may go on
    assert turn.is_draft and not turn.decided
    turn.confirm_draft() if stands else turn.drop_draft()
    await asyncio.sleep(0)
    assert [u.text for u in log.all()] == (["By the way."] if stands else [])


async def test_a_dropped_drafts_state_update_stops_its_llm_call():
    llm = ScriptedJsonLLM([], delay=30.0)      # the LLM call would hold the model for 30 s
    memory = WorkingMemory("draft", options=WorkingMemoryOptions(llm_mode="always"), llm=llm)
    log = ConversationLog()
    turn = _draft("Actually, um.")
    turn.classifier = Classification(["actually"], triggers_monologue=True)
    turn.turn_class = TurnClass.INFORMATION_CHANGE
    await run_test(MonologueProcessor(log, memory), frames_to_send=[UserTurnFrame(turn=turn)],
                   expected_down_frames=[UserTurnFrame])
    await asyncio.wait_for(llm.asked.wait(), 10.0)
    assert turn.is_draft and turn.updates_state
    turn.drop_draft()            # the user went on
    assert await asyncio.wait_for(turn.wait_for_state(), 10.0) is None
    assert turn.monologue is not None and "draft dropped" in turn.monologue.reason
    assert log.all() == [] and memory.state.version == 0


class PrefillRecordingLLM(ChatLLM):
    """A mocked reply model that records what it was asked to compute ahead."""

    def __init__(self) -> None:
        super().__init__(LLMOptions(model="openai/gpt-4o-mini", fallback=None, mock_response="Sure, noted."))
        self.heads: list[list[dict[str, str]]] = []

    async def prefill(self, messages: list[dict[str, str]],
                      cancel: threading.Event | None = None) -> dict[str, int] | None:
        self.heads.append(messages)
        return {"prompt_tokens": 0, "evaluated_tokens": 0}


async def _one_model_worded_turn(llm: ChatLLM) -> ReplyProcessor:
    """One turn answered by `llm`, its user line in the log as the monologue puts it there."""
    log = ConversationLog()
    turn = _turn("book a table for four at seven")
    log.add("user", turn.text, turn.turn_id)
    reply = ReplyProcessor(llm, log, PromptOptions("be brief"), options=ReplyOptions(min_clause_chars=4))
    await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    return reply


async def test_once_a_reply_is_in_the_log_the_next_prompt_head_is_computed_ahead():
    llm = PrefillRecordingLLM()
    await _one_model_worded_turn(llm)
    assert llm.heads == [[{"role": "system", "content": "be brief"},
                          {"role": "user", "content": "book a table for four at seven"},
                          {"role": "assistant", "content": "Sure, noted."}]]
    policy = ReplyProcessor(llm, ConversationLog(), PromptOptions("be brief"),
                            options=ReplyOptions(wording="policy"))
    await run_test(policy, frames_to_send=[UserTurnFrame(turn=_turn())])
    assert len(llm.heads) == 1 and policy._prefilling is None     # no model call to get ready for


class SlowPrefillLLM(PrefillRecordingLLM):
    """Its head start takes longer than the session: the session's end must stop it."""

    def __init__(self) -> None:
        super().__init__()
        self.running: list[tuple[asyncio.Task[Any], threading.Event | None]] = []

    async def prefill(self, messages: list[dict[str, str]],
                      cancel: threading.Event | None = None) -> dict[str, int] | None:
        task = asyncio.current_task()
        assert task is not None
        self.running.append((task, cancel))
        await asyncio.sleep(30)
        return None


async def test_a_head_still_computed_when_the_session_ends_is_stopped_not_left_dangling():
    llm = SlowPrefillLLM()
    reply = await _one_model_worded_turn(llm)
    [(task, cancel)] = llm.running
    assert cancel is not None and cancel.is_set()      # the model was told to let go…
    assert task.cancelled()                            # …and nothing waits on it any more
    assert not reply._stopped_prefills


@pytest.mark.parametrize("unheard", [(), (4,), (6, 7), (3, 9, 10)])
def test_the_head_computed_ahead_is_where_the_next_prompt_starts(unheard):
    """Turn after turn, through the window's restarts: what is computed once a reply is in the
    log is exactly the start of the next reply's prompt, so that call evaluates only the rest.
    Also where a reply was cut before the user heard any of it (`unheard`: no assistant line
    that turn), which leaves the log not alternating."""
    from monologue.processors.reply_whole_history import whole_history_head, whole_history_prompt
    from monologue.processors.reply_wording import ReplyWording

    async def push(frame: Any) -> None:
        return None

    log = ConversationLog()
    options = PromptOptions("be brief", recent_turns=6)
    wording = ReplyWording(PrefillRecordingLLM(), options, push)
    log.add("assistant", "Hello, how can I help?", 0)
    for turn_id in range(1, 15):
        head = wording.next_prompt_head(log)
        baseline_head = whole_history_head("be brief", log)
        turn = _turn(f"user says {turn_id}", turn_id)
        log.add("user", turn.text, turn_id)
        prompt = build_reply_prompt(log, turn, options, "Planner: say hi.", wording._window.select(log, turn_id))
        assert prompt[: len(head)] == head, f"turn {turn_id}"
        assert prompt[len(head):] == [{"role": "user", "content": f"user says {turn_id}\n\nPlanner: say hi."}]
        assert whole_history_prompt("be brief", log, turn)[: len(baseline_head)] == baseline_head
        if turn_id not in unheard:
            log.add("assistant", f"agent says {turn_id}", turn_id)
