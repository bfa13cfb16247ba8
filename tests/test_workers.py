"""Sessions that outlive their worker (S3, W9): typed turns over `POST /api/chat`, continued by
another worker with the same session id, with the same state, conversation window and memory.

The first tests run two `RoomServer`s in this process on one SQLite file (fast, no servers).
The last one is the deployment: `monologue serve --workers 2 --text-only` as real processes on
PostgreSQL and Redis, with the LLM behind a fake OpenAI-compatible server this test controls,
so a turn can be held in flight; the worker answering it is killed with SIGKILL, the client
continues on the other worker, the supervisor starts the dead one again, and SIGTERM drains.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi import Request  # at module level: FastAPI reads the fake provider's annotations by name

from monologue.pipeline.server.room_server import RoomServer
from monologue.pipeline.server.rooms import ServeOptions
from monologue.pipeline.workers import worker_args

from fakes import served_at, steady, until

WAIT = 180.0          # generous: two workers start on two loaded cores


def text_config(**llm: Any) -> Any:
    from monologue.configs import load_config

    return load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                             "mock_response": "Sure, noted.", **llm},
                                        monologue={"llm_mode": "never"}, long_term={"llm_help": False}),
                       environ={})


def prompts(out: Path, session_id: str) -> list[list[dict[str, str]]]:
    """The reply prompts a worker sent for this session (its trace)."""
    path = out / session_id / "trace.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line["reply"]["prompt"] for line in lines if isinstance(line.get("reply"), dict)]


# --- in process: two servers, one SQLite file ----------------------------------------------------

def test_a_typed_session_continues_on_another_worker_with_its_window(tmp_path: Path) -> None:
    from monologue.memory.stores.state import SqlStateStore
    from monologue.pipeline.builder import load_text_models

    config = text_config()
    models = load_text_models(config)
    store = str(tmp_path / "shared.db")

    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        first = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "a", store_path=store))
        said = [await first.chat({"text": "I need a table for 4 people on Friday at 7pm", "user": ""})]
        session = said[0]["session_id"]
        said.append(await first.chat({"text": "Somewhere Italian, please", "session_id": session}))
        await first.close()        # the worker goes away (its rooms drain)
        second = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "b", store_path=store))
        later = [await second.chat({"text": "Actually make it 5 people", "session_id": session})]
        await second.close()
        return said, later

    said, later = asyncio.run(run())
    session = said[0]["session_id"]
    assert [s["turn"] for s in said] == [1, 2] and later[0]["turn"] == 3, (said, later)
    assert later[0]["session_id"] == session and later[0]["reply"]
    assert later[0]["state_version"] > said[1]["state_version"]
    state = SqlStateStore(store).load(session)
    assert state is not None and state.constraints["party_size"].value == 5
    assert state.constraints["cuisine"].value.lower() == "italian"
    # The second worker's prompt carries what was said on the first (and it did not greet again).
    window = " ".join(m["content"] for m in prompts(tmp_path / "b", session)[-1])
    assert "table for 4 people" in window and "Italian" in window, window
    assert "Sure, noted." in window


def test_a_session_that_went_on_elsewhere_is_taken_up_again_when_it_comes_back(tmp_path: Path) -> None:
    """Turn 1 on worker A, turn 2 on B, turn 3 on A again: A's room from turn 1 is behind (its
    window lacks turn 2), so it ends and A takes the session up from the stores; one record."""
    from monologue.pipeline.builder import load_text_models

    config = text_config()
    models = load_text_models(config)
    store, out = str(tmp_path / "shared.db"), tmp_path / "out"      # one folder, as `--workers` shares

    async def run() -> list[dict[str, Any]]:
        a = RoomServer(config, models, ServeOptions(out_dir=out, store_path=store))
        b = RoomServer(config, models, ServeOptions(out_dir=out, store_path=store))
        said = [await a.chat({"text": "A table for two tonight at 8"})]
        session = said[0]["session_id"]
        said.append(await b.chat({"text": "Somewhere Italian", "session_id": session}))
        said.append(await a.chat({"text": "Make it three people", "session_id": session}))
        await a.close()
        await b.close()
        return said

    said = asyncio.run(run())
    assert [s["turn"] for s in said] == [1, 2, 3], said
    session = said[0]["session_id"]
    records = prompts(out, session)
    assert len(records) == 3, records                       # every turn's line in the one record
    window = " ".join(m["content"] for m in records[-1])
    assert "Somewhere Italian" in window, window             # A saw what B was told


def test_a_session_is_its_users(tmp_path: Path) -> None:
    """Another name with the session id is refused, and so is no name (a request that leaves
    `user` out is anonymous, never the session's owner), here and on another worker."""
    from monologue.pipeline.builder import load_text_models
    from monologue.pipeline.front_door import RequestError

    config = text_config()
    models = load_text_models(config)
    models.encoder()
    store = str(tmp_path / "shared.db")

    async def run() -> tuple[list[RequestError], dict[str, Any]]:
        first = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "a", store_path=store))
        one = await first.chat({"text": "I'm allergic to peanuts, a table for two tonight", "user": "ana"})
        session = one["session_id"]
        refusals = []
        for body in ({"user": "bob"}, {}, {"user": ""}):
            with pytest.raises(RequestError) as here:
                await first.chat({"text": "what does she eat?", "session_id": session, **body})
            refusals.append(here.value)
        await first.close()
        second = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "b", store_path=store))
        for body in ({"user": "bob"}, {}):
            with pytest.raises(RequestError) as there:
                await second.chat({"text": "what does she eat?", "session_id": session, **body})
            refusals.append(there.value)
        two = await second.chat({"text": "make it three people", "session_id": session, "user": "ana"})
        assert second.rooms[session].user == "ana"
        await second.close()
        return refusals, two

    refusals, two = asyncio.run(run())
    assert [r.status for r in refusals] == [403] * 5, refusals
    assert all("another user's" in r.message for r in refusals)
    assert two["turn"] == 2 and two["reply"]


def test_chat_requests_are_checked() -> None:
    from monologue.pipeline.builder import load_text_models
    from monologue.pipeline.front_door import RequestError

    config = text_config()
    server = RoomServer(config, load_text_models(config), ServeOptions())

    async def refused(body: Any) -> RequestError:
        with pytest.raises(RequestError) as caught:
            await server.chat(body)
        return caught.value

    bad = asyncio.run(refused({"text": ""}))
    assert bad.status == 400 and "text" in bad.message
    for path_like in ("../etc", ".", "..", "a/b", "-x"):
        bad = asyncio.run(refused({"text": "hi", "session_id": path_like}))
        assert bad.status == 400 and "session_id" in bad.message, path_like
    server.draining = True
    busy = asyncio.run(refused({"text": "hi"}))
    assert busy.status == 503 and "another one" in busy.message


def test_worker_command_lines_get_their_own_port() -> None:
    assert worker_args(["--workers", "3", "--port", "8000", "--text-only"], 8001) == \
        ["--text-only", "--port", "8001", "--workers", "1"]
    assert worker_args(["--workers=2", "--store", "postgresql://h/db"], 9000) == \
        ["--store", "postgresql://h/db", "--port", "9000", "--workers", "1"]


# --- processes: `monologue serve --workers 2` on PostgreSQL and Redis ---------------------------

@dataclass
class FakeProvider:
    """An OpenAI-compatible chat endpoint whose answers this test can hold back."""

    delay_secs: float = 0.0
    requests: list[list[dict[str, str]]] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    def app(self) -> Any:
        from fastapi import FastAPI
        from fastapi.responses import StreamingResponse

        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def complete(request: Request) -> Any:
            body = await request.json()
            self.requests.append(body["messages"])
            self.arrived.set()
            await asyncio.sleep(self.delay_secs)

            def chunk(delta: dict[str, str], finish: str | None) -> str:
                return "data: " + json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 0,
                                              "model": body["model"], "choices": [
                                                  {"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
            text = "Okay, I have that."
            events = [chunk({"role": "assistant", "content": text}, None), chunk({}, "stop"), "data: [DONE]\n\n"]
            return StreamingResponse(iter(events), media_type="text/event-stream")
        return app


def _free_port(count: int = 1) -> int:
    """The first of `count` consecutive free ports."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count < 65000 and all(_port_free(first + i) for i in range(count)):
            return first
    raise RuntimeError("no free consecutive ports")


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def call(url: str, body: dict[str, Any] | None = None, timeout: float = 60.0) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"},
                                     method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def wait_ready(url: str, timeout: float = WAIT) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            status, body = call(f"{url}/api/ready", timeout=5)
            if status == 200:
                return call(f"{url}/api/health", timeout=5)[1]
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} was not ready within {timeout:.0f} s")


@dataclass
class SharedStores:
    servers: Any          # services.TestServices
    store_url: str
    state_url: str


@pytest.fixture
def shared_stores(servers: Any, pg_url: str) -> Iterator[SharedStores]:
    """A fresh PostgreSQL database and a Redis database number of its own (the workers are other
    processes: they cannot take this process's key prefix)."""
    import redis

    redis_url = servers.redis_url.rsplit("/", 1)[0] + "/9"
    redis.Redis.from_url(redis_url).flushdb()
    yield SharedStores(servers, pg_url, redis_url)
    redis.Redis.from_url(redis_url).flushdb()


def test_a_session_survives_sigkill_of_its_worker_mid_turn(shared_stores: SharedStores, tmp_path: Path) -> None:
    from monologue.memory.stores.factory import open_stores

    store_url, state_url = shared_stores.store_url, shared_stores.state_url
    provider = FakeProvider()
    serving = contextlib.ExitStack()
    provider_url = serving.enter_context(served_at(provider.app()))
    port = _free_port(2)
    env = {**os.environ, "MONOLOGUE__STATE__URL": state_url, "MONOLOGUE__LLM__MODEL": "openai/fake-shared",
           "MONOLOGUE__LLM__API_BASE": f"{provider_url}/v1", "MONOLOGUE__LLM__FALLBACK": "",
           "MONOLOGUE__MONOLOGUE__LLM_MODE": "never", "MONOLOGUE__LONG_TERM__LLM_HELP": "false",
           "OPENAI_API_KEY": "not-needed", "PYTHONUNBUFFERED": "1"}
    log = (tmp_path / "workers.log").open("w")
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "monologue.pipeline.cli", "serve", "--workers", "2", "--text-only", "--port", str(port),
         "--store", store_url, "--out", str(tmp_path / "out"), "--log-format", "json"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    first, second = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"
    try:
        first_pid = wait_ready(first)["pid"]
        wait_ready(second)

        # Two turns answered (acknowledged) by the first worker.
        status, one = call(f"{first}/api/chat", {"user": "ana", "text": "I'm vegetarian, and I'd like to book a "
                                                                       "table for 4 people on Friday at 7pm"})
        assert status == 200, one
        session = one["session_id"]
        status, two = call(f"{first}/api/chat", {"user": "ana", "session_id": session,
                                                 "text": "Somewhere Italian please"})
        assert status == 200 and two["turn"] == 2, two
        # Long-term memory is written after the reply, in the background: wait for turn 1's to land
        # (on a busy machine that takes a while) before the kill, which must not lose it.
        stores = open_stores(store_url, state_url)
        deadline = time.monotonic() + WAIT
        while "vegetarian" not in " ".join(r.text for r in stores.memories.all("ana")[0]).lower():
            assert time.monotonic() < deadline, "turn 1's memory was never written"
            time.sleep(0.5)

        # The third is in flight (its reply held at the provider) when its worker is killed.
        provider.delay_secs, provider.arrived = 60.0, threading.Event()
        outcome: dict[str, Any] = {}

        def third_turn() -> None:
            try:
                outcome["reply"] = call(f"{first}/api/chat", {"user": "ana", "session_id": session,
                                                              "text": "Make it 5 people"}, timeout=90)
            except OSError as exc:
                outcome["error"] = exc
        client = threading.Thread(target=third_turn)
        client.start()
        assert provider.arrived.wait(60), "the third turn never reached the LLM"
        os.kill(first_pid, signal.SIGKILL)
        client.join(30)
        assert "error" in outcome, outcome      # the connection died with the worker

        # The client sends the turn again, to the other worker, with its session id.
        provider.delay_secs = 0.0
        status, again = call(f"{second}/api/chat", {"user": "ana", "session_id": session, "text": "Make it 5 people"})
        assert status == 200 and again["session_id"] == session and again["turn"] >= 3, again
        assert again["state_version"] > two["state_version"]
        stores = open_stores(store_url, state_url)
        state = stores.states.load(session)
        assert state is not None
        assert state.constraints["party_size"].value == 5 and state.constraints["cuisine"].value.lower() == "italian"
        assert "time" in " ".join(state.constraints), state.constraints.keys()
        # The second worker's prompt carried the conversation the first one had.
        window = " ".join(m["content"] for m in provider.requests[-1])
        assert "table for 4 people" in window and "Italian" in window, window
        # Long-term memory the first worker wrote before it was killed is there.
        texts = " ".join(r.text for r in stores.memories.all("ana")[0])
        assert "vegetarian" in texts.lower(), texts

        # The supervisor started the killed worker again; it continues the session too.
        assert wait_ready(first)["pid"] != first_pid
        status, four = call(f"{first}/api/chat", {"user": "ana", "session_id": session, "text": "Thanks, that's all"})
        assert status == 200 and four["turn"] == again["turn"] + 1, four

        # SIGTERM drains: a turn in flight is answered before the worker stops.
        provider.delay_secs = 3.0
        drained: dict[str, Any] = {}
        late = threading.Thread(target=lambda: drained.setdefault(
            "reply", call(f"{second}/api/chat", {"user": "bo", "text": "A table for two tonight"}, timeout=90)))
        provider.arrived = threading.Event()
        late.start()
        assert provider.arrived.wait(60)
        supervisor.send_signal(signal.SIGTERM)
        late.join(60)
        assert drained.get("reply", (0, {}))[0] == 200, drained
        assert supervisor.wait(60) == 0
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait()
        serving.close()
        log.close()
    lines = [json.loads(line) for line in (tmp_path / "workers.log").read_text().splitlines()
             if line.startswith("{")]
    assert any(line["session_id"] == session for line in lines), "no log line carried the session id"
    assert any("killed by SIGKILL" in line["message"] for line in lines)


def test_a_turn_is_answered_through_5_s_of_network_loss_to_either_server(shared_stores: SharedStores,
                                                                         tmp_path: Path) -> None:
    """PostgreSQL out of reach: the reply comes at once, without recall, and the turn's memory
    lands once the server is back. Redis out of reach: the state update waits and retries, the
    reply comes when it is committed, nothing is lost."""
    from monologue.configs import load_config
    from monologue.memory.stores.factory import open_stores
    from monologue.pipeline.builder import load_text_models

    servers = shared_stores.servers
    config = load_config(overrides={"llm": {"model": "openai/gpt-4o-mini", "fallback": None,
                                            "mock_response": "Okay."},
                                    "monologue": {"llm_mode": "never"}, "long_term": {"llm_help": False},
                                    "state": {"url": shared_stores.state_url}}, environ={})
    models = load_text_models(config)
    models.encoder()
    outage = 5.0

    async def run() -> dict[str, Any]:
        server = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "out", store_path=shared_stores.store_url))
        out: dict[str, Any] = {}
        one = await server.chat({"user": "ana", "text": "I'd like a table for 4 people on Friday at 7pm"})
        session = one["session_id"]
        loop = asyncio.get_running_loop()

        # PostgreSQL stays frozen until the reply is in: answered during the outage, however long
        # this machine takes to get there (the hang guard is not a budget).
        servers.freeze("postgres")
        started = time.monotonic()
        out["pg"] = await asyncio.wait_for(server.chat({"user": "ana", "session_id": session,
                                                        "text": "By the way, I absolutely love jazz music"}), WAIT)
        out["pg_frozen_secs"] = time.monotonic() - started
        await asyncio.sleep(max(0.0, outage - out["pg_frozen_secs"]))
        servers.thaw("postgres")

        servers.freeze("redis")
        loop.call_later(outage, servers.thaw, "redis")
        started = time.monotonic()
        out["redis"] = await server.chat({"user": "ana", "session_id": session, "text": "Make it 5 people"})
        out["redis_secs"] = time.monotonic() - started
        await server.close()
        out["session"] = session
        return out

    try:
        out = asyncio.run(run())
    finally:
        servers.thaw("postgres")
        servers.thaw("redis")
    assert out["pg"]["reply"] and out["pg"]["recall"] == "timed_out", out["pg"]
    assert out["redis"]["reply"] and out["redis_secs"] >= outage - 1, out   # it waited and retried
    stores = open_stores(shared_stores.store_url, shared_stores.state_url)
    state = stores.states.load(out["session"])
    assert state is not None and state.constraints["party_size"].value == 5, state
    deadline = time.monotonic() + 30
    while "jazz" not in " ".join(r.text for r in stores.memories.all("ana")[0]).lower():
        assert time.monotonic() < deadline, "the memory written during the outage never landed"
        time.sleep(0.5)


def test_a_session_that_only_heard_its_greeting_is_not_greeted_twice(tmp_path: Path) -> None:
    """A page that heard the opening, dropped and came back: the window has one opening, not two."""
    from monologue.memory.stores.state import SqlStateStore
    from monologue.pipeline.builder import load_text_models, user_memory
    from monologue.pipeline.text_chat import ChatOptions, chat_session

    config = text_config()
    models = load_text_models(config)
    models.encoder()
    store_path = str(tmp_path / "shared.db")

    async def run() -> Any:
        store = SqlStateStore(store_path)
        first = await chat_session([], config, models, ChatOptions(
            session_id="greeted", store=store, long_term=user_memory(config, models, "ana", store_path)))
        again = await chat_session(["A table for two tonight"], config, models, ChatOptions(
            session_id="greeted", store=store, out_dir=tmp_path / "again",
            long_term=user_memory(config, models, "ana", store_path)))
        return first, again

    first, again = asyncio.run(run())
    assert first.opening and not again.opening
    prompt = again.turns[-1].reply.prompt
    assert sum(m["content"] == first.opening for m in prompt) == 1, prompt


def test_forget_everything_in_a_text_room_erases_the_session_now(tmp_path: Path) -> None:
    """The room ends once the erase is confirmed, so its state and what was said leave the
    stores at once: a worker taking the session up afterwards finds nothing of it."""
    from monologue.memory.stores.state import SqlStateStore
    from monologue.pipeline.builder import load_text_models

    config = text_config()
    models = load_text_models(config)
    models.encoder()
    store = str(tmp_path / "shared.db")

    async def run() -> tuple[str, list[dict[str, Any]], bool]:
        server = RoomServer(config, models, ServeOptions(out_dir=tmp_path / "out", store_path=store))
        said = [await server.chat({"text": "I'm allergic to peanuts and I need a table for two tonight",
                                   "user": "ana"})]
        session = said[0]["session_id"]
        said.append(await server.chat({"text": "Forget everything about me.", "user": "ana", "session_id": session}))
        said.append(await server.chat({"text": "yes", "user": "ana", "session_id": session}))
        with contextlib.suppress(TimeoutError):
            await until(lambda: session not in server.rooms, every=0.1, limit_secs=WAIT)
        ended = session not in server.rooms
        await server.close()
        return session, said, ended

    session, said, ended = asyncio.run(run())
    assert said[1]["reply"].startswith("Shall I erase") and said[2]["reply"].startswith("Done"), said
    assert ended, "the room did not end after the erase"
    states = SqlStateStore(store)
    assert states.load(session) is None and states.said(session, 100) == []


def test_the_supervisor_gives_up_on_a_worker_that_cannot_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault restarts will not cure (here: an unknown language) stops the supervisor with status 1
    and a line saying so, instead of restarting the worker forever."""
    from loguru import logger

    from monologue.pipeline import workers

    # Each exit counts as "soon after starting" however slowly this machine starts a worker.
    monkeypatch.setattr(workers, "STEADY_SECS", 3600.0)
    said: list[str] = []
    sink = logger.add(lambda message: said.append(str(message)), level="INFO")
    try:
        supervisor = workers.Supervisor(["--language", "xx", "--store", str(tmp_path / "m.db")], _free_port(), 1,
                                        restart_pause=0.01)
        started = time.monotonic()
        assert supervisor.run(poll_secs=0.05) == 1
    finally:
        logger.remove(sink)
    assert supervisor.workers[0].exits == workers.GIVE_UP_AFTER
    assert time.monotonic() - started < 900          # a hang guard: it gave up, it did not retry forever
    assert any("times in a row" in line and "will not help" in line for line in said), said
