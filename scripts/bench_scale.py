"""Stores at scale: state-update and recall latency on SQLite vs PostgreSQL + Redis.

    python scripts/bench_scale.py                       # SQLite only
    python scripts/bench_scale.py --postgres postgresql://… --redis redis://…
    eval "$(python tests/services.py start --dir /tmp/svc)"   # servers for it, as the tests use
    python scripts/bench_scale.py --postgres $MONOLOGUE_TEST_POSTGRES_URL --redis $MONOLOGUE_TEST_REDIS_URL

What it measures, each backend side by side in one run (medians and p95 of repeated calls):
- state update: one compare-and-set commit of a session state with one change (W9), from
  one writer, and with four writers on one session (lost updates counted: must be 0);
- recall at `--memories` (default 100,000) memories for one user: `Retriever.retrieve` on
  the memory store's per-worker cache, with another worker (a second store object, its own
  connection) writing a memory before every fifth recall; each such memory must be in the
  very next recall's stream (counted);
- the first read of the whole stream (a worker's cold start for that user), and the RAM the
  cache takes;
- with `--workers 1,2,4`: `monologue serve --workers N --text-only` as real processes, on SQLite
  and (given the servers) on PostgreSQL + Redis, driven by `--clients` concurrent typed sessions
  over `POST /api/chat` spread over the workers, with a mocked LLM (`--llm` names a shared one,
  e.g. a `monologue llm-server`): turns per second, turn latency p50/p95, RSS per worker;
- with `--ram`: one full `monologue serve` worker (speech models too) running the LLM
  in-process, then one using a `monologue llm-server`: RSS and PSS of each process after a
  turn answered by the model (PSS splits the shared weights' pages among their processes).
Vectors are random 512-dimension unit vectors (USE's size); texts are built from a small
vocabulary so the lexical index has realistic posting lists. Everything is sealed, as in use.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from monologue.memory.longterm.records import MemoryRecord, MemorySource
from monologue.memory.longterm.retrieval import Retriever
from monologue.memory.longterm.stream import MemoryStream
from monologue.memory.stores import redis_state
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.postgres import PostgresDatabase
from monologue.memory.stores.protocols import StateStore, VersionConflict
from monologue.memory.stores.redis_state import RedisStateStore
from monologue.memory.stores.sqlite import SQLiteDatabase
from monologue.memory.stores.state import SqlStateStore
from monologue.memory.working.state import Change, ChangeAction, SessionState

DIMS = 512
WORDS = ("coffee tea train bus car dentist doctor sister brother daughter son lunch dinner breakfast table window "
         "quiet loud vegan peanuts allergy gym run swim book film jazz piano garden dog cat paris lyon berlin "
         "monday tuesday friday weekend morning evening office home school meeting birthday gift flowers wine "
         "beer pizza sushi noodles spicy sweet salty cheap expensive parking toll highway route charger").split()


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) if values else float("nan")


def summary(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(values), 2), "p95_ms": round(percentile(values, 95), 2),
            "n": len(values)}


def bench_state(make: Any, commits: int) -> dict[str, Any]:
    store: StateStore = make()
    session = f"bench-{uuid.uuid4().hex[:8]}"
    times = []
    for version in range(1, commits + 1):
        state = SessionState(session_id=session, version=version, goal=f"goal {version}", updated_at=time.time())
        started = time.perf_counter()
        change = Change(version, version, ChangeAction.GOAL, "goal", None, state.goal, "bench")
        store.commit(state, version - 1, [change])
        times.append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {"one_writer": summary(times)}
    # Four writers on one session, each read-modify-write retried on conflict.
    session = f"race-{uuid.uuid4().hex[:8]}"
    per_writer = max(commits // 4, 1)

    def write() -> None:
        mine: StateStore = make()
        for _ in range(per_writer):
            while True:
                current = mine.load(session) or SessionState(session_id=session, goal="0")
                new = SessionState(session_id=session, version=current.version + 1,
                                   goal=str(int(current.goal) + 1), updated_at=time.time())
                try:
                    mine.commit(new, current.version, [])
                    break
                except VersionConflict:
                    continue
    started = time.perf_counter()
    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.load(session)
    expected = per_writer * 4
    out["four_writers"] = {"operations": expected, "lost_updates": expected - int(final.goal if final else 0),
                           "ops_per_sec": round(expected / (time.perf_counter() - started), 1)}
    return out


def _memories(user: str, count: int, rng: random.Random) -> list[tuple[MemoryRecord, np.ndarray]]:
    now = time.time()
    rows = []
    vectors = np.random.default_rng(7).standard_normal((count, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(8))
        at = now - rng.random() * 86400 * 365
        rows.append((MemoryRecord(id=f"m{i:07d}", user_id=user, text=f"I said {text}", importance=rng.randint(1, 10),
                                  source=MemorySource.USER_STATED, created_at=at, last_accessed_at=at, expires_at=None,
                                  session_id=f"s{i // 40}"), vectors[i]))
    return rows


def bench_recall(open_store: Any, count: int, queries: int) -> dict[str, Any]:
    rng = random.Random(11)
    user = f"u{uuid.uuid4().hex[:6]}"
    writer = open_store()
    rows = _memories(user, count, rng)
    started = time.perf_counter()
    for i in range(0, len(rows), 2000):
        writer.put_many(rows[i:i + 2000])
    load_secs = time.perf_counter() - started
    reader: SqlMemoryStore = open_store()
    stream = MemoryStream(reader, user, embed=None)
    retriever = Retriever(stream)
    started = time.perf_counter()
    records, vectors = stream.records()
    cold_secs = time.perf_counter() - started
    started = time.perf_counter()
    retriever.retrieve("coffee", k=6, touch=False, query_vector=vectors[0])
    first_secs = time.perf_counter() - started
    times, seen, written = [], 0, 0
    query_rng = np.random.default_rng(3)
    for i in range(queries):
        fresh = None
        if i % 5 == 4:
            vector = query_rng.standard_normal(DIMS).astype(np.float32)
            fresh = MemoryRecord(id=uuid.uuid4().hex[:12], user_id=user, text=f"new fact {i} about jazz piano",
                                 importance=6, source=MemorySource.USER_STATED, created_at=time.time(),
                                 last_accessed_at=time.time(), expires_at=None)
            writer.put(fresh, vector / np.linalg.norm(vector))
            written += 1
        query = " ".join(rng.choice(WORDS) for _ in range(4))
        q = query_rng.standard_normal(DIMS).astype(np.float32)
        started = time.perf_counter()
        retriever.retrieve(query, k=6, touch=False, query_vector=q / np.linalg.norm(q))
        times.append((time.perf_counter() - started) * 1000)
        if fresh is not None and any(r.id == fresh.id for r in stream.records()[0][-5:]):
            seen += 1
    records, vectors = stream.records()
    return {"memories": len(records), "write_all_secs": round(load_secs, 1), "cold_read_secs": round(cold_secs, 2),
            "first_recall_secs": round(first_secs, 2), "recall": summary(times),
            "writes_by_other_worker": written, "seen_in_next_recall": seen,
            "cache_mb": round((vectors.nbytes + sum(len(r.text) + 400 for r in records)) / 2**20, 1)}


TURNS = ["I'd like a table for {n} people on Friday at 7pm", "Somewhere Italian, please", "Make it {m} people",
         "Do they have a window seat?", "My sister is vegetarian", "What time was it again?",
         "Move it to Saturday", "Thanks, book it"]


def _post(url: str, body: dict[str, Any], timeout: float = 120.0) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _pss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _wait_ready(url: str, path: str = "/api/ready", timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}{path}", timeout=5) as ready:
                if ready.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not start")
        time.sleep(0.5)


def bench_ram(out_dir: Path) -> dict[str, Any]:
    """RSS/PSS of one full worker with the LLM in-process, and of a worker + a shared llm-server."""
    out: dict[str, Any] = {}
    base = {**os.environ, "MONOLOGUE__MONOLOGUE__LLM_MODE": "never", "MONOLOGUE__LONG_TERM__LLM_HELP": "false"}
    cli = [sys.executable, "-m", "monologue.pipeline.cli"]
    for shared in (False, True):
        port = _free_ports(2)
        env = dict(base)
        started: list[subprocess.Popen[bytes]] = []
        try:
            if shared:
                server = subprocess.Popen([*cli, "llm-server", "--port", str(port + 1)], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                started.append(server)
                _wait_ready(f"http://127.0.0.1:{port + 1}", "/health")
                env.update({"MONOLOGUE__LLM__MODEL": "openai/qwen2.5-0.5b-instruct", "OPENAI_API_KEY": "none",
                            "MONOLOGUE__LLM__API_BASE": f"http://127.0.0.1:{port + 1}/v1",
                            "MONOLOGUE__LLM__FALLBACK": "none"})
            worker = subprocess.Popen([*cli, "serve", "--port", str(port), "--store", str(out_dir / "ram.db"),
                                       "--out", str(out_dir)], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(worker)
            url = f"http://127.0.0.1:{port}"
            _wait_ready(url)
            for text in ("I'd like a table for 4 on Friday at 7pm", "Somewhere quiet, please"):
                _post(f"{url}/api/chat", {"text": text, "user": "ram"})
            time.sleep(1)
            key = "shared_llm" if shared else "llm_in_worker"
            out[key] = {"worker_rss_mb": round(_rss_mb(worker.pid), 1), "worker_pss_mb": round(_pss_mb(worker.pid), 1)}
            if shared:
                out[key].update({"llm_server_rss_mb": round(_rss_mb(server.pid), 1),
                                 "llm_server_pss_mb": round(_pss_mb(server.pid), 1)})
        finally:
            for process in reversed(started):
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
    return out


def _free_ports(count: int) -> int:
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = int(probe.getsockname()[1])
        ok = True
        for port in range(first, first + count):
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
        if ok:
            return first


def bench_workers(count: int, clients: int, turns: int, store: str, state_url: str, llm: str,
                  out_dir: Path) -> dict[str, Any]:
    """`clients` typed sessions at once against `count` worker processes (client i → worker i % count)."""
    port = _free_ports(count)
    if state_url:     # a database number of its own: the workers register this run's key there
        import redis

        state_url = state_url.rsplit("/", 1)[0] + "/8"
        redis.Redis.from_url(state_url).flushdb()
    env = {**os.environ, "MONOLOGUE__STATE__URL": state_url, "MONOLOGUE__MONOLOGUE__LLM_MODE": "never",
           "MONOLOGUE__LONG_TERM__LLM_HELP": "false"}
    if llm:
        env["MONOLOGUE__LLM__MODEL"] = llm
    else:
        env.update({"MONOLOGUE__LLM__MODEL": "openai/mock", "MONOLOGUE__LLM__FALLBACK": "",
                    "MONOLOGUE__LLM__MOCK_RESPONSE": "Okay, noted. Anything else?", "OPENAI_API_KEY": "mock"})
    supervisor = subprocess.Popen([sys.executable, "-m", "monologue.pipeline.cli", "serve", "--workers", str(count),
                                   "--text-only", "--port", str(port), "--store", store, "--out", str(out_dir)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    urls = [f"http://127.0.0.1:{port + i}" for i in range(count)]
    pids = []
    try:
        for url in urls:
            _wait_ready(url)
            with urllib.request.urlopen(f"{url}/api/health", timeout=5) as health:
                pids.append(int(json.loads(health.read())["pid"]))
        latencies: list[float] = []
        firsts: list[float] = []         # a session's first turn also opens it (memory, profile, opening)
        failures: list[str] = []
        lock = threading.Lock()

        def session(index: int) -> None:
            url, session_id = urls[index % count], ""
            for turn in range(turns):
                text = TURNS[turn % len(TURNS)].format(n=2 + index % 5, m=3 + index % 5)
                started = time.perf_counter()
                try:
                    answer = _post(f"{url}/api/chat", {"text": text, "session_id": session_id,
                                                        "user": f"bench-user-{index}"})
                except OSError as exc:
                    with lock:
                        failures.append(f"{type(exc).__name__}: {exc}")
                    continue
                with lock:
                    (latencies if session_id else firsts).append((time.perf_counter() - started) * 1000)
                session_id = answer["session_id"]
        # One untimed turn per worker first: the first session of a process pays for lazy loading.
        for url in urls:
            _post(f"{url}/api/chat", {"text": "hello", "user": "bench-warm-up"})
        threads = [threading.Thread(target=session, args=(i,)) for i in range(clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        rss = [round(_rss_mb(pid), 1) for pid in pids]
        return {"workers": count, "clients": clients, "turns": len(latencies) + len(firsts), "failed": len(failures),
                "turns_per_s": round((len(latencies) + len(firsts)) / wall, 2), "turn_ms": summary(latencies),
                "first_turn_ms": summary(firsts),
                "rss_mb_per_worker": rss, "errors": failures[:3]}
    finally:
        supervisor.send_signal(signal.SIGTERM)
        try:
            supervisor.wait(90)
        except subprocess.TimeoutExpired:
            supervisor.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default=os.environ.get("MONOLOGUE_TEST_POSTGRES_URL", ""))
    parser.add_argument("--redis", default=os.environ.get("MONOLOGUE_TEST_REDIS_URL", ""))
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--workers", default="", help="e.g. 1,2,4: also drive worker processes")
    parser.add_argument("--clients", type=int, default=8, help="concurrent typed sessions (with --workers)")
    parser.add_argument("--turns", type=int, default=8, help="turns per session (with --workers)")
    parser.add_argument("--llm", default="", help="with --workers: a litellm model string for the workers "
                                                   "(default: a mocked reply, no model)")
    parser.add_argument("--ram", action="store_true", help="RAM of a full worker with and without a shared LLM")
    parser.add_argument("--skip-stores", action="store_true", help="no store benchmarks (only --workers / --ram)")
    parser.add_argument("--out", default="out/bench_scale.json")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    admin, fresh = None, ""
    if args.postgres:
        # A database of its own, sealed with this run's key, dropped at the end.
        admin = PostgresDatabase(args.postgres, sealed=False)
        fresh = f"bench_{uuid.uuid4().hex[:8]}"
        admin.run(f"CREATE DATABASE {fresh}")
        args.postgres = args.postgres.rsplit("/", 1)[0] + f"/{fresh}"
    redis_state.PREFIX = f"bench{uuid.uuid4().hex[:8]}"       # keys of its own, under this run's key
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MONOLOGUE_KEY_FILE"] = str(Path(tmp) / "store.key")
        os.environ.pop("MONOLOGUE_STORE_KEY", None)
        path = Path(tmp) / "bench.db"
        if args.ram:
            results["ram"] = bench_ram(Path(tmp))
            print(json.dumps(results["ram"]), flush=True)
        for count in [int(n) for n in args.workers.split(",") if n.strip()]:
            results[f"workers_sqlite_{count}"] = bench_workers(count, args.clients, args.turns,
                                                               str(Path(tmp) / "workers.db"), "", args.llm,
                                                               Path(tmp) / "out")
            print(json.dumps(results[f"workers_sqlite_{count}"]), flush=True)
            if args.postgres and args.redis:
                results[f"workers_servers_{count}"] = bench_workers(count, args.clients, args.turns, args.postgres,
                                                                    args.redis, args.llm, Path(tmp) / "out")
                print(json.dumps(results[f"workers_servers_{count}"]), flush=True)
        if not args.skip_stores:
            results["state_sqlite"] = bench_state(lambda: SqlStateStore(SQLiteDatabase(path)), args.commits)
            if args.postgres:
                results["state_postgres"] = bench_state(lambda: SqlStateStore(PostgresDatabase(args.postgres)),
                                                        args.commits)
            if args.redis:
                results["state_redis"] = bench_state(lambda: RedisStateStore(args.redis), args.commits)
            print(json.dumps(results, indent=1), flush=True)
            results["recall_sqlite"] = bench_recall(lambda: SqlMemoryStore(SQLiteDatabase(path)), args.memories,
                                                    args.queries)
            print(json.dumps(results["recall_sqlite"], indent=1), flush=True)
            if args.postgres:
                results["recall_postgres"] = bench_recall(lambda: SqlMemoryStore(PostgresDatabase(args.postgres)),
                                                          args.memories, args.queries)
                print(json.dumps(results["recall_postgres"], indent=1), flush=True)
    if admin is not None:
        from monologue.memory.stores.database import close_servers

        close_servers()
        admin.run(f"DROP DATABASE {fresh} WITH (FORCE)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
