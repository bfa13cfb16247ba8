"""The state changes only by explicit operations; what a turn does not name is never lost."""

import random

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.apply import ApplyOptions, apply_operations
from monologue.memory.working.state import InvalidOperation, Operation, SessionState

SCHEMA = load_schema("restaurant")


def apply(state, ops, turn, expire_after=8):
    return apply_operations(state, ops, SCHEMA, turn=turn,
                            options=ApplyOptions(expire_after=expire_after, now=1000.0 + turn))


def base_state():
    ops = [Operation("set", "party_size", "=", 4), Operation("set", "time", "=", "19:00"),
           Operation("set", "dietary", "excludes", "spicy"), Operation("set", "budget", "<=", 300)]
    return apply(SessionState("s"), ops, 1).state


def test_set_adds_and_versions():
    state = base_state()
    assert state.version == 1 and state.turn == 1
    assert set(state.constraints) == {"party_size", "time", "dietary:spicy", "budget"}
    assert state.constraints["budget"].comparator == "<="


def test_original_state_is_never_modified():
    state = base_state()
    snapshot = state.to_json()
    apply(state, [Operation("withdraw", "budget")], 2)
    assert state.to_json() == snapshot


def test_correction_replaces_with_a_reason():
    applied = apply(base_state(), [Operation("set", "party_size", "=", 6, correction=True)], 2)
    assert applied.state.constraints["party_size"].value == 6
    change = next(c for c in applied.changes if c.slot == "party_size")
    assert change.action == "replaced" and "4" in change.before and "6" in change.after and change.reason


def test_a_plain_new_value_replaces_with_a_reason():
    applied = apply(base_state(), [Operation("set", "party_size", "=", 6)], 2)
    assert applied.state.constraints["party_size"].value == 6
    assert applied.changes[0].reason == "user gave a new value"


@pytest.mark.parametrize("confirmed, hedged", [(True, False), (False, True)])
def test_ambiguous_new_value_is_asked_not_written(confirmed, hedged):
    state = base_state()
    if confirmed:
        state = apply(state, [Operation("confirm", "party_size")], 2).state
    applied = apply(state, [Operation("set", "party_size", "=", 6, hedged=hedged)], 3)
    state = applied.state
    assert state.constraints["party_size"].value == 4
    assert len(state.pending) == 1 and state.pending[0].kind == "conflict"
    assert state.pending[0].question == "You said 4 for the party size earlier, and now 6 — should I change it to 6?"
    assert any(c.action == "maybe_changed" for c in applied.changes)
    yes = apply(state, [Operation("confirm")], 4).state
    assert yes.constraints["party_size"].value == 6 and yes.constraints["party_size"].confirmed
    assert yes.pending == []
    no = apply(state, [Operation("reject")], 4).state
    assert no.constraints["party_size"].value == 4 and no.pending == []


def test_answering_the_question_with_a_value_resolves_it():
    state = apply(base_state(), [Operation("set", "party_size", "=", 6, hedged=True)], 2).state
    answered = apply(state, [Operation("set", "party_size", "=", 6)], 3).state
    assert answered.constraints["party_size"].value == 6 and answered.pending == []


def test_withdraw_moves_the_condition_to_history():
    applied = apply(base_state(), [Operation("withdraw", "budget")], 2)
    assert "budget" not in applied.state.constraints
    assert applied.changes[0].action == "withdrawn"


def test_set_valued_keys_keep_each_value_and_flip_on_contradiction():
    state = apply(base_state(), [Operation("set", "dietary", "excludes", "nuts")], 2).state
    assert {"dietary:spicy", "dietary:nuts"} <= set(state.constraints)
    flipped = apply(state, [Operation("set", "dietary", "includes", "spicy", correction=True)], 3).state
    assert flipped.constraints["dietary:spicy"].comparator == "includes"


def test_confirm_without_question_confirms_live_conditions():
    state = apply(base_state(), [Operation("confirm")], 2).state
    assert sorted(state.confirmed) == sorted(state.constraints)


def test_a_value_not_mentioned_for_a_while_is_to_confirm_and_never_leaves_by_age():
    state = base_state()
    state = apply(state, [Operation("confirm", "party_size")], 2).state
    at_n = apply(state, [], 1 + 4, expire_after=4).state
    assert at_n.constraints["time"].status == "to_confirm"
    assert at_n.constraints["party_size"].status == "active"   # confirmed ones stay
    much_later = apply(at_n, [], 1 + 40, expire_after=4)
    assert much_later.state.constraints["time"].value == "19:00"          # held: only the user takes it back
    assert much_later.state.constraints["time"].status == "to_confirm"
    assert "expired" not in {c.action for c in much_later.changes}
    restated = apply(at_n, [Operation("set", "time", "=", "19:00")], 6, expire_after=4).state
    assert restated.constraints["time"].status == "active"


def test_invalid_operations_change_nothing():
    state = base_state()
    with pytest.raises(InvalidOperation):
        Operation.from_dict({"op": "rewrite_everything"})
    with pytest.raises(InvalidOperation):
        Operation.from_dict({"op": "set", "key": "time"})
    with pytest.raises(InvalidOperation):
        apply(state, [Operation("set", "time", "=", "20:00"), Operation("explode")], 2)


def test_pending_questions_are_bounded():
    state = base_state()
    for turn in range(2, 12):
        state = apply(state, [Operation("ask", f"k{turn}", question=f"q{turn}?")], turn).state
    assert len(state.pending) == 5


def test_state_round_trips_through_json():
    import json

    state = apply(base_state(), [Operation("set", "party_size", "=", 6)], 2).state
    again = SessionState.from_dict(json.loads(state.to_json()))
    assert again.to_json() == state.to_json()


@pytest.mark.parametrize("seed", range(20))
def test_what_a_turn_does_not_name_cannot_be_lost(seed):
    """Random operation batches: every condition whose key no operation names is unchanged."""
    rng = random.Random(seed)
    keys = ["party_size", "time", "date", "budget", "seating", "cuisine", "x_open_key"]
    state = SessionState("s")
    for turn in range(1, 40):
        ops = []
        for _ in range(rng.randint(0, 3)):
            key = rng.choice(keys)
            kind = rng.choice(["set", "set", "withdraw", "confirm"])
            if kind == "set":
                ops.append(Operation("set", key, "=", rng.randint(1, 9), correction=rng.random() < 0.5))
            else:
                ops.append(Operation(kind, key))
        named = {o.key for o in ops}
        after = apply(state, ops, turn, expire_after=0).state
        for slot, condition in state.constraints.items():
            if condition.key not in named:
                assert after.constraints[slot] == condition
        assert len(after.constraints) == len({c.slot for c in after.constraints.values()})
        state = after
