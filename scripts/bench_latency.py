"""Latency by stage (E3): replay the demo session N times and report medians and p90s.

    python scripts/bench_latency.py [--runs 5] [--session PATH] [--llm MODEL] [--json OUT]

Voice-to-voice = end of user speech → first agent audio = the VAD's turn-end wait
+ processing (turn closed → first audio). Processing splits into model compute
(ASR, LLM up to its first clause, TTS of that clause, classifier, monologue) and
pipeline overhead (everything else: frame hops, queues, thread hand-offs).
Models load once, before the first run; load times are printed separately.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from monologue.configs import load_config
from monologue.models.offline import enforce_offline

enforce_offline()

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo_session" / "demo.flac"
COMPUTE_PARTS = ("asr", "classifier", "monologue", "llm_first_clause", "tts_first_clause")
STAGES = ("asr_done", "llm_first_token", "llm_first_clause", "first_audio", "voice_to_voice")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(int(round(q * (len(ordered) - 1))), len(ordered) - 1)
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--session", default=str(DEMO))
    parser.add_argument("--llm", help="litellm model string (default: the config's)")
    parser.add_argument("--config")
    parser.add_argument("--json", help="also write the per-turn figures here")
    parser.add_argument("--ab", action="store_true",
                        help="alternate runs with and without the monologue and compare them side by side")
    parser.add_argument("--memory-ab", action="store_true",
                        help="alternate runs with and without long-term memory (one user, sessions accumulating)")
    args = parser.parse_args()

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    from monologue.pipeline.audio_io import load_session
    from monologue.pipeline.builder import load_models
    from monologue.pipeline.replay import replay_audio

    overrides = {"llm": {"model": args.llm}} if args.llm else None
    config = load_config(args.config, overrides)
    session = load_session(args.session, sample_rate=config.audio.sample_rate,
                           max_secs=config.replay.max_seconds)
    started = time.perf_counter()
    models = load_models(config)
    load_secs = time.perf_counter() - started

    variants = {"with monologue": config.with_overrides({"monologue": {"enabled": True}}),
                "without monologue": config.with_overrides({"monologue": {"enabled": False}})}
    if args.memory_ab:
        memory_ab(args, config, session, models)
        return
    rows: list[dict] = []
    ab_rows: dict[str, list[dict]] = {name: [] for name in variants}
    walls: list[float] = []
    for run in range(args.runs):
        for name, variant in (variants.items() if args.ab else [("default", config)]):
            with tempfile.TemporaryDirectory() as out:
                result = asyncio.run(replay_audio(session, variant, models, Path(out)))
            walls.append(result.wall_secs)
            for turn in result.turns:
                if not turn.text or "first_audio" not in turn.marks:
                    continue
                lat = turn.latencies_ms()
                # The monologue's own time counts only where the reply waited for it.
                waited = turn.compute.get("reply_waited_for_state", 0.0)
                parts = {k: turn.compute.get(k, 0.0) for k in COMPUTE_PARTS}
                parts["monologue"] = waited
                compute = sum(parts.values()) * 1000
                row = {"run": run, "variant": name, "turn": turn.turn_id, **lat,
                       **{f"compute_{k}": round(v * 1000, 1) for k, v in parts.items()},
                       "compute_total": round(compute, 1), "overhead": round(lat["first_audio"] - compute, 1)}
                (ab_rows[name] if args.ab else rows).append(row)
            print(f"run {run + 1}/{args.runs} {name}: {result.wall_secs:.1f} s wall for "
                  f"{result.audio_secs:.1f} s audio", file=sys.stderr, flush=True)
    if args.ab:
        rows = ab_rows["with monologue"]

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    col = lambda key: [r[key] for r in rows if key in r]  # noqa: E731
    print(f"\n## Monologue latency — {Path(args.session).name}, {args.runs} runs, {len(rows)} answered turns")
    print(f"LLM: {config.llm.model}; VAD: {config.vad.engine} (turn-end wait {config.vad.stop_secs * 1000:.0f} ms); "
          f"models loaded in {load_secs:.1f} s ({', '.join(f'{k} {v:.1f}' for k, v in models.load_secs.items())})")
    print("\n| stage (ms from turn closed) | median | p90 |\n|---|---:|---:|")
    for stage in STAGES:
        values = col(stage)
        label = "voice-to-voice (incl. turn-end wait)" if stage == "voice_to_voice" else stage
        print(f"| {label} | {statistics.median(values):.0f} | {pct(values, 0.9):.0f} |")
    print("\n| model compute (ms) | median | p90 |\n|---|---:|---:|")
    for key in COMPUTE_PARTS:
        values = col(f"compute_{key}")
        print(f"| {key} | {statistics.median(values):.0f} | {pct(values, 0.9):.0f} |")
    v2v, overhead, computes = col("voice_to_voice"), col("overhead"), col("compute_total")
    wait = config.vad.stop_secs * 1000
    share_overhead = statistics.median([o / v for o, v in zip(overhead, v2v, strict=False)])
    share_compute = statistics.median([c / v for c, v in zip(computes, v2v, strict=False)])
    print(f"\nvoice-to-voice median {statistics.median(v2v):.0f} ms = turn-end wait {wait:.0f} ms "
          f"+ model compute {statistics.median(computes):.0f} ms "
          f"+ pipeline overhead {statistics.median(overhead):.0f} ms")
    print(f"share of voice-to-voice: model compute {share_compute:.1%}, turn-end wait "
          f"{statistics.median([wait / v for v in v2v]):.1%}, pipeline overhead {share_overhead:.1%} "
          f"(p90 {pct([o / v for o, v in zip(overhead, v2v, strict=False)], 0.9):.1%})")
    print(f"replay wall time median {statistics.median(walls):.1f} s for {session.duration_secs:.1f} s of audio "
          f"(×{statistics.median(walls) / session.duration_secs:.2f} real time)")
    print(f"peak RSS {peak_mb:.0f} MB")
    if args.ab:
        print("\n| voice-to-voice (ms) | with monologue | without | ratio |\n|---|---:|---:|---:|")
        with_v2v = [r["voice_to_voice"] for r in ab_rows["with monologue"]]
        without_v2v = [r["voice_to_voice"] for r in ab_rows["without monologue"]]
        for label, q in (("median", 0.5), ("p90", 0.9)):
            a, b = pct(with_v2v, q), pct(without_v2v, q)
            print(f"| {label} | {a:.0f} | {b:.0f} | ×{a / b:.3f} |")
        waits = [r["compute_monologue"] for r in ab_rows["with monologue"]]
        print(f"reply waited for the state: median {statistics.median(waits):.1f} ms, max {max(waits):.1f} ms "
              f"(interleaved runs, same models, same session)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows if not args.ab else ab_rows, indent=1))


def memory_ab(args: argparse.Namespace, config, session, models) -> None:
    """Voice-to-voice with and without long-term memory, interleaved; the user's store
    grows by one session each 'with' run, so later runs recall from earlier ones."""
    from monologue.pipeline.builder import user_memory
    from monologue.pipeline.replay import replay_audio

    v2v: dict[str, list[float]] = {"with long-term memory": [], "without": []}
    recall_ms: list[float] = []
    session_end_s: list[float] = []
    with tempfile.TemporaryDirectory() as store_dir:
        store = str(Path(store_dir) / "bench.db")
        for run in range(args.runs):
            for name in v2v:
                long_term = user_memory(config, models, "bench", store) if name.startswith("with") else None
                with tempfile.TemporaryDirectory() as out:
                    ended = time.perf_counter()
                    result = asyncio.run(replay_audio(session, config, models, Path(out), long_term=long_term))
                    total = time.perf_counter() - ended
                if long_term is not None:
                    session_end_s.append(total - result.wall_secs)
                for turn in result.turns:
                    if turn.text and "first_audio" in turn.marks:
                        v2v[name].append(turn.latencies_ms()["voice_to_voice"])
                        if turn.memories is not None:
                            recall_ms.append(round(turn.memories.ms, 1))   # as the trace rounds it
                print(f"run {run + 1}/{args.runs} {name}: {result.wall_secs:.1f} s wall", file=sys.stderr, flush=True)
    a, b = v2v["with long-term memory"], v2v["without"]
    print(f"\n## Long-term memory on the voice turn — {args.runs} interleaved runs of {Path(args.session).name} "
          f"({len(a)} and {len(b)} answered turns)")
    print("\n| voice-to-voice (ms) | with long-term memory | without | ratio |\n|---|---:|---:|---:|")
    for label, q in (("median", 0.5), ("p90", 0.9)):
        print(f"| {label} | {pct(a, q):.0f} | {pct(b, q):.0f} | ×{pct(a, q) / pct(b, q):.3f} |")
    print(f"\nrecall on the critical path: median {statistics.median(recall_ms):.1f} ms, "
          f"p90 {pct(recall_ms, 0.9):.1f} ms "
          f"({len(recall_ms)} turns); start + end of session (profile, checks, summaries, consolidation) "
          f"median {statistics.median(session_end_s):.2f} s, outside the turns")


if __name__ == "__main__":
    main()
