"""De-identification (U4): names of people and places in a memory become placeholders.

`find_names` finds them by rules, in English and Chinese: a name after the words people
use to introduce one ("my wife Anna", "call me Sam", 我女儿叫小雨, 我叫王伟), a capitalised name
beside "with/for/and/tell/ask"; a street address ("12 Baker Street", 翠柳巷十七号), a place
after "live in / from / go to / near" (Lisbon, 上海), a place with its kind (Pine Valley
Mall, 朝阳区, 人民路). Precision before recall: a word that is often capitalised for other
reasons (a weekday, a month, a cuisine, "I") is never a name.

`Placeholders` keeps one user's mapping (`<PERSON_1>` ↔ "Anna"), stable across memories,
so the same person is the same placeholder everywhere; the store keeps the mapping locally
and sealed (`SqlMemoryStore`), and restores it only for local use: the local model, the
user's own view, speech.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from monologue.memory.language.person import CHINESE_SURNAMES

Kind = Literal["PERSON", "PLACE"]
PLACEHOLDER = re.compile(r"<(PERSON|PLACE)_(\d+)>")

_CAP = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_NAME = rf"{_CAP}(?:[ \t]+{_CAP})?"       # one line: a name never spans a line break
# Capitalised for reasons other than being a name.
_NOT_NAMES = frozenset("""
i i'm i've i'd monday tuesday wednesday thursday friday saturday sunday january february march april may june
july august september october november december today tomorrow yesterday tonight christmas easter italian chinese
japanese thai indian french mexican korean vietnamese spanish greek english sichuan cantonese vegetarian vegan
mr mrs ms dr ok okay yes no hello hi hey thanks please sorry the a an my our your his her their this that we you
he she they it and but or so sure well also then what when where who how why which can could would should will
mom mum dad mother father wife husband son daughter friend boss grandma grandpa granny nana aunt auntie
uncle cousin google apple uber tesla bmw monologue
""".split())
_RELATIONS_EN = (r"wife|husband|partner|girlfriend|boyfriend|son|daughter|kid|child|baby|brother|sister|mom|mum|"
                 r"mother|dad|father|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|nephew|niece|friend|"
                 r"best friend|boss|colleague|coworker|manager|neighbou?r|doctor|dentist|therapist|nanny|teacher|"
                 r"dog|cat")
_PERSON_EN = [
    re.compile(rf"\b(?i:my|our)\s+(?i:{_RELATIONS_EN})(?:'s name is|\s+is called|\s+called|,)?\s+(?P<name>{_NAME})"),
    re.compile(rf"\b(?:[Cc]all me|[Mm]y name is|[Nn]ame's|[Ii]t's|[Tt]his is|[Ii]'m|[Ii] am)\s+(?P<name>{_CAP})\b"),
    re.compile(rf"\b(?i:with|for|and|tell|ask|text|call|invite|meet|meeting|visit|visiting|pick up|drop off|"
               rf"to|remind|drop|pick|bring|see|thank)\s+"
               rf"(?P<name>{_NAME})\b(?!\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Mall|Park|Station|Airport))"),
    re.compile(rf"(?:^|[.!?]\s+)(?P<name>{_CAP})\s+(?:is my|is our|likes|loves|hates|prefers|can't|cannot|doesn't|"
               rf"is allergic|is vegetarian|is vegan|always|never|usually)\b"),
    # "Is Marta joining us?", "Did Owen Fletcher confirm?": a question about someone.
    re.compile(rf"(?:^|[.!?]\s+)(?:Is|Was|Did|Does|Has|Will|Can|Could|Should|Would)\s+(?P<name>{_NAME})\s+"
               rf"(?:[a-z]+ing|[a-z]+ed|confirm|come|call|reply|want|like|need|know|say|get|join|eat|drink)\b"),
]
_PLACE_KINDS = (r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Close|Way|Place|Terrace|Court|Square|"
                r"Mall|Park|Station|Airport|Hospital|Clinic|School|University|Centre|Center|Plaza|Market|Bridge|"
                r"Tower|Heights|Gardens|Strasse|Platz")
# Without a house number "Dr" and "St" are titles ("Dr Patel", "St Mary's"), not a drive or a street.
_PLACE_KINDS_NAMED = "|".join(k for k in _PLACE_KINDS.split("|") if k not in ("Dr", "St"))
_PLACE_EN = [
    re.compile(rf"\b(?P<name>\d+[A-Za-z]?[ \t]+(?:{_CAP}[ \t]+){{0,2}}(?:{_PLACE_KINDS}))\b"),
    re.compile(rf"\b(?P<name>(?:{_CAP}[ \t]+){{1,2}}(?:{_PLACE_KINDS_NAMED}))\b"),
    re.compile(rf"\b(?:live|living|lived|moved|born|grew up|work|working|stay|staying)\s+(?:in|at|near)\s+"
               rf"(?P<name>{_NAME})\b"),
    re.compile(rf"\b(?:(?i:go|going|went|drive|driving|fly|flying|travel|travelling|move|moving|moved|head|heading|"
               rf"take me|get me|directions|navigate|route|way|trip|up|down|back|over)\s+to|from|near|in)\s+"
               rf"(?P<name>{_NAME})\b"),
]
_RELATIONS_ZH = (r"老婆|老公|妻子|丈夫|爱人|男朋友|女朋友|儿子|女儿|孩子|宝宝|哥哥|姐姐|弟弟|妹妹|妈妈|爸爸|"
                 r"母亲|父亲|奶奶|爷爷|外婆|外公|姥姥|姥爷|阿姨|叔叔|朋友|同事|老板|领导|邻居|医生|老师|狗|猫")
_SURNAMES = CHINESE_SURNAMES
_PERSON_ZH = [
    re.compile(rf"我(?:们)?(?:家)?(?:的)?(?:{_RELATIONS_ZH})(?:叫|名叫|的名字是|是)(?P<name>[\u4e00-\u9fff]{{2,3}}?)"
               r"(?=[，。！？,.!?\s]|$|他|她|它|喜欢|不|最|对|住|在|每|总|也|很|要)"),
    re.compile(r"(?:我叫|我的名字是)(?P<name>[\u4e00-\u9fff]{2,3}?)(?=[，。！？,.!?\s]|$|吧|就|好)"),
    re.compile(r"(?:跟|和|给|帮|约|接|送|叫|问|告诉|^|[，。！？,.!?]\s*)(?P<name>(?:小|老|阿)[\u4e00-\u9fff])"
               r"(?<!小心)(?<!小时)(?<!小孩)(?<!小区)(?<!小学)(?<!老是)(?<!老家)(?<!老板)(?<!老公)(?<!老婆)(?<!老师)"
               r"(?<!阿姨)(?<!小吃)(?<!老人)(?<!小费)(?<!小声)(?<!小点)(?<!老样)"),
    re.compile(rf"(?:跟|和|给|帮|约|接|送|叫|问|告诉)(?P<name>[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}?)"
               r"(?=[，。！？,.!?\s]|$|一起|打|发|说|吃|去|订|见|回|来|过|到|上|下|周|明|今|晚)"),
]
_PLACE_ZH = [
    re.compile(r"(?P<name>[\u4e00-\u9fff]{2,6}?(?:路|街|巷|道|胡同|弄)(?![况线口上边过费程面])"
               r"(?:[0-9一二三四五六七八九十百]+号)?)"),
    re.compile(r"(?P<name>[\u4e00-\u9fff]{2,5}?(?:小区|大厦|广场|公园|医院|诊所|学校|小学|中学|幼儿园|大学|机场|车站|"
               r"商场|花园|公寓|站))"),
    re.compile(r"(?:住在|家在|住|搬到|来自|老家是|老家在|在)(?P<name>[\u4e00-\u9fff]{2,3}?(?:省|市|区|县|镇|村))"),
    re.compile(r"(?:住在|家在|搬到|来自|老家是|老家在|去|到)(?P<name>北京|上海|广州|深圳|杭州|南京|成都|重庆|武汉|西安|天津|苏州|"
               r"长沙|青岛|厦门|大连|昆明|香港|台北|澳门|东京|纽约|伦敦|巴黎)"),
]
# Words a Chinese rule would otherwise take as a place's or person's name.
_NOT_ZH = ("一起", "这条", "那条", "哪条", "那家", "这家", "马路", "走路", "一路", "公路", "高速", "收费", "街道",
           "附近")
_KIND_ONLY_ZH = re.compile(r"(?:车站|诊所|医院|学校|小学|中学|大学|公园|广场|机场|商场|小区|花园|公寓|大厦|马路|街道)")
_LEADS_ZH = re.compile(r"[去到在住的我你他她从往常送]")
_LEADING_ZH = re.compile(r"^(?:我家|我们家|我们|我|你|他|她|就|在|住|到|去|的|了|是|家)+")


@dataclass(frozen=True)
class Found:
    kind: Kind
    text: str
    start: int
    end: int


def _clean_en(name: str) -> tuple[int, int] | None:
    """Where the name is inside `name` once words that are not names are trimmed off its
    ends (and a possessive 's): offsets into `name`, whatever spaces it holds."""
    words = [w for w in re.finditer(r"\S+", name)]
    while words and words[0].group(0).lower() in _NOT_NAMES:
        words = words[1:]
    while words and words[-1].group(0).lower() in _NOT_NAMES:
        words = words[:-1]
    if not words:
        return None
    end = words[-1].end() - (2 if name[:words[-1].end()].endswith("'s") else 0)
    return words[0].start(), end


def find_names(text: str) -> list[Found]:
    """Names of people and places in `text`, in order, not overlapping (the longer wins)."""
    found: list[Found] = []
    for kind, patterns in (("PLACE", _PLACE_EN), ("PERSON", _PERSON_EN), ("PLACE", _PLACE_ZH),
                           ("PERSON", _PERSON_ZH)):
        for pattern in patterns:
            for m in pattern.finditer(text):
                name = m.group("name")
                if re.search(r"[A-Za-z]", name):
                    span = _clean_en(name)
                    if span is None:
                        continue
                    start, end = m.start("name") + span[0], m.start("name") + span[1]
                    if end <= start or (kind == "PERSON" and text[start:end].lower() in _NOT_NAMES):
                        continue
                else:
                    # A place's name starts after the last word that leads to it ("送我去首都机场").
                    cleaned = _LEADING_ZH.sub("", _LEADS_ZH.split(name)[-1] if kind == "PLACE" else name)
                    if len(cleaned) < 2 or any(w in cleaned for w in _NOT_ZH) or _KIND_ONLY_ZH.fullmatch(cleaned):
                        continue
                    end = m.end("name")            # Chinese is trimmed at its start only
                    start = end - len(cleaned)
                found.append(Found(kind, text[start:end], start, end))   # type: ignore[arg-type]
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    out: list[Found] = []
    for f in found:
        if out and f.start < out[-1].end:
            continue
        out.append(f)
    return out


def detector_scores(items: Iterable[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Precision and recall of `find_names` per language (and "all") on labelled items
    (`{"language", "text", "names": [[kind, name], …]}`): a found name counts only if it is
    exactly a labelled one, of the same kind."""
    counts: dict[str, list[int]] = {}
    for item in items:
        want = {(k, n) for k, n in item["names"]}
        got = {(f.kind, f.text) for f in find_names(item["text"])}
        for language in (item["language"], "all"):
            tp_fp_fn = counts.setdefault(language, [0, 0, 0])
            tp_fp_fn[0] += len(want & got)
            tp_fp_fn[1] += len(got - want)
            tp_fp_fn[2] += len(want - got)
    return {language: {"precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1), "names": tp + fn}
            for language, (tp, fp, fn) in counts.items()}


@dataclass
class Placeholders:
    """One user's mapping between placeholders and what they stand for."""

    originals: dict[str, str] = field(default_factory=dict)      # "<PERSON_1>" -> "Anna"

    def placeholder(self, kind: Kind, original: str) -> str:
        wanted = f"<{kind}_"
        for placeholder, known in self.originals.items():
            if placeholder.startswith(wanted) and known.lower() == original.lower():
                return placeholder
        number = 1 + sum(1 for p in self.originals if p.startswith(wanted))
        placeholder = f"{wanted}{number}>"
        self.originals[placeholder] = original
        return placeholder

    def deidentify(self, text: str) -> str:
        """`text` with every name found replaced by its placeholder (new ones are added)."""
        out, at = [], 0
        for f in find_names(text):
            out += [text[at:f.start], self.placeholder(f.kind, f.text)]
            at = f.end
        return "".join(out) + text[at:]

    def restore(self, text: str) -> str:
        """`text` with every known placeholder replaced by what it stands for (local use only)."""
        return PLACEHOLDER.sub(lambda m: self.originals.get(m.group(0), m.group(0)), text)
