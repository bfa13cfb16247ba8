"""The conversation record: what each side actually said, in order."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loguru import logger

if TYPE_CHECKING:
    from monologue.memory.stores.protocols import StateStore

# How many utterances a session's store keeps for a worker that picks the session up: more
# than any prompt window carries (reply.recent_turns), few enough to read in one round trip.
KEPT_UTTERANCES = 40


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

    def __init__(self, on_add: Callable[[Utterance], None] | None = None) -> None:
        self._items: list[Utterance] = []
        self._lock = threading.Lock()
        self._on_add = on_add        # told of each utterance as it is added (a store keeps them)

    def add(self, role: str, text: str, turn_id: int) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', got {role!r}")
        text = text.strip()
        if text:
            utterance = Utterance(role, text, turn_id)
            with self._lock:
                self._items.append(utterance)
            if self._on_add is not None:
                self._on_add(utterance)

    def restore(self, earlier: list[Utterance]) -> None:
        """Put what was said before this process took the session up ahead of the record
        (a resumed session: the prompt window carries on where the other worker stopped)."""
        with self._lock:
            self._items[:0] = earlier

    @property
    def last_turn(self) -> int:
        """The highest turn id in the record (0 if nothing was said yet)."""
        with self._lock:
            return max((u.turn_id for u in self._items), default=0)

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


class StoredTranscript:
    """A session's utterances kept beside its state (`StateStore.add_said`), so any worker that
    picks the session up continues the same conversation, not only the same state.

    Writes go through one thread per session, in the order said, off the event loop; a store
    that is out of reach delays them (it retries) and a failed one is logged, never raised:
    the conversation goes on, and only a resumed session would miss that line."""

    def __init__(self, store: StateStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"said-{session_id}"[:30])
        self._closed = False

    def load(self, limit: int = KEPT_UTTERANCES) -> list[Utterance]:
        """What was said in this session so far, oldest first (blocking: call off the event loop)."""
        return [Utterance(role, text, turn) for role, text, turn in self.store.said(self.session_id, limit)]

    def __call__(self, utterance: Utterance) -> None:
        if self._closed:             # said after the session ended (a late callback): nowhere to keep it
            return
        self._writer.submit(self._write, utterance)

    def written(self) -> Future[None]:
        """Done once every line given so far is stored (or failed): a reply acknowledged after
        it is in the window a worker taking the session up reads."""
        if self._closed:
            done: Future[None] = Future()
            done.set_result(None)
            return done
        return self._writer.submit(lambda: None)

    def _write(self, utterance: Utterance) -> None:
        try:
            self.store.add_said(self.session_id, utterance.role, utterance.text, utterance.turn_id)
        except Exception as exc:     # the conversation goes on without this line in the store
            logger.warning(f"session {self.session_id}: turn {utterance.turn_id}'s {utterance.role} line was "
                           f"not stored ({type(exc).__name__}: {exc}); a worker resuming this session will "
                           "not have it in its prompt")

    def close(self) -> None:
        """Wait for the lines still being written (blocking: call off the event loop)."""
        self._closed = True
        self._writer.shutdown(wait=True)
