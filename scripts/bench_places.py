"""Where a driver asks to go, said by its name: measured on real users' words.

    python scripts/bench_places.py                  # the table (SGD dev, CrossWOZ's held-out half)
    python scripts/bench_places.py --sgd ../shared/data/sgd/train-single.json.gz --crosswoz tune
    python scripts/bench_places.py --show 30        # …and the turns, to read

The in-car agent reads a place no list holds as the destination (`memory/language/places.py`:
capitalised words after "take me to" in English; the nouns after 导航到, 去, 到 in Chinese). Real
users' turns whose annotation names a destination, and which say it, measure what it finds:

- SGD (English): user turns of the ride-sharing dialogues with an INFORM of `destination`;
- CrossWOZ (Chinese): user turns with an Inform of a taxi's or the metro's 目的地 (从A到B).

A read counts as found where it is the annotated place, and as part of it where it is a piece
of it (庆丰包子铺 of 庆丰包子铺(前门店)). Every other destination read, in every other user turn of
the same data (restaurants, hotels, flights, music…), is listed with `--show` to be read: most
are places the user does want to go to (a hotel, a city), which a driver would mean too; a read
that is no place at all is the error to count.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SGD_DEV = DATA / "sgd" / "dev-single.json.gz"
CROSSWOZ_VAL = DATA / "crosswoz" / "val.json.zip"


def sgd_turns(path: Path) -> list[tuple[str, str | None]]:
    """(user turn, the destination it says, if annotated) for every user turn."""
    turns: list[tuple[str, str | None]] = []
    for dialogue in json.loads(gzip.open(path).read()):
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            said = None
            for frame in turn["frames"]:
                if frame["service"].startswith("RideSharing"):
                    for action in frame["actions"]:
                        if action["act"] == "INFORM" and action["slot"] == "destination" and action["values"]:
                            said = action["values"][0]
            turns.append((turn["utterance"], said if said and said in turn["utterance"] else None))
    return turns


def crosswoz_turns(part: str) -> list[tuple[str, str | None]]:
    """CrossWOZ has no training dialogues here: its validation dialogues are halved, the even
    ones to tune on, the odd ones held out."""
    archive = zipfile.ZipFile(CROSSWOZ_VAL)
    turns: list[tuple[str, str | None]] = []
    dialogues = json.loads(archive.read(archive.namelist()[0]))
    for index, key in enumerate(sorted(dialogues)):
        if (index % 2 == 0) != (part == "tune"):
            continue
        dialogue = dialogues[key]
        for message in dialogue["messages"]:
            if message["role"] != "usr":
                continue
            said = None
            for act in message["dialog_act"]:
                if act[0] == "Inform" and act[1] in ("出租", "地铁") and act[2] == "目的地" \
                        and act[3] in message["content"]:
                    said = act[3]
            turns.append((message["content"], said))
    return turns


def read_destination(extractor: Any, text: str) -> str | None:
    from monologue.memory.working.state import Op

    for op in extractor.extract(text).operations:
        if op.op == Op.SET and op.key == "destination":
            return str(op.value)
    return None


def score(name: str, extractor: Any, turns: list[tuple[str, str | None]], show: int,
          rng: random.Random) -> dict[str, Any]:
    found = part = missed = wrong = 0
    elsewhere: list[tuple[str, str]] = []
    misses: list[tuple[str, str, str | None]] = []
    for text, truth in turns:
        read = read_destination(extractor, text)
        if truth is not None:
            if read is not None and read.casefold() == truth.casefold():
                found += 1
            elif read is not None and len(read) >= 2 and read.casefold() in truth.casefold():
                part += 1
            else:
                if read is None:
                    missed += 1
                else:
                    wrong += 1
                misses.append((text, truth, read))
        elif read is not None:
            elsewhere.append((text, read))
    annotated = found + part + missed + wrong
    row = {"data": name, "annotated": annotated, "found": found, "part": part, "other place read": wrong,
           "missed": missed, "turns": len(turns), "read elsewhere": len(elsewhere)}
    if show:
        print(f"\n## {name}: missed or read otherwise")
        for text, truth, read in rng.sample(misses, min(show, len(misses))):
            print(f"  {text!r}\n      annotated {truth!r}, read {read!r}")
        print(f"\n## {name}: read where no destination is annotated")
        for text, read in rng.sample(elsewhere, min(show, len(elsewhere))):
            print(f"  {text!r}\n      read {read!r}")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sgd", default=str(SGD_DEV), help="SGD dialogues (dev by default; train to tune on)")
    parser.add_argument("--show", type=int, default=0, help="print this many turns of each kind, to read")
    parser.add_argument("--crosswoz", choices=("heldout", "tune"), default="heldout",
                        help="which half of CrossWOZ's validation dialogues (the held-out one by default)")
    args = parser.parse_args()
    sgd = Path(args.sgd)
    if not sgd.is_file() or not CROSSWOZ_VAL.is_file():
        print(f"needs {sgd} and {CROSSWOZ_VAL} (the shared data folder beside the project)", file=sys.stderr)
        return 2
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor

    extractor = RuleExtractor(load_schema("in_car"))
    rng = random.Random(0)
    rows = [score(f"SGD {sgd.name.split('-')[0]} (en)", extractor, sgd_turns(sgd), args.show, rng),
            score(f"CrossWOZ val, {args.crosswoz} half (zh)", extractor, crosswoz_turns(args.crosswoz), args.show, rng)]
    print()
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
