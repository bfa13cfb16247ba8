"""The domain's words where the ASR wrote them by sound (memory/working/heard.py): respelled only
where they sound so, tones too, are no part of another word, and make the rules read more.
`scripts/bench_respelled.py` counts it on real users' turns (no false respelling in CrossWOZ's
4,229) and on commands spoken by the Mandarin voice."""

from __future__ import annotations

import pytest

from monologue.memory.domain.schema import load_schema
from monologue.memory.working.extract import RuleExtractor
from monologue.memory.working.heard import respeller_for

pytest.importorskip("pypinyin")
pytest.importorskip("jieba")


def _respell(domain: str):
    schema = load_schema(domain)
    return respeller_for(schema, RuleExtractor(schema).values_read)


@pytest.mark.parametrize(("heard", "meant"), [
    ("打开做一家热。", "打开座椅加热。"),          # 座椅加热 zuò yǐ jiā rè; 一 takes any tone
    ("做以往后一点。", "座椅往后一点。"),
    ("这手不好听,换一手。", "这首不好听,换一首。"),
])
def test_the_asr_s_homophones_of_the_domain_s_words_are_respelled(heard: str, meant: str) -> None:
    assert _respell("in_car")(heard) == meant


@pytest.mark.parametrize(("domain", "text"), [
    ("in_car", "帮我做一下"),                              # respelled, it reads nothing: kept as heard
    ("restaurant", "北京天健宾馆有会议室吗？"),             # 议室 sounds like 意式 (Italian), inside 会议室
    ("restaurant", "北京二十一世纪饭店是什么类型的酒店呢？"),  # 一世 cuts into 二十一 and 世纪
    ("restaurant", "妈妈很喜欢吃各种美食。"),                # 美食 měishí is not 美式 měishì
    ("in_car", "能告诉我出租车的车牌吗？"),                  # 告诉 gàosu is not 高速 gāosù
    ("in_car", "轰条别开那么猛。"),                          # a near sound (hōng for kōng) is not taken
    ("in_car", "Turn the seat heater on"),
])
def test_what_is_no_homophone_of_the_domain_s_words_is_kept_as_heard(domain: str, text: str) -> None:
    assert _respell(domain)(text) is None
