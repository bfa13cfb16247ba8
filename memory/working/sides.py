"""One side of a control: "crack the driver's window", 把副驾的窗户关上，主驾的打开, 我媳妇说她那边
座椅加热开一下. The rules read the whole control's value (the windows, the seat heating) as
ever; here a value whose clause names one of the whole's sides (`sides:` in the domain YAML) is
moved to that side's key, and a command said next without naming anything ("a bit more",
"close it again") goes on with the side just commanded.

Which words name which side is the YAML's; nothing here names a domain, a key or a side.
"""

from __future__ import annotations

import re
from dataclasses import replace

from monologue.memory.domain.schema import DomainSchema, KeySpec
from monologue.memory.language.cues import ALL_OF_THEM
from monologue.memory.language.stances import clause_bounds
from monologue.memory.working.readers import conjunct, mentions, names_key, words_of
from monologue.memory.working.state import Op, Operation

Span = tuple[int, int]


def side_words(spec: KeySpec, lang: str) -> tuple[str, ...]:
    """Every word that names one of `spec`'s sides (主驾, 副驾, "passenger"), in `lang`."""
    return tuple(w for words in spec.sides.values() for w in words_of(words, lang))


def sides_named(schema: DomainSchema, whole: KeySpec, text: str, lang: str) -> list[KeySpec]:
    """The sides of `whole` that `text` names, in the YAML's order."""
    return [side for side in schema.sides_of(whole.name)
            if mentions(text, words_of(whole.sides.get(side.name, {}), lang), lang == "en")]


def on_their_sides(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span], lang: str,
                   commanded: frozenset[str]) -> list[Operation]:
    """`ops` with each value of a whole that has sides moved to the sides its clause names: one op
    per side named ("open the driver's and passenger windows"); the whole said plainly stays the
    whole ("close the windows": all of them)."""
    out: list[Operation] = []
    for op in ops:
        whole = schema.key(op.key) if op.key else None
        if op.op != Op.SET or whole is None or not whole.sides or id(op) not in where:
            out.append(op)
            continue
        sides = _sides_meant(schema, whole, text, where[id(op)], lang, commanded)
        if not sides:
            out.append(op)
            continue
        for side in sides:
            moved = replace(op, key=side.name)
            where[id(moved)] = where[id(op)]
            out.append(moved)
    return out


def _sides_meant(schema: DomainSchema, whole: KeySpec, text: str, span: Span, lang: str,
                 commanded: frozenset[str]) -> list[KeySpec]:
    left, right = clause_bounds(text, *span)
    clause = conjunct(text, span, left, right)
    named = sides_named(schema, whole, clause, lang)
    if named or names_key(whole, clause, lang) or ALL_OF_THEM[lang].search(clause):
        return named        # ("close the windows", "shut all of them": all of them)
    # "the passenger window, could you close it": the side named in the clause just before.
    before = text[:left].rstrip()
    if left and re.search(r"[,，、;；]$", before):
        previous = before[slice(*clause_bounds(before, len(before) - 1, len(before) - 1))]
        if names_key(whole, previous, lang):
            return sides_named(schema, whole, previous, lang)
    # A command said without naming anything goes on with the side just commanded ("a bit more").
    return [side for side in schema.sides_of(whole.name) if side.name in commanded]
