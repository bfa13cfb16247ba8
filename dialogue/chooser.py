"""A provider with function calling may choose the action; the policy decides whether it stands.

The domain's actions become the model's tools (their arguments are the action's keys).
The model is asked only where its judgement can add something the rules may miss: the
agent has just offered or read something back, and the policy did not hear a clear yes
or no ("lock it in", "that'll do nicely"). Whatever it chooses is validated against the
state (`validate`): an action whose required slots are empty, whose arguments are not the
state's, that was never read back, or that is already done, is refused — and the trace
says why. The local 0.5B model has no function calling, so it is never asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from monologue.dialogue.policy import Act, Decision, live_values
from monologue.memory.domain.schema import DomainSchema
from monologue.memory.working.state import AgentAct, SessionState

NO_ACTION = "reply_only"
CHOICE_TIMEOUT_SECS = 4.0


def tools_of(schema: DomainSchema) -> list[dict[str, Any]]:
    """The domain's actions as OpenAI-style function tools (litellm passes them to any provider)."""
    tools = []
    for action in schema.actions.values():
        properties = {key: {"type": "string", "description": schema.key(key).label("en")} for key in action.keys}
        tools.append({"type": "function", "function": {
            "name": action.name,
            "description": f"{(action.verb.get('en') or action.name)}: only when the user has agreed to it now",
            "parameters": {"type": "object", "properties": properties, "required": list(action.needs)}}})
    tools.append({"type": "function", "function": {
        "name": NO_ACTION, "description": "the user has not agreed to any action: just reply",
        "parameters": {"type": "object", "properties": {}}}})
    return tools


def worth_asking(decision: Decision, last: AgentAct) -> bool:
    """Only after an offer or a read-back the policy could not settle from the words alone."""
    return last.act in (Act.PROPOSE, Act.SUGGEST, Act.CONFIRM, Act.RESUME, Act.ONLY_OPTION) \
        and decision.act not in (Act.ACT, Act.ASK_CHANGE, Act.CLARIFY, Act.MEMORY, Act.HANDOVER) \
        and not decision.act.said_as_decided


@dataclass(frozen=True)
class Validated:
    decision: Decision | None      # the decision that stands (None: the policy's own)
    reason: str


def validate(name: str, args: Mapping[str, Any], schema: DomainSchema, state: SessionState,
             last: AgentAct, model: str) -> Validated:
    """Whether the model's chosen action may be carried out, given the state."""
    if name == NO_ACTION:
        return Validated(None, "the model chose no action")
    action = schema.actions.get(name)
    if action is None:
        return Validated(None, f"unknown action {name!r}")
    values = live_values(state, schema)
    if action.choose and action.choose not in values and last.option:
        values = {**values, action.choose: last.option}
    missing = [k for k in action.needs if k not in values]
    if missing:
        return Validated(None, f"{name} refused: {', '.join(missing)} not known yet")
    wanted = {k: values[k] for k in action.keys if k in values}
    invented = {k: v for k, v in args.items() if k in action.keys and str(v).lower() != str(wanted.get(k, "")).lower()
                and not isinstance(wanted.get(k), list)}
    if invented:
        return Validated(None, f"{name} refused: arguments not in the state {invented}")
    if action.confirm and not (last.action == name and last.args == wanted):
        return Validated(Decision(Act.CONFIRM, name, args=wanted, chosen_by=model,
                                  reason=f"{model} chose {name}; read back first"), "read back before acting")
    if any(d.action == name and d.args == wanted for d in state.done):
        return Validated(None, f"{name} refused: already done with these details")
    return Validated(Decision(Act.ACT, name, args=wanted, chosen_by=model, reason=f"{model} chose {name}"),
                     "accepted")
