"""Stops said on the way to where the user is going, and the one place a kind of place names.

先去趟幼儿园接孩子，再去公司; 去加油站，然后去机场; "swing by the bank first, then take me home": a
place said before the destination, with a word of sequence between them, is a stop on the way,
not a destination the user then put right (先去公司，算了，去机场 is that). A key declares what it
holds the stops to (`on_the_way_to` in the domain YAML); the words of sequence are the
language's. The place after the sequence word is left to the destination's own readers.

Nothing here names a domain or a key.
"""

from __future__ import annotations

import re

from monologue.memory.domain.schema import DomainSchema, KeySpec
from monologue.memory.language.cues import SELF_REPAIR, STATE_CUES, negated_at
from monologue.memory.language.places import PlaceSaid, find_place_en, find_place_zh, not_going
from monologue.memory.language.stances import clause_bounds, tells_of_the_past
from monologue.memory.working.readers import Add, Span, overlaps, value_pattern
from monologue.memory.working.state import Comparator, Op, Operation, SessionState

# A word of sequence before a word of going on (再去公司, 然后回家; "then home", "and after that to
# the office"). Not 再 alone: 再高一点 moves a setting.
_THEN = {"zh": re.compile(r"[，,。\s]*(?:(?:然后|之后|接着|完了|完事|回头)再?|再)\s*"
                          r"(?=去|到|回|开到|开去|导航|送我|带我)"),
         "en": re.compile(r",?\s*\b(?:and then|then|after that|afterwards|and after that)\b,?\s*", re.IGNORECASE)}
# What a stop said first carries after it in English ("the bank first").
_FIRST_EN = re.compile(r"\s+first\b.*$", re.IGNORECASE)
# A place the user is at or has left is where the drive starts, not a stop (我刚从公司出来，然后去机场;
# "I just left the gym, then take me home"; "I'm at the office now").
# …nor one refused (不去公司了，然后去机场).
_WHERE_FROM = {"zh": re.compile(r"(?:从|离开|在|到了|已经到|不|别|甭|不用|不要)[^，,。]{0,3}$"),
               "en": re.compile(r"\b(?:from|left|leaving|at|in|out of|not|don'?t|no longer)\s+(?:go(?:ing)?\s+)?"
                                r"(?:to\s+)?(?:the\s+)?$", re.IGNORECASE)}


def read_stops_said_first(schema: DomainSchema, text: str, lang: str, taken: list[Span], add: Add) -> None:
    """The places said before the destination, with a word of sequence between, as stops."""
    for stops in schema.keys.values():
        if not stops.on_the_way_to or lang not in _THEN:
            continue
        going = schema.key(stops.on_the_way_to)
        for then in _THEN[lang].finditer(text):
            # (The place gone to after it is said in its clause: 机场晚点再去，先去国贸 puts the airport off.)
            if not _going_somewhere(schema, going, text[then.end():clause_bounds(text, then.end(), then.end())[1]],
                                    lang):
                continue
            for start, end, value in _places_before(schema, going, stops, text[:then.start()], lang):
                if overlaps((start, end), taken):
                    continue
                left, right = clause_bounds(text, start, end)
                add(Operation(Op.SET, stops.name, Comparator.INCLUDES, value, text[left:right].strip(),
                              reason="a stop on the way, said before where to go"), (start, end))
            break


# A place to go to first, said after where to ("导航去公司，呃不对，先回趟家拿东西", "take me to work but
# first swing by home"): a stop on the way.
_FIRST = {"zh": re.compile(r"先(?:回|去|到|绕|拐|顺路去|顺便去)(?:趟|一趟|一下|个)?"),
          # (…and the place said with "first" after it, where to go held: "take me home first actually")
          "en": re.compile(r"\b(?:but|and)?\s*first\s+(?:swing by|stop (?:by|at)|go to|drop by|pop into|head to)\s+|"
                           r"\b(?:take (?:me|us)|go|head|drive (?:me|us)?|swing|stop|drop|pop|get (?:me|us))\s+"
                           r"(?:back\s+)?(?:to|by|at|over to|into|in at)?\s*(?=[^,.;!?]{1,40}?\s+first\b)",
                           re.IGNORECASE)}


# (Put off is not given up: 先别去机场了，先去国贸接个人 goes to 国贸 first, then to the airport.)
_GIVEN_UP = re.compile(r"(?<!先)(?:不去|别去|不用去|不要)|算了|取消|\b(?:not going|cancel|forget|never mind|scratch)\b",
                       re.IGNORECASE)


_PUT_OFF = {"zh": re.compile(r"先(?:别|不|不要|甭)(?:去|到|回)"),
            "en": re.compile(r"\b(?:hold off on|put off|not yet)\b", re.IGNORECASE)}
_NEVER = re.compile(r"(?!)")


def read_stops_first_after(schema: DomainSchema, text: str, lang: str, taken: list[Span], add: Add,
                           going_held: bool) -> None:
    """A place said to be gone to first, after where to go (said in the same breath, or held):
    a stop. (Where to given up before it, 算了，先回家吧 and 不去机场了，先回家 go home.)"""
    for stops in schema.keys.values():
        if not stops.on_the_way_to or lang not in _FIRST:
            continue
        going = schema.key(stops.on_the_way_to)
        for first in _FIRST[lang].finditer(text):
            before = text[:first.start()]
            # (加油站不去了，先去国贸: a stop given up, not where to; 不去机场了，先回家 goes home)
            stop_given_up = _stop_given_up(schema, stops, before, lang)
            if not (going_held or _going_somewhere(schema, going, before, lang)) \
                    or _GIVEN_UP.search(before) and not (going_held and stop_given_up):
                continue
            _, right = clause_bounds(text, first.end(), first.end())
            found = _places_before(schema, going, stops, text[first.start():right], lang)
            for start, end, value in found[:1]:
                span = (first.start() + start, first.start() + end)
                if not overlaps(span, taken):
                    add(Operation(Op.SET, stops.name, Comparator.INCLUDES, value, text[first.start():right].strip(),
                                  reason="a stop on the way, to go to first"), (first.start(), first.start() + end))
                    if stop_given_up and stop_given_up != value:
                        # (先别去加油站了，改成先去国贸: the stop put off is replaced by this one)
                        add(Operation(Op.WITHDRAW, stops.name, value=stop_given_up, words=before.strip(),
                                      reason="a stop given up for another"), (0, 0))
                    # Where to, put off till then (先别去机场了), stays where to: its words are no change.
                    for put_off in _PUT_OFF.get(lang, _NEVER).finditer(before):
                        taken.append(clause_bounds(text, put_off.start(), put_off.end()))


def _stop_given_up(schema: DomainSchema, stops: KeySpec, before: str, lang: str) -> str:
    """The kind of stop `before` gives up or puts off (加油站不去了, 先别去加油站了, "skip the gas
    station"), or ""."""
    said = _GIVEN_UP.search(before) or _PUT_OFF.get(lang, _NEVER).search(before) \
        or (re.search(r"不去了|不去|别去了", before) if lang == "zh" else None)
    if said is None:
        return ""
    clause = before[slice(*clause_bounds(before, said.start(), said.end()))].lower()
    return next((value for word, key, value in schema.enum_lexicon(lang)
                 if key == stops.name and re.search(value_pattern(word, lang == "en"), clause)), "")


def _find(going: KeySpec, text: str, lang: str) -> list[PlaceSaid]:
    cues = going.name_cues.get(lang, ())
    return find_place_en(text, cues) if lang == "en" else find_place_zh(text, cues)


def _going_somewhere(schema: DomainSchema, going: KeySpec, text: str, lang: str) -> bool:
    """Whether `text` (after the word of sequence) names where to go: a place, or one of the key's values."""
    return bool(_find(going, text, lang)) or any(
        key == going.name and re.search(value_pattern(word, lang == "en"), text.lower())
        for word, key, _value in schema.enum_lexicon(lang))


def _places_before(schema: DomainSchema, going: KeySpec, stops: KeySpec, text: str,
                   lang: str) -> list[tuple[int, int, str]]:
    """(start, end, stop) for each place said in `text`: a kind of stop the key lists by its
    value (加油站 → fuel), any other place as said (幼儿园, 公司)."""
    found: list[tuple[int, int, str]] = []
    for place in _find(going, text, lang):
        if not_going(text, place, lang) or tells_of_the_past(text, place.start, place.end, lang):
            continue        # 不去公司了，然后去机场: refused, not on the way
        name = _FIRST_EN.sub("", place.name) if lang == "en" else place.name
        found.append((place.start, place.start + len(name), _stop_value(stops, name, lang) or name))
    for word, key, value in schema.enum_lexicon(lang):
        if key not in (going.name, stops.name):
            continue
        for m in re.finditer(value_pattern(word, lang == "en"), text.lower()):
            if not overlaps(m.span(), [(start, end) for start, end, _ in found]):
                # (A destination's word said as a stop is said as the key says it: 回家 is 家里.)
                said = value if key == stops.name else (going.value_words(value, lang) or (text[m.start():m.end()],))[0]
                found.append((m.start(), m.end(), said))
    found = sorted(f for f in found if not _WHERE_FROM[lang].search(text[:f[0]]))
    # (先送我去公司，不对，先去银行取个钱: the place put right is no stop.)
    return [f for i, f in enumerate(found) if i == len(found) - 1 or not SELF_REPAIR.search(text[f[1]:found[i + 1][0]])]


def _stop_value(stops: KeySpec, name: str, lang: str) -> str:
    """The stop kind a place's name is one of the words for (加油站 → fuel), or ""."""
    said = name.casefold().removeprefix("the ")
    return next((value for value, words in stops.values.items()
                 if any(said == w.casefold().removeprefix("the ") for w in words.get(lang, ()))), "")


# A stop refused by name, before it or after it (不去星巴克了, "skip Joe's", 超市那个不去了).
_STOP_REFUSED_BEFORE = re.compile(r"(?:不|别|甭)(?:去|到|在)$|\b(?:skip|forget|cancel|drop|no)\s+(?:the\s+)?$")
_STOP_REFUSED_AFTER = re.compile(r"\s*(?:那个|这个|那里|那儿)?(?:就)?"
                                 r"(?:不去了|不用去了|不停了|不用了|不要了|取消|算了)|"
                                 r"\s+(?:is\s+)?(?:off|cancelled|canceled)\b")


def read_stops_refused(spec: KeySpec, text: str, source: str, lang: str, state: SessionState,
                       taken: list[Span], add: Add) -> None:
    """不去星巴克了, "skip Joe's Diner", 超市那个不去了: a stop held, named by itself or by its
    kind's word and refused, is taken off the way. (`source`: `text` as the readers match it.)"""
    cues = STATE_CUES[lang]
    for stop in state.find(spec.name):
        for word in (str(stop.value), *spec.value_words(str(stop.value), lang)):
            at = source.find(word.casefold() if cues.spaced else word)
            where = (at, at + len(word))
            if at >= 0 and not overlaps(where, taken) and (
                    negated_at(text, at, cues) or _STOP_REFUSED_BEFORE.search(source[:at])
                    or _STOP_REFUSED_AFTER.match(source, where[1])):
                left, right = clause_bounds(text, *where)
                add(Operation(Op.WITHDRAW, spec.name, value=stop.value, words=text[left:right].strip(),
                              reason="the user is not stopping there"), where)
                break


ON_A_STREET = "a kind of place, with the street it is on"
# What names a street ("Main Street", "Harbor Rd", "5th Avenue").
_STREET_EN = r"(?:street|st|road|rd|avenue|ave|boulevard|blvd|drive|dr|lane|ln|way|square|plaza|highway|hwy)"


def read_kind_on_a_street(schema: DomainSchema, spec: KeySpec, text: str, taken: list[Span], add: Add,
                          correction: bool) -> None:
    """"The hospital on Main Street", "work, the office on Harbor Road": a kind of place the key
    lists, said with the street it is on, is that one place (it had been any hospital). English."""
    kinds = "|".join(re.escape(w) for w, key, _v in schema.enum_lexicon("en") if key == spec.name)
    if not kinds:
        return
    found = re.search(r"\b(?P<v>(?:the |my )?(?:" + kinds + r") (?:on|at|in|near|by|off) (?!(?:the|my) way\b)(?:the )?"
                      r"(?:[\w'.]+ ){0,3}" + _STREET_EN + r")\b", text, re.IGNORECASE)   # (not "on the way")
    if found is not None and not overlaps(found.span("v"), taken):
        left, right = clause_bounds(text, *found.span("v"))
        add(Operation(Op.SET, spec.name, Comparator.EQ, found.group("v"), text[left:right].strip(),
                      correction=correction, reason=ON_A_STREET), found.span("v"))


__all__ = ["ON_A_STREET", "read_kind_on_a_street", "read_stops_first_after", "read_stops_refused",
           "read_stops_said_first"]
