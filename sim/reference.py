"""A competent toy agent that calibrates the benchmark, with faults to switch on.

It understands every user turn perfectly (it reads what the turn meant, which no real agent
can), asks for what is missing by the domain's labels, offers, reads back, acts, answers
questions about the task from what it holds. Switched-on faults make it the deliberately
broken agents of the benchmark's self-check: one that forgets a value after N turns, one
that repeats its question whatever it is told, one that ignores corrections and changes.
The benchmark must score each of those visibly worse than the agent without faults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from monologue.sim.domain import SimDomain
from monologue.sim.score import AgentView
from monologue.sim.user import UserTurn
from monologue.sim.values import surfaces

OPTIONS = ("Harbor Grill", "Maple House", "The Blue Door")


@dataclass
class Faults:
    forget_after: int = 0          # > 0: a value not mentioned for this many turns is dropped
    repeat_question: bool = False  # asks its first question on every turn, whatever it holds
    ignore_corrections: bool = False  # a value once held never changes


@dataclass
class ReferenceAgent:
    domain: SimDomain
    language: str
    faults: Faults = field(default_factory=Faults)
    values: dict[str, Any] = field(default_factory=dict)
    mentioned: dict[str, int] = field(default_factory=dict)
    done: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    offered: int = -1
    pending: str = ""              # "offer" | "confirm"
    first_question: str = ""

    async def start(self) -> str:
        return ""

    async def close(self) -> None:
        return None

    def _say(self, key: str, value: Any) -> str:
        kind = self.domain.keys[key].type if key in self.domain.keys else "text"
        return surfaces(kind, value, self.language)[0]

    def _label(self, key: str) -> str:
        return self.domain.keys[key].label(self.language)

    def _values_text(self, keys: list[str]) -> str:
        join = "，" if self.language == "zh" else ", "
        return join.join(f"{self._label(k)} {self._say(k, self.values[k])}" for k in keys if k in self.values)

    async def turn(self, user: UserTurn) -> AgentView:
        self.turns += 1
        meant = user.meant
        for key, value in {**meant.informs, **{k: new for k, (_, new) in meant.changes.items()}}.items():
            if self.faults.ignore_corrections and key in self.values:
                continue
            self.values[key] = value
            self.mentioned[key] = self.turns
        for key in meant.withdrawn:
            self.values.pop(key, None)
        if self.faults.forget_after:
            for key in [k for k, at in self.mentioned.items() if self.turns - at >= self.faults.forget_after]:
                self.values.pop(key, None)
                self.mentioned.pop(key)
        reply = self._reply(meant.act, meant.state_question)
        return AgentView(reply, {k: [v] for k, v in self.values.items()}, {k: "active" for k in self.values},
                         [dict(d) for d in self.done])

    def _reply(self, act: str, question: str) -> str:
        zh = self.language == "zh"
        if act in ("bye", "giveup"):
            return "再见！" if zh else "Goodbye!"
        if question in ("summary", "next"):
            held = self._values_text(list(self.values))
            primary_action = self.domain.primary()
            missing = [k for k in (primary_action.needs if primary_action else ()) if k not in self.values]
            if question == "next" and missing:
                return f"接下来需要{self._label(missing[0])}。" if zh else f"Next I need the {self._label(missing[0])}."
            return f"目前：{held}。" if zh else f"So far: {held}."
        if question and question in self.values:
            return (f"{self._label(question)}是{self._say(question, self.values[question])}。" if zh
                    else f"The {self._label(question)} is {self._say(question, self.values[question])}.")
        primary = self.domain.primary()
        assert primary is not None
        said = self._other_actions()
        if act == "accept_offer" and self.pending == "offer":
            self.values[primary.choose] = OPTIONS[self.offered % len(OPTIONS)]
            self.pending = ""
        if act == "affirm" and self.pending == "confirm":
            keys = [k for k in (*primary.needs, *primary.optional, primary.choose) if k and k in self.values]
            self.done.append({"action": primary.name, "args": {k: self.values[k] for k in keys}})
            self.pending = ""
            return said + ("办好了：" if zh else "Done: I've booked it, ") + self._values_text(keys) + "."
        missing = [k for k in primary.needs if k not in self.values]
        if self.faults.repeat_question and self.first_question:
            missing = [self.first_question]
        if missing:
            self.first_question = self.first_question or missing[0]
            label = self._label(missing[0])
            return said + (f"{label}是什么？" if zh else f"What {label} would you like?")
        if primary.choose and primary.choose not in self.values:
            self.offered += 1
            self.pending = "offer"
            name = OPTIONS[self.offered % len(OPTIONS)]
            return said + (f"推荐{name}，怎么样？" if zh else f"How about {name}?")
        keys = [k for k in (*primary.needs, *primary.optional, primary.choose) if k and k in self.values]
        last = next((d for d in reversed(self.done) if d["action"] == primary.name), None)
        if last is not None and (primary.confirm or last["args"] == {k: self.values[k] for k in keys}):
            return said + ("还有别的吗？" if zh else "Anything else?")
        if not primary.confirm:
            self.done.append({"action": primary.name, "args": {k: self.values[k] for k in keys}})
            return said + ("设好了：" if zh else "Done: all set, ") + self._values_text(keys) + "."
        self.pending = "confirm"
        return said + (f"确认一下：{self._values_text(keys)}，可以吗？" if zh
                       else f"Shall I go ahead with {self._values_text(keys)}?")

    def _other_actions(self) -> str:
        """Actions one key sets off (the cabin's temperature): done as soon as their key changes."""
        said = ""
        primary = self.domain.primary()
        for action in self.domain.actions.values():
            if action is primary or len(action.needs) != 1 or action.needs[0] not in self.values:
                continue
            key = action.needs[0]
            last = next((d for d in reversed(self.done) if d["action"] == action.name), None)
            if last is None or last["args"].get(key) != self.values[key]:
                self.done.append({"action": action.name, "args": {key: self.values[key]}})
                said += (f"已经调好{self._values_text([key])}。" if self.language == "zh"
                         else f"I've set the {self._values_text([key])}. ")
        return said
