import pytest

from monologue.memory.language.numbers import (
    en_to_int,
    find_en_dates,
    find_en_times,
    find_zh_dates,
    find_zh_times,
    normalise_time,
    zh_to_int,
)


@pytest.mark.parametrize("text, value", [
    ("四", 4), ("十", 10), ("十二", 12), ("二十五", 25), ("两", 2), ("五百", 500), ("三百五", 350),
    ("一百零五", 105), ("两千", 2000), ("12", 12),
])
def test_chinese_numerals(text, value):
    assert zh_to_int(text) == value


@pytest.mark.parametrize("text, value", [
    ("four", 4), ("twenty-five", 25), ("twenty five", 25), ("one hundred", 100), ("a dozen", 12),
    ("2,000", 2000), ("7", 7), ("seventeen", 17),
])
def test_english_numbers(text, value):
    assert en_to_int(text) == value


@pytest.mark.parametrize("text, value", [
    ("Saturday at 7 pm", "19:00"),
    ("around seven o'clock would be great", "19:00"),
    ("half past 11 in the morning", "11:30"),
    ("at 6:30 in the evening", "18:30"),
    ("11:30 am", "11:30"),
    ("quarter to eight tonight", "19:45"),
    ("at 8", "20:00"),
    ("at noon", "12:00"),        # noon is a clock time by name
])
def test_english_times(text, value):
    found = find_en_times(text)
    assert (found[0][0] if found else None) == value


@pytest.mark.parametrize("text, value", [("half seven, and five of us", "19:30"), ("let's say half eight", "20:30"),
                                         ("at half 7", "19:30")])
def test_half_an_hour_said_the_british_way(text, value):
    """"Half seven" is half past seven; it had been read as no time at all."""
    assert find_en_times(text)[0][0] == value


def test_half_a_count_is_no_time():
    assert find_en_times("half 2 of them") == [] and find_en_times("it is half done") == []


def test_bare_numbers_are_not_times():
    assert find_en_times("a table for four people") == []
    assert find_en_times("at 4 people") == []


@pytest.mark.parametrize("text, value", [
    ("周六晚上七点", "19:00"), ("晚上七点半", "19:30"), ("下午三点一刻", "15:15"), ("晚上7点", "19:00"),
    ("明天中午十二点", "12:00"), ("19:30", "19:30"), ("订七点的位子", "19:00"),
])
def test_chinese_times(text, value):
    assert find_zh_times(text)[0][0] == value


@pytest.mark.parametrize("text, value", [
    # Whisper writes a spoken Chinese time as a decimal (七点半 → 7.5, 三点四十五分 → 3.45分).
    ("明天晚上7.30，四个人", "19:30"), ("改到晚上8.5吧", "20:30"), ("现在是下午3.45分", "15:45"),
    ("明天早上7.50起飞", "07:50"), ("订明天7.30的", "19:30"), ("营业时间是9.5到21点", "09:30"),
])
def test_chinese_times_whisper_writes_as_decimals(text, value):
    assert find_zh_times(text)[0][0] == value


@pytest.mark.parametrize("text", ["评分是4.5分", "打8.5折", "还有1.5公里", "人均42.5元", "这家评分4.8，在3.5公里外",
                                  "今天有2.5万人", "大概1.5个小时"])
def test_chinese_decimals_that_are_not_times(text):
    assert find_zh_times(text) == []


def test_chinese_time_and_party_size_do_not_blur():
    # the small LLMs read 七点四个人 as 7:40; the rules read 19:00 and leave 四个人 alone
    assert find_zh_times("周六晚上七点四个人")[0][0] == "19:00"


@pytest.mark.parametrize("text, value", [
    ("this Saturday", "saturday"), ("next Friday", "next friday"), ("tomorrow night", "tomorrow"),
    ("March 5th", "03-05"), ("the 3rd of March", "03-03"), ("14th of March", "03-14"), ("on the 12th", "day 12"),
])
def test_english_dates(text, value):
    assert find_en_dates(text)[0][0] == value


@pytest.mark.parametrize("text, value", [
    ("周六", "saturday"), ("星期天", "sunday"), ("下周五", "next friday"), ("明天", "tomorrow"),
    ("3月5号", "03-05"), ("后天", "day after tomorrow"),
])
def test_chinese_dates(text, value):
    assert find_zh_dates(text)[0][0] == value


def test_normalise_time_accepts_either_language():
    assert normalise_time("7pm") == "19:00"
    assert normalise_time("晚上八点") == "20:00"


def test_teens_are_not_read_as_their_units():
    import re

    from monologue.memory.language.numbers import EN_NUMBER, to_int
    for word, value in [("nineteen", 19), ("fourteen", 14), ("sixteen", 16), ("seventeen", 17)]:
        match = re.search(EN_NUMBER, f"set it to {word} please")
        assert match is not None and to_int(match.group(0)) == value
