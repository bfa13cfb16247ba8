"""SGD's own scoring of dialogue-state tracking, re-implemented without its dependencies.

As google-research `schema_guided_dst/metrics.py` scores a frame:

- every slot of the service is scored, active in the gold state or not: a slot that is
  off in both scores 1, on in only one scores 0;
- a categorical slot scores 1 when the prediction equals the first gold value;
- a non-categorical slot scores the best fuzzy match against any of the gold values
  (`fuzz.token_sort_ratio / 100`: the words sorted, then difflib's ratio, which is what
  fuzzywuzzy computes without its optional C speed-up);
- joint goal accuracy is the product of a frame's slot scores (so a near-miss name
  costs a fraction, not the whole turn), averaged over frames.

Slot F1 (not one of SGD's numbers, which are per-slot accuracies): a predicted slot is a
true positive weighted by its score, so precision = Σscore / predicted, recall = Σscore / gold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

_NOT_ALNUM = re.compile(r"(?ui)\W")


def _processed(text: str) -> str:
    return _NOT_ALNUM.sub(" ", text).lower().strip()


def token_sort_ratio(a: str, b: str) -> int:
    """fuzzywuzzy's `token_sort_ratio` (0–100)."""
    left = " ".join(sorted(_processed(a).split()))
    right = " ".join(sorted(_processed(b).split()))
    if not left or not right:
        return 0
    return int(round(100 * SequenceMatcher(None, left, right).ratio()))


def noncat_match(gold: Sequence[str], predicted: str) -> float:
    """The best fuzzy score of `predicted` against any of the gold values."""
    return max((token_sort_ratio(g, predicted) / 100.0 for g in gold), default=0.0)


@dataclass(frozen=True)
class Slot:
    name: str
    categorical: bool


def slot_scores(slots: Iterable[Slot], gold: Mapping[str, Sequence[str]],
                predicted: Mapping[str, str]) -> dict[str, float]:
    """One score per slot of the service, as `compare_slot_values` computes it."""
    scores: dict[str, float] = {}
    for slot in slots:
        if slot.name in gold:
            if slot.name not in predicted:
                scores[slot.name] = 0.0
            elif slot.categorical:
                scores[slot.name] = float(gold[slot.name][0] == predicted[slot.name])
            else:
                scores[slot.name] = noncat_match(gold[slot.name], predicted[slot.name])
        else:
            scores[slot.name] = 0.0 if slot.name in predicted else 1.0
    return scores


@dataclass
class Tally:
    """Running totals over frames: joint goal accuracy and slot precision/recall/F1."""

    frames: int = 0
    joint: float = 0.0
    matched: float = 0.0
    predicted: int = 0
    gold: int = 0
    missed: dict[str, int] = field(default_factory=dict)   # slot → frames where it cost the joint score

    def add(self, slots: Sequence[Slot], gold: Mapping[str, Sequence[str]], predicted: Mapping[str, str]) -> float:
        scores = slot_scores(slots, gold, predicted)
        joint = 1.0
        for value in scores.values():
            joint *= value
        self.frames += 1
        self.joint += joint
        names = {slot.name for slot in slots}
        self.predicted += sum(1 for name in predicted if name in names)
        self.gold += sum(1 for name in gold if name in names)
        self.matched += sum(scores[name] for name in predicted if name in gold and name in names)
        for name, value in scores.items():
            if value < 1.0:
                self.missed[name] = self.missed.get(name, 0) + 1
        return joint

    def merge(self, other: Tally) -> None:
        self.frames += other.frames
        self.joint += other.joint
        self.matched += other.matched
        self.predicted += other.predicted
        self.gold += other.gold
        for name, count in other.missed.items():
            self.missed[name] = self.missed.get(name, 0) + count

    @property
    def jga(self) -> float:
        return self.joint / self.frames if self.frames else 0.0

    @property
    def f1(self) -> float:
        precision = self.matched / self.predicted if self.predicted else 1.0
        recall = self.matched / self.gold if self.gold else 1.0
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
