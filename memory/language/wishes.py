"""What a user asks for in words no key of the domain reads: "somewhere quiet", "a table away
from the kitchen", "the screen is cracked", 要安静一点的, 离厨房远一点. Seed 000's conditions
are words, not only schema slots: such a clause is kept as the user said it, less the lead
that only says "I want".

Language knowledge only: which clause of a turn is a wish (`wish_in`), and the words of a
wish a catalogue's descriptions can be matched on (`content_words`). The domain passes the
words it reads anyway (its aliases, values, goal words): a clause made only of those says
nothing new ("I'd like to book a table").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_I = re.IGNORECASE

# The lead that says "I want" and nothing else; what follows it is the wish.
_LEAD_EN = re.compile(
    r"^(?P<soft>(?:(?:and|but|also|oh|so|well|plus|actually|ideally|preferably|hopefully|if possible|please|"
    r"maybe|if you can|hmm+|um+|uh+)[,\s]+)*)"
    r"(?P<want>(?:(?:could|can|would|will) (?:you|we|i) (?:please |maybe |also )?(?:get|find|have|book|give|put|"
    r"make it|make sure|try|look for|seat|sit|be|have a table|get a table)(?: (?:me|us|it))?(?: (?:at|in|to))?"
    r"|(?:i|we)(?:'d| would| do| really| also| just)* (?:like|love|prefer|want|need|hope for|fancy)"
    r"(?: to (?:have|get|sit|be))?"
    r"|(?:i|we)(?:'d| would) (?:much |far )?rather(?: not)?"
    r"|(?:it|that)(?: would|'d) be (?:nice|great|good|lovely|best)(?: (?:if|to have|to get))?"
    r"|(?:i|we)(?:'m| am| are|'re) (?:looking for|after|hoping for)"
    r"|(?:is|are) there(?: any)?|do you have(?: any)?"
    r"|(?:please )?(?:make sure|ensure)(?: (?:that|it'?s|it is|we get|we'?re|we are))*"
    r"|(?:i|we) (?:don'?t|do not) want"
    # ("also note that the box was crushed": the note is what follows)
    r"|(?:(?:can|could) you |please )?(?:also )?(?:note|add a note|make a note|put a note|put down|write down|mention)"
    r"(?: (?:that|down|too|as well|of (?:this|that)))*)\b[,:\s]*)?", _I)
# Courtesy after the wish ("…, please", "…would be great") is not part of it.
_TAIL_EN = re.compile(r"[,\s]+(?:(?:would|'d) be (?:great|nice|good|lovely|ideal|perfect|best)|please|"
                      r"if (?:possible|we can|you can|you could)|thanks?|thank you)$", _I)
_SOFT_WISH = re.compile(r"ideally|preferably|hopefully|if possible|please|maybe|if you can", _I)
_LEAD_ZH = re.compile(
    r"^(?P<topic>[^，。！？]{0,3}?)(?:还有|另外|而且|对了)*(?:我们?|咱们?)?(?:还|也|就)?"
    # (换一家安静点的, 有没有安静点的: the wish is 安静点的.)
    # (顺便备注一下鞋盒也压坏了: the note is 鞋盒也压坏了)
    r"(?P<want>(?:顺便|帮我|麻烦)*(?:备注|注明|写上|记上|记一下)(?:一下|上)?(?:说|一句)?"
    r"|(?:最好|尽量|麻烦|请)*(?:想要|希望|想|(?<!不)(?<!别)要(?!是|不|求|的)|需要|想找|要找|能不能|可不可以|能|可以|要是|如果|换(?=一?[个家间])|有没有|找)"
    # (想给我爸过生日: for whom, no lead; the wish keeps 我爸)
    r"(?:有(?!人)|找|给我们?(?![爸妈哥姐弟妹老儿女朋同家孩爷奶外])|帮我们?(?:找|安排)?)?|最好|尽量|麻烦|请)"
    r"(?:一?[个家间张])?(?:是(?!不))?")
# "…就好了", "…更好": what the wish is said with, not part of it; it marks a wish as a request does.
_TAIL_ZH = re.compile(r"(?:就好了?|就行了?|更好|最好|就可以了?)$")
# What a request can start with that is itself a wish, with no lead ("somewhere quiet, please").
_HEAD_EN = re.compile(r"^(?:somewhere|some ?place|a (?:place|table|seat|spot|corner|room|booth)|nothing|no|not too|"
                      r"away from|close to|near|next to|with(?:out)?|far from|quiet|something)\b", _I)
# An action asked for ("to add an alarm", "book it", "go ahead") is a request for the policy, not a
# description of what the user wants: a wish describes (a place, a seat, a road, the damage).
_ACTION_EN = re.compile(
    r"^(?:to\s+)?(?:let'?s|go|make|add|buy|book|reserve|play|set|initiate|rent|transfer|get|find|call|order|complain|"
    r"cancel|check|send|give|tell|show|start|stop|take|bring|pick|change|switch|turn|open|close|move|put|help|search|"
    r"look|pay|confirm|proceed|continue|finish|do|use|try|talk|chat|speak|say|ask|know|eat|see|visit|come|process|"
    r"submit|file|lodge|schedule|arrange|organi[sz]e)\b", _I)
_NEGATIVE_LEAD = re.compile(r"\bnot\b|n't\b", _I)
_THE_KIND_ZH = re.compile(r"(?:要|就要)?(?P<what>[^，。！？的]{2,8})的那种(?:吧|啊|呀)?")
_HEAD_ZH = re.compile(r"^(?:安静|离|靠近|远离|别太|不要太|不要|别|有|带|在|找个|找一?家)")
# A concern the user states about the task ("I'm worried about being charged twice", "this is
# the second time", 我怕被扣两次钱): kept whole, since the lead is the point.
_CONCERN_EN = re.compile(
    r"^(?:i'?m|i am|we'?re|we are)\b.{0,20}\b(?:worried|concerned|afraid|nervous|anxious|in a (?:bit of a )?"
    r"(?:hurry|rush))\b|\b(?:second|third|fourth|fifth|\w+th) time\b|^(?:i|we)(?:'d| would) appreciate\b"
    r"|^(?:i|we) (?:really |urgently )?need (?:this|it)\b|^please (?:don'?t|do not|never)\b", _I)
_CONCERN_ZH = re.compile(r"怕|担心|(?<!不)着急|赶时间|第[二三四五两]次|一定要|尽快|越快越好|越简单越好")
# A joining word a clause split leaves at the head ("…, and this is the second time").
_JOINER = re.compile(r"^(?:and|but|also|plus|so|then)\s+|^(?:而且|还有|另外|并且|然后)", _I)
# Not a wish: a question for information, thanks, a greeting, a goodbye, an answer of yes or no.
_NOT_A_WISH_EN = re.compile(
    r"^(?:what|when|where|which|who|whom|whose|why|how|do you know|do you remember|did|does|is it|was it|"
    r"thanks?|thank you|hi|hello|hey|bye|goodbye|yes|yeah|yep|no thanks|ok(?:ay)?|sure|great|perfect|"
    r"cool(?! (?:it|the|things|down|off)\b)|awesome|cheers|brilliant|excellent|fantastic|wonderful|"
    r"sounds|that'?s (?:all|it|fine|great|good|perfect)|never ?mind|forget|cancel|remember|by the way|"
    r"quick question|(?:can|could|may) i ask|i have a question|one more question|"
    # (…nor time given: "no rush though", "take your time", 不着急)
    r"no rush|no hurry|there'?s no (?:rush|hurry)|take your time|i'?m not in a (?:rush|hurry))\b", _I)
# (…nor a question announced: 那个能不能顺便问一下, "by the way, quick question".)
_NOT_A_WISH_ZH = re.compile(r"^(?:什么|几|哪|谁|为什么|怎么|多少|谢谢|你好|再见|好的|好|对(?!了)|是的|不用|算了|"
                            r"没事|行|嗯|"
                            r"(?:别的|其他|其它)(?:都|没|不|也)|"
                            r"记得|忘了|取消|不着急|不急|慢慢来)|(?:吗|呢|么)[？?。]?$|问(?:一下|一问|下|个问题|你个事|件事)$")
# A question word inside the clause: a question, unless a wish leads it (希望有人解释一下怎么回事).
_QUESTION_WORD_ZH = re.compile(r"什么|啥|咋|哪(?:个|里|儿|家|些)|几点|多少|怎么|为什么")
# …but a question of how much or how long is one whatever leads it: 要 there is "take", not
# "want" (还要多久, 要开多长时间, 要多少钱, 还要开几公里).
_HOW_MUCH_ZH = re.compile(r"多(?:久|长|远|少|大|高|重|快)|几(?:点|个|分钟?|天|号|位|公里|度|档|站|小时|岁)")
# (…where a word of wishing leads it, 几 is "a few": 我想要几个靠窗的位置, 希望几天内能到.)
_WISHING_ZH = re.compile(r"希望|想要|想|最好|尽量")
# What is only said of the thing on offer ("the sound of it", "the look of that one").
_ABOUT_THE_OFFER_EN = re.compile(r"^(?:(?:the|a) \w+ (?:of|about) )?(?:it|that|this|them|that one|this one|those)$",
                                 _I)
# Words that carry no wish of their own, in any domain.
_FILLER_EN = frozenset("""
a an the and or but so also too just really very quite pretty maybe please some any it its it's is are was be
to of for in on at by with this that these those there here me us we i my our you your one ones thing things
place places somewhere someplace something anything area spot kind sort type good nice great fine lovely okay ok
well get got have has make made find go going eat eating food want like need would could can will should let
let's today tonight now then if possible ideally preferably hopefully time more bit little lot all
someone somebody anyone everything else ahead matter further help needed way ride trip journey home
order booking reservation restaurant table seat seats people person guests party
notch tad touch smidge not rather i'd i'm i'll we'd we're we'll another
actually sorry hmm umm uh um note
two three four five six seven eight nine ten eleven twelve half quarter morning afternoon evening night noon
o'clock clock
""".split())
_FILLER_ZH = re.compile(
    r"(?:星期|礼拜|周)[一二三四五六日天末]|[今明后昨前]天|[上下这]周|[零一二两三四五六七八九十百千\d]+|[点号月]"
    r"|出发|开始|继续|东西|收到|订位|订座|位子|看看|瞧瞧|试试"      # (位子 whole: 杯子, 桌子 say something)
    r"|[的了吧呢啊呀嘛哦个些就还也都很比较有是我们你他她它这那在要想能可以给帮找去来吃饭地方"
    r"家间位置儿好请麻烦希望需最尽量另外而且对餐馆厅店订]")
_LOWER_HEADS = frozenset("somewhere someplace something a an the no not nothing with without away close near next "
                         "far quiet this that it by".split())
_WORD_EN = re.compile(r"[a-z][a-z'-]+")
_CLAUSE = re.compile(r"[.!?;,。！？；，：]+\s*|\s+(?:and|but)\s+(?=(?:i|we|it|please|also|could|can)\b)"
                     r"|\s+(?:so|because)\s+", _I)


def clauses(text: str) -> list[tuple[int, int]]:
    """The spans of a turn's clauses (a wish is one clause: "for four, somewhere quiet")."""
    spans, start = [], 0
    for m in _CLAUSE.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def content_words(text: str, language: str, known: Iterable[str] = ()) -> set[str]:
    """The words of `text` that say something: not filler, not `known` (the domain's own
    vocabulary). English words are cut to a crude stem ("noisy" and "noise" share "nois");
    Chinese gives its character pairs."""
    known_set = {k.lower() for k in known}
    if language == "en":
        known_stems = {_stem(k) for k in known_set}
        words = {w.strip("'-") for w in _WORD_EN.findall(text.lower())}
        words = {w[:-2] if w.endswith("'s") else w for w in words}
        return {_stem(w) for w in words if len(w) > 2 and w not in _FILLER_EN and w not in known_set
                and _stem(w) not in known_stems}
    rest = text
    for word in sorted(known_set, key=len, reverse=True):
        if word and not word.isascii():
            rest = rest.replace(word, " ")
    rest = _FILLER_ZH.sub(" ", rest)
    pieces = [p for p in re.split(r"[^\u4e00-\u9fff]+", rest) if len(p) >= 2]
    return {p[i:i + 2] for p in pieces for i in range(len(p) - 1)}


def _stem(word: str) -> str:
    for suffix in ("iness", "ness", "ing", "ies", "ily", "ly", "ed", "es", "y", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _lower_head(text: str, language: str) -> str:
    """"Somewhere quiet" as said mid-sentence in a read-back: a common first word loses its capital."""
    if language == "en" and text[:1].isupper() and text.split()[0].lower() in _LOWER_HEADS:
        return text[:1].lower() + text[1:]
    return text


def _led_en(text: str) -> tuple[str, bool] | None:
    """(the wish less its lead and courtesy, whether something marks it as a wish), or None
    for a question, a courtesy or a request for an action."""
    # ("ok maybe somewhere quieter then": the agreement before it is no part of the wish.)
    text = re.sub(r"^(?:ok(?:ay)?|yeah|yes|sure|alright|all right)\b[,\s]+(?=\w)", "", text, flags=re.IGNORECASE)
    if _NOT_A_WISH_EN.match(text):
        return None
    lead = _LEAD_EN.match(text)
    rest = text[lead.end():] if lead else text
    wish = _TAIL_EN.sub("", rest)
    courteous = wish != rest        # "…, please", "…would be great": a request, however it starts
    wish = re.sub(r"[,\s]+(?:then|instead|after all)$", "", wish, flags=re.IGNORECASE)    # ("somewhere quieter then")
    led = bool(lead and (lead.group("want") or _SOFT_WISH.search(lead.group("soft")))) or courteous \
        or bool(_HEAD_EN.match(wish))
    negative = bool(lead and _NEGATIVE_LEAD.search(lead.group(0)))
    wish = _JOINER.sub("", wish.strip(" ,"))
    if _ACTION_EN.match(wish) and not negative:
        return None         # "to add an alarm", "go ahead" (but "rather not go through the centre" is a wish)
    if wish.lower().startswith("to "):
        wish = wish[3:]     # "I'd like to avoid bumpy roads": the wish is "avoid bumpy roads"
    # ("I need to sort out a birthday dinner for my mum": what it is, not the arranging of it)
    wish = re.sub(r"^(?:sort out|organi[sz]e|plan|arrange|set up|put together|throw|host)\s+(?=an?\b|the\b|my\b|our\b)",
                  "", wish, flags=re.IGNORECASE)
    return ("not " + wish if negative else wish), led


# What only asks the agent to choose (有没有推荐的, 找个好吃的, 有合适的吗).
_THE_AGENTS_CHOICE_ZH = re.compile(r"(?:什么|啥|个|家)?(?:推荐|好吃|不错|合适|好)(?:的|一点的|点的)?(?:吗|呢|吧)?")


def without_the_de(said: str) -> str:
    """不太辣的 → 不太辣, 安静一点的 → 安静一点: "one that is…", said of the place; the wish is what it is."""
    return re.sub(r"(?<=..)的$", "", said)


def _led_zh(text: str) -> tuple[str, bool] | None:
    if _NOT_A_WISH_ZH.search(text):
        return None
    lead = _LEAD_ZH.match(text)
    if _QUESTION_WORD_ZH.search(text) and lead is None \
            or _HOW_MUCH_ZH.search(text) and not _WISHING_ZH.search(text):
        return None
    # A short topic before the lead stays ("路上最好风景好一点" → 路上风景好一点).
    rest = lead.group("topic") + text[lead.end():] if lead else text
    kind = _THE_KIND_ZH.fullmatch(rest)
    if kind is not None:
        return kind.group("what"), True     # (清汤的那种: the kind wanted, said by what it is)
    wish = _TAIL_ZH.sub("", rest)
    if _THE_AGENTS_CHOICE_ZH.fullmatch(wish.strip(" ,，。？?")):
        return None     # (有没有推荐的？ asks the agent to choose: no wish of what the place is)
    if lead is not None and re.match(r"[我咱]", text) and len(wish) < 3:
        return None     # 我们要聊天: what they will do there, not what the place should be
    # (不太辣的, 安静一点的: "one that is…", said of the place; the wish is what it is)
    kept = without_the_de(_JOINER.sub("", wish.strip(" ,，")))
    return kept, bool(lead) or wish != rest or bool(_HEAD_ZH.match(wish))


# A greeting and the fillers that open a first turn ("hi yeah I got my order and…", 你好，那个…).
_GREETING_LEAD = {True: re.compile(r"^(?:(?:hi|hey|hello|hiya|good (?:morning|afternoon|evening)|yeah|so|um+|uh+|"
                                   r"well|o+h+|ah+|hmm+|wow)\b[\s,]*)+", re.IGNORECASE),
                  False: re.compile(r"^(?:(?:你好|您好|喂|嗯|那个)[\s，,]*)+")}


_NOT_KNOWING = re.compile(r"(?:(?:uh|um|hmm|oh|sorry|honestly|i mean)[\s,]+)*(?:no idea|not a clue|no clue|"
                          r"i (?:don'?t|do not) know|dunno|(?:i )?(?:can'?t|cannot|don'?t) remember|i forgot|"
                          r"not sure)(?:[\s,]+(?:sorry|really|tbh|honestly))*|"
                          r"(?:我)?(?:不知道|不记得了?|忘了|记不清了?|不清楚)(?:啊|呀|哎|诶)?", re.IGNORECASE)


_HOW_IT_CAME_EN = re.compile(r"(?:it|they|this|that|these|those|mine)\s+"
                             r"(?:came|arrived|showed up|got here|was delivered|were delivered)\s+"
                             r"(?:all\s+|completely\s+|already\s+)?\w+", re.IGNORECASE)


def wish_in(clause: str, language: str, known: Iterable[str] = (), cues: Iterable[str] = (),
            beside_a_value: bool = False, told_at_length: bool = False) -> str | None:
    """The wish a clause states, in the user's words less the lead ("I'd love somewhere quiet"
    → "somewhere quiet"), or None: a question, a courtesy, a request for an action, or nothing
    the domain does not read already. `cues`: the domain's words that make a clause a detail to
    keep even without a lead ("cracked", "漏水"); `beside_a_value`: the clause's other part was
    read as a value, so a detail said only in the domain's words is one ("order 55123 | arrived
    broken"; "my order is broken" alone says no more than the request); `told_at_length`: a fault of the
    key's cues may be told in more words ("I ordered a blue sweater in medium and got a red one in large")."""
    text = _GREETING_LEAD[language == "en"].sub("", clause.strip(" \t,.;:!?，。；：！？"))
    if not text or _NOT_KNOWING.fullmatch(text):
        return None         # ("no idea", 不知道: an answer of not knowing is no detail to keep)
    if (_CONCERN_EN if language == "en" else _CONCERN_ZH).search(text) and content_words(text, language, known):
        # A concern is kept whole: its lead is the point ("I'm worried about being charged twice").
        text = _lower_head(_JOINER.sub("", text), language)
        return text if len(text.split()) <= 16 and len(text) <= 60 else None
    found = _led_en(text) if language == "en" else _led_zh(text)
    if found is None:
        return None
    wish, led = found
    if language == "en" and _ABOUT_THE_OFFER_EN.search(wish):
        return None        # "I like the sound of it": said of the offer, not a wish of its own
    # (不错, 没错 are praise and agreement: no fault said with 错.)
    plain = re.sub(r"不错|没错|错过", " ", text.lower()) if language == "zh" else text.lower()
    cued = any(c and c.lower() in plain for c in cues)
    # (A detail said only in the domain's words is still one: "arrived broken", "charged twice".)
    cued_whole = beside_a_value and (language != "en" or any(
        c and re.search(r"\b" + re.escape(c.lower()) + r"\b", wish.lower()) for c in cues))
    # (…and a cue of a few words says the detail by itself: "my package never showed up", 电饭煲开不了机了.)
    cued_whole = cued_whole or (language == "en" and any(
        c and len(c.split()) >= 2 and re.search(r"\b" + re.escape(c.lower()) + r"\b", wish.lower()) for c in cues)) \
        or (language == "zh" and any(c and len(c) >= 4 and c in wish for c in cues))
    # (…and one said of what came: "it came cracked", "they arrived damaged")
    cued_whole = cued_whole or (cued and language == "en" and bool(_HOW_IT_CAME_EN.match(wish)))
    if not wish or not (led or cued) or not (content_words(wish, language, known) or (cued and cued_whole)):
        return None
    longest = (16, 32) if cued and told_at_length else (12, 24)
    if len(wish.split()) > longest[0] if language == "en" else len(wish) > longest[1]:
        return None        # a story, not a wish: the long-term memory keeps it (a fault told may be longer)
    return _lower_head(wish, language)


# A lead that asks for a note and ends its clause: the note is the clause after it ("对了备注一下，我之前已经打过两次
# 客服了", "also, make a note of this: I called twice").
NOTE_LEAD_ALONE = re.compile(
    r"^\W*(?:(?:对了|还有|另外|顺便|麻烦|帮我|请)[，,\s]*)*(?:备注|注明|写上|记上|记一下)(?:一下|上)?(?:说|一句)?\W*$|"
    r"^\W*(?:(?:also|and|oh|please|can you|could you)[,\s]+)*(?:note|make a note|add a note|put down|write down|"
    r"mention)(?:\s+(?:this|that|too|down|of this|of that|on the ticket))*\W*$", re.IGNORECASE)

__all__ = ["NOTE_LEAD_ALONE", "clauses", "content_words", "wish_in", "without_the_de"]


# What a place is like, said in many words of one quality ("peaceful" wishes for what the catalogue
# calls "quiet"; "is it loud?" is answered by "big and noisy banquet hall"). Each quality has its
# opposite on the same scale: a question about one is answered by a description saying either.
_QUALITIES: dict[str, tuple[str, str, str]] = {
    # quality: (scale, English words, Chinese words)
    "quiet": ("noise", r"quiet\w*|calm\w*|peaceful|tranquil|hushed|serene|low[- ]key",
              r"安静|清静|幽静|宁静|静一点|静点|不吵|不闹"),
    "loud": ("noise", r"loud\w*|nois\w+|lively|busy|buzz\w*|rowdy|crowded|packed|bustling|hectic",
             r"吵|闹|嘈杂|喧|人多|人挺多"),
    "romantic": ("mood", r"romantic|intimate|date night|candle[- ]?lit|cosy|cozy", r"浪漫|约会|烛光|温馨|情调"),
    "children": ("children", r"kids?|children|child|family|families|toddlers?|baby|babies|high ?chairs?",
                 r"孩子|小孩|儿童|亲子|宝宝"),
    "groups": ("groups", r"groups?|big tables?|banquets?|gatherings?", r"聚会|聚餐|宴请|宴会|大桌|团建"),
    "view": ("view", r"views?|scenery|overlook\w*", r"景|风景"),
    "quick": ("speed", r"quick\w*|fast|speedy|in a hurry|rush", r"上菜快|快一点|快点|赶时间"),
    "late": ("hours", r"late[- ]?night|late hours|open late|after midnight", r"深夜|很晚|夜宵|通宵"),
    "bright": ("light", r"bright|sunny|airy|well[- ]lit", r"明亮|敞亮|亮堂"),
    "dim": ("light", r"dark|dim\w*|moody", r"昏暗|暗"),
    "fancy": ("style", r"fancy|elegant|upscale|classy|fine dining|posh|sophisticated", r"高级|高档|优雅|精致|讲究"),
    "casual": ("style", r"casual|relaxed|laid[- ]back|easygoing|informal", r"随意|轻松|休闲|随便"),
}
_QUALITY_PATTERNS = {lang: [(quality, scale, re.compile(
    (r"(?<![\w-])(?:" + en + r")(?![\w-])" if lang == "en" else zh), _I))
    for quality, (scale, en, zh) in _QUALITIES.items()] for lang in ("en", "zh")}


def qualities_named(text: str, language: str) -> set[str]:
    """The qualities of a place `text` names, in any of their words ("peaceful" → quiet, 吵 → loud)."""
    return {quality for quality, _scale, pattern in _QUALITY_PATTERNS["zh" if language == "zh" else "en"]
            if pattern.search(text)}


def scales_named(text: str, language: str) -> set[str]:
    """The scales whose qualities `text` names, either way ("is it loud?" and "quiet" share noise)."""
    return {scale for _quality, scale, pattern in _QUALITY_PATTERNS["zh" if language == "zh" else "en"]
            if pattern.search(text)}
