"""Turn ends by meaning, drafts and streaming transcripts: fakes, no timing asserts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pytest
from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.frames.frames import Frame, InputAudioRawFrame
from pipecat.tests.utils import run_test
from test_barge_in import DEMO, StatesSeen, _speech_spans
from test_processors import LoudnessVAD

from monologue.configs import load_config
from monologue.models.asr import Transcript
from monologue.models.chat import ChatLLM
from monologue.pipeline.audio_io import SessionAudio, load_session
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.replay import ReplayOptions, replay_audio
from monologue.processors.frames import SpeechSegmentFrame, Turn
from monologue.processors.turn_end import PartialTranscriber, TurnEndJudge, TurnEndOptions, unfinished_ending
from monologue.processors.vad import SegmentOptions, VADProcessor

from fakes import FakeTranscriber, SpeakingSynthesizer

EN = load_config(environ={}).turn.unfinished_en
ZH = load_config(environ={}).turn.unfinished_zh


@pytest.mark.parametrize(("text", "language", "cue"), [
    ("I'd like to book a table for, um", "en", "um"),
    ("Book it for Saturday and", "en", "and"),
    ("Can you take me to", "en", "to"),
    ("I'd like the...", "en", "…"),
    ("Somewhere near the station, I'd like", "en", "i'd like"),
    ("Book it for Saturday.", "en", ""),
    ("Four people at seven.", "en", ""),
    ("Turn the heating on.", "en", ""),        # "on" ends a phrasal verb here, yet it is a cue:
    ("帮我订一个周六的位子，然后", "zh", "然后"),
    ("我想要，呃", "zh", "呃"),
    ("四个人，七点。", "zh", ""),
    ("", "en", ""),
])
def test_unfinished_endings(text, language, cue):
    if text == "Turn the heating on.":
        cue = "on"      # the words lean to waiting; the voice cannot overrule them (a known cost)
    assert unfinished_ending(text, EN if language == "en" else ZH, language) == cue


class Probability:
    def __init__(self, value: float) -> None:
        self.value = value
        self.heard: list[int] = []

    def probability(self, audio: np.ndarray) -> float:
        self.heard.append(audio.size)
        return self.value


async def test_the_judge_weighs_the_words_over_the_voice():
    options = TurnEndOptions(end_after_secs=0.35, unsure_secs=0.7, hold_secs=1.2, unfinished_en=EN)
    sure = await TurnEndJudge(Probability(0.9), options).judge(np.zeros(16000, np.float32), "Four people.")
    assert sure.finished and sure.wait_secs(options) == 0.35 and sure.probability == pytest.approx(0.9)
    flat = await TurnEndJudge(Probability(0.1), options).judge(np.zeros(16000, np.float32), "Four people.")
    assert not flat.finished and flat.words_complete and flat.wait_secs(options) == 0.7
    trailing = await TurnEndJudge(Probability(0.99), options).judge(np.zeros(16000, np.float32), "A table for, um")
    assert not trailing.finished and trailing.cue == "um" and trailing.wait_secs(options) == 1.2
    words_only = await TurnEndJudge(None, options).judge(np.zeros(16000, np.float32), "Four people.")
    assert words_only.finished and words_only.probability is None


class DraftThenWhole:
    """The first breath reads as four people; the whole turn, as six."""

    def __init__(self, breath_secs: float) -> None:
        self.breath_samples = int(breath_secs * 16000)

    def transcribe(self, audio: np.ndarray) -> Transcript:
        text = "Book a table for four people on Saturday." if audio.size <= self.breath_samples \
            else "Book a table for six people on Saturday, please."
        return Transcript(text, "en", 0.9, -0.1, 0.01, audio.size / 16000)


def _chunks(spec: list[tuple[float, bool]], rate: int = 16000, chunk: int = 320) -> list[InputAudioRawFrame]:
    """Quiet or loud stretches, as 20 ms frames; each loud stretch has its own pitch, so the
    audio of a turn that goes on is not mistaken for an earlier one."""
    frames = []
    for index, (secs, loud) in enumerate(spec):
        n = int(secs * rate)
        t = np.arange(n) / rate
        samples = (np.sin(2 * np.pi * (200 + 40 * index) * t) * 8000).astype(np.int16) if loud \
            else np.zeros(n, np.int16)
        frames += [InputAudioRawFrame(audio=samples[i: i + chunk].tobytes(), sample_rate=rate, num_channels=1)
                   for i in range(0, n, chunk)]
    return frames


def _vad(texts: list[str], *, by: Literal["meaning", "silence"] = "meaning", ended: list[Turn] | None = None,
         probability: float | None = None, transcriber=None) -> tuple[VADProcessor, FakeTranscriber]:
    options = TurnEndOptions(by=by, judge_after_secs=0.15, end_after_secs=0.35, unsure_secs=0.7, hold_secs=1.2,
                             silence_secs=0.5, partial_every_secs=0.0, unfinished_en=EN,
                             transcript_wait_secs=60.0)   # the fake transcriber answers; never dropped as slow
    transcriber = transcriber or FakeTranscriber(texts)
    stop = 0.15 if by == "meaning" else 0.5
    vad = VADProcessor(LoudnessVAD(params=VADParams(start_secs=0.1, stop_secs=stop, min_volume=0.0)),
                       SegmentOptions(engine="test"), on_turn_end=(ended.append if ended is not None else None),
                       turn_end=options,
                       judge=TurnEndJudge(Probability(probability) if probability is not None else None, options),
                       partials=PartialTranscriber(transcriber))
    return vad, transcriber


def _segments(down: Sequence[Frame]) -> list[SpeechSegmentFrame]:
    return [f for f in down if isinstance(f, SpeechSegmentFrame)]


async def test_a_finished_turn_is_drafted_then_confirmed_by_its_silence():
    ended: list[Turn] = []
    vad, transcriber = _vad(["Four people at seven."], ended=ended)
    down, _ = await run_test(vad, frames_to_send=_chunks([(0.3, False), (1.0, True), (0.8, False)]))
    [segment] = _segments(down)
    turn = segment.turn
    assert turn.is_draft and turn.decided and not turn.dropped
    assert turn.turn_end.drafted and turn.turn_end.rule == "meaning"
    assert turn.turn_end.draft_wait_secs == pytest.approx(0.16, abs=0.03)     # the judged pause …
    assert turn.end_wait_secs == pytest.approx(0.36, abs=0.03)                # … then the confirming silence
    assert turn.drafted_at is not None and turn.drafted_at <= turn.detected_at
    assert ended == [turn]                     # the gate opens once, when the turn is confirmed
    assert segment.transcript is not None and segment.transcript.result().text == "Four people at seven."
    assert len(transcriber.seen) == 1           # the pass at the end of speech is the turn's transcript
    # Ready before the turn's end was even judged: the pass began when the voice stopped.
    ready, speech_end = turn.turn_end.transcript_ready_at, turn.turn_end.speech_end_at
    assert ready is not None and speech_end is not None and speech_end < ready <= turn.drafted_at
    turn.mark("asr_done", turn.detected_at)
    assert turn.latencies_ms()["asr_after_speech"] == pytest.approx((ready - speech_end) * 1000, abs=0.1)


async def test_a_draft_is_dropped_when_the_user_goes_on():
    ended: list[Turn] = []
    vad, _ = _vad([], ended=ended, transcriber=DraftThenWhole(0.3 + 0.8 + 0.1))
    down, _ = await run_test(vad, frames_to_send=_chunks(
        [(0.3, False), (0.8, True), (0.25, False), (0.8, True), (0.8, False)]))
    draft, final = _segments(down)
    assert draft.turn.is_draft and draft.turn.dropped
    assert final.turn.turn_id == draft.turn.turn_id == 1           # one turn, said in two breaths
    assert final.turn.is_draft and final.turn.decided and not final.turn.dropped
    assert final.turn.turn_end.drafts_dropped == 1
    assert len(final.audio) > len(draft.audio)
    assert draft.transcript is not None and "six" not in draft.transcript.result().text
    assert final.transcript is not None and "six" in final.transcript.result().text
    assert ended == [final.turn]


async def test_unfinished_words_hold_the_turn_open_through_a_long_pause():
    vad, _ = _vad(["I'd like a table for, um", "I'd like a table for, um"])
    # 0.9 s of silence would end a turn by the old rule (0.5 s) and a finished one (0.35 s).
    down, _ = await run_test(vad, frames_to_send=_chunks(
        [(0.3, False), (0.8, True), (0.9, False), (0.6, True), (1.5, False)]))
    [segment] = _segments(down)
    assert not segment.turn.is_draft             # never drafted: the words were unfinished
    assert segment.turn.end_pts == pytest.approx(0.3 + 0.8 + 0.9 + 0.6, abs=0.05)
    assert segment.turn.end_wait_secs == pytest.approx(1.2, abs=0.05)
    assert segment.turn.turn_end.verdict is not None and segment.turn.turn_end.verdict["cue"] == "um"


async def test_complete_words_in_an_unfinished_voice_wait_a_little_longer():
    vad, _ = _vad(["Four people."], probability=0.05)
    down, _ = await run_test(vad, frames_to_send=_chunks([(0.3, False), (0.8, True), (1.2, False)]))
    [segment] = _segments(down)
    assert segment.turn.turn_end.drafted          # complete words: drafted at once all the same
    assert segment.turn.end_wait_secs == pytest.approx(0.7, abs=0.05)


async def test_a_pause_with_no_words_heard_is_not_drafted_and_still_ends_the_turn():
    """A breath, or speech whisper heard nothing in, is nothing to answer: a draft of it could
    only be dropped (the user goes on) or end unanswered. The turn still ends by its silence."""
    vad, _ = _vad([""])
    down, _ = await run_test(vad, frames_to_send=_chunks([(0.3, False), (1.0, True), (0.9, False)]))
    [segment] = _segments(down)
    assert not segment.turn.is_draft and not segment.turn.turn_end.drafted
    assert segment.turn.decided and segment.turn.turn_end.rule == "meaning"


async def test_by_silence_every_turn_waits_the_fixed_time_and_nothing_is_drafted():
    vad, _ = _vad(["Four people."], by="silence")
    down, _ = await run_test(vad, frames_to_send=_chunks([(0.3, False), (0.8, True), (0.3, False), (0.8, True),
                                                          (0.8, False)]))
    [segment] = _segments(down)          # a 0.3 s pause does not end a turn under the old rule
    assert not segment.turn.is_draft and segment.turn.turn_end.rule == "silence"
    assert segment.turn.end_wait_secs == pytest.approx(0.5, abs=0.05)


# --- a dropped draft, end to end ----------------------------------------------------------

async def test_a_dropped_draft_leaves_nothing_said_and_nothing_written(tmp_path):
    config = load_config(environ={}, overrides={
        "llm": {"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "Okay."},
        "monologue": {"llm_mode": "never"}, "reply": {"wording": "policy"},
        "turn": {"smart_turn": False, "transcript_wait_secs": 60}})
    demo = load_session(DEMO, sample_rate=16000)
    spans = _speech_spans(demo.samples, 16000)
    speech = demo.samples[spans[0][0]: spans[0][1]]
    half = speech.size // 2
    gap = np.zeros(int(0.2 * 16000), np.int16)     # judged (0.15 s), drafted, then the user goes on
    samples = np.concatenate([np.zeros(8000, np.int16), speech[:half], gap, speech[half:],
                              np.zeros(5 * 16000, np.int16)])
    session = SessionAudio(samples=samples, sample_rate=16000, sources=("draft",), original_rate=16000,
                           original_channels=1)
    synthesizer = SpeakingSynthesizer()
    models = AgentModels(asr=DraftThenWhole(0.5 + half / 16000 + 0.1), tts=synthesizer, llm=ChatLLM(config.llm))
    store = StatesSeen()
    await replay_audio(session, config, models, tmp_path, ReplayOptions(store=store, session_id="draft"))
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [line["turn"] for line in lines] == [1]
    assert lines[0]["turn_end"]["drafts_dropped"] >= 1
    assert "six" in lines[0]["asr"]["text"]
    # The draft read four people; nothing of it reached the state or the conversation …
    assert all(state.constraints.get("party_size") is None or state.constraints["party_size"].value == 6
               for state in store.seen)
    final = store.load("draft")
    assert final is not None and final.constraints["party_size"].value == 6
    transcript = (tmp_path / "transcript.txt").read_text()
    assert transcript.count("agent:") == 1 and "four people on Saturday." not in transcript.split("agent:")[1]
    # … and the one reply heard is the whole turn's: the time is what is missing now.
    assert lines[0]["reply"]["decision"]["act"] == "ask" and lines[0]["reply"]["decision"]["key"] == "time"
    assert synthesizer.spoken.count(lines[0]["reply"]["text"]) >= 1


class PassesByKind:
    """Counts which pass each call was: a partial one (the turn still spoken) or a whole one."""

    def __init__(self) -> None:
        self.kinds: list[str] = []

    def transcribe(self, audio: np.ndarray) -> Transcript:
        self.kinds.append("whole")
        return Transcript("Four people.", "en", 0.9, -0.1, 0.01, audio.size / 16000)

    def transcribe_partial(self, audio: np.ndarray) -> Transcript:
        self.kinds.append("partial")
        return Transcript("Four", "en", 0.9, -0.1, 0.01, audio.size / 16000)


async def test_passes_while_the_user_speaks_are_partial_ones_and_the_last_is_whole():
    """A partial pass never retries a doubtful window (the final one, due when the user
    stops, would wait behind it); the pass a turn's transcript comes from still does."""
    transcriber = PassesByKind()
    partials = PartialTranscriber(transcriber)
    audio = np.zeros(16000, np.int16).tobytes()
    partials.partial(audio, every_secs=0.0)
    assert partials._running is not None
    await partials._running.result
    final = await partials.final(audio + audio)
    assert transcriber.kinds == ["partial", "whole"]
    assert final.text == "Four people." and partials.latest is final
