"""Benchmark: N concurrent WebRTC rooms against one `monologue serve` process.

    python scripts/bench_rooms.py [--rooms 1,2,4,8] [--wording policy|model] [--mock-llm]

One server is started as a subprocess (models load once) and kept for every N. For each
N, N aiortc peers (`monologue.pipeline.room_client`) join at once, each replaying a session
in real time as its microphone, and stay until their last reply was answered or 30 s after
their audio ended. The default session (`--session barge_in`,
assets/barge_in_session/barge_in.flac, ~46 s) has five user turns: the user speaks over the
agent's offer once (a cut) and says "okay" over the next one (a backchannel, not answered),
so four turns get a reply; `--session demo` replays the demo, whose user always waits.
Reported per N, from the rooms' own trace.jsonl files and the server's /proc:

    voice-to-voice p50/p95   `latency_ms.voice_to_voice` of every answered turn
    barge-in stop p95        `barge_in.stop_ms` where the trace has it ("n/a" otherwise)
    CPU                      the server's CPU seconds over the wall time of the run (100% = one core)
    RSS peak                 the server's largest resident set seen while the rooms ran (sampled)
    turns handled            user turns answered, or (a backchannel over the agent) rightly left
                             unanswered / user turns × N

The machine "stops keeping up" at the smallest N whose voice-to-voice p50 is over twice
the N=1 p50, or that leaves a turn unanswered. The peers run in this process on the same
cores as the server: their Opus work is part of the load, as it is not in production.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# name → (recording, user turns, turns that get a reply)
SESSIONS = {"barge_in": (ROOT / "assets" / "barge_in_session" / "barge_in.flac", 5, 4),
            "demo": (ROOT / "assets" / "demo_session" / "demo.flac", 5, 5)}
LINGER_SECS = 30.0
HEALTHY_WITHIN_SECS = 300.0    # the server loads its models before it answers
TRACE_WITHIN_SECS = 30.0       # a closed room's trace is written after its peer leaves


@dataclass
class RoundResult:
    rooms: int
    v2v_ms: list[float]
    barge_stop_ms: list[float]
    cuts: int
    cpu_percent: float
    rss_peak_mb: float
    answered: int
    expected: int
    wall_secs: float


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return float(np.percentile(np.asarray(values), q))


def proc_cpu_secs(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(args: argparse.Namespace, port: int, out: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, MONOLOGUE__REPLY__WORDING=args.wording, PYTHONUNBUFFERED="1")
    if args.mock_llm:
        env.update(MONOLOGUE__LLM__MODEL="openai/gpt-4o-mini", MONOLOGUE__LLM__FALLBACK="null",
                   MONOLOGUE__LLM__MOCK_RESPONSE="Okay.", MONOLOGUE__MONOLOGUE__LLM_MODE="never",
                   MONOLOGUE__LONG_TERM__LLM_HELP="false")
    command = [sys.executable, "-m", "monologue.pipeline.cli", "serve", "--port", str(port), "--out", str(out),
               "--store", str(out / "bench.db"), "--max-rooms", "64"]
    log = (out / "server.log").open("wb")
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


async def wait_healthy(url: str, server: subprocess.Popen[bytes]) -> None:
    import aiohttp

    deadline = time.monotonic() + HEALTHY_WITHIN_SECS
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise SystemExit(f"the server exited ({server.returncode}); see its log")
            try:
                async with http.get(f"{url}/api/health") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(1.0)
    raise SystemExit(f"the server did not answer within {HEALTHY_WITHIN_SECS:.0f} s")


async def run_round(url: str, pid: int, rooms: int, speech: np.ndarray, out: Path, turns: int,
                    replied: int) -> RoundResult:
    """One round of `rooms` peers; `turns` user turns each, `replied` of them answered when
    the backchannel lands over the agent's voice (it may not, when the agent is late)."""
    from monologue.pipeline.room_client import PcmTrack, RoomClient

    clients = [RoomClient(url, f"bench{rooms}-{i}", PcmTrack(speech)) for i in range(rooms)]
    rss_peak = proc_rss_mb(pid)
    cpu_start, wall_start = proc_cpu_secs(pid), time.monotonic()
    await asyncio.gather(*(c.connect() for c in clients))

    def replies(client: RoomClient) -> int:
        return sum(1 for m in client.of_type("agent_reply") if m["turn"] > 0)

    audio_secs = speech.size / 16000
    deadline = time.monotonic() + audio_secs + LINGER_SECS + 30
    while time.monotonic() < deadline:
        rss_peak = max(rss_peak, proc_rss_mb(pid))
        done = all(c.track.script_done.is_set() for c in clients)
        if done and all(replies(c) >= turns for c in clients):
            break
        if done and time.monotonic() > wall_start + audio_secs + LINGER_SECS:
            break
        await asyncio.sleep(0.5)
    cpu = proc_cpu_secs(pid) - cpu_start
    wall = time.monotonic() - wall_start
    session_ids = [str(c.of_type("session")[0]["session_id"]) for c in clients if c.of_type("session")]
    await asyncio.gather(*(c.close() for c in clients))
    v2v, stops, answered, cuts = [], [], 0, 0
    for session_id in session_ids:
        lines = await asyncio.to_thread(read_trace, out / session_id / "trace.jsonl")
        for line in lines:
            if line["turn"] <= 0:
                continue
            backchannel = (line.get("barge_in") or {}).get("backchannel")
            if line["reply"].get("text") or backchannel:
                answered += 1          # answered, or a backchannel rightly left unanswered
            if (line.get("barge_in") or {}).get("cut"):
                cuts += 1
            if "voice_to_voice" in line.get("latency_ms", {}):
                v2v.append(float(line["latency_ms"]["voice_to_voice"]))
            stop = (line.get("barge_in") or {}).get("stop_ms")
            if stop is not None:
                stops.append(float(stop))
    return RoundResult(rooms, v2v, stops, cuts, 100 * cpu / wall, rss_peak, answered, turns * rooms, wall)


def read_trace(path: Path) -> list[dict[str, Any]]:
    """A room's trace lines, once the server has written the file (none if it never does)."""
    deadline = time.monotonic() + TRACE_WITHIN_SECS
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f}"


def report(results: list[RoundResult]) -> str:
    head = ("| rooms | v2v p50 ms | v2v p95 ms | barge-in stop p95 ms (cuts) | server CPU | server RSS peak "
            "| turns handled |")
    rows = [head, "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        rows.append(f"| {r.rooms} | {fmt(percentile(r.v2v_ms, 50))} | {fmt(percentile(r.v2v_ms, 95))} | "
                    f"{fmt(percentile(r.barge_stop_ms, 95))} ({r.cuts}) | {r.cpu_percent:.0f}% | "
                    f"{r.rss_peak_mb:.0f} MB | "
                    f"{r.answered}/{r.expected} |")
    base = percentile(results[0].v2v_ms, 50) if results and results[0].rooms == 1 else None
    limit = next((r.rooms for r in results
                  if r.answered < r.expected
                  or (base is not None and (percentile(r.v2v_ms, 50) or 0) > 2 * base)), None)
    rows.append("")
    rows.append(f"stops keeping up at N = {limit}" if limit is not None else
                f"kept up at every N tried (up to {results[-1].rooms})" if results else "no rounds run")
    rows.append("(keeping up: v2v p50 at most twice the N=1 p50, and every turn handled)")
    return "\n".join(rows)


async def main_async(args: argparse.Namespace, out: Path) -> None:
    from monologue.pipeline.audio_io import load_session

    recording, turns, replied = SESSIONS[args.session]
    speech = load_session(recording, sample_rate=16000).samples
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(args, port, out)
    results: list[RoundResult] = []
    try:
        started = time.monotonic()
        await wait_healthy(url, server)
        print(f"server up in {time.monotonic() - started:.0f} s (pid {server.pid}, "
              f"RSS {proc_rss_mb(server.pid):.0f} MB)", flush=True)
        for rooms in (int(n) for n in args.rooms.split(",")):
            result = await run_round(url, server.pid, rooms, speech, out, turns, replied)
            results.append(result)
            print(f"N={rooms}: v2v p50 {fmt(percentile(result.v2v_ms, 50))} ms, p95 "
                  f"{fmt(percentile(result.v2v_ms, 95))} ms, CPU {result.cpu_percent:.0f}%, RSS peak "
                  f"{result.rss_peak_mb:.0f} MB, answered {result.answered}/{result.expected} "
                  f"({result.wall_secs:.0f} s)", flush=True)
            await asyncio.sleep(3.0)   # rooms end and write their traces before the next round
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    print()
    print(f"wording: {args.wording}{', mock LLM' if args.mock_llm else ''}; {os.cpu_count()} CPUs; "
          f"session {args.session} {speech.size / 16000:.1f} s, {turns} user turns per room, {replied} answered")
    print(report(results))
    (out / "bench_rooms.json").write_text(json.dumps([r.__dict__ for r in results], indent=1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", default="1,2,4,8", help="comma-separated room counts (default 1,2,4,8)")
    parser.add_argument("--session", choices=sorted(SESSIONS), default="barge_in",
                        help="what each room's user says (default barge_in: speaks over the agent once)")
    parser.add_argument("--wording", choices=("model", "policy"), default="policy",
                        help="who words the replies: the LLM, or the policy's templates (default; no LLM call)")
    parser.add_argument("--mock-llm", action="store_true",
                        help="no LLM anywhere (state updates by rules, no memory help): rooms, not the model, measured")
    parser.add_argument("--out", default="out/bench_rooms")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    asyncio.run(main_async(args, out))


if __name__ == "__main__":
    main()
