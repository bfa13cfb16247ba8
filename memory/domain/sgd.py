"""A domain YAML from a Schema-Guided Dialogue (SGD) service schema.

    monologue domain import-sgd train-schema.json --service Restaurants_2 --out configs/domains/x.yaml

SGD describes a service by its slots (name, description, categorical or not, possible
values) and intents. Each slot becomes a key of the format `schema.parse_schema` reads:

- a categorical slot is an `enum` whose values are SGD's own (so a state reads back as
  SGD writes it) and whose surface words are the value and its spoken forms;
- a True/False slot is an `enum` True/False, named by the words of its slot name and
  description ("has_seating_outdoors" → "seating outdoors", "outdoor seating");
- a slot of small counts ("1".."6" seats) is an `int` read as a head count, or an enum
  of "N bags" words when what it counts is not people;
- any other slot is open: `time`, `date` (with the rules' reader) or `text`, and is
  read by the learned value reader (`open_value: learned`); an amount stays `text`, as
  said ("$1,210", "fourteen hundred bucks"): SGD compares it as said, and grounding
  reads numbers word by word;
- a slot no intent takes (a phone number, a price: what the service reports, never what
  the user asks for) is left out: the monologue tracks the user's conditions.

Intents give the goal words and the turn cues. Nothing here is specific to one service.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from monologue.memory.domain.schema import parse_schema
from monologue.memory.language.cues import SAID_FOR_EN

# Words SGD users say for a listed value without saying it ("a concert" → Music), mined
# from SGD train by scripts/train_value_tagger.py (Schema-Guided Dialogue, CC BY-SA 4.0).
VALUE_WORDS = Path(__file__).resolve().parents[2] / "models" / "weights" / "value_words.json"
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_PEOPLE = re.compile(r"\b(?:people|persons?|seats?|passengers?|travell?ers?|riders?|tickets?|group|party|guests?)\b")
_DURATION = re.compile(r"\b(?:days?|duration|waiting|minutes|hours)\b")
# Words of a slot name that say what kind of slot it is, not what it is about.
_FLAG_WORDS = frozenset(("has", "is", "are", "offers", "serves", "allowed", "options", "available", "or", "not",
                         "whether", "boolean", "flag", "indicating", "if", "the", "a", "an"))
_FILLER = frozenset(("the", "a", "an", "of", "for", "to", "in", "on", "at", "by", "with", "and", "or"))


def _camel_words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z][a-z]+|[a-z]+", name)]


def _plain(name: str) -> str:
    return " ".join(w for w in name.replace("_", " ").split())


def _flag_phrases(slot: dict[str, Any]) -> list[str]:
    """How a user names a True/False slot: its name without has/is, that reversed
    ('seating outdoors' → 'outdoor seating'), and its content words."""
    words = [w for w in slot["name"].split("_") if w not in _FLAG_WORDS and w not in _FILLER]
    phrases = [" ".join(words)] if words else []
    if len(words) == 2:
        first, second = words
        phrases.append(f"{second.rstrip('s')} {first}" if second.endswith("s") else f"{second} {first}")
    description = slot.get("description", "").lower()
    match = re.search(r"\b(?:has|have|offers|serves|is|are|allows|be)\s+(?:adequate\s+|a\s+|an\s+)?"
                      r"([a-z -]+?)(?:\s+(?:available|or not|for this|desired)|$|[,.(])", description)
    if match and len(match.group(1).split()) <= 3:
        phrases.append(match.group(1).strip())
    if len(words) == 1:
        phrases.append(words[0])
    return list(dict.fromkeys(p for p in phrases if p))


def _count_unit(slot: dict[str, Any]) -> list[str]:
    """What a count slot counts, singular (the rules also read the plural): 'number_checked_bags'
    → bag, checked bag; and the description's noun said as one word ('Number of bed rooms'
    → bedroom)."""
    words = [w for w in slot["name"].split("_") if w not in ("number", "of", "num", "count")]
    if not words:
        return []
    stem = words[-1][:-1] if words[-1].endswith("s") else words[-1]
    forms = {stem, " ".join(words[:-1] + [stem])}
    described = re.match(r"number of ([a-z ]+?)(?: (?:in|to|for|of|at|on)\b|$)", slot.get("description", "").lower())
    if described and stem in described.group(1):
        joined = described.group(1).replace(" ", "")
        forms.add(joined[:-1] if joined.endswith("s") else joined)
    return sorted(forms, key=len, reverse=True)


def _enum_values(slot: dict[str, Any], learned: bool) -> dict[str, dict[str, list[str]]]:
    values: dict[str, dict[str, list[str]]] = {}
    unit = _count_unit(slot) if all(v.isdigit() for v in slot["possible_values"]) else []
    for value in slot["possible_values"]:
        words = [value.lower()]
        if unit:     # "2 bags", "two bags", "no bags"
            n = int(value)
            spoken = _NUMBER_WORDS[n] if n < len(_NUMBER_WORDS) else value
            words = [f"{num} {u}" for num in (value, spoken) for u in unit]
            if n == 0:
                words += [f"no {u}" for u in unit]
            elif n == 1:
                words += [("an " if u[:1] in "aeiou" else "a ") + u for u in unit]
        elif value.lower() == "none":
            words = ["none", "no " + _plain(slot["name"]).split()[0]]
        elif "-" in value:
            words.append(value.lower().replace("-", " "))
        words += SAID_FOR_EN.get(value.lower(), ())     # what people say for it ("reasonably priced")
        if learned:
            words += _said_for().get(value.lower(), [])
        values[value] = {"en": list(dict.fromkeys(words))}
    return values


@lru_cache(maxsize=1)
def _said_for() -> dict[str, list[str]]:
    if not VALUE_WORDS.is_file():
        return {}
    return {str(k): [str(w) for w in v] for k, v in json.loads(VALUE_WORDS.read_text(encoding="utf-8")).items()}


def _key_of(slot: dict[str, Any], learned: bool) -> dict[str, Any]:
    name, description = slot["name"], slot.get("description", "")
    lowered = f"{_plain(name)} {description}".lower()
    label = _plain(name)
    key: dict[str, Any] = {"label": {"en": label}, "description": description}
    aliases = [label]
    named = re.match(r"([A-Za-z]+) (?:where|in|of|to|for|which|that|at|from|who)\b", description)
    if named and named.group(1).lower() not in ("number", "name", "time", "date", "whether"):
        aliases.append(named.group(1).lower())      # "City where the restaurant is located" → city
    key["aliases"] = {"en": list(dict.fromkeys(aliases))}
    possible = [str(v) for v in slot.get("possible_values") or ()]
    if slot.get("is_categorical") and possible:
        if sorted(possible) == ["False", "True"]:
            key["type"] = "enum"
            key["values"] = {"True": {"en": _flag_phrases(slot)}}
        elif all(v.isdigit() for v in possible) and _PEOPLE.search(lowered):
            key["type"] = "int"
            key["reader"] = "head_count"
        else:
            key["type"] = "enum"
            key["values"] = _enum_values(slot, learned)
        return key
    words = set(re.findall(r"[a-z]+", lowered))
    if "date" in words:
        key["type"], key["reader"] = "date", "date"
    elif "time" in words and not _DURATION.search(lowered):
        key["type"], key["reader"] = "time", "clock_time"
    if learned:
        key["open_value"] = "learned"
    return key


def import_service(schemas: list[dict[str, Any]], service: str, learned: bool = True) -> dict[str, Any]:
    """The domain YAML's data for `service`, one of the services in an SGD schema file.

    `learned`: open keys are read by the learned value reader, and listed values take the
    words mined from SGD train; without it, the YAML is the schema's own words alone."""
    found = next((s for s in schemas if s["service_name"] == service), None)
    if found is None:
        known = ", ".join(s["service_name"] for s in schemas)
        raise ValueError(f"no service {service!r} in this schema; it has {known}")
    intents = found.get("intents") or []
    goal_words = list(dict.fromkeys(w for intent in intents for w in _camel_words(intent["name"])
                                    if len(w) > 2))
    main = next((i for i in intents if i.get("is_transactional")), intents[0] if intents else None)
    # The slots an intent takes are what the user asks for; the others (a phone number,
    # a price) are what the service reports, which the monologue does not track.
    taken = {name for intent in intents for name in [*intent["required_slots"], *intent["optional_slots"]]}
    data: dict[str, Any] = {
        "name": service.lower(),
        "description": found.get("description", ""),
        "role": {"en": found.get("description", "").rstrip(".").lower()},
        "goal_words": {"en": goal_words},
        "goal_text": {"en": main["description"].lower()} if main else {},
        "turn_cues": {"en": goal_words},
        "keys": {slot["name"]: _key_of(slot, learned) for slot in found.get("slots") or [] if slot["name"] in taken},
    }
    parse_schema(data)      # what this writes, the product must read
    return data


def import_file(path: str | Path, service: str) -> str:
    """The YAML text for `service` of the SGD schema file at `path`."""
    schemas = json.loads(Path(path).read_text(encoding="utf-8"))
    data = import_service(schemas, service)
    header = (f"# {service}, imported from the SGD schema {Path(path).name} (monologue domain import-sgd).\n"
              "# Schema-Guided Dialogue dataset: CC BY-SA 4.0, Google Research.\n")
    return header + yaml.dump(data, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=120)


class _PlainDumper(yaml.SafeDumper):
    """Writes a list twice rather than as an anchor and alias: the file is read by people."""

    def ignore_aliases(self, data: Any) -> bool:
        return True
