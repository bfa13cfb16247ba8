"""Free-text wishes: what the user asks for that no key of the domain reads ("somewhere
quiet", "a table away from the kitchen", "the screen is cracked") is kept in their words, on
the domain's free-text key (`reader: free_text` in its YAML), as a condition like any other:
shown, read back, withdrawn, matched against the catalogue's descriptions where it has them.

Which clause is a wish is `memory/language/wishes.py`'s; this module gives it the domain's
vocabulary (a clause made only of words the domain reads anyway says nothing new) and
writes the operation. Nothing here names a domain.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import FILLERS, HOLD_ON, NOT_DECIDED, SELF_REPAIR
from monologue.memory.language.memory_cues import ABOUT_THE_TALK, ASKS_TO_BE_TOLD, REQUEST
from monologue.memory.language.wishes import NOTE_LEAD_ALONE, clauses, content_words, wish_in
from monologue.memory.working.put_right import ONE_MORE, PUTS_RIGHT
from monologue.memory.working.readers import names_key, value_pattern
from monologue.memory.working.state import Comparator, Op, Operation, SessionState

Span = tuple[int, int]
Add = Callable[[Operation, Span], None]


_KNOWN: dict[tuple[int, str], tuple[DomainSchema, frozenset[str]]] = {}


def domain_words(schema: DomainSchema, language: str) -> frozenset[str]:
    """The words the domain reads or names anyway: aliases, labels, value words, goal and cue
    words, action verbs (split into single words for English). Kept per schema (a schema
    holds dicts, so it is not hashable: the cache holds it by identity, and keeps it alive)."""
    cached = _KNOWN.get((id(schema), language))
    if cached is not None and cached[0] is schema:
        return cached[1]
    words: set[str] = set()

    def add(phrase: str) -> None:
        words.add(phrase.lower())
        if language == "en":
            words.update(phrase.lower().split())

    for spec in schema.keys.values():
        if spec.reader == Reader.FREE_TEXT:
            continue
        add(spec.label(language))
        for phrase in spec.aliases.get(language, ()):
            add(phrase)
        for by_language in spec.values.values():
            for phrase in by_language.get(language, ()):
                add(phrase)
        for value in spec.values:
            add(value.replace("_", " "))
    for phrase in schema.goal_words.get(language, ()):
        add(phrase)         # (not the turn cues: "quiet" marks a task turn, it is not a value read)
    for phrase in COMPANY_WORDS.get(language, ()):
        add(phrase)         # (who comes along is no wish about the place: 约朋友吃个饭, "dinner with friends")
    for action in schema.actions.values():
        for text in (action.verb.get(language, ""), action.task.get(language, "")):
            if text:
                add(text)
    known = frozenset(w for w in words if w)
    _KNOWN[(id(schema), language)] = (schema, known)
    return known


# The words that lead to a value another reader took, said at the end of a detail.
# A time the user is busy until, said just before it: the reason for a time, no wish.
_BUSY_UNTIL_EN = re.compile(r"\b(?:till|until|til|'til)\s*$", re.IGNORECASE)
# A value given up, the one wanted said next ("别晚上八点了，…", "not Tuesday anymore, …").
_GIVEN_UP_FOR_THE_NEXT = re.compile(r"^(?:那个[，,]?\s*)?(?:(?:别|不要|不用)[^，。！？]{1,12}了|"
                                    r"不是[^，。！？]{1,12})$|"
                                    r"^(?:not\b[^,.!?]{1,30}\b(?:anymore|any more)|no more\b[^,.!?]{1,30}|"
                                    r"forget (?:about )?[^,.!?]{1,30})$", re.IGNORECASE)
# Why a time suits: the user is busy at another ("上午我要上班", "I'm in meetings all morning"), no detail to keep.
_BUSY_THEN = re.compile(r"^[^，。！？]{0,6}(?:要|得|在|有)?(?:上班|开会|上课|忙|工作|加班|有事|没空|不方便)"
                        r"(?:呢|啊|吧)?$|"
                        r"\b(?:i'?m|i am|i'll be|we'?re)\s+(?:at work|working|busy|in (?:a )?meetings?|in class|"
                        r"on shift|out)\b", re.IGNORECASE)
_LEADS_TO_A_VALUE_EN = re.compile(
    r"\s*(?:\b(?:for|on|with|of|about|from|in|under|at|by|around)\s+(?:my\s+|the\s+|this\s+|that\s+|an?\s+)?"
    r"(?:order|purchase|item|package|parcel)?(?:\s+(?:number|no\.?|#))?|"
    r"\b(?:and\s+|so\s+)?(?:i|we)\s+(?:want|need|would like|'?d like|wanna)(?:\s+to\s+get)?"
    r"(?:\s+an?|\s+the)?)\s*$", re.IGNORECASE)
# (鞋子小了想 | 换大一号: the want that leads to the value read next, no part of the detail)
_LEADS_TO_A_VALUE_ZH = re.compile(r"(?:所以|那|就)?(?:我)?(?:想要|想|要|需要|得|能不能|可不可以|可以|麻烦|请)$")


def free_text_key(schema: DomainSchema) -> KeySpec | None:
    found = schema.read_by(Reader.FREE_TEXT)
    return found[0] if found else None


# A verb whose object is a value read just after it (有个朋友不吃海鲜, 别放香菜).
# (…or for whom: 多扣的那笔给我 | 退回来)
_VERB_OF_THE_VALUE_ZH = re.compile(r"(?:不|别|没|能|想|要|不能|不想|不要)?(?:吃|喝|放|加|碰|要)$|"
                                   r"(?:给|帮)(?:我|咱|我们)$|(?:打|发|联系|通知|回)(?:给)?我?$")   # (…打我 | 电话吧)


# A place on offer turned down (不太想去, 去过了, 不要这家): no wish ("somewhere quieter" turns one down too,
# and is a wish).
_TURNS_DOWN_THE_PLACE_ZH = re.compile(r"不(?:太|怎么)?想去|去过了|不要这家|不(?:太)?喜欢(?:这|那)")
# Where a long clause joins two things said ("I got it yesterday and the jug is cracked", 收到了但是屏幕裂了).
_A_JOIN = re.compile(r"\s(?:and|but)\s|但是|可是|结果|然后", re.IGNORECASE)


# A meal said with who comes to it (the task itself, and the party: no wish of its own).
# Who comes along, as words (`domain_words`) and as patterns (a meal with company is the task itself).
COMPANY_WORDS = {"en": ("friends", "friend", "family", "parents", "folks", "colleagues", "coworkers", "wife", "husband",
                        "kids", "partner", "girlfriend", "boyfriend", "mum", "mom", "dad", "boss", "team"),
                 "zh": ("朋友", "朋友们", "家人", "爸妈", "父母", "同事", "老婆", "老公", "媳妇", "孩子",
                        "客户", "领导", "女朋友", "男朋友", "对象", "约")}
_COMPANY_ZH = (r"(?:我的?)?(?:爸妈|父母|家人|全家|家里人|朋友们?|同事们?|老婆|老公|媳妇|孩子们?|客户|领导|"
               r"女朋友|男朋友|对象|爷爷奶奶|老人家?|爸|妈)")
_COMPANY_EN = (r"(?:my|our|the) (?:parents|family|folks|mum|mom|dad|wife|husband|kids|boss|team|colleagues|coworkers|"
               r"friends|in-laws|girlfriend|boyfriend|partner|grandparents)")
# Why the user eats out, said of themselves (不想做饭, 懒得下厨, "too tired to cook"): no wish about the place.
_WHY_NOT_AT_HOME = {
    "zh": re.compile(r"(?:不想|懒得|没空|没时间|不愿意|不打算|没力气)(?:自己)?(?:做饭|做菜|下厨|煮饭|开火|洗碗)|"
                     r"累(?:死|坏|惨)了"),
    "en": re.compile(r"\b(?:(?:don'?t|do not|didn'?t) (?:feel like|want to|wanna) (?:cook|make dinner|do dishes)|"
                     r"too (?:tired|lazy|busy) to cook|no time to cook|not cooking|can'?t be bothered to cook)",
                     re.IGNORECASE),
}
_A_MEAL_WITH_COMPANY = {
    "zh": re.compile(r"^[^，。！？]{0,6}(?:带|跟|和|陪|请)" + _COMPANY_ZH
                     + r"(?:一块儿|一起|一块)?(?:出去|出门)?"
                     r"(?:吃(?:顿|个|一顿|点)?(?:饭|好的)|聚(?:一)?聚|聚餐|下馆子)[吧啊呀]?$"),
    "en": re.compile(r"^(?:\w+ ){0,4}?(?:take|taking|bring|bringing|treat|treating) " + _COMPANY_EN
                     + r" out(?: for (?:dinner|lunch|a meal|a bite))?(?: (?:tonight|today|tomorrow))?$|"
                     r"^(?:\w+ ){0,3}?(?:dinner|lunch) with " + _COMPANY_EN + r"(?: (?:tonight|today|tomorrow))?$",
                     re.IGNORECASE),
}


def read_wishes(schema: DomainSchema, text: str, language: str, taken: list[Span], add: Add,
                correction: bool, state: SessionState | None = None) -> None:
    """Each clause no other reader took (or whose untaken part says something of its own) that
    states a wish: one INCLUDES operation on the free-text key, with the clause as its words."""
    spec = free_text_key(schema)
    if spec is None:
        return
    known = domain_words(schema, language)
    cues = spec.reading.value_cues.get(language, ())
    clean: tuple[int, int] | None = None      # the clause before, where no reader took any of it
    slips = _slips_put_right(text, taken)
    note_lead = ""
    for start, end in clauses(text):
        if any(start <= slip_end <= end for slip_end in slips):
            continue            # ("something around noon, or no, 12:30 is better": the slip is no wish)
        lead, note_lead = note_lead, (text[start:end] if NOTE_LEAD_ALONE.match(text[start:end]) else "")
        if lead and not any(s < end and e > start for s, e in taken):
            # (对了备注一下，我之前已经打过两次客服了: the note is the clause after its lead)
            wish = wish_in(lead.strip() + (" " if language == "en" else "") + text[start:end].strip(), language,
                           known, cues)
            if wish is not None:
                at = text.find(wish, start, end)
                add(Operation(Op.SET, spec.name, Comparator.INCLUDES, wish, wish, correction=correction),
                    (at, at + len(wish)) if at >= 0 else (start, end))
                continue
        inside = sorted((s, e) for s, e in taken if s < end and e > start)
        previous, clean = clean, ((start, end) if not inside else None)
        if inside:
            # The longest stretch of the clause no reader took ("a table for four | away from
            # the kitchen"); it must say two things of its own, not one stray word.
            edges = [start] + [x for s, e in inside for x in (s, e)] + [end]
            gaps = [(max(edges[i], start), min(edges[i + 1], end)) for i in range(0, len(edges), 2)]
            start, end = max(gaps, key=lambda g: g[1] - g[0])
            if language == "zh" and text.startswith("的", start) and start in {e for _s, e in inside}:
                start += 1      # (订单DD20240581 | 的电饭煲一直没到: the thing the value's 的 joins it to)
            # (…or one of the key's own cues: "order 55123 | arrived broken", 订单55123 | 扣了两次钱.)
            if len(content_words(text[start:end], language, known)) < 2 and not any(
                    re.search(value_pattern(cue.lower(), language == "en"), text[start:end].lower()) for cue in cues):
                continue
        if inside and end in {s for s, _e in inside} and language == "zh" and (
                _VERB_OF_THE_VALUE_ZH.search(text[start:end]) or text[start:end].lstrip().startswith(("把", "将"))):
            continue            # (有个朋友不吃 | 海鲜, 把多扣的钱 | 退给我: the value's verb or its object, no wish)
        if inside and end in {s for s, _e in inside} and language == "en":
            if _BUSY_UNTIL_EN.search(text[start:end]):
                continue        # ("I'm at the dentist till | five thirty": why then, no detail of the order)
            # ("I was charged twice for | order 55123": not "…for order".)
            end = start + len(_LEADS_TO_A_VALUE_EN.sub("", text[start:end]))
        if inside and end in {s for s, _e in inside} and language == "zh":
            end = start + len(_LEADS_TO_A_VALUE_ZH.sub("", text[start:end].rstrip(" ，,")))
        if _GIVEN_UP_FOR_THE_NEXT.match(text[start:end].strip()) and re.match(r"[,，]", text[end:end + 1]) and any(
                end < s < next((m.start() for m in re.finditer(r"[.!?。！？]", text[end:])), len(text) - end) + end
                for s, _e in taken):
            continue            # (别晚上八点了，晚上九点半吧: the value given up for the one said next, no wish)
        if any(s < e for s, e in taken) and _BUSY_THEN.search(text[start:end].strip(" ,，。.")):
            continue            # (明天下午三点以后打，上午我要上班: why then, beside the time)
        if language == "zh" and _TURNS_DOWN_THE_PLACE_ZH.search(text[start:end]):
            continue            # (这家我去过了，不太想去: the offer turned down, no wish of its own)
        if _A_MEAL_WITH_COMPANY[language].search(text[start:end]) or _WHY_NOT_AT_HOME[language].search(text[start:end]):
            continue            # (晚上带爸妈出去吃顿饭, "taking my parents out for dinner": the task and who comes;
            # 不想做饭: why the user eats out)
        wish = wish_in(text[start:end], language, known, cues, beside_a_value=bool(inside))
        if wish is None and not inside and previous is not None and previous[1] < start \
                and not re.search(r"[.!?。！？]", text[previous[1]:start]):
            # (我上周买的电热水壶，用了两天就坏了: the fault says little without the thing it befell, said
            # just before it in the same sentence)
            joined = wish_in(text[previous[0]:end], language, known, cues)
            if joined is not None and any(c and c.lower() in text[start:end].lower() for c in cues):
                wish, start = joined, previous[0]
        if wish is None and not inside:
            # ("I got my blender yesterday and the jug is cracked right down the side": too long for a
            # wish, its part that says the fault is one)
            part = next((m.end() for m in _A_JOIN.finditer(text, start, end)
                         if any(c and c.lower() in text[m.end():end].lower() for c in cues)), None)
            if part is not None:
                wish = wish_in(text[part:end], language, known, cues)
                start = part if wish is not None else start
        if wish is None and not inside:
            wish = wish_in(text[start:end], language, known, cues, told_at_length=True)
        if wish is None:
            continue
        at = text.find(wish, start, end)
        span = (at, at + len(wish)) if at >= 0 else (start, end)
        words = content_words(wish, language, known)
        said_before = [str(c.value) for c in (state.constraints.values() if state is not None else ())
                       if c.key == spec.name]
        if any(words <= content_words(old, language, known) for old in said_before):
            continue            # said again, or less of it: held already
        for old in said_before:
            # (not a note said only in the domain's own words, 用了两天就不出热风了: nothing of it is in the new one)
            if content_words(old, language, known) <= words and content_words(old, language, known):
                # The same wish said with more ("something romantic" → "something romantic for my
                # partner"): the new words replace the old ones.
                add(Operation(Op.WITHDRAW, spec.name, value=old, words=wish, reason="said again with more"), span)
        add(Operation(Op.SET, spec.name, Comparator.INCLUDES, wish, text[start:end].strip(), correction=correction),
            span)


def held_wish_named(schema: DomainSchema, phrase: str, language: str,
                    state: SessionState | None) -> tuple[str, str] | None:
    """The held wish a withdrawal names by its words ("forget the kitchen thing" takes back "a
    table away from the kitchen"): the one sharing the most words with the phrase."""
    spec = free_text_key(schema)
    if spec is None or state is None:
        return None
    said = content_words(phrase, language, domain_words(schema, language))
    held = [(len(said & content_words(str(c.value), language)), str(c.value))
            for c in state.constraints.values() if c.key == spec.name]
    best = max(held, default=(0, ""))
    return (spec.name, best[1]) if best[0] else None


__all__ = ["asks_beyond", "domain_words", "free_text_key", "held_wish_named", "read_wishes", "request_beyond"]


def asks_beyond(schema: DomainSchema, text: str, language: str) -> bool:
    """Whether `text` asks the agent to do something in words the domain does not know: a
    request (帮我叫辆出租车, "open the sunroof", "can you call my wife?") that names none of the
    domain's things (its keys, values, cues, goal words, role) and says words of its own. Such a
    request, read as nothing, would otherwise be answered "I see", as if it would be done. A
    request about the talk itself ("say that again", 慢点说) or to be told something ("tell me
    their number", 把地址发我) is the agent's in any domain.

    Measured on real users' turns by `scripts/bench_beyond.py`: a request that names one of the
    domain's things ("set aside a table for me", "book me a flight") is never declined here, so
    some requests beyond the domain pass; a false alarm would tell a user the agent cannot do
    what it does."""
    plain = FILLERS.sub("", text.strip())
    if not REQUEST.search(plain) or ABOUT_THE_TALK.search(plain) or ASKS_TO_BE_TOLD.search(plain) \
            or NOT_DECIDED.search(plain) or HOLD_ON.search(plain):
        return False        # ("Can you— actually, I'm not sure yet" asks for nothing)
    topic = _topic_words(schema, language)
    lowered = plain.lower()
    if language == "en":
        if any(re.search(r"\b" + re.escape(w) + r"(?:s|es)?\b", lowered) for w in topic):
            return False
    elif any(w in plain for w in topic):
        return False
    known = set(domain_words(schema, language)) | topic
    return bool(content_words(plain, language, known))


# Where one request in a turn ends and the next begins ("turn the music down and open the sunroof").
_REQUEST_PARTS = {"en": re.compile(r"\s*(?:[,.;!?]|\band\b|\balso\b|\bthen\b)\s*", re.IGNORECASE),
                  "zh": re.compile(r"\s*(?:[，,。.；;！!？?]|然后|再|还有|顺便)\s*")}


# A part that works a thing (opens, shuts, switches, calls): judged alone, where a part that asks
# to look, try or change ("can you try Sino?", "make it at half past 10") leans on the rest of its turn.
_OPERATES = {"en": re.compile(r"^(?:(?:please|can you|could you|would you|and|also|just|oh)\s+)*(?:open|close|shut|"
                              r"turn (?:on|off)|switch (?:on|off)|call|text|phone|dial|ring|lock|unlock|"
                              r"roll (?:down|up)|honk|dim|fold|unfold|pop|wind (?:down|up))\b", re.IGNORECASE),
             "zh": re.compile(r"^(?:请|帮我|麻烦|给我|顺便|再|也)*"
                              r"(?:把.{1,8}(?:打开|关上|关掉|关了|开开|锁上|解锁|降下|升起)|"
                              r"打开|关上|关掉|关闭|锁上|解锁|给.{1,6}打(?:个)?电话|打(?:个)?电话)")}


# What leads a slip's repair and is no request ("open the sunroof, *no* I mean…", 打开天窗，*哦*不对).
_LEADS_THE_REPAIR = re.compile(r"(?:[\s,，.。!！]|\b(?:no|oh|uh|um|wait|sorry)\b|[哦啊呃噢])*$", re.IGNORECASE)


def _slips_put_right(text: str, taken: list[Span]) -> list[int]:
    """Where each slip put right in the turn ends: words a repair takes back ("no wait", 不对),
    with a value read in the words meant after it ("somewhere quiet, no wait, by the window")."""
    ends = []
    for repair in SELF_REPAIR.finditer(text):
        meant_end = next((m.start() for m in re.finditer(r"[,，.。!！?？;；]", text[repair.end():])), None)
        meant_end = repair.end() + meant_end if meant_end is not None else len(text)
        if PUTS_RIGHT.search(repair.group()) and not ONE_MORE.match(text[repair.end():].strip()) \
                and any(repair.end() <= s < meant_end for s, _e in taken):
            ends.append(len(_LEADS_THE_REPAIR.sub("", text[:repair.start()])))
    return ends


def request_beyond(schema: DomainSchema, text: str, language: str) -> str:
    """The part of a turn that asks to work something beyond the domain, beside what it does
    (有点闷，把天窗打开: the cabin is cooled, and the sunroof is said to be out of reach), or "".
    Each such part is judged as `asks_beyond` judges a whole turn; a part taken back by a slip
    put right after it ("open the sunroof, no I mean the back windows") asks for nothing."""
    separators = _REQUEST_PARTS.get(language, _REQUEST_PARTS["en"])
    for repair in reversed(list(SELF_REPAIR.finditer(text))):
        meant = text[repair.end():]
        if not PUTS_RIGHT.search(repair.group()) or ONE_MORE.match(meant.strip()) or not any(
                names_key(spec, meant, language) for spec in schema.keys.values()):
            continue        # ("open the sunroof, sorry, and turn on the AC": no slip; 我是说现在就打开: the same again)
        slip_end = len(_LEADS_THE_REPAIR.sub("", text[:repair.start()]))      # (", *no* I mean…")
        slip_start = max((m.end() for m in separators.finditer(text, 0, slip_end) if m.end() < slip_end), default=0)
        text = text[:slip_start] + " " + text[repair.end():]
    parts = [p.strip() for p in separators.split(text) if p and p.strip()]
    operates = _OPERATES.get(language, _OPERATES["en"])
    return next((p for p in parts if len(parts) > 1 and operates.match(p) and asks_beyond(schema, p, language)), "")


def _topic_words(schema: DomainSchema, language: str) -> set[str]:
    """The words that name the domain's things: its keys' labels, aliases, listed values (not a
    control's verbs: 打开 opens a window, and a sunroof too), cues and units; its goal words, turn
    cues and the words of its role."""
    words: set[str] = {w.lower() for w in schema.goal_words.get(language, ())}
    words |= {w.lower() for w in schema.turn_cues.get(language, ()) if "*" not in w}
    role = schema.role.get(language, "")
    words |= {w for w in re.findall(r"[a-z]{3,}", role.lower()) if content_words(w, language)} \
        if language == "en" else content_words(role, language)
    for spec in schema.keys.values():
        words |= {spec.label(language).lower()} | {w.lower() for w in spec.aliases.get(language, ())}
        # A control's verbs count where they say what they do ("play", 播放), not the short ones
        # many things share (打开 opens a sunroof too; "on", "up").
        words |= {w.lower() for table in spec.values.values() for w in table.get(language, ())
                  if not spec.reading.verb_values or len(w) >= (5 if language == "en" else 3)}
        words |= {w.lower() for w in (*spec.reading.more.get(language, ()), *spec.reading.less.get(language, ()))}
        # (A one-character cue is no word of its own here: 天窗 is not the 窗 of the windows.)
        words |= {w.lower() for w in spec.reading.value_cues.get(language, ()) if len(w) > 1}
        words |= {w.lower() for w in spec.reading.units.get(language, ()) if len(w) > 1}
        # (…and the words of its sides: "open mine", 主驾的打开 is the driver's window)
        words |= {w.lower() for table in spec.sides.values() for w in table.get(language, ())}
    for action in schema.actions.values():      # (打开工单 opens the ticket the agent opens)
        words |= {w.lower() for w in (action.task.get(language, ""), *action.task_nouns.get(language, ())) if w}
    return {w for w in words if w and (language != "en" or len(w) > 2)}
