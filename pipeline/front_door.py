"""The server's front door: who is calling, and what a request may cost (`monologue serve`).

Every way in over the network (the room page, `POST /api/offer`, `PATCH /api/offer`, `POST
/api/chat`; the panel's data channel only exists on a peer connection an authenticated offer
made) passes here before a room sees it:

- **Who.** With credentials on, the caller is the user of a verified token (`Authorization:
  Bearer mono_…`, or the page's login cookie), never a name in the request. A `user` field
  that names someone else is refused. Without credentials (`open`: a loopback server with no
  users, or `--insecure-no-auth`), the page's typed name is trusted, as on a machine of one
  person; a request without a name is anonymous, never the owner of a session it names.
- **How much.** Body size and JSON depth are checked before the body is parsed; turns per
  second per user and rooms per user are limited so one client cannot fill the server.
  Each refusal is a 4xx that names the limit.

Tokens themselves live in the store (`memory/stores/access.py`), so every worker agrees.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from monologue.memory.stores.access import SqlAccessStore

AuthMode = Literal["tokens", "open"]
COOKIE = "monologue_token"


class RequestError(Exception):
    """A request the server refuses, with the HTTP status and a message for the client."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass(frozen=True)
class Limits:
    """What one request, and one user, may cost. Defaults fit a page and a script; a deployment
    sets its own in `server:` of the config."""

    max_body_bytes: int = 64 * 1024      # an SDP offer is a few KiB; a typed turn well under 2,000 characters
    max_json_depth: int = 8              # the deepest body we take is 3 (ICE candidates in a list)
    turns_per_sec: float = 2.0           # typed turns and offers per user, sustained…
    turn_burst: int = 6                  # …and at once
    rooms_per_user: int = 4              # rooms one user holds open (text and voice) on one worker


def is_loopback(host: str) -> bool:
    """Whether `host` listens for this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def choose_mode(host: str, has_credentials: bool, insecure_no_auth: bool) -> tuple[AuthMode, str]:
    """How a server on `host` authenticates, and what to tell the operator ('' nothing).
    `ValueError` when it must not start: reachable from the network, and nobody can log in."""
    if insecure_no_auth:
        if is_loopback(host):
            return "open", ""
        return "open", (f"--insecure-no-auth on {host}: ANYONE who can reach this address can talk as any user "
                        "and hear what the agent remembers about them. Use it only on a network you trust.")
    if has_credentials:
        return "tokens", ""
    if is_loopback(host):
        return "open", ""
    raise ValueError(f"serving on {host} (reachable from the network) needs credentials, and the store has none: "
                     "run `monologue users add NAME` (it prints the user's token), or listen on 127.0.0.1, "
                     "or pass --insecure-no-auth to serve without authentication")


def json_depth(value: Any) -> int:
    """How deeply `value` nests (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
            deepest = max(deepest, depth + 1)
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
            deepest = max(deepest, depth + 1)
    return deepest


def _bracket_depth(raw: bytes, limit: int) -> bool:
    """Whether the JSON text opens more than `limit` brackets at once (strings skipped):
    checked before parsing, so a body of 50,000 '[' never reaches the parser's recursion."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:          # backslash
                escaped = True
            elif byte == 0x22:          # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):      # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def parse_body(raw: bytes, limits: Limits) -> Any:
    """The request's JSON, or `RequestError` naming the limit or the fault."""
    if len(raw) > limits.max_body_bytes:
        raise RequestError(413, f"the body is {len(raw):,} bytes, over the limit of {limits.max_body_bytes:,}")
    if _bracket_depth(raw, limits.max_json_depth):
        raise RequestError(400, f"the JSON body nests deeper than {limits.max_json_depth} levels (the limit)")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise RequestError(400, "the body is not JSON; send a JSON object") from None


@dataclass
class TokenBucket:
    """`rate` events per second on average, `burst` at once."""

    rate: float
    burst: float
    level: float = -1.0
    at: float = 0.0

    def take(self, now: float) -> float:
        """0 if an event may happen now (and it is counted), else the seconds to wait."""
        if self.level < 0:
            self.level, self.at = self.burst, now
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) / self.rate


@dataclass
class FrontDoor:
    """The caller of each request, and the per-user limits, for one server process."""

    mode: AuthMode = "open"
    access: SqlAccessStore | None = None          # where tokens are checked (mode "tokens")
    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, TokenBucket] = field(default_factory=dict)

    def caller(self, authorization: str, cookie: str) -> str | None:
        """The verified user of a request (mode "tokens"), or None (mode "open": the request's
        own name is taken). `RequestError` 401 when a credential is needed and not good."""
        if self.mode == "open":
            return None
        assert self.access is not None
        token = ""
        if authorization:
            scheme, _, value = authorization.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise self._unauthorized("the Authorization header is not 'Bearer <token>'")
            token = value.strip()
        token = token or cookie
        if not token:
            raise self._unauthorized("this server needs a credential: send 'Authorization: Bearer <token>' "
                                     "(an operator makes one with `monologue users add NAME`), or log in on the page")
        verified = self.access.verify(token)
        if verified.expired_at is not None:
            when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(verified.expired_at))
            raise self._unauthorized(f"the token expired on {when}; ask the operator for a new one")
        if verified.user is None:
            raise self._unauthorized("the token is not valid (mistyped, or revoked with `monologue users remove`)")
        return verified.user

    @staticmethod
    def _unauthorized(message: str) -> RequestError:
        return RequestError(401, message, {"WWW-Authenticate": 'Bearer realm="monologue"'})

    def pace(self, user: str) -> None:
        """Count one turn (or offer) of `user`; `RequestError` 429 when they come too fast."""
        bucket = self._buckets.setdefault(user, TokenBucket(self.limits.turns_per_sec, self.limits.turn_burst))
        wait = bucket.take(self.clock())
        if wait > 0:
            raise RequestError(429, f"too many turns: the limit is {self.limits.turns_per_sec:g} a second per user "
                                    f"(bursts of {self.limits.turn_burst}); try again in {wait:.1f} s",
                               {"Retry-After": str(max(1, round(wait)))})
        if len(self._buckets) > 10_000:         # forget the full ones: a flood of names must not grow this
            now = self.clock()
            self._buckets = {u: b for u, b in self._buckets.items() if now - b.at < b.burst / b.rate}
