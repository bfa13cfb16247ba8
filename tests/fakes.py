"""Test helpers: paths, scripted fakes for every model, a fake clock, a tiny embedder."""

from __future__ import annotations

import asyncio
import json
import re
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from monologue.configs import LLMOptions
from monologue.memory.longterm.records import DAY
from monologue.memory.longterm.retrieval import tokenize
from monologue.models.asr import Transcript
from monologue.models.chat import ChatLLM, StreamStats

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo_session" / "demo.flac"
DEMO_TEXT = ROOT / "assets" / "demo_session" / "demo.txt"

# The product's time limits are for a user waiting on a reply: on a slow or busy machine it drops
# recall, reads the last partial transcript or gives up on the LLM, by design. A test checks what a
# turn does, not whether this machine was quick enough, so those limits are far away in the tests'
# configurations (`steady`; conftest.py puts them in the environment for the CLI's subprocesses and
# the servers' workers), and a replay's timeline counts a fixed compute time instead of this
# machine's. The limits themselves are tested with fake clocks and explicit options.
STEADY: dict[str, dict[str, float]] = {
    "long_term": {"budget_ms": 60000, "writes_wait_secs": 60, "llm_timeout_secs": 300},
    "turn": {"transcript_wait_secs": 60},
    "replay": {"compute_secs": 0.6},
    "llm": {"timeout_secs": 300},
    "monologue": {"llm_timeout_secs": 300},
}
STEADY_ENVIRON = {f"MONOLOGUE__{section.upper()}__{key.upper()}": str(value)
                  for section, values in STEADY.items() for key, value in values.items()}


def steady(**overrides: Mapping[str, object]) -> dict[str, dict[str, object]]:
    """`overrides` for load_config, with the time limits of STEADY beneath them."""
    return {section: {**STEADY.get(section, {}), **overrides.get(section, {})} for section in {*STEADY, *overrides}}


def barge_in_turns() -> list[np.ndarray]:
    """The five user turns of assets/barge_in_session (int16, 16 kHz), cut apart where the user is
    silent: a test plays each when the agent's voice says it is time, not at the recording's times."""
    from monologue.pipeline.audio_io import load_session

    samples = load_session(ROOT / "assets" / "barge_in_session" / "barge_in.flac", sample_rate=16000).samples
    frame = 320                                            # 20 ms
    count = samples.size // frame
    rms = np.sqrt((samples[: count * frame].astype(np.float32).reshape(count, frame) ** 2).mean(axis=1))
    voiced = np.flatnonzero(rms > 300)
    gaps = np.flatnonzero(np.diff(voiced) > 40)            # 0.8 s of silence parts two turns
    starts = [voiced[0], *voiced[gaps + 1]]
    ends = [*voiced[gaps], voiced[-1]]
    pad = int(0.3 * 16000)
    return [samples[max(a * frame - pad, 0): (b + 1) * frame + pad] for a, b in zip(starts, ends, strict=True)]


SHARED_SPEECH = ROOT.parent / "shared" / "data" / "speech" / "en-real"

CATALOGUE = (
    ("Chili House", "sichuan", True),
    ("Luigi's Trattoria", "italian", False),
    ("Sakura", "japanese", False),
)


class FakeChatLLM(ChatLLM):
    """A reply 'model' in the test process: nothing to load, nothing to warm up."""

    def __init__(self, model: str) -> None:
        super().__init__(LLMOptions(model=model, fallback=None))

    def prepare(self) -> None:
        return None

    def warm_up(self, system_prompt: str | None = None) -> None:
        return None


class EchoingLLM(FakeChatLLM):
    """Says its whole prompt back (the leakiest model there is); records every prompt,
    JSON calls included."""

    def __init__(self) -> None:
        super().__init__("fake/echo")
        self.prompts: list[list[dict[str, str]]] = []

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        import time

        self.prompts.append(messages)
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        for message in messages:
            yield message["content"] + " "
        stats.finished_at = time.perf_counter()

    async def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int = 256,
                            stats: StreamStats | None = None) -> str:
        self.prompts.append(messages)
        return json.dumps({"echo": " ".join(m["content"] for m in messages)})


class StateFollowingLLM(FakeChatLLM):
    """A reply 'model' that does exactly what its prompt lets it: it reads the conditions
    in the prompt (the state block, or whatever user lines it was given) and recommends
    from a fixed catalogue. It forgets whatever the prompt does not carry — so a reply
    honours a condition only if the pipeline put it in the prompt."""

    def __init__(self) -> None:
        super().__init__("fake/state-follower")
        self.prompts: list[list[dict[str, str]]] = []

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        import time

        self.prompts.append(messages)
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        context = re.search(r"\[Context: (.*?)\]|^Context: (.*)", messages[-1]["content"], re.DOTALL)
        said = " ".join(m["content"] for m in messages if m["role"] == "user")
        source = (next(g for g in context.groups() if g) if context else said).lower()
        no_spicy = bool(re.search(r"no spicy|excludes spicy|nothing spicy|不吃辣", source))
        choices = [name for name, _cuisine, spicy in CATALOGUE if not (no_spicy and spicy)]
        people = (re.search(r"for (\d+) people|人数 = (\d+)", source)
                  or re.search(r"(\d+|four|six|eight) people", source))
        time_ = re.search(r"at (\d\d:\d\d)|时间 = (\d\d:\d\d)", source) or re.search(r"(\d{1,2}(?::\d\d)? ?pm)", source)
        reply = f"I recommend {choices[0]}"
        if people:
            reply += f" for {next(g for g in people.groups() if g)} people"
        if time_:
            reply += f" at {next(g for g in time_.groups() if g)}"
        for word in reply.split(" "):
            yield word + " "
        stats.finished_at = time.perf_counter()


class ScriptedJsonLLM:
    """Answers the monologue's JSON requests from a script; records what it was sent."""

    def __init__(self, answers: list[Any], delay: float = 0.0) -> None:
        self.answers = list(answers)
        self.delay = delay
        self.requests: list[list[dict[str, str]]] = []
        self.asked = asyncio.Event()        # set at the first request

    async def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        self.requests.append(messages)
        self.asked.set()
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = self.answers.pop(0) if self.answers else {"operations": []}
        if isinstance(answer, Exception):
            raise answer
        return answer if isinstance(answer, str) else json.dumps(answer)


class FakeTranscriber:
    """Returns scripted transcripts in order; records the audio it was given."""

    def __init__(self, texts: list[str], confidence: float = 0.9) -> None:
        self._texts = list(texts)
        self.confidence = confidence
        self.seen: list[np.ndarray] = []
        self._last = ""

    def transcribe(self, audio: np.ndarray):
        # The VAD transcribes a turn more than once (while it is spoken, at each end of speech):
        # audio that extends the previous call's is the same turn and gets the same text.
        previous = self.seen[-1] if self.seen else None
        self.seen.append(audio)
        if previous is not None and previous.size and audio.size >= previous.size \
                and np.array_equal(audio[: previous.size], previous):
            text = self._last
        else:
            text = self._texts.pop(0) if self._texts else ""
        self._last = text
        return Transcript(text, "en", self.confidence, -0.1, 0.01, audio.size / 16000)


class FakeSynthesizer:
    """One 100 ms tone per clause at 22,050 Hz."""

    sample_rate = 22050

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def synthesize(self, text: str) -> Iterator[bytes]:
        self.spoken.append(text)
        t = np.arange(int(0.1 * self.sample_rate)) / self.sample_rate
        yield (np.sin(2 * np.pi * 220 * t) * 8000).astype(np.int16).tobytes()


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY


def bag_of_words(texts: list[str]) -> np.ndarray:
    """A tiny deterministic embedder: hashed word counts, normalised (crc32, not hash():
    Python randomises str hashes per process, which made collisions — and merges — vary)."""
    out = np.zeros((len(texts), 1024), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in tokenize(text):
            out[i, zlib.crc32(token.encode()) % 1024] += 1
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)


def word_overlap(expected: str, got: str) -> float:
    norm = lambda s: [w.strip(".,!?'\"").lower() for w in s.split() if w.strip(".,!?'\"")]  # noqa: E731
    want, have = norm(expected), set(norm(got))
    return sum(w in have for w in want) / max(len(want), 1)


class PlannerFollowingLLM(FakeChatLLM):
    """A reply 'model' that says what the policy's note asks (the template after "Say this in
    your own words:"), except on a schedule of bad habits a small model has: reading the note
    aloud, speaking as the user, refusing, repeating its last reply, inventing a place and a
    time, answering in the wrong language. The check must stop every one of them."""

    HABITS = ("note", "as_user", "refuse", "repeat", "invent", "wrong_language", "lead_in")

    def __init__(self, every: int = 2, habits: tuple[str, ...] = HABITS) -> None:
        super().__init__("fake/planner-follower")
        self.every = every
        self.habits = habits
        self.calls = 0
        self.misbehaved: list[str] = []

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        import time

        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        note = messages[-1]["content"]
        template = note.split("Say this in your own words:", 1)[-1].strip()
        previous = next((m["content"] for m in reversed(messages[:-1]) if m["role"] == "assistant"), "")
        self.calls += 1
        text = template
        if self.every and self.calls % self.every == 0:
            habit = self.habits[(self.calls // self.every) % len(self.habits)]
            self.misbehaved.append(habit)
            text = {
                "note": "Planner: reply in English. " + template,
                "as_user": "My name is Sam and I like Italian food.",
                "refuse": "I'm sorry, but I can't assist with that.",
                "repeat": previous or template,
                "invent": "Blue Cafe at 10 am would be perfect for you.",
                "wrong_language": "好的，没问题。" if re.search(r"[a-z]{3}", template) else "Sure, no problem.",
                "lead_in": "Sure thing.",
            }[habit]
        for word in re.findall(r"\S+\s*", text):
            yield word
            await asyncio.sleep(0)
        stats.finished_at = time.perf_counter()


class SpeakingSynthesizer:
    """Speech-like timing without a voice: 0.25 s of silence (piper starts with some), then
    a tone for 60 ms per character — about piper's pace — so a reply lasts as long as said."""

    sample_rate = 22050

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def synthesize(self, text: str) -> Iterator[bytes]:
        self.spoken.append(text)
        lead = np.zeros(int(0.25 * self.sample_rate), dtype=np.int16)
        t = np.arange(int(0.06 * len(text) * self.sample_rate)) / self.sample_rate
        tone = (np.sin(2 * np.pi * 220 * t) * 8000).astype(np.int16)
        yield np.concatenate([lead, tone]).tobytes()


@contextmanager
def served_at(app: Any, path: str = "") -> Iterator[str]:
    """`app` under uvicorn on a free port, in a thread; yields its base URL (+ `path`)."""
    import socket
    import threading
    import time

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60          # a hang guard: a busy machine starts it slowly
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{path}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


UNTIL_SECS = 30.0


async def until(condition: Callable[[], bool], every: float = 0.01, limit_secs: float = UNTIL_SECS) -> None:
    """Wait until `condition()` holds, looking every `every` s: for what keeps a list and sets
    no event (a hook's record, a turn's marks). Raises TimeoutError after UNTIL_SECS, so a
    broken test fails instead of hanging."""
    for _ in range(round(limit_secs / every)):
        if condition():
            return
        await asyncio.sleep(every)
    raise TimeoutError(f"still not so after {limit_secs:.0f} s")


async def policy_replies(language: str, lines: list[str], domain: str) -> list[Any]:
    """The agent's replies to `lines`, one per turn: the rules read, the policy words, no model
    and no long-term help (what a test of the rules and the policy needs)."""
    from monologue.configs import load_config
    from monologue.pipeline.builder import AgentModels
    from monologue.pipeline.text_chat import chat_session

    overrides = steady(monologue={"llm_mode": "never", "domain": domain}, reply={"wording": "policy"},
                       long_term={"llm_help": False})
    config = load_config(overrides={**overrides, "language": language}, environ={})
    result = await chat_session(lines, config, AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0)))
    return [turn.reply for turn in result.turns]


def rules_read(domain: str, text: str, held: dict[str, object] | None = None) -> dict[str, list[object]]:
    """What the rules read from `text` with `held` in the state: key → the values set."""
    from monologue.memory.working.state import Op

    out: dict[str, list[object]] = {}
    for op in _rules_extraction(domain, text, held, multi_as_held=False).operations:
        if op.op == Op.SET and op.key:
            out.setdefault(op.key, []).append(op.value)
    return out


def rules_ops(domain: str, text: str, held: dict[str, object] | None = None) -> list[tuple[str, str]]:
    """What the rules do with `text` with `held` in the state: (op, key) for each operation."""
    return [(op.op.value, op.key) for op in _rules_extraction(domain, text, held, multi_as_held=True).operations]


def _rules_extraction(domain: str, text: str, held: dict[str, object] | None, multi_as_held: bool) -> Any:
    """The rules' reading of `text` with `held` in the state (`multi_as_held`: a key of several
    values holds its value as one of them, as the engine writes it)."""
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor
    from monologue.memory.working.state import Comparator, Condition, SessionState

    schema = load_schema(domain)
    state = SessionState("drive")
    for key, value in (held or {}).items():
        multi = multi_as_held and schema.key(key).multi
        condition = Condition(key, Comparator.INCLUDES if multi else Comparator.EQ, value, str(value), 1, 1.0,
                              multi=multi)
        state.constraints[condition.slot if multi else key] = condition
    return RuleExtractor(schema).extract(text, state)
