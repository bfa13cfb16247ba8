"""Candidate options filtered by the working state, so a reply can only offer what fits.

The state drives the query: a small LLM told "no spicy food" may still recommend the
Sichuan place first; one that is only shown places without spicy food cannot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from monologue.memory.language.phrases import join, say
from monologue.memory.language.wishes import content_words
from monologue.memory.working.state import Condition, SessionState, describe_condition

CATALOGUES_DIR = Path(__file__).resolve().parents[2] / "configs" / "catalogues"


@dataclass(frozen=True)
class Catalogue:
    """What the agent can offer: items whose attributes use the domain's keys and values."""

    items: list[dict[str, Any]]
    details: tuple[str, ...] = field(default=())   # attributes said with an offered item's name
    name_key: str = ""        # the domain key an item's name fills ("restaurant_name"), if any


def load_catalogue(name_or_path: str) -> Catalogue:
    """A bundled catalogue by name (restaurants) or a YAML path: a mapping with `items`
    (and optional `details`), or a bare list of items."""
    path = Path(name_or_path).expanduser()
    if not path.suffix:
        path = CATALOGUES_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        raise ValueError(f"no catalogue {name_or_path!r} (bundled: "
                         f"{', '.join(p.stem for p in CATALOGUES_DIR.glob('*.yaml'))}, or a YAML path)")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(i, dict) and "name" in i for i in items):
        raise ValueError(f"catalogue {path} must hold a list of mappings (under `items:`), each with a name")
    details = tuple(str(d) for d in data.get("details") or ()) if isinstance(data, dict) else ()
    name_key = str(data.get("name_key") or "") if isinstance(data, dict) else ""
    return Catalogue(items, details, name_key)


def _values(item: dict[str, Any], key: str) -> list[Any] | None:
    if key not in item:
        return None
    raw = item[key]
    return [str(v).lower() for v in raw] if isinstance(raw, list) else [str(raw).lower()]


def breaks(item: dict[str, Any], condition: Condition) -> bool:
    """True when the item certainly breaks the condition (unknown attributes never do)."""
    values = _values(item, condition.key)
    if values is None:
        return False
    wanted = str(condition.value).lower()
    if condition.comparator == "excludes" or condition.comparator == "!=":
        return wanted in values
    if condition.comparator in ("includes", "="):
        return wanted not in values
    try:
        number = float(values[0])
        limit = float(condition.value)
    except (TypeError, ValueError):
        return False
    return number > limit if condition.comparator == "<=" else number < limit


def filter_options(items: list[dict[str, Any]], state: SessionState) -> tuple[list[dict[str, Any]], list[str]]:
    """(items that fit every live condition, one line per excluded item saying why)."""
    fitting, excluded = [], []
    for item in items:
        broken = [c for c in state.constraints.values() if breaks(item, c)]
        if broken:
            excluded.append(f"{item['name']} (breaks {describe_condition(broken[0])})")
        else:
            fitting.append(item)
    return fitting, excluded


# A wish that asks for less of something ("away from the kitchen", 别太吵) ranks an item whose
# description says it lower, not higher.
_AGAINST = re.compile(r"\b(?:no|not|without|away from|far from|less|never|nothing|avoid)\b|不|别|没|远离|离.{1,4}远",
                      re.I)


def described(item: dict[str, Any], language: str) -> str:
    """An item's description in `language` (with the English one, which every item may have)."""
    about = item.get("described") or {}
    if isinstance(about, str):
        return about
    return " ".join(str(about.get(lang, "")) for lang in dict.fromkeys((language, "en")))


def rank_by_wishes(items: list[dict[str, Any]], wishes: list[str], language: str) -> list[dict[str, Any]]:
    """Items that fit, the ones whose description says what the user wished for first
    ("somewhere quiet": "quiet, tables well apart"), the ones it speaks against last. An item
    with no description is neither; the order is otherwise kept. Only where the catalogue
    can say: with no description matching any wish, nothing moves."""
    if not wishes:
        return items

    def score(item: dict[str, Any]) -> int:
        text = described(item, language)
        if not text:
            return 0
        has = content_words(text, language) | content_words(text, "en")
        total = 0
        for wish in wishes:
            against = _AGAINST.search(wish)
            # "a table away from the kitchen": what is wished away is what follows the "away".
            wanted = content_words(wish[against.end():] if against else wish, language)
            if wanted & has:
                total += -1 if against else 1
        return total

    return sorted(items, key=score, reverse=True)


OPTIONS_SHOWN = 2


def offered_options(catalogue: Catalogue, state: SessionState) -> list[dict[str, Any]]:
    """The options `render_options` shows, as the domain values a "yes" may confirm
    (key → value; only the name, under the catalogue's `name_key`)."""
    if not catalogue.name_key:
        return []
    fitting, _excluded = filter_options(catalogue.items, state)
    return [{catalogue.name_key: item["name"]} for item in fitting[:OPTIONS_SHOWN]]


def render_options(catalogue: Catalogue, state: SessionState, language: str = "en") -> str:
    """The first two items that fit the state, each with the catalogue's `details`.
    English by default: the reply prompt's instructions are English in every language,
    and the options line is read as one of them."""
    fitting, _excluded = filter_options(catalogue.items, state)

    def show(item: dict[str, Any]) -> str:
        shown = ", ".join(str(item[k]) for k in catalogue.details if k in item)
        return f"{item['name']} ({shown})" if shown else str(item["name"])

    # Only what fits: naming the excluded places, even as "do not offer", makes small
    # models offer them.
    if not fitting:
        return say("options.none", language)
    return say("options.fit", language, items=join([show(i) for i in fitting[:OPTIONS_SHOWN]], language))
