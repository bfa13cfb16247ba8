"""Fast turns (E3, W7): voice-to-voice with the monologue on and off, side by side.

    python scripts/bench_latency.py [--runs 3] [--session PATH] [--llm MODEL] [--no-long] [--no-turns] [--json OUT]
    python scripts/bench_latency.py --memory-ab [--runs 3]     # long-term memory on the voice turn

One run replays the demo session (assets/demo_session/demo.flac) under four variants,
interleaved (model wording / policy wording × monologue on / off), then a 30-turn session
(assets/scripts/long_session_en.json voiced by piper) with the monologue on and off, then
the turn-end benchmark (scripts/bench_turns.py: false cut-ins). Models load once.

Voice-to-voice = end of the user's speech → the agent's first audio. Silence is counted on
the audio's own timeline and compute on the wall clock (a fast replay feeds audio faster
than real time): max(turn-end wait, wait when the agent began + processing since), the
same figure a live room hears (`Turn.reply_delay_secs`). A turn is *policy-worded*
when its reply went to TTS with no LLM call, *LLM-worded* otherwise; *state-changing* when
the classifier sent it to the monologue, *chit-chat* otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from monologue.configs import MonologueConfig, ReplyOptions, load_config
from monologue.models.offline import enforce_offline

enforce_offline()

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo_session" / "demo.flac"
LONG_SCRIPT = ROOT / "assets" / "scripts" / "long_session_en.json"
STAGES = ("asr_after_speech", "asr_done", "classified", "monologue_done", "llm_first_token", "llm_first_clause",
          "first_audio", "voice_to_voice")
MIN_CLAUSE_CHARS = ReplyOptions().min_clause_chars
COMPUTE_PARTS = ("asr", "classifier", "monologue", "llm_first_clause", "tts_first_clause")
TARGETS = {"policy_p50_ms": 1000.0, "llm_p50_ms": 1600.0, "chit_chat_ratio": 1.05, "state_ratio": 1.25,
           "turn30_ratio": 1.3}


def pct(values: Iterable[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(int(round(q * (len(ordered) - 1))), len(ordered) - 1)]


def med(values: Iterable[float]) -> float:
    listed = list(values)
    return statistics.median(listed) if listed else float("nan")


def turn_row(turn: Any, variant: str, run: int, session: str) -> dict[str, Any] | None:
    if not turn.text or "first_audio" not in turn.marks:
        return None
    lat = turn.latencies_ms()
    state = bool(turn.classifier and turn.classifier.triggers_monologue)
    parts = {k: round(turn.compute.get(k, 0.0) * 1000, 1) for k in COMPUTE_PARTS}
    parts["monologue"] = round(turn.compute.get("reply_waited_for_state", 0.0) * 1000, 1)
    tokens = turn.reply.tokens or {}
    if "llm_start" in turn.marks:       # the agent's own work before the reply model is asked
        lat["llm_start"] = round((turn.marks["llm_start"] - turn.started_at) * 1000, 1)
    from monologue.processors.reply_wording import ClauseSplitter

    splitter = ClauseSplitter(MIN_CLAUSE_CHARS)    # as the reply cut it for TTS
    first_clause = next(iter(splitter.feed(turn.reply.text or "")), "") or splitter.flush()
    return {"session": session, "variant": variant, "run": run, "turn": turn.turn_id,
            "kind": "state-changing" if state else "chit-chat",
            "worded": "policy" if turn.reply.source == "policy" else "LLM",
            "source": turn.reply.source, **lat, **{f"compute_{k}": v for k, v in parts.items()},
            "prompt_tokens": tokens.get("prompt_tokens"), "evaluated_tokens": tokens.get("evaluated_tokens"),
            "generated_tokens": tokens.get("generated_tokens"), "first_clause_chars": len(first_clause),
            "drafted": turn.turn_end.drafted, "rule": turn.turn_end.rule}


def replay_rows(session: Any, config: MonologueConfig, models: Any, variant: str, run: int,
                name: str) -> tuple[list[dict[str, Any]], float]:
    from monologue.pipeline.replay import replay_audio

    with tempfile.TemporaryDirectory() as out:
        result = asyncio.run(replay_audio(session, config, models, Path(out)))
    rows = [r for t in result.turns if (r := turn_row(t, variant, run, name)) is not None]
    return rows, result.wall_secs


def long_session_audio(config: MonologueConfig, pause_secs: float = 9.0) -> Any:
    """The 30-turn script voiced by piper, the user waiting `pause_secs` after each turn."""
    from monologue.models.tts import PiperTTS
    from monologue.pipeline.audio_io import SessionAudio, to_mono_int16

    rate = config.audio.sample_rate
    turns = [t["say"] for t in json.loads(LONG_SCRIPT.read_text())["turns"]]
    tts = PiperTTS(length_scale=1.05)
    pieces = [np.zeros(int(0.6 * rate), np.int16)]
    for text in turns:
        voice = tts.synthesize_all(text).astype(np.float32) / 32768.0
        pieces += [to_mono_int16(voice * 0.8, tts.sample_rate, rate), np.zeros(int(pause_secs * rate), np.int16)]
    samples = np.concatenate(pieces)
    return SessionAudio(samples=samples, sample_rate=rate, sources=("long_session_en",), original_rate=rate,
                        original_channels=1)


def ratio_row(label: str, on: list[float], off: list[float]) -> str:
    a, b = med(on), med(off)
    return (f"| {label} | {len(on)} | {a:.0f} | {pct(on, 0.9):.0f} | {b:.0f} | {pct(off, 0.9):.0f} "
            f"| ×{a / b:.3f} |" if on and off else f"| {label} | {len(on)} | – | – | – | – | – |")


def report(rows: list[dict[str, Any]], long_rows: list[dict[str, Any]], config: MonologueConfig,
           load_secs: dict[str, float], runs: int) -> dict[str, float]:
    def select(source: list[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
        return [r for r in source if all((r[k] in v) if isinstance(v, tuple) else r[k] == v
                                         for k, v in where.items())]

    def col(source: list[dict[str, Any]], key: str) -> list[float]:
        return [r[key] for r in source if r.get(key) is not None]

    print(f"\n## Fast turns — demo session, {runs} interleaved runs per variant; LLM {config.llm.model}")
    print(f"turn end: {config.turn.end_by} (judged after {config.turn.judge_after_secs * 1000:.0f} ms; "
          f"finished {config.turn.end_after_secs * 1000:.0f} ms, unsure {config.turn.unsure_secs * 1000:.0f} ms, "
          f"unfinished {config.turn.hold_secs * 1000:.0f} ms; drafts {'on' if config.turn.draft else 'off'}); "
          f"models loaded in {', '.join(f'{k} {v:.1f} s' for k, v in load_secs.items())}")

    print("\n### Voice-to-voice (ms), monologue on vs off\n")
    print("| turns | n (on) | p50 on | p90 on | p50 off | p90 off | on/off (p50) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    figures: dict[str, float] = {}
    for wording in ("model", "policy"):
        for kind in ("chit-chat", "state-changing"):
            on = col(select(rows, variant=f"{wording}/on", kind=kind), "voice_to_voice")
            off = col(select(rows, variant=f"{wording}/off", kind=kind), "voice_to_voice")
            print(ratio_row(f"{wording} wording, {kind}", on, off))
            if on and off:
                figures[f"{wording}_{kind}_ratio"] = med(on) / med(off)
    policy = col(select(rows, variant=("policy/on", "model/on"), worded="policy"), "voice_to_voice")
    llm = col(select(rows, variant="model/on", worded="LLM"), "voice_to_voice")
    print(f"\npolicy-worded turns (monologue on): n={len(policy)}, p50 {med(policy):.0f} ms, "
          f"p90 {pct(policy, 0.9):.0f}")
    print(f"LLM-worded turns (monologue on):    n={len(llm)}, p50 {med(llm):.0f} ms, p90 {pct(llm, 0.9):.0f}")
    figures["policy_p50_ms"], figures["llm_p50_ms"] = med(policy), med(llm)
    # The ratio targets: the same wording on both sides (model wording: the default).
    for kind, key in (("chit-chat", "chit_chat_ratio"), ("state-changing", "state_ratio")):
        figures[key] = figures.get(f"model_{kind}_ratio", float("nan"))

    print("\n### Stages (ms from when the agent began on the turn; model wording, monologue on)\n")
    print("| stage | median | p90 |\n|---|---:|---:|")
    on_rows = select(rows, variant="model/on")
    for stage in STAGES:
        values = col(on_rows, stage)
        label = {"asr_after_speech": "transcript ready after end of speech",
                 "voice_to_voice": "voice-to-voice"}.get(stage, stage)
        print(f"| {label} | {med(values):.0f} | {pct(values, 0.9):.0f} |")
    print("\n| compute (ms) | median | p90 |\n|---|---:|---:|")
    for key in COMPUTE_PARTS:
        values = col(on_rows, f"compute_{key}")
        print(f"| {key}{' (the reply waited for the state)' if key == 'monologue' else ''} "
              f"| {med(values):.0f} | {pct(values, 0.9):.0f} |")
    asr_after = col(select(rows, variant=("model/on", "model/off", "policy/on", "policy/off")), "asr_after_speech")
    figures["asr_after_speech_p50_ms"] = med(asr_after)
    drafted = select(rows, drafted=True)
    print(f"\ntranscript ready after end of speech, all variants: p50 {med(asr_after):.0f} ms, "
          f"p90 {pct(asr_after, 0.9):.0f} (n={len(asr_after)}); "
          f"turns answered from a draft: {len(drafted)}/{len(rows)}")

    print("\n### Tokens the LLM evaluated per LLM-worded turn (model wording)\n")
    print("| turns | prompt tokens (median) | evaluated (median) | evaluated p90 |\n|---|---:|---:|---:|")
    for variant in ("model/on", "model/off"):
        chosen = select(rows, variant=variant, worded="LLM")
        print(f"| monologue {variant.split('/')[1]} | {med(col(chosen, 'prompt_tokens')):.0f} | "
              f"{med(col(chosen, 'evaluated_tokens')):.0f} | {pct(col(chosen, 'evaluated_tokens'), 0.9):.0f} |")

    print("\n### Where on and off differ: LLM-worded turns, model wording (medians)\n")
    print("Off, the policy has no state and plans a greeting for every turn; on, it asks, offers and "
          "confirms with the user's values, so the model reads a longer note and says more.\n")
    print("| turns | monologue | before the LLM is asked (ms) | LLM first token (ms) | evaluated tokens | "
          "generated tokens | reply's first clause (chars) | voice-to-voice (ms) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kind in ("chit-chat", "state-changing"):
        for side in ("on", "off"):
            chosen = select(rows, variant=f"model/{side}", kind=kind, worded="LLM")
            cells = [med(col(chosen, key)) for key in ("llm_start", "llm_first_token", "evaluated_tokens",
                                                       "generated_tokens", "first_clause_chars", "voice_to_voice")]
            print(f"| {kind} | {side} | " + " | ".join(f"{c:.0f}" for c in cells) + " |")
            figures[f"before_llm_{kind}_{side}_ms"] = cells[0]

    if long_rows:
        print("\n### The 30-turn session: per-turn cost as the session grows (model wording)\n")
        print("| monologue | turns | v2v turns 2–4 | v2v turns 28–30 | ratio | evaluated tokens 2–4 | 28–30 |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for variant in ("long/on", "long/off"):
            chosen = select(long_rows, variant=variant)
            early = [r for r in chosen if 2 <= r["turn"] <= 4]
            late = [r for r in chosen if 28 <= r["turn"] <= 30]
            a, b = med(col(early, "voice_to_voice")), med(col(late, "voice_to_voice"))
            print(f"| {variant.split('/')[1]} | {len(chosen)} | {a:.0f} | {b:.0f} | ×{b / a:.2f} | "
                  f"{med(col(early, 'evaluated_tokens')):.0f} | {med(col(late, 'evaluated_tokens')):.0f} |")
            if variant == "long/on":
                figures["turn30_ratio"] = b / a
        on = col(select(long_rows, variant="long/on"), "voice_to_voice")
        off = col(select(long_rows, variant="long/off"), "voice_to_voice")
        print(f"\nall 30 turns: on p50 {med(on):.0f} ms, off p50 {med(off):.0f} ms (×{med(on) / med(off):.3f})")

    print("\n### Targets (this machine)\n\n| target | measured | goal | met |\n|---|---:|---:|:---:|")
    labels = {"policy_p50_ms": "voice-to-voice p50, policy-worded turns (ms)",
              "llm_p50_ms": "voice-to-voice p50, LLM-worded turns (ms)",
              "chit_chat_ratio": "monologue on/off, chit-chat turns",
              "state_ratio": "monologue on/off, state-changing turns",
              "turn30_ratio": "turn 30 vs turn 3 per-turn cost"}
    for key, goal in TARGETS.items():
        value = figures.get(key, float("nan"))
        shown = f"{value:.0f}" if key.endswith("_ms") else f"×{value:.3f}"
        print(f"| {labels[key]} | {shown} | ≤ {goal:g} | {'yes' if value <= goal else 'no'} |")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--session", default=str(DEMO))
    parser.add_argument("--llm", help="litellm model string (default: the config's)")
    parser.add_argument("--config")
    parser.add_argument("--no-long", action="store_true", help="skip the 30-turn session")
    parser.add_argument("--no-turns", action="store_true", help="skip the false cut-in benchmark")
    parser.add_argument("--json", help="also write the per-turn figures here")
    parser.add_argument("--memory-ab", action="store_true",
                        help="alternate runs with and without long-term memory (one user, sessions accumulating)")
    args = parser.parse_args()

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    from monologue.pipeline.audio_io import load_session
    from monologue.pipeline.builder import load_models

    overrides = {"llm": {"model": args.llm}} if args.llm else None
    config = load_config(args.config, overrides)
    session = load_session(args.session, sample_rate=config.audio.sample_rate, max_secs=config.replay.max_seconds)
    models = load_models(config)
    if args.memory_ab:
        memory_ab(args, config, session, models)
        return
    variants: dict[str, MonologueConfig] = {
        f"{wording}/{'on' if on else 'off'}": config.with_overrides(
            {"monologue": {"enabled": on}, "reply": {"wording": wording}})
        for wording in ("model", "policy") for on in (True, False)}
    rows: list[dict[str, Any]] = []
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for run in range(args.runs):
        for name, variant in variants.items():
            got, wall = replay_rows(session, variant, models, name, run, "demo")
            rows += got
            progress(f"run {run + 1}/{args.runs} {name}: {len(got)} turns, {wall:.1f} s wall")
    long_rows: list[dict[str, Any]] = []
    if not args.no_long:
        started = time.perf_counter()
        audio = long_session_audio(config)
        progress(f"voiced the 30-turn session ({audio.duration_secs:.0f} s) in {time.perf_counter() - started:.0f} s")
        for on in (True, False):
            name = f"long/{'on' if on else 'off'}"
            got, wall = replay_rows(audio, config.with_overrides({"monologue": {"enabled": on}}), models, name, 0,
                                    "long")
            long_rows += got
            progress(f"{name}: {len(got)} turns, {wall:.1f} s wall")
    report(rows, long_rows, config, models.load_secs, args.runs)
    if not args.no_turns:
        import bench_turns

        bench_turns.compare(config, models)
    if args.json:
        Path(args.json).write_text(json.dumps({"demo": rows, "long": long_rows}, indent=1))


def memory_ab(args: argparse.Namespace, config: MonologueConfig, session: Any, models: Any) -> None:
    """Voice-to-voice with and without long-term memory, interleaved; the user's store
    grows by one session each 'with' run, so later runs recall from earlier ones."""
    from monologue.pipeline.builder import user_memory
    from monologue.pipeline.replay import ReplayOptions, replay_audio

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
                    result = asyncio.run(replay_audio(session, config, models, Path(out),
                                                      ReplayOptions(long_term=long_term)))
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
    print(f"\nrecall on the critical path: median {med(recall_ms):.1f} ms, p90 {pct(recall_ms, 0.9):.1f} ms "
          f"({len(recall_ms)} turns); start + end of session (profile, checks, summaries, consolidation) "
          f"median {med(session_end_s):.2f} s, outside the turns")


if __name__ == "__main__":
    main()     # run as `python scripts/bench_latency.py`: its folder is on the path (for bench_turns)
