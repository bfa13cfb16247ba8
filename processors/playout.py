"""Playout: lets the agent's voice out as it is heard, holds it when the user speaks over it,
and says which words the user heard (P6).

It sits between TTS and the sink and keeps one of two clocks:

- **live** (a WebRTC room, a speaker): audio leaves in small pieces in real time, never more
  than `lead_ms` ahead of what is playing, so holding it is heard within that lead;
- **timeline** (replay): each reply is placed on the session's own timeline where a live
  agent would have started it (end of the user's speech + the turn-end wait + the measured
  time to first audio), and held there until the user's next speech shows how much of it
  played.

When the user starts speaking over a reply the voice is held at once and an
`AgentPausedFrame` goes upstream; the barge-in stage answers with a `BargeInFrame` once it
knows what was said: a real turn drops what is left, a backchannel ("mm-hm") lets the
reply go on. Each reply ends with `await turn.mark_heard(heard)` (the reply stage commits
that much), then its `AgentTurnEndFrame` goes on to the trace. `on_reply_produced(turn)` fires as soon as a
reply is fully produced (replay's turn gate waits for that, not for the playing).
`on_voice(turn, heard, final)` (live clock) tells how far the user has heard a reply: when its
voice starts, at each word heard, and once more when it is over (a room's page shows the words
in step with the voice, and strikes through what a cut left unsaid).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pipecat.frames.frames import CancelFrame, EndFrame, Frame, UserStoppedSpeakingFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.processors.frames import (
    AgentPausedFrame,
    AgentTurnEndFrame,
    BargeIn,
    BargeInFrame,
    Heard,
    ReplyAudioFrame,
    SpeechStartedFrame,
    Turn,
)

PlayoutClock = Literal["live", "timeline"]
WORD_SLACK_SECS = 0.08   # a word cut this close to its end was still heard

_WORD = re.compile(r"\S+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _pieces(clause: str) -> list[tuple[str, int]]:
    """A clause's spoken units with their end offsets: words, or characters in Chinese."""
    if _CJK.search(clause) and " " not in clause.strip():
        return [(ch, i + 1) for i, ch in enumerate(clause)]
    return [(m.group(0), m.end()) for m in _WORD.finditer(clause)]


def heard_of(clauses: Sequence[tuple[str, int] | tuple[str, int, tuple[int, ...] | None]], samples: int,
             slack: int = 0) -> Heard:
    """Which words were heard once `samples` of the reply's audio had played.

    `clauses`: each clause's text and its number of samples, in order, and where each of its
    words ends (samples) when piper's alignments gave that and its words are the text's
    words. A word counts as heard only if its end was played (give or take `slack` samples:
    "Chili Hou—" is heard as the name). With alignments the cut is
    exact to the word; without them (a voice without alignments, or espeak reading "7 pm"
    as more words than the text has) each word is placed in proportion to its length in
    characters, which is right to about a word.
    """
    heard: list[str] = []
    unheard: list[str] = []
    played = samples
    for clause in clauses:
        text, size = clause[0], clause[1]
        ends = clause[2] if len(clause) > 2 else None
        if played >= size:
            heard.append(text)
        elif played <= 0 or not text:
            unheard.append(text)
        else:
            units = _pieces(text)
            if ends is not None and len(ends) == len(units):
                upto = max((end for (_, end), at in zip(units, ends, strict=True) if at <= played + slack),
                           default=0)
            else:
                share = played / size
                upto = max((end for _, end in units if end <= share * len(text)), default=0)
            while upto and text[upto - 1] in "(（ ":    # an opening bracket belongs to what it opens
                upto -= 1
            said, rest = text[:upto].rstrip(" ,，、"), text[upto:].strip()
            if said:
                heard.append(said)
            if rest:
                unheard.append(rest)
        played -= size
    return Heard(tuple(heard), tuple(unheard), cut=bool(unheard))


@dataclass
class _Reply:
    """One turn's reply as it passes through: its clauses, and its audio not yet let out."""

    turn: Turn
    rate: int = 0
    clauses: dict[int, list] = field(default_factory=dict)   # clause index → [text, samples, word ends | None]
    waiting: deque[ReplyAudioFrame] = field(default_factory=deque)  # not yet let out (live) / held (timeline)
    released: int = 0              # samples let out to the sink (live)
    end: AgentTurnEndFrame | None = None
    cut: bool = False
    over: bool = False               # timeline: played to its end before the user's next turn took over
    finishing: bool = False          # its end is on the way to the trace
    told: int = -1                   # live: words `on_voice` has told as heard (-1: its voice not yet started)
    start_secs: float | None = None  # timeline: where it starts
    length_secs: float = 0.0         # timeline: its audio, resumes included

    def add(self, frame: ReplyAudioFrame) -> None:
        self.rate = self.rate or frame.sample_rate
        entry = self.clauses.setdefault(frame.clause_index, [frame.clause, 0, []])
        if frame.word_ends is not None and entry[2] is not None:
            entry[2].extend(entry[1] + end for end in frame.word_ends)
        else:
            entry[2] = None        # a chunk without alignments: the clause falls back to proportions
        entry[1] += len(frame.audio) // 2

    def heard(self, samples: int | None = None) -> Heard:
        ordered = [(str(text), int(size), tuple(ends) if ends is not None else None)
                   for _, (text, size, ends) in sorted(self.clauses.items())]
        total = sum(entry[1] for entry in ordered)
        return heard_of(ordered, total if samples is None else samples, slack=int(WORD_SLACK_SECS * self.rate))

    @property
    def produced(self) -> bool:
        return self.end is not None


class Playout(FrameProcessor):
    """One job: let the agent's voice out as it would be heard, and stop it when the user cuts in."""

    def __init__(self, clock: PlayoutClock = "live", *, lead_ms: float = 60.0, barge_in: bool = True,
                 piece_ms: float = 20.0, compute_secs: float | None = None) -> None:
        """`compute_secs` (timeline only): the agent's time from starting on a turn to its first
        audio, fixed, instead of the time this machine took; the same recording then gives the
        same conversation on a fast machine and a busy one."""
        super().__init__()
        self._clock = clock
        self._compute_secs = compute_secs
        self._lead = lead_ms / 1000
        self._piece_secs = piece_ms / 1000
        self._barge_in = barge_in
        self._replies: dict[int, _Reply] = {}
        self._paused = False
        self._paused_at: SpeechStartedFrame | None = None
        self._paused_since = 0.0
        self._user_speaking = False
        self._cut_below = 0              # replies to turns before this one are not played any more
        self._playhead = 0.0             # live: wall time the audio let out so far ends
        self._cursor = 0.0               # timeline: where the previous reply ended
        self._wake = asyncio.Event()
        self._finishing = asyncio.Lock()
        self._releaser: asyncio.Task | None = None
        self._register_event_handler("on_reply_produced", sync=True)
        self._register_event_handler("on_voice", sync=True)

    @property
    def paused(self) -> bool:
        return self._paused

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ReplyAudioFrame) and direction == FrameDirection.DOWNSTREAM:
            await self._arrive(frame)
            return
        if isinstance(frame, AgentTurnEndFrame):
            await self._ended(frame)
            return
        if isinstance(frame, SpeechStartedFrame):
            self._user_speaking = True
            await self._user_started(frame)
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self._user_speaking = False
        elif isinstance(frame, BargeInFrame):
            await self._decided(frame)
        elif isinstance(frame, (EndFrame, CancelFrame)):
            await self._finish_all()
        await self.push_frame(frame, direction)

    # --- replies arriving ---------------------------------------------------------------

    def _reply(self, turn: Turn) -> _Reply:
        reply = self._replies.get(turn.turn_id)
        if reply is None:
            reply = self._replies[turn.turn_id] = _Reply(turn)
            if 0 < turn.turn_id < self._cut_below:
                # The user spoke a new turn before this reply made a sound: none of it is played.
                reply.cut = True
                turn.barge_in = BargeIn(cut=True, by_turn=self._cut_below)
        return reply

    async def _arrive(self, frame: ReplyAudioFrame) -> None:
        turn = frame.turn
        if not await turn.stands():
            return      # a draft the user talked on through: none of it is heard
        turn.mark("first_audio", time.perf_counter())
        if self._clock == "timeline" and turn.turn_id == 0:
            await self.push_frame(frame)     # the opening greeting is not on the recorded timeline
            return
        reply = self._reply(turn)
        if reply.cut:
            return
        reply.add(frame)
        if self._clock == "timeline":
            self._place(reply, frame)
            return
        if turn.turn_id > 0 and turn.tts.session_start_secs is None:
            # Where the reply starts on the session's clock (the transcript's time stamp).
            turn.tts.session_start_secs = round(turn.end_pts + turn.reply_delay_secs(time.perf_counter()), 3)
        for piece in self._split(frame):
            reply.waiting.append(piece)
        if self._barge_in and self._user_speaking and not self._paused:
            await self._pause(None)   # a late reply does not start while the user is talking
        self._ensure_releaser()
        self._wake.set()

    def _split(self, frame: ReplyAudioFrame) -> list[ReplyAudioFrame]:
        """Pieces of whole 10 ms blocks (what WebRTC senders take; 220 samples at 22,050 Hz),
        the last one padded with silence to a whole block."""
        block = max(frame.sample_rate // 100, 1) * 2
        size = max(round(self._piece_secs * 100), 1) * block
        audio = frame.audio
        if len(audio) % block:
            audio += bytes(block - len(audio) % block)
        return [replace(frame, audio=audio[i: i + size]) for i in range(0, len(audio), size)]

    async def _ended(self, frame: AgentTurnEndFrame) -> None:
        if self._clock == "timeline" and frame.turn.turn_id == 0:
            # The greeting is not on a replay's timeline: it is heard whole.
            await frame.turn.mark_heard(Heard((frame.turn.reply.text,)))
            await self.push_frame(frame)
            return
        reply = self._reply(frame.turn)
        reply.end = frame
        if frame.turn.turn_id > 0:
            await self._call_event_handler("on_reply_produced", frame.turn)
        if self._clock == "timeline":
            await self._finish_ready()
            return
        self._ensure_releaser()
        self._wake.set()

    # --- live: letting audio out in real time --------------------------------------------

    def _ensure_releaser(self) -> None:
        if self._releaser is None or self._releaser.done():
            self._releaser = self.create_task(self._release(), name="playout")

    def _current(self) -> _Reply | None:
        return self._replies[min(self._replies)] if self._replies else None

    async def _release(self) -> None:
        while True:
            reply = self._current()
            if reply is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            if reply.finishing:
                # Another task is finishing it (awaiting the commit): `_finish` would return at
                # once, and looping on it would never yield to that task. It wakes us when done.
                self._wake.clear()
                await self._wake.wait()
                continue
            if reply.produced and (not reply.waiting or reply.cut):
                await self._finish(reply)
                continue
            if self._paused or not reply.waiting:
                self._wake.clear()
                await self._wake.wait()
                continue
            due = self._playhead - self._lead - time.perf_counter()
            if due > 0:
                await asyncio.sleep(due)
                continue            # paused in the meantime? look again
            piece = reply.waiting.popleft()
            await self.push_frame(piece)
            now = time.perf_counter()
            samples = len(piece.audio) // 2
            reply.released += samples
            self._playhead = max(self._playhead, now) + samples / piece.sample_rate
            await self._tell_voice(reply)

    async def _tell_voice(self, reply: _Reply) -> None:
        """`on_voice` when the reply's voice starts and at each word heard: a word counts once
        its end has played (what is let out runs up to the lead ahead of the ear)."""
        lead = int(self._lead * (reply.rate or 1))
        heard = reply.heard(max(reply.released - lead, 0))
        words = sum(len(_pieces(clause)) for clause in heard.clauses)
        if words != reply.told:
            reply.told = words
            await self._call_event_handler("on_voice", reply.turn, heard, False)

    # --- timeline: placing a reply where it would have played ------------------------------

    def _place(self, reply: _Reply, frame: ReplyAudioFrame) -> None:
        turn = frame.turn
        if reply.start_secs is None:
            start = turn.end_pts + turn.reply_delay_secs(self._timeline_at(turn, turn.marks["first_audio"]))
            reply.start_secs = max(start, self._cursor)
            turn.tts.session_start_secs = round(reply.start_secs, 3)
        at = reply.start_secs + reply.length_secs
        if self._paused and self._paused_at is not None and at >= self._hold_from():
            at = max(at, self._hold_from())
        reply.waiting.append(replace(frame, at_secs=at))
        reply.length_secs += len(frame.audio) / 2 / frame.sample_rate
        self._cursor = max(self._cursor, reply.start_secs + reply.length_secs)

    def _timeline_at(self, turn: Turn, measured: float) -> float:
        """The wall time a timeline counts as this turn's moment `measured`: as measured, or the
        fixed compute time after the agent began on the turn."""
        return measured if self._compute_secs is None else turn.started_at + self._compute_secs

    def _hold_from(self) -> float:
        assert self._paused_at is not None
        return self._paused_at.detected_pts + self._lead

    def _timeline_end(self, reply: _Reply) -> float:
        return (reply.start_secs or 0.0) + reply.length_secs

    # --- the user speaks ---------------------------------------------------------------

    async def _user_started(self, frame: SpeechStartedFrame) -> None:
        if not self._barge_in:
            return
        if self._clock == "timeline":
            # In turn order, the replies that had finished playing before the user spoke end now
            # (one with no audio, a backchannel's, ends when the replies before it have).
            for turn_id in sorted(self._replies):
                if turn_id not in self._replies:
                    continue            # finished along with the one before it
                reply = self._replies[turn_id]
                over = not reply.clauses or reply.cut or frame.detected_pts >= self._timeline_end(reply)
                if not reply.produced or not over or reply.finishing:
                    break
                await self._finish(reply)
        # Live, the greeting is in flight like any reply: the user may talk over it.
        first = 0 if self._clock == "live" else 1
        in_flight = [r for r in self._replies.values() if r.turn.turn_id >= first and not r.cut]
        if in_flight and not self._paused:
            await self._pause(frame)

    async def _pause(self, frame: SpeechStartedFrame | None) -> None:
        self._paused = True
        self._paused_at = frame
        self._paused_since = time.perf_counter()
        turns = tuple(sorted(self._replies))
        if frame is not None:
            for reply in self._replies.values():
                own = reply.turn.barge_in
                if (reply.turn.turn_id > 0 or self._clock == "live") and reply.clauses \
                        and not (own is not None and own.backchannel):
                    self._note_stop(reply, frame)
        left, asks = self._left(frame)
        await self.push_frame(AgentPausedFrame(turns=turns, left_secs=left, asks=asks), FrameDirection.UPSTREAM)

    def _left(self, frame: SpeechStartedFrame | None) -> tuple[float | None, bool]:
        """How much of the replies in flight was still to be said when the voice was held (None:
        still being made), and whether the last of them ends with a question."""
        replies = [r for _, r in sorted(self._replies.items()) if not r.cut and r.turn.turn_id >= 0]
        if not replies:
            return None, False
        last = replies[-1]
        texts = [str(text) for _, (text, _size, _ends) in sorted(last.clauses.items())]
        asks = bool(texts) and texts[-1].rstrip().endswith(("?", "？"))
        if any(not r.produced for r in replies):
            return None, asks
        if self._clock == "live":
            ahead = max(self._playhead - time.perf_counter(), 0.0)
            waiting = sum(len(p.audio) // 2 / p.sample_rate for r in replies for p in r.waiting)
            return ahead + waiting, asks
        if frame is None:
            return None, asks
        return max(self._timeline_end(last) - (frame.detected_pts + self._lead), 0.0), asks

    def _note_stop(self, reply: _Reply, frame: SpeechStartedFrame) -> None:
        """When and how fast the voice stopped for the user's speech (kept if the stop becomes a cut)."""
        if self._clock == "live":
            stop = max(self._playhead - frame.detected_at, 0.0) if reply.released else 0.0
            cut_at = frame.detected_pts + stop
        else:
            playing = (reply.start_secs or 0.0) <= frame.detected_pts < self._timeline_end(reply)
            stop = self._lead if playing else 0.0
            cut_at = frame.detected_pts + stop
        reply.turn.barge_in = BargeIn(heard_at_secs=round(frame.detected_pts, 3), cut_at_secs=round(cut_at, 3),
                                      stop_ms=round(stop * 1000, 1))

    async def _decided(self, frame: BargeInFrame) -> None:
        if frame.interrupt:
            self._cut_below = max(self._cut_below, frame.turn.turn_id)
            for reply in sorted(self._replies.values(), key=lambda r: r.turn.turn_id):
                if reply.turn.turn_id >= frame.turn.turn_id or not (reply.turn.turn_id > 0 or self._clock == "live"):
                    continue
                if self._unheard_left(reply):
                    self._cut(reply, frame.turn)
                elif self._clock == "timeline":
                    # The user began within the voice's lead of its end: it was heard whole, and is
                    # over now. Left waiting for later speech, its commit never came, and the turn
                    # that interrupted answered the offer before it ("就订这家" booked the first place).
                    reply.over = True
            self._resume()
            if self._clock == "timeline":
                await self._finish_ready()
            return
        # A backchannel: the agent goes on where it stopped.
        if self._paused:
            held_ms = round((time.perf_counter() - self._paused_since) * 1000, 1)
            frame.turn.barge_in = BargeIn(backchannel=True, paused_ms=held_ms)
            if self._clock == "timeline" and self._paused_at is not None:
                turn = frame.turn
                measured = turn.marks.get("asr_done", turn.started_at)
                resume_at = turn.end_pts + turn.reply_delay_secs(self._timeline_at(turn, measured))
                self._shift_held(self._hold_from(), max(resume_at - self._hold_from(), 0.0))
            for reply in self._replies.values():
                record = reply.turn.barge_in
                if record is not None and not record.cut and not record.backchannel:
                    reply.turn.barge_in = None      # paused, not cut: nothing to trace on it
            self._resume()

    def _unheard_left(self, reply: _Reply) -> bool:
        """Whether any of the reply is still to be played (or still being made)."""
        if not reply.produced or reply.waiting and self._clock == "live":
            return True
        if self._clock == "timeline":
            return self._paused_at is not None and self._hold_from() < self._timeline_end(reply)
        return False

    def _cut(self, reply: _Reply, by: Turn) -> None:
        reply.cut = True
        record = reply.turn.barge_in or BargeIn()
        record.cut = True
        record.by_turn = by.turn_id
        reply.turn.barge_in = record
        if self._clock == "live":
            reply.waiting.clear()
            return
        hold = self._hold_from() if self._paused_at is not None else by.start_pts
        kept: deque[ReplyAudioFrame] = deque()
        for piece in reply.waiting:
            assert piece.at_secs is not None
            if piece.at_secs >= hold:
                continue
            keep = int((hold - piece.at_secs) * piece.sample_rate) * 2
            kept.append(piece if keep >= len(piece.audio) else replace(piece, audio=piece.audio[:keep]))
        reply.waiting = kept
        reply.released = sum(len(p.audio) // 2 for p in kept)
        self._cursor = min(self._cursor, max(hold, reply.start_secs or 0.0))

    def _shift_held(self, hold: float, delta: float) -> None:
        """Timeline: a backchannel held the voice from `hold` for `delta` seconds; what was still
        to come plays that much later."""
        for reply in self._replies.values():
            moved: deque[ReplyAudioFrame] = deque()
            for piece in reply.waiting:
                assert piece.at_secs is not None
                end = piece.at_secs + len(piece.audio) / 2 / piece.sample_rate
                if end <= hold:
                    moved.append(piece)
                elif piece.at_secs >= hold:
                    moved.append(replace(piece, at_secs=piece.at_secs + delta))
                else:
                    split = int((hold - piece.at_secs) * piece.sample_rate) * 2
                    moved.append(replace(piece, audio=piece.audio[:split]))
                    moved.append(replace(piece, audio=piece.audio[split:], at_secs=hold + delta))
            reply.waiting = moved
            if reply.waiting:
                reply.length_secs += delta
        self._cursor += delta

    def _resume(self) -> None:
        self._paused = False
        self._paused_at = None
        self._wake.set()

    # --- a reply's end -------------------------------------------------------------------

    async def _finish(self, reply: _Reply) -> None:
        """The reply is over: tell what was heard, then let its end go on to the trace.

        Replies end one at a time and in turn order: telling what was heard awaits the
        commit, and a later turn's end (a backchannel's) must not overtake it on the way
        to the trace."""
        if reply.finishing:
            return
        reply.finishing = True
        async with self._finishing:
            if self._clock == "timeline":
                for piece in reply.waiting:        # the recording gets what was heard, where it was heard
                    await self.push_frame(piece)
            heard = reply.heard(reply.released if reply.cut else None)
            reply.waiting.clear()
            if reply.turn.barge_in is not None and reply.turn.barge_in.cut:
                reply.turn.barge_in.spoken = " ".join(heard.clauses)
                reply.turn.barge_in.unspoken = " ".join(heard.unheard)
            await reply.turn.mark_heard(heard)
            await self._call_event_handler("on_voice", reply.turn, heard, True)
            if reply.end is not None:
                await self.push_frame(reply.end)
            self._replies.pop(reply.turn.turn_id, None)
        self._wake.set()
        if self._clock == "timeline":
            await self._finish_ready()       # a later reply may have been waiting for this one

    async def _finish_ready(self) -> None:
        """Timeline: finish, in turn order, the replies with nothing left to place (no audio, cut,
        or over)."""
        for turn_id in sorted(self._replies):
            reply = self._replies.get(turn_id)
            if reply is None:
                continue                     # finished while an earlier one was finishing
            if reply.finishing:
                return                       # it finishes first; it calls this again when done
            if not reply.produced or (reply.clauses and not reply.cut and not reply.over):
                return
            await self._finish(reply)

    async def _finish_all(self) -> None:
        """The session ends: a reply still held counts as played as far as it was let out."""
        for reply in sorted(self._replies.values(), key=lambda r: r.turn.turn_id):
            if self._clock == "live" and not reply.cut and reply.waiting:
                reply.cut = True      # never played: the session ended first
            await self._finish(reply)
        if self._releaser is not None:
            await self.cancel_task(self._releaser)
            self._releaser = None

    async def cleanup(self) -> None:
        if self._releaser is not None:
            await self.cancel_task(self._releaser)
            self._releaser = None
        await super().cleanup()
