"""The user's words in the agent's mouth, and when they were said.

A memory is kept in the user's own words ("I like the seat further back"); said back it
is the agent speaking, so the persons swap ("you like the seat further back", 我 → 你),
and its source is a moment a person would name ("yesterday", "on Wednesday", 上周) —
never a stored timestamp.
"""

from __future__ import annotations

import datetime as dt
import re

from monologue.memory.language.numbers import MONTHS

# One pass, both directions: the user's "I" becomes "you" and the user's "you" (the
# agent) becomes "me", without the second rule undoing the first.
_EN_SWAP = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "i am": "you are", "i was": "you were",
    "we": "you", "us": "you", "our": "your", "ours": "yours", "ourselves": "yourselves",
    "we're": "you're", "we've": "you've", "we'd": "you'd", "we'll": "you'll", "we were": "you were",
    "you": "me", "your": "my", "yours": "mine", "yourself": "myself",
    "you're": "I'm", "you've": "I've", "you'll": "I'll", "you are": "I am", "you were": "I was",
}
_EN = re.compile(r"(?<![\w'])(?:" + "|".join(sorted((re.escape(k) for k in _EN_SWAP), key=len, reverse=True))
                 + r")(?![\w'])", re.IGNORECASE)
_SUBJECT_SLOT = re.compile(r"(?:^|[.!?,;]\s*|\b(?:can|could|will|would|should|did|do|must|may|might|if|when|that)\s+)$",
                           re.IGNORECASE)
_ZH_SWAP = {"我们": "你们", "咱们": "你们", "我": "你", "你们": "我们", "你": "我", "您": "我"}
_ZH = re.compile("|".join(sorted(_ZH_SWAP, key=len, reverse=True)))
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ZH_WEEKDAYS = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
_PARTS = {"en": ("night", "morning", "afternoon", "evening", "night"),
          "zh": ("凌晨", "上午", "下午", "晚上", "夜里")}

# The commonest Chinese surnames: a name heard after words as loose as 我叫 ("I am called", but
# also 帮我叫辆车, "call me a car") is taken for a person's only when it starts with one.
CHINESE_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
                    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺"
                    "顾毛郝龚邵万钱严覃武戴莫孔向汤"
                    # (less common, and no word's first character after 叫, 写 or 姓: 牛先生, 聂晓东)
                    "牛聂乔赖洪施殷庞樊骆葛倪佘伍纪耿邢涂鲁翟毕欧柳褚祁蒙阎霍詹苗裴柯岳滕邬鲍宫卓符颜左饶巫艾靳冉隋")
_COMPOUND_SURNAMES = ("欧阳", "司马", "诸葛", "上官", "慕容", "司徒", "东方", "夏侯", "皇甫", "令狐")
_CHINESE_NAME = re.compile(rf"(?:[{CHINESE_SURNAMES}]|{'|'.join(_COMPOUND_SURNAMES)})[\u4e00-\u9fff]{{1,2}}"
                           r"|(?:小|老|阿)[\u4e00-\u9fff]")


def looks_like_a_chinese_name(words: str) -> bool:
    """Whether `words` are, as a whole, a Chinese person's name (王磊, 欧阳娜娜, 小张)."""
    return _CHINESE_NAME.fullmatch(words.strip()) is not None


# Words before a name as loose as 叫 ("called", but also 帮我叫辆车, "call me a car"): what follows
# them is a name only when it looks like one.
# (…and a bare 名字, 姓名, 预订人: 名字李娜, but not 名字我等会儿告诉你, 预订人写我老婆.)
LOOSE_NAME_CUE_ZH = re.compile(r"(?:(?:名字|姓名|预订人)(?:就)?写|叫|姓|写|联系人是?|名字|姓名|预订人)$")
# (…a surname alone after a cue that says a name is written: 姓陈, 名字写陈 is 陈; 写陈 names nobody)
_SURNAME_ALONE_AFTER = ("姓", "名字写", "名字就写", "姓名写", "预订人写", "预订人就写")
_TITLE_ZH = re.compile(r"先生|女士|小姐|太太")


# How the characters of a name just said are written, said so it is written right (王小明，三横王，
# 大小的小，明天的明; 姓吴，口天吴): a clause of its own that borrows words (明天 is no date here).
_GLOSS_ZH = re.compile(r"(?:^|(?<=[，,、。\s]))(?:(?P<word>[\u4e00-\u9fff]{1,3})的(?P<char>[\u4e00-\u9fff])"
                       r"|[一二两三四五六七八九十][横竖点撇捺画](?P<stroke>[\u4e00-\u9fff])"
                       r"|[\u4e00-\u9fff]{2}(?P<whole>[" + CHINESE_SURNAMES + r"]))(?=[，,、。！!\s]|$)")
_NAME_GIVEN_ZH = re.compile(r"名字|姓名|姓|叫|预订人|联系人|写")


def character_glosses_zh(text: str) -> list[tuple[int, int]]:
    """Where `text` says how a name's characters are written, after giving the name: each clause
    names one of its characters (大小的小, 三横王, 口天吴), said in the name before it."""
    if not _NAME_GIVEN_ZH.search(text):
        return []
    out = []
    for m in _GLOSS_ZH.finditer(text):
        char = m.group("char") or m.group("stroke") or m.group("whole")
        given = _NAME_GIVEN_ZH.search(text, 0, m.start())
        if given is None or char not in text[given.end():m.start()] \
                or (m.group("word") and char not in m.group("word")):
            continue
        out.append(m.span())
    return out


def chinese_name_after(cue: str, words: str, after: str) -> str | None:
    """The person named by `words` after a loose cue (我叫王磊, 联系人张伟, 姓陈, 名字写李先生), a
    surname said alone kept with its title (李先生); None when the words name nobody (帮我叫辆车)."""
    if re.fullmatch(r"[A-Za-z][a-z]+(?: [A-Z][a-z]+)?", words.strip()) and cue != "叫":
        return words.strip()[:1].upper() + words.strip()[1:]    # (名字就写Tom: a name in letters, as written)
    # 我姓王，王小明: the surname, then the whole name said after it.
    # (…a surname of two: 姓欧阳，欧阳娜娜)
    whole = re.match(r"[，,\s]*(" + re.escape(words) + r"[\u4e00-\u9fff]{1,2})(?=[，,。！\s]|$)", after) \
        if cue == "姓" and (len(words) == 1 or words in _COMPOUND_SURNAMES) else None
    if whole is not None and looks_like_a_chinese_name(whole.group(1)):
        return whole.group(1)
    if looks_like_a_chinese_name(words):
        return words
    title = _TITLE_ZH.match(after)
    if (cue in _SURNAME_ALONE_AFTER or title is not None) and looks_like_a_chinese_name(words + "某"):
        return words + (title.group() if title is not None else "")
    return None


# A name spelled out after it is said, as a caller does so it is written right ("Kevin, K E V I N",
# "Sean, that's S E A N", "Nguyen, N-G-U-Y-E-N"), and the surname said after the spelling ("…, Park").
_SPELLING_EN = re.compile(r"[\s,]*(?:(?:that's|that is|it's|spelled|spelt|spelling)\s+)?"
                          r"(?P<letters>[A-Za-z](?:(?:\s*[-.]\s*|\s+)[A-Za-z]){1,20})\.?(?![\w'])", re.IGNORECASE)
_SURNAME_AFTER_EN = re.compile(r"[\s,]+(?:(?:and\s+)?(?:the\s+|my\s+)?(?:last name|surname|family name)"
                               r"(?:'s|\s+is)?\s+)?"
                               r"(?P<name>[A-Z][a-z'][A-Za-z'-]*)(?=\s*(?:[,.!?;]|$))")
# Words that end a turn after a spelling and are no surname ("…, K E V I N, thanks").
_NO_SURNAME_EN = frozenset("""please thanks thank you yes yeah yep no nope ok okay right correct cool great perfect
    sorry bye again too also though then there now that it this so well sure alright fine good""".split())


def _spelled(letters: str) -> str:
    return "".join(re.findall(r"[A-Za-z]", letters))


def spelled_name_after(name: str, text: str, end: int, not_names: frozenset[str] = frozenset()) -> tuple[str, int]:
    """`name`, said in `text` up to `end`, as its spelling that follows writes it ("Shawn, S E A N"
    → Sean), with the surname said after the spelling ("Kevin, K E V I N, Park" → Kevin Park: a
    word in capitals, not one of `not_names`, the words that say something else, "Friday",
    "Italian"), and where what was read ends. A name that is itself letters spelled ("P A R K") is
    the word."""
    if re.fullmatch(r"[A-Za-z](?:[\s.-]+[A-Za-z]){2,20}", name.strip()):
        name = _spelled(name).title()
    spelling = _SPELLING_EN.match(text, end)
    if spelling is None:
        return name, end
    letters = _spelled(spelling.group("letters"))
    words = name.split()
    if len(letters) < 3 and letters.casefold() not in (w.casefold() for w in words):
        return name, end        # ("Kevin, I think": two letters spell a name only when they are one of its words)
    if letters.casefold() not in (w.casefold() for w in words):
        # The spelling is of the word it starts like (the last, if none): "Kevin Park, P A R C".
        at = next((i for i in reversed(range(len(words))) if words[i][:1].casefold() == letters[:1].casefold()),
                  len(words) - 1)
        words[at] = letters.title()
    end = spelling.end()
    surname = _SURNAME_AFTER_EN.match(text, end)
    if surname is not None and surname.group("name").casefold() not in _NO_SURNAME_EN | not_names \
            and surname.group("name").casefold() not in (w.casefold() for w in words):
        said = surname.group("name")
        more, end = spelled_name_after(said, text, surname.end(), not_names)
        words.append(more)
    return " ".join(words), end


# What a correction or a remark wraps around its point ("Sorry, I said 22 last time, I actually
# like it at 21"): the clause that only names what was said before, the interjection, the hedge.
_ASIDE_EN = re.compile(r"^(?:sorry|wait|oh|no|well|so|hmm+|um+|ok(?:ay)?|by the way|anyway|to be honest)$|"
                       r"\b(?:i|you) (?:said|told you|meant)\b.*\b(?:last time|before|earlier)\b|"
                       r"^(?:i|you) (?:said|told you) \S+$", re.IGNORECASE)
_HEDGE_EN = re.compile(r"\b(?:actually|really|just|basically|honestly|kind of|sort of)\s+", re.IGNORECASE)
_ASIDE_ZH = re.compile(r"^(?:对不起|抱歉|不好意思|等一下|哦|嗯|那个)$|上次(?:说|讲)的?是|之前说的?是|我刚才说的是")
_HEDGE_ZH = re.compile(r"其实|实际上")


def gist(text: str, language: str = "en") -> str:
    """A memory's point, without the correction or remark wrapped around it: "Sorry, I said
    22 last time, I actually like it at 21 degrees" → "I like it at 21 degrees". What says
    nothing else is kept whole."""
    parts = [p.strip() for p in re.split(r"[,;，；]", text.strip().rstrip(".!。！")) if p.strip()]
    aside = _ASIDE_EN if language == "en" else _ASIDE_ZH
    kept = [p for p in parts if not aside.search(p)] or parts
    joiner = ", " if language == "en" else "，"
    out = joiner.join(kept)
    out = (_HEDGE_EN if language == "en" else _HEDGE_ZH).sub("", out)
    return out[:1].upper() + out[1:] if language == "en" and text[:1].isupper() else out


_YOU_THE_COMPANY = re.compile(r"(?<![\w'])(?:you (?:guys|all|folks|people)|y'all)(?![\w'])", re.IGNORECASE)
_THE_COMPANY = "\x00"
_A_VERB_AFTER = re.compile(r"\s+(?:\w+ed|sent|sold|gave|shipped|made|did|said|told|took|put|got|had|never|didn't|"
                           r"did not|forgot|left|lost|broke)\b", re.IGNORECASE)


_WHAT_THE_COMPANY_DOES = re.compile(r"\s+(?:sent|shipped|charged|billed|sold|delivered|lost|cancell?ed|refunded|"
                                    r"promised|overcharged|mixed up|messed up)\b", re.IGNORECASE)


def second_person(text: str, language: str = "en") -> str:
    """The user's words as the agent says them back: "I'm allergic to peanuts" → "you're
    allergic to peanuts"; "my wife is vegetarian" → "your wife is vegetarian"; 我喜欢座椅靠后 →
    你喜欢座椅靠后. The end punctuation goes: the sentence it lands in has its own."""
    text = text.strip().rstrip(".!。！")
    if language == "zh":
        return _ZH.sub(lambda m: _ZH_SWAP[m.group(0)], text)

    # ("the boots you guys sent": the user's "you" in the plural is the company, the agent's "we")
    text = _YOU_THE_COMPANY.sub(_THE_COMPANY, text)

    def swap(match: re.Match[str]) -> str:
        word = re.sub(r"\s+", " ", match.group(0).lower())
        if word == "you" and _WHAT_THE_COMPANY_DOES.match(text, match.end()):
            return "we"         # ("you sent the wrong item", "you charged me twice": the company did it, not the agent)
        if word == "you" and (_SUBJECT_SLOT.search(text[: match.start()]) or _A_VERB_AFTER.match(text, match.end())):
            return "I"          # the user's "you" as a subject ("can you remind me") is "I"
        return _EN_SWAP[word]
    out = _EN.sub(swap, text)
    # (…"we" where it does something, "us" where something is done to it: "I told you guys", "from you all")
    out = re.sub(re.escape(_THE_COMPANY) + r"(?=" + _A_VERB_AFTER.pattern + r"|\s+(?:are|were|have|do|don't|always|"
                 r"should|could|would|will|can|keep)\b)", "we", out, flags=re.IGNORECASE).replace(_THE_COMPANY, "us")
    # The sentence it lands in goes on: no capital left from the user's first word, but "I" and names stay.
    if out and out[0].isupper() and not out.startswith(("I ", "I'")) and out.split()[0].lower() in {
            "you", "you're", "you've", "you'd", "you'll", "your", "the", "it", "it's", "there", "that", "this",
            "keep", "make", "set", "no", "never", "always", "please", "just"}:
        out = out[0].lower() + out[1:]
    return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def spoken_day(at: float, language: str = "en") -> str:
    """A calendar day as said aloud: "March 3rd" / "3月3日"."""
    day = dt.datetime.fromtimestamp(at)
    return f"{day.month}月{day.day}日" if language == "zh" else f"{MONTHS[day.month - 1].title()} {_ordinal(day.day)}"


def _part_of_day(hour: int, language: str) -> str:
    parts = _PARTS.get(language, _PARTS["en"])
    return parts[0] if hour < 5 else parts[1] if hour < 12 else parts[2] if hour < 17 else parts[3] \
        if hour < 22 else parts[4]


def when_said(at: float, now: float, language: str = "en", part_of_day: bool = False) -> str:
    """When something was said, the way a person names it: "earlier today", "yesterday",
    "on Wednesday" (this past week), "last week", "on March 3rd"; 今天早些时候, 昨天, 周三,
    上周, 3月3日. `part_of_day`: "on Tuesday evening" / 周二晚上."""
    then, today = dt.datetime.fromtimestamp(at), dt.datetime.fromtimestamp(now)
    days = (today.date() - then.date()).days
    zh = language == "zh"
    part = _part_of_day(then.hour, language) if part_of_day else ""
    if days <= 0:
        if part:
            return f"今天{part}" if zh else "earlier tonight" if part == "night" else f"earlier this {part}"
        return "今天早些时候" if zh else "earlier today"
    if days == 1:
        if part:
            return f"昨天{part}" if zh else "last night" if part in ("evening", "night") else f"yesterday {part}"
        return "昨天" if zh else "yesterday"
    if days < 7:
        weekday = (_ZH_WEEKDAYS if zh else _EN_WEEKDAYS)[then.weekday()]
        return f"{weekday}{part}" if zh else f"on {weekday} {part}".rstrip()
    if days < 14 and not part:
        return "上周" if zh else "last week"
    day = spoken_day(at, language)
    return f"{day}{part}" if zh else f"on {day} {part}".rstrip()
