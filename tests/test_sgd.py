"""SGD: a domain YAML from a service schema, the learned value reader on it, and SGD's scoring."""

from __future__ import annotations

import json

import pytest
import yaml

from monologue.memory.domain.schema import load_schema, parse_schema
from monologue.memory.domain.sgd import import_file, import_service
from monologue.memory.domain.sgd_eval import Slot, Tally, noncat_match, slot_scores, token_sort_ratio
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.state import Op, SessionState
from monologue.memory.working.values import read_values
from monologue.pipeline.cli import main

# A made-up service in SGD's schema format (not from the dataset).
SERVICE = {
    "service_name": "Diners_9",
    "description": "Find places to eat and book a table",
    "slots": [
        {"name": "diner_name", "description": "Name of the diner", "is_categorical": False, "possible_values": []},
        {"name": "city", "description": "City where the diner is located", "is_categorical": False,
         "possible_values": []},
        {"name": "cuisine", "description": "Kind of food served", "is_categorical": False, "possible_values": []},
        {"name": "visit_date", "description": "Date of the reservation", "is_categorical": False,
         "possible_values": []},
        {"name": "visit_time", "description": "Time of the reservation", "is_categorical": False,
         "possible_values": []},
        {"name": "party_size", "description": "Number of people in the party", "is_categorical": True,
         "possible_values": ["1", "2", "3", "4"]},
        {"name": "number_of_high_chairs", "description": "Number of high chairs", "is_categorical": True,
         "possible_values": ["0", "1", "2"]},
        {"name": "price_level", "description": "Price level of the diner", "is_categorical": True,
         "possible_values": ["cheap", "moderate", "ultra high-end"]},
        {"name": "has_terrace", "description": "Whether the diner has a terrace", "is_categorical": True,
         "possible_values": ["True", "False"]},
        {"name": "phone_number", "description": "Phone number of the diner", "is_categorical": False,
         "possible_values": []},
    ],
    "intents": [
        {"name": "FindDiners", "description": "Find diners by city and cuisine", "is_transactional": False,
         "required_slots": ["city", "cuisine"],
         "optional_slots": {"price_level": "dontcare", "has_terrace": "dontcare"}, "result_slots": []},
        {"name": "BookTable", "description": "Book a table at a diner", "is_transactional": True,
         "required_slots": ["diner_name", "city", "visit_time"],
         "optional_slots": {"party_size": "2", "visit_date": "today", "number_of_high_chairs": "0"},
         "result_slots": []},
    ],
}


@pytest.fixture(scope="module")
def domain():
    return parse_schema(import_service([SERVICE], "Diners_9"))


def test_import_maps_each_kind_of_slot(domain):
    keys = domain.keys
    assert "phone_number" not in keys               # reported by the service, never asked for
    assert keys["price_level"].type == "enum" and set(keys["price_level"].values) == {
        "cheap", "moderate", "ultra high-end"}
    assert "ultra high end" in keys["price_level"].value_words("ultra high-end")
    assert keys["has_terrace"].type == "enum" and set(keys["has_terrace"].values) == {"True"}
    assert keys["party_size"].type == "int" and keys["party_size"].reader == "head_count"
    assert {"2 high chair", "two chair"} <= set(keys["number_of_high_chairs"].value_words("2"))
    assert keys["visit_time"].reader == "clock_time" and keys["visit_date"].reader == "date"
    assert keys["city"].open_value == "learned" and keys["city"].description.startswith("City where")
    assert "city" in keys["city"].aliases["en"]
    assert domain.goal_words["en"] and domain.goal_text["en"] == "book a table at a diner"


def test_import_writes_a_yaml_the_product_loads(tmp_path):
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps([SERVICE]))
    out = tmp_path / "diners.yaml"
    assert main(["domain", "import-sgd", str(schema_file), "--service", "Diners_9", "--out", str(out)]) == 0
    text = out.read_text()
    assert "&id" not in text and "CC BY-SA 4.0" in text
    loaded = load_schema(str(out))
    assert loaded == parse_schema(yaml.safe_load(import_file(schema_file, "Diners_9")))
    assert main(["domain", "import-sgd", str(schema_file), "--service", "Nope_1"]) == 2


def test_the_value_reader_reads_names_from_the_users_words(domain):
    readings = {(r.key, r.value) for r in read_values(domain, "I want Italian food in San Jose.")}
    assert ("city", "San Jose") in readings and ("cuisine", "Italian") in readings
    asked = read_values(domain, "Fremont, please.", agent_text="Which city should I look in?")
    assert [(r.key, r.value) for r in asked] == [("city", "Fremont")]
    assert read_values(domain, "Thanks, that's all I needed.") == []


async def test_learned_values_reach_the_state_grounded(domain):
    memory = WorkingMemory("d", InMemoryStateStore(), WorkingMemoryOptions(llm_mode="never"), schema=domain)
    text = "Find me a terrace table at Blue Fig in Oakland for 4 people at half past 7 in the evening."
    result = await memory.update(text, turn=1)
    state = memory.state
    values = {c.key: c.value for c in state.constraints.values()}
    assert values["city"] == "Oakland" and values["diner_name"] == "Blue Fig" and values["party_size"] == 4
    assert values["has_terrace"] == "True" and values["visit_time"] == "19:30"
    for op in result.operations:
        if op.op == Op.SET:
            assert op.words in text
    assert state.find("visit_time")[0].words.startswith("half past 7")
    rules_only = domain.keys["city"]
    assert rules_only.open_value == "learned"
    chat = memory.rules.extract("Lovely weather today, isn't it?", SessionState("d"))
    assert not [op for op in chat.operations if op.op == Op.SET and op.key in ("city", "diner_name", "cuisine")]


def test_scores_as_sgd_metrics_do():
    assert token_sort_ratio("new york mets", "Mets, New York") == 100
    assert token_sort_ratio("", "x") == 0
    assert 60 < token_sort_ratio("half past 11", "half past 11 in the morning") < 80
    assert noncat_match(["7 pm", "seven in the evening"], "seven in the evening") == 1.0
    slots = [Slot("city", False), Slot("price", True), Slot("date", False)]
    gold = {"city": ["San Jose"], "price": ["cheap"]}
    assert slot_scores(slots, gold, {"city": "san jose", "price": "cheap"}) == {"city": 1.0, "price": 1.0, "date": 1.0}
    assert slot_scores(slots, gold, {"city": "San Jose", "price": "Cheap", "date": "today"}) == {
        "city": 1.0, "price": 0.0, "date": 0.0}
    tally = Tally()
    assert tally.add(slots, gold, {"city": "San Jose", "price": "cheap"}) == 1.0
    near = tally.add(slots, gold, {"city": "San Jos", "price": "cheap"})     # a near miss costs a fraction
    assert 0.9 < near < 1.0
    assert tally.add(slots, gold, {"price": "cheap"}) == 0.0
    assert tally.frames == 3 and tally.jga == pytest.approx((1.0 + near) / 3)
    precision, recall = (4 + near) / 5, (4 + near) / 6     # matched weight / predicted, / gold
    assert tally.f1 == pytest.approx(2 * precision * recall / (precision + recall))


def test_an_imported_price_level_hears_what_people_say_for_it():
    from monologue.memory.domain.sgd import import_service
    schema = {"service_name": "Eats_9", "description": "find places to eat", "intents": [
        {"name": "FindPlace", "description": "find a place", "is_transactional": False,
         "required_slots": [], "optional_slots": {"price_range": "dontcare"}, "result_slots": ["price_range"]}],
        "slots": [{"name": "price_range", "description": "price range", "is_categorical": True,
                   "possible_values": ["cheap", "moderate", "pricey"]}]}
    values = import_service([schema], "Eats_9")["keys"]["price_range"]["values"]
    assert "reasonably priced" in values["moderate"]["en"] and "fancy" in values["pricey"]["en"]
