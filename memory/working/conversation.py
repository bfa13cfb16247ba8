"""The conversation record: what each side actually said, in order."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Utterance:
    role: str          # "user" | "assistant"
    text: str
    turn_id: int


class ConversationLog:
    """Append-only record of the session; prompts read a bounded recent window.

    Only what was said enters the record: the reply stage appends the agent's text
    once it has been handed to TTS, never a draft.
    """

    def __init__(self) -> None:
        self._items: list[Utterance] = []
        self._lock = threading.Lock()

    def add(self, role: str, text: str, turn_id: int) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', got {role!r}")
        text = text.strip()
        if text:
            with self._lock:
                self._items.append(Utterance(role, text, turn_id))

    def recent(self, max_turns: int) -> list[Utterance]:
        """The last `max_turns` utterances (user and assistant each count as one)."""
        with self._lock:
            return list(self._items[-max_turns:]) if max_turns > 0 else []

    def last_text(self, role: str) -> str:
        """What `role` said last ("" if nothing yet)."""
        with self._lock:
            return next((u.text for u in reversed(self._items) if u.role == role), "")

    def __len__(self) -> int:
        return len(self._items)

    def all(self) -> list[Utterance]:
        with self._lock:
            return list(self._items)
