"""Requests the domain cannot do, told apart from the ones it can: measured on real users' words.

    python scripts/bench_beyond.py                 # the table
    python scripts/bench_beyond.py --show 20       # …and the turns flagged, to read

A turn that asks the agent to do something in words its domain does not know (帮我叫辆出租车,
"open the sunroof") is answered "that's not something I can do" (`Act.CANT_DO`), where it had
been answered "I see", as if it would be done. A false alarm tells a user who asked for something
the agent does do that it cannot: the worse error. So this counts, on turns nobody here wrote:

- false alarms: real users' turns *in* the domain (SGD dev's restaurant dialogues; CrossWOZ's
  validation turns about restaurants) that the agent would decline;
- found: the first turn of real dialogues about other services (SGD dev: rides, music, flights,
  weather, alarms…; CrossWOZ: hotels, sights, taxis, the metro), put to the restaurant agent and to
  the in-car one, which should decline them (a question about the world is answered, not declined,
  so the share found is the share of requests among them, at most).

The gate is the policy's (`dialogue/policy.py`): a request (`memory_cues.REQUEST`) with words the
domain does not know (`memory/working/wishes.asks_beyond`), from which the rules read nothing, that
is no question, no yes or no, and asks for no options. The state is empty here, so what a live
session would read from earlier turns is not counted.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from monologue.memory.working.extract import RuleExtractor

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SGD_DEV = DATA / "sgd" / "dev-single.json.gz"
CROSSWOZ_VAL = DATA / "crosswoz" / "val.json.zip"
CROSSWOZ_RESTAURANT = "餐馆"


def declined(schema_name: str, text: str, language: str) -> bool:
    """Whether the policy would answer `text`, said first, with CANT_DO."""
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.language.cues import GO_AHEAD, WANTS_OPTIONS, yes_or_no
    from monologue.memory.language.stances import asks_for_information, is_query, sentences_with_offsets
    from monologue.memory.working.state import Op
    from monologue.memory.working.wishes import asks_beyond

    schema = load_schema(schema_name)
    if not asks_beyond(schema, text, language):
        return False
    if any(op.op in (Op.SET, Op.WITHDRAW) for op in _extractor(schema_name).extract(text).operations):
        return False
    if any(asks_for_information(s) or is_query(s) for _, s in sentences_with_offsets(text)):
        return False
    return yes_or_no(text) is None and not WANTS_OPTIONS.search(text) and not GO_AHEAD.search(text)


@functools.lru_cache(maxsize=4)
def _extractor(schema_name: str) -> RuleExtractor:
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor

    return RuleExtractor(load_schema(schema_name))


def sgd_turns(path: Path = SGD_DEV) -> tuple[list[str], list[str]]:
    """(user turns of restaurant dialogues, first user turns of dialogues about other services)."""
    dialogues = json.loads(gzip.open(path).read())
    inside, outside = [], []
    for dialogue in dialogues:
        users = [t["utterance"] for t in dialogue["turns"] if t["speaker"] == "USER"]
        if any(s.startswith("Restaurants") for s in dialogue["services"]):
            inside += users
        elif users:
            outside.append(users[0])
    return inside, outside


def crosswoz_turns() -> tuple[list[str], list[str]]:
    """(user turns about restaurants, first user turns of dialogues with no restaurant in them)."""
    archive = zipfile.ZipFile(CROSSWOZ_VAL)
    dialogues = json.loads(archive.read(archive.namelist()[0]))
    inside, outside = [], []
    for dialogue in dialogues.values():
        users = [m for m in dialogue["messages"] if m["role"] == "usr"]
        domains = {act[1] for m in users for act in m["dialog_act"]}
        for message in users:
            if any(act[1] == CROSSWOZ_RESTAURANT for act in message["dialog_act"]):
                inside.append(message["content"])
        if users and CROSSWOZ_RESTAURANT not in domains:
            outside.append(users[0]["content"])
    return inside, outside


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N flagged turns of each row")
    parser.add_argument("--sgd", default=str(SGD_DEV),
                        help="SGD dialogues (dev-single.json.gz; train-single.json.gz is a larger set)")
    args = parser.parse_args()
    sgd = Path(args.sgd)
    if not sgd.is_file() or not CROSSWOZ_VAL.is_file():
        print(f"needs {sgd} and {CROSSWOZ_VAL} (the shared data folder beside the project)", file=sys.stderr)
        return 2
    sgd_in, sgd_out = sgd_turns(sgd)
    woz_in, woz_out = crosswoz_turns()
    name = sgd.name.split("-")[0]
    rows = [
        (f"false alarms: SGD {name} restaurant user turns, restaurant agent", "restaurant", "en", sgd_in),
        ("false alarms: CrossWOZ val restaurant user turns, restaurant agent", "restaurant", "zh", woz_in),
        (f"found: SGD {name}, other services' first turns, restaurant agent", "restaurant", "en", sgd_out),
        (f"found: SGD {name}, other services' first turns, in-car agent", "in_car", "en", sgd_out),
        ("found: CrossWOZ val, non-restaurant first turns, restaurant agent", "restaurant", "zh", woz_out),
    ]
    print("| | turns | declined | share |\n|---|---:|---:|---:|")
    shown: list[tuple[str, list[str]]] = []
    for title, domain, language, turns in rows:
        flagged = [t for t in turns if declined(domain, t, language)]
        print(f"| {title} | {len(turns)} | {len(flagged)} | {100 * len(flagged) / max(len(turns), 1):.1f}% |")
        shown.append((title, flagged))
    for title, flagged in shown if args.show else []:
        print(f"\n{title}:")
        for text in flagged[: args.show]:
            print("  ", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
