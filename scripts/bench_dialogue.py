"""The dialogue over whole conversations: does the agent finish the task?

    python scripts/bench_dialogue.py [--strong MODEL] [--prompt-variants] [--scripts a,b] [--latency-runs 2]

Plays every bundled conversation script (`assets/conversations/`: three domains, English
and Chinese, one and two sessions) through the text pipeline with the embedded model,
and with `--strong` (any litellm model string, e.g. openai/gpt-4o-mini with its key set)
side by side. Per model it reports: task completion rate (COMPLETED with its record),
turns to completion, offers repeated back to back, what the reply check caught by kind,
what still reached the user by kind, and who worded the replies (the model, the model
with the policy's template finishing it, the template alone, or the policy directly for
facts from memory). Then voice-to-voice latency: the bundled demo replayed with the real
ASR, TTS and LLM, the model wording every act versus the policy's template alone
(`reply.wording: policy`), runs alternated, medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from monologue.models.offline import enforce_offline

enforce_offline()

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo_session" / "demo.flac"


def conversations(models: Any, names: set[str] | None, overrides: dict[str, Any]) -> dict[str, Any]:
    from monologue.pipeline.conversations import bundled_conversations, judge, run_conversation

    totals: dict[str, Any] = {"tasks": 0, "completed": 0, "turns": [], "repeated_offers": 0, "replies": 0,
                              "caught": Counter(), "spoken": Counter(), "sources": Counter(), "problems": [],
                              "small_talk": [0, 0], "about_user": [0, 0], "seconds": 0.0}
    for script in bundled_conversations():
        if names and script.name not in names:
            continue
        started = time.perf_counter()
        verdict = judge(asyncio.run(run_conversation(script, models, overrides=overrides)))
        took = time.perf_counter() - started
        totals["seconds"] += took
        totals["tasks"] += verdict.tasks
        totals["completed"] += verdict.completed
        totals["turns"] += verdict.turns_to_completion
        totals["repeated_offers"] += verdict.repeated_offers
        totals["replies"] += sum(verdict.sources.values())
        totals["caught"].update(verdict.check_caught)
        totals["spoken"].update(verdict.spoken_failures)
        totals["sources"].update(verdict.sources)
        totals["small_talk"][0] += verdict.small_talk_resumed
        totals["small_talk"][1] += verdict.small_talk
        totals["about_user"][0] += verdict.about_user_answered
        totals["about_user"][1] += verdict.about_user
        totals["problems"] += [f"{script.name}: {p}" for p in verdict.problems]
        print(f"  {script.name:32s} {verdict.completed}/{verdict.tasks} done  turns {verdict.turns_to_completion}  "
              f"caught {dict(verdict.check_caught)}  {took:.0f} s", flush=True)
    return totals


def latency(config: Any, runs: int) -> dict[str, list[float]]:
    """Voice-to-voice per turn on the demo: the model wording each act vs the template alone."""
    from monologue.pipeline.audio_io import load_session
    from monologue.pipeline.builder import load_models
    from monologue.pipeline.replay import replay_audio

    session = load_session(DEMO, sample_rate=config.audio.sample_rate, max_secs=config.replay.max_seconds)
    models = load_models(config)
    variants = {"model words the act": config.with_overrides({"reply": {"wording": "model"}}),
                "policy template only": config.with_overrides({"reply": {"wording": "policy"}})}
    out: dict[str, list[float]] = {name: [] for name in variants}
    out["model-worded turns"], out["template-worded turns"] = [], []
    for _ in range(runs):
        for name, variant in variants.items():
            with tempfile.TemporaryDirectory() as tmp:
                result = asyncio.run(replay_audio(session, variant, models, Path(tmp)))
            for turn in result.turns:
                v2v = turn.latencies_ms().get("voice_to_voice")
                if v2v is None:
                    continue
                out[name].append(v2v)
                if name == "model words the act":
                    key = "model-worded turns" if turn.reply.source == "model" else "template-worded turns"
                    out[key].append(v2v)
    return out


def share(counter: Counter[str], total: int) -> str:
    return ", ".join(f"{k} {v / total:.0%}" for k, v in counter.most_common()) if total else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strong", help="a stronger litellm model string to compare (its API key in the environment)")
    parser.add_argument("--scripts", help="only these scripts (comma-separated names)")
    parser.add_argument("--latency-runs", type=int, default=2, help="demo replays per variant (0: skip latency)")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--prompt-variants", action="store_true",
                        help="also run the embedded model with the note as a system message after the utterance, "
                             "and with a two-message window (how the prompt's shape moves the template rate)")
    args = parser.parse_args()

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="ERROR")
    from monologue.configs import load_config
    from monologue.pipeline.builder import load_text_models

    names = set(args.scripts.split(",")) if args.scripts else None
    models_to_run: dict[str, dict[str, Any]] = {"embedded": {}}
    if args.prompt_variants:
        models_to_run["embedded, note after"] = {"reply": {"context_position": "after"}}
        models_to_run["embedded, 2-message window"] = {"reply": {"recent_turns": 2}}
    if args.strong:
        models_to_run[args.strong] = {"llm": {"model": args.strong}}
    report: dict[str, Any] = {}
    for label, overrides in models_to_run.items():
        print(f"\n== {label}", flush=True)
        config = load_config(overrides=overrides or None, environ={})
        report[label] = conversations(load_text_models(config), names, overrides)

    print("\n| | " + " | ".join(report) + " |\n|---|" + "---|" * len(report))
    rows = {
        "task completion": lambda t: f"{t['completed']}/{t['tasks']} ({t['completed'] / max(t['tasks'], 1):.0%})",
        "turns to completion (median)": lambda t: f"{statistics.median(t['turns']):.1f}" if t["turns"] else "-",
        "offers repeated back to back": lambda t: str(t["repeated_offers"]),
        "small talk answered and task resumed": lambda t: f"{t['small_talk'][0]}/{t['small_talk'][1]}",
        "questions about the user answered from memory": lambda t: f"{t['about_user'][0]}/{t['about_user'][1]}",
        "model clauses stopped by the check": lambda t: ", ".join(f"{k} {v}" for k, v in t["caught"].most_common())
        or "none",
        "still heard by the user": lambda t: ", ".join(f"{k} {v}" for k, v in t["spoken"].most_common()) or "none",
        "replies worded by": lambda t: share(t["sources"], t["replies"]),
        "template wins (template or model+template, of model-worded turns)": lambda t: _template_rate(t),
        "seconds": lambda t: f"{t['seconds']:.0f}",
    }
    for row, cell in rows.items():
        print(f"| {row} | " + " | ".join(cell(t) for t in report.values()) + " |")
    if args.latency_runs:
        config = load_config(overrides={"llm": {"max_tokens": 60}}, environ={})
        figures = latency(config, args.latency_runs)
        print("\n| voice-to-voice on the demo (ms) | median | n |\n|---|---|---|")
        for name, values in figures.items():
            if values:
                print(f"| {name} | {statistics.median(values):.0f} | {len(values)} |")
        report["latency_ms"] = figures
    for label, totals in report.items():
        if isinstance(totals, dict) and totals.get("problems"):
            print(f"\n{label}: {len(totals['problems'])} problem(s)")
            for problem in totals["problems"][:40]:
                print("  " + problem)
    if args.json:
        Path(args.json).write_text(json.dumps(report, default=_plain, ensure_ascii=False, indent=1), encoding="utf-8")


def _template_rate(totals: dict[str, Any]) -> str:
    sources = totals["sources"]
    worded = sources["model"] + sources["model+template"] + sources["template"]
    if not worded:
        return "-"
    return f"{(sources['model+template'] + sources['template']) / worded:.0%} of {worded}"


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Counter) else str(value)


if __name__ == "__main__":
    main()
