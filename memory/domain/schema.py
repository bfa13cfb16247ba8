"""Domain schemas: which condition keys exist, their types, and the words that name them.

A schema guides extraction; it does not limit the state: a key it does not know is
still kept (as text), so nothing the user said is dropped for want of a schema entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DOMAINS_DIR = Path(__file__).resolve().parents[2] / "configs" / "domains"
KEY_TYPES = ("int", "time", "date", "money", "enum", "text", "bool")


@dataclass(frozen=True)
class KeySpec:
    name: str
    type: str = "text"
    multi: bool = False
    durable: bool = False            # a lasting preference (profile), not a one-off detail
    default_op: str = "="
    labels: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    values: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def label(self, language: str = "en") -> str:
        return self.labels.get(language) or self.labels.get("en") or self.name.replace("_", " ")

    def value_words(self, value: str, language: str = "en") -> tuple[str, ...]:
        return self.values.get(value, {}).get(language, ())


@dataclass(frozen=True)
class DomainSchema:
    name: str
    keys: dict[str, KeySpec]
    goal_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    goal_text: dict[str, str] = field(default_factory=dict)
    role: dict[str, str] = field(default_factory=dict)

    def key(self, name: str) -> KeySpec:
        """The spec of `name`; unknown keys are open text keys, never an error."""
        return self.keys.get(name) or KeySpec(name=name)

    def enum_lexicon(self, language: str) -> list[tuple[str, str, str]]:
        """(surface words, key, value) for every enum value, longest words first."""
        rows = [
            (word.lower(), spec.name, value)
            for spec in self.keys.values() if spec.type == "enum"
            for value, words in spec.values.items()
            for lang in (language, "en") for word in words.get(lang, ())
        ]
        return sorted(set(rows), key=lambda row: -len(row[0]))

    def alias_lexicon(self, language: str) -> list[tuple[str, str]]:
        rows = [
            (alias.lower(), spec.name)
            for spec in self.keys.values()
            for lang in (language, "en") for alias in spec.aliases.get(lang, ())
        ]
        rows += [(spec.label(lang).lower(), spec.name) for spec in self.keys.values() for lang in (language, "en")]
        rows += [(word.lower(), spec.name) for spec in self.keys.values() if spec.type == "enum"
                 for words in spec.values.values() for lang in (language, "en") for word in words.get(lang, ())]
        return sorted(set(rows), key=lambda row: -len(row[0]))


def _words(block: Any) -> dict[str, tuple[str, ...]]:
    return {lang: tuple(str(w) for w in words) for lang, words in (block or {}).items()}


def parse_schema(data: dict[str, Any]) -> DomainSchema:
    keys: dict[str, KeySpec] = {}
    for name, raw in (data.get("keys") or {}).items():
        kind = raw.get("type", "text")
        if kind not in KEY_TYPES:
            raise ValueError(f"domain {data.get('name')}: key {name} has type {kind!r}; use one of {KEY_TYPES}")
        keys[name] = KeySpec(
            name=name, type=kind, multi=bool(raw.get("multi", False)), durable=bool(raw.get("durable", False)),
            default_op=str(raw.get("default_op", "=")),
            labels={k: str(v) for k, v in (raw.get("label") or {}).items()},
            aliases=_words(raw.get("aliases")),
            values={value: _words(words) for value, words in (raw.get("values") or {}).items()},
        )
    return DomainSchema(name=str(data.get("name", "custom")), keys=keys,
                        goal_words=_words(data.get("goal_words")),
                        goal_text={k: str(v) for k, v in (data.get("goal_text") or {}).items()},
                        role={k: str(v) for k, v in (data.get("role") or {}).items()})


@lru_cache(maxsize=16)
def load_schema(name_or_path: str = "restaurant") -> DomainSchema:
    """A bundled domain by name (restaurant, in_car, customer_service) or a YAML path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = DOMAINS_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in DOMAINS_DIR.glob("*.yaml")))
        raise ValueError(f"no domain schema {name_or_path!r}; bundled: {known}, or give a YAML path")
    return parse_schema(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
