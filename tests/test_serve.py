"""`monologue serve`: rooms over WebRTC, driven by aiortc peers and by a real headless Chromium.

The server runs in this process (uvicorn on a free port, in a thread with its own event
loop) on the real ASR and TTS shared by every test, with policy wording (no LLM call).
Every wait polls for its condition with a generous limit: the machine may be loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("aiortc")

from monologue.pipeline.serve import make_app
from monologue.pipeline.server.request_checks import user_id
from monologue.pipeline.server.room_server import RoomServer
from monologue.pipeline.server.rooms import ServeOptions
from monologue.pipeline.server.signalling import check_offer_sdp
from monologue.pipeline.sockets import bind

from fakes import barge_in_turns, steady, until

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo_session" / "demo.flac"
TURN_SECS = 4.6         # the demo's first user turn ends by here ("… on Saturday evening.")
IDLE_SECS = 30.0        # the test server closes a room after this long without speech
WAIT = 120.0            # generous: whisper and piper share two loaded cores


# --- audio --------------------------------------------------------------------------------

def demo_first_turn(tail_secs: float = 2.5) -> np.ndarray:
    from monologue.pipeline.audio_io import load_session

    samples = load_session(DEMO, sample_rate=16000).samples
    turn = samples[: int(TURN_SECS * 16000)]
    return np.concatenate([turn, np.zeros(int(tail_secs * 16000), dtype=np.int16)])


def spoken(models: Any, text: str, lead_secs: float = 0.5, tail_secs: float = 2.5) -> np.ndarray:
    """`text` in piper's voice as 16 kHz int16, with silence around it."""
    import soxr

    voice = np.concatenate([np.frombuffer(chunk, dtype=np.int16) for chunk in models.tts.synthesize(text)])
    speech = np.asarray(soxr.resample(voice, models.tts.sample_rate, 16000), dtype=np.int16)
    lead, tail = (np.zeros(int(s * 16000), dtype=np.int16) for s in (lead_secs, tail_secs))
    return np.concatenate([lead, speech, tail])


def write_wav(path: Path, samples: np.ndarray, rate: int = 16000) -> Path:
    from monologue.pipeline.audio_io import write_wav as write

    write(path, samples, rate)
    return path


# --- the server -----------------------------------------------------------------------------

@dataclass
class LiveServer:
    url: str
    rooms: RoomServer
    out: Path
    store: Path
    log: list[str]

    def logged(self, *words: str) -> list[str]:
        return [line for line in self.log if all(w in line for w in words)]

    def finished(self, session_id: str) -> bool:
        return any(r.session_id == session_id for r in self.rooms.finished)


def _serve_in_thread(server: RoomServer) -> tuple[str, Callable[[], None]]:
    import uvicorn

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(make_app(server), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: asyncio.run(web.serve(sockets=[sock])), name="serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not web.started and time.monotonic() < deadline:
        time.sleep(0.05)

    def stop() -> None:
        web.should_exit = True
        thread.join(timeout=60)
        sock.close()

    return f"http://127.0.0.1:{port}", stop


@pytest.fixture(scope="module")
def serve_config() -> Any:
    from monologue.configs import load_config

    return load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "Okay."},
                                        reply={"wording": "policy"}, monologue={"llm_mode": "never"},
                                        long_term={"llm_help": False}), environ={})


@pytest.fixture(scope="module")
def live(real_models: Any, serve_config: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from loguru import logger

    root = tmp_path_factory.mktemp("serve")
    log: list[str] = []
    sink = logger.add(lambda message: log.append(str(message).rstrip()), level="INFO",
                      filter=lambda r: (r["name"] or "").startswith("monologue.pipeline"))
    real_models.encoder()   # long-term memory's encoder, once, before the rooms ask for it
    rooms = RoomServer(serve_config, real_models, ServeOptions(out_dir=root / "out", store_path=str(root / "m.db"),
                                                              idle_secs=IDLE_SECS))
    url, stop = _serve_in_thread(rooms)
    yield LiveServer(url, rooms, root / "out", root / "m.db", log)
    stop()
    logger.remove(sink)


def trace_lines(out: Path, session_id: str) -> list[dict[str, Any]]:
    path = out / session_id / "trace.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def poll(condition: Callable[[], bool], limit_secs: float = WAIT) -> bool:
    try:
        await until(condition, every=0.2, limit_secs=limit_secs)
        return True
    except TimeoutError:
        return False


def session_of(client: Any) -> str:
    sessions = client.of_type("session")
    return str(sessions[0]["session_id"]) if sessions else ""


def answered(client: Any) -> bool:
    return any(m["turn"] > 0 for m in client.of_type("agent_reply"))


# --- without models -------------------------------------------------------------------------

def test_offer_sdp_is_checked_before_a_connection_is_made() -> None:
    from monologue.pipeline.front_door import RequestError

    with pytest.raises(RequestError, match="is not SDP"):
        check_offer_sdp("garbage")
    with pytest.raises(RequestError, match="no audio"):
        check_offer_sdp("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
    assert user_id("  Kim   Lee ") == "Kim Lee"


def test_the_page_is_package_data_with_the_ids_a_browser_test_needs() -> None:
    from monologue.pipeline.serve import WEB_DIR

    page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    for element in ("name", "no-history", "connect", "disconnect", "level", "status", "activity", "transcript",
                    "state", "goal", "conditions", "questions", "diff", "memories", "version"):
        assert f'id="{element}"' in page, element
    assert "http" not in page.replace("http-equiv", ""), "the page must load nothing from elsewhere"
    js = (WEB_DIR / "room.js").read_text(encoding="utf-8")
    assert "echoCancellation: true" in js and "noiseSuppression: true" in js
    pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"monologue.pipeline" = ["web/*.html", "web/*.js", "web/*.css"]' in pyproject


def test_serve_is_on_the_command_line() -> None:
    from monologue.pipeline.cli import build_parser

    args = build_parser().parse_args(["serve", "--port", "7999", "--transport", "livekit", "--store", "x.db"])
    assert (args.host, args.port, args.out, args.transport, args.store) == ("127.0.0.1", 7999, "out/serve",
                                                                            "livekit", "x.db")


# --- Daily and LiveKit wiring, with fake transports --------------------------------------------

class FakeRemoteTransport:
    """Records how it was made; its input says one turn and ends the session, its output keeps the frames."""

    made: list[FakeRemoteTransport] = []
    speech: np.ndarray = np.zeros(0, dtype=np.int16)
    replied: Callable[[list[Any]], bool] = staticmethod(lambda sent: True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from pipecat.frames.frames import EndWorkerFrame, InputAudioRawFrame, StartFrame
        from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

        self.args, self.kwargs = args, kwargs
        self.handlers: dict[str, Any] = {}
        self.sent: list[Any] = []
        sent, speech = self.sent, self.speech

        class Source(FrameProcessor):
            async def process_frame(self, frame: Any, direction: FrameDirection) -> None:
                await super().process_frame(frame, direction)
                await self.push_frame(frame, direction)
                if isinstance(frame, StartFrame):
                    self.create_task(self._say())

            async def _say(self) -> None:
                for at in range(0, speech.size, 320):
                    await self.push_frame(InputAudioRawFrame(audio=speech[at: at + 320].tobytes(),
                                                             sample_rate=16000, num_channels=1))
                    await asyncio.sleep(0.002)
                with contextlib.suppress(TimeoutError):
                    await until(lambda: FakeRemoteTransport.replied(sent), every=0.1, limit_secs=WAIT)
                await self.push_frame(EndWorkerFrame(reason="fake room ended"))

        class Sink(FrameProcessor):
            async def process_frame(self, frame: Any, direction: FrameDirection) -> None:
                await super().process_frame(frame, direction)
                sent.append(frame)
                await self.push_frame(frame, direction)

        self._input, self._output = Source(), Sink()
        FakeRemoteTransport.made.append(self)

    def event_handler(self, name: str) -> Callable[[Any], Any]:
        def register(handler: Any) -> Any:
            self.handlers[name] = handler
            return handler
        return register

    def input(self) -> Any:
        return self._input

    def output(self) -> Any:
        return self._output


def fake_transport_module(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    from pipecat.transports.base_transport import TransportParams

    module = types.ModuleType(f"pipecat.transports.{kind}.transport")
    params = type("DailyParams" if kind == "daily" else "LiveKitParams", (TransportParams,), {})
    setattr(module, params.__name__, params)
    setattr(module, "DailyTransport" if kind == "daily" else "LiveKitTransport", FakeRemoteTransport)
    monkeypatch.setitem(sys.modules, module.__name__, module)


def test_a_missing_extra_or_variable_is_one_line_naming_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from monologue.configs import ConfigError
    from monologue.pipeline.remote import remote_transport, transport_module

    monkeypatch.setitem(sys.modules, "pipecat.transports.daily.transport", None)   # as if not installed
    with pytest.raises(ConfigError, match=r"pip install 'monologue\[daily\]'"):
        transport_module("daily")
    fake_transport_module(monkeypatch, "livekit")
    models = types.SimpleNamespace(tts=types.SimpleNamespace(sample_rate=22050))
    from monologue.configs import load_config

    with pytest.raises(ConfigError, match="LIVEKIT_URL"):
        asyncio.run(remote_transport("livekit", load_config(environ={}), models, environ={}))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="LIVEKIT_API_KEY"):
        asyncio.run(remote_transport("livekit", load_config(environ={}), models,  # type: ignore[arg-type]
                                     environ={"LIVEKIT_URL": "wss://x", "LIVEKIT_ROOM": "r"}))


def test_the_cli_reports_a_missing_extra_before_loading_models(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from monologue.pipeline import cli

    monkeypatch.setitem(sys.modules, "pipecat.transports.livekit.transport", None)
    monkeypatch.setattr(cli, "_quiet_logs", lambda verbose: None)   # no log sink on capsys's soon-closed stderr
    assert cli.main(["serve", "--transport", "livekit"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'monologue[livekit]'" in err[0]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["daily", "livekit"])
def test_daily_and_livekit_rooms_run_the_same_pipeline(kind: str, real_models: Any, serve_config: Any,
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring only: fakes stand in for pipecat's transports (the services are not reachable here)."""
    from pipecat.frames.frames import OutputTransportMessageUrgentFrame

    from monologue.pipeline.remote import BOT_NAME, run_remote_room
    from monologue.processors.frames import AgentTurnEndFrame, ReplyAudioFrame

    fake_transport_module(monkeypatch, kind)
    FakeRemoteTransport.made.clear()
    FakeRemoteTransport.speech = demo_first_turn()
    FakeRemoteTransport.replied = lambda sent: any(isinstance(f, AgentTurnEndFrame) and f.turn.turn_id > 0
                                                   for f in sent)
    environ = ({"DAILY_ROOM_URL": "https://example.daily.co/room", "DAILY_TOKEN": "meeting-token"} if kind == "daily"
               else {"LIVEKIT_URL": "wss://example.livekit.cloud", "LIVEKIT_ROOM": "room", "LIVEKIT_TOKEN": "jwt"})
    server = RoomServer(serve_config, real_models, ServeOptions(out_dir=tmp_path / "out",
                                                                store_path=str(tmp_path / "m.db")))
    room = asyncio.run(asyncio.wait_for(run_remote_room(server, kind, "Dana", environ), WAIT))   # type: ignore[arg-type]

    (transport,) = FakeRemoteTransport.made
    if kind == "daily":
        assert transport.args == ("https://example.daily.co/room", "meeting-token", BOT_NAME)
    else:
        assert transport.args == ("wss://example.livekit.cloud", "jwt", "room")
    params = transport.kwargs["params"]
    assert (params.audio_in_sample_rate, params.audio_in_channels) == (16000, 1)
    assert params.audio_out_sample_rate == real_models.tts.sample_rate and params.audio_out_enabled
    assert getattr(params, "vad_analyzer", None) is None
    assert "on_participant_left" in transport.handlers
    assert any(isinstance(f, ReplyAudioFrame) for f in transport.sent), "the agent's voice reached the output"
    panel = [f.message["type"] for f in transport.sent if isinstance(f, OutputTransportMessageUrgentFrame)]
    assert {"session", "user_transcript", "state", "agent_reply"} <= set(panel)
    lines = trace_lines(tmp_path / "out", room.session_id)
    assert any("saturday" in line["asr"].get("text", "").lower() for line in lines)


# --- end to end: aiortc peers ----------------------------------------------------------------

async def connect(live: LiveServer, user: str, speech: np.ndarray, *, no_history: bool = False, **track: Any) -> Any:
    from monologue.pipeline.room_client import PcmTrack, RoomClient

    client = RoomClient(live.url, user, PcmTrack(speech, **track), no_history=no_history, patience_secs=WAIT)
    await client.connect()
    return client


@pytest.mark.slow
async def test_a_python_peer_talks_and_hears_the_agent(live: LiveServer) -> None:
    """(a) An aiortc peer sends a recorded turn; it hears the agent, the panel fills, the trace has the words."""
    import aiohttp

    client = await connect(live, "Kim", demo_first_turn())
    try:
        assert await client.wait_for(lambda: answered(client) and client.voiced_secs > 0.5), client.messages
        session_id = session_of(client)
        heard = client.of_type("user_transcript")[0]
        assert "saturday" in heard["text"].lower()
        state = [m for m in client.of_type("state") if m["turn"] == heard["turn"]][0]
        assert state["goal"] and {c["key"] for c in state["conditions"]} >= {"date", "party_size"}
        assert any(op["op"] == "set" and op["key"] == "party_size" for op in state["operations"])
        reply = [m for m in client.of_type("agent_reply") if m["turn"] == heard["turn"]][0]
        assert reply["text"] and reply["state_version"] == state["version"]
        assert reply["latency_ms"].get("voice_to_voice", 0) > 0
        # Live: the user's words while spoken, then the agent's word by word, timed from the start.
        assert client.of_type("user_partial") and all(m["text"] for m in client.of_type("user_partial"))
        voice = [m for m in client.of_type("agent_voice") if m["turn"] == heard["turn"]]
        assert voice[0]["said"] == "" and voice[0]["latency"]["total_ms"] > 0 and voice[-1]["final"]
        assert len({m["said"] for m in voice}) >= 3 and voice[-1]["said"] == reply["text"]
        assert {c["label"] for c in state["conditions"]} >= {"date", "party size"}
        assert await poll(lambda: any("saturday" in line["asr"].get("text", "").lower()
                                      for line in trace_lines(live.out, session_id)))
        async with aiohttp.ClientSession() as http, http.get(f"{live.url}/api/health") as response:
            health = await response.json()
        assert health["status"] == "ok" and health["rooms"] >= 1
    finally:
        await client.close()
    assert await poll(lambda: live.finished(session_id), 60), "the room ends when its peer leaves"
    assert live.logged(session_id, "the client disconnected")
    assert not live.logged(session_id, "being answered"), "every turn was answered before it left"
    for name in ("reply.wav", "heard.wav"):
        assert (live.out / session_id / name).stat().st_size > 44, name


@pytest.mark.slow
async def test_two_rooms_at_once_stay_apart(live: LiveServer) -> None:
    """(d) Two peers, two names, two bookings at the same time: separate traces, states and memories."""
    from monologue.memory.stores.memories import SqlMemoryStore

    ana_speech = demo_first_turn()                 # four people on Saturday
    ben_speech = spoken(live.rooms.models, "I need a table for two people on Friday.")
    ana, ben = await asyncio.gather(connect(live, "Ana", ana_speech), connect(live, "Ben", ben_speech))
    try:
        assert await ana.wait_for(lambda: answered(ana)), ana.messages
        assert await ben.wait_for(lambda: answered(ben)), ben.messages
        ids = session_of(ana), session_of(ben)
        assert ids[0] and ids[1] and ids[0] != ids[1]
        ana_state = [m for m in ana.of_type("state") if m["turn"] > 0][-1]
        ben_state = [m for m in ben.of_type("state") if m["turn"] > 0][-1]
        values = {c["key"]: c["value"] for c in ana_state["conditions"]}, {c["key"]: c["value"]
                                                                            for c in ben_state["conditions"]}
        assert (values[0].get("party_size"), values[0].get("date")) == (4, "saturday")
        assert (values[1].get("party_size"), values[1].get("date")) == (2, "friday")
        assert await poll(lambda: all(trace_lines(live.out, i) for i in ids))
        ana_words = " ".join(line["asr"].get("text", "") for line in trace_lines(live.out, ids[0])).lower()
        ben_words = " ".join(line["asr"].get("text", "") for line in trace_lines(live.out, ids[1])).lower()
        assert "saturday" in ana_words and "friday" not in ana_words
        assert "friday" in ben_words and "saturday" not in ben_words
    finally:
        await asyncio.gather(ana.close(), ben.close())
    assert await poll(lambda: all(live.finished(i) for i in ids), 60)
    store = SqlMemoryStore(live.store)
    ana_memories = " ".join(m.text for m in store.all("Ana")[0]).lower()
    ben_memories = " ".join(m.text for m in store.all("Ben")[0]).lower()
    assert "saturday" in ana_memories and "friday" not in ana_memories
    assert "friday" in ben_memories and "saturday" not in ben_memories


@pytest.mark.slow
async def test_a_room_off_the_record_leaves_no_memory(live: LiveServer) -> None:
    """The page's "don't remember this conversation": the room is answered, nothing is kept for its user."""
    from monologue.memory.stores.memories import SqlMemoryStore

    client = await connect(live, "Noa", demo_first_turn(), no_history=True)
    try:
        assert await client.wait_for(lambda: answered(client)), client.messages
        assert client.of_type("session")[0]["no_history"] is True
        session_id = session_of(client)
    finally:
        await client.close()
    assert await poll(lambda: live.finished(session_id), 60)
    assert SqlMemoryStore(live.store).all("Noa")[0] == []


@pytest.mark.slow
async def test_speaking_over_the_agent_in_a_room_cuts_it(live: LiveServer) -> None:
    """Barge-in over WebRTC: the user changes the party size while the agent is still offering a
    place (a cut), then says "okay" over the next offer (it goes on). The user speaks when the
    agent's voice says so, as a person would, not at fixed times: on a busy machine replies start later."""
    turns = barge_in_turns()
    assert len(turns) == 5, [t.size / 16000 for t in turns]
    client = await connect(live, "Cat", np.zeros(0, dtype=np.int16))

    def replied(turn: int) -> bool:
        return any(m["turn"] == turn for m in client.of_type("agent_reply"))

    async def voice_for(secs: float) -> None:
        """Until `secs` more of the agent's voice has arrived: it is talking now."""
        before = client.voiced_secs
        assert await client.wait_for(lambda: client.voiced_secs >= before + secs), client.messages

    async def voice_ends(quiet_secs: float = 1.5) -> None:
        """Until the agent's voice has been silent for `quiet_secs`."""
        deadline = time.monotonic() + WAIT
        last, since = client.voiced_secs, time.monotonic()
        while time.monotonic() - since < quiet_secs:
            assert time.monotonic() < deadline, "the agent's voice did not end"
            await asyncio.sleep(0.1)
            if client.voiced_secs != last:
                last, since = client.voiced_secs, time.monotonic()

    try:
        assert await client.wait_for(lambda: bool(client.of_type("session")))
        session_id = session_of(client)
        if client.of_type("session")[0]["opening"]:
            await voice_for(0.3)                           # the greeting, heard whole
            await voice_ends()
        client.track.feed.append(turns[0])                 # a table for four on Saturday evening
        assert await client.wait_for(lambda: replied(1)), client.messages
        client.track.feed.append(turns[1])                 # around seven, nothing spicy: an offer follows
        await voice_for(1.0)
        client.track.feed.append(turns[2])                 # over the offer: make it six people
        assert await client.wait_for(lambda: replied(2)), client.messages
        await voice_for(1.0)
        client.track.feed.append(turns[3])                 # "okay" over the next offer, well before its end
        assert await poll(lambda: len(trace_lines(live.out, session_id)) >= 4, WAIT), \
            trace_lines(live.out, session_id)
        lines = {line["turn"]: line for line in trace_lines(live.out, session_id)}
        cut = lines[2]["barge_in"]
        assert cut.get("cut") is True and cut["by_turn"] == 3, lines[2]
        assert cut["stop_ms"] <= 300
        assert cut["unspoken"] and lines[2]["reply"]["text"].startswith(cut.get("spoken", "")[:10])
        assert any(m["turn"] == 2 and m["cut"] for m in client.of_type("agent_reply"))
        assert lines[4]["turn_class"] == "backchannel" and not lines[3]["barge_in"].get("cut")
    finally:
        await client.close()


@pytest.mark.slow
async def test_bad_clients_are_reported_and_a_good_room_is_still_served(live: LiveServer) -> None:
    """(e) A garbage SDP, a peer that leaves mid-turn and one that sends minutes of silence,
    all beside a good room: each is reported, and the good room is answered."""
    import aiohttp

    good = await connect(live, "Gus", demo_first_turn())
    silent = await connect(live, "Sil", np.zeros(0, dtype=np.int16), speed=10.0)   # silence, 10× real time
    leaver = await connect(live, "Lea", demo_first_turn()[: int(2.0 * 16000)], then_silence=False)
    try:
        async with aiohttp.ClientSession() as http:
            for body in ({"sdp": "garbage", "type": "offer", "user": "x"}, {"type": "offer"}, "not json"):
                payload = {"json": body} if isinstance(body, dict) else {"data": body}
                async with http.post(f"{live.url}/api/offer", **payload) as response:
                    assert response.status == 400
                    assert (await response.json())["error"]
        assert await leaver.wait_for(lambda: bool(leaver.of_type("user_speaking")))
        leaver_id = session_of(leaver)
        await leaver.close()                                                # gone in the middle of the turn
        assert await poll(lambda: live.finished(leaver_id), 60)
        assert live.logged(leaver_id, "disconnected while the user was speaking")

        assert await good.wait_for(lambda: answered(good) and good.voiced_secs > 0.5), good.messages

        silent_id = session_of(silent)
        silent.patience_secs = IDLE_SECS + WAIT
        assert await silent.wait_for(lambda: bool(silent.of_type("room_closing")))
        assert silent.track.readyState == "live", "the silent peer was still sending when its room closed"
        assert "no speech" in silent.of_type("room_closing")[0]["reason"]
        assert await poll(lambda: live.finished(silent_id), 60)
        assert live.logged(silent_id, "no speech for")
        assert not silent.of_type("user_transcript") and not trace_lines(live.out, silent_id)
        assert live.logged("POST /api/offer refused (400)")
    finally:
        await asyncio.gather(good.close(), silent.close(), leaver.close())


# --- end to end: a real browser ------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"


def _browser_missing() -> str:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    return ""


@pytest.mark.slow
@pytest.mark.skipif(bool(_browser_missing()), reason=_browser_missing() or "browser present")
def test_a_browser_room_shows_the_transcript_and_the_state(live: LiveServer, tmp_path: Path) -> None:
    """(b) Headless Chromium with a WAV as its microphone: the page shows what was heard and the state."""
    from playwright.sync_api import expect, sync_playwright

    lead = np.zeros(int(8.0 * 16000), dtype=np.int16)   # the mic starts before the room is connected (busy: later)
    wav = write_wav(tmp_path / "mic.wav", np.concatenate([lead, demo_first_turn(tail_secs=4.0)]))
    profile = tmp_path / "profile"
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, args=[
            "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}%noloop"])
        try:
            page = browser.new_page()
            page.goto(live.url + "/")
            page.fill("#name", "Robin")
            page.click("#connect")
            expect(page.locator("#status")).to_contain_text("Connected", timeout=60_000)
            expect(page.locator("#transcript .user")).to_contain_text("Saturday", timeout=WAIT * 1000)
            expect(page.locator("#goal")).to_contain_text("book", timeout=WAIT * 1000)
            expect(page.locator("#conditions")).to_contain_text("party size", timeout=WAIT * 1000)
            expect(page.locator("#transcript .agent").last).not_to_be_empty(timeout=WAIT * 1000)
            expect(page.locator("#version")).not_to_have_text("—", timeout=WAIT * 1000)
            expect(page.locator("#diff")).to_contain_text("set", timeout=WAIT * 1000)
            page.screenshot(path=str(tmp_path / "room.png"), full_page=True)
            if os.environ.get("MONOLOGUE_KEEP_SCREENSHOT"):
                shutil.copy(tmp_path / "room.png", os.environ["MONOLOGUE_KEEP_SCREENSHOT"])
            page.click("#disconnect")
            expect(page.locator("#status")).to_contain_text("Disconnected", timeout=30_000)
        finally:
            browser.close()
