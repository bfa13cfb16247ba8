"""Barge-in (P6): the user's speech stops the agent, and only what was heard is remembered."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import numpy as np
import pytest
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.tests.utils import run_test

from monologue.configs import load_config
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.state import SessionState
from monologue.memory.working.turn_classes import TurnClass
from monologue.models.chat import ChatLLM
from monologue.pipeline.audio_io import SessionAudio, load_session
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.replay import ReplayOptions, replay_audio
from monologue.processors.barge_in import BackchannelCheck, BargeInProcessor
from monologue.processors.frames import (
    AgentPausedFrame,
    AgentTurnEndFrame,
    BargeInFrame,
    Heard,
    ReplyAudioFrame,
    SpeechStartedFrame,
    Turn,
    UserTurnFrame,
)
from monologue.processors.playout import Playout, heard_of

from fakes import FakeTranscriber, SpeakingSynthesizer

DEMO = "assets/demo_session/demo.flac"


def _turn(turn_id: int = 1, text: str = "", start: float = 0.0, end: float = 1.0) -> Turn:
    from monologue.processors.frames import Transcription

    turn = Turn(turn_id=turn_id, start_pts=start, end_pts=end, end_wait_secs=0.5,
                detected_at=time.perf_counter())
    turn.asr = Transcription(text=text)
    return turn


# --- which words were heard ---------------------------------------------------------------

def test_heard_keeps_whole_clauses_and_the_words_played_of_the_cut_one():
    clauses = [("What time would suit you?", 1000), ("Luigi's has a table at seven.", 1000)]
    assert heard_of(clauses, 2000) == Heard(("What time would suit you?", "Luigi's has a table at seven."), (), False)
    half = heard_of(clauses, 1500)
    assert half.cut and half.clauses[0] == "What time would suit you?"
    assert half.clauses[1] == "Luigi's has a" and half.unheard == ("table at seven.",)
    assert heard_of(clauses, 0) == Heard((), ("What time would suit you?", "Luigi's has a table at seven."), True)


def test_heard_uses_pipers_word_ends_when_they_match_the_words():
    text = "I have booked Luigi's Trattoria for you."
    ends = (100, 200, 400, 600, 900, 1000, 1300)        # seven words, as piper's alignments give them
    assert heard_of([(text, 1400, ends)], 650).clauses == ("I have booked Luigi's",)
    assert heard_of([(text, 1400, ends)], 850).clauses == ("I have booked Luigi's",)
    assert heard_of([(text, 1400, ends)], 850, slack=60).clauses == ("I have booked Luigi's Trattoria",)
    assert heard_of([(text, 1400, ends)], 900).clauses == ("I have booked Luigi's Trattoria",)
    # espeak read something as more words than the text has: proportions, not a wrong word
    assert heard_of([(text, 1400, ends + (1350,))], 700).clauses == heard_of([(text, 1400)], 700).clauses


@pytest.mark.slow
def test_pipers_alignments_give_one_end_per_word(real_models):
    tts = real_models.tts
    chunks = list(tts.synthesize_timed("Shall I book Luigi's Trattoria on Saturday for four people?"))
    ends = [e for _, found in chunks for e in (found or ())]
    assert tts.aligned and len(ends) == 10 and ends == sorted(ends)
    assert ends[-1] <= sum(len(a) // 2 for a, _ in chunks)


def test_heard_counts_chinese_by_characters():
    heard = heard_of([("好的，我帮您订六个人。", 1100)], 500)
    assert heard.cut and heard.clauses == ("好的，我帮",) and heard.unheard == ("您订六个人。",)


@pytest.mark.parametrize("text,secs,expected", [
    ("Mm-hm.", 0.5, True), ("okay", 0.4, True), ("Yeah, right.", 0.8, True), ("嗯。", 0.3, True),
    ("对对对", 0.6, True), ("uh huh", 0.5, True),
    ("Okay, but make it eight.", 1.1, False), ("No, stop.", 0.5, False), ("等一下", 0.5, False),
    ("okay", 2.5, False),       # long: something was said that the transcript lost
    ("", 0.3, False),
])
def test_backchannels_are_short_and_nothing_else(text, secs, expected):
    check = BackchannelCheck(load_config(environ={}).barge_in.backchannels_en
                             + load_config(environ={}).barge_in.backchannels_zh)
    assert check(_turn(text=text, start=1.0, end=1.0 + secs)) is expected


# --- the barge-in stage -------------------------------------------------------------------

async def test_a_backchannel_over_the_agent_is_not_answered_and_a_real_turn_interrupts():
    stage = BargeInProcessor(BackchannelCheck(["mm-hm", "okay"]))
    backchannel, real = _turn(2, "Mm-hm.", 5.0, 5.4), _turn(3, "Actually, make it six.", 8.0, 9.5)
    down, _ = await run_test(stage, frames_to_send=[
        AgentPausedFrame(turns=(1,)), UserTurnFrame(turn=backchannel),
        AgentPausedFrame(turns=(1,)), UserTurnFrame(turn=real),
    ])
    decisions = [f for f in down if isinstance(f, BargeInFrame)]
    assert [(d.turn.turn_id, d.interrupt) for d in decisions] == [(2, False), (3, True)]
    assert backchannel.turn_class == "backchannel"
    assert [f.turn for f in down if isinstance(f, AgentTurnEndFrame)] == [backchannel]   # ended unanswered
    assert [f.turn for f in down if isinstance(f, UserTurnFrame)] == [real]


async def test_yes_over_the_last_words_of_a_question_answers_it():
    """"…shall I book it?" — "Yes." over "book it?": the answer, not a backchannel."""
    stage = BargeInProcessor(BackchannelCheck(["yes", "okay"]), answer_window_secs=1.0)
    early, late = _turn(2, "Yes.", 5.0, 5.4), _turn(3, "Yes.", 9.0, 9.4)
    from pipecat.tests.utils import SleepFrame

    down, _ = await run_test(stage, frames_to_send=[
        AgentPausedFrame(turns=(1,), left_secs=4.0, asks=True), UserTurnFrame(turn=early), SleepFrame(sleep=0.05),
        AgentPausedFrame(turns=(1,), left_secs=0.6, asks=True), UserTurnFrame(turn=late),
    ])
    decisions = [(f.turn.turn_id, f.interrupt) for f in down if isinstance(f, BargeInFrame)]
    assert decisions == [(2, False), (3, True)]              # early: a backchannel; at the end: the answer
    assert [f.turn for f in down if isinstance(f, UserTurnFrame)] == [late]


async def test_okay_when_the_agent_is_silent_is_an_answer():
    stage = BargeInProcessor(BackchannelCheck(["okay"]))
    down, _ = await run_test(stage, frames_to_send=[UserTurnFrame(turn=_turn(2, "Okay."))])
    assert [type(f) for f in down if isinstance(f, (BargeInFrame, UserTurnFrame))] == [BargeInFrame, UserTurnFrame]


# --- live playout -------------------------------------------------------------------------

async def test_live_playout_cut():
    """The voice stops within the lead after the user starts, and only the words played are heard."""
    playout = Playout("live", lead_ms=60)
    released: list[tuple[float, int]] = []
    heard: list[Heard] = []

    async def push(frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        if isinstance(frame, ReplyAudioFrame):
            released.append((time.perf_counter(), len(frame.audio) // 2))

    async def played(_turn: Turn, what: Heard) -> None:
        heard.append(what)

    playout.push_frame = push            # type: ignore[method-assign]

    def task(coro: Any, name: str | None = None, *_: Any) -> asyncio.Task[Any]:
        return asyncio.ensure_future(coro)

    playout.create_task = task             # type: ignore[method-assign, assignment]
    turn = _turn(1, "Book it.")
    turn.commit_heard_with(played)
    rate = 22050
    # A long first clause: the user speaks inside it however late this machine wakes from the sleep.
    first = np.full(int(rate * 6.0), 1000, dtype=np.int16).tobytes()
    clause = np.full(int(rate * 1.5), 1000, dtype=np.int16).tobytes()
    await playout._arrive(ReplyAudioFrame(audio=first, sample_rate=rate, num_channels=1, turn=turn,
                                          clause="I have booked Luigi's Trattoria", clause_index=0))
    await playout._arrive(ReplyAudioFrame(audio=clause, sample_rate=rate, num_channels=1, turn=turn,
                                          clause="for six people at seven tonight.", clause_index=1))
    await playout._ended(AgentTurnEndFrame(turn=turn))
    await asyncio.sleep(1.2)
    speech = SpeechStartedFrame(start_pts=1.0, detected_pts=1.2, detected_at=time.perf_counter())
    await playout._user_started(speech)
    await asyncio.sleep(0.4)                         # the user is still talking: nothing more goes out
    await playout._decided(BargeInFrame(turn=_turn(2, "Wait, no."), interrupt=True))
    await asyncio.sleep(0.1)
    after = [n for at, n in released if at > speech.detected_at + 0.005]
    assert sum(after) / rate <= 0.1                  # at most the piece in hand
    last_out = max(at for at, _ in released)
    assert last_out - speech.detected_at < 0.3
    assert turn.barge_in is not None and turn.barge_in.cut and turn.barge_in.by_turn == 2
    assert turn.barge_in.stop_ms is not None and turn.barge_in.stop_ms < 300
    assert heard and heard[0].cut
    said = " ".join(heard[0].clauses)
    assert said and "I have booked Luigi's Trattoria".startswith(said)   # a part of the first clause, no more
    assert "seven tonight." in " ".join(heard[0].unheard)
    if playout._releaser is not None:
        playout._releaser.cancel()


# --- a replayed session in which the user speaks over the agent ----------------------------

def _speech_spans(samples: np.ndarray, rate: int) -> list[tuple[int, int]]:
    """The stretches of speech in a recording: louder than silence, split by a second of quiet."""
    frame = rate // 50
    loud = [np.abs(samples[i: i + frame]).max() > 500 for i in range(0, samples.size - frame, frame)]
    spans: list[tuple[int, int]] = []
    start, quiet = None, 0
    for index, on in enumerate(loud):
        if on:
            start = index if start is None else start
            quiet = 0
        elif start is not None:
            quiet += 1
            if quiet > 50:
                spans.append((start * frame, (index - quiet + 1) * frame))
                start, quiet = None, 0
    if start is not None:
        spans.append((start * frame, len(loud) * frame))
    return spans


def _overlapping_session() -> SessionAudio:
    """Demo speech re-timed so the user talks over the agent twice, and backchannels once."""
    demo = load_session(DEMO, sample_rate=16000)
    rate = demo.sample_rate
    spans = _speech_spans(demo.samples, rate)
    assert len(spans) == 5, spans
    speech = [demo.samples[a:b] for a, b in spans]

    def quiet(secs: float) -> np.ndarray:
        return np.zeros(int(secs * rate), dtype=np.int16)

    pieces = [quiet(0.5), speech[0], quiet(5.0),      # the agent asks for the time (heard whole)
              speech[1], quiet(0.75),                 # the user cuts in just as the offer starts
              speech[3], quiet(2.5),                  # …the agent re-offers for six people
              speech[2][: int(0.6 * rate)], quiet(9.0),   # "mm-hm" over it: the agent goes on
              speech[4], quiet(6.0)]                  # "yes": it books
    samples = np.concatenate(pieces)
    return SessionAudio(samples=samples, sample_rate=rate, sources=("overlap",), original_rate=rate,
                        original_channels=1)


class StatesSeen(InMemoryStateStore):
    """Keeps every committed state, to show what never entered it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[SessionState] = []

    def commit(self, state, expected_version, changes):
        super().commit(state, expected_version, changes)
        self.seen.append(SessionState.from_dict(json.loads(state.to_json())))


async def test_replay_cuts_the_reply_the_user_spoke_over(tmp_path):
    config = load_config(environ={}, overrides={
        "llm": {"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "Okay."},
        "monologue": {"llm_mode": "never"}, "reply": {"wording": "policy"},
        # The session is timed for turns that end after a fixed 0.5 s (the user cuts in at a set
        # moment of the offer); ends by meaning come sooner and would move where the cut falls.
        "turn": {"end_by": "silence"},
        # …and for a fixed compute time before each reply, not this machine's.
        "replay": {"compute_secs": 0.6}})
    texts = ["Hi, I'd like to book a table for four people on Saturday evening.",
             "Around seven o'clock would be great. And please, nothing spicy.",
             "Actually, make it six people instead of four.",
             "Mm-hm.",
             "Yes, that sounds good. Thank you!"]
    models = AgentModels(asr=FakeTranscriber(texts), tts=SpeakingSynthesizer(), llm=ChatLLM(config.llm))
    store = StatesSeen()
    result = await replay_audio(_overlapping_session(), config, models, tmp_path,
                                ReplayOptions(store=store, session_id="overlap"))
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    by_turn = {line["turn"]: line for line in lines}
    assert [line["turn"] for line in lines] == [1, 2, 3, 4, 5]     # in order, backchannel included

    # Turn 2's offer was cut before its name was said: never offered, never in the state.
    cut = by_turn[2]["barge_in"]
    assert cut["cut"] is True and cut["by_turn"] == 3
    assert "Luigi" in cut["unspoken"] and "Luigi" not in cut.get("spoken", "")
    assert cut["stop_ms"] <= 300
    assert by_turn[2]["reply"]["decision"]["act"] == "propose"
    for state in store.seen:
        if state.turn <= 2:
            assert not state.offered and not any("Luigi" in str(p) for p in state.proposal)
            assert all(a.act != "propose" for a in state.acts)

    # The re-offer was heard whole: a backchannel only paused it, and it was not answered.
    assert by_turn[4]["turn_class"] == "backchannel" and by_turn[4]["barge_in"]["backchannel"] is True
    assert by_turn[4]["reply"]["text"] == ""
    assert not by_turn[3]["barge_in"].get("cut")
    assert any(o for s in store.seen if s.turn == 3 for o in s.offered)

    # "Yes" books what was heard.
    assert by_turn[5]["reply"]["decision"]["act"] == "act"
    final = store.load("overlap")
    assert final is not None and final.done and "6" in str(final.done[-1])

    # The recordings show the cut: no agent audio between the cut and the next reply.
    transcript = (tmp_path / "transcript.txt").read_text()
    # On this timeline the user began before the offer's voice would have: it was never said.
    assert "agent: (not said: the user went on) [worded: Luigi's" in transcript
    assert "(a backchannel: not answered)" in transcript
    import soundfile

    reply, rate = soundfile.read(tmp_path / "reply.wav", dtype="int16")
    cut_at = cut["cut_at_secs"]
    after_cut = reply[int((cut_at + 0.05) * rate): int(by_turn[3]["tts"]["session_start_secs"] * rate)]
    assert after_cut.size > 0 and np.abs(after_cut).max() == 0
    assert result.turns and len(result.turns) == 5


# --- the reply still being worded is cancelled ----------------------------------------------

async def test_a_cut_cancels_the_reply_still_being_worded():
    """The model is still talking when the user cuts in: it is stopped, the turn still ends,
    and only what the playout says was heard is committed."""
    from pipecat.tests.utils import SleepFrame

    from monologue.memory.working.conversation import ConversationLog
    from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
    from monologue.processors.reply import ReplyMemory, ReplyOptions, ReplyProcessor
    from monologue.processors.reply_wording import PromptOptions

    from fakes import PlannerFollowingLLM

    class Slow(PlannerFollowingLLM):
        streamed = 0

        async def stream(self, messages, stats):
            # Three words at once, then a word per 10 s: the cut comes long before the fourth,
            # however slow this machine is.
            words = "Oh, it really has been lovely weather, and I hope it stays that way all week long.".split()
            for index, word in enumerate(words):
                await asyncio.sleep(0.1 if index < 3 else 10.0)
                Slow.streamed += 1
                yield word + " "

    memory = WorkingMemory("cut", options=WorkingMemoryOptions(llm_mode="never"))
    log = ConversationLog()
    reply = ReplyProcessor(Slow(every=0), log, PromptOptions("You are Monologue."), memory=ReplyMemory(memory),
                           options=ReplyOptions(commit_when_played=True))
    turn = _turn(1, "Lovely weather this week, isn't it?")
    turn.turn_class = TurnClass.CHIT_CHAT
    down, _ = await run_test(reply, frames_to_send=[
        UserTurnFrame(turn=turn), SleepFrame(sleep=0.45),
        BargeInFrame(turn=_turn(2, "Sorry, book a table."), interrupt=True), SleepFrame(sleep=0.3)])
    assert Slow.streamed <= 3                                # stopped, not worded to the end
    assert [f.turn for f in down if isinstance(f, AgentTurnEndFrame)] == [turn]
    assert turn.reply.source == "cancelled"
    # Nothing is committed until the playout says what was heard; then only that.
    assert not [u for u in log.recent(4) if u.role == "assistant"]
    await turn.mark_heard(Heard(("Oh,",), ("it really has been lovely",), cut=True))
    assert [u.text for u in log.recent(4) if u.role == "assistant"] == ["Oh,"]
    assert memory.state.last_turn_action in ("", "Oh,")


async def test_what_was_heard_is_committed_in_the_replys_own_language():
    """An English answer in a Chinese session: the heard clauses keep the spaces between them."""
    from monologue.memory.working.conversation import ConversationLog
    from monologue.processors.reply import ReplyOptions, ReplyProcessor
    from monologue.processors.reply_wording import PromptOptions

    from fakes import PlannerFollowingLLM

    log = ConversationLog()
    reply = ReplyProcessor(PlannerFollowingLLM(every=0), log, PromptOptions("You are Monologue."),
                           options=ReplyOptions(language="zh", wording="policy", commit_when_played=True))
    turn = _turn(1, "Could you tell me what you can do for me today?")
    turn.turn_class = TurnClass.CHIT_CHAT
    await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    await turn.mark_heard(Heard(("Sure.", "What can I do for you?"), (), cut=False))
    assert [u.text for u in log.recent(4) if u.role == "assistant"] == ["Sure. What can I do for you?"]


async def test_a_reply_heard_to_its_end_just_before_the_next_turn_is_committed_at_once():
    """Replay: the user's next words began within the voice's lead of the reply's end. The
    reply was not cut, and was left waiting for later speech to show it had played: its commit
    never came, and "就订这家" answered the offer before it (the first place was booked)."""
    playout = Playout("timeline", lead_ms=60, compute_secs=0.5)
    heard: list[Heard] = []

    async def push(frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        return None

    async def played(_turn: Turn, what: Heard) -> None:
        heard.append(what)

    playout.push_frame = push            # type: ignore[method-assign]
    turn = _turn(1, "羊大爷涮肉坊有位子吗", start=0.0, end=1.0)
    turn.commit_heard_with(played)
    rate = 24000
    audio = np.full(rate * 2, 1000, dtype=np.int16).tobytes()        # 2 s of voice
    await playout._arrive(ReplyAudioFrame(audio=audio, sample_rate=rate, num_channels=1, turn=turn,
                                          clause="我推荐羊大爷涮肉坊亮马桥店", clause_index=0))
    await playout._ended(AgentTurnEndFrame(turn=turn))
    start = turn.tts.session_start_secs
    assert start is not None and not heard
    end = start + 2.0
    speech = SpeechStartedFrame(start_pts=end - 0.03, detected_pts=end - 0.03, detected_at=time.perf_counter())
    await playout._user_started(speech)           # inside the last 60 ms: the voice is held…
    await playout._decided(BargeInFrame(turn=_turn(2, "好的，就订这家", start=end - 0.03, end=end + 1.5),
                                        interrupt=True))
    assert heard and heard[0].clauses == ("我推荐羊大爷涮肉坊亮马桥店",) and not heard[0].cut   # …heard whole
    assert turn.barge_in is None or not turn.barge_in.cut
