"""Precision and recall of the name detector (U4) on sentences labelled by hand.

    python scripts/bench_deid.py [--show]

Three sets in tests/data, things a user says to a voice agent with the people and places in
each (and sentences with none): `deid_labelled.json` (80, 40 English and 40 Chinese; the
rules were written on it), `deid_heldout.json` (30, written afterwards by the same author:
optimistic) and `deid_blind.json` (60, written by someone who never saw the rules; before
any fix it scored P 0.72 / R 0.57, the general bugs it showed were then fixed). A found name
counts only if it is exactly a labelled one, of the same kind.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from monologue.memory.longterm.deidentify import detector_scores, find_names

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print each sentence the detector gets wrong")
    args = parser.parse_args()
    print("| set | language | names | precision | recall |\n|---|---|---|---|---|")
    for name in ("deid_labelled", "deid_heldout", "deid_blind"):
        items = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        for language, r in detector_scores(items).items():
            print(f"| {name} | {language} | {r['names']:.0f} | {r['precision']:.2f} | {r['recall']:.2f} |")
        for item in items if args.show else []:
            want = {(k, n) for k, n in item["names"]}
            got = {(f.kind, f.text) for f in find_names(item["text"])}
            if want != got:
                print(f"  {item['text']}: missed {sorted(want - got)}, wrong {sorted(got - want)}")


if __name__ == "__main__":
    main()
