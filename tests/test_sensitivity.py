"""Sensitivity tiers (U3): rules in both languages, raised never lowered, and local-only
memories kept out of a remote provider's prompt and put back before they are spoken."""

from __future__ import annotations

import json

import pytest
from pipecat.tests.utils import run_test
from test_processors import _turn

from monologue.configs import LLMOptions
from monologue.memory.longterm.engine import AnsweredTurn, LongTermMemory, LongTermOptions, MemoryTools
from monologue.memory.longterm.sensitivity import LocalOnlyRedactor, raised, tier_of
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.working.conversation import ConversationLog
from monologue.models.chat import ChatLLM
from monologue.processors.frames import UserTurnFrame
from monologue.processors.reply import ReplyMemory, ReplyOptions, ReplyProcessor
from monologue.processors.reply_wording import PromptOptions
from monologue.processors.trace import trace_line

from fakes import Clock, bag_of_words


@pytest.mark.parametrize("text, tier", [
    ("Hi, I live at 12 Baker Street.", "local_only"),
    ("our home address is 4 Mill Lane", "local_only"),
    ("I work at the General Hospital on nights.", "local_only"),
    ("I usually park at the Elm Road garage.", "local_only"),
    ("I'm diabetic, so nothing too sweet.", "local_only"),
    ("The code for our gate is 1984, by the way", "private"),      # no "gate code" said together: private
    ("Our gate code is 1984.", "local_only"),
    ("My passport expires in May.", "local_only"),
    ("I use a wheelchair.", "local_only"),
    ("我家住在北京朝阳区。", "local_only"),
    ("我在中关村上班。", "local_only"),
    ("我有高血压。", "local_only"),
    ("我的身份证号码以1101开头。", "local_only"),
    ("门禁码是5678。", "local_only"),
    ("I really love jazz.", "shareable"),
    ("I hate highways.", "shareable"),
    ("Keep the cabin at 21 degrees.", "shareable"),
    ("我喜欢安静的餐厅。", "shareable"),
    ("My sister Anna lives in Leeds.", "private"),
    ("My son is called Tom.", "private"),
])
def test_rules_give_each_memory_a_tier(text: str, tier: str):
    assert tier_of(text) == tier


def test_a_model_may_raise_a_tier_never_lower_it():
    assert raised("private", "local_only") == "local_only"
    assert raised("local_only", "shareable") == "local_only"
    assert raised("shareable", "private") == "private"
    assert raised("private", "secret") == "private"        # not a tier: ignored


def test_the_redactor_keeps_local_only_pieces_out_and_puts_them_back():
    redactor = LocalOnlyRedactor(["Hi, I live at 12 Baker Street.", "I'm allergic to peanuts."])
    sent = redactor.redact([
        {"role": "system", "content": "You are a voice assistant."},
        {"role": "user", "content": "Hi, I live at 12 Baker Street."},
        {"role": "assistant", "content": "Noted: you live at 12 Baker Street."},
        {"role": "user", "content": "Somewhere near home?\n\nPlanner: Say: because you're allergic to peanuts, "
                                    "Chili House is out; Luigi's is close."},
        {"role": "user", "content": "My door code is 4512, and a table for two."}])
    text = json.dumps(sent)
    for secret in ("Baker Street", "peanuts", "4512"):
        assert secret not in text
    assert "Chili House is out" in text and "a table for two" in text and redactor.redacted == 4
    spoken = redactor.restore("Since <LOCAL_3>, I chose Luigi's, near where <LOCAL_2>.")
    assert spoken == "Since you're allergic to peanuts, I chose Luigi's, near where you live at 12 Baker Street."


async def test_a_remote_providers_prompt_never_carries_a_local_only_memory(tmp_path):
    path = tmp_path / "m.db"
    long_term = LongTermMemory(SqlMemoryStore(path), "ann",
                               tools=MemoryTools(embed=bag_of_words, clock=Clock(1_763_000_000.0)),
                               options=LongTermOptions(budget_ms=5000))
    for n, fact in enumerate(("I live at 12 Baker Street.", "My door code is 4512."), 1):
        before = await long_term.before_reply(fact, session_id="s1", turn_class="information_change")
        await long_term.after_reply(AnsweredTurn(before, fact, session_id="s1", turn=n,
                                                 turn_class="information_change"))
    # The provider (mocked) answers with a placeholder; the user hears the original.
    chat = ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None,
                              mock_response="Sure, I'll find a place near <LOCAL_1>."))
    log = ConversationLog()
    log.add("user", "I live at 12 Baker Street.", 1)
    log.add("assistant", "Got it: you live at 12 Baker Street.", 1)
    reply = ReplyProcessor(chat, log, PromptOptions("be brief"), memory=ReplyMemory(long_term=long_term),
                           options=ReplyOptions(min_clause_chars=4))
    turn = _turn("Find me a quiet place near where I live at 12 Baker Street.", 2)
    await run_test(reply, frames_to_send=[UserTurnFrame(turn=turn)])
    sent = json.dumps(turn.reply.prompt)
    assert "Baker Street" not in sent and "4512" not in sent and "<LOCAL_" in sent
    line = trace_line(turn)
    assert line["reply"]["redacted"] >= 1
    # What the provider said was read with the originals back: the check saw (and, here,
    # stopped) "…near I live at 12 Baker Street"; a placeholder is never spoken.
    assert "<LOCAL_" not in turn.reply.text
    assert any("Baker Street" in failure.clause for failure in turn.reply.check), turn.reply.check


def test_the_embedded_model_gets_the_prompt_as_it_is():
    chat = ChatLLM(LLMOptions(model="local/qwen2.5-0.5b-instruct", fallback=None))
    assert chat.remote is False
    assert ChatLLM(LLMOptions(model="openai/gpt-4o-mini", fallback=None)).remote is True


class _TierModel:
    """A model that calls everything about a dentist local-only, and tries to lower the rest."""

    def importance(self, text: str) -> int | None:
        return None

    def contradicts(self, old: str, new: str) -> bool | None:
        return None

    def sensitivity(self, text: str) -> str | None:
        return "local_only" if "Dr Okafor" in text else "shareable"


def test_at_session_end_the_model_may_raise_a_tier_and_it_is_audited():
    from monologue.memory.longterm.consolidation import consolidate
    from monologue.memory.longterm.stream import MemoryStream

    audit: list[tuple] = []
    stream = MemoryStream(SqlMemoryStore(":memory:"), "ann", embed=bag_of_words,
                          audit=lambda *entry: audit.append(entry))
    seen = stream.add("I see Dr Okafor every second Tuesday.", session_id="s1")
    likes = stream.add("I like jazz in the morning.", session_id="s1")
    address = stream.add("I live at 4 Elm Road.", session_id="s1")
    assert (seen.tier, likes.tier, address.tier) == ("private", "shareable", "local_only")
    done = consolidate(stream, _TierModel(), [seen.id, likes.id, address.id], "s1")
    tiers = {r.text: r.tier for r in stream.records()[0]}
    assert done["tiers_raised"] == 1 and tiers["I see Dr Okafor every second Tuesday."] == "local_only"
    assert tiers["I like jazz in the morning."] == "shareable"          # "shareable" again: nothing to lower to
    assert tiers["I live at 4 Elm Road."] == "local_only"               # a model's "shareable" lowers nothing
    assert any("raised by the LLM" in str(entry) for entry in audit)
