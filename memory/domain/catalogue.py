"""Candidate options filtered by the working state, so a reply can only offer what fits.

The state drives the query: a small LLM told "no spicy food" may still recommend the
Sichuan place first; one that is only shown places without spicy food cannot.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import yaml

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import negated_at
from monologue.memory.language.names import NameFinder, name_finder
from monologue.memory.language.phrases import join, join_choices, say
from monologue.memory.language.place_questions import WHAT_IT_IS_LIKE
from monologue.memory.language.wishes import content_words, qualities_named, scales_named
from monologue.memory.working.state import Condition, SessionState, describe_condition

CATALOGUES_DIR = Path(__file__).resolve().parents[2] / "configs" / "catalogues"


# The kind of place an English name may end with ("Pier 9 Oyster Bar", "Blue Moon Kitchen").
_KIND_OF_PLACE_EN = re.compile(r"\s+(?:(?:oyster|wine|sushi|noodle|tapas|sports) )?(?:bar|kitchen|grill|house|cafe|"
                               r"café|bistro|trattoria|osteria|restaurant|diner|eatery|court|garden|tavern|pub|brasserie)$",
                               re.IGNORECASE)


@dataclass(frozen=True)
class Catalogue:
    """What the agent can offer: items whose attributes use the domain's keys and values.

    An item's `name` is one string, in the language the catalogue is said in (`in_language`);
    `names` holds every name it has, per language ({en: Chili House, zh: 辣椒屋}), so a user
    who says any of them means the same item."""

    items: list[dict[str, Any]]
    details: tuple[str, ...] = field(default=())   # attributes said with an offered item's name
    name_key: str = ""        # the domain key an item's name fills ("restaurant_name"), if any
    # What a user may ask about an item ("这家人均多少？", "where is it?"): attribute → the words
    # that ask for it and how the answer is said, per language (`answer`).
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A limit on a domain key read against an item's amount ({budget: {attribute:
    # price_per_person, heads: party_size}}): 人均五十左右 leaves out a place at 83 a head.
    amounts: dict[str, dict[str, str]] = field(default_factory=dict)

    def in_language(self, language: str) -> Catalogue:
        """The catalogue as a session in `language` says it: each item named in that language,
        or (it has no such name) in English, else its first. Nothing else changes: attributes
        keep every language's form, so conditions said in either language still filter."""
        items = [{**item, "name": item_name(item, language)} for item in self.items]
        return Catalogue(items, self.details, self.name_key, self.facts, self.amounts)

    def asked_fact(self, text: str, language: str) -> str:
        """The attribute `text` asks about ("price_per_person" for 人均多少), or ""."""
        return next(iter(self.asked_facts(text, language)), "")

    def asked_facts(self, text: str, language: str) -> list[str]:
        """Every attribute `text` asks about, in the order asked ("where is it, and how much is
        it?": address, then price)."""
        lowered = text.casefold()
        found: list[tuple[int, str]] = []
        for key, fact in self.facts.items():
            cues = (fact.get("cues") or {}).get(language) or ()
            at = [m.start() for cue in cues for m in re.finditer(_cue_pattern(str(cue)), lowered)
                  if not _ones_own(lowered, m.start(), m.end()) and not _another_measure(lowered, m.start())
                  and not _a_call_had(lowered, m.start(), m.end())
                  and not _amount_given(lowered, m.start(), m.end())]
            if at:
                found.append((min(at), key))
        return [key for _, key in sorted(found)]

    def answers(self, item: dict[str, Any], keys: list[str], language: str, schema: DomainSchema | None = None) -> str:
        """Several of the item's facts in one sentence, the name said once ("海底捞火锅(西单店)在西单
        北大街109号，人均83元。"; in English joined by semicolons): a reply keeps to two sentences."""
        said = [a for i, key in enumerate(keys) if (a := self.answer(item, key, language, named=i == 0, schema=schema))]
        if language == "en":
            return "; ".join([a.rstrip(".") for a in said[:-1]] + said[-1:])
        return "，".join(a.rstrip("。") for a in said) + ("。" if said else "")

    def answer(self, item: dict[str, Any], key: str, language: str, named: bool = True,
               schema: DomainSchema | None = None) -> str:
        """The item's `key` said as the catalogue's `facts` say it ("海底捞火锅(西单店)人均83元。"),
        or that it is not known; "" when the catalogue has no words for it in `language`.
        `named`: False leaves a Chinese answer's name out (said already, earlier in the sentence).
        `schema`: a value of one of its keys is said in that key's words ("ultra high-end", not
        ultra_high_end)."""
        fact = self.facts.get(key) or {}
        sentence = str((fact.get("say") or {}).get(language) or "")
        if not sentence:
            return ""
        name = item_name(item, language) if named or language == "en" else ""
        value = item.get(key)
        if value is None or value == "" or value == []:
            return say("option.fact_unknown", language, name=name)
        if isinstance(value, dict):       # said per language: {en: Riverside, zh: 河畔}
            value = said_in(value, language)
        elif isinstance(value, str) and schema is not None and key in schema.keys and value in schema.key(key).values:
            spec = schema.key(key)
            value = _value_said(spec.value_words(value, language) or spec.value_words(value, "en"), value)
        if isinstance(value, list):
            value = join([str(said_in(v, language)) for v in value[:3]], language)
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        said = str(value)
        if language == "zh":
            # 09:00-21:00 → 09:00到21:00, as it is said; a phone's area code is no range (010-59683511)
            said = re.sub(r"(?<!\b0\d\d)(?<!\b0\d\d\d)\s*[-–—~]\s*", "到", said)
        said = re.sub(r"(?<=\d)\s*[,，]\s*(?=\d)", "，或" if language == "zh" else " or ", said)   # two phone numbers
        return sentence.format(name=name, value=said).removeprefix("的")    # (unnamed: 评分是5分, not 的评分…)

    def answer_about(self, item: dict[str, Any], text: str, language: str, schema: DomainSchema) -> str:
        """A yes/no question about `item` that no fact's cue answers ("is there a private room?",
        可以带狗吗). A value of an attribute the catalogue records is looked up ("No: Luigi's
        Trattoria's seating is indoor, outdoor or window."); words its description shares are
        read from it; anything else, the listing does not say, and the agent says so (with the
        place's phone, where it has one) instead of guessing or passing over the question."""
        name = item_name(item, language)
        for key, value in self._values_named(text, language, schema):
            held = item.get(key)
            values = [v for v in (held if isinstance(held, list) else [held]) if v is not None]
            spec = schema.key(key)
            said = _value_said(spec.value_words(value, language) or spec.value_words(value, "en"), value)
            if value in values:
                # ("Yes: Green Table has outdoor seating", "…has vegetarian options": the key's own words)
                label = spec.label(language)
                if language != "en":
                    what = f"{label}有{said}"
                else:
                    own = spec.phrase("includes" if spec.multi else "=", language)
                    what = own.format(value=said, label=label) if own else f"{said} {label}"
                return say("option.has_value", language, name=name, what=what)
            others = [_value_said(spec.value_words(str(v), language), str(said_in(v, language))) for v in values]
            if others:
                return say("option.other_values", language, name=name, value=said, label=spec.label(language),
                           values=join_choices(others, language) if language == "en" else join(others, language))
        described = str(said_in(item.get("described") or "", language))
        if described and (WHAT_IT_IS_LIKE[language].search(text) if language in WHAT_IT_IS_LIKE else False):
            return say("option.described", language, name=name, described=described)   # ("what's it like there?")
        if described and (content_words(text, language) & content_words(described, language)
                          or scales_named(text, language) & scales_named(described, language)):
            return say("option.described", language, name=name, described=described)
        phone = str(item.get("phone") or "").split(",")[0].strip()
        if phone:
            return say("option.not_listed_phone", language, name=name, phone=phone)
        return say("option.not_listed", language, name=name)

    def rank_by_values_wished(self, items: list[dict[str, Any]], wishes: list[str], language: str,
                              schema: DomainSchema) -> list[dict[str, Any]]:
        """Items that have a value a wish in words names first ("two of them are vegetarian": a place
        that serves vegetarian food), the order otherwise kept."""
        named = [pair for wish in wishes for pair in self._values_named(wish, language, schema)]
        if not named:
            return items

        def has(item: dict[str, Any]) -> int:
            return sum(value in (v if isinstance(v := item.get(key), list) else [v]) for key, value in named)

        return sorted(items, key=has, reverse=True)

    def _values_named(self, text: str, language: str, schema: DomainSchema) -> list[tuple[str, str]]:
        """(key, value) for each value of an attribute this catalogue records that `text` names,
        not negated ("anything not spicy?" names no spicy), longest words first."""
        lowered, found = text.casefold(), []
        for word, key, value in schema.enum_lexicon(language):
            if key not in self.attributes or (key, value) in found:
                continue
            match = re.search(r"(?<![\w'])" + re.escape(word) + r"(?![\w'])" if word.isascii() else re.escape(word),
                              lowered)
            if match and not negated_at(text, match.start()):
                found.append((key, value))
        return found

    def renamed(self, text: str, language: str) -> str:
        """`text` with each item's name as this catalogue says it replaced by its name in
        `language`: a Chinese reply in an English session says 辣椒屋, not Chili House."""
        pairs = [(str(item["name"]), item_name(item, language)) for item in self.items]
        for said, wanted in sorted(pairs, key=lambda pair: -len(pair[0])):
            if said != wanted and said in text:
                text = text.replace(said, wanted)
        return text

    def said_names(self) -> dict[str, str]:
        """Every way an item is named (any language, and without its branch in brackets) → the
        name this catalogue says it by. A chain's name without a branch (羊大爷涮肉坊, for
        亮马桥店 and 西苑店) is its first branch in the catalogue's order, which the agent then
        names in full when it reads the booking back: the user said that place, and had been
        taken to accept the place on offer instead. Names under three characters are left out:
        大董, 慢走 are also words."""
        spoken: dict[str, str] = {}
        short: dict[str, list[str]] = {}
        for item in self.items:
            for name in item_names(item):
                spoken.setdefault(name, str(item["name"]))
                base = _BRANCH.sub("", name).strip()
                if base and base != name:
                    short.setdefault(base, []).append(str(item["name"]))
        for base, items in short.items():
            spoken.setdefault(base, items[0])
        for item in self.items:       # the brand a chain goes by (四季民福 for 四季民福烤鸭店): its first place
            for brand in item.get("said") or ():
                spoken.setdefault(str(brand), str(item["name"]))
        for item in self.items:
            # "Luigi's" for Luigi's Trattoria: a name led by an owner's is said by it alone.
            for name in item_names(item):
                owner = re.match(r"([A-Z][\w-]*'s)\s+\S", name)
                if owner:
                    spoken.setdefault(owner.group(1), str(item["name"]))
                # "Pier 9" for Pier 9 Oyster Bar: a name is said without the kind of place it ends
                # with, where what is left is a name still (a number in it, or two words or more).
                kind = _KIND_OF_PLACE_EN.search(name)
                left = name[:kind.start()].strip() if kind is not None else ""
                if left and (re.search(r"\d", left) or len(re.sub(r"^the\s+", "", left, flags=re.I).split()) >= 2):
                    spoken.setdefault(left, str(item["name"]))
        return {said: name for said, name in spoken.items() if len(said.strip()) >= 3}

    def named_in(self, text: str) -> dict[str, Any] | None:
        """The first item `text` names, as written or (in Chinese) as heard: "杨大爷算肉芳有位子吗"
        is about 羊大爷涮肉坊; None when it names none (不要海底捞火锅 names none to talk about)."""
        found = [f for f in self._names.find(text) if not negated_at(text, f.start)]
        return self._by_name.get(found[0].value) if found else None

    def names_said_in(self, text: str) -> tuple[str, ...]:
        """The words of `text` that name an item, as said ("海底捞不错" → 海底捞)."""
        return tuple(text[f.start:f.end] for f in self._names.find(text))

    def refused_in(self, text: str) -> list[str]:
        """The items `text` turns down by name: 不要海底捞火锅 is every branch of 海底捞火锅."""
        refused: list[str] = []
        for found in self._names.find(text):
            if not negated_at(text, found.start):
                continue
            said = text[found.start:found.end].strip().casefold()
            branches = [str(item["name"]) for item in self.items if any(
                said in (name.casefold(), _BRANCH.sub("", name).strip().casefold())
                for name in [*item_names(item), *(str(b) for b in item.get("said") or ())])]
            refused += branches or [found.value]
        return list(dict.fromkeys(refused))

    @cached_property
    def attributes(self) -> frozenset[str]:
        """Every attribute an item has (cuisine, location, dishes…): what tells options apart."""
        return frozenset(key for item in self.items for key in item)

    @cached_property
    def _names(self) -> NameFinder:
        return name_finder(tuple(self.said_names().items()))

    @cached_property
    def _by_name(self) -> dict[str, dict[str, Any]]:
        by_name: dict[str, dict[str, Any]] = {}
        for item in self.items:
            by_name.setdefault(str(item["name"]), item)
        return by_name

    @cached_property
    def _by_any_name(self) -> dict[str, dict[str, Any]]:
        by_name: dict[str, dict[str, Any]] = {}
        for item in self.items:
            for name in item_names(item):
                by_name.setdefault(name, item)
        return by_name

    def item_called(self, name: str) -> dict[str, Any] | None:
        """The item one of whose names (in any language, or as written) is `name`; the first listed."""
        return self._by_any_name.get(name)

    def said_values(self, key: str, language: str) -> dict[str, str]:
        """Every form of the items' `key` values (any language; a district without its 区,
        朝阳 for 朝阳区) → the form said in `language`: how the user names an area the
        catalogue knows, when no rule of the domain reads it."""
        spoken: dict[str, str] = {}
        for item in self.items:
            raw = item.get(key)
            for value in raw if isinstance(raw, list) else [raw] if raw is not None else []:
                said = str(said_in(value, language))
                for form in value.values() if isinstance(value, dict) else [value]:
                    spoken.setdefault(str(form), said)
                    if re.fullmatch(r"[\u4e00-\u9fff]{2,3}[区县]", str(form)):
                        spoken.setdefault(str(form)[:-1], said)
        return {form: said for form, said in spoken.items() if len(form.strip()) >= 2}


# A branch said after a chain's name: 海底捞火锅(西单店), 护国寺小吃店（护国寺总店）.
_BRANCH = re.compile(r"\s*[（(][^）)]*[）)]\s*$")


def _value_said(words: tuple[str, ...], value: str) -> str:
    """How a value is said: its own name where it is one of its words ("indoor", not "inside"),
    else its first word, else the value as stored."""
    plain = value.replace("_", " ")
    return plain if plain in words else words[0] if words else plain


def item_names(item: dict[str, Any]) -> list[str]:
    """Every name an item has, its own first (and as written, with its branch in brackets)."""
    names = item.get("names") or {}
    return list(dict.fromkeys([str(item["name"]), *(str(n) for n in names.values()),
                               *(str(n) for n in item.get("written") or ())]))


def item_name(item: dict[str, Any], language: str) -> str:
    """The item's name in `language`; else its English one; else the first it has."""
    names = item.get("names") or {}
    return str(names.get(language) or names.get("en") or next(iter(names.values()), item["name"]))


def said_in(value: Any, language: str) -> Any:
    """A per-language attribute ({en: Downtown, zh: 市中心}) as said in `language` (else in
    English, else its first form); any other value as it is."""
    if isinstance(value, dict):
        return value.get(language) or value.get("en") or next(iter(value.values()), "")
    return value


def _named(item: dict[str, Any]) -> dict[str, Any]:
    """An item as loaded: a per-language `name` becomes `names`, with `name` its English one
    (else its first), so every reader of `name` still gets one string."""
    raw = item["name"]
    written = [str(n) for n in (raw.values() if isinstance(raw, dict) else [raw]) if n and _BRACKETS.search(str(n))]
    if written:     # said without brackets: 海底捞火锅(西单店) is said 海底捞火锅西单店
        raw = {lang: spoken_name(str(n)) for lang, n in raw.items()} if isinstance(raw, dict) else spoken_name(raw)
        item = {**item, "name": raw, "written": written}
    if not isinstance(raw, dict):
        return item
    names = {str(lang): str(n) for lang, n in raw.items() if n}
    if not names:
        raise ValueError(f"catalogue item with no name: {item}")
    return {**item, "name": names.get("en") or next(iter(names.values())), "names": names}


_BRACKETS = re.compile(r"\s*[（(]([^）)]*)[）)]\s*")


def spoken_name(name: str) -> str:
    """A name as it is said: a branch in brackets joined on ("海底捞火锅(西单店)" → 海底捞火锅西单店;
    "Luigi's (Downtown)" → Luigi's Downtown). A reply never reads brackets aloud."""
    def joined(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        spaced = bool(re.search(r"[A-Za-z0-9]", inner))
        return f" {inner} " if spaced else inner
    return re.sub(r"\s+", " ", _BRACKETS.sub(joined, name)).strip()


def load_catalogue(name_or_path: str) -> Catalogue:
    """A bundled catalogue by name (restaurants) or a YAML path: a mapping with `items`
    (and optional `details`), or a bare list of items. An item's `name` is a string or one
    per language ({en: ..., zh: ...})."""
    path = Path(name_or_path).expanduser()
    if not path.suffix:
        path = CATALOGUES_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        raise ValueError(f"no catalogue {name_or_path!r} (bundled: "
                         f"{', '.join(p.stem for p in CATALOGUES_DIR.glob('*.yaml'))}, or a YAML path)")
    return _load(path.resolve(), path.stat().st_mtime_ns)


# libyaml's reader where it is built: the 951 Beijing restaurants load in 0.2 s instead of 1.1 s.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=8)
def _load(path: Path, _mtime: int) -> Catalogue:
    """One read per file and version: every session of a process shares it (nothing changes
    a loaded catalogue; `in_language` makes new items)."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or []
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(i, dict) and "name" in i for i in items):
        raise ValueError(f"catalogue {path} must hold a list of mappings (under `items:`), each with a name")
    details = tuple(str(d) for d in data.get("details") or ()) if isinstance(data, dict) else ()
    name_key = str(data.get("name_key") or "") if isinstance(data, dict) else ""
    facts = data.get("facts") or {} if isinstance(data, dict) else {}
    if not isinstance(facts, dict) or not all(isinstance(f, dict) for f in facts.values()):
        raise ValueError(f"catalogue {path}: `facts` must map an attribute to its cues and sentence")
    amounts = data.get("amounts") or {} if isinstance(data, dict) else {}
    if not isinstance(amounts, dict) or not all(isinstance(a, dict) and "attribute" in a for a in amounts.values()):
        raise ValueError(f"catalogue {path}: `amounts` must map a key to the item's `attribute` it is read against")
    return Catalogue([_named(item) for item in items], details, name_key, facts, amounts)


def _values(item: dict[str, Any], key: str) -> list[Any] | None:
    if key not in item:
        return None
    raw = item[key]
    forms = raw if isinstance(raw, list) else [raw]
    # A per-language value is each of its forms: "Downtown" and 市中心 are the same place.
    return [str(f).lower() for v in forms for f in (v.values() if isinstance(v, dict) else [v])]


def _cue_pattern(cue: str) -> str:
    # (English cues as whole words: "cheaper" is no "cheap", asked of this place.)
    return r"(?<![\w'])" + re.escape(cue.casefold()) + r"(?![\w'])" if cue.isascii() else re.escape(cue.casefold())


def _another_measure(text: str, start: int) -> bool:
    """Whether the fact's word at `start` is qualified into another measure the listing does not
    hold (包间有最低消费吗 asks a minimum spend, not the price per person; "minimum cost")."""
    return bool(re.search(r"(?:最低|最少|最高|起步|minimum|min\.?|maximum)\s*$", text[max(0, start - 10):start]))


# An amount the user gives with the fact's word, as a wish rather than a question (人均五十左右,
# 人均控制在一百五以内, "around 20 per person", "a price under 50").
_AMOUNT = r"(?:\$|¥)?\s*(?:\d+|[一二两三四五六七八九十百千]+)"
_AMOUNT_AFTER = re.compile(r"\s*(?:在|是|控制在|大概|大约|差不多|不超过|不要超过|最多|"
                           r"around|about|under|below|of|is|within|"
                           r"max|at most|no more than|less than)?\s*" + _AMOUNT
                           # (多少钱一位: asked)
                           + r"(?![\d一二两三四五六七八九十百千]*(?:左右|上下)?(?:吗|么|\?|？|位|个|人|份))")
_AMOUNT_BEFORE = re.compile(_AMOUNT + r"\s*(?:元|块钱?|yuan|bucks|dollars|kuai)?\s*(?:a|an)?\s*$")


def _amount_given(text: str, start: int, end: int) -> bool:
    """Whether the fact's word at text[start:end] comes with an amount the user gives: a wish
    for the price, not a question about the place's ("有没有便宜点的，人均五十左右")."""
    return bool(_AMOUNT_AFTER.match(text, end) or _AMOUNT_BEFORE.search(text[max(0, start - 16):start]))


def _ones_own(text: str, start: int, end: int) -> bool:
    """Whether the fact's word at text[start:end] is the user's own, given rather than asked
    ("我姓李，电话一三八…", "my number is 555 0123"): said after 我/my, or followed by the number."""
    return bool(re.search(r"(?:我|my|our)(?:的)?\s*(?:\w+\s)?$", text[max(0, start - 12):start])
                or re.match(r"\s*(?:号码)?(?:是|is|:|：)?\s*[\d一二三四五六七八九零幺][\d一二三四五六七八九零幺 -]{4,}",
                            text[end:]))


def _a_call_had(text: str, start: int, end: int) -> bool:
    """Whether the fact's word at text[start:end] tells of a call the user had, no question about
    the place's number ("哎刚接到电话，…", "I just got a phone call")."""
    before = text[max(0, start - 6):start]
    return bool(re.search(r"(?:接到|接了|接个|来了|打了|挂了|回了|回个)(?:个|一个|一通)?$", before)
                or re.match(r"\s*calls?\b", text[end:]))


def _met_by_its_kind(item: dict[str, Any], condition: Condition) -> bool:
    """A need the item meets by what it is, said under another attribute (vegetarian food: a
    restaurant whose cuisine is vegetarian)."""
    wanted = str(condition.value).lower()
    return condition.comparator == "includes" and any(
        wanted in (_values(item, key) or ()) for key in item if key not in (condition.key, "name", "names"))


def known_to_meet(item: dict[str, Any], condition: Condition) -> bool:
    """Whether the item is known to meet the condition: its attribute says so, or its kind does."""
    return _met_by_its_kind(item, condition) or (condition.key in item and not breaks(item, condition))


def breaks(item: dict[str, Any], condition: Condition, needs_known: Collection[str] = (),
           scales: Mapping[str, Sequence[str]] | None = None) -> bool:
    """True when the item certainly breaks the condition. Unknown attributes never do, except a
    need on a key of `needs_known` (vegetarian food, roast duck asked for: a place not known to
    serve it is not offered, after "no place is known to"). On a key of `scales` (its values in
    order, cheap to ultra high-end), a value refused in the dearer half refuses those above it too
    ("nothing pricey": not the ultra high-end either), and one in the cheaper half those below."""
    wanted = str(condition.value).lower()
    if _met_by_its_kind(item, condition):
        return False        # (vegetarian food asked for: a vegetarian restaurant, its kind, meets it whole)
    values = _values(item, condition.key)
    if values is None:
        return condition.comparator in ("includes", "=") and condition.key in needs_known
    scale = [str(v).lower() for v in (scales or {}).get(condition.key, ())]
    if condition.comparator == "!=" and wanted in scale:
        at = scale.index(wanted)
        beyond = scale[at:] if at >= len(scale) / 2 else scale[:at + 1]
        return any(str(v).lower() in beyond for v in values)
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


def filter_options(items: list[dict[str, Any]], state: SessionState, needs_known: Collection[str] = (),
                   amounts: dict[str, dict[str, str]] | None = None,
                   scales: Mapping[str, Sequence[str]] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """(items that fit every live condition, one line per excluded item saying why). An item
    known to meet a condition comes before one that only does not break it (its attribute is
    unknown): asked for 朝阳区, a place in 朝阳区 first, one whose area is not known after.
    `needs_known`: keys whose needs only an item known to meet them fits (see `breaks`);
    `amounts`: the catalogue's (see `Catalogue.amounts`, `per_item`)."""
    fitting, excluded = [], []
    conditions = [per_item(c, state, amounts or {}) for c in state.constraints.values()]
    for item in items:
        broken = [c for c in conditions if breaks(item, c, needs_known, scales)]
        if broken:
            excluded.append(f"{item['name']} (breaks {describe_condition(broken[0])})")
        else:
            fitting.append(item)
    fitting.sort(key=lambda item: sum(c.key not in item for c in conditions))
    return fitting, excluded


# A limit said per head (人均五十, "20 a head") or for the whole party (一共五百, "200 in total"),
# and one said roughly (左右, "around"), which a place a little over still meets.
_PER_HEAD = re.compile(r"人均|每人|每个人|一个人|一人|每位|per person|a head|per head|each|apiece|pp\b", re.IGNORECASE)
_FOR_ALL = re.compile(r"一共|总共|总的|整桌|一桌|全部|加起来|in total|total|altogether|all of us|for everyone|all in",
                      re.IGNORECASE)
_ROUGHLY = re.compile(r"左右|上下|大概|大约|差不多|around|about|roughly|or so|\d+ish|-ish", re.IGNORECASE)
ROUGHLY_OVER = 1.2


def per_item(condition: Condition, state: SessionState, amounts: dict[str, dict[str, str]]) -> Condition:
    """`condition` as an item's attribute holds it: a limit on a key the catalogue reads against
    an amount of each item (a budget against the price per person) becomes one on that amount,
    per head (a total for the party divided by its size), a tenth or two over a rough one
    allowed. Any other condition is itself."""
    amount = amounts.get(condition.key)
    if amount is None or condition.comparator not in ("<=", ">="):
        return condition
    try:
        limit = float(condition.value)
    except (TypeError, ValueError):
        return condition
    heads = next((c.value for c in state.find(amount.get("heads", "")) if c.comparator == "="), None)
    if isinstance(heads, (int, float)) and heads > 1 and _FOR_ALL.search(condition.words) \
            and not _PER_HEAD.search(condition.words):
        limit /= heads
    if _ROUGHLY.search(condition.words):
        limit = limit * ROUGHLY_OVER if condition.comparator == "<=" else limit / ROUGHLY_OVER
    return dataclasses.replace(condition, key=amount["attribute"], value=limit)


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


def said_about(item: dict[str, Any], language: str) -> str:
    """Everything the catalogue says an item is: its description, its names and its dishes (想吃烤鸭
    is met by 全聚德烤鸭店, or by a place whose dishes include 烤鸭)."""
    dishes = item.get("dishes") or []
    return " ".join([described(item, language), *item_names(item),
                     *(str(d) for d in (dishes if isinstance(dishes, list) else [dishes]))]).strip()


@functools.lru_cache(maxsize=16384)
def _words_of_dish(dish: str, language: str) -> frozenset[str]:
    return frozenset(content_words(dish, language) | content_words(dish, "en"))


def _food_words(items: list[dict[str, Any]], language: str) -> frozenset[str]:
    """The words of every dish the items list (each dish read once)."""
    words: set[str] = set()
    for item in items:
        dishes = item.get("dishes") or []
        for dish in dishes if isinstance(dishes, list) else [dishes]:
            words |= _words_of_dish(str(dish), language)
    return frozenset(words)


def rank_by_wishes(items: list[dict[str, Any]], wishes: list[str], language: str) -> list[dict[str, Any]]:
    """Items that fit, the ones the catalogue says are what the user wished for first
    ("somewhere quiet": "quiet, tables well apart"; 想吃烤鸭: a roast duck house), the ones it
    speaks against last. An item it says nothing about is neither; the order is otherwise kept.
    Only where the catalogue can say: with nothing matching any wish, nothing moves."""
    if not wishes:
        return items

    food = _food_words(items, language)

    def score(item: dict[str, Any]) -> int:
        text = said_about(item, language)
        if not text:
            return 0
        # A name's words count only where they are food (全聚德烤鸭店 for 想吃烤鸭): a wish for a room
        # "with a TV" is not met by 中央电视塔, nor one for a good table by Green Table.
        names = " ".join(item_names(item))
        rest = text.replace(names, " ") if names else text
        has = content_words(rest, language) | content_words(rest, "en") | (
            (content_words(names, language) | content_words(names, "en")) & food)
        total = 0
        for wish in wishes:
            against = _AGAINST.search(wish)
            # "a table away from the kitchen": what is wished away is what follows the "away".
            wished = wish[against.end():] if against else wish
            wanted = _and_plain_forms(content_words(wished, language))
            # ("somewhere peaceful" is met by "quiet", 清静 by 安静: a quality said in other words)
            if wanted & has or qualities_named(wished, language) & qualities_named(rest, language):
                total += -1 if against else 1
        return total

    return sorted(items, key=score, reverse=True)


def _and_plain_forms(words: set[str]) -> set[str]:
    """Words with the plain form of each comparative ("somewhere quieter" wishes for what the
    catalogue calls "quiet"; cheaper, calmer, nicer, fancier)."""
    plain = set(words)
    for word in words:
        if word.isascii() and len(word) > 5 and word.endswith("er"):
            plain |= {word[:-2], word[:-1]} | ({word[:-3] + "y"} if word.endswith("ier") else set())
    return plain


OPTIONS_SHOWN = 2


def offered_options(catalogue: Catalogue, state: SessionState, language: str = "en") -> list[dict[str, Any]]:
    """The options `render_options` shows, as the domain values a "yes" may confirm
    (key → value; only the name, in `language`, under the catalogue's `name_key`)."""
    if not catalogue.name_key:
        return []
    fitting, _excluded = filter_options(catalogue.items, state, amounts=catalogue.amounts)
    return [{catalogue.name_key: item_name(item, language)} for item in fitting[:OPTIONS_SHOWN]]


def render_options(catalogue: Catalogue, state: SessionState, language: str = "en") -> str:
    """The first two items that fit the state, each with the catalogue's `details`.
    English by default: the reply prompt's instructions are English in every language,
    and the options line is read as one of them."""
    fitting, _excluded = filter_options(catalogue.items, state, amounts=catalogue.amounts)

    def show(item: dict[str, Any]) -> str:
        shown = ", ".join(str(said_in(item[k], language)) for k in catalogue.details if k in item)
        name = item_name(item, language)
        return f"{name} ({shown})" if shown else name

    # Only what fits: naming the excluded places, even as "do not offer", makes small
    # models offer them.
    if not fitting:
        return say("options.none", language)
    return say("options.fit", language, items=join([show(i) for i in fitting[:OPTIONS_SHOWN]], language))
