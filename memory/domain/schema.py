"""Domain schemas: which condition keys exist, their types, and the words that name them.

A schema guides extraction; it does not limit the state: a key it does not know is
still kept (as text), so nothing the user said is dropped for want of a schema entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DOMAIN = "restaurant"      # configs/default.yaml's choice, for code that runs without a config
DOMAINS_DIR = Path(__file__).resolve().parents[2] / "configs" / "domains"
KEY_TYPES = ("int", "time", "date", "money", "enum", "text", "bool")


class Reader(StrEnum):
    """How the rules read a key's value from an utterance (the language knowledge behind
    each is in `memory/language/`). A key without a reader is read only from its enum
    values, or by the LLM."""

    NONE = ""
    CLOCK_TIME = "clock_time"        # "7 pm", 晚上七点 → 19:00
    DATE = "date"                    # "Saturday", "the 3rd of March", 下周五
    AMOUNT_LIMIT = "amount_limit"    # "under 50", 三百以内 → at most
    HEAD_COUNT = "head_count"        # "four people", "table for 4", 四个人
    PLACE_NAME = "place_name"        # a capitalised place after one of `name_cues` ("in Midtown")
    TITLE_NAME = "title_name"        # a capitalised title after one of `name_cues` ("try Luigi's Trattoria")
    QUANTITY = "quantity"            # a number with one of `units` ("21 degrees", 二十二度), or after `set_cues`
    IDENTIFIER = "identifier"        # a code with a digit after one of the key's aliases ("order number A-4471")
    FREE_TEXT = "free_text"          # a wish no other key reads, in the user's words ("somewhere quiet")
    WORDS_AFTER = "words_after"      # what is asked for after one of `name_cues`, as said ("play some Adele")
    EMAIL = "email"                  # an email address, written or spelled out ("jenna dot price at gmail dot com")


@dataclass(frozen=True)
class OtherScale:
    """A second scale a quantity may be said in (Fahrenheit beside Celsius): a number in its
    `value_range` said with one of its `words`, or bare in a language of `bare`, is offered
    converted (number × factor + offset) for a yes, never set unasked."""

    words: dict[str, tuple[str, ...]]
    value_range: tuple[float, float]
    factor: float
    offset: float
    said: dict[str, str]                   # the number as said on this scale: "{n} degrees Fahrenheit", 华氏{n}度
    bare: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reading:
    """How the rules read a key beyond its value words: the YAML fields a phrasing needs
    Every field is per language, and empty unless the YAML gives it."""

    units: dict[str, tuple[str, ...]] = field(default_factory=dict)       # quantity: "degrees", 度
    # The controls whose command meets how this key is felt (太热 beside 座椅加热关了 or "open the
    # window": the reason for that command, not a change of this key too).
    eased_by: tuple[str, ...] = ()
    # An amount that measures this scale's steps where an option's own is known ("有没有便宜点的" after a
    # place at ¥117 a head: under ¥117, not the band below): the price level's, the budget.
    measured_by: str = ""
    value_range: tuple[float, float] | None = None                          # quantity: what a reading may be
    other_scale: OtherScale | None = None                                   # quantity: 72 (°F) offered as 22
    set_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)    # "keep it at" before a bare number
    not_when: dict[str, tuple[str, ...]] = field(default_factory=dict)    # "outside": the clause is not about this key
    # A value is read only when its clause has one of these ("seat": "move my seat back", not "call me back").
    value_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Things whose refusal or dislike means a value ("I can't stand motorways" → avoid_highways).
    avoided: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # The key's own ways to refuse a value, before it ("can't eat", 不吃) or after it ("allergy", 过敏).
    negation_before: dict[str, tuple[str, ...]] = field(default_factory=dict)
    negation_after: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Words that lift a refusal: the value is withdrawn ("not allergic to", 不过敏); `lifted_now`
    # ones only with a word of change in the clause ("I can eat spicy food now").
    lifted: dict[str, tuple[str, ...]] = field(default_factory=dict)
    lifted_now: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A one-off key ("this trip only"): "today" in its clause marks the exception, not a date.
    one_off: bool = False
    # Its values that set a lasting one aside for now (use_tolls: avoid_tolls): that one is not
    # read back beside it ("Boston, no tolls, toll road").
    sets_aside: dict[str, str] = field(default_factory=dict)
    # Relative changes (memory/working/relative.py): the step of "a bit" (minutes for a time, days
    # for a date), and the key's own words for up and down ("warmer", 凉).
    step: float | None = None
    more: dict[str, tuple[str, ...]] = field(default_factory=dict)
    less: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # With nothing held, "an extra $45", 多扣了45元 says the value itself (a disputed sum), where
    # "two more people" leaves the total unknown (asked back). YAML: relative: {extra_is_the_value: true}.
    extra_is_the_value: bool = False
    # A control's values are verbs said with the control as their object, before or after it
    # (打开座椅加热, 座椅加热打开, "turn the seat heater on"): a value is read only from a clause
    # with one of `value_cues`, on either side, never from the sentence around it.
    verb_values: bool = False
    # Each command moves the control a step ("quieter", 再往后一点): said again, it moves again,
    # where a value said again is otherwise already done.
    moves: bool = False
    # words_after: what leads and trails the thing asked for ("some", "a song by"; "please", 的歌),
    # and what names nothing in particular ("some music", 歌). YAML: words_after: {lead, tail, nothing}.
    lead_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    tail_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    nothing_particular: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Another key's values that leave this one's behind (the next song is not the song asked
    # for): set to one of them, with this key not said again, this key is let go.
    cleared_by: dict[str, tuple[str, ...]] = field(default_factory=dict)     # ("*": any value of that key)
    # …and the other way: set, this key brings another key's value with it (a song asked for
    # starts the music), unless that key is said this turn.
    brings: dict[str, str] = field(default_factory=dict)
    # A level moved by another key's step values (the fan at 3, "turn the fan up": 4): key →
    # value → how far it moves the level held.
    stepped_by: dict[str, dict[str, float]] = field(default_factory=dict)
    # Words that let every value the key holds go ("go straight there", 不用接了，直接去雍和宫: no stops).
    dropped_by: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A time said with "after" or "before" (以后, 之前) is a bound, not the time itself: a call back
    # "after five" is any time from 17:00 on (>=), "before noon" any time up to 12:00 (<=).
    bounds: bool = False
    # A day gone by ("last Tuesday", 昨天) is this date key's value: when a parcel was due, not when
    # to go or be called (any other date key reads only days to come).
    past_days: bool = False

    def cleared_by_value(self, key: str, value: object) -> bool:
        """Whether `key` set to `value` leaves this key behind (`cleared_by`)."""
        values = self.cleared_by.get(key, ())
        return "*" in values or str(value) in values


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
    # Words that say a value only where the rest of their clause names nothing else (换成黑色的 is an
    # exchange; 换成退款, 换个地址 are not): read after every other value (memory/working/extract.py).
    loose_values: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    loose_not_when: dict[str, tuple[str, ...]] = field(default_factory=dict)   # …nor beside these (换个地址)
    # Words that say a value again only once the key held it and moved off it ("don't cancel it,
    # I'll return it" … "ok, go ahead and cancel"): read like `loose_values`.
    said_again: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # A value that says how far another goes: read in the same clause, it is the one meant ("roll down
    # my window halfway": partly open, not open).
    refines: dict[str, tuple[str, ...]] = field(default_factory=dict)
    reader: Reader = Reader.NONE
    name_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)   # words before a name, per language
    # Words of switching to another, read as `name_cues` just after this key's value was carried out
    # (换成五月天 after a song): said otherwise, they lead to lanes and places as often.
    switch_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)
    described_as: dict[str, tuple[str, ...]] = field(default_factory=dict)  # "X is a … NOUN" names X
    # Capitalised words before these nouns (or after the verbs) are values the schema does
    # not list ("some Burmese food", "it serves Ethiopian").
    open_value_nouns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    open_value_verbs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    affirmed_values: tuple[str, ...] = ()        # of a set-valued key: said plainly, they are included
    # …and said with a degree (微辣, "not too spicy"): how much of it, a wish, not a refusal
    degree_values: tuple[str, ...] = ()
    heard: dict[str, str] = field(default_factory=dict)      # "{value} people": how a value is read back
    # How a condition reads in a sentence, by comparator ("for {value} people", "no {value} food").
    phrases: dict[str, dict[str, str]] = field(default_factory=dict)
    reading: Reading = field(default_factory=Reading)
    description: str = ""            # what the key means, in a sentence (from an imported schema)
    # "learned": values the schema cannot list (names, cities, titles) are read by the
    # learned value reader (`memory/working/values.py`); "": only by the rules and the LLM.
    open_value: str = ""
    ask: dict[str, str] = field(default_factory=dict)   # how the agent asks for this key, per language
    # The place key these are stops on the way to: a place said before that one, with a word of
    # sequence between (先去幼儿园，再去公司; "the bank first, then home"), is a stop.
    on_the_way_to: str = ""
    # The time key this date is the day of (a call back's): a day said when that time was asked
    # for is this key's, as is one said beside the key's `value_cues`; other dates go elsewhere.
    day_of: str = ""
    # The value the agent picks when the user leaves it to it ("up to you", 你看着办), if any.
    suggested: Any = None
    # Words turning an offer down that this key answers ("too far", 太远了: the area): held, the
    # offer is turned down; not held, it is asked for, as nothing can be judged nearer without it.
    complaints: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A question in these words asks for the value in it to be set ("how do I get to Union
    # Square?", 去颐和园怎么走: take me there), not about it.
    asked_for_by: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # One side of the car's controls ("the passenger window", 副驾的座椅加热) is a key of its own
    # (`sides:` in the YAML): `sides` maps each side key to the words that name it, per language; a
    # side key names the whole it is one side of (`side_of`). The rules read the whole's value and
    # move it to the side its clause names (memory/working/sides.py); a new value of the whole
    # lets every side's go.
    sides: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    side_of: str = ""

    def label(self, language: str = "en") -> str:
        return self.labels.get(language) or self.labels.get("en") or self.name.replace("_", " ")

    def value_words(self, value: str, language: str = "en") -> tuple[str, ...]:
        return self.values.get(value, {}).get(language, ())

    def phrase(self, comparator: str, language: str = "en") -> str | None:
        """This key's own wording of a condition, if its YAML gives one (`any`: for every comparator)."""
        table = self.phrases.get(language, {})
        return table.get(comparator) or table.get("any")


@dataclass(frozen=True)
class ActionSpec:
    """Something the agent does for the user once the state holds what it needs (D2):
    book a table, set a route, open a ticket. Declared in the domain's YAML (`actions:`);
    the dialogue policy decides when, a tool (`dialogue/tools.py`) carries it out."""

    name: str
    needs: tuple[str, ...] = ()          # required keys, most important first: asked for in this order
    choose: str = ""                     # a key filled by picking one of the catalogue's options
    # Keys that say what kind of option is wanted: asking whether one exists ("is there a Sichuan
    # place?", 有川菜吗) asks for it, and sets them.
    chosen_by: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()       # read back and passed on when the state has them
    # Keys needed once another holds a value (`needs_when: {contact_method: {text: [contact_phone]}}`): a
    # text back needs a number to text.
    needs_when: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    confirm: bool = True                 # read back and wait for a yes before acting
    completes: bool = False              # doing it finishes the session's task
    triggers: tuple[str, ...] = ()       # keys whose change asks for this action at once (in-car controls)
    verb: dict[str, str] = field(default_factory=dict)     # "book" / 订: "shall I book it?"
    task: dict[str, str] = field(default_factory=dict)     # "the booking" / 订位: "back to the booking"
    # What was done, past tense, with {key} and {details}: "booked {restaurant_name} {details}".
    said: dict[str, str] = field(default_factory=dict)
    # How the user calls the task off (`called_off:` in the YAML): the nouns that name it ("cancel
    # the booking", 取消订位) and the verbs of "not … any more" (不订了, "don't need to book").
    task_nouns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    task_verbs: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.needs + ((self.choose,) if self.choose else ()) + self.optional


@dataclass(frozen=True)
class OutOfSight:
    """Something the agent cannot know in this domain (travel times, traffic), with its cue
    words per language and what it says when asked."""

    cues: dict[str, tuple[str, ...]]
    say: dict[str, str]


@dataclass(frozen=True)
class DomainSchema:
    name: str
    keys: dict[str, KeySpec]
    goal_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    goal_text: dict[str, str] = field(default_factory=dict)
    role: dict[str, str] = field(default_factory=dict)
    at_the_wheel: bool = False    # the user is driving: a tired user is told to rest before anything else
    turn_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)   # the domain's change cue words
    catalogue: str = ""       # the options this domain offers (configs/catalogues/NAME.yaml), if any
    description: str = ""
    actions: dict[str, ActionSpec] = field(default_factory=dict)   # what the agent can do, in the YAML's order
    # A catalogue per language (`catalogue: {en: restaurants, zh: beijing_restaurants}`); `catalogue`
    # is the one for a language it does not name (English's, else the first).
    catalogues: dict[str, str] = field(default_factory=dict)
    # What the agent cannot see, and says so when asked (`out_of_sight:` in the YAML): a question
    # with one of `cues` ("how long till we get there?", 还要多久) is answered with `say`, not "I'm
    # not sure", and a stronger provider with the facts it is given.
    out_of_sight: tuple[OutOfSight, ...] = ()
    # Said to any other question about the world the agent cannot answer (`not_sure:`), in place of "I'm
    # not sure about that": who can ("the team handling the ticket will tell you").
    not_sure: dict[str, str] = field(default_factory=dict)
    # The sides of keys that have them (`KeySpec.sides`), by name: keys for what is held, asked and
    # done, but never read by the rules themselves (`keys` leaves them out, so no reader sees a
    # window's words twice).
    sides: dict[str, KeySpec] = field(default_factory=dict)

    def unseen_answer(self, text: str, language: str) -> str:
        """What the agent says to a question about something it cannot see, or ""."""
        lowered = text.lower()
        for entry in self.out_of_sight:
            cues = entry.cues.get(language, ())
            if any((re.search(r"(?<![\w'])" + re.escape(c.lower()) + r"(?![\w'])", lowered) if language == "en"
                    else c in text) for c in cues):
                return entry.say.get(language) or entry.say.get("en", "")
        return ""

    def primary_action(self) -> ActionSpec | None:
        """The action that finishes the domain's task (book, set the route, open a ticket)."""
        actions = list(self.actions.values())
        return next((a for a in actions if a.completes), actions[0] if actions else None)

    def kinds_of_option(self) -> frozenset[str]:
        """The keys that say what kind of option is wanted (every action's `chosen_by`)."""
        return frozenset(k for action in self.actions.values() for k in action.chosen_by)

    def complaint_answered_by(self, text: str, language: str) -> str:
        """The key whose `complaints` the text says ("that's a bit far from us": the area), or ""."""
        for spec in self.keys.values():
            if any(re.search(r"(?<!\w)(?<!not )(?<!isn't )" + re.escape(w) + r"(?!\w)" if language == "en"
                             else r"(?<!不)" + re.escape(w), text, re.I)
                   for w in spec.complaints.get(language, ())):
                return spec.name
        return ""

    def catalogue_in(self, language: str) -> str:
        """The catalogue a session in `language` offers from ("" when the domain has none)."""
        return self.catalogues.get(language) or self.catalogue

    def key(self, name: str) -> KeySpec:
        """The spec of `name` (a side's too); unknown keys are open text keys, never an error."""
        return self.keys.get(name) or self.sides.get(name) or KeySpec(name=name)

    def knows(self, name: str) -> bool:
        """Whether `name` is one of the domain's keys or of their sides."""
        return name in self.keys or name in self.sides

    def all_keys(self) -> list[KeySpec]:
        """The keys, then their sides."""
        return [*self.keys.values(), *self.sides.values()]

    def sides_of(self, name: str) -> list[KeySpec]:
        """The side keys of `name` ("the passenger window" of the windows), in the YAML's order."""
        return [self.sides[side] for side in self.key(name).sides if side in self.sides]

    def scales(self) -> dict[str, tuple[str, ...]]:
        """The enum keys whose values are steps of one scale, in the order the YAML lists them
        (their `relative: {more, less}` words move along it: cheap … ultra high-end)."""
        return {spec.name: tuple(spec.values) for spec in self.keys.values()
                if spec.type == "enum" and (spec.reading.more or spec.reading.less)}

    def level_stepped_by(self, key: str) -> KeySpec | None:
        """The level `key`'s values move a step (`stepped_by`: the fan level for the fan's up and
        down, the cabin's temperature for its warmer and cooler), or None."""
        return next((spec for spec in self.keys.values() if key in spec.reading.stepped_by), None)

    def is_control(self, name: str) -> bool:
        """A key whose value is a command carried out at once, the task going on (a trigger of an
        action neither read back first nor ending the task: the car's climate, seat, windows): a
        new value is a new command, never asked about. (A new destination still may be.)"""
        return any(not action.confirm and not action.completes and name in action.triggers
                   for action in self.actions.values())

    def read_by(self, reader: Reader) -> list[KeySpec]:
        """The keys the rules read with `reader`, in the YAML's order."""
        return [spec for spec in self.keys.values() if spec.reader == reader]

    def enum_lexicon(self, language: str) -> list[tuple[str, str, str]]:
        """(surface words, key, value) for every enum value, longest words first."""
        rows = [
            (word.lower(), spec.name, value)
            for spec in self.keys.values() if spec.type == "enum"
            for value, words in spec.values.items()
            for lang in (language, "en") for word in words.get(lang, ())
        ]
        return sorted(set(rows), key=lambda row: (-len(row[0]), row))   # ties in a fixed order

    def alias_lexicon(self, language: str) -> list[tuple[str, str]]:
        rows = [
            (alias.lower(), spec.name)
            for spec in self.all_keys()      # (a side by its own name: "is the passenger window open?")
            for lang in (language, "en") for alias in spec.aliases.get(lang, ())
        ]
        rows += [(spec.label(lang).lower(), spec.name) for spec in self.all_keys() for lang in (language, "en")]
        rows += [(word.lower(), spec.name) for spec in self.keys.values() if spec.type == "enum"
                 for words in spec.values.values() for lang in (language, "en") for word in words.get(lang, ())]
        return sorted(set(rows), key=lambda row: (-len(row[0]), row))   # ties in a fixed order


def _words(block: Any) -> dict[str, tuple[str, ...]]:
    return {lang: tuple(str(w) for w in words) for lang, words in (block or {}).items()}


def _reader(raw: Any, where: str) -> Reader:
    try:
        return Reader(raw or "")
    except ValueError:
        known = ", ".join(r.value for r in Reader if r.value)
        raise ValueError(f"{where} has reader {raw!r}; use one of {known}") from None


def _reading(raw: dict[str, Any]) -> Reading:
    """The reading fields of one key (see `Reading`)."""
    span = raw.get("range")
    return Reading(
        units=_words(raw.get("units")),
        eased_by=tuple(str(k) for k in raw.get("eased_by") or ()),
        measured_by=str(raw.get("measured_by") or ""),
        value_range=(float(span[0]), float(span[1])) if span else None,
        other_scale=_other_scale(raw.get("other_scale")),
        set_cues=_words(raw.get("set_cues")),
        not_when=_words(raw.get("not_when")),
        value_cues=_words(raw.get("value_cues")),
        avoided={value: _words(words) for value, words in (raw.get("avoided") or {}).items()},
        negation_before=_words((raw.get("negation") or {}).get("before")),
        negation_after=_words((raw.get("negation") or {}).get("after")),
        lifted=_words((raw.get("negation") or {}).get("lifted")),
        lifted_now=_words((raw.get("negation") or {}).get("lifted_now")),
        one_off=bool(raw.get("one_off", False)),
        sets_aside={str(k): str(v) for k, v in (raw.get("sets_aside") or {}).items()},
        step=float(raw["step"]) if raw.get("step") is not None else None,
        more=_words((raw.get("relative") or {}).get("more")),
        less=_words((raw.get("relative") or {}).get("less")),
        extra_is_the_value=bool((raw.get("relative") or {}).get("extra_is_the_value", False)),
        verb_values=bool(raw.get("verb_values", False)),
        moves=bool(raw.get("moves", False)),
        lead_words=_words((raw.get("words_after") or {}).get("lead")),
        tail_words=_words((raw.get("words_after") or {}).get("tail")),
        nothing_particular=_words((raw.get("words_after") or {}).get("nothing")),
        cleared_by={str(k): tuple(str(v) for v in values) for k, values in (raw.get("cleared_by") or {}).items()},
        brings={str(k): str(v) for k, v in (raw.get("brings") or {}).items()},
        stepped_by={str(k): {str(v): float(by) for v, by in (steps or {}).items()}
                    for k, steps in (raw.get("stepped_by") or {}).items()},
        dropped_by=_words(raw.get("dropped_by")),
        bounds=bool(raw.get("bounds", False)),
        past_days=bool(raw.get("past_days", False)),
    )


def _other_scale(raw: Any) -> OtherScale | None:
    if not raw:
        return None
    low, high = raw["range"]
    return OtherScale(words=_words(raw.get("words")), value_range=(float(low), float(high)),
                      factor=float(raw["factor"]), offset=float(raw.get("offset", 0.0)),
                      said=_texts(raw.get("said")), bare=tuple(raw.get("bare") or ()))


OPEN_VALUE_SOURCES = ("", "learned")


def _open_value(raw: Any, where: str) -> str:
    value = str(raw or "")
    if value not in OPEN_VALUE_SOURCES:
        raise ValueError(f"{where} has open_value {raw!r}; use learned or leave it out")
    return value


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
            loose_values={value: _words(words) for value, words in (raw.get("loose_values") or {}).items()},
            said_again={value: _words(words) for value, words in (raw.get("said_again") or {}).items()},
            refines={str(value): tuple(str(v) for v in others) for value, others in (raw.get("refines") or {}).items()},
            loose_not_when=_words(raw.get("loose_not_when")),
            reader=_reader(raw.get("reader"), f"domain {data.get('name')}: key {name}"),
            name_cues=_words(raw.get("name_cues")),
            switch_cues=_words(raw.get("switch_cues")),
            described_as=_words(raw.get("described_as")),
            open_value_nouns=_words((raw.get("open_values") or {}).get("nouns")),
            open_value_verbs=_words((raw.get("open_values") or {}).get("verbs")),
            affirmed_values=tuple(str(v) for v in raw.get("affirmed_values") or ()),
            degree_values=tuple(str(v) for v in raw.get("degree_values") or ()),
            heard={k: str(v) for k, v in (raw.get("heard") or {}).items()},
            phrases={lang: {str(c): str(s) for c, s in (table or {}).items()}
                     for lang, table in (raw.get("phrases") or {}).items()},
            reading=_reading(raw),
            description=str(raw.get("description") or ""),
            open_value=_open_value(raw.get("open_value"), f"domain {data.get('name')}: key {name}"),
            ask={k: str(v) for k, v in (raw.get("ask") or {}).items()},
            suggested=raw.get("suggested"),
            complaints=_words(raw.get("complaints")),
            asked_for_by=_words(raw.get("asked_for_by")),
            on_the_way_to=str(raw.get("on_the_way_to") or ""),
            day_of=str(raw.get("day_of") or ""),
            sides={str(side): _words((entry or {}).get("words")) for side, entry in (raw.get("sides") or {}).items()},
        )
    sides = {side: _side_of(keys[name], side, entry or {}, str(data.get("name")))
             for name, raw in (data.get("keys") or {}).items() for side, entry in (raw.get("sides") or {}).items()}
    for spec in keys.values():
        if spec.on_the_way_to and spec.on_the_way_to not in keys:
            raise ValueError(f"domain {data.get('name')}: key {spec.name} is on_the_way_to {spec.on_the_way_to!r}, "
                             f"which is not a key; known: {', '.join(keys)}")
        if spec.day_of and spec.day_of not in keys:
            raise ValueError(f"domain {data.get('name')}: key {spec.name} is the day_of {spec.day_of!r}, "
                             f"which is not a key; known: {', '.join(keys)}")
    return DomainSchema(name=str(data.get("name", "custom")), keys=keys,
                        goal_words=_words(data.get("goal_words")),
                        goal_text={k: str(v) for k, v in (data.get("goal_text") or {}).items()},
                        role={k: str(v) for k, v in (data.get("role") or {}).items()},
                        at_the_wheel=bool(data.get("at_the_wheel", False)),
                        turn_cues=_words(data.get("turn_cues")),
                        out_of_sight=tuple(OutOfSight(_words(entry.get("cues")), _texts(entry.get("say")))
                                           for entry in data.get("out_of_sight") or ()),
                        not_sure=_texts(data.get("not_sure")),
                        catalogue=_catalogues(data.get("catalogue")).get("", ""),
                        description=str(data.get("description") or ""),
                        actions=_actions(data, keys, sides),
                        sides=sides,
                        catalogues={k: v for k, v in _catalogues(data.get("catalogue")).items() if k})


def _catalogues(raw: Any) -> dict[str, str]:
    """`catalogue:` as language → name, with "" → the one for languages it does not name."""
    if isinstance(raw, dict):
        named = {str(k): str(v) for k, v in raw.items() if v}
        return {**named, "": named.get("en") or next(iter(named.values()), "")}
    return {"": str(raw)} if raw else {}


def _texts(block: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in (block or {}).items()}


def _relabelled(text: str, whole: KeySpec, side: KeySpec, language: str) -> str:
    """`text` about the whole said of one side: the whole's label and placeholder replaced by the
    side's ("put the windows {window}" → "put the passenger window {passenger_window}")."""
    return re.sub(r"\{[^}]*\}|" + re.escape(whole.label(language)),
                  lambda m: ("{" + side.name + "}" if m.group() == "{" + whole.name + "}" else m.group())
                  if m.group().startswith("{") else side.label(language), text)


def _side_of(whole: KeySpec, name: str, raw: dict[str, Any], domain: str) -> KeySpec:
    """The key of one side of `whole` (`sides:` in the YAML): its values, reading and wording,
    under the side's own label ("passenger window", 副驾车窗)."""
    labels = _texts(raw.get("label"))
    if not labels or not _words(raw.get("words")):
        raise ValueError(f"domain {domain}: side {name} of key {whole.name} needs a label and words "
                         f"(sides: {{{name}: {{label: {{en: ...}}, words: {{en: [...]}}}}}})")
    # (not lasting: the passenger's seat is not the driver's own preference)
    side = replace(whole, name=name, labels=labels, sides={}, side_of=whole.name, durable=False,
                   aliases={lang: (label,) for lang, label in labels.items()},
                   reading=replace(whole.reading, cleared_by={**whole.reading.cleared_by, whole.name: ("*",)}))
    return replace(side, phrases={lang: {c: _relabelled(t, whole, side, lang) for c, t in table.items()}
                                  for lang, table in whole.phrases.items()},
                   ask={lang: _relabelled(t, whole, side, lang) for lang, t in whole.ask.items()})


def _sides_of_actions(actions: dict[str, ActionSpec], sides: dict[str, KeySpec],
                      keys: dict[str, KeySpec]) -> dict[str, ActionSpec]:
    """For each action a whole with sides triggers (set the windows), the same action for each side
    ("set_windows:passenger_window"), said of that side."""
    out: dict[str, ActionSpec] = {}
    for action in actions.values():
        for side in sides.values():
            whole = keys[side.side_of]
            if whole.name in action.triggers:
                out[f"{action.name}:{side.name}"] = _action_of_side(action, whole, side)
    return out


def _action_of_side(action: ActionSpec, whole: KeySpec, side: KeySpec) -> ActionSpec:
    def of_side(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(side.name if n == whole.name else n for n in names)

    def said(table: dict[str, str]) -> dict[str, str]:
        return {lang: _relabelled(t, whole, side, lang) for lang, t in table.items()}

    return replace(action, name=f"{action.name}:{side.name}", needs=of_side(action.needs),
                   optional=of_side(action.optional), triggers=of_side(action.triggers), verb=said(action.verb),
                   task=said(action.task), said=said(action.said))


def _actions(data: dict[str, Any], keys: dict[str, KeySpec],
             sides: dict[str, KeySpec] | None = None) -> dict[str, ActionSpec]:
    """The domain's `actions:`, and those of its keys' sides; every key an action names must be one
    of the domain's keys."""
    out: dict[str, ActionSpec] = {}
    for name, raw in (data.get("actions") or {}).items():
        raw = raw or {}
        spec = ActionSpec(
            name=str(name), needs=tuple(str(k) for k in raw.get("needs") or ()), choose=str(raw.get("choose") or ""),
            chosen_by=tuple(str(k) for k in raw.get("chosen_by") or ()),
            optional=tuple(str(k) for k in raw.get("optional") or ()), confirm=bool(raw.get("confirm", True)),
            completes=bool(raw.get("completes", False)), triggers=tuple(str(k) for k in raw.get("triggers") or ()),
            verb=_texts(raw.get("verb")), task=_texts(raw.get("task")), said=_texts(raw.get("said")),
            task_nouns=_words((raw.get("called_off") or {}).get("nouns")),
            task_verbs=_words((raw.get("called_off") or {}).get("verbs")),
            needs_when={str(k): {str(v): tuple(str(n) for n in needed) for v, needed in (table or {}).items()}
                        for k, table in (raw.get("needs_when") or {}).items()})
        when = [k for key, table in spec.needs_when.items() for k in (key, *(n for ns in table.values() for n in ns))]
        unknown = [k for k in spec.keys + spec.triggers + spec.chosen_by + tuple(when) if k not in keys]
        if unknown:
            raise ValueError(f"domain {data.get('name')}: action {name} names unknown keys {unknown}; "
                             f"known: {', '.join(keys)}")
        out[spec.name] = spec
    return {**out, **_sides_of_actions(out, sides or {}, keys)}


@lru_cache(maxsize=16)
def load_schema(name_or_path: str = DEFAULT_DOMAIN) -> DomainSchema:
    """A bundled domain by name (restaurant, in_car, customer_service) or a YAML path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = DOMAINS_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in DOMAINS_DIR.glob("*.yaml")))
        raise ValueError(f"no domain schema {name_or_path!r}; bundled: {known}, or give a YAML path")
    return parse_schema(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
