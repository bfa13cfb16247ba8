"""What the LLM adds to long-term memory, each part optional and off the voice turn:
importance when the rules abstain, the wording of reflections, the judge of
semantic contradictions, condensed summaries. Every call has a timeout; a failure
returns None (or raises, where the caller reports it) and the rules decide instead.

Called from worker threads; the coroutine runs on the event loop that owns the LLM
client (bound at session start).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

CompleteJson = Callable[[list[dict[str, str]], dict[str, Any]], Awaitable[str]]


class MemoryLLM:
    def __init__(self, complete_json: CompleteJson, timeout_secs: float = 20.0) -> None:
        self._complete_json = complete_json
        self.timeout_secs = timeout_secs
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def ask(self, instruction: str, content: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One JSON object from the LLM; raises on timeout, no loop, or an answer that is not JSON."""
        if self._loop is None or self._loop.is_closed():
            raise RuntimeError("no event loop bound for the memory LLM")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:       # waiting here would block the loop the answer needs
            raise RuntimeError("MemoryLLM.ask must be called from a worker thread, not the event loop")
        messages = [{"role": "system", "content": instruction}, {"role": "user", "content": content}]
        future = asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(self._complete_json(messages, schema), self.timeout_secs), self._loop)
        raw = future.result(self.timeout_secs + 1.0)
        start, end = raw.find("{"), raw.rfind("}")
        if start < 0 or end <= start:
            raise ValueError(f"not a JSON object: {raw[:80]!r}")
        data = json.loads(raw[start:end + 1])
        if not isinstance(data, dict):
            raise ValueError(f"not a JSON object: {raw[:80]!r}")
        return data

    def importance(self, text: str) -> int | None:
        try:
            data = self.ask("Rate how important this statement by a user is to remember for future conversations, "
                            "from 1 (trivial small talk) to 10 (health, safety, identity). Answer JSON "
                            '{"importance": N}.', text,
                            {"type": "object", "properties": {"importance": {"type": "integer"}},
                             "required": ["importance"]})
            value = int(data["importance"])
            return value if 1 <= value <= 10 else None
        except Exception:
            return None

    def insight(self, texts: list[str]) -> str | None:
        """Raises on failure so the reflection can report it."""
        data = self.ask("These statements come from different conversations with one user. State the one lasting "
                        'pattern they show, in one sentence about the user. Answer JSON {"insight": "..."}.',
                        "\n".join(f"- {t}" for t in texts),
                        {"type": "object", "properties": {"insight": {"type": "string"}}, "required": ["insight"]})
        return str(data.get("insight") or "") or None

    def contradicts(self, old: str, new: str) -> bool | None:
        try:
            data = self.ask("Do these two statements by the same user contradict each other (both cannot be true "
                            'now)? Answer JSON {"contradicts": true|false}.', f"Earlier: {old}\nNow: {new}",
                            {"type": "object", "properties": {"contradicts": {"type": "boolean"}},
                             "required": ["contradicts"]})
            value = data.get("contradicts")
            return value if isinstance(value, bool) else None
        except Exception:
            return None

    def summarize(self, texts: list[str]) -> str | None:
        try:
            data = self.ask("Condense these conversation summaries into one short paragraph keeping decisions, "
                            'preferences and open items. Answer JSON {"summary": "..."}.', "\n".join(texts),
                            {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]},
                            )
            return str(data.get("summary") or "").strip() or None
        except Exception:
            return None
