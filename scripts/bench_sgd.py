"""Dialogue-state tracking on SGD (E2), any service, scored as SGD's own evaluation does.

    python scripts/bench_sgd.py                                  # every dev service, rules and learned
    python scripts/bench_sgd.py --service Restaurants_2 --modes rules,learned,llm,llm-only
    python scripts/bench_sgd.py --data train-single.json.gz --schema train-schema.json --per-service 20

The product's tracker (`WorkingMemory`) runs on the domain YAML that `monologue domain
import-sgd` writes for the dialogue's service; nothing in the tracker is bench-only.

- Each system turn is given to the tracker as the agent's own turn: its text, and the
  values it offered (OFFER of the item) or read back (CONFIRM) as what the agent
  offered, so a user's "yes, that works" confirms them (the agent in a live session
  knows what it offered; see `offered_values`).
- After each user turn the state is read back as SGD slot values: an enum value as it
  is (the import keeps SGD's own values), a True/False key as True/False (a negated
  True is False), a count as its digits, and a time or date as the user's words the
  condition came from (SGD's gold values are surface strings, "half past 11 in the
  morning"; the state keeps the normalised 11:30 as its value and the words beside it).
- Scores (`memory/domain/sgd_eval.py`): SGD's joint goal accuracy and a slot F1.

Modes:
- `rules`: the YAML from the schema's own words, no learned reader;
- `learned` (the embedded default): rules + the learned value reader + the value words
  mined from SGD train (`scripts/train_value_tagger.py`);
- `llm`: `learned` + the local LLM when the rules read nothing;
- `llm-only`: the LLM for every turn, rules off (zero-shot).
The LLM modes are slow (seconds a turn on a free CPU, minutes on a busy one), so they run
on `--llm-per-service` dialogues per service.

SGD data: Schema-Guided Dialogue dataset, CC BY-SA 4.0 (Google Research).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loguru import logger

from monologue.memory.domain.schema import DomainSchema, parse_schema
from monologue.memory.domain.sgd import import_service
from monologue.memory.domain.sgd_eval import Slot, Tally
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.engine import LLMMode, WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.extract import Extraction
from monologue.memory.working.state import Comparator, Condition, OfferedOption, SessionState
from monologue.memory.working.turn_classes import TurnClass, classify_turn

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "sgd"
MODES = ("rules", "learned", "llm", "llm-only")


class ZeroShot(WorkingMemory):
    """The zero-shot mode's tracker: the product's, with the rules reading nothing, so the
    LLM reads every turn (grounding, references and the agent's offers are as they are)."""

    def extract(self, text: str, state: SessionState | None,
                turn_class: str = TurnClass.INFORMATION_CHANGE) -> tuple[Extraction, str]:
        return Extraction(), self.schema.name


def load_dialogues(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return list(json.load(handle))


def domain_of(schemas: list[dict[str, Any]], service: str, learned: bool) -> DomainSchema:
    return parse_schema(import_service(schemas, service, learned=learned))


def offered_values(frame: Mapping[str, Any], required: set[str], slots: set[str],
                   read_back: dict[str, str]) -> list[OfferedOption]:
    """What the system turn offered (the item: a value of a slot some intent requires,
    such as the restaurant's name, not the attributes said with it; where no offered slot
    is required, the offered slots) or read back (CONFIRM), as one option (slot → value).
    Facts it reports (INFORM) are not offers. On SGD train a user's yes takes 95% of
    offered required slots, a tenth of the optional ones said beside them, all of the
    optional ones offered alone, and almost never an informed value.

    A read-back is of the whole booking: SGD's system turn names only what changed since
    its last one ("...at Simply Fondue in Livermore"), so `read_back` carries the rest."""
    acts = [act for act in frame.get("actions", ()) if act.get("values") and act["slot"] in slots]
    confirmed = {act["slot"]: act["values"][0] for act in acts if act["act"] == "CONFIRM"}
    if confirmed:
        read_back.update(confirmed)
        confirmed = dict(read_back)
    offers = [act for act in acts if act["act"] == "OFFER"]
    items = [act for act in offers if act["slot"] in required] or offers   # a flight is offered by its airline
    option = {act["slot"]: act["values"][0] for act in items}
    option.update(confirmed)
    return [OfferedOption(option)] if option else []


def said(condition: Condition, schema: DomainSchema) -> str | None:
    """A condition as SGD writes the slot's value, or None when it sets nothing."""
    spec = schema.key(condition.key)
    value = condition.value
    if spec.type == "enum" and set(spec.values) == {"True"}:
        if str(value) == "True":
            return "True" if condition.comparator == Comparator.EQ else "False"
        return "False" if str(value) == "False" else None
    if condition.comparator in (Comparator.NE, Comparator.EXCLUDES):
        return None
    if spec.type in ("time", "date") and condition.words and len(condition.words.split()) <= 8:
        return condition.words
    return str(value)


def predicted(state: SessionState, schema: DomainSchema) -> dict[str, str]:
    out: dict[str, str] = {}
    for condition in state.constraints.values():
        if condition.key in schema.keys and (value := said(condition, schema)) is not None:
            out[condition.key] = value
    return out


@dataclass(frozen=True)
class Service:
    """One SGD service as the tracker is scored on it."""

    schema: DomainSchema          # its slots as a domain schema
    slots: Sequence[Slot]         # the slots scored
    required: set[str]            # slots some intent of the service requires


async def run_dialogue(dialogue: dict[str, Any], service: Service, mode: str, llm: Any,
                       errors: list[dict[str, Any]] | None = None, llm_timeout: float = 120.0) -> Tally:
    schema, slots, required = service.schema, service.slots, service.required
    llm_mode: LLMMode = "always" if mode == "llm-only" else "auto" if mode == "llm" else "never"
    tracker = ZeroShot if mode == "llm-only" else WorkingMemory
    memory = tracker(dialogue["dialogue_id"], InMemoryStateStore(),
                     WorkingMemoryOptions(llm_mode=llm_mode, expire_after_turns=0, llm_timeout_secs=llm_timeout),
                     llm=llm if mode.startswith("llm") else None, schema=schema)
    names = set(schema.keys)
    tally = Tally()
    turn_id = 0
    read_back: dict[str, str] = {}
    for turn in dialogue["turns"]:
        frame = turn["frames"][0]
        if turn["speaker"] == "SYSTEM":
            await memory.record_agent_turn(turn["utterance"], turn=turn_id,
                                           offered=offered_values(frame, required, names, read_back))
            continue
        turn_id += 1
        text = turn["utterance"]
        cls = classify_turn(text, memory.reads_condition, schema=schema).turn_class   # as the pipeline does
        if cls.triggers_monologue:
            await memory.update(text, turn=turn_id, turn_class=cls.value)
        gold = frame["state"]["slot_values"]
        guess = predicted(memory.state, schema)
        joint = tally.add(slots, gold, guess)
        if errors is not None and joint < 1.0:
            errors.append({"dialogue": dialogue["dialogue_id"], "turn": turn_id, "text": text,
                           "gold": gold, "predicted": guess})
    return tally


def pick(dialogues: list[dict[str, Any]], per_service: int) -> list[dict[str, Any]]:
    """The first `per_service` dialogues of each service (0: all), in the file's order."""
    if not per_service:
        return dialogues
    seen: dict[str, int] = defaultdict(int)
    out = []
    for dialogue in dialogues:
        service = dialogue["services"][0]
        if seen[service] < per_service:
            seen[service] += 1
            out.append(dialogue)
    return out


async def run_mode(mode: str, dialogues: list[dict[str, Any]], schemas: list[dict[str, Any]], llm: Any,
                   errors: list[dict[str, Any]] | None, llm_timeout: float = 120.0) -> dict[str, Tally]:
    by_service: dict[str, Tally] = defaultdict(Tally)
    domains: dict[str, Service] = {}
    for dialogue in dialogues:
        service = dialogue["services"][0]
        if service not in domains:
            raw = next(s for s in schemas if s["service_name"] == service)
            slots = [Slot(s["name"], bool(s["is_categorical"])) for s in raw["slots"]]
            required = {name for intent in raw["intents"] for name in intent["required_slots"]}
            domains[service] = Service(domain_of(schemas, service, learned=mode != "rules"), slots, required)
        by_service[service].merge(await run_dialogue(dialogue, domains[service], mode, llm, errors, llm_timeout))
    return dict(by_service)


def table(results: dict[str, dict[str, Tally]], counts: dict[str, dict[str, int]]) -> str:
    modes = list(results)
    services = sorted({s for r in results.values() for s in r})
    head = "| service | " + " | ".join(f"{m} JGA | {m} F1" for m in modes) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(modes)]
    for service in services + ["overall"]:
        cells = []
        for mode in modes:
            if service == "overall":
                tally = Tally()
                for part in results[mode].values():
                    tally.merge(part)
            else:
                tally = results[mode].get(service, Tally())
            cells.append(f"{tally.jga:.3f} | {tally.f1:.3f}" if tally.frames else "– | –")
        lines.append(f"| {service} | " + " | ".join(cells) + " |")
    lines.append("| dialogues / user turns | " + " | ".join(
        f"{counts[m]['dialogues']} | {counts[m]['turns']}" for m in modes) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DATA / "dev-single.json.gz"), help="SGD dialogues (.json or .json.gz)")
    parser.add_argument("--schema", default=None, help="SGD schema.json (default: beside --data, by split)")
    parser.add_argument("--service", action="append", help="only this service (repeatable; default: all)")
    parser.add_argument("--modes", default="rules,learned", help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--per-service", type=int, default=0, help="dialogues per service (0: all)")
    parser.add_argument("--llm-per-service", type=int, default=3, help="dialogues per service for the LLM modes")
    parser.add_argument("--llm-timeout", type=float, default=120.0, help="seconds for one LLM answer")
    parser.add_argument("--llm", default="local/qwen2.5-0.5b-instruct", help="litellm model string")
    parser.add_argument("--errors", help="write the turns the learned mode got wrong to this JSONL file")
    args = parser.parse_args()
    logger.remove()               # the tracker's per-turn notes (rejected read-backs) would drown the table
    logger.add(sys.stderr, level="WARNING")
    data = Path(args.data)
    schema_path = Path(args.schema) if args.schema else data.parent / (
        ("train" if data.name.startswith("train") else "dev") + "-schema.json")
    if not data.is_file() or not schema_path.is_file():
        raise SystemExit(f"no SGD data at {data} / {schema_path}; pass --data and --schema")
    schemas = json.loads(schema_path.read_text(encoding="utf-8"))
    dialogues = [d for d in load_dialogues(data) if len(d["services"]) == 1
                 and (not args.service or d["services"][0] in args.service)]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - set(MODES)
    if unknown:
        raise SystemExit(f"unknown modes {sorted(unknown)}; use {', '.join(MODES)}")
    llm = None
    if any(m.startswith("llm") for m in modes):
        from monologue.configs import LLMOptions
        from monologue.models.chat import ChatLLM

        llm = ChatLLM(LLMOptions(model=args.llm, fallback=None, max_tokens=160, temperature=0.0,
                                 timeout_secs=args.llm_timeout))
        llm.prepare()
    results: dict[str, dict[str, Tally]] = {}
    counts: dict[str, dict[str, int]] = {}
    errors: list[dict[str, Any]] = []
    for mode in modes:
        subset = pick(dialogues, args.llm_per_service if mode.startswith("llm") else args.per_service)
        label = f"{mode} ({args.llm_per_service}/service)" if mode.startswith("llm") else mode
        started = time.perf_counter()
        results[label] = asyncio.run(run_mode(mode, subset, schemas, llm,
                                              errors if mode == "learned" and args.errors else None,
                                              args.llm_timeout))
        counts[label] = {"dialogues": len(subset), "turns": sum(t.frames for t in results[label].values())}
        print(f"{label}: {time.perf_counter() - started:.0f} s", flush=True)
    print(f"\n## SGD dialogue-state tracking — {data.name} ({schema_path.name})\n")
    print(table(results, counts))
    for label, by_service in results.items():
        missed: dict[str, int] = defaultdict(int)
        for service, tally in by_service.items():
            for slot, n in tally.missed.items():
                missed[f"{service}.{slot}"] += n
        worst = sorted(missed.items(), key=lambda item: -item[1])[:12]
        print(f"\nslots that cost the joint score most ({label}): " + ", ".join(f"{s} {n}" for s, n in worst))
    if args.errors:
        Path(args.errors).write_text("".join(json.dumps(e) + "\n" for e in errors), encoding="utf-8")


if __name__ == "__main__":
    main()
