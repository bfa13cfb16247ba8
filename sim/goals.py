"""What a simulated user wants: a task with values, and how the conversation will bend it.

A goal is drawn from the domain's declarations and a seed: the action to finish, a value
for each key it needs (and a few it may take), which values are volunteered at once and
which only when asked, which change midway (absolute, by reference to the old value, or
relative: an added guest, a few degrees warmer, an hour later), which are withdrawn, a
preference the domain has no key for, questions about the task's state, small talk.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from monologue.sim.domain import SimDomain, SimKey
from monologue.sim.values import WEEKDAYS, hhmm

VALUES = Path(__file__).resolve().parent / "templates" / "values.yaml"

# Relative changes by key type (and the key's meaning where the type alone says too little).
RELATIVE_INT = {"party_size": ("more_people", "more_people_n", "fewer_people"),
                "temperature": ("warmer", "cooler", "warmer_n", "cooler_n")}
RELATIVE_TIME = ("later", "earlier")


@dataclass
class PlannedChange:
    style: str                   # abs | ref | rel
    family: str                  # change_abs, change_ref, more_people, warmer_n, later…
    new: Any                     # the value it is meant to produce
    accept: tuple[Any, ...]      # every final value that reads it right ("a little warmer": +1…+3)
    after_turns: int             # turns after the value was given
    delta: int = 0


@dataclass
class GoalSlot:
    key: str
    kind: str
    value: Any
    volunteer: bool = False      # said without being asked (in the first turn, or when nothing is asked)
    change: PlannedChange | None = None
    withdraw_after: int = 0      # > 0: withdrawn this many turns after it was given
    multi: bool = False


@dataclass
class StateQuestion:
    key: str                     # a key, or "next" / "summary"
    after_turn: int


@dataclass
class Goal:
    id: str
    domain: str
    language: str
    actions: tuple[str, ...]                     # what must be done (the first finishes the task)
    slots: dict[str, GoalSlot]
    choose: str = ""                             # a key the user fills by taking one of the agent's offers
    reject_offers: int = 0                       # offers turned down before one is taken
    unknown_preferences: int = 0                 # things the domain has no key for
    state_questions: list[StateQuestion] = field(default_factory=list)
    small_talk_turns: tuple[int, ...] = ()
    hesitation: float = 0.15                     # share of turns that start with a filler or restart
    patience: int = 22                           # user turns before giving up
    today: str = ""                              # ISO date of the session (dates read against it)

    def today_date(self) -> dt.date | None:
        return dt.date.fromisoformat(self.today) if self.today else None


def _pool(language: str, key: str) -> list[str]:
    data = yaml.safe_load(VALUES.read_text(encoding="utf-8")) or {}
    return list((data.get(language) or {}).get(key) or [])


def draw_value(key: SimKey, language: str, rng: random.Random, *, seen: dict[str, list[str]] | None = None,
               avoid: Any = None, words: dict[str, dict[str, list[str]]] | None = None) -> Any:
    """A value of `key`'s type, different from `avoid`. An enum value the user has its own words
    for (`words`: key → value → words) is preferred: a person says "no seafood", not "seafood"."""
    sayable = [v for v in key.values if (words or {}).get(key.name, {}).get(v)]
    for _ in range(20):
        value = rng.choice(sayable) if sayable else _draw(key, language, rng, seen or {})
        if value != avoid and value is not None:
            return value
    return None


def _draw(key: SimKey, language: str, rng: random.Random, seen: dict[str, list[str]]) -> Any:
    if key.type == "int":
        if key.range:
            low, high = key.range
            return rng.randint(low + (high - low) // 4, high - (high - low) // 4)
        return rng.randint(2, 6)
    if key.type == "time":
        return hhmm(rng.choice([11, 12, 13, 17, 18, 19, 20, 21]), rng.choice([0, 0, 30]))
    if key.type == "date":
        return rng.choice(WEEKDAYS)
    if key.type == "money":
        whole = rng.choice(range(20, 160, 5))
        return float(whole) + (rng.choice([0.0, 0.0, 0.5, 0.99]) if key.name == "amount" else 0.0)
    if key.type == "enum":
        return rng.choice(key.values) if key.values else None
    if key.type == "bool":
        return rng.random() < 0.5
    if key.name in ("order_id", "confirmation_number") or key.name.endswith("_id"):
        return rng.choice(["", "A", "W", "B"]) + str(rng.randint(10000, 999999))
    pool = _pool(language, key.name) or list(seen.get(key.name, []))
    return rng.choice(pool) if pool else None


def _relative(slot: GoalSlot, key: SimKey, rng: random.Random) -> PlannedChange | None:
    if key.type == "int" and key.name in RELATIVE_INT:
        family = rng.choice(RELATIVE_INT[key.name])
        value = int(slot.value)
        low, high = key.range or (1, 20)
        if family in ("more_people", "fewer_people"):
            new = value + (1 if family == "more_people" else -1)
            return PlannedChange("rel", family, new, (new,), 0, 1) if low <= new <= high else None
        if family == "more_people_n":
            delta = rng.randint(2, 3)
            return PlannedChange("rel", family, value + delta, (value + delta,), 0, delta)
        if family in ("warmer", "cooler"):
            sign = 1 if family == "warmer" else -1
            accept = tuple(value + sign * d for d in (1, 2, 3) if low <= value + sign * d <= high)
            return PlannedChange("rel", family, accept[0], accept, 0, 1) if accept else None
        delta = rng.randint(2, 3)
        new = value + (delta if family == "warmer_n" else -delta)
        return PlannedChange("rel", family, new, (new,), 0, delta) if low <= new <= high else None
    if key.type == "time":
        family = rng.choice(RELATIVE_TIME)
        hour, minute = (int(p) for p in str(slot.value).split(":"))
        hour += 1 if family == "later" else -1
        if not 0 <= hour <= 23:
            return None
        return PlannedChange("rel", family, hhmm(hour, minute), (hhmm(hour, minute),), 0, 1)
    return None


@dataclass(frozen=True)
class UserWords:
    """What the users of a phrasing corpus say, for a goal's values (`PhrasingBank.values`, `.enum_words`)."""

    values: dict[str, list[str]] | None = None                 # key → text values users said
    enum_words: dict[str, dict[str, list[str]]] | None = None  # key → value → the users' own words for it


def make_goal(domain: SimDomain, language: str, rng: random.Random, *, goal_id: str = "",
              today: dt.date | None = None, said: UserWords | None = None, lasting: int = 0) -> Goal:
    """`lasting`: this many of the domain's lasting preferences are stated (volunteered, never
    changed in the session): what a returning user is later asked about."""
    said = said or UserWords()
    seen, words = said.values, said.enum_words
    action = domain.primary()
    if action is None:
        raise ValueError(f"domain {domain.name} declares no action: a goal needs something to finish")
    actions = [action.name]
    wanted = list(action.needs)
    optional = [k for k in action.optional if k in domain.keys and domain.keys[k].type in ("enum", "int", "time",
                                                                                          "date", "money")]
    rng.shuffle(optional)
    wanted += optional[:rng.choice([0, 1, 1, 2])]
    # Another action of the domain that one key triggers (the cabin's temperature beside the route).
    others = [a for a in domain.actions.values() if a.name != action.name and len(a.needs) == 1
              and a.needs[0] in domain.keys and domain.keys[a.needs[0]].type in ("int", "enum")]
    if others and rng.random() < 0.6:
        other = rng.choice(others)
        actions.append(other.name)
        wanted.append(other.needs[0])
    # A lasting preference the domain keeps, said in passing.
    durable = [k.name for k in domain.keys.values() if k.durable and k.type == "enum" and k.name not in wanted
               and k.name not in action.optional and k.name != action.choose]
    rng.shuffle(durable)
    lasting_keys = [k.name for k in domain.keys.values() if k.durable and k.type in ("enum", "int", "money")
                    and k.name != action.choose]
    rng.shuffle(lasting_keys)
    forced = lasting_keys[:lasting]
    if forced:
        wanted += [k for k in forced if k not in wanted]
    elif durable and rng.random() < 0.4:
        wanted.append(durable[0])
    slots: dict[str, GoalSlot] = {}
    for name in dict.fromkeys(wanted):
        key = domain.keys.get(name)
        if key is None or name == action.choose:
            continue
        value = draw_value(key, language, rng, seen=seen, words=words)
        if value is None:
            continue
        slots[name] = GoalSlot(name, key.type, value, multi=key.multi)
    names = list(slots)
    rng.shuffle(names)
    volunteered = names[:rng.choice([0, 1, 1, 2, 3])]
    for name in names:
        slots[name].volunteer = name in volunteered or name not in action.needs and rng.random() < 0.7
    for name in forced:
        if name in slots:
            slots[name].volunteer = True
    # Changes midway: one most of the time, sometimes two.
    changeable = [n for n in names if not slots[n].multi and n not in forced]
    rng.shuffle(changeable)
    changes = 0 if rng.random() < 0.15 else (2 if rng.random() < 0.3 else 1)
    for name in changeable[:changes]:
        slot, key = slots[name], domain.keys[name]
        planned = _relative(slot, key, rng) if rng.random() < 0.6 else None
        if planned is None:
            new = draw_value(key, language, rng, seen=seen, avoid=slot.value, words=words)
            if new is None:
                continue
            style = rng.choice(["abs", "ref"])
            planned = PlannedChange(style, f"change_{style}", new, (new,), 0)
        planned.after_turns = rng.randint(1, 4)
        slot.change = planned
    # A value given and then taken back (only one the action can do without).
    withdrawable = [n for n in names if n not in action.needs and slots[n].change is None and n not in forced]
    if withdrawable and rng.random() < 0.35:
        slots[rng.choice(withdrawable)].withdraw_after = rng.randint(1, 3)
    questions = [StateQuestion(rng.choice(names) if names and rng.random() < 0.7 else rng.choice(["next", "summary"]),
                               rng.randint(3, 8)) for _ in range(rng.choice([1, 1, 2]))]
    return Goal(goal_id or f"{domain.name}-{language}", domain.name, language, tuple(actions), slots,
                choose=action.choose, reject_offers=1 if action.choose and rng.random() < 0.3 else 0,
                unknown_preferences=1 if rng.random() < 0.5 else 0, state_questions=questions,
                small_talk_turns=tuple(sorted(rng.sample(range(2, 9), rng.choice([0, 1, 1, 2])))),
                hesitation=rng.choice([0.0, 0.1, 0.2, 0.3]), today=(today or dt.date(2026, 12, 3)).isoformat())
