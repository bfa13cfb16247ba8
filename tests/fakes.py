"""Scripted LLM fakes for the working-memory tests."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, AsyncIterator

from models.chat import ChatLLM, ChatOptions, StreamStats

CATALOGUE = (
    ("Chili House", "sichuan", True),
    ("Luigi's Trattoria", "italian", False),
    ("Sakura", "japanese", False),
)


class StateFollowingLLM(ChatLLM):
    """A reply 'model' that does exactly what its prompt lets it: it reads the conditions
    in the prompt (the state block, or whatever user lines it was given) and recommends
    from a fixed catalogue. It forgets whatever the prompt does not carry — so a reply
    honours a condition only if the pipeline put it in the prompt."""

    def __init__(self) -> None:
        super().__init__(ChatOptions(model="fake/state-follower", fallback=None))
        self.prompts: list[list[dict[str, str]]] = []

    def prepare(self) -> None:
        return None

    def warm_up(self) -> None:
        return None

    async def stream(self, messages: list[dict[str, str]], stats: StreamStats) -> AsyncIterator[str]:
        import time

        self.prompts.append(messages)
        stats.model = self.options.model
        stats.first_token_at = time.perf_counter()
        context = re.search(r"\[Context: (.*?)\]|^Context: (.*)", messages[-1]["content"], re.DOTALL)
        said = " ".join(m["content"] for m in messages if m["role"] == "user")
        source = (next(g for g in context.groups() if g) if context else said).lower()
        no_spicy = bool(re.search(r"no spicy|excludes spicy|nothing spicy|不吃辣", source))
        choices = [name for name, _cuisine, spicy in CATALOGUE if not (no_spicy and spicy)]
        people = (re.search(r"for (\d+) people|人数 = (\d+)", source)
                  or re.search(r"(\d+|four|six|eight) people", source))
        time_ = re.search(r"at (\d\d:\d\d)|时间 = (\d\d:\d\d)", source) or re.search(r"(\d{1,2}(?::\d\d)? ?pm)", source)
        reply = f"I recommend {choices[0]}"
        if people:
            reply += f" for {next(g for g in people.groups() if g)} people"
        if time_:
            reply += f" at {next(g for g in time_.groups() if g)}"
        for word in reply.split(" "):
            yield word + " "
        stats.finished_at = time.perf_counter()


class ScriptedJsonLLM:
    """Answers the monologue's JSON requests from a script; records what it was sent."""

    def __init__(self, answers: list[Any], delay: float = 0.0) -> None:
        self.answers = list(answers)
        self.delay = delay
        self.requests: list[list[dict[str, str]]] = []

    async def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        self.requests.append(messages)
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = self.answers.pop(0) if self.answers else {"operations": []}
        if isinstance(answer, Exception):
            raise answer
        return answer if isinstance(answer, str) else json.dumps(answer)
