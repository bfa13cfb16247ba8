"""What a simulated user may want in a domain, read straight from the domain's YAML.

Only the domain's declarations are read (keys, their types, labels, enum value names,
ranges, the actions and what each needs); the agent's reading knowledge in the same file
(aliases, value words, cues, phrases) is left alone, so the simulator never speaks in the
words the agent's rules were written from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

KEY_TYPES = ("int", "time", "date", "money", "enum", "text", "bool")


@dataclass(frozen=True)
class SimKey:
    name: str
    type: str
    labels: dict[str, str]                      # language → the domain's label ("party size", 人数)
    values: tuple[str, ...] = ()                # enum value names ("private_room")
    multi: bool = False
    range: tuple[int, int] | None = None
    durable: bool = False
    free_text: bool = False                     # `reader: free_text`: a wish in the user's words, not a goal slot
    # The domain's own words for each listed value, per language ("邮件" for email): an answer
    # the agent words with them names the value as much as the user's phrasings do.
    value_words: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def words_for(self, language: str) -> dict[str, list[str]]:
        return {value: list(by_language.get(language, [])) for value, by_language in self.value_words.items()}

    def label(self, language: str) -> str:
        return self.labels.get(language) or self.labels.get("en") or self.name.replace("_", " ")


@dataclass(frozen=True)
class SimAction:
    name: str
    needs: tuple[str, ...]
    choose: str = ""                            # a key filled by picking one of the agent's offers
    optional: tuple[str, ...] = ()
    confirm: bool = False
    completes: bool = False
    triggers: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimDomain:
    name: str
    keys: dict[str, SimKey]
    actions: dict[str, SimAction]
    path: str = ""
    catalogue: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def primary(self) -> SimAction | None:
        """The action that finishes the task (the first that completes it, else the first)."""
        completing = [a for a in self.actions.values() if a.completes]
        found = completing or list(self.actions.values())
        return found[0] if found else None


def domain_path(domain: str) -> Path:
    """A bundled domain by name (configs/domains/NAME.yaml) or a YAML file by path."""
    if domain.endswith((".yaml", ".yml")) or "/" in domain:
        path = Path(domain).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"no domain YAML at {path}")
        return path
    bundled = Path(str(resources.files("monologue.configs"))) / "domains" / f"{domain}.yaml"
    if not bundled.is_file():
        names = sorted(p.stem for p in bundled.parent.glob("*.yaml"))
        raise FileNotFoundError(f"no bundled domain {domain!r}; bundled: {', '.join(names)}, or give a YAML path")
    return bundled


def _labels(raw: Any, name: str) -> dict[str, str]:
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    if isinstance(raw, str):
        return {"en": raw}
    return {"en": name.replace("_", " ")}


def load_domain(domain: str) -> SimDomain:
    path = domain_path(domain)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    keys: dict[str, SimKey] = {}
    for name, spec in (data.get("keys") or {}).items():
        spec = spec or {}
        kind = str(spec.get("type", "text"))
        values = tuple(str(v) for v in (spec.get("values") or {}))
        value_words = {str(v): {str(lang): [str(w) for w in words] for lang, words in (table or {}).items()}
                       for v, table in (spec.get("values") or {}).items() if isinstance(table, dict)}
        span = spec.get("range")
        keys[str(name)] = SimKey(str(name), kind if kind in KEY_TYPES else "text", _labels(spec.get("label"), name),
                                 values, bool(spec.get("multi", False)),
                                 (int(span[0]), int(span[1])) if span else None, bool(spec.get("durable", False)),
                                 spec.get("reader") == "free_text", value_words)
    actions: dict[str, SimAction] = {}
    for name, spec in (data.get("actions") or {}).items():
        spec = spec or {}
        actions[str(name)] = SimAction(str(name), tuple(spec.get("needs") or ()), str(spec.get("choose") or ""),
                                       tuple(spec.get("optional") or ()), bool(spec.get("confirm", False)),
                                       bool(spec.get("completes", False)), tuple(spec.get("triggers") or ()))
    catalogue = data.get("catalogue") or ""
    if isinstance(catalogue, dict):     # one per language: English's names the domain's
        catalogue = catalogue.get("en") or next(iter(catalogue.values()), "")
    return SimDomain(str(data.get("name") or path.stem), keys, actions, str(path), str(catalogue))
