"""Candidate options filtered by the working state, so a reply can only offer what fits.

The state drives the query: a small LLM told "no spicy food" may still recommend the
Sichuan place first; one that is only shown places without spicy food cannot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from monologue.memory.language.phrases import join, say
from monologue.memory.working.state import Condition, SessionState, describe_condition

CATALOGUES_DIR = Path(__file__).resolve().parents[2] / "configs" / "catalogues"


def load_catalogue(name_or_path: str) -> list[dict[str, Any]]:
    path = Path(name_or_path).expanduser()
    if not path.suffix:
        path = CATALOGUES_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        raise ValueError(f"no catalogue {name_or_path!r} (bundled: "
                         f"{', '.join(p.stem for p in CATALOGUES_DIR.glob('*.yaml'))}, or a YAML path)")
    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(items, list) or not all(isinstance(i, dict) and "name" in i for i in items):
        raise ValueError(f"catalogue {path} must be a list of mappings, each with a name")
    return items


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


def render_options(items: list[dict[str, Any]], state: SessionState, details: tuple[str, ...] = (),
                   language: str = "en") -> str:
    """The first two items that fit the state, each with the attributes `details` names
    (the domain's `option_details`). English by default: the reply prompt's instructions
    are English in every language, and the options line is read as one of them."""
    fitting, _excluded = filter_options(items, state)

    def show(item: dict[str, Any]) -> str:
        shown = ", ".join(str(item[k]) for k in details if k in item)
        return f"{item['name']} ({shown})" if shown else str(item["name"])

    # Only what fits: naming the excluded places, even as "do not offer", makes small
    # models offer them.
    if not fitting:
        return say("options.none", language)
    return say("options.fit", language, items=join([show(i) for i in fitting[:2]], language))
