"""Encryption at rest (U3): what the user said is sealed before it reaches the disk.

Every column of a store that holds the user's words or their vectors (memory records and
vectors, profiles, summaries, commitments, action records, session states and their
history, the audit log's before/after values) is sealed with AES-256-GCM from
`cryptography`: authenticated, so a changed byte is detected rather than served. Each value
is bound to where it belongs (its table and row, as associated data), so a sealed value
copied into another user's row does not open either.

The key never lives in the repository or beside the database:
- `MONOLOGUE_STORE_KEY` (base64 of 32 bytes), for a server's secret manager; else
- the key file `MONOLOGUE_KEY_FILE`, by default `~/.config/monologue/store.key` (mode 0600),
  created on first use of a new store.
A store remembers the id of the key that sealed it (`store_keys`), so a missing or wrong key
is a clear error when the store is opened, before anything is read or written. Values
written before encryption existed (no `sealed:` prefix) are read as they are; `monologue
memory rotate-key` seals them along with everything else.

What a sealed value looks like: text `sealed:v1:<key id>:<base64 nonce+ciphertext>`; a vector
`SEALv1` + key id + nonce + ciphertext.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY_ENV = "MONOLOGUE_STORE_KEY"
KEY_FILE_ENV = "MONOLOGUE_KEY_FILE"
DEFAULT_KEY_FILE = "~/.config/monologue/store.key"
KEY_BYTES = 32
NONCE_BYTES = 12
_TEXT_PREFIX = "sealed:v1:"
_BLOB_PREFIX = b"SEALv1"
_ID_CHARS = 8


class StoreKeyError(RuntimeError):
    """The key that opens a store is missing, malformed or not the one that sealed it."""


class SealedDataError(RuntimeError):
    """A sealed value failed authentication: it was changed on disk, or moved from another row."""


def key_id(key: bytes) -> str:
    """A short public name for a key (not a secret: a hash of it)."""
    return hashlib.sha256(b"monologue-key-id" + key).hexdigest()[:_ID_CHARS]


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=KEY_BYTES * 8)


def encode_key(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).decode()


def decode_key(text: str, where: str) -> bytes:
    try:
        key = base64.urlsafe_b64decode(text.strip().encode())
    except (ValueError, TypeError) as exc:
        raise StoreKeyError(f"the store key in {where} is not base64 ({exc}); it should be the 44 characters "
                            "`monologue memory new-key` prints") from exc
    if len(key) != KEY_BYTES:
        raise StoreKeyError(f"the store key in {where} is {len(key)} bytes, not {KEY_BYTES}")
    return key


def key_file_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get(KEY_FILE_ENV) or DEFAULT_KEY_FILE).expanduser()


def pending_key_path(path: Path) -> Path:
    """Where a rotation writes the new key before the store is re-sealed with it."""
    return path.with_name(path.name + ".new")


def retired_keys_path(path: Path) -> Path:
    """Keys a rotation replaced, one per line: other stores made with the same key file may
    still be sealed with one (a rotation re-seals only its own store)."""
    return path.with_name(path.name + ".retired")


def retire_key(path: Path, key: bytes) -> None:
    """Append `key` to the retired keys beside `path` (readable by this user only)."""
    retired = retired_keys_path(path)
    fd = os.open(retired, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a") as f:
        f.write(encode_key(key) + "\n")
        f.flush()
        os.fsync(f.fileno())


def write_key_file(path: Path, key: bytes) -> None:
    """Write `key` to `path`, readable by this user only, atomically (a crash leaves the old file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(encode_key(key) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_private(path: Path) -> str:
    """A key file's text, refused (as ssh refuses a private key) when others on this machine
    may read or change it: whoever can read it can open every sealed value of the store."""
    mode = path.stat().st_mode
    if os.name == "posix" and mode & 0o077:
        raise StoreKeyError(f"the key file {path} can be read or changed by other users (mode {mode & 0o777:04o}); "
                            f"make it this user's only with: chmod 600 {path}")
    return path.read_text()


@dataclass(frozen=True)
class KeySource:
    """The keys this process can use, newest first, and where they came from (for messages)."""

    keys: tuple[bytes, ...]
    where: str

    @property
    def ids(self) -> list[str]:
        return [key_id(k) for k in self.keys]


def find_keys(environ: Mapping[str, str] | None = None) -> KeySource:
    """The configured keys: the environment's, else the key file's and a rotation's pending key."""
    env = os.environ if environ is None else environ
    if env.get(KEY_ENV):
        return KeySource((decode_key(env[KEY_ENV], f"${KEY_ENV}"),), f"${KEY_ENV}")
    path = key_file_path(env)
    # The key first: a new store is sealed with it, never with a rotation's pending key.
    keys = [decode_key(read_private(p), str(p)) for p in (path, pending_key_path(path)) if p.is_file()]
    retired = retired_keys_path(path)
    if retired.is_file():
        keys += [decode_key(line, str(retired)) for line in read_private(retired).split() if line]
    return KeySource(tuple(dict.fromkeys(keys)), str(path))


def ensure_key(environ: Mapping[str, str] | None = None) -> KeySource:
    """The configured keys; for a first run, a new key file is made (0600). Two processes
    starting at once end up with the same key: the file is published with a link, which
    fails if the other was first, and then theirs is read."""
    env = os.environ if environ is None else environ
    path = key_file_path(env)
    if env.get(KEY_ENV) or path.is_file():
        return find_keys(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(encode_key(new_key()) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass                                  # another process made it first: theirs counts
    finally:
        os.unlink(tmp)
    return find_keys(env)


class Sealer:
    """Seals with the first key; opens with any key it holds (a rotation in progress holds two)."""

    def __init__(self, keys: tuple[bytes, ...] | list[bytes]) -> None:
        if not keys:
            raise StoreKeyError("a sealer needs at least one key")
        self.keys = tuple(keys)
        self._keys = {key_id(k): AESGCM(k) for k in keys}
        self.current = key_id(keys[0])
        self._lookup = hmac.new(keys[0], b"monologue-lookup", hashlib.sha256).digest()

    def _seal(self, data: bytes, where: str) -> tuple[str, bytes]:
        nonce = secrets.token_bytes(NONCE_BYTES)
        return self.current, nonce + self._keys[self.current].encrypt(nonce, data, where.encode())

    def _open(self, kid: str, blob: bytes, where: str) -> bytes:
        aes = self._keys.get(kid)
        if len(blob) <= NONCE_BYTES:
            raise SealedDataError(f"{where} is cut short; it is not used")
        if aes is None:
            raise StoreKeyError(f"{where} was sealed with key {kid}, which this process does not have "
                                f"(it has {', '.join(self._keys)}); restore that key file or set ${KEY_ENV}")
        try:
            return aes.decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], where.encode())
        except InvalidTag as exc:
            raise SealedDataError(f"{where} failed its integrity check: it was changed on disk or moved "
                                  "from another row, and is not used") from exc

    def seal_text(self, text: str, where: str) -> str:
        kid, blob = self._seal(text.encode(), where)
        return f"{_TEXT_PREFIX}{kid}:{base64.b64encode(blob).decode()}"

    def open_text(self, value: str, where: str) -> str:
        if not value.startswith(_TEXT_PREFIX):
            return value                      # written before the store was sealed
        kid, _, body = value[len(_TEXT_PREFIX):].partition(":")
        try:
            blob = base64.b64decode(body, validate=True)
        except ValueError as exc:             # binascii.Error: cut short or changed on disk
            raise SealedDataError(f"{where} is not a well-formed sealed value ({exc}); it is not used") from exc
        opened = self._open(kid, blob, where)
        try:
            return opened.decode()
        except UnicodeDecodeError as exc:
            raise SealedDataError(f"{where} did not open to text; it is not used") from exc

    def seal_bytes(self, data: bytes, where: str) -> bytes:
        kid, blob = self._seal(data, where)
        return _BLOB_PREFIX + kid.encode() + blob

    def open_bytes(self, value: bytes, where: str) -> bytes:
        if not value.startswith(_BLOB_PREFIX):
            return value
        start = len(_BLOB_PREFIX)
        return self._open(value[start:start + _ID_CHARS].decode(), value[start + _ID_CHARS:], where)

    def lookup(self, text: str) -> str:
        """A keyed digest of `text`: equal texts can be found by it, the text cannot be read from it."""
        return "h:" + hmac.new(self._lookup, text.encode(), hashlib.sha256).hexdigest()

