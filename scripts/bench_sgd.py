"""Dialogue-state tracking on SGD restaurant dialogues (E2): rules only vs rules + LLM.

    python scripts/bench_sgd.py --data ../shared/data/sgd [--limit 40] [--llm-limit 20]

After every user turn, Monologue's working state is compared with SGD's gold
`state.slot_values` for the Restaurants_2 service, mapped to Monologue's keys. The
system's turns are given to the tracker as what the agent read back (a "yes" then
confirms them), as in the live pipeline. Reports joint goal accuracy (every tracked
slot right) and slot precision/recall/F1, per mode, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from monologue.memory.language.numbers import en_to_int, normalise_date, normalise_time
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.engine import LLMMode, WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.turn_classes import classify_turn

# SGD slot → (Monologue key, comparator, value transform)
SLOT_MAP = {
    "number_of_seats": "party_size",
    "time": "time",
    "date": "date",
    "location": "location",
    "restaurant_name": "restaurant_name",
    "category": "cuisine",
    "price_range": "price_range",
    "has_vegetarian_options": "dietary:vegetarian",
    "has_seating_outdoors": "seating",
}


def norm(slot: str, value: Any) -> str:
    text = str(value).strip().lower()
    if slot == "number_of_seats":
        number = en_to_int(text)
        return str(number) if number is not None else text
    if slot == "time":
        return normalise_time(text) or text
    if slot == "date":
        return normalise_date(text) or text
    if slot == "price_range":
        return {"inexpensive": "cheap", "expensive": "pricey", "ultra high-end": "ultra_high_end"}.get(text, text)
    if slot == "has_vegetarian_options":
        return "true" if text in ("true", "includes", "vegetarian") else "false"
    if slot == "has_seating_outdoors":
        return "true" if text in ("true", "outdoor") else "false"
    return text.replace("_", " ")


def predicted(memory: WorkingMemory) -> dict[str, str]:
    out: dict[str, str] = {}
    for condition in memory.state.constraints.values():
        for slot, key in SLOT_MAP.items():
            if key == "dietary:vegetarian" and condition.slot == key:
                out[slot] = norm(slot, "true" if condition.comparator == "includes" else "false")
            elif key == "seating" and condition.key == "seating":
                if condition.value == "outdoor":
                    out[slot] = "true" if condition.comparator == "=" else "false"
            elif condition.key == key and key not in ("dietary:vegetarian", "seating"):
                out[slot] = norm(slot, condition.value)
    return out


def gold_of(frame: dict[str, Any]) -> dict[str, set[str]]:
    values = frame.get("state", {}).get("slot_values", {})
    return {slot: {norm(slot, v) for v in vals} for slot, vals in values.items() if slot in SLOT_MAP}


async def run_dialogue(dialogue: dict[str, Any], llm: Any,
                       mode: LLMMode) -> list[tuple[dict[str, str], dict[str, set[str]]]]:
    memory = WorkingMemory(dialogue["dialogue_id"], InMemoryStateStore(),
                           WorkingMemoryOptions(llm_mode=mode, expire_after_turns=0), llm=llm)
    pairs = []
    turn_id = 0
    for turn in dialogue["turns"]:
        if turn["speaker"] == "SYSTEM":
            await memory.record_agent_turn(turn["utterance"], turn=turn_id)
            continue
        turn_id += 1
        frame = next((f for f in turn["frames"] if f["service"].startswith("Restaurants")), None)
        text = turn["utterance"]
        cls = classify_turn(text, memory.rules.reads_condition, schema=memory.schema).turn_class
        if cls.triggers_monologue:
            await memory.update(text, turn=turn_id, turn_class=cls.value)
        if frame is not None:
            pairs.append((predicted(memory), gold_of(frame)))
    return pairs


def score(pairs: list[tuple[dict[str, str], dict[str, set[str]]]]) -> dict[str, float]:
    joint = tp = fp = fn = 0
    for pred, gold in pairs:
        right = all(slot in pred and pred[slot] in vals for slot, vals in gold.items()) and set(pred) <= set(gold)
        joint += right
        for slot, value in pred.items():
            if slot in gold and value in gold[slot]:
                tp += 1
            else:
                fp += 1
        fn += sum(1 for slot, vals in gold.items() if pred.get(slot) not in vals)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"turns": len(pairs), "jga": joint / len(pairs) if pairs else 0.0,
            "precision": precision, "recall": recall, "f1": f1}


def per_slot(pairs) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for pred, gold in pairs:
        for slot, vals in gold.items():
            entry = counts.setdefault(slot, [0, 0])
            entry[1] += 1
            entry[0] += pred.get(slot) in vals
    return {k: (v[0], v[1]) for k, v in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "sgd"))
    parser.add_argument("--limit", type=int, default=0, help="dialogues for the rules-only run (0: all)")
    parser.add_argument("--llm-limit", type=int, default=20, help="dialogues for the rules + LLM run (0: skip)")
    parser.add_argument("--llm", default="local/qwen2.5-0.5b-instruct", help="litellm model string")
    args = parser.parse_args()
    path = Path(args.data)
    path = path / "dev-restaurants.json" if path.is_dir() else path
    if not path.is_file():
        raise SystemExit(f"no SGD data at {path}; pass --data ../shared/data/sgd")
    dialogues = json.loads(path.read_text())
    subset = dialogues[: args.limit] if args.limit else dialogues

    async def run(mode: LLMMode, llm: Any, items: list[dict[str, Any]]) -> Any:
        all_pairs, started = [], time.perf_counter()
        for dialogue in items:
            all_pairs += await run_dialogue(dialogue, llm, mode)
        return all_pairs, time.perf_counter() - started

    rows = []
    rules_pairs, rules_secs = asyncio.run(run("never", None, subset))
    rows.append(("rules only", len(subset), score(rules_pairs), rules_secs))
    if args.llm_limit:
        from monologue.configs import LLMOptions
        from monologue.models.chat import ChatLLM

        llm = ChatLLM(LLMOptions(model=args.llm, fallback=None, max_tokens=160, temperature=0.0, timeout_secs=60))
        llm.prepare()
        head = dialogues[: args.llm_limit]
        same_rules, _ = asyncio.run(run("never", None, head))
        rows.append((f"rules only (first {len(head)})", len(head), score(same_rules), 0.0))
        llm_pairs, llm_secs = asyncio.run(run("auto", llm, head))
        rows.append((f"rules + {args.llm} (first {len(head)})", len(head), score(llm_pairs), llm_secs))
    print(f"\n## SGD dialogue-state tracking — {path.name} (Restaurants_2 slots)")
    print("\n| tracker | dialogues | user turns | JGA | slot P | slot R | slot F1 | time (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, s, secs in rows:
        print(f"| {name} | {n} | {s['turns']} | {s['jga']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} | "
              f"{s['f1']:.3f} | {secs:.1f} |")
    print("\nper-slot accuracy (rules only): " + ", ".join(
        f"{slot} {right}/{total}" for slot, (right, total) in sorted(per_slot(rules_pairs).items())))


if __name__ == "__main__":
    main()
