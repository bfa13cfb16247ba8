"""The server's front door (S2, S3, U1, U3): who may talk to it, and what a bad request costs.

The first tests are the parts alone (tokens, names, limits, the choice of mode). Then an
adversarial set against a real server over HTTP, with two users who each hold a token: no
credential, a forged, an expired and a revoked one, another user's session id and peer
connection, a `user` field that names someone else, path-like ids, oversized and deep
bodies, floods of turns and of rooms. It counts what matters: replies to one user that carry
the other's words (0), and files written outside `--out` (0). Last, the HTTP API fuzzed from
its own OpenAPI document (schemathesis): no response is a 5xx.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from monologue.memory.stores.access import (
    BadUserName,
    SqlAccessStore,
    check_session_id,
    check_user_name,
)
from monologue.pipeline.front_door import (
    FrontDoor,
    Limits,
    RequestError,
    TokenBucket,
    choose_mode,
    json_depth,
    parse_body,
)
from monologue.pipeline.server.room_server import RoomServer
from monologue.pipeline.server.rooms import ServeOptions

from fakes import steady

ALICE_SECRET = "4417"            # her door code: nobody else may ever hear it
ALICE_STREET = "Rosenweg"


# --- the parts ---------------------------------------------------------------------------------

def test_a_token_works_until_it_expires_or_is_revoked(tmp_path: Path) -> None:
    access = SqlAccessStore(tmp_path / "s.db")
    now = 1_800_000_000.0
    ana = access.issue("ana", ttl_days=1, now=now)
    other = access.issue("ana", ttl_days=30, now=now)
    ben = access.issue("Ben Okafor", ttl_days=1, now=now)
    assert ana.token.startswith("mono_") and len(ana.token) > 40 and ana.token != other.token
    assert access.verify(ana.token, now + 60).user == "ana"
    assert access.verify(ben.token, now).user == "Ben Okafor"
    lapsed = access.verify(ana.token, now + 86400 + 1)
    assert lapsed.user is None and lapsed.expired_at == pytest.approx(now + 86400)
    assert access.verify(other.token, now + 86400 + 1).user == "ana"      # the longer one still works
    for forged in ("", "mono_", ana.token[:-1] + ("A" if ana.token[-1] != "A" else "B"), "Bearer " + ana.token,
                   ana.token.upper(), "x" * 500):
        assert access.verify(forged, now).user is None, forged
    assert access.revoke("ana") == 2
    assert access.verify(other.token, now).user is None
    assert [u.user for u in access.users()] == ["Ben Okafor"]
    raw = (tmp_path / "s.db").read_bytes()
    assert ben.token.encode() not in raw and ben.token[5:].encode() not in raw     # only digests are kept


def test_names_and_session_ids_are_names_never_paths() -> None:
    for name in ("ana", "Ben Okafor", "王小明", "o'brien", "x@example.org", "a"):
        assert check_user_name(name) == name
    for bad in ("", ".", "..", "../ana", "a/b", "a\\b", " ana", "_x", "ana\x1b[31m", "a\u202eb", "x" * 65):
        with pytest.raises(BadUserName):
            check_user_name(bad)
    assert check_session_id("s20261203-141138-ab12cd") == "s20261203-141138-ab12cd"
    for bad in ("", ".", "..", "../x", "a/b", "a.b", "-x", "x" * 65, "%2e%2e"):
        with pytest.raises(ValueError):
            check_session_id(bad)


def test_who_must_log_in_depends_on_where_the_server_listens() -> None:
    assert choose_mode("127.0.0.1", False, False) == ("open", "")
    assert choose_mode("::1", False, False) == ("open", "")
    assert choose_mode("localhost", True, False) == ("tokens", "")
    assert choose_mode("0.0.0.0", True, False) == ("tokens", "")
    with pytest.raises(ValueError, match="users add"):
        choose_mode("0.0.0.0", False, False)
    with pytest.raises(ValueError, match="insecure-no-auth"):
        choose_mode("192.168.1.20", False, False)
    mode, warning = choose_mode("0.0.0.0", True, True)
    assert mode == "open" and "ANYONE" in warning


def test_bodies_are_checked_before_they_are_parsed() -> None:
    limits = Limits(max_body_bytes=1000, max_json_depth=4)
    assert parse_body(b'{"text": "hi [[[[[[ {{{{ ", "a": [1, {"b": 2}]}', limits)["a"][1]["b"] == 2
    with pytest.raises(RequestError) as big:
        parse_body(b'{"text": "' + b"x" * 2000 + b'"}', limits)
    assert big.value.status == 413 and "1,000" in big.value.message
    with pytest.raises(RequestError) as deep:
        parse_body(b"[" * 400 + b"]" * 400, limits)
    assert deep.value.status == 400 and "deeper than 4" in deep.value.message
    with pytest.raises(RequestError) as junk:
        parse_body(b'{"text": "hi"', limits)
    assert junk.value.status == 400 and "not JSON" in junk.value.message
    # Deep enough to break Python's own parser, under a generous byte limit: still a 400.
    with pytest.raises(RequestError) as very:
        parse_body(b"[" * 200_000, Limits(max_body_bytes=10**6, max_json_depth=10**6))
    assert very.value.status == 400
    assert json_depth({"a": [1, {"b": [2]}]}) == 4 and json_depth(3) == 0


def test_turns_come_at_the_pace_the_limit_allows() -> None:
    now = [100.0]
    door = FrontDoor(limits=Limits(turns_per_sec=2.0, turn_burst=3), clock=lambda: now[0])
    for _ in range(3):
        door.pace("ana")
    with pytest.raises(RequestError) as fast:
        door.pace("ana")
    assert fast.value.status == 429 and "2 a second" in fast.value.message
    assert int(fast.value.headers["Retry-After"]) >= 1
    door.pace("ben")                           # one user's flood is not another's
    now[0] += 0.5                              # one turn's worth of time later
    door.pace("ana")
    with pytest.raises(RequestError):
        door.pace("ana")
    bucket = TokenBucket(rate=1.0, burst=1.0)
    assert bucket.take(0.0) == 0.0 and bucket.take(0.25) == pytest.approx(0.75)


def test_a_credential_is_read_from_the_header_or_the_cookie(tmp_path: Path) -> None:
    access = SqlAccessStore(tmp_path / "s.db")
    token = access.issue("ana").token
    door = FrontDoor("tokens", access)
    assert door.caller(f"Bearer {token}", "") == "ana"
    assert door.caller(f"bearer   {token}  ", "") == "ana"
    assert door.caller("", token) == "ana"
    expired = access.issue("ana", ttl_days=1, now=time.time() - 2 * 86400).token
    for header, cookie, says in ((f"Basic {token}", "", "Bearer"), ("", "", "needs a credential"),
                                 ("Bearer mono_forged", "", "not valid"), (f"Bearer {expired}", "", "expired")):
        with pytest.raises(RequestError) as refused:
            door.caller(header, cookie)
        assert refused.value.status == 401 and says in refused.value.message
        assert refused.value.headers["WWW-Authenticate"].startswith("Bearer")
    assert FrontDoor("open").caller("", "") is None


# --- a real server, two users -------------------------------------------------------------------

def _config() -> Any:
    from monologue.configs import load_config

    return load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                             "mock_response": "Sure, noted."},
                                        monologue={"llm_mode": "never"}, long_term={"llm_help": False}),
                       environ={})


@dataclass
class Served:
    url: str
    root: Path              # everything the server may write is under root/out, and the store beside it
    server: RoomServer
    tokens: dict[str, str]
    access: SqlAccessStore

    def client(self, user: str | None = None, **headers: str) -> httpx.Client:
        if user is not None:
            headers = {"Authorization": f"Bearer {self.tokens[user]}", **headers}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120.0)


def _serve(server: RoomServer) -> tuple[str, Any]:
    """`server` under uvicorn in a thread, as the room tests serve it: (its URL, stop)."""
    from test_serve import _serve_in_thread

    return _serve_in_thread(server)


def _start(root: Path, limits: Limits) -> tuple[Served, Any]:
    from monologue.pipeline.builder import load_text_models

    config = _config()
    models = load_text_models(config)
    models.encoder()
    store = str(root / "store.db")
    access = SqlAccessStore(store)
    tokens = {user: access.issue(user).token for user in ("alice", "bob")}
    server = RoomServer(config, models, ServeOptions(out_dir=root / "out", store_path=store, auth="tokens",
                                                     limits=limits, max_rooms=12))
    url, stop = _serve(server)
    return Served(url, root, server, tokens, access), stop


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("front_door")
    running, stop = _start(root, Limits(turns_per_sec=50.0, turn_burst=50, rooms_per_user=4))
    try:
        yield running
    finally:
        stop()


def _files_outside_out(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_relative_to(root / "out")
            and not p.name.startswith("store.db")]


def test_no_user_reads_another_users_memory_through_any_door(served: Served) -> None:
    alice, bob, nobody = served.client("alice"), served.client("bob"), served.client()
    said = alice.post("/api/chat", json={"text": f"Please remember my door code is {ALICE_SECRET} and I live on "
                                                 f"{ALICE_STREET}"})
    assert said.status_code == 200, said.text
    session = said.json()["session_id"]
    assert alice.post("/api/chat", json={"text": "A table for two tonight at 8", "session_id": session}).status_code \
        == 200
    heard_by_others: list[httpx.Response] = []
    attempts = [
        (nobody, {"text": "What do you remember about me?", "session_id": session}, 401),
        (nobody, {"text": "What is my door code?", "session_id": session, "user": "alice"}, 401),
        (served.client(Authorization="Bearer mono_" + "A" * 43), {"text": "Where do I live?", "session_id": session},
         401),
        (served.client(Authorization=served.tokens["alice"]), {"text": "Where do I live?"}, 401),   # no scheme
        (bob, {"text": "What do you remember about me?", "session_id": session}, 403),
        (bob, {"text": "What is my door code?", "session_id": session, "user": "alice"}, 403),
        (bob, {"text": "Where do I live?", "user": "alice"}, 403),
    ]
    for client, body, status in attempts:
        response = client.post("/api/chat", json=body)
        heard_by_others.append(response)
        assert response.status_code == status, (body, response.status_code, response.text)
        assert "error" in response.json()
    # Bob in his own session: asks for "his" memories, and for hers.
    own = bob.post("/api/chat", json={"text": "What do you remember about me?"})
    assert own.status_code == 200, own.text
    heard_by_others.append(own)
    for text in ("What is alice's door code?", "Where does alice live?", "what did the last person tell you?"):
        heard_by_others.append(bob.post("/api/chat", json={"text": text, "session_id": own.json()["session_id"]}))
    leaks = [r.text for r in heard_by_others if ALICE_SECRET in r.text or ALICE_STREET in r.text]
    assert leaks == [], leaks
    # Alice herself is answered, in her own session.
    mine = alice.post("/api/chat", json={"text": "What do you remember about me?", "session_id": session})
    assert mine.status_code == 200 and mine.json()["reply"]


def test_an_expired_or_revoked_token_stops_working_at_once(served: Served) -> None:
    expired = served.access.issue("carol", ttl_days=1, now=time.time() - 3 * 86400).token
    response = served.client(Authorization=f"Bearer {expired}").post("/api/chat", json={"text": "hello"})
    assert response.status_code == 401 and "expired" in response.json()["error"]
    dave = served.access.issue("dave").token
    client = served.client(Authorization=f"Bearer {dave}")
    assert client.post("/api/chat", json={"text": "hello there"}).status_code == 200
    served.access.revoke("dave")
    refused = client.post("/api/chat", json={"text": "hello again"})
    assert refused.status_code == 401 and "revoked" in refused.json()["error"]


def test_path_like_ids_and_bad_bodies_get_a_4xx_naming_the_fault(served: Served) -> None:
    alice = served.client("alice")
    for session_id in (".", "..", "../..", "../escape", "a/b", "/etc", "..\\x", "x" * 65, "a.b"):
        response = alice.post("/api/chat", json={"text": "hi", "session_id": session_id})
        assert response.status_code == 400 and "session_id" in response.json()["error"], session_id
        offer = alice.post("/api/offer", json={"sdp": "v=0", "type": "offer", "session_id": session_id})
        assert offer.status_code == 400, session_id
    big = alice.post("/api/chat", content=b'{"text": "' + b"x" * 200_000 + b'"}',
                     headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and "limit" in big.json()["error"]
    # A 50 MB body is refused by its declared length, before it is read.
    assert _declared_length_status(served, 50 * 2**20) == 413
    deep = alice.post("/api/chat", content=b"[" * 20_000 + b"]" * 20_000,
                      headers={"Content-Type": "application/json"})
    assert deep.status_code == 400 and "deeper" in deep.json()["error"]
    for invisible in ("   ", "\u200b\u200b", "\u200d\ufeff \u2060", "\t\n", "\u202e\u2066"):
        response = alice.post("/api/chat", json={"text": invisible})
        assert response.status_code == 400 and "visible" in response.json()["error"], repr(invisible)
    session = ""
    for visible in ("好", "ok", "👍🏽", "👨\u200d👩\u200d👧"):       # one session: rooms per user are limited
        response = alice.post("/api/chat", json={"text": visible, **({"session_id": session} if session else {})})
        assert response.status_code == 200, (visible, response.text)
        session = response.json()["session_id"]
    long = alice.post("/api/chat", json={"text": "x" * 2001})
    assert long.status_code == 400 and "2000" in long.json()["error"]
    for junk in (b"not json", b"", b"[]", b'"text"', b"null", b'{"text": 5}'):
        response = alice.post("/api/chat", content=junk, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, (junk, response.text)
    assert _files_outside_out(served.root) == []


def _declared_length_status(served: Served, length: int) -> int:
    """The status for a request that declares `length` bytes and sends only its first few."""
    import socket

    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall((f"POST /api/chat HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                      f"Authorization: Bearer {served.tokens['alice']}\r\nContent-Length: {length}\r\n\r\n"
                      '{"text": "').encode())
        status_line = sock.recv(200).split(b"\r\n", 1)[0]
    return int(status_line.split()[1])


def test_the_page_is_behind_a_login_and_its_cookie_only_counts_for_json(served: Served) -> None:
    nobody = served.client()
    page = nobody.get("/")
    assert page.status_code == 200 and 'id="login"' in page.text and 'id="transcript"' not in page.text
    assert nobody.get("/api/me").status_code == 401
    wrong = nobody.post("/api/login", json={"token": "mono_nope"})
    assert wrong.status_code == 401 and "monologue_token" not in wrong.headers.get("set-cookie", "")
    login = nobody.post("/api/login", json={"token": served.tokens["bob"]})
    assert login.status_code == 200 and login.json() == {"user": "bob"}
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    browser = served.client()
    browser.cookies.set("monologue_token", served.tokens["bob"])
    assert 'id="transcript"' in browser.get("/").text
    assert browser.get("/api/me").json() == {"auth": "tokens", "user": "bob"}
    assert browser.post("/api/chat", json={"text": "hello"}).status_code == 200
    # What a form on another site could send: the cookie, but not a JSON content type.
    forged = browser.post("/api/chat", content=b'{"text": "hello"}', headers={"Content-Type": "text/plain"})
    assert forged.status_code == 415


def test_ice_for_another_users_peer_connection_is_refused(served: Served) -> None:
    served.server.webrtc.peers["pc-alice"] = "alice"
    bob = served.client("bob")
    patch = bob.patch("/api/offer", json={"pc_id": "pc-alice", "candidates": []})
    assert patch.status_code == 404
    renegotiate = bob.post("/api/offer", json={"sdp": "v=0\r\n", "type": "offer", "pc_id": "pc-alice"})
    assert renegotiate.status_code in (400, 403)


def test_floods_are_slowed_and_cannot_lock_others_out(tmp_path: Path) -> None:
    running, stop = _start(tmp_path, Limits(turns_per_sec=1.0, turn_burst=3, rooms_per_user=2))
    try:
        bob = running.client("bob")
        codes = [bob.post("/api/chat", json={"text": "a table for two"}).status_code for _ in range(6)]
        assert codes[:2] == [200, 200] and 429 in codes, codes       # two rooms, then the limits
        refused = [c for c in codes if c == 429]
        assert len(refused) >= 3
        alice = running.client("alice")
        assert alice.post("/api/chat", json={"text": "a table for four"}).status_code == 200   # not locked out
        time.sleep(1.2)
        response = bob.post("/api/chat", json={"text": "a table for three"})
        assert response.status_code == 429 and "rooms" in response.json()["error"]        # the per-user cap
        assert len(running.server.rooms) == 3
    finally:
        stop()


def test_the_http_api_fuzzed_from_its_schema_answers_no_5xx(served: Served) -> None:
    """Every operation in the OpenAPI document, with generated bodies (valid and not), with and
    without a credential: no response is a server error."""
    import schemathesis
    from hypothesis import HealthCheck, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error

    schema = schemathesis.openapi.from_url(f"{served.url}/openapi.json")
    operations = [cast(Any, op).ok() for op in schema.get_all_operations()]   # an Err would raise here
    posted = {f"{op.method.upper()} {op.path}" for op in operations}
    assert {"POST /api/chat", "POST /api/offer", "PATCH /api/offer", "POST /api/login"} <= posted, posted
    failures: list[str] = []
    seen: dict[int, int] = {}
    from hypothesis import given

    def fuzz(operation: Any, headers: dict[str, str], mode: Any) -> None:
        @given(case=operation.as_strategy(mode))
        @settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            response = case.call(headers=headers, timeout=60)
            seen[response.status_code] = seen.get(response.status_code, 0) + 1
            try:
                case.validate_response(response, checks=[not_a_server_error])
            except Exception as exc:
                failures.append(f"{operation.method} {operation.path}: {response.status_code} {exc}"[:400])
        try:
            run()
        except Unsatisfiable:       # nothing to break in an operation without a body (GET /api/health)
            assert mode == GenerationMode.NEGATIVE and not list(operation.body), operation.path

    for operation in operations:
        for headers in ({"Authorization": f"Bearer {served.tokens['alice']}"}, {}):
            for mode in GenerationMode:                # bodies the schema allows, and bodies it does not
                fuzz(operation, headers, mode)
    assert failures == [], failures
    print(f"fuzzed: {sum(seen.values())} requests, statuses {dict(sorted(seen.items()))}")
    assert sum(seen.values()) > 300 and not any(code >= 500 for code in seen), seen
    assert _files_outside_out(served.root) == []


def test_a_voice_room_offer_for_another_users_session_is_refused(tmp_path: Path) -> None:
    """The offer path: a real browser-like SDP (aiortc), a session id that is Alice's, Bob's
    credential: refused before any peer connection is made for it."""
    import dataclasses

    from aiortc import RTCPeerConnection

    from monologue.pipeline.builder import load_text_models

    config = _config()
    speaking = dataclasses.replace(load_text_models(config), asr=object(), tts=object())  # type: ignore[arg-type]
    store = str(tmp_path / "store.db")
    server = RoomServer(config, speaking, ServeOptions(out_dir=tmp_path / "out", store_path=store, auth="tokens"))
    server.access.claim("s-alice-1", "alice")

    async def run() -> list[RequestError]:
        peer = RTCPeerConnection()
        peer.addTransceiver("audio", direction="sendrecv")
        await peer.setLocalDescription(await peer.createOffer())
        sdp = peer.localDescription.sdp
        refusals = []
        for body in ({"session_id": "s-alice-1"}, {"session_id": "s-alice-1", "user": "alice"}, {"user": "alice"}):
            with pytest.raises(RequestError) as refused:
                await server.offer({"sdp": sdp, "type": "offer", **body}, "bob")
            refusals.append(refused.value)
        await peer.close()
        await server.close()
        return refusals

    refusals = asyncio.run(run())
    assert [r.status for r in refusals] == [403, 403, 403], refusals
    assert server.rooms == {} and not (tmp_path / "out").exists()


def test_tokens_and_owners_are_shared_by_workers_on_postgresql(pg_url: str) -> None:
    """Two workers' connections to one PostgreSQL: a token made through one works through the
    other, a removal is seen at once, and the first claim of a session id wins for both."""
    from monologue.memory.stores.postgres import PostgresDatabase

    one, two = SqlAccessStore(PostgresDatabase(pg_url)), SqlAccessStore(PostgresDatabase(pg_url))
    token = one.issue("ana").token
    assert two.verify(token).user == "ana" and two.any_credentials()
    assert one.claim("s-1", "ana") == "ana" and two.claim("s-1", "ben") == "ana" and two.owner("s-1") == "ana"
    two.revoke("ana")
    assert one.verify(token).user is None


def test_a_session_stays_its_owners_through_a_takeover(tmp_path: Path) -> None:
    """Alice's session on worker A, continued on worker B (A's room is now behind): Bob is
    refused on both, with his own name or none, and Alice carries on on A, which takes the
    session up again."""
    from monologue.pipeline.builder import load_text_models

    config = _config()
    models = load_text_models(config)
    models.encoder()
    store, out = str(tmp_path / "store.db"), tmp_path / "out"

    async def run() -> tuple[list[int], list[int]]:
        a = RoomServer(config, models, ServeOptions(out_dir=out, store_path=store, auth="tokens"))
        b = RoomServer(config, models, ServeOptions(out_dir=out, store_path=store, auth="tokens"))
        first = await a.chat({"text": f"my door code is {ALICE_SECRET}"}, "alice")
        session = first["session_id"]
        turns = [first["turn"], (await b.chat({"text": "a table for two", "session_id": session}, "alice"))["turn"]]
        refused = []
        for server in (a, b):
            for body in ({}, {"user": "bob"}):
                with pytest.raises(RequestError) as caught:
                    await server.chat({"text": "what is my door code?", "session_id": session, **body}, "bob")
                refused.append(caught.value.status)
        turns.append((await a.chat({"text": "make it three", "session_id": session}, "alice"))["turn"])
        await a.close()
        await b.close()
        return turns, refused

    turns, refused = asyncio.run(run())
    assert turns == [1, 2, 3] and refused == [403, 403, 403, 403]


def test_users_are_added_listed_and_removed_from_the_command_line(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from monologue.pipeline.cli import main

    store = str(tmp_path / "store.db")
    # Reachable from the network with nobody to log in: refused before anything loads.
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--store", store, "--text-only"]) == 2
    assert "monologue users add" in capsys.readouterr().err
    assert main(["users", "add", "Ana Lima", "--days", "7", "--store", store]) == 0
    token = capsys.readouterr().out.splitlines()[0]
    assert SqlAccessStore(store).verify(token).user == "Ana Lima"
    assert main(["users", "add", "../ana", "--store", store]) == 2
    assert "not a user name" in capsys.readouterr().err
    assert main(["users", "list", "--store", store]) == 0
    assert "Ana Lima  1 token(s)" in capsys.readouterr().out
    assert main(["users", "remove", "Ana Lima", "--store", store]) == 0
    assert SqlAccessStore(store).verify(token).user is None
    assert main(["users", "remove", "Ana Lima", "--store", store]) == 1


def _no_browser() -> str:
    from test_serve import _browser_missing

    return _browser_missing()


@pytest.mark.slow
@pytest.mark.skipif(bool(_no_browser()), reason=_no_browser() or "browser present")
def test_a_browser_signs_in_and_talks_in_a_room_with_credentials(real_models: Any, tmp_path: Path) -> None:
    """Headless Chromium on a server with credentials: the page is a sign-in form; a wrong
    token is refused; the right one opens the room page signed in (the name is the token's),
    and the room it connects, through the cookie alone, hears the user."""
    import numpy as np
    from playwright.sync_api import expect, sync_playwright
    from test_serve import CHROMIUM, WAIT, demo_first_turn, write_wav

    store = str(tmp_path / "store.db")
    token = SqlAccessStore(store).issue("robin").token
    server = RoomServer(_config(), real_models, ServeOptions(out_dir=tmp_path / "out", store_path=store,
                                                            auth="tokens"))
    url, stop = _serve(server)
    lead = np.zeros(int(8.0 * 16000), dtype=np.int16)
    wav = write_wav(tmp_path / "mic.wav", np.concatenate([lead, demo_first_turn(tail_secs=4.0)]))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM, args=[
                "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
                "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}%noloop"])
            try:
                page = browser.new_page()
                page.goto(url + "/")
                expect(page.locator("#login")).to_be_visible()
                page.fill("#token", "mono_not-a-token")
                page.click("#sign-in")
                expect(page.locator("#status")).to_contain_text("not valid", timeout=30_000)
                page.fill("#token", token)
                page.click("#sign-in")
                expect(page.locator("#name")).to_have_value("robin", timeout=30_000)
                assert page.locator("#name").evaluate("el => el.readOnly")
                assert "monologue_token" not in page.evaluate("document.cookie")    # HttpOnly: no script reads it
                page.click("#connect")
                expect(page.locator("#status")).to_contain_text("Connected", timeout=60_000)
                expect(page.locator("#transcript .user")).to_contain_text("Saturday", timeout=WAIT * 1000)
                page.click("#disconnect")
            finally:
                browser.close()
    finally:
        stop()
    assert [room.user for room in server.finished] == ["robin"]


def test_erasing_a_user_forgets_whose_their_sessions_were(tmp_path: Path) -> None:
    from monologue.memory.stores.erasure import erase_user
    from monologue.memory.stores.factory import open_stores

    stores = open_stores(tmp_path / "store.db")
    stores.access.claim("s-ana-1", "ana")
    stores.access.claim("s-ben-1", "ben")
    token = stores.access.issue("ana").token
    erase_user(stores, "ana")
    assert stores.access.owner("s-ana-1") is None and stores.access.owner("s-ben-1") == "ben"
    assert stores.access.verify(token).user == "ana"     # her credential is `users remove`'s to revoke
