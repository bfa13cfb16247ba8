"""How sensitive a memory is (U3): `local_only`, `private` or `shareable`.

Rules decide, in English and Chinese: where the user lives or works, places they go
regularly, health, biometrics, identity documents and codes are `local_only` — never sent
to a remote LLM provider (`LocalOnlyRedactor`); a lasting like, dislike or setting with
nothing personal in it is `shareable`; anything else the user said is `private`. A model
may raise a tier (`raised`), never lower it: a wrong "shareable" from a 0.5B model must
not send an address away.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from monologue.memory.language.memory_cues import (
    ACCESS_NEED,
    ADDRESS,
    HEALTH_NEED,
    KEEP_SETTING,
    LIKES,
    LOCAL_ONLY,
    PERSONAL,
)
from monologue.memory.language.person import second_person
from monologue.memory.longterm.deidentify import Placeholders

Tier = Literal["local_only", "private", "shareable"]
_LEAD = re.compile(r"^(?:(?:hi|hello|hey|oh|well|so|ok(?:ay)?|um+|uh+|yes|no|actually|嗯|哦|对了)\W+)+", re.I)
_CLAUSES = re.compile(r"([.!?;,:。！？；，：\n]+)")
TIERS: tuple[Tier, ...] = ("shareable", "private", "local_only")     # least to most sensitive


def tier_of(text: str) -> Tier:
    """The rules' tier for what the user said."""
    if LOCAL_ONLY.search(text) or HEALTH_NEED.search(text) or ACCESS_NEED.search(text):
        return "local_only"
    if (LIKES.search(text) or KEEP_SETTING.search(text)) and not (PERSONAL.search(text) or ADDRESS.search(text)):
        return "shareable"
    return "private"


def raised(current: Tier, proposed: str) -> Tier:
    """`proposed` if it is more sensitive than `current`, else `current` (never lowered)."""
    if proposed not in TIERS:
        return current
    return max(current, proposed, key=TIERS.index)


@dataclass
class LocalOnlyRedactor:
    """Takes what is local-only out of a prompt for a remote provider, and puts it back in
    what the provider answers, before it is spoken.

    `texts`: the user's local-only memories. A prompt message containing one (as the user
    said it, or as the agent read it back to them) has it replaced by a placeholder
    (`<LOCAL_1>`); a clause the rules find local-only is replaced whole. Then the names of
    people and places left (U4) become `<PERSON_1>`, `<PLACE_1>` (`deidentify.py`)."""

    texts: list[str]
    language: str = "en"
    _placeholders: dict[str, str] = field(default_factory=dict)     # placeholder -> original
    names: Placeholders = field(default_factory=Placeholders)

    def _placeholder(self, original: str) -> str:
        for placeholder, known in self._placeholders.items():
            if known == original:
                return placeholder
        placeholder = f"<LOCAL_{len(self._placeholders) + 1}>"
        self._placeholders[placeholder] = original
        return placeholder

    def _forms(self) -> list[str]:
        forms: list[str] = []
        for text in self.texts:
            core = _LEAD.sub("", text.strip()).rstrip(".。!！?？")
            forms += [core, second_person(core, self.language)]
        return sorted({f for f in forms if len(f) >= 4}, key=len, reverse=True)

    def redact(self, messages: Iterable[dict[str, str]]) -> list[dict[str, str]]:
        """The messages with every local-only piece a placeholder: the user's local-only
        memories wherever they are quoted, and any clause the rules find local-only (what
        the user says now, the agent's read-backs, the planner's facts)."""
        forms = self._forms()
        out = []
        for index, message in enumerate(messages):
            content = message["content"]
            for form in forms:
                content = re.sub(re.escape(form), lambda m: self._placeholder(m.group(0)), content, flags=re.I)
            pieces = _CLAUSES.split(content)
            content = "".join(self._kept_out(p) if i % 2 == 0 and p.strip() and tier_of(p) == "local_only"
                              else p for i, p in enumerate(pieces))
            if index > 0 or message["role"] != "system":   # the instructions name no one (and say "Monologue")
                content = self.names.deidentify(content)
            out.append({**message, "content": content})
        return out

    def _kept_out(self, piece: str) -> str:
        """`piece` as a placeholder, the spaces and quote marks around it kept (a quoted memory
        stays quoted: its closing mark is no part of what the user said)."""
        core = piece.strip(" \t\r\n\"'“”「」")
        if not core:
            return piece
        start = piece.index(core)
        return piece[:start] + self._placeholder(core) + piece[start + len(core):]

    def restore(self, text: str) -> str:
        text = self.names.restore(text)
        # Newest first: a whole utterance's placeholder may hold an older one inside it.
        for placeholder, original in reversed(self._placeholders.items()):
            text = text.replace(placeholder, original)
        return text

    @property
    def redacted(self) -> int:
        """How many distinct local-only pieces and names were kept out of the prompt."""
        return len(self._placeholders) + len(self.names.originals)
