"""The state's records of what the agent did (acts, actions done, read-backs, offered options),
the operations of an update, the reply check's failures and the turn classes: typed, and
stored exactly as the dicts they replaced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monologue.dialogue.check import CheckFailure, Failure
from monologue.dialogue.policy import Act, Decision
from monologue.memory.working.engine import UpdateResult, WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.grounding import Rejected
from monologue.memory.working.state import (
    INTERRUPTED,
    NO_ACT,
    ActionDone,
    AgentAct,
    OfferedOption,
    Op,
    Operation,
    OpSource,
    SessionState,
)
from monologue.memory.working.turn_classes import TurnClass

# Written by the code before these records existed (tests/data, commit 5f7a29c).
STORED = json.loads((Path(__file__).parent / "data" / "session_states_format_1.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_state_stored_before_the_records_loads_and_is_stored_again_unchanged(name: str) -> None:
    stored: dict[str, Any] = STORED[name]
    state = SessionState.from_dict(stored)
    assert state.to_dict() == stored
    assert json.loads(state.to_json()) == stored


def test_the_stored_records_are_read_as_what_they_are() -> None:
    state = SessionState.from_dict(STORED["booked_after_a_refusal"])
    assert [a.act for a in state.acts] == ["propose", "propose", "act", "close", "close", "confirm"]
    assert state.last_act.first == "answer" and state.last_act.refused == ("Chili House",)
    assert state.last_act.args["time"] == "20:00"
    booked = state.done[0]
    assert (booked.action, booked.completes, booked.args["restaurant_name"]) == ("book", True, "Luigi's Trattoria")
    assert booked.said["en"].startswith("booked Luigi's Trattoria")
    assert state.offered == [OfferedOption({"restaurant_name": "Luigi's Trattoria"})]
    assert [(p.op, p.key, p.value, p.source) for p in state.proposal][0] == (Op.SET, "time", "20:00", OpSource.RULES)
    cut = SessionState.from_dict(STORED["first_reply_cut"])
    assert cut.last_act.act == INTERRUPTED and cut.last_act.first == "propose"


def test_an_interrupted_act_is_stored_without_a_task_step_and_the_others_with_one() -> None:
    assert AgentAct(INTERRUPTED, turn=2, first="propose").to_dict() == {
        "act": "interrupted", "turn": 2, "first": "propose", "refused": []}
    remembered = Decision(Act.SMALL_TALK, then=Decision(Act.ASK, "book", key="time"), refused=("Sakura",)).remembered(3)
    assert remembered.to_dict() == {"act": "ask", "action": "book", "key": "time", "option": "", "args": {},
                                    "refused": ["Sakura"], "turn": 3, "first": "small_talk"}
    assert AgentAct.from_dict(remembered.to_dict()) == remembered


def test_before_the_first_act_the_last_act_is_none_of_the_policys() -> None:
    state = SessionState("s")
    assert state.last_act is NO_ACT and state.last_act.act not in set(Act)


def test_an_action_done_is_stored_with_every_field() -> None:
    done = ActionDone("set_route", {"destination": "airport"}, "R-1", True, {"en": "set the route to the airport"},
                      turn=4)
    assert done.to_dict() == {"action": "set_route", "args": {"destination": "airport"}, "record": "R-1",
                              "completes": True, "said": {"en": "set the route to the airport"}, "turn": 4}
    assert ActionDone.from_dict(done.to_dict()) == done


async def test_an_update_traces_its_operations_as_the_dicts_it_did() -> None:
    memory = WorkingMemory("s", options=WorkingMemoryOptions(llm_mode="never"))
    result = await memory.update("A table for two on Friday at 7 pm", turn=1)
    assert result.operations and all(isinstance(op, Operation) for op in result.operations)
    traced = json.loads(json.dumps(result.trace(), ensure_ascii=False))
    assert traced["operations"] == [op.to_dict() for op in result.operations]
    assert {"op": "set", "key": "party_size", "comparator": "=", "value": 2}.items() <= next(
        op for op in traced["operations"] if op.get("key") == "party_size").items()
    assert memory.settings.llm_mode == "never"


def test_a_rejected_operation_is_traced_as_before() -> None:
    op = Operation(Op.SET, "time", value="20:00", words="8", source=OpSource.LLM)
    assert Rejected(op, "not said").to_dict() == {"operation": op.to_dict(), "reason": "not said"}


def test_an_update_result_without_operations_still_traces() -> None:
    state = SessionState("s")
    result = UpdateResult(turn=1, version=1, state=state, monologue="", operations=[], diff={},
                          state_before=state.to_dict())
    assert result.trace()["operations"] == []


@pytest.mark.parametrize("kind", ["llm_error", "internal_error", "too_long", "misses_act"])
def test_every_failure_the_reply_stage_records_is_a_member(kind: str) -> None:
    failure = CheckFailure(Failure(kind), "the clause")
    assert failure.trace() == {"kind": kind, "clause": "the clause"}


def test_a_backchannel_is_a_turn_class_that_does_not_update_the_state() -> None:
    assert TurnClass("backchannel") is TurnClass.BACKCHANNEL
    assert not TurnClass.BACKCHANNEL.triggers_monologue and not TurnClass.CHIT_CHAT.triggers_monologue
    assert TurnClass.INFORMATION_CHANGE.triggers_monologue and TurnClass.CONFIRMATION.triggers_monologue
