"""What the LLM adds to long-term memory, each part optional and off the voice turn:
importance when the rules abstain, the wording of reflections, the judge of
semantic contradictions, condensed summaries. Every call has a timeout; a failure
returns None (or raises, where the caller reports it) and the rules decide instead.
Every failure is logged and kept in `MemoryLLM.failures`, so a slow or broken LLM
shows in the log and the trace instead of quietly leaving everything to the rules.

Each answer is a typed model (`memory/llm_answer.py`): the same class gives the schema
that constrains the LLM's decoding and checks what it wrote.

Called from worker threads; the coroutine runs on the event loop that owns the LLM
client (bound at session start).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from loguru import logger
from pydantic import Field, StrictBool, WithJsonSchema

from monologue.memory.llm_answer import LLMAnswer
from monologue.memory.longterm.sensitivity import LocalOnlyRedactor

CompleteJson = Callable[[list[dict[str, str]], dict[str, Any]], Awaitable[str]]

Help = Literal["importance", "insight", "contradicts", "summary", "sensitivity"]


class Importance(LLMAnswer):
    # The range is checked here but not put in the schema: llama.cpp's grammar ignores it,
    # and not every provider accepts minimum/maximum.
    importance: Annotated[int, Field(ge=1, le=10), WithJsonSchema({"type": "integer"})]


class Insight(LLMAnswer):
    insight: str


class Contradiction(LLMAnswer):
    contradicts: StrictBool    # "yes" or 1 is not an answer to trust with superseding a memory


class Summary(LLMAnswer):
    summary: str


class Sensitivity(LLMAnswer):
    tier: Literal["local_only", "private", "shareable"]


Answer = TypeVar("Answer", bound=LLMAnswer)


@dataclass(frozen=True)
class HelpFailure:
    """One call that gave nothing usable; the rules decided instead."""

    kind: Help
    error: str


class MemoryLLM:
    def __init__(self, complete_json: CompleteJson, timeout_secs: float = 20.0, remote: bool = False) -> None:
        """`remote`: the model is a provider's, not the embedded one: what is local-only and the
        names of people and places go to it as placeholders, and come back restored (U3, U4)."""
        self._complete_json = complete_json
        self.timeout_secs = timeout_secs
        self.remote = remote
        self._loop: asyncio.AbstractEventLoop | None = None
        self.failures: list[HelpFailure] = []     # appended from worker threads; read for the trace

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def ask(self, instruction: str, content: str, answer: type[Answer]) -> Answer:
        """One answer from the LLM; raises on timeout, no loop, or an answer that does not fit `answer`."""
        if self._loop is None or self._loop.is_closed():
            raise RuntimeError("no event loop bound for the memory LLM")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:       # waiting here would block the loop the answer needs
            raise RuntimeError("MemoryLLM.ask must be called from a worker thread, not the event loop")
        messages = [{"role": "system", "content": instruction}, {"role": "user", "content": content}]
        redactor = LocalOnlyRedactor([]) if self.remote else None
        if redactor is not None:
            messages = redactor.redact(messages)
        future = asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(self._complete_json(messages, answer.json_schema()), self.timeout_secs), self._loop)
        raw = future.result(self.timeout_secs + 1.0)
        return answer.from_text(redactor.restore(raw) if redactor is not None else raw)

    def importance(self, text: str) -> int | None:
        try:
            # The scale of seed 002 §4.1; whatever the answer, the rules' floor stands (MemoryStream.rescore).
            return self.ask("Rate how important this statement by a user is to remember for future conversations, "
                            "from 1 to 10: 8-10 health, safety, accessibility, how they want to be addressed; "
                            "5-7 lasting likes, dislikes, habits and settings (routes, climate, seats, food); "
                            "1-3 small talk and one-off requests. Answer JSON "
                            '{"importance": N}.', text, Importance).importance
        except Exception as exc:    # timeouts, provider errors, answers off the schema: the rules score it
            self._failed("importance", exc)
            return None

    def sensitivity(self, text: str) -> str | None:
        """The model's tier for a memory (U3); it can only raise the rules' (`sensitivity.raised`)."""
        try:
            return self.ask("Classify how sensitive this statement by a user is. local_only: where they live or "
                            "work, places they regularly go, health, biometrics, identity documents, codes and "
                            "passwords, finances, anything that identifies or locates a person. private: other "
                            "personal facts. shareable: plain likes, dislikes and settings with nothing personal. "
                            'Answer JSON {"tier": "local_only" | "private" | "shareable"}.', text, Sensitivity).tier
        except Exception as exc:    # the rules' tier stands
            self._failed("sensitivity", exc)
            return None

    def insight(self, texts: list[str]) -> str | None:
        """Raises on failure so the reflection can report it."""
        try:
            answer = self.ask("These statements come from different conversations with one user. State the one "
                              "lasting pattern they show, in one sentence about the user. "
                              'Answer JSON {"insight": "..."}.', "\n".join(f"- {t}" for t in texts), Insight)
        except Exception as exc:
            self._failed("insight", exc)
            raise
        return answer.insight or None

    def contradicts(self, old: str, new: str) -> bool | None:
        try:
            return self.ask("Do these two statements by the same user contradict each other (both cannot be true "
                            'now)? Answer JSON {"contradicts": true|false}.', f"Earlier: {old}\nNow: {new}",
                            Contradiction).contradicts
        except Exception as exc:    # the rules' own conflict check stands
            self._failed("contradicts", exc)
            return None

    def summarize(self, texts: list[str]) -> str | None:
        try:
            answer = self.ask("Condense these conversation summaries into one short paragraph keeping decisions, "
                              'preferences and open items. Answer JSON {"summary": "..."}.', "\n".join(texts), Summary)
        except Exception as exc:    # the rule-built summary is used
            self._failed("summary", exc)
            return None
        return answer.summary.strip() or None

    def _failed(self, kind: Help, exc: Exception) -> None:
        if isinstance(exc, TimeoutError):      # asyncio's and concurrent.futures' both
            error = f"no answer within {self.timeout_secs:g} s"
        else:
            error = f"{type(exc).__name__}: {exc}"[:300]
        self.failures.append(HelpFailure(kind, error))
        logger.warning("memory LLM: {} failed, the rules decide instead: {}", kind, error)
