"""Fit the open-value reader (`memory/working/values.py`) on SGD's training dialogues.

    python scripts/train_value_tagger.py [--data ../shared/data/sgd] [--epochs 4]

Writes `models/weights/value_tagger.npz`. Two averaged perceptrons over hashed
features: the BIO tagger on every user turn's non-categorical spans, and the key
ranker on each span against the open keys of the service's imported domain YAML (the
same import a user runs, so the ranker sees keys only as the product does).

Data: the Schema-Guided Dialogue dataset (Google Research), CC BY-SA 4.0; only the
fitted weights are kept in the repository, never the dialogues.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from monologue.memory.domain.schema import DomainSchema, parse_schema
from monologue.memory.domain.sgd import VALUE_WORDS, import_service
from monologue.memory.working.values import (
    DIM,
    TAGS,
    WEIGHTS,
    ValueModel,
    content_words,
    feature_ids,
    key_features,
    learned_keys,
    token_features,
    tokens,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "sgd"


class Averaged:
    """An averaged perceptron's weights: w, and the running sum for the average."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.w = np.zeros(shape, dtype=np.float32)
        self.u = np.zeros(shape, dtype=np.float32)
        self.t = 1

    def update(self, ids: np.ndarray, delta: float, column: int | None = None) -> None:
        if column is None:
            np.add.at(self.w, ids, delta)
            np.add.at(self.u, ids, self.t * delta)
        else:
            np.add.at(self.w[:, column], ids, delta)
            np.add.at(self.u[:, column], ids, self.t * delta)

    def averaged(self) -> np.ndarray:
        return self.w - self.u / self.t


def examples(path: Path, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One per user turn: words, gold tags, the agent's words before, and the gold spans."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        dialogues = json.load(handle)
    domains: dict[str, DomainSchema] = {}
    out = []
    for dialogue in dialogues:
        service = dialogue["services"][0]
        if service not in domains:
            domains[service] = parse_schema(import_service(schemas, service))
        agent_text, previous = "", dict[str, list[str]]()
        for turn in dialogue["turns"]:
            frame = turn["frames"][0]
            if turn["speaker"] == "SYSTEM":
                agent_text = turn["utterance"]
                continue
            toks = tokens(turn["utterance"])
            tags = ["O"] * len(toks)
            spans: list[tuple[str, int, int]] = []
            choices: list[tuple[str, int, int, str]] = []
            for slot in frame["slots"]:
                inside = [i for i, (_w, s, e) in enumerate(toks) if s >= slot["start"] and e <= slot["exclusive_end"]]
                if not inside:
                    continue
                tags[inside[0]] = "B"
                for i in inside[1:]:
                    tags[i] = "I"
                spans.append((slot["slot"], inside[0], inside[-1] + 1))
            lowered = [w.lower() for w, _s, _e in toks]
            for act in frame["actions"]:     # a categorical value said in words ("my savings")
                if act["act"] != "INFORM" or not act["values"] or act["slot"] in {s[0] for s in spans}:
                    continue
                said = [w.lower() for w, _s, _e in tokens(act["values"][0])]
                at = next((i for i in range(len(lowered)) if said and lowered[i:i + len(said)] == said), None)
                if at is not None:
                    # Not tagged: as a span the tagger would also mark listed values, and the
                    # ranker would give them to open keys (measured: dev JGA 0.620 → 0.616).
                    choices.append((act["slot"], at, at + len(said), act["values"][0]))
            out.append({"service": service, "words": [w for w, _s, _e in toks], "tags": tags, "spans": spans,
                        "agent": frozenset(content_words(agent_text)[:10]), "filled": set(previous),
                        "choices": choices})
            previous = frame["state"]["slot_values"]
    # A third of the turns again in lower case: a transcript or a hurried typist does not
    # capitalise names ("book a table at simply fondue"), so the tagger must not need it.
    lowered_copies = [dict(ex, words=[w.lower() for w in ex["words"]]) for ex in out[::3]]
    out += lowered_copies
    for example in out:
        example["specs"] = learned_keys(domains[example["service"]])
        example["enums"] = [s for s in domains[example["service"]].keys.values() if s.values]
    return out


def train_tagger(data: list[dict[str, Any]], epochs: int) -> np.ndarray:
    model = Averaged((DIM, len(TAGS)))
    for epoch in range(epochs):
        random.Random(epoch).shuffle(data)
        errors = total = 0
        for ex in data:
            words, gold, prev = ex["words"], ex["tags"], "O"
            for i in range(len(words)):
                ids = feature_ids(token_features(words, i, prev, ex["agent"]))
                scores = model.w[ids].sum(axis=0)
                if prev == "O":
                    scores[2] = -np.inf
                guess = TAGS[int(np.argmax(scores))]
                if guess != gold[i]:
                    model.update(ids, 1.0, TAGS.index(gold[i]))
                    model.update(ids, -1.0, TAGS.index(guess))
                    errors += 1
                total += 1
                model.t += 1
                prev = guess
        print(f"tagger epoch {epoch + 1}: token error {errors / max(total, 1):.4f}", flush=True)
    return model.averaged()


def _rank_step(model: Averaged, feats: dict[str, np.ndarray], gold: str) -> int:
    guess = max(feats, key=lambda n: float(model.w[feats[n]].sum()))
    if guess != gold:
        model.update(feats[gold], 1.0)
        model.update(feats[guess], -1.0)
    model.t += 1
    return int(guess != gold)


def train_ranker(data: list[dict[str, Any]], epochs: int) -> np.ndarray:
    model = Averaged((DIM,))
    for epoch in range(epochs):
        random.Random(100 + epoch).shuffle(data)
        errors = total = 0
        for ex in data:
            names = {s.name for s in ex["specs"]}
            for slot, start, end in ex["spans"]:
                if slot not in names or len(names) < 2:
                    continue
                feats = {s.name: feature_ids(key_features(s, ex["words"], start, end, ex["agent"],
                                                           s.name in ex["filled"])) for s in ex["specs"]}
                errors += _rank_step(model, feats, slot)
                total += 1
            for slot, start, end, value in ex["choices"]:
                # Keys that share the value ("savings": the user's account or the recipient's).
                specs = [s for s in ex["enums"] if value in s.values]
                if len(specs) < 2 or slot not in {s.name for s in specs}:
                    continue
                feats = {s.name: feature_ids(key_features(s, ex["words"], start, end, ex["agent"],
                                                           s.name in ex["filled"])) for s in specs}
                errors += _rank_step(model, feats, slot)
                total += 1
        print(f"ranker epoch {epoch + 1}: key error {errors / max(total, 1):.4f}", flush=True)
    return model.averaged()


def value_words(path: Path, schemas: list[dict[str, Any]], least: int = 8, share: float = 0.7) -> dict[str, list[str]]:
    """Words users say for a listed value without saying it ("a concert" → Music, "a small
    car" → Compact): a word goes with a value when it came with that value, not said, in at
    least `least` turns and in `share` of all the turns that have it. Yes/no and count
    values are left out (the keys' own words and the numbers read those)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        dialogues = json.load(handle)
    services = {s["service_name"]: s for s in schemas}
    with_word: Counter[str] = Counter()
    with_value: Counter[tuple[str, str]] = Counter()
    for dialogue in dialogues:
        listed = {s["name"] for s in services[dialogue["services"][0]]["slots"] if s["is_categorical"]}
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            said = turn["utterance"].lower()
            words = set(content_words(said))
            with_word.update(words)
            for act in turn["frames"][0]["actions"]:
                value = act["values"][0].lower() if act["values"] else ""
                if (act["act"] != "INFORM" or act["slot"] not in listed or not value or value in said
                        or value in ("true", "false", "dontcare", "none") or value.isdigit()):
                    continue
                with_value.update((word, value) for word in words)
    # A word that is part of another value's name ("sized", of "full-size") names that one.
    names = {w for s in schemas for slot in s["slots"] for v in slot["possible_values"]
             for w in re.findall(r"[a-z]+", v.lower()) if len(w) >= 4}
    found: dict[str, list[str]] = {}
    for (word, value), count in sorted(with_value.items()):
        if (count >= least and count >= share * with_word[word] and len(word) >= 4 and re.fullmatch(r"[a-z]+", word)
                and not any(word.startswith(n) or n.startswith(word) for n in names)):
            found.setdefault(value, []).append(word)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--out", default=str(WEIGHTS))
    args = parser.parse_args()
    folder = Path(args.data)
    started = time.perf_counter()
    data = examples(folder / "train-single.json.gz", json.loads((folder / "train-schema.json").read_text()))
    print(f"{len(data)} user turns from {folder}", flush=True)
    tagger = train_tagger(data, args.epochs)
    ranker = train_ranker(data, args.epochs)
    ValueModel(tagger, ranker).save(Path(args.out))
    words = value_words(folder / "train-single.json.gz", json.loads((folder / "train-schema.json").read_text()))
    VALUE_WORDS.write_text(json.dumps(words, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {VALUE_WORDS}: {words}")
    size = Path(args.out).stat().st_size / 1e6
    print(f"wrote {args.out} ({size:.1f} MB) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
