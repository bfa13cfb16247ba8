"""User turns in other people's words: SGD (English), CrossWOZ (Chinese), and template families.

A corpus user turn is delexicalised where its slot values stand (SGD's spans; a CrossWOZ
act's value found in the text) and refilled with the goal's values: "I would like for it to
be in {location}." What the corpora lack (relative changes, questions about the task's state,
in-car and customer-service turns, small talk, hesitations) comes from the simulator's own
families, `templates/{en,zh}.yaml`.

Every template belongs to one partition: `tune` or `heldout`. SGD's train dialogues are the
tuning side and its dev dialogues the held-out side; CrossWOZ dialogues, its hand-written user
templates and the families split by a stable hash of the dialogue id or the text. Nothing that
tunes the agent may read the held-out side; the benchmark reports on it.
"""

from __future__ import annotations

import functools
import gzip
import json
import random
import re
import zipfile
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from monologue.sim.domain import SimDomain

Partition = Literal["tune", "heldout"]
PARTITIONS: tuple[Partition, ...] = ("tune", "heldout")
TEMPLATES = Path(__file__).resolve().parent / "templates"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPUS_KINDS = ("sgd", "crosswoz")
THANKS_ONLY = re.compile(r"^\W*(thanks|thank you|thank you very much|thanks a lot)\W*$", re.I)


@dataclass(frozen=True)
class Template:
    text: str                    # with {key} placeholders
    slots: tuple[str, ...]       # the keys it needs, sorted
    source: str                  # sgd:<dialogue id>, crosswoz:<id>, family:<name>


CORPUS_SHARE = 0.7     # how often a user speaks in a corpus turn, where the corpus has enough of them
CORPUS_ENOUGH = 8      # below this many corpus turns for a move, their share shrinks in proportion


def corpus_share(corpus_turns: int) -> float:
    """How often to say a move in one of `corpus_turns` real users' turns rather than the
    simulator's own family. A corpus with one matching turn must not make one sentence most of
    what users say: CrossWOZ's held-out side has a single in-car destination turn ("出租车的目的地
    是…"), and at a flat 70% it was nearly every destination a Chinese driver gave."""
    return CORPUS_SHARE * min(1.0, corpus_turns / CORPUS_ENOUGH)


def stable_partition(text: str, heldout_share: int = 4) -> Partition:
    """One template in `heldout_share` goes to the held-out side, by a hash that never changes."""
    return "heldout" if zlib.crc32(text.encode("utf-8")) % heldout_share == 0 else "tune"


def split_family(texts: list[str], heldout_share: int = 4) -> tuple[list[str], list[str]]:
    """A template family's (tune, held-out) sides: `stable_partition`, except that a family of
    two or more always keeps one template on each side (the one with the lowest hash moves),
    so no family is shared between what the agent is tuned on and what it is judged on.
    A family of one is all the bank has for that move; it is shared, and says so by being one."""
    def key(text: str) -> int:
        return zlib.crc32(text.encode("utf-8"))

    heldout = [t for t in texts if stable_partition(t, heldout_share) == "heldout"]
    tune = [t for t in texts if t not in heldout]
    if len(texts) < 2:
        return list(texts), list(texts)
    if not heldout:
        moved = min(tune, key=key)
        heldout, tune = [moved], [t for t in tune if t != moved]
    elif not tune:
        moved = max(heldout, key=key)
        tune, heldout = [moved], [t for t in heldout if t != moved]
    return tune, heldout


@dataclass(frozen=True)
class CorpusSpec:
    kind: str                    # sgd | crosswoz
    path: Path | None            # None: the shared data's default files
    templates: Path | None = None


def parse_phrasing(specs: list[str] | None) -> list[CorpusSpec]:
    """`sgd:PATH`, `crosswoz:PATH` (or the bare kind for its default files)."""
    out = []
    for spec in specs or []:
        kind, _, path = spec.partition(":")
        if kind not in CORPUS_KINDS:
            raise ValueError(f"--phrasing {spec!r}: give sgd:PATH or crosswoz:PATH")
        if path and not Path(path).expanduser().exists():
            raise FileNotFoundError(f"--phrasing {spec!r}: no file at {path}")
        out.append(CorpusSpec(kind, Path(path).expanduser() if path else None))
    return out


def _corpus_map(kind: str, domain: SimDomain) -> dict[str, Any]:
    data = yaml.safe_load((TEMPLATES / "corpora.yaml").read_text(encoding="utf-8"))
    return dict((data.get(kind) or {}).get(domain.name) or {})


def _acts(kind: str) -> dict[str, str]:
    data = yaml.safe_load((TEMPLATES / "corpora.yaml").read_text(encoding="utf-8"))
    return dict(data.get(f"{kind}_acts") or {})


# --- SGD ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def _read_sgd(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return list(json.load(handle))


def _sgd_templates(dialogues: list[dict[str, Any]], domain: SimDomain, mapping: dict[str, Any],
                   values: dict[str, list[str]] | None = None, file: str = "") -> dict[str, list[Template]]:
    """Templates by family; `values` collects, per key, the values users said (for text keys)."""
    slot_to_key: dict[str, str] = {}
    for key, slots in (mapping.get("slots") or {}).items():
        for slot in slots:
            slot_to_key[slot] = key
    if not mapping:            # an imported domain: SGD's slot names are its keys
        slot_to_key = {k: k for k in domain.keys}
    services = set(mapping.get("services") or [])
    if not mapping:
        counts: dict[str, int] = defaultdict(int)
        for dialogue in dialogues:
            for turn in dialogue["turns"]:
                for frame in turn["frames"]:
                    for action in frame["actions"]:
                        if action["slot"] in slot_to_key:
                            counts[frame["service"]] += 1
        services = {s for s, n in counts.items() if n >= max(counts.values(), default=0) / 3}
    general = _acts("sgd")
    out: dict[str, list[Template]] = defaultdict(list)
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            text = turn["utterance"].strip()
            actions = [(f["service"], a) for f in turn["frames"] for a in f["actions"]]
            names = {a["act"] for _, a in actions}
            source = f"sgd:{file}:{dialogue['dialogue_id']}"
            if names <= {"THANK_YOU", "GOODBYE"} and "GOODBYE" in names:
                out["bye"].append(Template(text, (), source))
                continue
            if len(names) == 1 and next(iter(names)) in general and not any(a["values"] for _, a in actions
                                                                               if a["act"] != "AFFIRM_INTENT"):
                if general[next(iter(names))] in ("accept_offer", "reject_offer", "affirm") and (
                        THANKS_ONLY.match(text) or len(text.split()) > 10):
                    continue     # "Thank you." as a pick, or a long turn about another service's things
                out[general[next(iter(names))]].append(Template(text, (), source))
                continue
            if not actions or not all(svc in services for svc, _ in actions):
                continue
            if not names <= {"INFORM", "INFORM_INTENT", "NEGATE"}:
                continue
            spans = []
            keys = set()
            ok = True
            for frame in turn["frames"]:
                located = {s["slot"]: (s["start"], s["exclusive_end"]) for s in frame.get("slots", [])}
                for action in frame["actions"]:
                    if action["act"] != "INFORM":
                        continue
                    key = slot_to_key.get(action["slot"])
                    if key is None or key not in domain.keys:
                        ok = False
                        break
                    span = located.get(action["slot"]) or _find(text, action["values"])
                    if span is None:
                        ok = False
                        break
                    spans.append((span[0], span[1], key))
                    keys.add(key)
                    if values is not None and domain.keys[key].type == "text":
                        said = text[span[0]:span[1]]
                        if said not in values.setdefault(key, []):
                            values[key].append(said)
            if not ok or not keys or _overlap(spans):
                continue
            delex = text
            for start, end, key in sorted(spans, reverse=True):
                delex = delex[:start] + "{" + key + "}" + delex[end:]
            if "NEGATE" in names:
                family = "correct"
            else:
                family = "intent" if "INFORM_INTENT" in names else "inform"
            out[family].append(Template(delex, tuple(sorted(keys)), source))
    return out


def _find(text: str, values: list[str]) -> tuple[int, int] | None:
    for value in values:
        match = re.search(r"\b" + re.escape(value) + r"\b", text, re.I)
        if match:
            return match.start(), match.end()
    return None


def _overlap(spans: list[tuple[int, int, str]]) -> bool:
    ordered = sorted(spans)
    return any(a[1] > b[0] for a, b in zip(ordered, ordered[1:], strict=False))


# --- CrossWOZ ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=2)
def _read_crosswoz(path: Path) -> dict[str, Any]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".json"))
            return dict(json.loads(archive.read(name)))
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _crosswoz_templates(dialogues: dict[str, Any], domain: SimDomain, mapping: dict[str, Any]
                        ) -> dict[str, list[Template]]:
    pairs = {tuple(v): k for k, v in (mapping.get("slots") or {}).items()}
    out: dict[str, list[Template]] = defaultdict(list)
    for dialogue_id, dialogue in dialogues.items():
        for message in dialogue.get("messages", []):
            if message.get("role") != "usr":
                continue
            text = str(message["content"]).strip()
            acts = message.get("dialog_act") or []
            source = f"crosswoz:{dialogue_id}"
            kinds = {f"{a[0]}+{a[1]}+{a[2]}" for a in acts}
            general = _acts("crosswoz")
            if len(kinds) == 1 and next(iter(kinds)) in general:
                out[general[next(iter(kinds))]].append(Template(text, (), source))
                continue
            informs = [a for a in acts if a[0] == "Inform"]
            if not informs or len(informs) != len(acts) and not all(a[0] in ("Inform", "General") for a in acts):
                continue
            delex, keys, ok = text, set(), True
            for _, area, slot, value in informs:
                key = pairs.get((area, slot))
                if key is None or key not in domain.keys or not value or value not in delex:
                    ok = False
                    break
                delex = delex.replace(value, "{" + key + "}", 1)
                keys.add(key)
            if ok and keys and "General" not in {a[0] for a in acts}:
                out["inform"].append(Template(delex, tuple(sorted(keys)), source))
    return out


def _crosswoz_user_templates(path: Path, domain: SimDomain, mapping: dict[str, Any]) -> dict[str, list[Template]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    pairs = {"+".join(v): k for k, v in (mapping.get("slots") or {}).items()}
    general = _acts("crosswoz")
    out: dict[str, list[Template]] = defaultdict(list)
    for act, texts in data.items():
        if act in general:
            out[general[act]] += [Template(t, (), "crosswoz-templates") for t in texts]
            continue
        head, _, area_slot = act.partition("+")
        key = pairs.get(area_slot)
        if head == "Inform" and key is not None and key in domain.keys:
            for text in texts:
                if "？" in text or "吗" in text:     # asks about a value, not gives one
                    continue
                out["inform"].append(Template(text.replace(f"[{act}]", "{" + key + "}"), (key,), "crosswoz-templates"))
    return out


# --- the bank ------------------------------------------------------------------------------

class PhrasingBank:
    """Templates by family for one domain, language and partition."""

    def __init__(self, domain: SimDomain, language: str, partition: Partition = "heldout",
                 corpora: list[CorpusSpec] | None = None) -> None:
        self.domain = domain
        self.language = language
        self.partition = partition
        families = yaml.safe_load((TEMPLATES / f"{language}.yaml").read_text(encoding="utf-8"))
        self.families: dict[str, list[str]] = {}
        self.clause_keys = frozenset(families.get("said_as_clauses") or [])
        # A clause key's words are whole utterances ("my back's cold, heat up the seat"): split
        # between the partitions like the templates, so the held-out users say other sentences.
        self.enum_words: dict[str, dict[str, list[str]]] = {
            k: {str(v): self._side(list(w)) if k in self.clause_keys and len(w) > 1 else list(w)
                for v, w in (vals or {}).items()}
            for k, vals in (families.get("enum_words") or {}).items()}
        self.idioms = [(re.compile(pattern, re.I), said) for pattern, said in families.get("idioms") or []]
        for family, variants in (families.get("families") or {}).items():
            for variant, texts in variants.items():
                name = family if variant == "any" else f"{family}.{variant}"
                self.families[name] = self._side(list(texts))
        self.corpus: dict[str, list[Template]] = defaultdict(list)
        self.values: dict[str, list[str]] = {}     # key → text values users said in the corpus
        default = [CorpusSpec("sgd" if language == "en" else "crosswoz", None)]
        for spec in corpora if corpora is not None else default:
            if (spec.kind == "sgd") != (language == "en"):
                continue          # SGD speaks English, CrossWOZ Chinese
            for family, templates in self._load(spec).items():
                self.corpus[family] += templates

    def _side(self, texts: list[str]) -> list[str]:
        tune, heldout = split_family(texts)
        return heldout if self.partition == "heldout" else tune

    def _load(self, spec: CorpusSpec) -> dict[str, list[Template]]:
        mapping = _corpus_map(spec.kind, self.domain)
        if spec.kind == "sgd":
            if spec.path is None:
                name = "dev-single.json.gz" if self.partition == "heldout" else "train-single.json.gz"
                path = SHARED_DATA / "sgd" / name
                if not path.is_file():
                    return {}
                return _sgd_templates(_read_sgd(path), self.domain, mapping, self.values, path.name)
            dialogues = [d for d in _read_sgd(spec.path) if stable_partition(d["dialogue_id"]) == self.partition]
            return _sgd_templates(dialogues, self.domain, mapping, self.values, spec.path.name)
        path = spec.path or SHARED_DATA / "crosswoz" / "val.json.zip"
        if not path.is_file():
            return {}
        chosen = {k: v for k, v in _read_crosswoz(path).items() if stable_partition(k) == self.partition}
        out = _crosswoz_templates(chosen, self.domain, mapping)
        user_templates = (spec.templates or path.parent / "manual_user_template_nlg.json")
        if user_templates.is_file():
            for family, templates in _crosswoz_user_templates(user_templates, self.domain, mapping).items():
                out[family] += [t for t in templates if stable_partition(t.text) == self.partition]
        return out

    # --- choosing and filling ---

    def idiomatic(self, text: str) -> str:
        """`text` as a person says it: a goal value put into a frame the language says otherwise
        ("get to home", 去家) takes the language's own form ("get home", 回家)."""
        for pattern, said in self.idioms:
            def as_said(match: re.Match[str], said: str = said) -> str:
                return said[:1].upper() + said[1:] if match.group(0)[:1].isupper() else said
            text = pattern.sub(as_said, text)
        return text

    def family(self, name: str, key: str = "", kind: str = "") -> list[str]:
        for candidate in (f"{name}.{key}" if key else "", f"{name}.type:{kind}" if kind else "",
                          f"{name}.{self.domain.name}", name):
            if candidate and self.families.get(candidate):
                return self.families[candidate]
        return []

    def corpus_for(self, family: str, keys: set[str]) -> list[Template]:
        return [t for t in self.corpus.get(family, []) if set(t.slots) == keys]

    def pick(self, family: str, rng: random.Random, *, key: str = "", kind: str = "",
             corpus_keys: set[str] | None = None) -> str:
        """A template of `family`: a corpus turn with exactly `corpus_keys` when there is one (most
        of the time, where the corpus has enough: `corpus_share`), else the simulator's own family."""
        own = self.family(family, key, kind)
        corpus = self.corpus_for(family, corpus_keys if corpus_keys is not None else set())
        if corpus and (not own or rng.random() < corpus_share(len(corpus))):
            return rng.choice(corpus).text
        if own:
            return rng.choice(own)
        return ""

    def corpus_size(self) -> dict[str, int]:
        return {family: len(templates) for family, templates in sorted(self.corpus.items())}


def fill(template: str, values: dict[str, str]) -> str:
    """Put values in; a placeholder with no value keeps its braces off ("{x}" → "")."""
    def one(match: re.Match[str]) -> str:
        return values.get(match.group(1), "")
    text = re.sub(r"\{(\w+)\}", one, template)
    text = re.sub(r"\s+([,.!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    return text[:1].upper() + text[1:] if text[:1].islower() and not template.startswith("{") else (
        text[:1].upper() + text[1:] if text[:1].islower() else text)
