"""Actions that do something: the small tool interface the policy's ACT runs through.

A tool gets the action, its arguments and who asked, and returns the record of what it
did; a request that `cancels` a record asks the same tool to undo it. The default tool
(`RecordingTool`) writes that record to the store, so the user can
ask about it later ("what did I book last time?") and `monologue actions` lists it; a
deployment puts its booking system, the car's controls or its ticket queue behind the
same interface, one tool per action name.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from monologue.memory.domain.schema import ActionSpec
from monologue.memory.stores.actions import ActionRecord
from monologue.memory.stores.protocols import ActionStore


@dataclass(frozen=True)
class ActionRequest:
    """One action to carry out, with who asked and what it is in words."""

    action: ActionSpec
    args: dict[str, Any]
    domain: str
    user_id: str
    session_id: str
    record_id: str                                        # the id the record gets (a tool may return its own)
    said: dict[str, str] = field(default_factory=dict)   # language → what was done, in words
    # The record this request cancels ("cancel that booking"): the action's own tool undoes it
    # (a booking system cancels the booking); its args are those it was done with.
    cancels: str = ""


class ToolError(RuntimeError):
    """The tool could not do it (the booking system refused, the car did not answer)."""


class Tool(Protocol):
    def run(self, request: ActionRequest) -> ActionRecord: ...


class RecordingTool:
    """The default: the action is recorded in the store (nothing outside is called)."""

    def __init__(self, store: ActionStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def run(self, request: ActionRequest) -> ActionRecord:
        args = {"cancels": request.cancels, **request.args} if request.cancels else dict(request.args)
        record = ActionRecord(request.record_id, request.user_id or f"session:{request.session_id}",
                              request.session_id, request.action.name, request.domain, args,
                              self.clock(), dict(request.said))
        self.store.add(record)
        return record


class Toolbox:
    """One tool per action name; every other action is recorded by the default tool."""

    def __init__(self, default: Tool, tools: Mapping[str, Tool] | None = None) -> None:
        self.default = default
        self.tools = dict(tools or {})

    def run(self, request: ActionRequest) -> ActionRecord:
        return self.tools.get(request.action.name, self.default).run(request)
