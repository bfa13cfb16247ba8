"""Cue words for what a statement tells long-term memory about the user, in English and
Chinese: a need (health, accessibility, allergy, diet), how they want to be addressed,
a lasting like or dislike ("I can't stand highways", 我讨厌走高速), a setting to keep
("keep it at 21", 保持在22度), a habit ("I always", 我从来不); and what marks a turn as a
question or a request to the agent rather than a statement about the user, or as a
one-off ("today, I'm late", 今天赶时间) rather than something lasting.

Language knowledge only: `memory/longterm/importance.py` decides what each reading is worth.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# --- how an utterance falls into clauses ---------------------------------------------------
# "Take the highway today, I'm late" is a request and a remark; each is read apart.
CLAUSE_BREAK = re.compile(r"[.!?;,。！？；，]+\s*")

# --- needs ------------------------------------------------------------------------------------
# Safety and health: kept until deleted whatever any model thinks of them.
HEALTH_NEED = re.compile(
    r"\b(?:allerg\w*|anaphyla\w*|epi-?pens?|asthma\w*|diabet\w*|insulin|epilep\w*|seizures?|"
    r"heart (?:condition|problems?|disease)|pacemaker|blood pressure|hypertension|pregnan\w*|medication|"
    r"c(?:o)?eliac|intoleran\w*|blood thinners?|migraines?|bad (?:back|knees?|hips?|legs?|heart)|back pain|"
    r"chronic pain|arthritis|(?:car|motion|sea)[ -]?sick(?:ness)?)\b"
    r"|过敏|哮喘|糖尿病|血糖|胰岛素|癫痫|心脏病|心脏不好|高血压|血压高|怀孕|孕妇|吃药|不耐受|乳糖不耐|偏头痛|"
    r"晕车|晕船|晕机", _I)
ACCESS_NEED = re.compile(
    r"\b(?:wheelchairs?|mobility|walkers?|crutch\w*|walking (?:stick|frame)|can'?t (?:walk|climb|manage stairs)|"
    r"canes?|hard of hearing|deaf|hearing aids?|blind|visually impaired|low vision|disab\w*|autis\w*|dementia|"
    r"strollers?|prams?|car seats?|booster seats?|service dog|guide dog)\b"
    r"|轮椅|拐杖|行动不便|腿脚不(?:便|好|方便)|走不了远路|听力|耳背|助听器|听不清|视力不好|看不清|失明|盲人|残疾|"
    r"儿童座椅|安全座椅|婴儿车|导盲犬", _I)
DIET_NEED = re.compile(
    r"\b(?:vegan|vegetarian|pescatarian|halal|kosher|gluten[- ]free|"
    r"(?:don'?t|do not|can'?t|cannot|never) eat (?:any )?(?:pork|beef|meat|fish|shellfish|seafood|eggs|dairy))\b"
    r"|吃素|素食|清真|不吃(?:猪肉|牛肉|肉|海鲜|鸡蛋)|忌口", _I)
# Whose need it is. A request states the user's own ("find a step-free place, I use a
# wheelchair"); a question only someone's in the party ("…for my mother?", 给我妈妈), not
# the user's own ("do you know what I'm allergic to?" asks what is remembered).
NEED_OF_USER = re.compile(r"\b(?:i|i'?m|me|my|we|we'?re|us|our)\b|我", _I)
NEED_OF_PARTY = re.compile(r"\bfor (?:my|our) \w+|\bfor (?:me|us)\b|(?:给|为)我|"
                           r"我(?:妈|爸|母亲|父亲|老婆|老公|孩子|儿子|女儿|家人)", _I)

# --- identity: how the user wants to be addressed, who they are ------------------------------
# "call me Sam", not "call me a taxi" or "call me back".
ADDRESS = re.compile(
    r"\b(?:(?:you can |please |just )?call me|address me as|refer to me as|i go by|i'?m called|"
    r"my name(?:'s| is)|the name'?s|i(?:'d)? prefer to be called|i'?d (?:rather|like to) be called)\b"
    r"(?!\s+(?:a|an|the|back|later|when|if|at|on|in|tomorrow|tonight|after|before|once|right|now|again|up|"
    r"about|please|soon|asap)\b)"
    r"|叫我(?!一下|起床|去|来|吃)|我叫|我的名字(?:是|叫)|称呼我|我姓", _I)
# The name itself after the cue: "call me Sam", "my name's Dr. Chen", 叫我小王就行.
_ADDRESSED_AS = re.compile(
    r"\b(?i:call me|address me as|refer to me as|i go by|i'?m called|my name(?:'s| is)|the name'?s|"
    r"be called)\s+(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
    r"|(?:叫我|我叫|我的名字(?:是|叫)|称呼我)(?P<zh>[\u4e00-\u9fff]{1,4}?)(?=就|吧|好了|[，。！,.!\s]|$)")
# A question for the user's own name or how to address them.
NAME_QUESTION = re.compile(
    r"\bwhat(?:'s| is| was) my name\b|\bwhat (?:do|did|should|will) you call me\b|\bdo you (?:know|remember) my name\b"
    r"|\bhow (?:should|do|did) you (?:call|address) me\b|\bwho am i\b"
    r"|\bremember (?:what|how) (?:to|i asked you to) call me"
    r"|我叫什么|我的名字|怎么称呼我|你(?:该|应该)?叫我什么|记得我(?:叫|的名字)", _I)


def address_name(text: str) -> str:
    """The name the user asked to be called by ("Call me Sam" → Sam), or ""."""
    m = _ADDRESSED_AS.search(text)
    return (m.group("name") or m.group("zh") or "").strip() if m else ""


PERSONAL = re.compile(
    r"\b(?:i live|i work|my (?:wife|husband|son|daughter|kids?|children|partner|mom|mother|dad|father|"
    r"birthday|address|home|office))\b|我住|我家在|我在.{1,8}上班|我的(?:孩子|老婆|老公|生日|家)", _I)

# --- lasting likes, dislikes, settings and habits ---------------------------------------------
# A first-person verb at the head of a clause: "I really hate…", "…because I love…";
# not "play something I like" (a relative clause inside a request).
_LEAD_EN = r"(?:^|\b(?:and|but|because|cause|since|so|as|that|also|honestly|actually|well|oh|though|" \
           r"plus|remember|note|know|how|way)\s+)"
_ADVERBS_EN = r"(?:\s+(?:really|just|absolutely|totally|generally|definitely|also|still|much|truly|personally|" \
              r"kind of|sort of|do|don'?t|do not|actually))*"
LIKES = re.compile(
    _LEAD_EN + r"(?:i|we)" + _ADVERBS_EN + r"\s+(?:like|love|adore|enjoy|prefer|hate|dislike|detest|loathe|"
    r"can'?t stand|cannot stand|can'?t bear|can'?t handle|can'?t do|can'?t have|can'?t eat|don'?t eat|don'?t drink)\b"
    r"|\b(?:i|we)(?:\s+(?:really|just|absolutely|definitely))?\s+(?:don'?t|do not|never) want\b"
    r"|\b(?:i'?d|i would|we'?d)(?:\s+(?:much|far|really|just))? rather\b|\bmy (?:default|usual|go-to)\b"
    r"|\bmy favou?rite\b|\b(?:i'?m|i am) (?:not )?(?:a (?:big |huge )?fan of|into|big on|keen on|"
    r"scared of|afraid of|terrified of|nervous (?:on|about|in))\b"
    r"|\b(?:makes?|made) me (?:nervous|anxious|sick|carsick|uncomfortable|nauseous|dizzy|sleepy|tense|stressed)\b"
    r"|\b(?:freak|stress|bother|scare|annoy|bug|upset|irritat|frighten|terrif)\w* me\b|\bgets? to me\b"
    r"|\b(?:is|are|feels?|works?) (?:much |a lot |way )?(?:better|best|nicer|easier) for (?:me|us)\b"
    r"|\bsuits? (?:me|us)\b|\b(?:i'?m|i am) (?:someone|a person|the (?:kind|type) of (?:person|driver)) who\b"
    r"|\b(?:i|we) find (?:\S+ ){0,4}?(?:really |so |quite |pretty |very )?(?:annoying|stressful|uncomfortable|"
    r"relaxing|distracting|scary|unbearable|irritating|calming|too \w+)\b"
    r"|\bdrives? me (?:crazy|nuts|mad)\b|\b(?:i|we) get (?:carsick|motion sick|cold|hot)\b"
    r"|我(?:们|们家|家)?(?:[^，。！？,.!?\s]{0,8}?)(?:很|最|比较|特别|真的|挺|还是|更|不太|不怎么|一点都不|一点也不|就)?"
    r"(?:喜欢|爱|讨厌|受不了|偏好|偏爱|怕|烦|反感|不喜欢|不爱|接受不了|习惯|不习惯|不吃|不喝)(?!的)"
    r"|让我(?:很|特别|有点)?(?:紧张|害怕|难受|头晕|晕车|不舒服|心慌|烦)|我(?:容易)?晕车", _I)
KEEP_SETTING = re.compile(
    r"\bkeep (?:it|the \w+(?: \w+)?|things|everything) (?:at|on|around|to|set to)\b|\bleave (?:it|the \w+) (?:at|on)\b"
    r"|\band leave it\b|\b(?:as (?:the|my) default|by default|default (?:it )?to)\b"
    r"|\b(?:i|we) (?:like|want|prefer|have) (?:it|the \w+) (?:at|around|on) \w+"
    r"|保持在|一直(?:开|保持|设|调)(?:在|到)|(?:设|调|定|开)(?:成|到|在).{0,6}(?:就行|就好|别动|不要动|别再动|别改|不用改)"
    r"|\b(?:never|don'?t ever|don'?t) (?:go |set it |put it )?(?:above|below|over|under|higher than|lower than)\b"
    r"|\bno (?:higher|lower|warmer|colder|hotter) than\b"
    r"|默认(?:是|设|开|调|用)?|固定在|别(?:再)?(?:动|改)(?:它|温度|座椅)|(?:别|不要|不能|不许)(?:超过|低于|高于)", _I)
# "never" about something that happened once is a complaint, not a habit ("I never got my refund").
_NEVER = r"never(?! mind)(?!\s+(?:\w+ed|got|did|came|heard|said|was|were|had|went|saw|made|gave|told|sent|knew|paid)\b)"
HABIT = re.compile(
    r"\b(?:i|we)(?:\s+(?:almost|nearly|pretty much|just))?\s+(?:always|" + _NEVER + r"|usually|normally|"
    r"generally|typically|tend to|often|rarely|hardly ever|every (?:time|day|morning|evening|week))\b"
    r"|\b(?:every time|whenever) (?:i|we)\b|\bplease (?:always|never|don'?t ever)\b|\bnever (?:ever )?(?:take|use|put|"
    r"give|book|seat|suggest|offer|route)\b"
    r"|我(?:们)?(?:一般|通常|平时|总是|老是|一直|每次|每天|经常|向来|一向|从来|从不|从没)|每次(?:我|都)"
    r"|以后.{0,6}(?:都|就|一律|别|不要|一直)|(?:天|时候|时|的话)[，,]?我(?:们)?(?:一般|都|总|会)"
    r"|永远|一律|再也不", _I)
ALWAYS_NEVER = re.compile(r"\balways\b|\b" + _NEVER + r"|总是|从不|从来不", _I)
# A rejection said as an instruction: lasting unless it is only for now ("avoid highways").
REJECTION = re.compile(
    r"\b(?:avoid|don'?t (?:ever )?(?:take|use|go (?:on|via|through|by)|put|give|seat|suggest|offer|route|add)|"
    r"do not (?:take|use|put|give|seat|suggest|offer|route|add))\b"
    r"|别(?:再)?(?:走|放|加|安排|给我)|不要(?:再)?(?:走|放|加|安排|给我)|不走|避开|不加", _I)
# What makes a statement lasting, or only for now.
LASTING = re.compile(
    r"\b(?:always|" + _NEVER + r"|usually|normally|generally|typically|whenever|"
    r"every(?: \w+)? (?:time|day|morning|evening|night|week|weekday|winter|summer|trip|drive)|"
    r"from now on|in (?:the )?future|going forward|by default|ever again|any ?more)\b"
    r"|以后|总是|从来|从不|每次|一直|永远|平时|一般|通常|一律|再也|每天|默认", _I)
ONE_OFF = re.compile(
    r"\b(?:today|tonight|right now|this (?:time|once|trip|morning|afternoon|evening|ride|drive|one time)|"
    r"just (?:this )?once|for now|for once|at the moment|(?:i'?m|i am|we'?re|we are) (?:running )?"
    r"(?:late|in a (?:hurry|rush))|in a (?:hurry|rush)|hurry|rushing|late for)\b"
    r"|今天|今晚|这次|这一次|这回|这趟|马上|暂时|赶时间|来不及|快迟到|迟到了|临时", _I)

# --- questions and requests: about the agent's work, not facts about the user ---------------
_OPENER_EN = r"^\s*(?:(?:so|and|but|hey|hi|ok(?:ay)?|um+|uh+|er|well|now|also|oh|sorry|excuse me|today|tonight|" \
             r"(?:just )?(?:this|for) once|for now|right now|this time),?\s+)*"
QUESTION = re.compile(
    r"\?\s*$|" + _OPENER_EN + r"(?:what|which|who|whom|whose|when|where|why|how|"
    r"(?:do|does|did|is|are|am|was|were|have|has|had|should|shall|may|might)\s+(?:i|you|we|it|they|there|this|that|"
    r"my|the|your|he|she)|(?:can|could|would|will) you (?:tell|remind) me|do you (?:know|remember|recall))\b"
    r"|[？?]\s*$|(?:吗|么|呢)[。.!！]?\s*$|你(?:还)?记得|记不记得|是不是|有没有|什么|几(?:度|点|号|次|天|个人)|多少|"
    r"哪(?:个|里|儿|家|条|些|天)|怎么|为什么|(?<!不)对不对|好不好", _I)
REQUEST = re.compile(
    _OPENER_EN + r"(?:(?:please|kindly|just)\s+|(?:can|could|would|will) you\s+(?:please\s+)?|i need you to\s+|"
    r"i'?d like you to\s+|let'?s\s+)*(?:turn|switch|open|close|shut|play|put|set|make|take|use|go|drive|navigate|"
    r"head|find|book|reserve|call|text|send|show|check|get|give|bring|start|stop|pause|skip|raise|lower|increase|"
    r"decrease|crank|adjust|move|cancel|remind|add|remove|look|search|order|pick|route|warm|heat|tell|read|"
    r"cool(?![\s,.!]*(?:thanks?\b|thank you|cheers|$))|"     # ("cool, thanks" is no request)
    r"change|speak|talk|repeat|help|connect|transfer|refund|track|dim|mute|unmute|tune)\b"
    r"|" + _OPENER_EN + r"(?:can|could|would|will) you\b"
    r"|" + _OPENER_EN + r"let'?s (?:say|do|go with|make it|try|book|take)\b"
    r"|^(?:请|麻烦|帮我|帮忙|给我|替我|带我|送我|载我|能不能|能否|可不可以|你能|你可以)"
    r"|^(?:今天|现在|这次|马上)?(?:就)?(?:打开|关掉|关上|关闭|关一下|关下|开一下|开下|调一下|调高|调低|调到|调成|"
    r"放(?:首|一首|点|个)|播放|导航|走|换|去(?!年)|把)"
    # (the thing first, then what to do with it: 天窗关上吧，外面灰大)
    r"|^[\u4e00-\u9fff]{1,6}(?:打开|关上|关掉|关了|开开|开一下|关一下)吧?(?=[，,。！!]|$)"
    r"|吧[。.!！]?\s*$", _I)
# A request about the talk itself ("say that again", 慢点说, "hold on"): the agent's to do in any domain.
ABOUT_THE_TALK = re.compile(
    r"\b(?:repeat|say|speak|talk|explain|wait|hold on|hang on|slow down|hurry|listen|spell|clarify|"
    r"remember|forget|note)\b|说|讲|重复|等|慢|快点|听|记住|忘|解释", _I)
# A request to be told something ("tell me their number", "give me the address", 把地址发我, 查一下电话):
# a question, asked as a request.
ASKS_TO_BE_TOLD = re.compile(
    r"\b(?:tell me|let me know|give me (?:the|their|its|his|her)|send me (?:the|their|its)|look up|"
    r"find out|check (?:if|whether|what|when|where|how))\b"
    r"|告诉|查一下|查查|查下|发(?:一下|给我|我|过来)|发到|介绍一下", _I)
# "Could you remember that I'm allergic to nuts?": a request that carries a fact about the user.
REMEMBER_FRAME = re.compile(
    r"\b(?:remember|note|make a note|keep in mind|bear in mind|don'?t forget|never forget|write down)"
    r"(?:\s+(?:that|this))?[:,]?\s+(?!(?:what|which|who|when|where|why|how|if|whether)\b)"
    r"|(?:记住|记下|记一下|记着|别忘了|不要忘了|不要忘记|你要记得|请记得|^记得)[:：，,]?", _I)

# Small talk the language's own list leaves out ("Lovely, cheers.").
SMALL_TALK_MORE = re.compile(r"^\W*(?:lovely|cheers|awesome|perfect|brilliant|wonderful|got it|no worries|sounds good|"
                             r"all good|fair enough|good stuff)\b|^(?:嗯+|好的?|哈哈+|谢谢|知道了|明白了?)[，,。！!]*"
                             r"(?:嗯+|好的?|哈哈+|谢谢|知道了|明白了?)?[。！!]*$", _I)
# Whatever its length, not a fact about the user: a laugh or an exclamation opening an aside
# ("haha that driver just cut me off"), or a choice among the agent's options ("the second one
# you mentioned sounds nice"), which is the task's, kept in its state.
ASIDE = re.compile(r"^\W*(?:haha+|lol|wow|ugh|oh man|oh no|哈哈+)\b|"
                   r"^\W*(?:(?:i'?ll take |let'?s go with )?the (?:first|second|third|last|other) one|that one)\b"
                   r"|^(?:就|要)?(?:第[一二三]个|这家|那家|另一家)", _I)
# "I'm Maria, by the way": a name said as an introduction (case matters: "I'm Late" is not one).
INTRODUCTION = re.compile(r"\b(?:[Ii]'?m|I am|[Tt]his is|[Ii]t'?s|[Mm]y name'?s) (?P<name>[A-Z][a-z]+)"
                          r"(?=\s*(?:[,.!]|$|by the way|here|speaking|from))")

# --- the user's control over what is remembered (U1, U2, U6) ---------------------------------
# Checked in this order: "forget everything about me" is an erase, not a forget about "me".
MEMORY_ERASE_ALL = re.compile(
    r"\b(?:forget|erase|delete|wipe|remove|clear)\s+(?:absolutely\s+)?(?:everything|all)\s+"
    r"(?:(?:that\s+)?you\s+(?:know|remember|have|kept|stored)\s+)?(?:about|of|on)\s+me\b"
    r"|\b(?:erase|delete|wipe|clear|remove)\s+(?:all\s+(?:of\s+)?)?(?:my|your)\s+(?:whole\s+)?"
    r"(?:memory|memories|data|history|profile)\b(?:\s+(?:of|about)\s+me)?"
    r"|\bforget\s+(?:all\s+about\s+me|that\s+i\s+exist|who\s+i\s+am)\b"
    r"|(?:忘(?:掉|记|了)|删(?:掉|除)|清(?:空|除|掉))(?:关于)?我的?(?:一切|所有(?:的)?(?:事|记忆|数据|信息)?|全部(?:记忆|数据|信息)?)"
    r"|把(?:关于)?我的?(?:所有|全部)?(?:记忆|数据|信息|事)(?:都|全)?(?:忘|删|清)"
    r"|(?:清空|删除|删掉)(?:你的|我的)?(?:全部|所有)?记忆", _I)
MEMORY_NO_HISTORY = re.compile(
    r"\b(?:don'?t|do not|please don'?t|no need to)\s+(?:remember|save|keep|record|store|log)\s+"
    r"(?:any\s+of\s+|anything\s+(?:from|of|in)\s+)?(?:this|the\s+rest\s+of\s+this|today'?s)\s+"
    r"(?:conversation|chat|session|talk|call|ride|trip)\b"
    r"|\b(?:this|the\s+rest\s+of\s+this)\s+(?:conversation|chat|session|talk|call)\s+is\s+off\s+the\s+record\b"
    r"|\b(?:let'?s\s+go|go|keep\s+(?:this|it))\s+off\s+the\s+record\b|^\W*off\s+the\s+record\b"
    r"|\b(?:stop|quit)\s+(?:remembering|recording|saving)(?:\s+(?:this|what\s+i\s+say|me))?\b"
    r"|(?:这次|今天的?|接下来的?)(?:对话|聊天|谈话|说的话?)?(?:你)?(?:不要|别|不用|不许)(?:记|保存|存|记录)"
    r"|(?:不要|别|不用)(?:记住|记录|保存|存|记)(?:这次|今天的?|接下来的?)(?:对话|聊天|谈话|内容)?"
    r"|(?:不要|别)再?记(?:了|我说的)|无痕模式", _I)
MEMORY_LIST = re.compile(
    r"\bwhat\s+(?:do|did|else\s+do)\s+you\s+(?:remember|know|recall|keep|store|have\s+(?:stored|saved|on\s+file))\s+"
    r"(?:about|of|on)\s+me\b"
    r"|\bwhat\s+(?:have\s+you|did\s+you)\s+(?:remembered|stored|saved|learned|learnt|kept|noted)\s+(?:about|of|on)\s+me\b"
    r"|\b(?:tell|show)\s+me\s+(?:everything\s+|all\s+)?(?:what\s+|that\s+)?you\s+(?:remember|know|keep|have)\s+"
    r"(?:about|of|on)\s+me\b"
    r"|\b(?:list|show|read)\s+(?:me\s+)?(?:my|your|all\s+(?:my|your))\s+memories\b"
    r"|\bwhat\s+(?:is|'s)\s+in\s+your\s+memory\s+(?:about|of)\s+me\b"
    r"|你(?:都)?(?:记得|记住了?|知道|记了|存了)(?:关于)?我(?:的)?(?:什么|哪些|些什么)"
    r"|关于我你(?:都)?(?:记得|知道|记住了?|记了)(?:什么|哪些|些什么)"
    r"|(?:说说|告诉我|列出|看看)你(?:都)?(?:记得|知道|记住)(?:的)?(?:关于)?我的?(?:事|什么|哪些)?", _I)
# "Forget what I said about my address", "forget my address", "forget that I like jazz".
MEMORY_FORGET_ABOUT = re.compile(
    r"\b(?:please\s+)?(?:forget|delete|erase|remove)\s+(?:what\s+i\s+(?:said|told\s+you|mentioned)\s+"
    r"(?:about|regarding|on)\s+|(?:everything|anything)\s+(?:i\s+(?:said|told\s+you)\s+)?about\s+"
    r"|i\s+(?:said|told\s+you)\s+about\s+|about\s+(?=(?:my|me|i)\b)"
    r"|that\s+i\s+(?=\w)|the\s+(?:fact|thing)\s+that\s+i\s+(?=\w))(?P<topic>.+)"
    r"|\b(?:please\s+)?(?:forget|delete|erase|remove)\s+(?P<mine>my\s+\w.+?)"
    r"(?:\s+from\s+(?:your\s+)?memory)?\s*[.!]?$"
    r"|(?:忘(?:掉|了|记)|删(?:掉|除))我(?:说的|说过的|告诉你的)?(?:关于|有关)(?P<zh_topic>.+?)(?:的(?:事|话|内容))?[。！]?$"
    r"|把我(?:说的|说过的)?(?:关于)?(?P<zh_mine>.+?)(?:的(?:事|话|内容))?"
    r"(?:忘(?:掉|了)|删(?:掉|除)?)(?:吧)?[。！]?$", _I)
# "Forget that", right after saying something: the last thing said, if it was remembered.
MEMORY_FORGET_THAT = re.compile(
    r"^\W*(?:oh,?\s+|actually,?\s+|no,?\s+|wait,?\s+)?(?:please\s+)?(?:forget|scratch|don'?t\s+remember|"
    r"don'?t\s+(?:save|keep|store))\s+(?:that|it|this|what\s+i\s+just\s+said)(?:\s+please)?\W*$"
    r"|^\W*(?:please\s+)?(?:forget|disregard)\s+i\s+(?:said|mentioned)\s+(?:that|it)\W*$"
    r"|^(?:请)?(?:把)?(?:这个|那个|刚才(?:那句|说的)?|这句话?)?(?:忘(?:掉|了)|别记|不要记)"
    r"(?:这个|那个|刚才(?:那句|说的)?|这句话?)?(?:吧)?[。！!]?$", _I)
# What a topic named in "forget what I said about …" covers, beyond the words it shares with
# a memory: "my address" is about "I live at 12 Baker Street". (topic, memory) pairs.
MEMORY_TOPICS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\b(?:address|home|where i live|house|flat|apartment)\b|地址|住址|住哪|我家|家庭住址", _I),
     re.compile(r"\b(?:i|we)(?:'m| am|'re| are)?\s+(?:live|living|stay|staying)\b"
                r"|\b(?:my|our)\s+(?:home|address|house|flat|apartment|place)\b|\b(?:i|we)\s+moved\s+to\b"
                r"|^我(?:住在|住|家在|家住)|我的?(?:住址|地址)|我们?家(?:在|住)", _I)),
    (re.compile(r"\b(?:work|job|office|employer|career|shifts?)\b|工作|上班|公司|单位", _I),
     re.compile(r"\b(?:work|works|working|job|office|employer|shifts?|colleagues?|boss)\b"
                r"|工作|上班|公司|单位|同事", _I)),
    (re.compile(r"\b(?:health|medical|allerg\w*|condition|illness|medication|medicine)\b|健康|过敏|病|药", _I),
     HEALTH_NEED),
    (re.compile(r"\b(?:codes?|passwords?|pins?|passcodes?)\b|密码|门禁", _I),
     re.compile(r"\b(?:codes?|passwords?|pins?|passcodes?)\b|密码|门禁", _I)),
    (re.compile(r"\b(?:phone|number|mobile|cell)\b|电话|手机", _I),
     re.compile(r"\b(?:phone|mobile|cell|number)\b|电话|手机", _I)),
    (re.compile(r"\b(?:family|relatives?|kids?|children)\b|家人|孩子|亲戚", _I),
     re.compile(r"\b(?:wife|husband|son|daughter|kids?|children|partner|mom|mother|dad|father|sister|brother|"
                r"family)\b|老婆|老公|儿子|女儿|孩子|妈|爸|姐|妹|哥|弟|家人", _I)),
)


def is_memory_command(text: str) -> bool:
    """A command about long-term memory itself (list, forget a topic, erase, off the record).
    A bare "forget that" is not here: in a task it withdraws what was just asked for."""
    if any(cue.search(text) for cue in (MEMORY_ERASE_ALL, MEMORY_NO_HISTORY, MEMORY_LIST)):
        return True
    # "Forget what I said about my address", not "forget my window seat" (a task's words).
    found = MEMORY_FORGET_ABOUT.search(text)
    return found is not None and bool(found.group("topic") or found.group("zh_topic"))

# --- how sensitive a memory is (U3) ------------------------------------------------------------
# local_only: kept on this device only — where the user lives or works, places they go
# regularly, health, biometrics, identity documents, codes. Never sent to a remote provider.
LOCAL_ONLY = re.compile(
    r"\b(?:i|we)(?:'m| am|'re| are)?\s+(?:live|living)\s+(?:at|on|in)\b|\b(?:my|our)\s+(?:home\s+|work\s+|office\s+)?"
    r"address\b|\baddress\s+is\b|\b\d+[a-z]?\s+(?:[A-Z]?[a-z]+\s+){1,3}(?:street|st|road|rd|avenue|ave|lane|ln|drive|dr|"
    r"boulevard|blvd|close|way|place|terrace|court)\b"
    r"|\bi\s+work\s+(?:at|for|in)\b|\bmy\s+(?:office|workplace|work)\s+is\s+(?:at|in|on)\b"
    r"|\b(?:i|we)\s+(?:usually|always|often|regularly)\s+(?:go|drive|park|shop|train|walk)\s+(?:to|at|in)\b"
    r"|\bmy\s+(?:gym|doctor|dentist|therapist|kids?'?s?\s+school|son'?s\s+school|daughter'?s\s+school)\b"
    r"|\b(?:fingerprints?|face\s*id|blood\s+type|iris|voice\s*print|dna)\b"
    r"|\b(?:passport|id\s+(?:number|card)|identity\s+card|driver'?s\s+licen[cs]e|driving\s+licen[cs]e|social\s+security|"
    r"ssn|national\s+insurance|tax\s+id)\b"
    r"|\b(?:door|gate|garage|alarm|entry|building)\s+code\b|\b(?:passcode|password|pin\s+(?:code|number)|pin\s+is)\b"
    r"|我?(?:住在|家住|家在)|(?:家庭)?(?:住址|地址)|我在.{1,12}(?:上班|工作)|公司在|常去|每天(?:都)?去"
    r"|指纹|血型|人脸|虹膜|声纹|身份证|护照|驾照|驾驶证|社保号|密码|门禁码", _I)

# --- said for the household (U5) ----------------------------------------------------------------
# A fact stated as shared — "we always avoid tolls", "our home address is …", 我们家都不吃辣 —
# belongs to the household, which every member's recall reads; anything else stays personal.
# A request ("can we go at 7?") is not a fact and never reaches this question.
SHARED = re.compile(
    r"^(?:(?:hi|hey|oh|well|so|ok(?:ay)?|um+|uh+|also|and|by the way|please)\W+)*"
    r"(?:we(?:'re|'ve|'d)?|our|ours|us|the (?:whole )?family|everyone (?:at home|in (?:the|our) family))\b"
    r"|\b(?:for|to) (?:everyone|all of us|the (?:whole )?(?:family|household))\b|\bshared (?:household )?memory\b"
    r"|我们|咱们|咱家|我们家|我家里人|全家|一家人|给所有人|大家都", _I)

# --- who is speaking, in their own words (U5) ------------------------------------------------------
# "It's Anna", "hi, this is Tom here", 我是安娜: heard only while nobody is known to be speaking,
# and only a household member's name counts (memory/longterm/household.py).
SAYS_WHO = re.compile(
    r"^\W*(?:(?:hi|hey|hello|ok(?:ay)?|yes|so)\W+)*(?:it'?s|it is|this is|i'?m|i am|my name is)\s+"
    r"(?P<name>[a-z][\w-]*)(?:\s+here)?\s*(?:[,.!;:]|$)"
    r"|^\W*(?:(?:喂|你好|嗨|哈喽)\W*)?(?:我是|我叫|是我[，,]?)(?P<zh>[\u4e00-\u9fffa-z]{1,8}?)"
    r"(?:[，。！,.!\s]|$|啊|呀|哦)", _I)


def introduced_name(text: str) -> str:
    """The name a speaker gives for themselves at the start of what they said, or ""."""
    m = SAYS_WHO.search(text.strip())
    return (m.group("name") or m.group("zh") or "") if m else ""
