"""Who may talk to a server, and whose each session is: per-user credentials and session owners.

A credential is an opaque random token (`secrets.token_urlsafe`, 256 bits) given to the user
once, by `monologue users add NAME`; the store keeps only its SHA-256 digest, with the user
and an expiry. Why opaque tokens in the shared database rather than signed ones (JWT): a
deployment's workers share this database already, so every worker sees a revocation at
once, and there is no signing secret to share between workers, rotate or lose. A token of
256 random bits needs no slow hash (argon2 is for secrets people choose); a digest lookup
is the whole check, and a stolen copy of the table holds no usable token.

A session belongs to the user who opened it (`session_owners`): the first claim of a
session id wins, on any worker, and every later request for that session must come from
the same user, whatever fields it carries.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from monologue.memory.stores.database import Database, Migrations, open_database

TOKEN_PREFIX = "mono_"           # says what a pasted string is (and lets secret scanners find it)
DEFAULT_TTL_DAYS = 90.0
# A user name is a name, not a path: letters (any script), digits, and . _ @ ' - and inner spaces.
USER_NAME = re.compile(r"^[^\W_](?:[\w.@' -]{0,62}[\w.@'-])?$")

# A session id is a name too (it becomes a folder under --out): no dots, no slashes.
SESSION_ID_PATTERN = r"^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,63})?$"
_SESSION_ID = re.compile(SESSION_ID_PATTERN)

_CREDENTIALS = ("CREATE TABLE IF NOT EXISTS credentials (digest TEXT PRIMARY KEY, user_id TEXT NOT NULL, "
                "label TEXT NOT NULL, created {real} NOT NULL, expires {real} NOT NULL)")
_BY_USER = "CREATE INDEX IF NOT EXISTS credentials_by_user ON credentials (user_id)"
_OWNERS = ("CREATE TABLE IF NOT EXISTS session_owners (session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, "
           "at {real} NOT NULL)")
MIGRATIONS: Migrations = {
    "sqlite": [[_CREDENTIALS.format(real="REAL"), _BY_USER, _OWNERS.format(real="REAL")]],
    "postgres": [[_CREDENTIALS.format(real="DOUBLE PRECISION"), _BY_USER, _OWNERS.format(real="DOUBLE PRECISION")]],
}


class BadUserName(ValueError):
    """A user name that cannot be one (empty, a path, control characters)."""


def check_user_name(name: str) -> str:
    """`name` as a user id, or `BadUserName` saying what a name may hold."""
    if not USER_NAME.match(name) or name in (".", ".."):
        raise BadUserName(f"{name!r} is not a user name: use letters (any script), digits, spaces and . _ @ ' -, "
                          "up to 64 characters, starting with a letter or digit")
    return name


def check_session_id(session_id: str) -> str:
    """`session_id` if it is a name (never a path: '.', '..', 'a/b' are refused), else `ValueError`."""
    if not session_id or not _SESSION_ID.match(session_id):
        raise ValueError(f"{session_id!r} is not a session id: use letters, digits, _ and -, up to 64 characters, "
                         "starting with a letter or digit")
    return session_id


@dataclass(frozen=True)
class IssuedToken:
    token: str          # shown once; the store keeps its digest only
    user: str
    expires: float      # epoch seconds


@dataclass(frozen=True)
class Verified:
    """What a presented token says: whose it is (None: no such token) and, if it lapsed, when."""

    user: str | None
    expired_at: float | None = None


@dataclass(frozen=True)
class UserCredentials:
    user: str
    tokens: int
    expires: float      # the latest expiry of the user's tokens


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SqlAccessStore:
    """Credentials and session owners, in the database the memories are in."""

    def __init__(self, path: str | Path | Database = ":memory:") -> None:
        self.db = open_database(path)
        self.db.migrate("access", MIGRATIONS)

    # --- credentials --------------------------------------------------------------------

    def issue(self, user: str, ttl_days: float = DEFAULT_TTL_DAYS, label: str = "",
              now: float | None = None) -> IssuedToken:
        """A new token for `user` (earlier ones stay valid until they expire or are revoked)."""
        check_user_name(user)
        if ttl_days <= 0:
            raise ValueError(f"a token's lifetime must be positive, not {ttl_days} days")
        now = time.time() if now is None else now
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        expires = now + ttl_days * 86400.0
        self.db.run("INSERT INTO credentials (digest, user_id, label, created, expires) VALUES (?, ?, ?, ?, ?)",
                    (_digest(token), user, label, now, expires))
        return IssuedToken(token, user, expires)

    def verify(self, token: str, now: float | None = None) -> Verified:
        """Whose `token` is, if it is one and has not expired."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return Verified(None)
        row = self.db.query_one("SELECT user_id, expires FROM credentials WHERE digest = ?", (_digest(token),))
        if row is None:
            return Verified(None)
        now = time.time() if now is None else now
        if float(row[1]) <= now:
            return Verified(None, expired_at=float(row[1]))
        return Verified(str(row[0]))

    def revoke(self, user: str) -> int:
        """Every token of `user` stops working, on every worker; returns how many there were."""
        return self.db.run("DELETE FROM credentials WHERE user_id = ?", (user,))

    def users(self) -> list[UserCredentials]:
        rows = self.db.query("SELECT user_id, COUNT(*), MAX(expires) FROM credentials GROUP BY user_id "
                             "ORDER BY user_id")
        return [UserCredentials(str(r[0]), int(r[1]), float(r[2])) for r in rows]

    def any_credentials(self) -> bool:
        return self.db.query_one("SELECT 1 FROM credentials LIMIT 1") is not None

    # --- session owners -----------------------------------------------------------------

    def claim(self, session_id: str, user: str, now: float | None = None) -> str:
        """The session's owner after `user` claims it: `user` if nobody had, else the first claimant."""
        self.db.run("INSERT INTO session_owners (session_id, user_id, at) VALUES (?, ?, ?) "
                    "ON CONFLICT (session_id) DO NOTHING", (session_id, user, time.time() if now is None else now))
        owner = self.owner(session_id)
        assert owner is not None        # just written, or there before
        return owner

    def owner(self, session_id: str) -> str | None:
        row = self.db.query_one("SELECT user_id FROM session_owners WHERE session_id = ?", (session_id,))
        return None if row is None else str(row[0])

    def forget_sessions(self, user: str) -> int:
        """The user is erased: their sessions' owner rows go too."""
        return self.db.run("DELETE FROM session_owners WHERE user_id = ?", (user,))
