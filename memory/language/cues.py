"""Cue words in English and Chinese: what marks a yes or a no, a correction, a hedge, a
negation, a withdrawal, a head count or an amount limit; what marks a statement as a
preference, a need, an identity, a plan or small talk.

Language knowledge only: which domain keys these readings go to is the domain YAML's
business (`configs/domains/*.yaml`, `reader:`), never this module's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monologue.memory.language.numbers import EN_NUMBER, MONTHS, WEEKDAY_PATTERN, WEEKDAYS, ZH_NUMBER, to_int

# --- yes and no --------------------------------------------------------------------------

YES_EN = (r"(?:yes|yeah|yep|yup|sure|ok|okay|alright|all right|right|correct|exactly|perfect|great|fine|"
          r"(?:that |this |it )?(?:'s |is |would be |sounds |works|will work)?"
          r"(?:good(?! (?:morning|afternoon|evening|night|day))|great|fine|perfect|right|correct|"
          # (not "that sounds a bit fancy": a complaint)
          r"works|wonderful|excellent|awesome|lovely)|sounds (?:good|great|fine|perfect|nice|lovely|ok(?:ay)?|right|"
          r"about right|like a plan|wonderful|excellent|amazing|awesome|cool|delicious|fun)|"
          r"go ahead|please do|do it|book it|works for me|"
          r"confirm\w*|absolutely|definitely|of course|that(?:'s| is) it)")
NO_EN = (r"(?:no|nope|nah|not (?:that|at this time|now|really)|wrong|that'?s (?:wrong|not)|not that one|"
         r"another one|something else|i don'?t think so)")
YES_ZH = r"(?:好|对|是|嗯|可以|行|没错|没问题|确定|确认|就这样|就这个)"
# A yes/no value written as a word ("true", "yes", 是): how a boolean slot's value reads.
TRUE_WORDS = re.compile(r"true|yes|1|是|要")
NO_ZH = r"(?:不行|不对|不是|不要|不用|错了|换一个)"
# A filler a Chinese answer may open with before its yes (那个，没问题).
FILLER_LEAD_ZH = r"(?:(?:那个|呃|额|唔)[，,\s]*)?"

# A turn that is only a yes or a no ("Yes, thanks", "好的，谢谢", "the second one").
CONFIRM_START_EN = re.compile(
    r"^(?:" + YES_EN + "|" + NO_EN + r"|the (?:first|second|third|last) one)\b", re.IGNORECASE)
CONFIRM_ONLY_ZH = re.compile(
    r"^" + FILLER_LEAD_ZH + r"(?:(?:好的?|对的?|是的?|嗯|可以|行|没错|没问题|确定|确认|就这样|就这个|"
    r"就这么(?:定|办)|那就这样|成交|"
    r"不行|不要|不对|换一个|第[一二三四五]个)[吧啊呀嗯了，。！!,. ]*)+(?:谢谢)?[。！!. ]*$"
)
# What suggests a turn changes the task: a negated word, a number.
NEGATED_WORD_EN = re.compile(
    r"\b(?:no|not|nothing|without|avoid|never)\s+(?!thanks|thank|problem|worries|way)[a-z]{3,}")
NUMBER_MENTION_EN = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|hundred)\b",
    re.IGNORECASE,
)
NUMBER_MENTION_ZH = re.compile(r"[0-9零一二两三四五六七八九十百千万]")

# --- what makes a turn change the task (the turn classifier's generic cues) ----------------
# The domain adds its own words (`turn_cues:` in its YAML).

CHANGE_WORDS_EN = (
    "want", "need", "would like", "i'd like", "looking for",
    "change", "make it", "instead", "actually", "switch", "move", "cancel", "forget", "remove", "drop", "add",
    "no longer", "don't", "do not", "can't", "cannot", "won't", "without", "avoid",
    "under", "at least", "at most", "less than", "more than",
    "my name", "call me", "i live", "i prefer", "i like", "i hate", "i love",
)
# Words that are values themselves (a day, a time of day): cues only where no schema reads the
# turn; with one, the rules say whether they are a value for a slot ("lovely today" is not).
VALUE_WORDS_EN = (
    "today", "tonight", "tomorrow", *WEEKDAYS,
    "morning", "noon", "afternoon", "evening", "night", "am", "pm", "o'clock",
)
# Chinese cues are regex fragments matched anywhere (no word boundaries).
CHANGE_CUES_ZH = (
    "要", "想", "需要", "改", "换成", "换到", "改成", "取消", "不要", "别", "不能",
    "以内", "以下", "不超过", "喜欢", "讨厌", "我叫", "住在",
)
VALUE_CUES_ZH = (
    "人", "位", "点", "周[一二三四五六日天]", "星期", "今天", "明天", "后天", "晚上", "中午", "早上", "下午",
)
# A change verb is a cue strong enough on its own ("Cancel it.").
CHANGE_VERBS = ("cancel", "forget", "change", "make it", "instead", "actually", "switch", "取消", "改成", "换成", "改")


# Asking to change something without saying to what ("can I change the time?", 能改一下人数吗,
# "I need to move the date"): the new value is asked for.
WANTS_A_CHANGE = re.compile(r"\b(?:change|move|switch|update|alter|modify|adjust)\b|改(?!成|为|到)|调整|变更|"
                            r"换个?(?=时间|日子|日期|人数)", re.IGNORECASE)


def cue_pattern(words: tuple[str, ...] | list[str], *, spaced: bool) -> str:
    """One alternation of cue words; a trailing `*` stands for any word ending
    ("celebrat*" matches celebrate, celebration). Spaced languages match whole words."""
    parts = [re.escape(w[:-1]) + r"\w*" if w.endswith("*") else re.escape(w) for w in words]
    body = "(?:" + "|".join(parts) + ")"
    return r"\b" + body + r"\b" if spaced else body


# --- reading conditions from an utterance ---------------------------------------------------


@dataclass(frozen=True)
class StateCues:
    """What the working-memory rules know about one language."""

    spaced: bool                        # words are separated by spaces (match whole words)
    correction: re.Pattern[str]         # "actually", "make it", 改成
    hedge: re.Pattern[str]              # "maybe", 可能: a new value is not a firm change
    negated_value: re.Pattern[str]      # matches the words before a value that negate it ("no spicy")
    negation_after: re.Pattern[str] | None     # 对花生过敏: the negation comes after the value
    negated_before: re.Pattern[str]     # "not tonight", 不是周六: the value is not to be written
    withdrawals: tuple[re.Pattern[str], ...]   # group `what` (or `what2`) names the key or value
    withdraw_key: re.Pattern[str] | None       # 不要预算了: names a key only, never a value
    yes: re.Pattern[str]
    no: re.Pattern[str]
    head_count: tuple[re.Pattern[str], ...]    # group `n`: how many people
    # A party said in groups ("two adults and two kids", 两个大人带一个小孩): each group's count
    # (group `n`) and the words that join groups into one party; the head count is their sum.
    head_count_group: re.Pattern[str]
    head_count_join: re.Pattern[str]
    bare_number: re.Pattern[str]               # "make it six": a number correcting a count
    amount_limit: tuple[re.Pattern[str], ...]  # group `n`: at most this much money
    not_an_amount: re.Pattern[str]             # what after a number shows it is not money
    period_of_day: re.Pattern[str]             # "pm", 晚上: the utterance names its half of the day
    max_answer_words: int                      # a bare answer ("yes, please") is at most this long


_NUMBER_UNIT_AFTER_EN = r"(?!\s*(?::|am|pm|a\.m|p\.m|o'?clock|dollars|bucks|\$))"

# A number said alone, with at most a word of filler or unit around it.
A_NUMBER_ALONE = re.compile(
    r"\W*(?:(?:um|uh|er|hmm|just|about|around|maybe|say|make it|it'?s|its|for|at|oh)\W+){0,2}"
    r"(?:" + EN_NUMBER + r"|\d+(?:[.:]\d+)?)"
    r"(?:\s*(?:please|thanks|people|persons|of us|o'?clock|pm|am|p\.m\.|a\.m\.|degrees|then))*\W*|"
    r"\W*(?:嗯|就|大概|差不多|要)?(?:" + ZH_NUMBER + r")(?:个人|个|位|点半?|点钟|度|号|块)?"
    r"(?:吧|啊|呀|的|就行|就好)?\W*",
    re.IGNORECASE)

# A slip put right in the same breath ("six people, no wait, five", 三个人，哦不，四个人): the number
# after it is the one meant.
# Every one of several things ("shut all of them", 车窗都关上, 两边都开): the whole, not one side.
ALL_OF_THEM = {"en": re.compile(r"\b(?:all|both|every|each|everything|all round|all around)\b", re.IGNORECASE),
               "zh": re.compile(r"都|全部|所有|全都|两边|两个|四个|全开|全关")}
SELF_REPAIR = re.compile(r"(?:(?:\b(?:no,? wait|wait no|no,? (?:hang|hold) on|(?:hang|hold) on,? no|"
                         r"(?:oh|uh|um|ah|actually),? wait|wait,? sorry|wait,? actually|"
                         r"actually,? (?:scratch that|strike that|no|i mean|make (?:it|that))|"
                         r"no sorry|sorry|i mean|i meant|or rather|make that|correction|"
                         r"scratch that|strike that)\b|"
                         r"(?:[哦啊噢][，,]?)?不好意思|哦不对|哦不是|哦不|(?:[哦啊呃噢][，,]?)?(?:(?<!尺码)(?<!颜色)(?<!款式)(?<!型号)(?<!尺寸)(?<!码数)(?<!数量)(?<![发寄送装扣配拿])(?:不对|错了)|"
                         r"说错了|我是说)|应该是|准确(?:地|点|来)?说|"
                         r"具体(?:地|来)?说|具体(?=是)|"
                         r"(?:哦|啊|呃)?(?:少|多|漏)(?:说|打|写)了?(?:一位|一个数|一个数字|个数)|"
                         # (a lone no between commas: "six, no, seven", 六个人，不，七个人)
                         r"(?:(?<=[,，.…])|(?<=[,，.…]\s))\s*(?:不|(?:or\s+)?no)(?=\s*[,，]))[,，.。!！\s]*)+"
                         r"(?:(?:it'?s|是|就|一共|总共|all together|in total)\s*)*", re.IGNORECASE)
_SLIP_GAP = re.compile(r"[\s,，.。!！…]*(?:[吧啊呀嘛哈](?=[\s,，.。!！…]))?[\s,，.。!！…]*")   # (六点半吧，哦不，七点)


def put_right_after(text: str, at: int) -> int | None:
    """Where the words meant begin, when a slip ending at `at` is put right just after it ("six
    people, no wait, five", 调到二十六，不对，二十五吧, "30418... no wait, 30481"); None if it is not."""
    gap = _SLIP_GAP.match(text, at)
    repair = SELF_REPAIR.match(text, gap.end() if gap else at)
    if repair is None:
        # (a pause first: "600418, hmm no sorry, 600481")
        paused = _PAUSE_BEFORE_A_SLIP.match(text, at)
        repair = SELF_REPAIR.match(text, paused.end()) if paused is not None else None
    return repair.end() if repair is not None else None


_PAUSE_BEFORE_A_SLIP = re.compile(r"[\s,，.。!！…]*(?:(?:hmm+|um+|uh+|er+|erm|嗯|呃)[\s,，.。!！…]*)+", re.IGNORECASE)


# A party said as who comes ("just me and my wife", "me, my wife and our two kids", "my husband, me
# and my parents", 就我跟我老婆俩, 我和老婆还有两个孩子, 我跟老婆孩子三个): each person named is one, a
# group counted is its count, parents are two; the speaker is one of them, or it may be someone
# else's party. A group not counted ("me and the kids") says no number; a total said after it does.
_COMPANION_EN = (r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|friend|mom|mum|mother|dad|father|son|"
                 r"daughter|colleague|coworker|co-worker|boss|sister|brother|date|kid|child|baby|grandma|grandpa|"
                 r"grandmother|grandfather|aunt|uncle|cousin|niece|nephew|roommate|buddy|neighbou?r)")
_COMPANIONS_EN = (r"(?:kids|children|friends|colleagues|coworkers|co-workers|sons|daughters|buddies|grandkids|guys|"
                  r"girls|boys|sisters|brothers|cousins|people|babies|toddlers|teens|teenagers|adults)")
_PARTY_MEMBER_EN = re.compile(
    r"\b(?:(?P<me>me|myself|i(?!')|yours truly)"
    r"|(?P<one>(?:my|our|a|the|his|her)\s+(?:[a-z]+\s+)?" + _COMPANION_EN + r")(?!'s|-)"
    r"|(?P<two>(?:my|our|the)\s+(?:parents|grandparents|in-laws|folks))"
    r"|(?:(?:my|our|the|his|her)\s+)?(?P<n>" + EN_NUMBER + r")\s+(?:[a-z]+\s+)?" + _COMPANIONS_EN + r")\b",
    re.IGNORECASE)
_PARTY_JOIN_EN = re.compile(r"\s*(?:,\s*(?:and|plus)?|and|plus|along with|together with|&)\s*(?:also\s+)?$",
                            re.IGNORECASE)
# …more people joined on that are not counted ("me, my wife and our kids", "me and my wife and two clients"), not
# a clause of their own ("me and my wife, the kids are staying home").
_UNCOUNTED_EN = re.compile(r"\s*,?\s*(?:and|plus|with|&)\s+(?!(?:i|we|it|they|he|she|you)\b|(?:i|we|they)'\w+)"
                           r"(?!\S+\s+(?:\S+\s+)?(?:are|is|'re|will|won't|can't|aren't|don't|stay|have|has)\b)",
                           re.IGNORECASE)
_COMPANION_ZH = r"(?:老婆|老公|媳妇|男朋友|女朋友|对象|爱人|朋友|妈妈?|爸爸?|同事|儿子|女儿|孩子|闺蜜|哥们|同学|宝宝)"
_PARTY_MEMBER_ZH = re.compile(
    r"(?P<me>(?<![们])我(?![们的]|" + _COMPANION_ZH + r"|爸妈|父母))|(?P<two>爸妈|父母|爸爸妈妈|公婆|岳父母)"
    r"|(?P<n>" + ZH_NUMBER + r")个" + _COMPANION_ZH + r"|(?P<n2>俩|仨|两)" + _COMPANION_ZH
    + r"|(?P<one>(?:我的?)?" + _COMPANION_ZH + r"(?!们)儿?)")
# (Not a comma alone: 我跟老婆，孩子不去 says who does not come; 我跟我媳妇儿，再加俩孩子 joins them on.)
_PARTY_JOIN_ZH = re.compile(r"^\s*(?:[，,]?\s*(?:再|另外)?\s*(?:跟|和|与|带着?|还有|加上?|以及|外加)|、)?"
                            r"\s*(?:我的?)?$")
_PARTY_TOTAL_ZH = re.compile(r"\s*(?:一共|总共|共|一起)?\s*(?:(?P<n>" + ZH_NUMBER
                             + r")(?:个人?|口人|位)|(?P<pair>俩|仨))")


def party_named(text: str, lang: str) -> tuple[int, tuple[int, int]] | None:
    """How many people a party said as who comes is, and where it is said ("me, my wife and our
    two kids" → 4; 我跟老婆孩子三个 → 3), or None where no such party is said or its size is not."""
    member, join = (_PARTY_MEMBER_EN, _PARTY_JOIN_EN) if lang == "en" else (_PARTY_MEMBER_ZH, _PARTY_JOIN_ZH)
    run: list[re.Match[str]] = []
    runs: list[list[re.Match[str]]] = []
    for m in member.finditer(text):
        if run and join.match(text[run[-1].end():m.start()]):
            run.append(m)
        else:
            runs.append(run)
            run = [m]
    runs.append(run)
    for run in runs:
        if len(run) < 2 or not any(m.group("me") for m in run):
            continue
        span = (run[0].start(), run[-1].end())
        if lang == "zh":
            total = _PARTY_TOTAL_ZH.match(text, span[1])
            if total is not None:
                n = {"俩": 2, "仨": 3}[total.group("pair")] if total.group("pair") else to_int(total.group("n"))
                if n is not None and n >= len(run):
                    return n, (span[0], total.end())
            if re.match(r"[和跟与]", text[span[1]:span[1] + 1]):
                continue        # (我跟老婆和…: more are named than were read)
        elif _UNCOUNTED_EN.match(text, span[1]):
            continue            # "me, my wife and our kids": how many kids is not said
        counts = [2 if m.group("two") else to_int(m.group("n")) if m.group("n") else
                  to_int(m.group("n2")) if lang == "zh" and m.group("n2") else 1 for m in run]
        if any(n is None for n in counts):
            continue
        return sum(n for n in counts if n is not None), span
    return None


# A count that is a price's unit, not the party ("多少钱一位", "$40 a person", 一个人多少钱).
PER_PERSON = re.compile(r"钱|元|块|价|人均|\bper\b|\beach\b|\bcost|\bprice|\$", re.IGNORECASE)

# A character of what a withdrawal names, up to a new clause's subject ("…that i'd rather…").
_SUBJECT = r"(?:i|i'd|i'm|i'll|i've|we|we're|we'll|we'd|you|it's|they)"
_NOT_A_NEW_CLAUSE = r"(?:(?!\s" + _SUBJECT + r"\b)[\w' -])"
_A_REPLACEMENT = (r"(?:that|this|it)\s+(?:" + _SUBJECT + r"|let'?s|make|push|move|bump|change|switch|set|put|go|"
                  r"do|book|add|take|turn|how about|what about|just|actually|instead)\b")
""""Scratch that, push it back an hour": what follows the pronoun is what is wanted instead, not
what is dropped (the pronoun is the last thing said)."""

EN = StateCues(
    spaced=True,
    correction=re.compile(
        r"\b(?:actually|instead|make it|make that|change (?:it|that|the \w+)? ?to|switch (?:it )?to|rather|"
        r"no wait|sorry,? i meant|i meant|correction|let'?s (?:do|say|make it)|not \w+ but|move it to|update)\b"
        r"|\bnever mind,"),     # "Never mind, take me home": a change of mind
    hedge=re.compile(r"\b(?:maybe|perhaps|might|not sure|or maybe|possibly|i guess|probably)\b"),
    # "no spicy", "not too spicy" — but "No, Japanese is a must": the no answers the agent, its
    # comma ends its reach (and "casino" holds no "no").
    # ("no actually the refund is fine": a "no" that opens a correction refuses nothing after it.)
    negated_value=re.compile(r"\b(?:no(?!\s+(?:actually|wait|sorry|i mean|no|problem|worries|thanks)\b)|not|nothing|"
                             r"without|avoid|don'?t want|do not want|skip the|no more)\b"
                             r"(?:\s+[^\s,.;:!?]+){0,2}\s*$|"
                             r"\btoo\s+(?:far\s+|much\s+)?$"),     # "too expensive", "too far back": right before it
    negation_after=None,
    negated_before=re.compile(r"\b(?:not|no|never|isn'?t|except|instead of|rather than|"
                              # ("we can't make it tomorrow", "I won't be able to do Friday": no day to book)
                              r"(?:can'?t|cannot|can not|couldn'?t|won'?t be able to)\s+(?:make it|do|come|go))"
                              r"\s+(?:on\s+|at\s+|this\s+)?$"),
    withdrawals=(
        re.compile(
            # ("drop my wife off at the station", "drop off the kids", "drop by a pharmacy": somewhere to
            # go, nothing dropped)
            r"\b(?:forget(?: about)?|drop(?!\s+(?:off|by|in|into)\b)(?!\s+(?:[\w']+\s+){1,3}off\b)|remove|cancel|"
            r"scrap|scratch|ditch|never mind|ignore|no need for|take off(?! from)|cross off|"
            r"(?:i )?don'?t (?:need|care about)|skip|get rid of|no longer need)"
            r"\s+(?:(?:what|everything) (?:i|we) (?:said|told you|mentioned) (?:about|regarding|on) )?"
            # (What is dropped ends where a new clause starts, unpunctuated as the ASR writes it:
            # "scratch that i'd rather have my money back", "forget the starbucks we're running late".)
            r"(?!" + _A_REPLACEMENT + r")"
            r"(?:the |my |that |a |any )?[$¥€£]?(?P<what>\d+(?:\.\d+)?" + _NOT_A_NEW_CLAUSE + r"{0,25}|"
            r"(?!" + _SUBJECT + r"\b)" + _NOT_A_NEW_CLAUSE + r"{2,30})"),
        re.compile(r"(?:the |my )?[$¥€£]?(?P<what>\d+(?:\.\d+)?[\w' -]{0,20}?|[\w' -]{2,30}?)\s+"
                   r"(?:doesn'?t|does not|no longer|won'?t) matter"
                   r"|(?:any|whatever) (?P<what2>[\w]+) (?:is|works) fine"),
    ),
    withdraw_key=None,
    yes=re.compile(r"^\s*" + YES_EN + r"\b"),
    no=re.compile(r"^\s*" + NO_EN + r"\b"),
    head_count=(
        # Not "one of us is allergic" (someone described) nor "one of us can't come" (a change), nor "two of
        # us are vegetarian" (a part of the party described; "four of us are coming" is the party).
        re.compile(r"\b(?P<n>" + EN_NUMBER
                   + r")\s+(?:people|persons|person|guests|adults|diners|(?<!\bone )of us"
                     r"(?!\s+(?:are|is|'re|were|can'?t|cannot|don'?t|do not|won'?t|eat|have|need|prefer|like|use)\b"
                     r"(?!\s+(?:coming|going|joining|eating|dining|here|in)\b))|seats|pax|ppl|tickets|"
                     r"passengers|travell?ers|riders)\b"
                   # (not so many who come or go: "two people just dropped out", "three more people are joining")
                   r"(?!\s+(?:(?:just|also|now|have|had|has)\s+)*(?:dropped out|drop(?:ped)? off|cancel+ed|bailed|"
                   r"pulled out|backed out|can'?t (?:come|make it|join)|won'?t (?:come|make it|be coming)|"
                   r"aren'?t (?:coming|joining)|are (?:also )?(?:coming|joining)|joined|less|fewer)\b)"),
        re.compile(r"\bparty of (?:like |about |around |maybe |roughly )?(?P<n>" + EN_NUMBER + r")\b"),
        # ("we're a group of like eight", "book for a family of five"; not "my family of five can't make it")
        re.compile(r"(?:^|\b(?:we'?re|we are|we'?ll be|we will be|it'?s|it will be|it'll be|for|book|reserve)\s+)"
                   r"(?:a |an )?(?:group|family|team|bunch|crew) of (?:like |about |around |maybe |roughly )?(?P<n>"
                   + EN_NUMBER + r")\b"),
        re.compile(r"\b(?:table|reservation|booking|seats?) for (?P<n>" + EN_NUMBER + r")\b" + _NUMBER_UNIT_AFTER_EN),
        re.compile(r"\bfor (?P<n>" + EN_NUMBER + r")\b(?=\s*(?:[,.!?]|$|on |at |this |next |tomorrow|today|tonight|"
                   r"please|pls|thanks|thank you|and |if |around |then\b))"),
        # (not "we'll be two fewer", "we're one short": a change of the count held)
        re.compile(r"\bwe(?:'re| are| will be|'ll be) (?P<n>" + EN_NUMBER + r")\b"
                   r"(?!\s+(?:fewer|less|more|extra|short|down|up|over|under)\b)"),
        # "change the party size to three", "the number of guests is 6"
        re.compile(r"\b(?:party size|group size|size of (?:the|our) party|number of (?:people|guests|diners)|"
                   r"head ?count)\s+(?:to|is|of|at|will be|should be|would be|now)\s+(?P<n>" + EN_NUMBER + r")\b"),
    ),
    head_count_group=re.compile(
        r"\b(?P<n>" + EN_NUMBER + r"|an?)\s+(?:adults?|grown-?ups|kids?|children|child|babies|baby|toddlers?|teens?|"
        r"teenagers?|seniors?|elderly|infants?|grandparents|parents|friends|colleagues|people|persons|guests)\b",
        re.IGNORECASE),
    head_count_join=re.compile(r"^\s*,?\s*(?:and|plus|with|along with|together with|&|\+|,)?\s*(?:also\s+)?$",
                               re.IGNORECASE),
    bare_number=re.compile(r"\b(?:make (?:it|that)|change (?:it|that) to|actually|instead|rather|"
                           r"(?:let'?s|let us) (?:just )?say|(?:can|could) (?:we|i|you) (?:do|make it)|"
                           r"(?:let'?s |we'?ll |i'?ll )?go with|"
                           r"i meant|i mean|now|(?:it|that|we)(?:'ll| will) be|"
                           # (a total the turn comes to: "my sister's joining, so that's five", "that makes
                           # six"; "so" alone only before a number that ends its clause: "so two of us are
                           # vegetarian" puts nothing right)
                           r"that makes|(?:which|that) (?:makes|brings (?:us|it) to|comes to)|"
                           r"so(?: that'?s| it'?s| we'?re| we'?ll be)?(?=\s+(?:" + EN_NUMBER + r")\s*(?:[,.!?;…]|$|"
                           r"then\b|in (?:all|total)\b|total\b|altogether\b|people\b|of us\b|guests\b)))\s+(?P<n>"
                           + EN_NUMBER + r")\b"
                           r"(?!\s*(?::|am|pm|o'?clock|dollars|bucks|more\b|extra\b|additional\b|of\b))"),
    amount_limit=(
        re.compile(r"\b(?:under|below|less than|no more than|at most|max(?:imum)?|up to|within|cheaper than|not over|"
                   r"not more than)\s+(?:\$|£|€|¥)?\s?(?P<n>" + EN_NUMBER + r")"),
        re.compile(r"(?:\$|£|€|¥)\s?(?P<n>\d+)\s*(?:max|tops|or less|at most)"),
        # ("around 30 bucks a head", "$40 per person": what each means to spend.)
        re.compile(r"(?:\$|£|€|¥)?\s?(?P<n>\d+|" + EN_NUMBER + r")\s*(?:bucks|dollars|quid|euros|pounds|yuan)?\s*"
                   r"(?:a head|per head|per person|each|a person|pp)\b"),
    ),
    not_an_amount=re.compile(r"\s*(?:people|persons|guests|pm|am|o'?clock|minutes|km|miles)"),
    # (am and pm after a number only: "I am calling about the order that came broken" names no morning)
    period_of_day=re.compile(r"(?:\d\s?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                             r"thirty|forty[- ]five|o'?clock)\s)(?:am|pm|a\.m|p\.m)\b|"
                             r"\b(?:morning|evening|afternoon|night|tonight|noon)\b", re.IGNORECASE),
    max_answer_words=6,
)

# After a number, what shows it counts or times something rather than money (两个小时, 一份, 两道菜).
_NOT_MONEY_AFTER_ZH = (r"(?![\d零一二两三四五六七八九十百千万]|"
                       r"\s*(?:个|位|人|点|份|道|杯|碗|瓶|盘|样|小时|分钟|钟头|天|晚|"
                       r"公里|里|站|号|岁|次|遍|口))")

ZH = StateCues(
    spaced=False,
    # (算了，回家吧: a change of mind.)
    # (我想换个地方，去三里屯, 那去中关村: another one asked for, not a slip to ask about.)
    # (诶不是，去万达广场吧: a "no" that opens the turn puts the value held right.)
    correction=re.compile(r"改成|换成|改为|改到|换到|改去|换去|还是|其实|不对|应该是|更正|算了[，,、 ]|换个|换一个|"
                          r"^那(?:就)?去|^\W*(?:诶|哎|欸|啊|呃|嗯)?[，, ]*不是[，,、 ]"),
    hedge=re.compile(r"也许|可能|或者|不确定|大概吧"),
    # 不要辣, 不再是短信, 不发短信, 别走高速
    # 太贵了 complains of a value: what is not wanted (太 right before it: 太想吃火锅 wants it).
    # (那我不要了，退款吧: a refusal ends at its clause; the refund after the comma is wanted.)
    # (要不吃川菜吧, 要不去海底捞: "how about", no refusal; 要不要订: a question)
    negated_value=re.compile(r"(?:(?:(?<!要)不要|别要|去掉|不再(?:是)?|(?<!要)[不别](?:再)?[发打用走吃坐订选加放开去到])"
                             r"[^，,。！？；;\s]{0,2}"
                             # (不辣的, 我要不辣的: 不 right before the value; 要不川菜吧 is "how about")
                             r"|(?<!太)太|(?:(?<!要)|(?<=[我就只都还]要))不)$"),
    # (川菜以外的, 除了川菜都行: all but it, though 除了川菜以外还想吃烤鸭 adds; a key's own words after
    # its value, 对花生过敏, are in its YAML)
    # (The thing said first, refused by the words that end its clause: 火锅不想吃, 川菜太辣了不要; not
    # 去机场不要走高速 or 火锅不要太辣, where the refusal has an object of its own, nor 还是回家算了, "let's
    # just go home".)
    # (川菜以外的都行 refuses it; 川菜都行, 湘菜或者川菜都行 take it)
    negation_after=re.compile(r"\s*(?:(?:以外|之外)(?![^，,。]*[还也])|(?:以外|之外)的?(?:都行|都可以|都好|随便))|"
                              r"[^，,。？?！!]{0,5}?(?:我们?)?(?:就|也|都|真|实在|今天|最近|这次)?"
                              r"(?:不想吃|不想去|不太想吃|不要|不吃|不去|不爱吃|不喜欢|吃不了|吃腻|吃够|不考虑|(?<!行)不行)"
                              r"(?:了|啦|吧|啊|呀|的)*(?=\s*(?:[，,。！!？?]|$))"),
    negated_before=re.compile(r"(?:不是|不要|除了|而不是|[不别](?:想|再|要)?[去吃订选])$"),
    withdrawals=(
        # The thing withdrawn is the clause before the withdrawal words, whole (户外的位子不要了 is the
        # seating, not the 位 of a head count), with any 那个 / 就 between.
        re.compile(r"(?:取消|去掉|算了|不用|不需要|别管)(?:那个|这个)?(?P<what>[\u4e00-\u9fff]{1,6})"
                   r"|(?:^|(?<=[，,。.！!？?；;\s]))(?P<what2>[\u4e00-\u9fff]{1,8}?|[\u4e00-\u9fff]{0,4}[\d.]+\s*[\u4e00-\u9fff]{0,2}?)"
                   r"(?:那个|这个)?就?"
                   r"(?:无所谓|不限|随便|算了|不用了|不要了|不用管了|别管了|不管了|不需要了|去掉吧|取消吧)"
                   # 刚才说的忌口，不用考虑了: the thing named in its own clause, then taken back in the next.
                   r"|(?P<what3>[\u4e00-\u9fff]{1,8})[，,]\s*(?:那个|这个)?就?"
                   r"(?:不用考虑了|不考虑了|不需要考虑了|不用管了|别管了|不用了|不要了|算了|去掉吧|取消吧)"
                   # 哪个区都行, 东城区不行的话别的区也可以: any of the key's will do
                   r"|(?P<what4>(?:哪个|别的|其他|其它)[\u4e00-\u9fff]{1,3}?)(?:都行|都可以|也行|也可以|都好|都没问题)"),
        # 忘了我说的关于座位的事, 把座位的事忘了: forgetting what was said about a key of the task.
        re.compile(r"(?:忘(?:掉|了|记)|删(?:掉|除))我?(?:说的|说过的|告诉你的)?(?:关于|有关)(?P<what>[\u4e00-\u9fff]{1,6}?)"
                   r"(?:的(?:事|话|内容)|吧|[。！，,]|$)"
                   r"|把我?(?:说的|说过的)?(?:关于)?(?P<what2>[\u4e00-\u9fff]{1,6}?)(?:的(?:事|话|内容))?(?:忘(?:掉|了)|删(?:掉|除)?)"),
    ),
    withdraw_key=re.compile(r"不要(?:那个|这个)?(?P<what>[\u4e00-\u9fff]{1,4}?)了"),
    # A yes word is a yes only where it ends (行 in 行程, 对 in 对面, 是 in 是六个人 are not).
    # 对了 at the start is "by the way", not a yes.
    yes=re.compile(r"^\s*" + FILLER_LEAD_ZH + r"(?!对了)" + YES_ZH
                   + r"(?=[的吧啊呀了嗯啦哦对好是，。！？!?,.\s]|$)"),
    no=re.compile(r"^\s*" + NO_ZH),
    head_count=(
        # Not "有一位坐轮椅" (one of them, described): a count is not followed by what someone does.
        # (…not a weekday's number: 周六三个人 is three)
        re.compile(r"(?<!周)(?<!星期)(?<!礼拜)(?P<n>" + ZH_NUMBER
                   + r")\s*(?:个人|位|口人|人)(?!民|均|工|家|坐|是|要|有|对|会|得|在|用|不)"),
        re.compile(r"我们(?:一共)?(?P<n>" + ZH_NUMBER + r")个"),
        # 十来个人 is about ten; 一家五口; 我们仨, 咱俩; 准确说是十二个.
        re.compile(r"(?P<n>[一二两三四五六七八九十\d]+)来(?:个人|个|位|号人|人)"),
        re.compile(r"一家(?P<n>[二两三四五六七八九十]+)口"),
        re.compile(r"(?:我们|咱们|咱|我)(?P<n>俩|仨)(?!个)"),
        re.compile(r"(?:一共|总共|共|我们是|人数是|准确(?:地|点|来)?说是|具体(?:来|地)?说?是|其实是|应该是|(?:^|[，,。！!])是)(?P<n>"
                   + ZH_NUMBER
                   + r")个(?=\W|$|吧|啊|呀|了)"),
    ),
    head_count_group=re.compile(r"(?P<n>" + ZH_NUMBER + r")\s*(?:个|位|名)?(?:大人|成人|小孩儿?|孩子|儿童|小朋友|老人|"
                                r"宝宝|婴儿|朋友|同事|人)"),
    head_count_join=re.compile(r"^\s*[，,、]?\s*再?(?:和|带|带着|加|加上|还有|跟|外加)?\s*$"),
    # (时间还是一样: 一样 is "the same", no number)
    # (…and a slip put right: 哦不对，是四百九十二)
    bare_number=re.compile(r"(?:改成|换成|改为|还是|应该是|(?:不对|说错了|错了|记错了|记反了)[，,\s]*(?:是|应该是))(?P<n>"
                           + ZH_NUMBER + r")(?![点號号月样些下起直定会般])"),
    amount_limit=(
        re.compile(r"(?P<n>" + ZH_NUMBER + r")\s*(?:块钱?|元)?\s*(?:以内|以下|之内|左右)"),
        # (不超过两个小时, 最多等二十分钟: a while, not money)
        re.compile(r"(?:不超过|不要超过|别超过|不能超过|最多|顶多|封顶)\s*(?P<n>" + ZH_NUMBER + r")"
                   + _NOT_MONEY_AFTER_ZH),
        # (人均一百: a price per head said plainly is the most to spend; 每人一份套餐 counts dishes.)
        re.compile(r"(?:人均|每人|每个人)\s*(?:在|是|控制在|大概)?\s*(?P<n>" + ZH_NUMBER + r")" + _NOT_MONEY_AFTER_ZH),
    ),
    not_an_amount=re.compile(r"\s*(?:个人|位|人|点)"),
    period_of_day=re.compile(r"凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里"),
    max_answer_words=8,     # characters: Chinese has no spaces
)

STATE_CUES: dict[str, StateCues] = {"en": EN, "zh": ZH}

HEAD_COUNT_WHOLE = re.compile(r"people|persons|guests|(?<![大成老])人$", re.IGNORECASE)
HEAD_COUNT_ALONE = re.compile(r"adults?|grown-?ups|大人|成人", re.IGNORECASE)


def people_in_group(group: re.Match[str]) -> int | None:
    """How many one group of a party is ("two adults" → 2, "a baby" → 1), from a `head_count_group` match."""
    said = group.group("n")
    return 1 if said.lower() in ("a", "an") else to_int(said)


# One thing preferred over another: what follows "rather … than", "prefer … over", 与其, 比起 (and
# what comes before 不如) is the one not wanted ("I'd rather get a replacement than a refund").
# ("It'd be better if we go to the airport", "I'd prefer you take me to the airport" prefer nothing
# over the airport; "we are more than 6 people" counts.)
_PREFERRED_OVER_EN = re.compile(
    r"(?:\b(?:rather|sooner|better)\s+(?!than\b)[^.?!;]*?\s(?<!more )(?<!less )(?<!fewer )than|"
    r"\bprefer(?:s|red)?\s+(?!than\b|over\b)[^.?!;]*?\s(?:(?<!more )(?<!less )(?<!fewer )than|over))\s+"
    r"(?:(?:a|an|the|just|get(?:ting)?|hav(?:e|ing)|do(?:ing)?|go(?:ing)? (?:for|with))\s+)*$", re.IGNORECASE)
_PREFERRED_OVER_ZH = re.compile(r"(?:与其|比起|相比于?)[\u4e00-\u9fff]{0,2}$")
# (今晚不如吃火锅吧, 明天不如早点: 不如 after a day or a time is "how about", nothing refused.)
_PREFERRED_AFTER_ZH = re.compile(r"^(?!今|明|后天|昨|周|星期|礼拜|晚上|中午|早上|上午|下午|傍晚|"
                                 r"[\d一二两三四五六七八九十]+[点号])"
                                 r"[\u4e00-\u9fff]{1,4}?(?:的话)?还?不如")


def negated_at(text: str, start: int, cues: StateCues | None = None) -> bool:
    """Whether what is said at `start` is said as not wanted ('not tonight', 不是周六, 不要海底捞,
    'a replacement rather than a refund', 退款不如换货)."""
    cues = cues or STATE_CUES[language_of(text)]
    return bool(cues.negated_before.search(text[max(0, start - 16): start].lower())) \
        or not_preferred(text, start, cues.spaced)


def not_preferred(text: str, start: int, spaced: bool) -> bool:
    """Whether what is said at `start` is the one another is preferred over ("I'd rather get a
    replacement than a refund", "an exchange over a refund", 与其退款, 退款不如换货)."""
    if spaced:
        return bool(_PREFERRED_OVER_EN.search(text[max(0, start - 60): start]))
    return bool(_PREFERRED_OVER_ZH.search(text[max(0, start - 6): start]) or _PREFERRED_AFTER_ZH.match(text[start:]))

# Between a key's name and the amount it is limited to ("budget is $300", 预算是五百): the key's
# names come from its domain YAML.
AMOUNT_AFTER_NAME = {"en": r"(?: is| was| of| around| about|'s)?\s*(?:\$|£|€|¥)?\s?(?P<n>" + EN_NUMBER + r")",
                     "zh": r"(?:是|大概|大约|差不多|在|控制在|一共|总共)*\s*(?P<n>" + ZH_NUMBER + r")(?!共)"}

# --- names (open values) ----------------------------------------------------------------------

TITLE_NAME_EN = r"[A-Z][\w'&]+(?: (?:[A-Z][\w'&]+|&)){0,4}"             # "Luigi's Trattoria", "Bar & Grill"
CAPITALISED_WORD_EN = r"[A-Z][a-z]+"                                     # "Burmese"
# Capitalised words that are not names: sentence starts, weekdays, months.
NOT_NAMES_EN = frozenset(w.capitalize() for w in (
    "a", "an", "my", "any", "some", "this", "that", "it", "what", "there", "good", "nice", "great", "local",
    "new", "the", "i", *WEEKDAYS, *MONTHS))

# --- what a statement is about (long-term memory) -------------------------------------------

SAFETY_CUES = re.compile(
    r"\b(?:allerg\w*|epipen|asthma|diabet\w*|pregnan\w*|medic\w*|wheelchair|seizure|emergency|"
    r"heart condition|blood pressure|disab\w*)\b|过敏|哮喘|糖尿病|怀孕|药|轮椅", re.IGNORECASE)
PREFERENCE_CUES = re.compile(
    r"\b(?:i (?:always|never|usually|prefer|hate|love|like|dislike|can'?t stand|don'?t like|want)|"
    r"my favou?rite|please (?:always|never|don'?t))\b|我(?:喜欢|不喜欢|讨厌|习惯|总是|从不|偏好)|别再", re.IGNORECASE)
PLAN_CUES = re.compile(
    r"\b(?:tomorrow|next (?:week|month|year)|on " + WEEKDAY_PATTERN + r"|appointment|meeting|plan(?:ning)? to|going to|"
    r"will)\b|明天|下周|计划|打算|预约", re.IGNORECASE)
SMALL_TALK_CUES = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank you|ok(?:ay)?|cool|nice|great|haha|lol|bye|good (?:morning|night))\b",
    re.IGNORECASE)

# How long a dated statement stays true, in days, by the time it names.
HORIZONS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b|今天|今晚", re.I), 1.0),
    (re.compile(r"\btomorrow\b|明天", re.I), 2.0),
    (re.compile(r"\b(?:this week|on " + WEEKDAY_PATTERN + r")\b|"
                r"这周|本周|(?:周|星期)[一二三四五六日天]", re.I), 7.0),
    (re.compile(r"\bnext week\b|下周", re.I), 14.0),
    (re.compile(r"\bnext month\b|下个月", re.I), 45.0),
)


HAN = r"[\u4e00-\u9fff]"      # a Chinese character (CJK unified ideographs), for patterns
_HAN = re.compile(HAN)


def language_of(text: str) -> str:
    """'zh' when the text has Chinese characters, else 'en'."""
    return "zh" if _HAN.search(text) else "en"


# --- long-term memory: answers to its questions, the past, first person, promises --------

# A yes or no to a question memory asked ("has that changed?", "shall I go ahead?"):
# the turn classifier's English lexicons, plus the ways Chinese answers those questions.
# 对了 at the start is "by the way", not a yes.
# (A Chinese yes word begins other words too: 行李, 好多, 对面, 是不是 say no yes.)
ANSWER_YES = re.compile(r"^\W*(?:" + YES_EN + r")\b|"
                        r"^(?!对了|对面|对于|对方|好多|好几|好像|好久|好吃|好玩|好看|好在|行李|行程|行驶|是不是|是否|是谁|是什么|是哪)"
                        # (是 said straight into a value, 是3号不是4号, 是七点, says what it is: no yes by itself)
                        # (…after a filler: 那个，没问题)
                        + FILLER_LEAD_ZH +
                        r"(?:好的?|对的?|是的|是(?=[，,。.！!\s啊呀吧嘛]|$)|嗯|可以|行|没错|没问题|变了|确定|成交|"
                        r"就这么(?:定|办))", re.IGNORECASE)
# A yes word that opens a question with no pause after it asks, it does not answer (可以带小孩吗,
# 行不行啊); said first, then asked, it answers ("好的，几点到？"), and so does a request (可以帮我订吗).
_ASKS_WITH_THE_YES_WORD = re.compile(r"^(?:好的?|对的?|是的?|可以|行|确定|没问题)"
                                     r"(?![，,。.！!？?\s啊吧呀嘞啦哈]|帮|给我|订|预订|可以|好|行|对)"
                                     r".*(?:吗|么|不行|不可以|[?？])\W*$")
# (不错, 不赖 "not bad" are a yes.)
ANSWER_NO = re.compile(r"^\W*(?:" + NO_EN + r"|not anymore)\b|^(?:不(?!错|赖)|没有|没变|不用|不要)", re.IGNORECASE)
PAST_CUES = re.compile(r"\b(?:last time|before|earlier|previous(?:ly)?|remember|we talked|you said)\b|"
                       r"上次|之前|以前|记得", re.IGNORECASE)
# What the agent said it would do: kept as a commitment and checked before the next conversation.
PROMISE_CUES = re.compile(r"\bI(?:'ll| will) (?:remind|send|book|check|call|follow up|look into|get back|let you know|"
                          r"find)\b[^.!?]*", re.IGNORECASE)
FIRST_PERSON_CUES = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|we|we're|our|us)\b|我", re.IGNORECASE)


def yes_or_no(text: str) -> bool | None:
    """True for a yes, False for a no, None when it is neither. A no is looked for first:
    a no misread as a yes would replace what the user meant to keep."""
    if ANSWER_NO.search(text):
        return False
    if ANSWER_YES.search(text):
        return None if _ASKS_WITH_THE_YES_WORD.search(text.strip()) else True
    return None



# "Cancel it", 不去了，取消吧: a cancel that names nothing, said of what the agent has just done.
# All of what was asked for ("forget all of it", 全部取消).
EVERYTHING = re.compile(r"\b(?:all of it|everything|all that|the whole thing)\b|全部|都", re.IGNORECASE)
BARE_CANCEL = {
    "en": re.compile(r"^\W*(?:(?:no|nah|actually|never ?mind|forget it|oh|okay|ok|wait)\W+)*(?:please\s+)?"
                     r"(?:cancel|stop|scrap|call off|undo)(?:\s+(?:it|that|this|the whole thing))?(?:\W+please)?\W*$|"
                     # ("ok actually forget all of it, I'm just gonna park here and walk": and why)
                     r"^\W*(?:(?:no|nah|actually|oh|okay|ok|wait|you know what)\W+)*(?:forget (?:it|all of it|about it|"
                     r"everything|all that)|never ?mind|scratch (?:that|it|all that))\W+"
                     r"(?:i'?ll|i'?m|we'?ll|we'?re|i will|"
                     r"i am|we will|we are|i think i'?ll|i'?d rather)\b"
                     # (not "never mind, I'm going to the office first", "…I'll listen to jazz instead")
                     r"(?![^?]*\b(?:instead|first|going to (?:the|a|my)|heading|headed|listen|play|take me|"
                     r"go to)\b)[^?]*$",
                     re.IGNORECASE),
    "zh": re.compile(r"^\W*(?:(?:算了|不用了|不要了|哎|还是)[，,\s]*)*(?:不去了|取消掉?|撤销|别去了)(?:吧|了|掉|一下)?"
                     r"(?:[，,\s]*(?:取消|不去了)(?:吧|了)?)?[。！!]?\W*$"),
}


# --- words people say for common listed values --------------------------------------------------

# Price levels, as users name them without the level's own word (read off SGD train's restaurant,
# hotel and travel turns): a domain whose key lists "moderate" or "pricey" hears these too.
SAID_FOR_EN: dict[str, tuple[str, ...]] = {
    "inexpensive": ("cheap", "low-cost", "low cost", "on a budget", "budget friendly", "not expensive", "inexpensive"),
    "cheap": ("inexpensive", "low-cost", "low cost", "on a budget", "budget friendly", "not expensive"),
    "moderate": ("moderately priced", "reasonably priced", "average priced", "intermediate priced", "mid-range",
                 "mid range", "economical", "affordable", "not very costly", "not too expensive", "not too pricey"),
    "expensive": ("pricey", "costly", "fancy", "high-end", "high end", "upscale", "expensive"),
    "pricey": ("expensive", "costly", "fancy", "high-end", "high end", "upscale"),
    "very expensive": ("very pricey", "very costly", "luxury", "luxurious", "fine dining", "ultra high-end"),
    "ultra high-end": ("very expensive", "very pricey", "luxury", "luxurious", "fine dining"),
}


# --- the dialogue: what a turn asks of the agent (dialogue/policy.py) ----------------------------

# Go ahead with what was just offered or read back, said without a yes word ("let's do it", 订吧).
GO_AHEAD = re.compile(
    # ("do it" as the whole request, not "can you do it half an hour later?")
    r"\b(?:go ahead|book it|do it(?=\s*(?:please|now|then)?\s*(?:[,.!]|$))|please do|let'?s do (?:it|that)|"
    # ("that one", "can you book that one?", not "where's that one?": asked about)
    r"let'?s go with|go with|that one(?![^.!?]*\?)|(?:book|take|get|reserve|do|want) that one|i'?ll take it|"
    r"we'?ll take it|let'?s (?:go|roll|get going|hit the road)(?:\s+(?:then|now))?(?=\s*(?:[,.!]|$))|"
    r"(?:let'?s )?(?:keep going|carry on)(?=\s*(?:[,.!]|$|\s+(?:then|but|with)\b))|"
    r"start (?:the )?(?:navigation|route|guidance))\b|"
    # ("go", "ok hit it", "start it", "off we go": the whole turn)
    r"^\W*(?:(?:ok(?:ay)?|alright|yep|yeah|cool|great|so|right)[,\s]+)?(?:go(?: go)*|hit it|start it|off we go|"
    r"let'?s move|let'?s get moving|good to go)\W*$|"
    # ("yes, please process it"; not "how long does it take to process it?", "I'd rather file it myself")
    r"(?:^|\b(?:yes|yeah|yep|ok(?:ay)?|sure|alright|please|just|go ahead and)[,\s]+)(?:please\s+)?"
    r"(?:process|submit|file|lodge|put through) (?:it|that|the (?:request|ticket|claim))(?: through)?"
    r"(?:\s+(?:please|now|then|for me))?(?=\s*(?:[,.!]|$))|"
    # ("great, thanks, submit", "ok file it": the word alone, closing the turn)
    r"(?:^|[,.!]\s*|\b(?:ok(?:ay)?|yes|yeah|yep|so|then|alright)\s+)"
    r"(?:submit|submit it|submit that|file it|send it|send it in|put it through)"
    r"\W*$|"
    r"(?<![没别不未])(?:出发|走)(?:吧|了|啦)?(?=\W*$)|开始导航|"
    # (没问题了，开吧: in the car, "drive"; a control is named to be opened, 打开吧 after its question)
    r"(?:^|[，,。\s])(?:那就|那)?开(?:车)?吧(?=\W*$)|"
    r"订吧|就订|帮我订|就这样|就这么办|就(?:你(?:说|推荐|刚才说)的)?[这那](?:家|个|一家)|就它|去吧|"
    r"(?:直接|就)?办吧|提交吧|(?:帮我)?(?:提)?交上去|递交吧|就这么定|定了吧|确认提交|^\s*(?:那就)?提交\W*$|^\s*确认(?:换货|退款|退货|维修|补发|查件|取消订单|提交|预订|订位|下单)?(?:吧|了)?\W*$",
    re.IGNORECASE)
# …and said in passing, which a turn that restates values uses about the values ("Saturday at 7 works", 七点没问题).
SOUNDS_FINE = re.compile(r"\b(?:sounds (?:good|great|perfect|lovely|fine|nice|right)|that works|works for me|"
                         r"(?:that'?s|that would be|that'?d be) (?:great|perfect|lovely|fine|good)|suits me)\b|"
                         r"(?<![不没])(?<!不是)(?<!不太)(?:可以的|好的|行的|没问题|听起来不错|听着不错|挺好的?|很好|不错|"
                         r"正合适|可以啊|好啊|行啊)",
                         re.IGNORECASE)
# What may stand before a Chinese "sounds fine" that is said of the offer: nothing, a word that
# points at it (这家店, 那个餐厅, 它), one that softens it (听起来, 看着, 我觉得, 挺), or a time or
# day (七点没问题); the offer's own name is allowed by the caller.
_SAID_OF_THE_OFFER_ZH = re.compile(r"这|那|它|个|家|样|就|都|也|还|真|挺|蛮|很|感觉|听起来|听上去|听着|"
                                   r"看起来|看上去|看着|"
                                   r"我觉得|觉得|嗯|哦|啊|哇|呀|好|店|餐厅|饭店|馆|地方|位置|时间|安排|"
                                   r"[0-9零一二两三四五六七八九十点半刻分号日月周星期礼拜今明后天早中晚上下午]|[\s，,。.！!？?~]")


def sounds_fine(text: str, subjects: tuple[str, ...] = ()) -> bool:
    """Whether `text` says the offer sounds fine ("sounds good", 听起来不错, 这家店挺好的) — not
    something else ("今天天气真不错" is about the weather: it had booked the table). `subjects`:
    names that may stand before it (the place on offer: 海底捞不错)."""
    for m in SOUNDS_FINE.finditer(text):
        if language_of(m.group()) == "en":
            return True
        start = max((text.rfind(mark, 0, m.start()) for mark in "，,。.！!？?；;"), default=-1) + 1
        before = text[start:m.start()]
        for subject in sorted((s for s in subjects if s), key=len, reverse=True):
            before = before.replace(subject, "")
        if not _SAID_OF_THE_OFFER_ZH.sub("", before):
            return True
    return False


# Not decided yet, about what was just asked ("I'll think about it", 还没想好): asked again at once,
# the question would only be repeated.
NOT_DECIDED = re.compile(
    r"\b(?:not sure(?: yet)?|(?:haven'?t|have not|not) (?:decided|made up my mind)|undecided|no idea(?: yet)?|"
    r"get back to you|(?:i'?ll|let me|i need to|i have to|i'?d like to) (?:think|have a think|check)|"
    r"(?:don'?t|do not) know yet|come back to (?:that|it|this))\b"
    r"|还没想好|没想好|不确定|再说吧|以后再说|再想想|想一想|还不知道|不知道|等会儿|待会|回头再|还没定|没定好",
    re.IGNORECASE)
# Leaving what was asked to the agent ("up to you", 你看着办, 听你的): it picks, where it has a pick.
LEFT_TO_YOU = re.compile(
    r"\b(?:up to you|you (?:decide|choose|pick)|whatever you (?:think|like|want|say)|your call|you tell me|"
    r"surprise me|dealer'?s choice|whatever'?s (?:best|good)|you know best)\b"
    r"|你看着办|你(?:来|帮我)?(?:决定|定吧|定就行|定)|听你的|你说了算|你看吧", re.IGNORECASE)
# Turning down what was offered, said anywhere in the turn ("hmm, not that one", 换一家).
REFUSES_OFFER = re.compile(
    r"\b(?:not (?:that|this) one|something else|some ?where else|another (?:one|place|option)|anything else|"
    r"not acceptable|no good|(?:^|[,.]\s*)another(?:,? please)?(?=\W*$)|"
    # ("somewhere quieter", "some place cheaper": another place, with more of something)
    r"(?:some ?where|some ?place) (?!(?:lat|earli|soon|oth|ov|nev|togeth|aft)er\b)\w{3,}(?:er|ier)\b"
    r"(?!\s+(?:to|than)\b)|"
    r"(?:a )?different (?:one|place)|don'?t (?:like|want) (?:that|it|this)|not (?:keen|interested|for me)|"
    r"no thanks|rather not|nah)\b|换一家|换一个|不要这家|"
    # (别的没了, 别的都没问题: nothing else; 我不喜欢等位，直接订吧 dislikes something else)
    r"(?<!没)(?<!没有)别的(?!没|都|不|也|就|还好)|不(?:太)?喜欢(?:这|那|它)|不(?:太)?喜欢[。！!]?$|不(?:太|怎么)?想去(?:这|那|了)|不(?:太|怎么)?想去[。！!，,]?$",
    re.IGNORECASE)
# Another option asked for, by what it should be more of or that it is another ("ok maybe
# somewhere quieter then", "somewhere else", 换一家安静点的): an "ok" before it agrees to nothing.
ANOTHER_PLACE = re.compile(r"\b(?:some ?where|some ?place|something) (?!(?:lat|earli|soon|oth|ov|nev|togeth|aft)er\b)"
                           r"\w{3,}(?:er|ier)\b(?!\s+(?:to|than)\b)|\b(?:some ?where|some ?place) else\b|"
                           r"\belsewhere\b|\b(?:another|a different) (?:place|restaurant)\b|换一?[家个间]|"
                           r"有没有[^，,。？?]{0,6}[点些]的", re.IGNORECASE)
# Words before an answer that carry nothing ("hmm, yes", "well, no").
FILLERS = re.compile(r"^\W*(?:(?:hmm+|um+|uh+|er+m?|well|oh|ah|so|okay so|嗯+|呃|那个)\W+)+", re.IGNORECASE)
# A yes word used as an adjective ("lovely weather", "great day"): small talk, not a yes.
YES_WORD_DESCRIBING = re.compile(
    r"^\W*(?:great|lovely|perfect|fine|nice|good|wonderful|excellent|awesome|beautiful)\s+"
    r"(?!thanks|thank|please|go|let|book|do|that|it|yes|sure|then|one|choice|idea|option|work|with|by|for|to|and)"
    r"[a-z]", re.IGNORECASE)
# A command said again with nothing else ("a bit more", "again", 再来一点, 继续): the control just
# commanded moves another step.
REPEAT_COMMAND = re.compile(
    r"^\W*(?:(?:and |ok(?:ay)?,? |um,? |uh,? )?"
    r"(?:(?:a (?:little|bit|tad|touch) |just a (?:little |bit )?|even |some |a lot )?"
    r"more|again|further|once more|same again|do (?:that|it) again|keep going|one more time|"
    # ("one more notch", "another notch", "a notch more", "one more", "another click")
    r"one more(?: (?:notch|click|step|level|bit|tick))?|(?:another|a|one) (?:notch|click|step|level|tick)(?: more)?))"
    r"(?: (?:please|again|still))?\W*$"
    r"|^(?:嗯，?)?(?:再|还|继续)(?:来|调|弄|多)?(?:一点|一些|一下|点儿?|些|一次)?(?:吧|啊|呗)?[。！!]?$", re.IGNORECASE)
# Held off: "don't book it yet", "not yet", "hold off", 先别订 (no yes, whatever words of going ahead follow).
NOT_YET = re.compile(r"\b(?:don'?t|do not|please don'?t|no need to)\s+(?:\w+\s+)?(?:book|submit|file|"
                     r"go ahead|do it|confirm)\s+(?:it|that|this|the (?:table|booking|ticket|order))?\s*"
                     r"(?:yet|now|just yet)?"
                     r"(?=\W*$|\W+(?:i|we|let)\b)|\bnot yet\b|\bhold off\b|先别(?:订|提交|办|急)|"
                     r"先不要?(?:订|提交|办)(?!备注)|(?:还|暂时)不要?(?:订|提交)(?:了|吧)?(?=\W|$)", re.IGNORECASE)
# "Yes — hold on, what have we got?", 是——等一下，现在都定了些什么？: a yes taken back before it ends
# is no yes; what follows it is the turn.
HOLD_ON = re.compile(r"\b(?:hold on|hang on|wait(?: a (?:sec(?:ond)?|moment|minute))?|one (?:sec(?:ond)?|moment)|"
                     r"just a (?:sec(?:ond)?|moment|minute))\b|等一下|等等|稍等|等一等|慢着|先别", re.IGNORECASE)
# A yes word that only opens another idea ("嗯，要不还是吃日料吧", "yeah but what about Thai"): no yes to the offer.
A_YES_BUT = re.compile(r"^\W*(?:嗯+|呃+|好|行|对)[，,\s]*(?:要不|不过|但是|可是)|"
                       r"^\W*(?:yes|yeah|yep|ok(?:ay)?|sure)\W+(?:but|though|how about|what about)\b",
                       re.IGNORECASE)
# A yes that only leads to a question ("sounds nice I guess, but is it romantic?", 不过…吗).
_BUT_ASKS = re.compile(r"\bbut\b[^.!]*\?\s*$|(?:但是|不过|可是)[^。！]*(?:吗|[?？])\W*$", re.IGNORECASE)
# A yes word said only to open a question ("hmm ok, what kind of food do they do?", "sure, is it far?",
# 行，那家几点关门？): the question is the turn.
_A_QUESTION_EN = (r"(?:(?:what|which|when|where|who|whose|why|how(?! about)|whats|wheres|hows)\b|"
                  r"(?:do|does|is|are|can|will|would)\s+(?:they|it|the place|that|there)\b)[^.!]*\?\s*$")
_ASKS_AFTER_A_YES = re.compile(
    r"^\W*(?:(?:hmm+|um+|uh+|ok(?:ay)?|yes|yeah|yep|sure|alright|all right|right|fine|cool|great|nice)[\s,.!]+)+"
    + _A_QUESTION_EN + r"|"
    # (…or any few words that end a sentence before it: "sounds good. what's the address of the place?")
    r"^\W*(?:[\w'-]+\s+){0,3}[\w'-]+\s*[,.!;]+\s*(?:(?:and|but|so|oh|just)\s+)*" + _A_QUESTION_EN + r"|"
    r"^\W*(?:(?:嗯+|好的?|行|可以|对)[，,\s…]*)+[^。！!]*(?:什么|几点|哪|多少|怎么)[^。！!]*[?？]?\s*$|"
    # (嗯，你刚才记下时间了吗？: a 吗 question after the nod)
    r"^\W*(?:(?:嗯+|好的?|行|对)[，,\s…]+)+[^，,。！!]{2,}(?:吗|么)[?？]?\s*$",
    re.IGNORECASE)


def opens_a_question(text: str) -> bool:
    """Whether a yes word in `text` only opens a question ("hmm ok, what kind of food do they do?",
    嗯，你刚才记下时间了吗？): no yes to what was offered until the question is answered."""
    return bool(_BUT_ASKS.search(text) or (_ASKS_AFTER_A_YES.match(text) and not GO_AHEAD.search(text)))


# An exclamation worded like a question ("what a day", "how lovely"): small talk.
EXCLAMATION = re.compile(r"^\W*(?:what an?\b|how (?:nice|lovely|great|sweet|cool|awful|sad|funny|kind|beautiful)\b)"
                         r"(?!.*\?)", re.IGNORECASE)
# Talk addressed to the agent itself ("how's your day?", 你喜欢听什么歌): small talk, not a question to look up.
TO_THE_AGENT = re.compile(
    r"\b(?:how (?:are|is|'s) (?:you|your)|how'?s your|how'?s it going|how (?:you )?doing|"
    r"(?:do|did|have|are|were|would) you (?:like|love|enjoy|see|watch|"
    r"feel|ever|have (?:a|any) (?:favou?rite|hobby))|your favou?rite|are you (?:a|an|"
    r"real|human|ok|okay|alright|tired|bored))\b|你(?:喜欢|觉得|好吗|累吗|多大|是人|是机器|看过|听过)|你最喜欢",
    re.IGNORECASE)
# Asking what the agent knows about the user as a whole.
REMEMBER_ME = re.compile(r"\bwhat (?:do|did) you (?:remember|know|recall) about me\b|\bwhat do you know of me\b|"
                         r"你(?:还)?记得我(?:什么|哪些)|你对我(?:有)?(?:什么)?了解|你知道我(?:什么|哪些)",
                         re.IGNORECASE)
# Asking how the agent is.
HOW_ARE_YOU = re.compile(r"\bhow (?:are|r) (?:you|u)\b|\bhow'?s (?:your day|it going|life)|\bhow is your day\b|"
                         r"你好吗|你怎么样|你今天(?:心情|过得)", re.IGNORECASE)
# Asked to be entertained ("tell me a joke", 讲个笑话呗): not what the agent is for, said kindly.
ENTERTAIN_ME = re.compile(r"\b(?:tell (?:me |us )?(?:a |another )?(?:joke|story|riddle|fun fact)|sing (?:me |us )?"
                          r"(?:a |something)|make me laugh|entertain me|say something funny)\b|"
                          r"[讲说来][个一]?(?:笑话|段子|故事|脑筋急转弯)|唱(?:首|个|一首)歌|逗我开心|逗我笑|给我解解闷",
                          re.IGNORECASE)
# A long day told ("what a day, I'm exhausted", 今天好累啊，开了一天会): a kind word back, not "I see".
WEARY = re.compile(r"\b(?:long day|rough day|tough day|hard day|crazy day|what a day|"
                   r"(?:i'?m|i am|we'?re|so) (?:so |really |totally |completely )?"
                   r"(?:exhausted|tired|worn out|beat|wiped out|knackered|drained))\b(?! of\b)|"
                   r"(?<![不你])(?:好累|太累|累死|累坏|真累|挺累|累了一天|忙了一天|开了一天会|好辛苦|太辛苦)",
                   re.IGNORECASE)
# The weather remarked on ("so hot today haha", 今天天气真热啊): agreed with, not "I see".
WEATHER = re.compile(r"\b(?:weather|(?:so|really|super|crazy|freezing) (?:hot|cold|warm|humid|chilly) "
                     r"(?:today|out|outside|out there)|raining|rainy|pouring|snowing|sunny|"
                     r"(?:beautiful|lovely|nice|gorgeous|gloomy) day)\b|"
                     r"天气|下雨|下雪|出太阳|(?:今天|外面|外头)[^，。！？]{0,3}(?:真|好|太|挺)(?:热|冷|闷)",
                     re.IGNORECASE)
# Tired at the wheel ("I'm getting sleepy", 开车有点困): a word to rest, whatever else is asked.
DROWSY = re.compile(r"\b(?:sleepy|drowsy|dozing off|nodding off|(?:can'?t|can barely|barely|hardly) keep my eyes open|"
                    r"falling asleep|eyes (?:are )?(?:closing|heavy|drooping)|(?:keep )?yawning|"
                    r"(?:i'?m|i am|feeling|feel|so|getting) (?:\w+ )?(?:knackered|exhausted|wiped out|shattered|"
                    r"wrecked|beat|zonked|dead tired|worn out))\b|"
                    # (有点困难 is "hard"; 孩子困了 is the child's)
                    r"(?:[犯好有点太真]困|(?<![子宝他她们儿])困[了死])(?![难惑境扰])|打瞌睡|眼皮打架|睁不开眼",
                    re.IGNORECASE)
# Asking the agent's name.
# "What can you do?", 你能干什么: answered with the agent's role.
ABILITIES_QUESTION = re.compile(
    r"\bwhat (?:else )?(?:can|could) you (?:do|help (?:me )?with)\b|\bwhat (?:do|are) you (?:do|for|good for)\b|"
    r"\bwhat are you able to do\b|"
    # ("hello? is this customer service?", 是客服吗: who answered, said with what it does)
    r"\b(?:is this|am i (?:talking|speaking) (?:to|with)|have i reached)\s+(?:the\s+)?(?:\w+\s+)?"
    r"(?:service|support|help ?desk|helpline|hotline|line|desk)\b|是(?:不是)?(?:人工)?客服(?:中心)?[吗嘛吧]?\W*$|"
    r"你(?:还)?(?:能|会|可以)(?:干|做|帮我?(?:做|干)?)?点?(?:什么|啥|些什么)|你都(?:能|会)(?:干|做)?点?(?:什么|啥)",
    re.IGNORECASE)
AGENT_NAME_QUESTION = re.compile(
    r"\bwhat(?:'s| is) your name\b|\bwho are you\b|\bwhat are you called\b|\bare you (?:a |an )?(?:human|robot|bot|"
    r"machine|person|real|ai|computer)\b|你叫什么|你是谁|你是(?:不是)?(?:机器人|真人|人|AI|ai)", re.IGNORECASE)
# A question about the user or their past (not "is there anything else I need to do?").
ABOUT_ME = re.compile(
    r"\b(?:my|mine|did i|have i|do i (?:like|prefer|usually|always|want|need to avoid|eat)|what (?:do|did) i|"
    r"remember|last time|before|previously|again)\b|我(?:喜欢|上次|之前|说过|的|习惯|平时)|记得", re.IGNORECASE)
# Words that keep what is said to now: this trip, this time ("avoid tolls today", 今天别走高速, "I'm in a hurry").
THIS_TIME_ONLY = re.compile(r"\b(?:today|tonight|this time|this trip|(?:just )?this once|for now|for this trip|"
                            r"in a (?:hurry|rush)|running late|we'?re late)\b|"
                            r"今天|这次|这一次|这趟|今晚|赶时间|来不及", re.IGNORECASE)

# Asking for the options ("what do you recommend?", 有什么推荐): the task's next step answers it.
WANTS_OPTIONS = re.compile(
    r"\b(?:recommend(?:ations?)?|suggest|suggestions?|ideas?|(?:any|some|other|more|the|your|what) options|options\?|"
    r"what (?:do you|have you) (?:got|have)|what else (?:do )?(?:you|ya) (?:got|have)|"
    r"what else (?:have|'ve) (?:you|ya) got|what else is there|"
    r"where (?:should|could|can) (?:we|i) (?:go|eat)|any good|"
    r"(?:which|what) (?:restaurants|places) (?:do|can|are|have)|"
    # ("can you find me a sushi place", "I'm looking for a thai place", "know any good spots?")
    r"find (?:me|us)|help (?:me|us) find|looking for|know (?:any|of any|a good)|"
    # ("do you have anything near the river", "is there anywhere with a terrace?", "got any places cheaper?")
    r"(?:any(?:thing|where| places?| spots?| restaurants?)|somewhere|someplace) (?:else|near|nearer|close|closer|by|"
    r"around|with|that|in|on|cheaper|quieter|fancier|bigger|like)"
    r")\b|推荐|建议|有什么(?:好)?(?:的|餐厅|地方)|(?<![这那他]家)(?<!店)有啥(?:好吃|好)?的|哪家好|"
    r"(?:还有|有没有)(?:别的|其他|其它)|哪些[^，。？?]{0,6}(?:餐厅|饭店|店|馆|地方)|[哪几]家[^，。？?]{0,4}可以选|可以选哪",
    re.IGNORECASE)
# Leaving: "bye", "that's all", "nothing else" (a thank-you alone is answered, not a goodbye).
CLOSING = re.compile(
    r"\b(?:bye|goodbye|good night|see you|talk (?:to you )?later|have a (?:good|nice|great) (?:one|day|night|evening)|"
    r"take care|that'?s all|that is all|that'?s it for now|"
    r"nothing else|no,? that'?s (?:it|all)|i'?m (?:all )?set|all good|"
    r"(?:don'?t|do not) need (?:help with |any help with )?anything else|that'?s all i (?:need|needed|wanted))\b|"
    r"^\W*(?:(?:thanks?|thank you|cheers|ok(?:ay)?)\b[^.?!]*?[,!.]\s*)?later\W*$|"    # "Thanks for that, later!"
    r"^\W*(?:ok(?:ay)?,?\s+)?that'?s it\W*$|"       # "ok that's it"
    r"\bthat'?s it,?\s+(?:thanks|thank you|cheers)\b|(?:就这样|行了)吧?[，,。\s]*(?:谢谢|多谢|谢了)|"
    r"再见|拜拜|没有了|没别的|就这些|先这样|不用了谢谢|没事了|没什么事了|没啥事了", re.IGNORECASE)
# A question about the user's lasting ways, not this task's values: "what temperature do I like?",
# "how do I usually sit?", 我平时喜欢几度？
LASTING_QUESTION = re.compile(r"\b(?:do|did) (?:i|we) (?:like|prefer|usually|normally|always|love|hate)\b|"
                              r"\bhow (?:do )?i (?:like|prefer)\b|\b(?:usually|normally|always|favou?rite|allergic)\b|"
                              r"\bremember\b|平时|一般|通常|喜欢|习惯|过敏|记得", re.IGNORECASE)
THANKS = re.compile(r"\b(?:thanks|thank you|cheers|appreciate it)\b|"
                    r"谢谢|多谢|感谢|谢了|辛苦(?:你|您)?了|辛苦啦|麻烦你了",
                    re.IGNORECASE)
GREETING = re.compile(r"^\W*(?:hi|hello|hey|good (?:morning|afternoon|evening)|howdy)\b|"
                      r"^\W*(?:你好|您好|嗨|早上好|晚上好|在吗|在不在)", re.IGNORECASE)
# Whether the agent is there at all ("are you there?", "hello?", 在吗, 喂，能听到吗): answered
# as a greeting is ("I'm here."), not as a question about the world the agent cannot answer.
_HERE_ZH = (r"(?:(?:你|您)?(?:还)?(?:在吗|在不在|在么|在嘛|在不)|(?:能|可以)?(?:听得?[到见]|听见)(?:我(?:说话)?)?[吗么]"
            r"|有人吗)")
PRESENCE_CHECK = re.compile(
    r"^\W*(?:(?:hello|hi|hey)\W*)?(?:(?:are )?you (?:still )?(?:there|around|with me)|(?:is )?any\s?(?:one|body) "
    r"(?:there|home)|can you hear me|do you hear me)\W*$|^\W*hello+\s*\?+\W*$|"
    r"^\W*(?:(?:喂\W*)+" + _HERE_ZH + r"?|(?:喂\W*)*" + _HERE_ZH + r")\W*$", re.IGNORECASE)
# A complaint about the service or the wait ("ugh, this is taking forever", 你们这什么破服务, 烦死了):
# met with an apology before the task goes on, not "I see".
COMPLAINT = re.compile(
    r"\bugh+\b|\bthis is (?:ridiculous|unacceptable|a joke|taking forever)|\btaking (?:forever|ages|so long)\b|"
    r"\b(?:you guys|you) (?:are|were) (?:so |really )?(?:slow|useless|terrible)\b|\b(?:fed up with (?:you|this)|"
    r"terrible service|awful service|waste of (?:my )?time)\b|破服务|什么破|烂服务|烦死了?|气死(?:我)?了?|"
    r"你们(?:太|真|好)慢|效率太低|太坑了?|坑人|太离谱", re.IGNORECASE)
# Asking for a person instead of the agent: to be put through to one, or a person named as what is
# wanted ("a real person, please", 我要的是真人). Asking whether the agent is one ("are you a real
# person?", "am I talking to a real person?", 你是真人吗) is answered, not handed over.
HANDOVER = re.compile(
    r"\b(?:talk|speak|put me through|transfer me|connect me) (?:to|with) (?:a |an |the |some )?(?:human|person|"
    r"real person|live person|agent|manager|someone|representative|operator)\b|"
    r"\b(?:want|need|get me|give me) (?:a |an |the )?(?:human|real person|live person|manager|representative|"
    r"operator)\b|^\W*(?:a |an )?(?:real person|human|live person|operator)(?:,? please)?\W*$|"
    r"\bhuman agent\b|\bcustomer service rep\w*|转人工|人工客服|找人工|"
    r"(?:要|找|换|转)(?:的是|个|一个)?真人", re.IGNORECASE)
