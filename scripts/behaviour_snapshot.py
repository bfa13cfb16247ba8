"""What the agent did, turn by turn, on fixed sessions: to prove a restructure changed no behaviour.

Runs every bundled conversation (assets/conversations: three domains, English and Chinese,
returning users) twice — replies worded by the policy, and by a deterministic stand-in model
that follows the policy's note but misbehaves on a schedule (so the check and the template
path are exercised too) — and replays the barge-in session (assets/barge_in_session) with its
transcript and a fixed compute time, so where the user cuts in does not depend on this machine.

Each turn is written as its class, the working-memory update, the state afterwards, the act,
the reply, who worded it, the check's failures and the barge-in record; times are left out.
Run it before and after a change and compare:

    python scripts/behaviour_snapshot.py --out out/before.json
    python scripts/behaviour_snapshot.py --out out/after.json --compare out/before.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))     # the deterministic stand-ins the tests use

from monologue.configs import load_config  # noqa: E402
from monologue.memory.stores.state import SqlStateStore  # noqa: E402
from monologue.models.chat import ChatLLM  # noqa: E402
from monologue.pipeline.audio_io import load_session  # noqa: E402
from monologue.pipeline.builder import AgentModels  # noqa: E402
from monologue.pipeline.conversations import bundled_conversations, run_conversation  # noqa: E402
from monologue.pipeline.replay import ReplayOptions, replay_audio  # noqa: E402
from monologue.processors.trace import trace_line  # noqa: E402

from fakes import FakeTranscriber, PlannerFollowingLLM, SpeakingSynthesizer, bag_of_words  # noqa: E402

# Keys whose values are times, sizes of this machine's work, or ids minted per run.
_UNSTABLE = {"ms", "secs", "compute", "marks", "latency_ms", "wall_secs", "at", "created_at", "updated_at",
             "ts", "time_ms", "elapsed_ms", "compute_secs", "stop_ms", "paused_ms", "draft_wait_ms",
             "heard_at_secs", "cut_at_secs", "session_start_secs", "audio_secs", "id", "session_id",
             "timed_out", "llm_tokens", "detected_at", "transcript_ready_at", "speech_end_at"}


# A booking's or ticket's reference is minted at random ("B-5D293D").
_REFERENCE = re.compile(r"(?<![A-Za-z0-9])[A-Z]-[0-9A-F]{6}(?![A-Za-z0-9])")


def _stable(value: Any) -> Any:
    """`value` without what differs between two runs of the same behaviour."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in sorted(value.items())
                if k not in _UNSTABLE and not k.endswith(("_ms", "_secs", "_at"))}
    if isinstance(value, list | tuple):
        return [_stable(v) for v in value]
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, str):
        return _REFERENCE.sub("<ref>", value)
    return value


def _turn(line: dict[str, Any]) -> dict[str, Any]:
    reply = line.get("reply", {})
    return _stable({"turn": line.get("turn"), "heard": line.get("asr", {}).get("text"),
                    "class": line.get("turn_class"), "update": line.get("monologue"),
                    "act": reply.get("decision"), "reply": reply.get("text"), "source": reply.get("source"),
                    "check": reply.get("check"), "prompt": reply.get("prompt"), "memories": line.get("memories"),
                    "barge_in": line.get("barge_in")})


async def conversations(wording: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    overrides = {"monologue": {"llm_mode": "never"}, "long_term": {"llm_help": False},
                 "reply": {"wording": wording}}
    for script in bundled_conversations():
        models = AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=2))
        models.embed = bag_of_words
        with tempfile.TemporaryDirectory(prefix="snapshot-") as tmp:
            run = await run_conversation(script, models, overrides=overrides, store_dir=Path(tmp))
        sessions = []
        for session in run.sessions:
            turns = []
            for turn in session.turns:
                turns.append(_turn(trace_line(turn)))
            sessions.append({"opening": session.opening, "status": session.status,
                             "actions": _stable(session.records), "turns": turns})
        out[script.name] = sessions
    return out


async def barge_in() -> dict[str, Any]:
    config = load_config(environ={}, overrides={
        "llm": {"model": "openai/gpt-4o-mini", "fallback": None, "mock_response": "Okay."},
        "monologue": {"llm_mode": "never"}, "reply": {"wording": "policy"},
        "turn": {"end_by": "silence"}, "replay": {"compute_secs": 0.6}})
    folder = ROOT / "assets" / "barge_in_session"
    texts = [t for t in (folder / "barge_in.txt").read_text(encoding="utf-8").splitlines() if t.strip()]
    session = load_session(folder / "barge_in.flac", sample_rate=16000)
    models = AgentModels(asr=FakeTranscriber(texts), tts=SpeakingSynthesizer(), llm=ChatLLM(config.llm))
    with tempfile.TemporaryDirectory(prefix="snapshot-") as tmp:
        store = SqlStateStore(str(Path(tmp) / "state.db"))
        await replay_audio(session, config, models, Path(tmp), ReplayOptions(store=store, session_id="barge-in"))
        lines = [json.loads(line) for line in (Path(tmp) / "trace.jsonl").read_text().splitlines()]
        final = store.load("barge-in")
    state = final.to_dict() if final is not None else None
    return {"turns": [_turn(line) for line in lines], "state": _stable(state)}


async def snapshot() -> dict[str, Any]:
    return {"policy": await conversations("policy"), "model": await conversations("model"),
            "barge_in": await barge_in()}


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            found += differences(before.get(key), after.get(key), f"{path}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            found += differences(a, b, f"{path}[{index}]")
        return found
    return [] if before == after else [f"{path}: {json.dumps(before, ensure_ascii=False)[:300]} → "
                                       f"{json.dumps(after, ensure_ascii=False)[:300]}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="an earlier snapshot: print every difference")
    args = parser.parse_args()
    taken = asyncio.run(snapshot())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(taken, ensure_ascii=False, indent=1), encoding="utf-8")
    turns = sum(len(s["turns"]) for mode in ("policy", "model") for c in taken[mode].values() for s in c)
    print(f"{turns} conversation turns and {len(taken['barge_in']['turns'])} replayed turns → {args.out}")
    if args.compare is None:
        return 0
    found = differences(json.loads(args.compare.read_text(encoding="utf-8")), taken)
    for line in found:
        print(line)
    print(f"{len(found)} differences from {args.compare}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
