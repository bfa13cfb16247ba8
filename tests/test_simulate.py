"""The simulated-user benchmark: its users, its scores, and whether it can tell a
broken agent from a sound one.

The calibration agent (`monologue.sim.reference`) understands every turn; switched-on faults
make the broken agents the benchmark must score visibly worse. A smoke subset runs the real
text pipeline (with a reply model that says what the policy asks) and checks the benchmark's
own invariants, not how well the agent does today.
"""

from __future__ import annotations

import ast
import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from monologue.pipeline.builder import AgentModels
from monologue.pipeline.simulate import BenchOptions, run_benchmark
from monologue.sim.domain import load_domain
from monologue.sim.phrasing import SHARED_DATA, PhrasingBank
from monologue.sim.reading import ReplyReader
from monologue.sim.score import summarise, transcript, write_worst
from monologue.sim.values import same_value, times_in, weekdays_in

from fakes import PlannerFollowingLLM, steady

SIM = Path(__file__).resolve().parents[1] / "sim"
DOMAINS = ("restaurant", "in_car", "customer_service")
needs_corpora = pytest.mark.skipif(not (SHARED_DATA / "sgd" / "dev-single.json.gz").is_file(),
                                   reason=f"the SGD and CrossWOZ files are not at {SHARED_DATA}")


def _run(options: BenchOptions, models: AgentModels | None = None):
    async def models_for(_language: str) -> AgentModels:
        assert models is not None
        return models
    return asyncio.run(run_benchmark(options, models_for if models else None))


def test_the_simulator_imports_nothing_of_the_agent():
    """It may read the domain YAML's declarations, never the agent's readers, cues or policy."""
    for path in SIM.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith("monologue.") or name.startswith("monologue.sim"), (path.name, name)


def test_it_reads_values_in_the_agents_words_its_own_way():
    assert times_in("shall I book it on Friday at 7 pm for 4 people?") == ["19:00"]
    assert times_in("要我按周日，晚上8点，2个人帮你订吗？") == ["20:00"]
    assert times_in("中午12点") == ["12:00"]
    assert weekdays_in("周日，晚上8点", "zh", None) == ["sunday"]
    assert same_value("date", "friday", "2026-12-04", today=None)      # an ISO date is the same Friday
    assert same_value("money", 40.0, 40, today=None) and not same_value("int", 4, 5, today=None)
    domain = load_domain("restaurant")
    reader = ReplyReader(domain, "en", {})
    asked = reader.read("How many people will there be?", {})
    assert asked.question and asked.asked == ["party_size"]
    back = reader.read("Shall I book it on Friday at 8 pm for 4 people?", {"time": "19:00", "date": "friday"})
    assert back.read_back == {"date": True, "time": False} and back.yes_no and not back.asked
    taken_back = reader.read("Shall I book it on Friday at 7 pm for 4 people?", {"time": "19:00", "date": "friday"},
                             old_values={"party_size": [4]})
    assert taken_back.read_back == {"date": True, "time": True, "party_size": False}   # withdrawn, read back
    done = reader.read("Done: I've booked Chili House on Friday at 7 pm.", {"time": "19:00"})
    assert done.done and not done.question


@needs_corpora
def test_phrasing_comes_from_real_people_and_the_partitions_do_not_overlap():
    domain = load_domain("restaurant")
    tune, heldout = PhrasingBank(domain, "en", "tune"), PhrasingBank(domain, "en", "heldout")
    assert tune.corpus_size()["inform"] > 100 and heldout.corpus_size()["inform"] > 50   # SGD train vs dev
    assert all(t.source.startswith("sgd:") for t in heldout.corpus["inform"])
    tune_ids = {t.source for t in tune.corpus["inform"]}
    assert not tune_ids & {t.source for t in heldout.corpus["inform"]}
    for bank_tune, bank_heldout in ((tune, heldout), (PhrasingBank(domain, "zh", "tune"),
                                                      PhrasingBank(domain, "zh", "heldout"))):
        for family, texts in bank_heldout.families.items():
            together = set(bank_tune.families[family]) | set(texts)
            if len(together) > 1:                                              # every family is split
                assert texts and bank_tune.families[family], family
                assert not set(texts) & set(bank_tune.families[family]), family
    zh = PhrasingBank(load_domain("in_car"), "zh", "heldout")
    assert zh.corpus_size().get("thanks", 0) > 10                            # CrossWOZ users' own words


def test_the_same_seed_gives_the_same_conversations():
    options = BenchOptions(domains=DOMAINS, languages=("en", "zh"), n=3, agent="reference", seed=7)
    _, first = _run(options)
    _, again = _run(options)
    assert [transcript(r, s) for r, s in first] == [transcript(r, s) for r, s in again]
    _, other = _run(replace(options, seed=8))
    assert [transcript(r, s) for r, s in first] != [transcript(r, s) for r, s in other]


def test_broken_agents_score_visibly_worse():
    options = BenchOptions(domains=DOMAINS, languages=("en", "zh"), n=8, agent="reference")
    sound = _run(options)[0]["all"]
    forgets = _run(replace(options, agent="reference:forget=3"))[0]["all"]
    repeats = _run(replace(options, agent="reference:repeat"))[0]["all"]
    ignores = _run(replace(options, agent="reference:ignore"))[0]["all"]
    assert sound["task_success"] >= 0.85 and sound["facts_lost_per_conv"] < 0.2 and sound["re_asks_per_conv"] < 0.2
    assert forgets["facts_lost_per_conv"] >= sound["facts_lost_per_conv"] + 0.5
    assert forgets["task_success"] <= sound["task_success"] - 0.2
    assert repeats["re_asks_per_conv"] >= 1.0 and repeats["convs_with_loop"] >= 0.2
    assert repeats["task_success"] <= sound["task_success"] - 0.2
    assert ignores["changes_missed_per_conv"] >= sound["changes_missed_per_conv"] + 0.3
    assert ignores["task_success"] <= sound["task_success"] - 0.2


def test_a_smoke_subset_through_the_real_pipeline_keeps_the_benchmarks_invariants(tmp_path):
    """A few seeded conversations per domain and language through `monologue chat`'s processors:
    every conversation ends, every turn is answered, scores are consistent with the record."""
    models = AgentModels(asr=None, tts=None, llm=PlannerFollowingLLM(every=0))
    overrides = steady(monologue={"llm_mode": "never"}, long_term={"llm_help": False})
    options = BenchOptions(domains=DOMAINS, languages=("en", "zh"), n=2, overrides=overrides)
    rows, scored = _run(options, models)
    assert len(scored) == 12 and rows["all"]["n"] == 12
    for record, result in scored:
        last = record.exchanges[-1].user.meant
        assert last.ends or len(record.exchanges) >= 40, record.goal.id
        assert all(e.agent.reply.strip() for e in record.exchanges[:-1]), transcript(record, result)
        assert result.state_answered <= result.state_questions
        assert result.turns_to_success is None or result.turns_to_success <= result.turns
        assert not result.success or any(d["action"] == record.goal.actions[0] for d in record.exchanges[-1].agent.done)
        for key, _ in record.user.current.items():
            assert key in record.goal.slots
    assert any(r.success for _, r in scored)       # the pipeline is reachable end to end
    assert summarise([s for _, s in scored])["task_success"] == rows["all"]["task_success"]
    paths = write_worst(scored, tmp_path, 3)
    assert len(paths) == 3 and "user  ▸" in paths[0].read_text(encoding="utf-8")


def test_the_model_wording_subset_runs_the_reply_model_and_keeps_the_invariants():
    """`--wording model` (the bench's model subset): the reply model words each act, here a fake
    one with a small model's bad habits every second call; the reply check must keep every
    one of them out of what the simulated user hears, and every conversation still ends."""
    llm = PlannerFollowingLLM(every=2)
    models = AgentModels(asr=None, tts=None, llm=llm)
    overrides = steady(monologue={"llm_mode": "never"}, long_term={"llm_help": False})
    options = BenchOptions(domains=DOMAINS, languages=("en", "zh"), n=1, overrides=overrides, wording="model")
    rows, scored = _run(options, models)
    assert len(scored) == 6 and rows["all"]["n"] == 6
    assert {"note", "as_user", "invent"} <= set(llm.misbehaved), "the model's wording was never asked for"
    for record, result in scored:
        assert record.exchanges[-1].user.meant.ends or len(record.exchanges) >= 40, record.goal.id
        for exchange in record.exchanges[:-1]:
            reply = exchange.agent.reply
            assert reply.strip(), transcript(record, result)
            for habit in ("Planner:", "Say this in your own words", "My name is Sam", "Blue Cafe at 10 am"):
                assert habit not in reply, (habit, transcript(record, result))


@needs_corpora
def test_no_one_sentence_speaks_for_a_move_and_values_are_said_as_people_say_them():
    """A corpus with a single turn for a move (CrossWOZ's held-out in-car destination) must not
    become most of what users say; a value in a frame the language says otherwise is said its way."""
    import random
    from collections import Counter

    for language in ("en", "zh"):
        bank = PhrasingBank(load_domain("in_car"), language, "heldout")
        rng = random.Random(3)
        said = Counter(bank.pick("inform", rng, key="destination", kind="enum", corpus_keys={"destination"})
                       for _ in range(300))
        assert said.most_common(1)[0][1] < 0.5 * 300, (language, said.most_common(3))
    en = PhrasingBank(load_domain("in_car"), "en", "heldout")
    assert en.idiomatic("I need to get to home. To home, please.") == "I need to get home. Home, please."
    zh = PhrasingBank(load_domain("in_car"), "zh", "heldout")
    assert zh.idiomatic("说过了，我要去家。导航到家。") == "说过了，我要回家。导航到家。"
