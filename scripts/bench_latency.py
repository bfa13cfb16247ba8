"""Fast turns (E3, W7): voice-to-voice with the monologue on and off, and against the naive
agent that puts the whole conversation in the prompt, side by side.

    python scripts/bench_latency.py [--runs 3] [--session PATH] [--llm MODEL] [--no-long] [--no-turns]
                                    [--no-baseline] [--no-budget-ab] [--no-live-transcript] [--json OUT]
    python scripts/bench_latency.py --memory-ab [--runs 3]     # long-term memory on the voice turn
    python scripts/bench_latency.py --loop-blocks              # what holds the event loop over 20 ms

One run replays the demo session (assets/demo_session/demo.flac) under seven variants,
interleaved (model wording / policy wording × monologue on / off, the whole-history
baseline, and model wording without the first-audio budget and without the next prompt
computed ahead: the "before" beside each), then
a 30-turn session voiced by piper with the monologue on, the baseline and the monologue off,
then the demo and real speech (../shared/data/speech/en-real) fed in real time, for when each
transcript is ready after the end of speech (a fast replay overstates it), then the turn-end
benchmark (scripts/bench_turns.py: false cut-ins).
Models load once.

The baseline (`reply.mode: whole_history`, processors/reply_whole_history.py) is the same
agent — VAD, ASR, turn end, voice — with no state and no policy: the model reads every
message so far. Seed 000 claims the monologue's cost stays flat while that prompt's grows;
the 30-turn session shows whether it does, around turns 3, 15 and 30. There
(assets/scripts/long_session_en.json with the questions of long_session_questions_en.json)
the user asks at turns 3, 15 and 30 what they said before; each agent's reply is scored on
stating the live value (scripts/bench_state.py's `mentions`), and the monologue's state
against every earlier turn's `expect`.

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
import re
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
LONG_QUESTIONS = ROOT / "assets" / "scripts" / "long_session_questions_en.json"
REAL_SPEECH = ROOT.parent / "shared" / "data" / "speech" / "en-real"
CHECKPOINTS = (3, 15, 30)
LONG_AGENTS = {"long/on": "monologue", "long/whole": "whole history", "long/off": "monologue off"}
STAGES = ("asr_after_speech", "asr_done", "classified", "monologue_done", "llm_first_token", "llm_first_clause",
          "first_audio", "voice_to_voice")
MIN_CLAUSE_CHARS = ReplyOptions().min_clause_chars
COMPUTE_PARTS = ("asr", "classifier", "monologue", "llm_first_clause", "tts_first_clause")
TARGETS = {"policy_p50_ms": 1000.0, "llm_p50_ms": 1600.0, "chit_chat_ratio": 1.05, "state_ratio": 1.25,
           "turn30_ratio": 1.3, "turn30_vs_whole_ratio": 1.0}


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
            "drafted": turn.turn_end.drafted, "rule": turn.turn_end.rule, "heard": turn.text,
            "reply": turn.reply.text, "error": turn.reply.error[:200],
            "budget_outcome": turn.reply.budget.outcome if turn.reply.budget is not None else None,
            "late_notice": bool(turn.reply.budget is not None and turn.reply.budget.late_notice)}


def replay_turns(session: Any, config: MonologueConfig, models: Any, *, paced: bool = False,
                 slow_callback_secs: float | None = None) -> tuple[list[Any], float]:
    """The session's turns as one replay answered them, and its wall time.

    Each replay starts as a new conversation does: the model holds its system prompt and
    nothing else. Replays of one recording would otherwise find the prompts of an earlier
    replay saved (llama.cpp's state cache), and evaluate ~1 token where a new conversation
    evaluates ~60."""
    from monologue.pipeline.builder import reply_system_prompt
    from monologue.pipeline.replay import ReplayOptions, replay_audio

    async def replay(out: str) -> Any:
        if slow_callback_secs is not None:      # asyncio's debug mode logs each callback over it
            loop = asyncio.get_running_loop()
            loop.set_debug(True)
            loop.slow_callback_duration = slow_callback_secs
        return await replay_audio(session, config, models, Path(out), ReplayOptions(paced=paced))

    models.llm.fresh_start(reply_system_prompt(config))
    with tempfile.TemporaryDirectory() as out:
        result = asyncio.run(replay(out))
    return result.turns, result.wall_secs


def real_speech_session(sample_rate: int) -> Any | None:
    """The LibriVox sentences of ../shared/data/speech/en-real, 2 s of silence before each
    and after the last (None where the folder is missing)."""
    from monologue.pipeline.audio_io import SessionAudio

    clips = sorted(REAL_SPEECH.glob("*.wav"))
    if not clips:
        return None
    import soundfile as sf

    gap = np.zeros(2 * sample_rate, dtype=np.int16)
    parts: list[np.ndarray] = []
    for clip in clips:
        audio, rate = sf.read(str(clip), dtype="int16")
        if rate != sample_rate:
            raise ValueError(f"{clip} is {rate} Hz; the benchmark reads {sample_rate} Hz speech")
        parts += [gap, audio]
    return SessionAudio(np.concatenate([*parts, gap]), sample_rate, tuple(c.name for c in clips), sample_rate, 1)


def live_transcript_rows(sessions: dict[str, Any], config: MonologueConfig, models: Any,
                         runs: int) -> list[dict[str, Any]]:
    """When each turn's transcript was ready after the end of its speech, with the audio fed in
    real time as a microphone feeds it. A fast replay overstates it: its feeder runs the VAD
    (and the turn-end model) on the next seconds of audio at many times real time, on the cores
    the final pass needs; and partial passes, which a live turn has, never run."""
    rows = []
    for run in range(runs):
        for name, session in sessions.items():
            turns, _ = replay_turns(session, config, models, paced=True)
            for turn in turns:
                ready = turn.latencies_ms().get("asr_after_speech")
                if ready is not None and turn.text:
                    rows.append({"session": name, "run": run, "turn": turn.turn_id, "asr_after_speech": ready,
                                 "partials": turn.turn_end.partials, "audio_secs": turn.asr.audio_secs
                                 if turn.asr is not None else None, "heard": turn.text})
    return rows


def loop_blocks(config: MonologueConfig, models: Any, session: Any) -> None:
    """What holds the event loop: one real-time replay of the demo per wording, with asyncio's
    debug mode reporting every callback over 20 ms. Frames, the VAD and the playout all run
    on that loop; whisper, smart-turn, the voice and llama.cpp run on threads of their own."""
    import logging

    slow: list[str] = []

    class Slow(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "took" in record.getMessage():
                slow.append(record.getMessage())

    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(handler := Slow())
    print("\n### The event loop: callbacks over 20 ms in a real-time replay of the demo\n")
    print("| wording | callbacks over 20 ms | longest (ms) | what |\n|---|---:|---:|---|")
    try:
        for wording in ("model", "policy"):
            slow.clear()
            replay_turns(session, config.with_overrides({"reply": {"wording": wording}}), models,
                         paced=True, slow_callback_secs=0.02)
            took = sorted((float(m.group(1)), text) for text in slow
                          if (m := re.search(r"took ([\d.]+) seconds", text)) is not None)
            what = re.sub(r"\s+", " ", took[-1][1])[:90] if took else ""
            print(f"| {wording} | {len(took)} | {took[-1][0] * 1000 if took else 0:.0f} | {what} |")
    finally:
        asyncio_log.removeHandler(handler)


def live_transcript_report(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    print("\n### Transcript ready after the end of speech, audio fed in real time (target p50 ≤ 200 ms)\n")
    print("| session | turns | partial passes per turn (median) | p50 (ms) | p90 (ms) |\n|---|---:|---:|---:|---:|")
    for name in dict.fromkeys(r["session"] for r in rows):
        chosen = select(rows, session=name)
        values = col(chosen, "asr_after_speech")
        print(f"| {name} | {len(chosen)} | {med(col(chosen, 'partials')):.0f} | {med(values):.0f} | "
              f"{pct(values, 0.9):.0f} |")


def replay_rows(session: Any, config: MonologueConfig, models: Any, variant: str, run: int,
                name: str) -> tuple[list[dict[str, Any]], float]:
    turns, wall = replay_turns(session, config, models)
    return [r for t in turns if (r := turn_row(t, variant, run, name)) is not None], wall


def long_session_script() -> list[dict[str, Any]]:
    """The 30-turn script with its questions in place: each replaced turn says the question,
    sets nothing (`expect` {}) and names the key it `asks` about."""
    turns = [dict(t) for t in json.loads(LONG_SCRIPT.read_text())["turns"]]
    for question in json.loads(LONG_QUESTIONS.read_text())["questions"]:
        turns[question["turn"] - 1] = {"say": question["say"], "expect": {}, "asks": question["asks"]}
    return turns


def long_session_audio(config: MonologueConfig, script: list[dict[str, Any]] | None = None,
                       pause_secs: float = 9.0) -> Any:
    """The 30-turn script (default: with its questions) voiced by piper, the user waiting
    `pause_secs` after each turn."""
    from monologue.models.tts import PiperTTS
    from monologue.pipeline.audio_io import SessionAudio, to_mono_int16

    rate = config.audio.sample_rate
    turns = [t["say"] for t in (script or long_session_script())]
    tts = PiperTTS(length_scale=1.05)
    pieces = [np.zeros(int(0.6 * rate), np.int16)]
    for text in turns:
        voice = tts.synthesize_all(text).astype(np.float32) / 32768.0
        pieces += [to_mono_int16(voice * 0.8, tts.sample_rate, rate), np.zeros(int(pause_secs * rate), np.int16)]
    samples = np.concatenate(pieces)
    return SessionAudio(samples=samples, sample_rate=rate, sources=("long_session_en",), original_rate=rate,
                        original_channels=1)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def script_numbers(heard: list[str], script: list[dict[str, Any]]) -> list[int]:
    """The script line (from 1) each heard turn says, in order. The VAD may cut a line in two
    ("Hi!" apart from the rest): both halves go to the same line, so that the figures for
    turn k are those of the script's turn k. A turn is the next line unless its words fit the
    one after, or the current one, better; one with no word of either stays where it is."""
    lines = [_words(line["say"]) for line in script]
    numbers: list[int] = []
    at = -1
    for text in heard:
        words = _words(text)
        fits = {i: len(words & lines[i]) / max(len(lines[i]), 1)
                for i in (at + 1, at + 2, at) if 0 <= i < len(script)}
        best = max(fits, key=fits.__getitem__)      # the first of equals: the next line
        at = best if fits[best] > 0 or at < 0 else at
        numbers.append(at + 1)
    return numbers


def state_at(turns: list[Any], turn_id: int) -> dict[str, Any] | None:
    """The working memory's conditions as the last update at or before `turn_id` left them
    (None: the agent keeps no state)."""
    updates = [t.monologue.update for t in turns
               if t.turn_id <= turn_id and t.monologue is not None and t.monologue.update is not None]
    if not updates:
        return None
    return {slot: c.get("value") for slot, c in updates[-1]["state_after"].get("constraints", {}).items()}


def question_answers(turns: list[Any], script: list[dict[str, Any]], variant: str) -> list[dict[str, Any]]:
    """Each question of the script as one replay answered it: whether the reply states the key's
    live value, whether it repeats a superseded one, and whether the state (with working
    memory) holds every live value of the earlier turns and none that was withdrawn."""
    from bench_state import live_at, mentions

    answered = [t for t in turns if t.text]
    out: list[dict[str, Any]] = []
    for number, line in enumerate(script, 1):
        if "asks" not in line:
            continue
        key = line["asks"]
        live, old = live_at(script, number)
        asked = _words(line["say"])
        # The replay's turn that heard the question (its id may differ from the script's number).
        turn = max(answered, key=lambda t: len(asked & _words(t.text)), default=None)
        heard = turn is not None and len(asked & _words(turn.text)) >= len(asked) / 2
        reply = turn.reply.text if heard and turn is not None else ""
        said = {slot for earlier in script[:number] for slot in earlier["expect"]}
        state = state_at(turns, turn.turn_id) if heard and turn is not None else None
        # A live key holding another value, or a withdrawn one still held.
        lost = None if state is None else sorted(
            slot for slot in said if (state.get(slot) != live[slot] if slot in live else slot in state))
        out.append({"variant": variant, "turn": number, "question": line["say"], "key": key,
                    "expected": live.get(key), "heard": turn.text if heard and turn is not None else "",
                    "reply": reply, "source": turn.reply.source if heard and turn is not None else "",
                    "right": heard and mentions(reply, key, live.get(key)),
                    "stale": [v for v in old.get(key, ()) if mentions(reply, key, v)],
                    "state_kept": None if lost is None else len(said) - len(lost), "state_keys": len(said),
                    "state_lost": lost})
    return out


def ratio_row(label: str, on: list[float], off: list[float]) -> str:
    a, b = med(on), med(off)
    return (f"| {label} | {len(on)} | {a:.0f} | {pct(on, 0.9):.0f} | {b:.0f} | {pct(off, 0.9):.0f} "
            f"| ×{a / b:.3f} |" if on and off else f"| {label} | {len(on)} | – | – | – | – | – |")


def select(source: list[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
    return [r for r in source if all((r[k] in v) if isinstance(v, tuple) else r[k] == v for k, v in where.items())]


def budget_report(rows: list[dict[str, Any]], config: MonologueConfig, figures: dict[str, float]) -> None:
    """The first-audio budget (issue 28), before and after in the same run: voice-to-voice per
    turn type with the budget and without it, and who worded the first words."""
    after, before = select(rows, variant="model/on"), select(rows, variant="model/on/no-budget")
    if not before:
        return
    budget = config.reply.first_audio_budget_ms
    print(f"\n### First-audio budget ({budget:.0f} ms): model wording, monologue on, with and without it\n")
    print("| turns | n | p50 without | p90 without | p50 with | p90 with | over the budget, without → with |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in ("chit-chat", "state-changing", None):
        chosen = [select(x, kind=kind) if kind else x for x in (before, after)]
        b, a = (col(c, "voice_to_voice") for c in chosen)
        over = [sum(v > budget for v in x) / len(x) if x else float("nan") for x in (b, a)]
        print(f"| {kind or 'all'} | {len(a)} | {med(b):.0f} | {pct(b, 0.9):.0f} | {med(a):.0f} | {pct(a, 0.9):.0f} | "
              f"{over[0]:.0%} → {over[1]:.0%} |")
        if kind is None:
            figures["budget_p50_ms"], figures["budget_p90_ms"] = med(a), pct(a, 0.9)
            figures["no_budget_p50_ms"], figures["no_budget_p90_ms"] = med(b), pct(b, 0.9)
    outcomes = {o: sum(r["budget_outcome"] == o for r in after) for o in ("model", "policy", "not_asked")}
    late = sum(bool(r.get("late_notice")) for r in after)
    print(f"\nwho said the first words with the budget: the model in time {outcomes['model']}, the policy after "
          f"stopping the model {outcomes['policy']}, the policy alone (an act said as decided) "
          f"{outcomes['not_asked']}; 'one moment' said {late} times, of {len(after)} turns")


def prefill_report(rows: list[dict[str, Any]], figures: dict[str, float]) -> None:
    """The prompt computed ahead (`reply.prefill_next`), before and after in the same run: what
    the model evaluates on the user's wait, its first token, and who words the first words."""
    sides = {"without (before)": select(rows, variant="model/on/no-prefill"),
             "with (after)": select(rows, variant="model/on"),
             "with, no budget": select(rows, variant="model/on/no-budget")}
    if not sides["without (before)"]:
        return
    print("\n### The next prompt computed ahead: model wording, monologue on\n")
    print("Tokens are the reply call's, stopped calls included; the first token is timed only where the model "
          "got that far before the budget stopped it.\n")
    print("| prompt head computed ahead | turns | evaluated tokens p50 | p90 | LLM first token p50 (ms) | "
          "voice-to-voice p50 | p90 | first words by the model |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, chosen in sides.items():
        if not chosen:
            continue
        evaluated, v2v = col(chosen, "evaluated_tokens"), col(chosen, "voice_to_voice")
        model = sum(r["budget_outcome"] == "model" or (r["budget_outcome"] is None and r["worded"] == "LLM")
                    for r in chosen)
        print(f"| {label} | {len(chosen)} | {med(evaluated):.0f} | {pct(evaluated, 0.9):.0f} | "
              f"{med(col(chosen, 'llm_first_token')):.0f} | {med(v2v):.0f} | {pct(v2v, 0.9):.0f} | "
              f"{model}/{len(chosen)} |")
        key = label.split(" ")[0].replace(",", "")
        figures[f"evaluated_tokens_{key}"] = med(evaluated)


def col(source: list[dict[str, Any]], key: str) -> list[float]:
    return [r[key] for r in source if r.get(key) is not None]


def report(rows: list[dict[str, Any]], long_rows: list[dict[str, Any]], config: MonologueConfig,
           load_secs: dict[str, float], runs: int, answers: list[dict[str, Any]] | None = None) -> dict[str, float]:
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

    budget_report(rows, config, figures)
    prefill_report(rows, figures)

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
    print(f"\ntranscript ready after end of speech, fast replay, all variants: p50 {med(asr_after):.0f} ms, "
          f"p90 {pct(asr_after, 0.9):.0f} (n={len(asr_after)}); "
          f"turns answered from a draft: {len(drafted)}/{len(rows)}")

    print("\n### Tokens the LLM evaluated per LLM-worded turn (model wording)\n")
    print("| turns | prompt tokens (median) | evaluated (median) | evaluated p90 |\n|---|---:|---:|---:|")
    for variant in ("model/on", "model/off", "model/whole"):
        chosen = select(rows, variant=variant, worded="LLM")
        if not chosen:
            continue
        label = "whole history (baseline)" if variant == "model/whole" else f"monologue {variant.split('/')[1]}"
        print(f"| {label} | {med(col(chosen, 'prompt_tokens')):.0f} | "
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
            early = [r for r in chosen if 2 <= r["script_turn"] <= 4]
            late = [r for r in chosen if 28 <= r["script_turn"] <= 30]
            a, b = med(col(early, "voice_to_voice")), med(col(late, "voice_to_voice"))
            print(f"| {variant.split('/')[1]} | {len(chosen)} | {a:.0f} | {b:.0f} | ×{b / a:.2f} | "
                  f"{med(col(early, 'evaluated_tokens')):.0f} | {med(col(late, 'evaluated_tokens')):.0f} |")
            if variant == "long/on":
                figures["turn30_ratio"] = b / a
        on = col(select(long_rows, variant="long/on"), "voice_to_voice")
        off = col(select(long_rows, variant="long/off"), "voice_to_voice")
        print(f"\nall 30 turns: on p50 {med(on):.0f} ms, off p50 {med(off):.0f} ms (×{med(on) / med(off):.3f})")
    figures |= baseline_report(rows, long_rows, answers or [])

    print("\n### Targets (this machine)\n\n| target | measured | goal | met |\n|---|---:|---:|:---:|")
    labels = {"policy_p50_ms": "voice-to-voice p50, policy-worded turns (ms)",
              "llm_p50_ms": "voice-to-voice p50, LLM-worded turns (ms)",
              "chit_chat_ratio": "monologue on/off, chit-chat turns",
              "state_ratio": "monologue on/off, state-changing turns",
              "turn30_ratio": "turn 30 vs turn 3 per-turn cost",
              "turn30_vs_whole_ratio": "monologue / whole history, v2v turns 28–30"}
    for key, goal in TARGETS.items():
        value = figures.get(key, float("nan"))
        shown = f"{value:.0f}" if key.endswith("_ms") else f"×{value:.3f}"
        print(f"| {labels[key]} | {shown} | ≤ {goal:g} | {'yes' if value <= goal else 'no'} |")
    return figures


WINDOWS = {3: (2, 4), 15: (14, 16), 30: (28, 30)}
"""The turns whose medians stand for turns 3, 15 and 30 (one turn alone is one sample)."""


def _verdict(answer: dict[str, Any]) -> str:
    if not answer["heard"]:
        return "not heard"
    stale = f" (also {', '.join(map(str, answer['stale']))})" if answer["stale"] else ""
    return ("right" if answer["right"] else "wrong") + stale


def baseline_report(rows: list[dict[str, Any]], long_rows: list[dict[str, Any]],
                    answers: list[dict[str, Any]]) -> dict[str, float]:
    """The whole-history baseline beside the monologue: cost on the demo, cost around turns 3,
    15 and 30 of the long session and how it grows, and the questions answered there."""
    figures: dict[str, float] = {}
    if select(rows, variant="model/whole"):
        print("\n### Whole history (the naive baseline) vs monologue: demo session, model wording\n")
        print("| agent | turns | v2v p50 (ms) | v2v p90 | LLM first token p50 (ms) | prompt tokens | "
              "evaluated tokens |\n|---|---:|---:|---:|---:|---:|---:|")
        for variant, label in (("model/on", "monologue"), ("model/whole", "whole history"),
                               ("model/off", "monologue off")):
            chosen = select(rows, variant=variant)
            llm = select(chosen, worded="LLM")
            v2v = col(chosen, "voice_to_voice")
            print(f"| {label} | {len(chosen)} | {med(v2v):.0f} | {pct(v2v, 0.9):.0f} | "
                  f"{med(col(llm, 'llm_first_token')):.0f} | {med(col(llm, 'prompt_tokens')):.0f} | "
                  f"{med(col(llm, 'evaluated_tokens')):.0f} |")
    if not select(long_rows, variant="long/whole"):
        return figures

    print("\n### Whole history vs monologue: the 30-turn session around turns 3, 15 and 30\n")
    print("Medians over the script's turns 2–4, 14–16 and 28–30 (heard turns matched to its lines). "
          "LLM columns: the turns among them the LLM was asked for (n); the monologue's policy says "
          "some itself (its answers about the state among them), and a model stopped by the "
          "first-audio budget has no first token.\n")
    print("| agent | turns | voice-to-voice (ms) | first clause (ms) | LLM first token (ms) | prompt tokens | "
          "evaluated tokens | LLM asked (n) |\n|---|---|---:|---:|---:|---:|---:|---:|")
    keys = ("voice_to_voice", "llm_first_clause", "llm_first_token", "prompt_tokens", "evaluated_tokens")
    at: dict[tuple[str, int], list[float]] = {}
    for variant, label in LONG_AGENTS.items():
        chosen = select(long_rows, variant=variant)
        if not chosen:
            continue
        for k, (first, last) in WINDOWS.items():
            near = [r for r in chosen if first <= r["script_turn"] <= last]
            llm = select(near, worded="LLM")
            at[variant, k] = [med(col(near if key in ("voice_to_voice", "llm_first_clause") else llm, key))
                              for key in keys]
            print(f"| {label} | {first}–{last} | " + " | ".join(f"{c:.0f}" for c in at[variant, k])
                  + f" | {len(llm)} |")
        growth = [b / a if a else float("nan") for a, b in zip(at[variant, 3], at[variant, 30], strict=True)]
        print(f"| {label} | growth, 28–30 / 2–4 | " + " | ".join(f"×{g:.2f}" for g in growth) + " | |")
        figures[f"{variant.split('/')[1]}_growth_v2v"] = growth[0]
    figures["turn30_vs_whole_ratio"] = at["long/on", 30][0] / at["long/whole", 30][0]

    if not answers:
        return figures
    print("\n### Questions at turns 3, 15 and 30: does the reply state what the user said?\n")
    print("right: the reply states the key's live value (scripts/bench_state.py `mentions`); "
          "stale: it also states a value the user replaced. State kept: the monologue's working memory "
          "holds every value the earlier turns set, and none they withdrew (keys right / keys said).\n")
    agents = [v for v in LONG_AGENTS if any(a["variant"] == v for a in answers)]
    print("| turn | question | expected | " + " | ".join(LONG_AGENTS[v] for v in agents)
          + " | monologue: state kept |\n|---:|---|---|" + "---|" * (len(agents) + 1))
    for k in sorted({a["turn"] for a in answers}):
        mine = {a["variant"]: a for a in answers if a["turn"] == k}
        first_answer = next(iter(mine.values()))
        on = mine.get("long/on")
        kept = "–"
        if on is not None and on["state_kept"] is not None:
            kept = f"{on['state_kept']}/{on['state_keys']}" + (f" (not: {', '.join(on['state_lost'])})"
                                                               if on.get("state_lost") else "")
        print(f"| {k} | {first_answer['question']} | {first_answer['expected']} | "
              + " | ".join(_verdict(mine[v]) if v in mine else "–" for v in agents) + f" | {kept} |")
    for variant in agents:
        figures[f"{variant.split('/')[1]}_questions_right"] = sum(a["right"] for a in answers
                                                                  if a["variant"] == variant)
    print("\nWhat each agent said:\n")
    for a in answers:
        print(f"- turn {a['turn']}, {LONG_AGENTS[a['variant']]} ({a['source'] or 'no reply'}): "
              f"“{a['reply'] or '—'}” (heard: “{a['heard'] or '—'}”)")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--session", default=str(DEMO))
    parser.add_argument("--llm", help="litellm model string (default: the config's)")
    parser.add_argument("--config")
    parser.add_argument("--no-long", action="store_true", help="skip the 30-turn session")
    parser.add_argument("--no-turns", action="store_true", help="skip the false cut-in benchmark")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the whole-history baseline (the naive agent) on both sessions")
    parser.add_argument("--no-budget-ab", action="store_true",
                        help="skip the variants without the first-audio budget and without the prompt "
                             "computed ahead (the 'before' beside each)")
    parser.add_argument("--no-live-transcript", action="store_true",
                        help="skip the transcript timing with audio fed in real time (demo and real speech)")
    parser.add_argument("--loop-blocks", action="store_true",
                        help="only: what holds the event loop over 20 ms in a real-time replay of the demo")
    parser.add_argument("--json", help="also write the per-turn figures here")
    parser.add_argument("--memory-ab", action="store_true",
                        help="alternate runs with and without long-term memory (one user, sessions accumulating)")
    args = parser.parse_args()

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    from monologue.pipeline.audio_io import load_session
    from monologue.pipeline.builder import load_models, reply_system_prompt

    overrides = {"llm": {"model": args.llm}} if args.llm else None
    config = load_config(args.config, overrides)
    session = load_session(args.session, sample_rate=config.audio.sample_rate, max_secs=config.replay.max_seconds)
    models = load_models(config)
    if args.memory_ab:
        memory_ab(args, config, session, models)
        return
    if args.loop_blocks:
        loop_blocks(config, models, session)
        return
    variants: dict[str, MonologueConfig] = {
        f"{wording}/{'on' if on else 'off'}": config.with_overrides(
            {"monologue": {"enabled": on}, "reply": {"wording": wording}})
        for wording in ("model", "policy") for on in (True, False)}
    if not args.no_budget_ab:
        # Before the first-audio budget, side by side: the same agent with no budget.
        variants["model/on/no-budget"] = config.with_overrides(
            {"monologue": {"enabled": True}, "reply": {"wording": "model", "first_audio_budget_ms": 0}})
        # …and without the next prompt computed ahead (the "before" of the prompt's shaping).
        variants["model/on/no-prefill"] = config.with_overrides(
            {"monologue": {"enabled": True}, "reply": {"wording": "model", "prefill_next": False}})
    whole_history = config.with_overrides({"reply": {"mode": "whole_history"}})
    if not args.no_baseline:
        variants["model/whole"] = whole_history
        models.llm.warm_up(reply_system_prompt(whole_history))   # its first turn, like the others', finds it
    rows: list[dict[str, Any]] = []
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for run in range(args.runs):
        for name, variant in variants.items():
            got, wall = replay_rows(session, variant, models, name, run, "demo")
            rows += got
            progress(f"run {run + 1}/{args.runs} {name}: {len(got)} turns, {wall:.1f} s wall")
    long_rows: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    if not args.no_long:
        started = time.perf_counter()
        script = long_session_script()
        audio = long_session_audio(config, script)
        progress(f"voiced the 30-turn session ({audio.duration_secs:.0f} s) in {time.perf_counter() - started:.0f} s")
        long_variants = {"long/on": config.with_overrides({"monologue": {"enabled": True}}),
                         "long/whole": whole_history,
                         "long/off": config.with_overrides({"monologue": {"enabled": False}})}
        if args.no_baseline:
            del long_variants["long/whole"]
        for name, variant in long_variants.items():
            turns, wall = replay_turns(audio, variant, models)
            answered = [t for t in turns if t.text]
            numbers = dict(zip((t.turn_id for t in answered), script_numbers([t.text for t in answered], script),
                               strict=True))
            got = [r | {"script_turn": numbers[t.turn_id]} for t in turns
                   if (r := turn_row(t, name, 0, "long")) is not None]
            long_rows += got
            answers += question_answers(turns, script, name)
            progress(f"{name}: {len(got)} turns, {wall:.1f} s wall")
    live: list[dict[str, Any]] = []
    if not args.no_live_transcript:
        sessions = {"demo": session, "real speech (LibriVox)": real_speech_session(config.audio.sample_rate)}
        live = live_transcript_rows({k: v for k, v in sessions.items() if v is not None}, config, models,
                                    max(1, min(args.runs, 2)))
        progress(f"live transcripts: {len(live)} turns")
    report(rows, long_rows, config, models.load_secs, args.runs, answers)
    live_transcript_report(live)
    if not args.no_turns:
        import bench_turns

        bench_turns.compare(config, models)
    if args.json:
        Path(args.json).write_text(json.dumps({"demo": rows, "long": long_rows, "questions": answers,
                                               "live_transcript": live}, indent=1))


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
