"""How often a place's name survives the ASR, written or heard by its sound, and how often
ordinary words are taken for one.

Recall: the agent's own sentences that name a Beijing restaurant, spoken by the Mandarin voice
and heard back by the bundled ASR (the round trip `scripts/bench_tts.py` saves as
`zh_heard.json`): for each place the sentence names, is it found in the transcript, as written
only (before) and as written or heard (`NameFinder.find`, now)?

False alarms: the user turns of CrossWOZ's validation dialogues (real people, typed, so every
name in them is as written): names found by sound that the text does not name as written.

Usage: python scripts/bench_names_heard.py OUT_DIR [OUT_DIR …] [--crosswoz ../shared/data/crosswoz/val.json.zip]
(OUT_DIR: where `bench_tts.py --out` put zh_heard.json.)
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path

from monologue.memory.domain.catalogue import load_catalogue
from monologue.memory.language.names import NameFinder


def recall(finder: NameFinder, heard_json: Path) -> dict[str, int]:
    counts = {"names": 0, "as_written": 0, "written_or_heard": 0, "wrong": 0}
    for item in json.loads(heard_json.read_text(encoding="utf-8"))["items"]:
        said = {f.value for f in finder.written(item["text"])}
        if not said:
            continue
        written = {f.value for f in finder.written(item["heard"])}
        found = {f.value for f in finder.find(item["heard"])}
        counts["names"] += len(said)
        counts["as_written"] += len(said & written)
        counts["written_or_heard"] += len(said & found)
        counts["wrong"] += len(found - said)
    return counts


def false_alarms(finder: NameFinder, crosswoz: Path) -> tuple[int, list[str]]:
    with zipfile.ZipFile(crosswoz) as archive:
        dialogues = json.loads(archive.read(archive.namelist()[0]))
    turns, alarms = 0, []
    for dialogue in dialogues.values():
        for message in dialogue["messages"]:
            if message["role"] != "usr":
                continue
            turns += 1
            text = message["content"]
            written = {f.value for f in finder.written(text)}
            if any(f.value not in written for f in finder.find(text)):
                alarms.append(text)
    return turns, alarms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outs", nargs="*", type=Path, help="bench_tts.py output folders (zh_heard.json)")
    parser.add_argument("--crosswoz", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "data" / "crosswoz" / "val.json.zip")
    args = parser.parse_args()
    finder = NameFinder(load_catalogue("beijing_restaurants").in_language("zh").said_names())
    for out in args.outs:
        heard = out / "zh_heard.json"
        if not heard.is_file():
            sys.exit(f"no {heard}: run python scripts/bench_tts.py --languages zh --out {out} first")
        c = recall(finder, heard)
        print(f"{out}: places named {c['names']}; found as written {c['as_written']}, "
              f"written or heard {c['written_or_heard']}; wrong places {c['wrong']}")
    if args.crosswoz.is_file():
        turns, alarms = false_alarms(finder, args.crosswoz)
        print(f"CrossWOZ val user turns: {turns}; a name heard where none is written: {len(alarms)}")
        for text in alarms[:10]:
            print("  ", text)
    else:
        print(f"no {args.crosswoz}: false alarms not measured")


if __name__ == "__main__":
    main()
