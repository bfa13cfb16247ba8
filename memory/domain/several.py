"""Several domains in one agent: a driver books dinner on the way home.

`combine` makes one schema of several so the state, the grounding and the renderer work
unchanged; `DomainDetector` picks each turn's domain from its words, so the rules read
the turn with that domain's readers (a clock time goes to the restaurant's `time` or to
the trip's `arrival_time`, never both). Each domain's slots stay apart: a key two domains
share is qualified by its domain (`restaurant.time`, `trains.time`); the others keep
their plain names, so a profile written by a one-domain session still applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from monologue.memory.domain.schema import DomainSchema, KeySpec, load_schema
from monologue.memory.language.cues import cue_pattern, language_of
from monologue.memory.working.state import SessionState, slot_of

SEPARATOR = "+"     # `domain: restaurant+in_car` in the config


def domain_names(spec: str) -> list[str]:
    """'restaurant+in_car' → ['restaurant', 'in_car'] (a path stays whole)."""
    return [part.strip() for part in spec.split(SEPARATOR) if part.strip()] or [spec]


@dataclass(frozen=True)
class Combined:
    """One schema over several domains, and which domain each of its keys belongs to."""

    schema: DomainSchema
    domains: tuple[DomainSchema, ...]
    key_domain: dict[str, str]            # combined key → domain name
    plain_key: dict[str, str]             # combined key → the key in its own domain

    def qualified(self, domain: str, key: str) -> str:
        """The combined schema's name for `key` of `domain`."""
        for combined, owner in self.key_domain.items():
            if owner == domain and self.plain_key[combined] == key:
                return combined
        return key

    def domain(self, name: str) -> DomainSchema:
        return next(d for d in self.domains if d.name == name)


def combine(schemas: Sequence[DomainSchema]) -> Combined:
    if len(schemas) == 1:
        only = schemas[0]
        return Combined(only, (only,), {k: only.name for k in only.keys}, {k: k for k in only.keys})
    owners: dict[str, list[str]] = {}
    for schema in schemas:
        for key in schema.keys:
            owners.setdefault(key, []).append(schema.name)
    keys, key_domain, plain = {}, {}, {}
    sides: dict[str, KeySpec] = {}
    for schema in schemas:
        for key, spec in schema.keys.items():
            name = f"{schema.name}.{key}" if len(owners[key]) > 1 else key
            keys[name] = replace(spec, name=name)
            key_domain[name], plain[name] = schema.name, key
        # (a control's sides belong to its domain too: the passenger window is the car's)
        for key, spec in schema.sides.items():
            sides[key] = spec
            key_domain[key], plain[key] = schema.name, key

    def merged(field: str) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for schema in schemas:
            for lang, words in getattr(schema, field).items():
                out[lang] = out.get(lang, ()) + tuple(w for w in words if w not in out.get(lang, ()))
        return out

    role = {lang: "; ".join(s.role[lang] for s in schemas if lang in s.role) for lang in ("en", "zh")}
    first = schemas[0]
    schema = DomainSchema(name=SEPARATOR.join(s.name for s in schemas), keys=keys,
                          goal_words=merged("goal_words"), goal_text=dict(first.goal_text),
                          role={k: v for k, v in role.items() if v}, turn_cues=merged("turn_cues"), sides=sides)
    return Combined(schema, tuple(schemas), key_domain, plain)


@lru_cache(maxsize=8)
def load_domains(spec: str) -> Combined:
    """The bundled or YAML domains named in `spec` ('restaurant', 'restaurant+in_car'), combined."""
    return combine([load_schema(name) for name in domain_names(spec)])


def _domain_words(schema: DomainSchema, language: str) -> list[str]:
    words: list[str] = []
    for lang in {language, "en"}:
        words += list(schema.goal_words.get(lang, ())) + list(schema.turn_cues.get(lang, ()))
        for spec in schema.keys.values():
            words += list(spec.aliases.get(lang, ()))
            words += [w for by_lang in spec.values.values() for w in by_lang.get(lang, ())]
    return sorted({w.lower() for w in words if w}, key=len, reverse=True)


class DomainDetector:
    """Which domain a turn is about: the one whose words it uses most. A turn with none of
    any domain's words ("yes", "make it six") stays in the domain the session is in."""

    def __init__(self, schemas: Sequence[DomainSchema]) -> None:
        self.schemas = list(schemas)
        self._patterns = {
            (schema.name, lang): [re.compile(cue_pattern((word,), spaced=lang == "en"))
                                  for word in _domain_words(schema, lang)]
            for schema in self.schemas for lang in ("en", "zh")}

    def scores(self, text: str) -> dict[str, int]:
        lang = language_of(text)
        source = text.lower()
        return {schema.name: sum(1 for p in self._patterns[(schema.name, lang)] if p.search(source))
                for schema in self.schemas}

    def detect(self, text: str, current: str = "") -> str:
        if len(self.schemas) == 1:
            return self.schemas[0].name
        scores = self.scores(text)
        best = max(scores.values())
        current = current if current in scores else self.schemas[0].name
        if best == 0 or scores[current] == best:
            return current
        return max(scores, key=lambda name: scores[name])


def domain_view(combined: Combined, state: SessionState, domain: str) -> SessionState:
    """`state` as `domain` alone sees it: only its conditions, under its own key names."""
    view = state.copy()
    view.domain = domain
    view.constraints = {}
    for condition in state.constraints.values():
        if combined.key_domain.get(condition.key, domain) != domain:
            continue
        plain = combined.plain_key.get(condition.key, condition.key)
        condition = replace(condition, key=plain)
        view.constraints[slot_of(plain, condition.value, condition.multi)] = condition
    return view
