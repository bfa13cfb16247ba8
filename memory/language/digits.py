"""A code said digit by digit, written in digits.

Order numbers, phone numbers and tickets are said one digit at a time, in Chinese (二零二四零八一五,
三三一，四四二) or in English number words ("ninety two eight eight one", "double five"): each is
written in digits where it was said, the same length, so every span still points at the words.
"""

from __future__ import annotations

import re

_DIGIT_ZH_RUN = r"[零〇幺一二两三四五六七八九]{3,}"
# (…the last group may be two: 八六零三 二九一七 五五, unless it counts: 一三九零零，两个人)
_DIGIT_ZH_TAIL = r"[零〇幺一二两三四五六七八九]{2}(?![零〇幺一二两三四五六七八九十百千万个位人点块元号天岁分])"
# (…or each digit said apart: 五 五 二 零 九 一 三 四 六 八)
_DIGITS_APART_ZH = r"[零〇幺一二两三四五六七八九](?: [零〇幺一二两三四五六七八九]){4,}"
_GROUP_PAUSE_ZH = r"(?:[，,、\s]|嗯|呃)+"
# (…the short tail only after two groups or more: 一三九 零零 一二 is no 13900)
# (…or three groups or more of two digits or more: 七七三，零五，九一八二六; 七七，三零五，九一)
_DIGIT_PAIRS_ZH = r"[零〇幺一二两三四五六七八九]{2,}"
_DIGIT_BY_DIGIT_ZH = re.compile(_DIGITS_APART_ZH + "|"
                                + _DIGIT_PAIRS_ZH + r"(?:" + _GROUP_PAUSE_ZH + _DIGIT_PAIRS_ZH + r"){2,}"
                                + r"(?![零〇幺一二两三四五六七八九十百千万个位人点块元号天岁分])|"
                                + _DIGIT_ZH_RUN + r"(?:" + _GROUP_PAUSE_ZH + _DIGIT_ZH_RUN + r")+"
                                + r"(?:" + _GROUP_PAUSE_ZH + _DIGIT_ZH_TAIL + r")?|"
                                + _DIGIT_ZH_RUN + r"(?:" + _GROUP_PAUSE_ZH + _DIGIT_ZH_RUN + r")*")
_GROUP_BREAK = re.compile(r"(?<=\d)[，,、](?=\d)")
_DIGIT_ZH = str.maketrans("零〇幺一二两三四五六七八九", "0011223456789")


DIGITS_ZH = re.compile(r"[零〇幺一二两三四五六七八九]{2,}")
"""A few digits said one by one in Chinese (the last four of a phone number: 四三二一)."""


def digits_of_zh(run: str) -> str:
    """四三二一 → 4321."""
    return run.translate(_DIGIT_ZH)


# A code's letters spelled apart, then its digits in groups of two or more (M T 八八，零六，幺四五二).
_LETTERS_THEN_GROUPS_ZH = re.compile(r"(?<![A-Za-z])(?P<l>[A-Z](?:[ ,，]*[A-Z]){1,3})[ ,，]*(?P<d>"
                                     r"[零〇幺一二两三四五六七八九\d]{2,}(?:[，,、\s]+[零〇幺一二两三四五六七八九\d]{2,})+)")


def _letters_then_groups(m: re.Match[str]) -> str:
    letters = re.sub(r"[ ,，]+", "", m.group("l"))
    digits = re.sub(r"[，,、\s]+", "", m.group("d")).translate(_DIGIT_ZH)
    return (letters + digits).rjust(len(m.group())) if len(digits) >= 4 else m.group()


def digits_said(text: str) -> str:
    """A code said digit by digit in Chinese (订单号是二零二四零八一五, 八八六六五五四四), or in groups
    (三三一，四四二，五五八), written in digits, character for character (so every span still points
    at the words said); a pause between groups is a space."""
    text = _LETTERS_THEN_GROUPS_ZH.sub(_letters_then_groups, text)
    text = _DIGIT_BY_DIGIT_ZH.sub(lambda m: m.group().translate(_DIGIT_ZH) if sum(
        ch.isdigit() or ch in "零〇幺一二两三四五六七八九" for ch in m.group()) >= 5 else m.group(), text)
    return letters_joined(_groups_joined(_GROUP_BREAK.sub(" ", text)))


# Groups of digits said apart, with a pause or a filler between ("5 5 1 2, 0 0 9 8", "4 5 7... uh
# 7 2 9 1", 三八二，嗯，五一九零): one code. Each group has three digits or more and the run six or
# more, and no word that counts or weighs follows, so "table for 4, 7 pm", "order 12345, 15 kg" and
# "12345, 999 was the price" stay apart.
_DIGIT_GROUP = r"\d(?:[\d ]*\d)?"
_FILLER = r"(?:uh+|um+|erm?|嗯+|呃+)"
_PAUSE = (r"(?:\s*(?:[,，、]|\.{2,}|…)+\s*(?:" + _FILLER + r"\s*(?:[,，、]|\.{2,}|…)*\s*)?|\s+" + _FILLER
          + r"\s*[,，、]?\s*|\s*(?:嗯+|呃+)\s*[,，、]?\s*)")
_GROUPS_APART = re.compile(r"(?<![A-Za-z0-9.,:$£€¥])" + _DIGIT_GROUP + r"(?:" + _PAUSE + _DIGIT_GROUP
                           + r")+(?![A-Za-z0-9]|[.,:]\d)",
                           re.IGNORECASE)
_COUNTED_AFTER = re.compile(r"\s*(?:people|persons|guests|of us|adults|kids|dollars|bucks|pm|am|o'?clock|kg|kilos?|"
                            r"grams?|g\b|lbs?|pounds?|units?|items?|pieces?|pcs|boxes|yuan|rmb|euros?|percent|%|"
                            r"was|were|is|are|of them|"
                            r"个|位|人|点|块|元|件|公斤|斤|克|箱|盒|台|双|份)", re.IGNORECASE)


def _one_code(digits: list[str], letters_before: bool, digit_by_digit: bool = False) -> bool:
    """Whether groups of digits said apart make one code: two groups or more, of three digits or
    more and six in all; the last may be two after two groups ("774, 302, 19"), and after a code's
    letters spelled apart every group may be two, five in all ("Q Z 91, uh, 5503"). Three groups
    read digit by digit ("nine nine three, oh four, double seven") may be two each: nobody counts or
    prices in single digits said in a row. In both, the last may be one ("…, double two, eight")."""
    if len(digits) < 2:
        return False
    if letters_before:
        return all(len(d) >= 2 for d in digits[:-1]) and sum(map(len, digits)) >= 5
    if digit_by_digit and len(digits) >= 3 and all(len(d) >= 2 for d in digits[:-1]) and sum(map(len, digits)) >= 6:
        return True
    heads = digits[:-1] if len(digits) >= 3 else digits
    return all(len(d) >= 3 for d in heads) and len(digits[-1]) >= 2 and sum(map(len, digits)) >= 6


def _groups_joined(text: str) -> str:
    """Digit groups said apart written as one code, a space between groups, padded to the
    words' length at the end (so every span outside the code still points at the words)."""
    def joined(m: re.Match[str]) -> str:
        groups = [g for g in re.split(_PAUSE, m.group(), flags=re.IGNORECASE) if g.strip()]
        digits = [g.replace(" ", "") for g in groups]
        if not _one_code(digits, bool(_LETTERS_BEFORE.search(text, 0, m.start()))) \
                or _COUNTED_AFTER.match(text, m.end()):
            return m.group()
        return " ".join(g.strip() for g in groups).ljust(len(m.group()))
    return _GROUPS_APART.sub(joined, text)


_UNITS_EN = {"zero": 0, "oh": 0, "o": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
             "seven": 7, "eight": 8, "nine": 9}
_TEENS_EN = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
             "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS_EN = {"twenty": 2, "thirty": 3, "forty": 4, "fifty": 5, "sixty": 6, "seventy": 7, "eighty": 8, "ninety": 9}
_DIGIT_WORD_EN = (r"(?:(?:double|triple)\s+)?(?:" + "|".join([*_TENS_EN, *_TEENS_EN, *_UNITS_EN]) + r")")
_DIGIT_WORDS_EN = re.compile(r"\b" + _DIGIT_WORD_EN + r"(?:[\s-]+" + _DIGIT_WORD_EN + r")+\b", re.IGNORECASE)


# Number words said in groups with a pause between, as a phone number is read out.
# (a group may be one digit said twice: "oh four, double seven")
_WORD_GROUP_EN = (r"(?:" + _DIGIT_WORDS_EN.pattern + r"|\b(?:double|triple)\s+(?:" + "|".join(_UNITS_EN) + r")\b)")
# (…and the last may be one digit: "five five five, oh one, double two, eight")
_WORD_GROUPS_EN = re.compile(_WORD_GROUP_EN + r"(?:" + _PAUSE + _WORD_GROUP_EN + r")+(?:" + _PAUSE + r"\b(?:"
                             + "|".join(_UNITS_EN) + r")\b)?", re.IGNORECASE)


def _digits_of_words_en(words: str) -> str:
    """'ninety two eight eight one' → '92881'; 'double four' → '44'; 'oh' is a zero."""
    out: list[str] = []
    tokens = re.split(r"[\s-]+", words.lower())
    repeat, i = 1, 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("double", "triple"):
            repeat = 2 if token == "double" else 3
        elif token in _TENS_EN:
            unit = _UNITS_EN.get(tokens[i + 1]) if i + 1 < len(tokens) else None
            if unit:            # "ninety two" is 92; "ninety oh" is not a number said so
                out.append(str(_TENS_EN[token] * 10 + unit) * repeat)
                i += 1
            else:
                out.append(str(_TENS_EN[token] * 10) * repeat)
            repeat = 1
        else:
            out.append(str(_TEENS_EN.get(token, _UNITS_EN.get(token, 0))) * repeat)
            repeat = 1
        i += 1
    return "".join(out)


# A code's letters spelled apart before its digits ("H X, 550721", "B T 44912", A K 10247783): two to
# four capitals, each alone, then four digits or more.
# (…a dash said between them: "W R dash 207758")
_LETTERS_GAP = r"(?:[ ,]+|\s*-\s*|\s+dash\s+)"
_LETTERS_APART = re.compile(r"(?<![\w'’])(?P<l>[A-Z](?:[ ,]+[A-Z]){1,3})" + _LETTERS_GAP
                            + r"(?=\d{4,}|\d{2,}(?:[ ,]+\d{2,})+)")


_LETTERS_BEFORE = re.compile(r"(?<![\w'’])[A-Z](?:[ ,]+[A-Z]){1,3}" + _LETTERS_GAP + r"$")


def letters_joined(text: str) -> str:
    """`text` with a code's letters spelled apart before its digits written against them ("H X,
    550721" → "   HX550721"), padded before to the same length (so every span still points at
    the words said)."""
    def joined(m: re.Match[str]) -> str:
        letters = re.sub(r"[ ,]+", "", m.group("l"))
        return letters.rjust(len(m.group()))
    return _LETTERS_APART.sub(joined, text)


def digits_said_en(text: str) -> str:
    """A code said in number words ("ninety two eight eight one", "four four seven one"), written
    in digits and padded to the words' length (so every span still points at the words said);
    only a run of five digits or more, so "two people" or "table for four" stay words."""
    def written(m: re.Match[str]) -> str:
        digits = _digits_of_words_en(m.group())
        # (after a code's letters spelled apart, four digits are its number: "R V G four four one nine")
        fewest = 4 if _LETTERS_BEFORE.search(m.string, 0, m.start()) else 5
        return digits.ljust(len(m.group())) if len(digits) >= fewest else m.group()

    def written_groups(m: re.Match[str]) -> str:
        # ("four one five, three three two, seven seven one zero": groups of three or more, six in all)
        groups = [g for g in re.split(_PAUSE, m.group(), flags=re.IGNORECASE) if g.strip()]
        digits = [_digits_of_words_en(g) for g in groups]
        digit_by_digit = all(token in _UNITS_EN or token in ("double", "triple")
                             for token in re.split(r"[\s-]+", " ".join(groups).lower()) if token)
        if not _one_code(digits, bool(_LETTERS_BEFORE.search(m.string, 0, m.start())), digit_by_digit):
            return m.group()
        # (a last digit said alone joins the code: no code's shape ends in a lone digit apart)
        return (" ".join(digits) if len(digits[-1]) > 1 else "".join(digits)).ljust(len(m.group()))
    text = _WORD_GROUPS_EN.sub(written_groups, _letters_as_in(text))
    return letters_joined(_groups_joined(_DIGIT_WORDS_EN.sub(written, text)))


# A house number said in words before a street ("four twenty five Mission Street", "twelve hundred
# Main", "one oh one Elm"): number words, a "hundred" among them.
HOUSE_NUMBER_WORDS_EN = r"(?:(?:" + "|".join([*_TENS_EN, *_TEENS_EN, *_UNITS_EN, "hundred", "and"]) + r")[\s-]+)+"


def house_number_en(words: str) -> str | None:
    """'four twenty five' → '425', 'twelve hundred' → '1200', 'four hundred and ten' → '410',
    'one oh one' → '101'; None where the words say no number."""
    tokens = [t for t in re.split(r"[\s-]+", words.lower().strip()) if t]
    if not tokens or tokens[0] in ("and", "hundred"):
        return None
    if "hundred" in tokens:
        at = tokens.index("hundred")
        head = _digits_of_words_en(" ".join(tokens[:at]))
        rest = [t for t in tokens[at + 1:] if t != "and"]
        tail = _digits_of_words_en(" ".join(rest)) if rest else "0"
        return str(int(head) * 100 + int(tail)) if head and tail.isdigit() else None
    if "and" in tokens:
        return None
    digits = _digits_of_words_en(" ".join(tokens))
    return digits or None


# A radio station by its frequency ("98.5 FM", "ninety eight point five FM", "1010 AM", 调频97.4, FM101.1).
_NUMBER_WORD_EN = r"(?:" + "|".join([*_TENS_EN, *_TEENS_EN, *_UNITS_EN, "hundred"]) + r")"
_STATION_EN = re.compile(r"\b(?P<n>\d{2,4}(?:\.\d)?|(?:" + _NUMBER_WORD_EN + r"[\s-]+)*" + _NUMBER_WORD_EN
                         + r"(?: point (?:" + "|".join(_UNITS_EN) + r"))?)\s*(?P<band>fm|am|f\.m\.|a\.m\.)(?![\w.])",
                         re.IGNORECASE)
_STATION_ZH = re.compile(r"(?:调频|FM|fm)\s*(?P<n>\d{2,3}(?:\.\d)?)|(?P<n2>\d{2,3}\.\d)\s*(?:兆赫|FM|fm)")


def stations_said(text: str) -> list[tuple[str, int, int]]:
    """(station, start, end) for each radio station said by its frequency: "98.5 FM" from "ninety eight
    point five FM", "1010 AM"; 调频97.4 → "FM 97.4". An hour ("at 7 am") is no station: a band follows
    a frequency of two digits or more only."""
    found = []
    for m in _STATION_EN.finditer(text):
        said = m.group("n").lower()
        if not said[:1].isdigit():
            whole, _, tenth = said.partition(" point ")
            number = house_number_en(whole)
            if number is None:
                continue
            said = number + (f".{_UNITS_EN[tenth.strip()]}" if tenth else "")
        band = m.group("band").replace(".", "").upper()
        if len(said.split(".")[0]) >= 2 and (band == "FM" and 87 <= float(said) <= 108 or band == "AM"
                                                and 530 <= float(said) <= 1710):
            found.append((f"{said} {band}", m.start(), m.end()))
    for m in _STATION_ZH.finditer(text):
        said = m.group("n") or m.group("n2")
        if 87 <= float(said) <= 108 and not any(s < m.end() and m.start() < e for _, s, e in found):
            found.append((f"FM {said}", m.start(), m.end()))
    return found


# A letter spelled with a word for it ("A as in apple, 7 7 3 9 1"): the letter, beside what follows.
_LETTER_AS_IN = re.compile(r"\b(?P<l>[A-Za-z]) (?:as|like) in [A-Za-z]+\b,?\s*(?=[A-Za-z0-9])")


def _letters_as_in(text: str) -> str:
    """`text` with each "A as in apple" written as the letter, padded before it to the words' length."""
    return _LETTER_AS_IN.sub(lambda m: " " * (len(m.group()) - 2) + m.group("l").upper() + " ", text)


__all__ = ["HOUSE_NUMBER_WORDS_EN", "digits_said", "digits_said_en", "house_number_en", "stations_said"]
