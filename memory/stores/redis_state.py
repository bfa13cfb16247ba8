"""Session states in Redis (`state.url: redis://…`): any worker picks up any session.

The same compare-and-set as the SQL store (W9): a commit names the version it read, and a
Lua script (atomic in Redis) writes the new state, appends the turn's changes to the
session's history and moves the session up the index only if the stored version is still
that one; otherwise `VersionConflict`, and the writer re-reads and re-applies.

Keys, per session: `monologue:state:<id>` (a hash: version, state, updated_at),
`monologue:history:<id>` (a list of changes) and `monologue:said:<id>` (the last
KEPT_UTTERANCES lines said, for a worker that picks the session up); and `monologue:sessions` (a sorted set by
last update). States and changes are sealed as in the SQL stores (`sealing.py`); the key's
id is registered in `monologue:store_keys`. Durability is the server's: run Redis with
`appendonly yes` and `appendfsync always` for a commit to be on disk before it is
acknowledged (compose.yaml and the tests' servers do). A server that is restarting or
unreachable is retried for `retry_secs`, then `StoreUnavailable`.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import Any

from loguru import logger

from monologue.memory.stores.database import SealedValues, open_sealer, retrying
from monologue.memory.stores.postgres import redact
from monologue.memory.stores.protocols import VersionConflict
from monologue.memory.working.conversation import KEPT_UTTERANCES
from monologue.memory.working.state import Change, SessionState

PREFIX = "monologue"
RETRY_SECS = 10.0
SOCKET_TIMEOUT_SECS = 2.0

# KEYS: state hash, history list, sessions index. ARGV: expected version, new version, sealed
# state, updated_at, session id, then the sealed changes. Returns -1, or the stored version.
# The same commit sent again (its reply was lost to a socket timeout on a busy machine, and
# `retrying` resent it) finds its own state stored: that is success, not a conflict, or the
# caller would apply its turn a second time.
_COMMIT = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current == tonumber(ARGV[2]) and redis.call('HGET', KEYS[1], 'state') == ARGV[3] then return -1 end
if current ~= tonumber(ARGV[1]) then return current end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3], 'updated_at', ARGV[4])
for i = 6, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
return -1
"""


def _redis() -> Any:
    try:
        import redis
    except ImportError as exc:
        raise RuntimeError("a redis:// state store needs redis-py: pip install redis "
                           "(it comes with Monologue)") from exc
    return redis


class RedisStateStore(SealedValues):
    """Session states and their change history in Redis."""

    def __init__(self, url: str, *, sealed: bool = True, environ: dict[str, str] | None = None,
                 retry_secs: float = RETRY_SECS) -> None:
        redis = _redis()
        self.url = url
        self.path = redact(url)
        self.retry_secs = retry_secs
        self._retryable = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
        self._client = redis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT_SECS,
                                            socket_connect_timeout=SOCKET_TIMEOUT_SECS, health_check_interval=10)
        self._commit = self._client.register_script(_COMMIT)
        self.sealer = None
        if sealed:
            keys = f"{PREFIX}:store_keys"
            registered = [k.decode() for k in self._attempt("state store keys", lambda: self._client.smembers(keys))]
            self.sealer = open_sealer(registered, lambda key: self._client.sadd(keys, key), self.path, environ)

    def _attempt(self, what: str, work: Any) -> Any:
        return retrying(what, work, self._retryable, self.retry_secs, self.path)

    @staticmethod
    def _keys(session_id: str) -> tuple[str, str]:
        return f"{PREFIX}:state:{session_id}", f"{PREFIX}:history:{session_id}"

    @staticmethod
    def _said_key(session_id: str) -> str:
        return f"{PREFIX}:said:{session_id}"

    def load(self, session_id: str) -> SessionState | None:
        state_key, _ = self._keys(session_id)
        raw = self._attempt("state read", lambda: self._client.hget(state_key, "state"))
        if raw is None:
            return None
        return SessionState.from_dict(json.loads(self.unseal(raw.decode(), f"session_state/{session_id}") or "{}"))

    def commit(self, state: SessionState, expected_version: int, changes: list[Change]) -> None:
        state_key, history_key = self._keys(state.session_id)
        where = f"state_history/{state.session_id}"
        args = [expected_version, state.version, self.seal(state.to_json(), f"session_state/{state.session_id}"),
                repr(state.updated_at), state.session_id,
                *(self.seal(json.dumps(asdict(c), ensure_ascii=False), where) for c in changes)]
        keys = [state_key, history_key, f"{PREFIX}:sessions"]
        stored = int(self._attempt("state commit", lambda: self._commit(keys=keys, args=args)))
        if stored != -1:
            raise VersionConflict(f"session {state.session_id} is at version {stored}, not {expected_version}")

    def history(self, session_id: str) -> list[Change]:
        _, history_key = self._keys(session_id)
        rows = self._attempt("state history", lambda: self._client.lrange(history_key, 0, -1))
        return [Change(**json.loads(self.unseal(r.decode(), f"state_history/{session_id}") or "{}")) for r in rows]

    def add_said(self, session_id: str, role: str, text: str, turn: int) -> None:
        key = self._said_key(session_id)
        entry = self.seal(json.dumps([role, text, turn], ensure_ascii=False), f"session_said/{session_id}")

        def append() -> None:
            pipe = self._client.pipeline(transaction=True)
            pipe.rpush(key, entry)
            pipe.ltrim(key, -KEPT_UTTERANCES, -1)
            pipe.execute()
        self._attempt("said append", append)

    def said(self, session_id: str, limit: int) -> list[tuple[str, str, int]]:
        """The session's last `limit` utterances, oldest first: (role, text, turn)."""
        if limit <= 0:
            return []
        rows = self._attempt("said read", lambda: self._client.lrange(self._said_key(session_id), -limit, -1))
        out = []
        for raw in rows:
            role, text, turn = json.loads(self.unseal(raw.decode(), f"session_said/{session_id}") or "[]")
            out.append((str(role), str(text), int(turn)))
        return out

    def sessions(self) -> list[tuple[str, int, float]]:
        index = self._attempt("state index", lambda: self._client.zrevrange(f"{PREFIX}:sessions", 0, -1,
                                                                             withscores=True))
        ids = [member.decode() for member, _ in index]

        def versions() -> list[Any]:
            pipe = self._client.pipeline(transaction=False)
            for session_id in ids:
                pipe.hget(self._keys(session_id)[0], "version")
            return list(pipe.execute())
        found = self._attempt("state index", versions) if ids else []
        return [(s, int(v or 0), float(at)) for s, v, (_, at) in zip(ids, found, index, strict=True)]

    def erase_sessions(self, session_ids: list[str]) -> int:
        """Delete these sessions' states and histories (a user's erase); returns how many states.
        The append-only file is then rewritten, so it no longer holds them either."""
        if not session_ids:
            return 0

        def erase() -> int:
            pipe = self._client.pipeline(transaction=True)
            for session_id in session_ids:
                pipe.delete(self._keys(session_id)[0])
                pipe.delete(self._keys(session_id)[1], self._said_key(session_id))
            pipe.zrem(f"{PREFIX}:sessions", *session_ids)
            results = pipe.execute()
            return sum(int(r) for r in results[:-1:2])
        count: int = self._attempt("state erase", erase)
        try:
            self._client.bgrewriteaof()
        except Exception as exc:  # a rewrite already running, or persistence off: the keys are gone either way
            logger.info(f"state erase: the server did not rewrite its append-only file now ({exc})")
        return count

    def ping(self) -> float:
        """Milliseconds for a round trip (readiness)."""
        started = time.perf_counter()
        self._attempt("state ping", self._client.ping)
        return (time.perf_counter() - started) * 1000

    def close(self) -> None:
        self._client.close()

