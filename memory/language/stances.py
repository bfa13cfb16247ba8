"""How a clause stands toward a value it names, in English and Chinese: refused or disliked
("anywhere but the patio", 别给我们安排靠窗, "motorways make me nervous"), or asked about
("do I avoid highways?", 还走高速吗).

Language knowledge only; a key's own ways of refusing ("can't eat", 过敏) are in its domain
YAML (`negation:`), and `memory/working/readers.py` decides what a reading means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monologue.memory.language.cues import language_of

_CLAUSE_END = re.compile(r"[,.!?;:，。！？；：…]|\s[-—–]\s")


@dataclass(frozen=True)
class Stances:
    """One language's words for refusing, disliking and asking."""

    spaced: bool
    refusal: re.Pattern[str]          # "don't", "anywhere but", 别, 不要: the nearest one before a value
    reach: int                        # how far (words, or characters) a refusal reaches toward its value
    breaks_refusal: re.Pattern[str]   # a word between refusal and value that ends its reach ("but", 要)
    not_refusal: re.Pattern[str]      # refusal words that are not one ("don't mind", "not sure", 不错)
    dislike_after: re.Pattern[str]    # after a value: "makes me nervous", 太吓人
    question: re.Pattern[str]         # the clause asks
    request: re.Pattern[str]          # a request worded as a question ("could you …", 帮我)


EN = Stances(
    spaced=True,
    refusal=re.compile(
        r"\b(?:no|not|never|don'?t|do not|doesn'?t|does not|won'?t|wouldn'?t|isn'?t|aren'?t|rather not|avoid(?:ing)?|"
        r"without|"
        r"anywhere but|anything but|away from|stay off|keep off|keep (?:me|us) off|instead of|rather than|"
        r"hate|dislike|can'?t stand|cannot stand|can'?t bear|not a fan of|sick of|tired of|afraid of|"
        r"scared of|nervous about|no more|skip)\b"),
    reach=5,
    # ("if it doesn't come I just want a refund": a wish said with its own subject after the refusal
    # is no longer under it; "don't want a refund" has none.)
    breaks_refusal=re.compile(r"\b(?:but|instead|rather|prefer|though|so|and then|because|i meant)\b|"
                              r"\b(?:i|we)\s+(?:\w+\s+)?(?:want|need|would like|'d like|prefer|will take|'ll take)\b"),
    not_refusal=re.compile(r"^(?:don'?t|do not|doesn'?t|does not|won'?t|wouldn'?t|isn'?t|aren'?t) "
                           r"(?:mind|care|matter|a problem|an issue)\b|"
                           r"^not (?:sure|bad|too bad)\b|^no (?:problem|worries)\b|"
                           r"^no\W+(?:actually|wait|sorry|i mean|just)\b"),     # a no that opens a correction
    dislike_after=re.compile(
        r"^\s*(?:\w+\s+){0,2}?(?:makes? me (?:nervous|anxious|sick|uneasy|tense)|stress(?:es)? me out|"
        r"scares? me|freaks? me out|(?:is|are) (?:a no|out|awful|horrible|the worst|a nightmare|too stressful|"
        r"stressful|scary|terrifying|too expensive|too pricey|a rip-?off|always jammed|always backed up)|"
        r"gives? me (?:anxiety|the creeps|a headache)|drives? me (?:mad|crazy|nuts)|costs? (?:way )?too much)\b"),
    question=re.compile(
        r"\?\s*$|^\s*(?:what|which|when|where|who|how|why|is|are|was|were|do|does|did|have|has|had|"
        r"am i|should|shall)\b"),
    request=re.compile(r"^\s*(?:please|could you|can you|would you|will you|can we|could we|would it be)\b"),
)

ZH = Stances(
    spaced=False,
    refusal=re.compile(r"千万不要|千万别|不想要|不希望|不需要|不喜欢|不爱|不太爱|不乐意|受不了|不要|不想|不用|不坐|不走|别要|别|讨厌|害怕|怕|"
                       r"避开|绕开|躲开|而不是|不是"),
    reach=8,
    breaks_refusal=re.compile(r"要|就|是|但|而|改|换"),
    not_refusal=re.compile(r"^(?:不是很|怕是|别的)"),
    # (…or a way not to be taken: 收费的路就别走了啊, 高速不走了)
    # (收费太贵, 高速太堵了: what it costs or how it goes refuses it)
    dislike_after=re.compile(r"^[^，。！？]{0,3}?(?:太吓人|吓人|可怕|让我紧张|我受不了|受不了|太危险|不太?合适|吃不惯|吃不了|"
                             r"太贵|太堵|太绕|"
                             r"(?:别|不|不要)(?:走|上)了?(?:吧|啊|呀)?(?=[，。！？\s]|$))"),
    question=re.compile(r"[?？]\s*$|吗[?？。]?\s*$|呢[?？。]?\s*$|多少|什么|哪|几[点个度号]?[?？]?$|是不是|要不要|有没有"),
    request=re.compile(r"^(?:请|麻烦|帮我|帮忙|能不能|可不可以|可以帮)"),
)

STANCES: dict[str, Stances] = {"en": EN, "zh": ZH}

# What says a state has changed ("I can eat spicy food now", 现在能吃辣了).
CHANGED = {"en": re.compile(r"\b(?:now|again|after all|anymore|any more|these days|no longer)\b"),
           "zh": re.compile(r"了|已经|现在|不再")}

# Words that may follow an adjective-like value without it naming another thing ("Italian
# tonight", "Italian sounds good"); any other word after it is the thing it describes
# ("Italian opera"), and the value is not one.
_AFTER_A_VALUE_EN = re.compile(
    r"\s+(?:is|was|are|be|sounds?|would|will|could|should|might|works?|please|for|at|on|in|or|and|but|"
    r"maybe|perhaps|instead|rather|then|now|tonight|today|tomorrow|this|that|again|too|also|so|though|"
    r"if|with|without|near|around|by|to|one|ones|style|type|kind|sort|food|cuisine|places?|restaurants?|dish(?:es)?|"
    r"options?|spots?|barbecue|bbq|grill|dinner|lunch|brunch|breakfast|meals?|fare|cooking|buffet|noodles|"
    r"street food|fusion|bistro|joints?|takeout|take-out|"
    r"either|any|anything|it|i|we|you|they|he|she|anyway|anyways|yeah|ok|okay|lol|tbh|just|only|yet|still|even|"
    # (an adverb describes no noun: "Thai actually", "Italian definitely"; not "Italian family")
    r"(?!(?:family|belly|jelly|bully|rally|ally|lily|italy|assembly|supply|july|fly|reply|deli)\b)[a-z]+ly)\b|"
    r"\s*(?:[^\w\s]|$)")


def describes_something_else(text: str, end: int, lang: str, nouns: tuple[str, ...] = ()) -> bool:
    """Whether the adjective-like word ending at `end` describes another noun ("Italian
    opera") rather than being said for itself. English only; `nouns`: the key's own."""
    if lang != "en":
        return False
    after = text[end:].lower()
    if _AFTER_A_VALUE_EN.match(after):
        return False
    # (Only the word right after: where another reader's value was blanked out, "Italian ________
    # evening" describes no evening.)
    word = re.match(r"\s([a-z]+)", after)
    if word is None:
        return False
    own = {n.lower() for n in nouns}
    return not ({word.group(1), re.sub(r"(?:es|s)$", "", word.group(1)), word.group(1)[:-1]} & own)


# A clause that tells what was, not what the user wants now: "I used to work at a bakery", "I
# went to school in Boston", 我以前在银行上班. Not a wish said in the past tense for politeness
# ("I wanted a table for four", "I was hoping for seven"), which these do not name.
# What was done, in Chinese: a verb with 过 or a report with 说 just after it, or 已经 just before it.
_DONE_AFTER_ZH = re.compile(r"[^，。！？,.!?]{0,4}?(?:过(?=了|你们|我们|他们|的|[，。！？,.!?]|$)|说(?!一下|一声|吧))")
_DONE_BEFORE_ZH = re.compile(r"已经[^，。！？,.!?]{0,4}$")
_TELLS_OF_THE_PAST = {
    "en": re.compile(r"\b(?:i|we|he|she|they|you|my \w+|our \w+)\s+(?:used to|went (?:to|there)|worked|lived|"
                     r"grew up|was born|studied|drove|flew|walked|moved)\b|\bwhen (?:i|we|he|she) (?:was|were)\b|"
                     r"\b(?:years|months|weeks) ago\b|\bback in (?:the day|\d{2,4})\b", re.IGNORECASE),
    # (以前 after a time is "before": 十点以前到.)
    "zh": re.compile(r"(?<![点时号天])以前(?:在|住|是|常|经常|总|老)|曾经|小时候|那时候|那会儿|当年|"
                     r"年轻的时候|上学的时候|[几多]年前"),
}


# Where the story ends and the request begins, inside one clause (the ASR writes few commas):
# "we went there last year and want a table by the window", 以前在这儿吃过，这次想坐窗边.
_STORY_ENDS = {
    "en": re.compile(r"\b(?:and|so|but|because|now|this time|i want|i'd like|we want|we'd like|please)\b",
                     re.IGNORECASE),
    "zh": re.compile(r"所以|但是|不过|可是|然后|现在|这次|这回|想|要|请|麻烦"),
}


def tells_of_the_past(text: str, start: int, end: int, lang: str) -> bool:
    """Whether text[start:end] is inside a story of the past rather than a request: after a
    word of the past in its clause, and before the word that ends the story ("and", "so", 想)."""
    left, right = clause_bounds(text, start, end)
    if lang == "zh" and (_DONE_AFTER_ZH.match(text, end, right) or _DONE_BEFORE_ZH.search(text, left, start)):
        return True         # 我已经邮件联系过你们了, 快递员电话联系我说放门口了: what was done, no request
    pattern = _TELLS_OF_THE_PAST.get(lang)
    if pattern is None:
        return False
    for m in pattern.finditer(text, left, right):
        story_end = _STORY_ENDS[lang].search(text, m.end(), right)
        if m.start() <= start and end <= (story_end.start() if story_end else right):
            return True
    return False


def clause_of(text: str, span: tuple[int, int]) -> str:
    """The user's own words around a match: the clause that contains it."""
    start = max((m.end() for m in re.finditer(r"[,.!?;，。！？；]", text[: span[0]])), default=0)
    end_match = re.search(r"[,.!?;，。！？；]", text[span[1]:])
    end = span[1] + end_match.start() if end_match else len(text)
    return text[start:end].strip()


def clause_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause around text[start:end]: from the punctuation before it to the one after."""
    left = max((m.end() for m in _CLAUSE_END.finditer(text[:start])), default=0)
    after = _CLAUSE_END.search(text, end)
    return left, after.start() if after else len(text)


def _gap_words(gap: str, spaced: bool) -> int:
    return len(gap.split()) if spaced else len(gap.strip())


def refused_before(text: str, start: int, lang: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether the clause refuses the value at `start` with a word before it ("don't put us
    by the window", 别给我们安排靠窗). `extra`: the key's own refusal words ("can't eat")."""
    stances = STANCES[lang]
    left, _ = clause_bounds(text, start, start)
    before = text[left:start].lower()
    found = list(stances.refusal.finditer(before))
    if extra:
        words = "|".join(re.escape(w.lower()) for w in sorted(extra, key=len, reverse=True))
        found += re.finditer(r"\b(?:" + words + r")\b" if stances.spaced else words, before)
    if not found:
        return False
    nearest = max(found, key=lambda m: m.end())
    gap = before[nearest.end():]
    if stances.not_refusal.match(before[nearest.start():]) or stances.breaks_refusal.search(gap):
        return False
    return _gap_words(gap, stances.spaced) <= stances.reach


def disliked_after(text: str, end: int, lang: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether the words after a value refuse it ("highways make me nervous", 高速太吓人,
    对花生过敏). `extra`: the key's own words for that ("allergy", 过敏)."""
    stances = STANCES[lang]
    _, right = clause_bounds(text, end, end)
    after = text[end:right].lower()
    if stances.dislike_after.match(after):
        return True
    if not extra:
        return False
    words = "|".join(re.escape(w.lower()) for w in extra)
    gap = r"^\s*(?:\w+\s+){0,1}?(?:" if stances.spaced else r"^.{0,3}?(?:"
    return bool(re.match(gap + words + (r")\b" if stances.spaced else ")"), after))


def asks(text: str, start: int, end: int, lang: str) -> bool:
    """Whether the clause around text[start:end] is a question rather than a request."""
    left, right = clause_bounds(text, start, end)
    return asks_for_information(text[left:right] + text[right:right + 1])


# --- questions: a question asks; it never sets a value ------------------------------------

# Words said before a question that do not change what it asks ("wait, is it Friday?").
LEAD_IN_EN = re.compile(r"^\W*(?:(?:wait|hang on|hold on|sorry|so|and|oh|um|uh|er|hmm|well|okay|ok|right|hey|"
                        r"nice|great|cool|alright|"
                        r"just to (?:check|confirm|be sure)|quick question|one thing)\W+)*", re.IGNORECASE)
# (…and Chinese: 嗯……朝阳那边有没有川菜馆啊？ asks as 朝阳那边有没有川菜馆啊 does)
LEAD_IN_ZH = re.compile(r"^[\s，,。.…~～、]*(?:(?:[嗯呃额唔哦噢啊哎诶欸]+|那个|就是|对了|那)[\s，,。.…~～、！!]*)+")
# A request phrased as a question still asks for a change ("could you make it 8?", "能不能改成八点"):
# it may set values. An information question ("what temperature do I like?", 我喜欢几度来着) may not.
REQUEST_QUESTION_EN = re.compile(
    r"^\W*(?:(?:can|could|would|will|shall)\s+(?:you|we|i|u)\b|how about|what about|why don'?t|"
    r"is it (?:ok|okay|possible) (?:to|if)|do you (?:mind|think you could)|please\b|let'?s\b|"
    r"(?:i'd|i would|we'd|we would) (?:like|prefer|rather)|(?:i|we) (?:want|need)|"
    r"(?:are|were) you able to|would it be possible|is there (?:any )?(?:chance|way)|any chance)", re.IGNORECASE)
# Asking for a change, however the question is worded ("Is Sunday possible instead?", "is it
# too late to make it five?"): a request, which may set what it names.
CHANGE_REQUEST_EN = re.compile(r"\b(?:instead|make it|change (?:it|that|the \w+)|move (?:it|that)|switch|"
                               r"possible|available)\b", re.IGNORECASE)
# A yes/no question asks, whatever it is about ("Is the patio open tonight?", "Do I avoid
# highways?"); so does an indirect one ("find out whether they have outdoor seating").
YES_NO_QUESTION_EN = re.compile(
    # ("Don't you have…?" asks; "Don't turn the heater on" is a request.)
    r"^\W*(?:(?:do|does|did|is|are|was|were|have|has|had|am|isn'?t|aren'?t|doesn'?t)\s+\w+|"
    r"don'?t\s+(?:you|we|i|they|it|he|she)\b|"
    # ("will the money go back to my card?", "can the refund go to PayPal?": asked of a thing, not a request)
    r"(?:will|won'?t|would)\s+(?:the|my|it|they|this|that|he|she)\b|(?:can|could)\s+(?:the|my)\b|"
    r"(?:please\s+)?(?:find out|check|ask|tell me|let me know|see)\s+(?:if|whether)\b)", re.IGNORECASE)
# A question-word question asks about the user ("what temperature do I like?", "what did I
# say?"); about the world it is a query, whose place and day are the task's ("what's the
# weather in Seattle on March 9th?").
# ("it's not too pricey is it?": the ASR drops the comma before a tag that is a verb and its subject.
# A negative tag after an opinion asks for agreement: "traffic looks awful, doesn't it?" is small talk.)
TAG_QUESTION_EN = re.compile(r"(?:,\s*(?:right|correct|yeah|yes|isn'?t it|wasn'?t it|aren'?t we|weren'?t we)|"
                             r",?\s+(?:is|was|does|will) it|,?\s+(?:are|do|were) (?:we|they))\s*\?+\s*$", re.IGNORECASE)
WH_QUESTION_EN = re.compile(r"^\W*(?:what|which|when|where|who|whose|why|how(?! about)|whats|wheres|hows|whos)\b",
                            re.IGNORECASE)     # (the ASR drops the apostrophe: "whats the temperature")
INDIRECT_QUESTION_EN = re.compile(r"\b(?:tell me|let me know|find out|check|see|know|ask|wonder(?:ing)?)\s+"
                                  r"(?:if|whether)\b", re.IGNORECASE)
ABOUT_THE_USER_EN = re.compile(r"\b(?:i|my|me|mine|we|our|us)\b|\b(?:remember|recall)\b", re.IGNORECASE)
REQUEST_QUESTION_ZH = re.compile(
    # 能维修吗 asks for a repair (a request); 你能记得我喜欢什么吗 asks a question.
    r"(?<![不可])能(?![^吗]*(?:什么|几|哪|多少|谁|记得|知道|告诉))[^吗]{0,8}吗|"
    # (订单 is the order, not a request to book.)
    r"能不能|能否|可不可以|可以.{0,8}吗|(?<![不还])行(?:吗|不行)|帮我|给我|麻烦|请|改成|换成|改到|订(?!单)|要不|"
    # 有没有便宜点儿的 asks for one that is cheaper: a choice by what it is, not a question.
    r"有没有(?![^，。？?吗]*(?:说过|提过|讲过|记得|告诉))[^，。？?吗]{1,8}的[吗呢]?[?？。]?\s*$")
# (车窗关了没有, 空调还开着吗现在, 空调是开着的吧, 前面堵不堵: a question, however the ASR ends it.)
YES_NO_QUESTION_ZH = re.compile(r"吗[^，。,]{0,4}?[?？。]?\s*$|(?:么|呢)[?？。]?\s*$|是不是|有没有|要不要|"
                                r"(?<!不)对不对|好不好|记得|来着|(?<!不)((?!不)[\u4e00-\u9fff])不\1|"
                                r"(?:对|没错|是)吧[?？。]?\s*$|(?:了|着)没有?[?？。]?\s*$|[着了]的吧[?？。]?\s*$")
# (不怎么好, 没多少: "not very", "not much"; 几个人 after a number word is no question either.)
# (多久 asks; 不管多远都行 and 很多大车 do not; 谁 asks, 谁都行 does not.)
WH_QUESTION_ZH = re.compile(r"什么|几|哪|(?<![不没])多少|(?<![不没很许好差管论])多(?:大|高|低|久|远|快)(?![都也])|"
                            r"(?<![不没])怎么|为什么|谁(?![都也])|[?？]\s*$")
ABOUT_THE_USER_ZH = re.compile(r"我")
# When or how long, asked of the world (钱什么时候退给我, 多久能到), and the words that make it a request after all.
_WHEN_ASKED_ZH = re.compile(r"什么时候|啥时候|几时|多久|多长时间|几天")
_ASKS_FOR_IT_ZH = re.compile(r"能不能|可不可以|能否|麻烦|请|帮我")
# Whether there is an option of a kind ("is there a Sichuan place nearby?", "do you have anything
# vegetarian?", 有川菜吗, 附近有没有火锅店, 川菜有没有): where a domain offers options, asking whether one
# exists asks for it, a choice by what it is (as 有没有便宜点的 is), not a question that leaves the
# state alone. Not a question about what was said (我有没有说过川菜, "is there anything I forgot?").
ASKS_FOR_ONE_EN = re.compile(
    r"^\W*(?:(?:is|are) there (?:a|an|any|some|something|anything|anywhere|somewhere)\b"
    r"(?! (?:chance|way|fee|charge|problem|issue|else)\b)|"
    r"(?:do|would) (?:you|u|y'all)(?: guys| all| folks| lot)? (?:have|know)(?: of)? "
    r"(?:a|an|any|some|anything|something)\b|(?:have you |you )?got any\b|"
    r"(?:know|any) (?:of )?(?:a |any )?(?:good|nice|decent|cheap|great)\b|"
    # ("What Italian places are there?", "which sushi restaurants do you have?")
    r"(?:what|which) (?:\w+ ){0,3}(?:places|restaurants|spots|options)\b(?= (?:are there|do you|have you|can|could|"
    r"would|near|around|nearby)|\W*$))", re.IGNORECASE)
ASKS_FOR_ONE_ZH = re.compile(r"^[^，。,？?]{0,6}?(?<!没)(?:有没有|有)(?!没有|点|些|空|事|问题)"
                             r"[^，。,？?]{1,12}?(?:吗|么|没有?)[?？。]?\s*$|"
                             r"^[^，。,？?]{0,6}?有没有[^，。,？?]{1,12}[?？。]?\s*$|^[^，。,？?]{1,12}有没有[?？。]?\s*$|"
                             # (北京菜有吗: the kind said first)
                             r"^[^，。,？?有]{2,12}(?<![我你他她们])有(?:吗|么)[?？。]?\s*$|"
                             # (有哪些火锅店可以选, 附近有什么川菜馆: which there are)
                             r"^[^，。,？?]{0,6}?有(?:哪些|什么)[^，。,？?]{0,8}(?:店|馆|餐厅|饭店|地方)")
# (Nor one that rules a kind out, "有没有川菜以外的", "a place other than Italian?": the kind it names is refused.)
_NOT_ASKING_FOR_ONE = re.compile(r"我有|说过|提过|讲过|记得|忘|订了|定了|还有(?:位|座|空)|除了|以外|之外|不是|"
                                 r"\b(?:other than|besides|except|apart from|but not|non-?|not)\b|"
                                 r"\b(?:i|we) (?:said|forgot|missed)\b|\banything (?:else|i|we)\b", re.IGNORECASE)


# Asked of the agent, or of the options as a kind ("do you have any Italian places?", 有没有川菜馆): with a
# place already offered, still a request for one; "is there a private room?", 有包间吗 ask about that place.
# ("is there something cheaper?", 有没有便宜点的: another one of that kind, not the one offered.)
OPTIONS_AS_A_KIND = re.compile(r"\b(?:places|restaurants|spots|options|somewhere|anywhere|elsewhere|instead|"
                               r"another|other|something|anything)\b|餐厅|饭店|馆|店|地方|哪家|别的|其他|其它|换|"
                               r"[点些]的", re.IGNORECASE)
# …but not the one in view, pointed at (这家店有素食吗, "does this place have a patio?").
POINTS_AT_THE_ONE = re.compile(r"[这那此它](?:家|个|里|儿)?|\b(?:this|that) (?:place|restaurant|one)\b|\b(?:they|it)\b",
                               re.IGNORECASE)


def asks_for_one(sentence: str) -> bool:
    """Whether `sentence` asks whether an option of a kind exists ("any vegetarian places around?")."""
    stripped = sentence.strip()
    if not stripped or _NOT_ASKING_FOR_ONE.search(stripped):
        return False
    if language_of(stripped) == "zh":
        stripped = LEAD_IN_ZH.sub("", stripped) or stripped
        # (有没有好吃的西餐，朝阳三里屯那块的: the clause that asks, with where said after it)
        return any(ASKS_FOR_ONE_ZH.search(clause.strip()) for clause in re.split(r"[，,]", stripped) if clause.strip())
    return bool(ASKS_FOR_ONE_EN.match(LEAD_IN_EN.sub("", stripped) or stripped))

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def sentences_with_offsets(text: str) -> list[tuple[int, str]]:
    """The sentences of an utterance with where each starts (a question mark ends one).

    Not `dialogue.compose.split_sentences`, which splits a reply the agent wrote: that one
    cuts only before a capital (so "7 p.m. tomorrow" stays whole) and drops the offsets;
    this one reads what the user said, where every end mark ends a sentence and grounding
    needs to know where each sentence starts."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > start and m.start() > start:
            out.append((start, text[start:m.start()]))
            start = m.end()
    if start < len(text) and text[start:].strip():
        out.append((start, text[start:]))
    return out


def asks_for_information(sentence: str) -> bool:
    """Whether one sentence is a question about something (not a request phrased as one)."""
    stripped = sentence.strip()
    if not stripped:
        return False
    if language_of(stripped) == "zh":
        if REQUEST_QUESTION_ZH.search(stripped):
            return False
        return bool(YES_NO_QUESTION_ZH.search(stripped)) or bool(
            WH_QUESTION_ZH.search(stripped) and ABOUT_THE_USER_ZH.search(stripped))
    if INDIRECT_QUESTION_EN.search(stripped):
        return True       # "can you tell me if they have live music?" asks, though worded as a request
    stripped = LEAD_IN_EN.sub("", stripped) or stripped
    if REQUEST_QUESTION_EN.match(stripped) or CHANGE_REQUEST_EN.search(stripped):
        return False
    if TAG_QUESTION_EN.search(stripped):
        return True       # "the airport, right?" checks what was said; it does not say it anew
    # "Seven works?" is a statement said with a rising voice: only a question word or an
    # inverted verb makes an English question.
    if YES_NO_QUESTION_EN.match(stripped):
        return True
    return bool(WH_QUESTION_EN.match(stripped) and ABOUT_THE_USER_EN.search(stripped))


def is_query(sentence: str) -> bool:
    """A question-word question about the world, not the user ("what's the weather in Seattle?",
    "what happens if the refund is late?"): its place and day are the task's; a listed value
    it names ("refund") is only talked about."""
    stripped = sentence.strip()
    if not stripped or language_of(stripped) == "zh":
        # (钱什么时候退给我: when it happens is asked, though 给我 would ask for it; 能不能明天给我退 asks for it)
        when = _WHEN_ASKED_ZH.search(stripped) and not _ASKS_FOR_IT_ZH.search(stripped)
        return bool(stripped) and bool(WH_QUESTION_ZH.search(stripped)) and not asks_for_information(stripped) \
            and (not REQUEST_QUESTION_ZH.search(stripped) or bool(when))
    # ("hmm, how much is that one?": the words said before it change nothing)
    return bool(WH_QUESTION_EN.match(LEAD_IN_EN.sub("", stripped) or stripped)) and not asks_for_information(stripped)
