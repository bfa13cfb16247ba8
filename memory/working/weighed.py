"""Values read in one turn, weighed against each other.

Each reader in `extract.py` reads its own words; these passes then look at what all of them read
together and keep what the user meant: two values joined by "or" ask which it is; a feeling said
as the reason for a command is no second command; "skip it" beside a withdrawal says the
withdrawal again; the level a control is taken to swallows the step said on the way; a value
that refines another stands for both; a wish lifted just after it was said is taken back, and one
lifted for this trip in the same breath as it is said is only named as the reason; the day said
after a stop is dropped is that errand's day.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from monologue.memory.domain.schema import DomainSchema, KeySpec, Reader
from monologue.memory.language.cues import SELF_REPAIR, THIS_TIME_ONLY, language_of
from monologue.memory.language.numbers import EN_NUMBER, to_int
from monologue.memory.language.stances import clause_bounds, clause_of
from monologue.memory.working.readers import names_key, value_pattern
from monologue.memory.working.state import Comparator, Op, Operation, OpSource, SessionState

Span = tuple[int, int]

# A wish taken back, not lifted for this trip only (`THIS_TIME_ONLY`: "highways are fine today"): said
# as a slip put right, "wait", "no wait", "sorry", 算了, 不对; not a plain "actually", which may well set the
# wish aside for this trip only.
_TAKEN_BACK = re.compile(r"\b(?:wait|sorry|i mean|scratch that|never mind|on second thought)\b|算了|不对|我说错了",
                         re.IGNORECASE)

# An errand called off ("no need to pick her up", 不用接了, 不买了): the stop made for it goes too.
ERRAND_CALLED_OFF = {
    "en": re.compile(r"\b(?:no need to|(?:don'?t|do not|doesn'?t|won'?t) (?:need|have) to|no longer need to|"
                     r"not going to|don'?t)\s+(?P<v>pick|get|grab|buy|fetch|collect|drop)\b", re.IGNORECASE),
    # (…the verb ending its clause: 不买了, 不用去接她了; not 我不吃辣, said of the food)
    "zh": re.compile(r"(?:不用|不必|不需要|甭|别|不)再?去?(?P<v>接|取|拿|买|加油|充电|吃)(?:她|他|他们|人|了|啦)*"
                     r"\s*(?:[，,。.!！?？]|$)"),
}


def errand_in(verb: str, words: str) -> bool:
    """Whether `words` (what a stop was asked for with) name the errand `verb` ("pick up my colleague")."""
    return bool(re.search(r"\b" + re.escape(verb) if verb.isascii() else re.escape(verb), words, re.IGNORECASE))


def errand_called_off(schema: DomainSchema, ops: list[Operation], text: str,
                      where: dict[int, Span]) -> list[Operation]:
    """"回家，中途停一下买杯咖啡，哦算了，不买了": a stop asked for with an errand that the same
    turn calls off after it is no stop."""
    off = [m for m in ERRAND_CALLED_OFF[language_of(text)].finditer(text)]
    if not off:
        return ops

    def called_off(op: Operation) -> bool:
        if op.op != Op.SET or not op.key or id(op) not in where or not schema.key(op.key).multi \
                or schema.key(op.key).reader != Reader.PLACE_NAME:
            return False
        clause = clause_of(text, where[id(op)])
        return any(m.start() >= where[id(op)][1] and errand_in(m.group("v"), clause) for m in off)
    return [op for op in ops if not called_off(op)]


# How many steps a change says ("down two notches", "up three", "two more", 调小两档, 再大两格): the
# level held moves that many of its own units.
_STEP_UNIT_EN = r"(?:notch(?:es)?|levels?|steps?|clicks?|ticks?|settings?|bars?)"
_STEPS_COUNTED = {
    "en": re.compile(r"\b(?:up|down|higher|lower|louder|quieter|softer|stronger|weaker)\s+(?:by\s+)?(?P<n>"
                     + EN_NUMBER + r")(?:\s+more)?(?:\s+" + _STEP_UNIT_EN + r")?(?:\s+more)?\b(?!\s*(?:degrees?|"
                     r"minutes?|hours?|people|percent|%))|"
                     r"\b(?P<n2>" + EN_NUMBER + r")\s+(?:more\s+)?" + _STEP_UNIT_EN + r"\b", re.IGNORECASE),
    "zh": re.compile(r"(?:大|小|高|低|强|弱|加|减)(?P<n>[一二两三四五六七八九十\d]+)(?:个)?(?:格|档|挡|级)"),
}
_ALL_THE_WAY = re.compile(r"\b(?:all the way|max(?:imum)?|minimum|full(?:y)?)\b|最大|最小|最高|最低|到底",
                          re.IGNORECASE)


_UP = {"en": re.compile(r"\b(?:up|higher|louder|stronger|more)\b", re.IGNORECASE), "zh": re.compile(r"[大高强加]")}
_DOWN = {"en": re.compile(r"\b(?:down|lower|quieter|softer|weaker|less)\b", re.IGNORECASE),
         "zh": re.compile(r"[小低弱减]")}


def steps_counted(words: str) -> tuple[int, int] | None:
    """A counted step's number and direction (+1 up, -1 down): "bump it up two more" (2, +1), 再小两格
    (2, -1); None where it says no number or no one direction."""
    n = steps_said(words)
    lang = language_of(words)
    up, down = bool(_UP[lang].search(words)), bool(_DOWN[lang].search(words))
    return (n, 1 if up else -1) if n is not None and up != down else None


def all_the_way(words: str) -> int | None:
    """+1 for a change to the top ("all the way up", "max", 开到最大), -1 to the bottom, else None."""
    if not _ALL_THE_WAY.search(words):
        return None
    top = re.search(r"\b(?:max(?:imum)?|full(?:y)?)\b|最大|最高", words, re.IGNORECASE)
    bottom = re.search(r"\bminimum\b|最小|最低", words, re.IGNORECASE)
    lang = language_of(words)
    up = bool(top) or bool(_UP[lang].search(words)) and not bottom
    down = bool(bottom) or bool(_DOWN[lang].search(words)) and not top
    return None if up == down else 1 if up else -1


def steps_said(words: str) -> int | None:
    """How many steps a change says ("the fan down two notches": 2), or None where it says no number."""
    m = _STEPS_COUNTED[language_of(words)].search(words)
    if m is None:
        return None
    n = to_int(m.group("n") or m.groupdict().get("n2") or "")
    return n if n is not None and 0 < n <= 20 else None


# How far a step goes ("a couple of notches", "all the way", 到底): the car knows where it ends up.
_HOW_FAR = re.compile(r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|couple|few|several|all the way|max|"
                      r"maximum|minimum|full|fully)\b|[两三四五六七八九十]|最大|最小|最高|最低|到底", re.IGNORECASE)

# What is left of a clause that puts a dropped errand off to another day ("I'll do it tomorrow", 明天再去吧).
_THE_ERRAND_AGAIN = {"en": re.compile(r"\W*(?:(?:i|we)(?:'ll| will| can)|i'?d rather)\s+(?:just\s+)?"
                                      r"(?:do|get|grab|pick up|go)(?:\s+(?:it|that|them|there|up))*"
                                      r"(?:\s+(?:myself|instead|then))?\W*", re.IGNORECASE),
                     "zh": re.compile(r"\W*(?:我|我们)?(?:就|再|自己)?(?:再)?(?:去|说|买|弄|办)(?:吧|了|呗)?\W*")}

# A command to drop something named only by a pronoun ("skip it", 不要了吧).
_DROP_IT = re.compile(r"\b(?:skip|drop|cancel|forget|scrap|ditch|remove|lose)\s+(?:it|that|this|them)\b|跳过吧?$",
                      re.IGNORECASE)

# How the cabin feels, said without asking for a change (太热, "it's stuffy"): beside a command to
# another control, the reason for it.
A_FEELING = re.compile(r"太(?:热|冷|闷|冰|凉)|有点(?:热|冷|闷|凉)|好(?:热|冷|闷|冰|凉)|闷热|挺(?:热|冷)|很(?:热|冷)|"
                       r"\btoo (?:hot|warm|cold|cool)\b|\bfreezing\b|\bboiling\b|\bstuffy\b|\bchilly\b|"
                       r"\b(?:hot|cold) in here\b|\b(?:a bit|a little|kind of) (?:hot|cold|warm)\b|"
                       r"\b(?:'s|is|are) (?:ice )?(?:cold|freezing)\b", re.IGNORECASE)

# Noise felt (太吵了, "it's too loud"): the volume's, unless said as the reason for another command.
A_NOISE = re.compile(r"太吵|好吵|有点吵|吵死|太响|"
                     r"\b(?:too|so|a (?:little|bit)|kind of|kinda|pretty|really|way) (?:loud|noisy)\b|"
                     r"\bblaring\b", re.IGNORECASE)

# A control's values that make the car quieter: noise is their reason ("turn the fan up, it's too loud" is not).
# Too much of something, said as the reason for a command ("风太大了", "it's too windy").
_TOO_MUCH = re.compile(r"太|\btoo\b", re.IGNORECASE)
# (…and the song skipped: 换首歌，这个太吵了 meets the noise of that song)
QUIETER = frozenset({"down", "closed", "off", "paused", "muted", "next"})
UP_OR_DOWN = re.compile(r"调低|调高|[低高]一?点|降低|升高|\b(?:lower|higher|turn (?:it |that )?(?:up|down)|"
                        r"bring it (?:up|down)|knock it down|crank it)\b", re.IGNORECASE)


def not_either_or(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span]) -> list[Operation]:
    """车窗是开着还是关着, "is the seat heater on or off": two values of one control joined by
    还是 / "or" ask which it is (the ASR often drops the question mark); neither is a command."""
    if not re.search(r"还是|\bor\b", text, re.IGNORECASE):
        return ops
    # (能退钱吗还是只能换, 退货还是换货: two values of any one key, in a question or either/or in
    # Chinese, ask which is possible or is undecided; "refund or rather an exchange" is put right.)
    question = bool(re.search(r"[吗?？]", text) or _values_either_side_of_haishi(ops, text, where)) \
        and not SELF_REPAIR.search(text)
    asked = {op.key for op in ops if op.op == Op.SET and (schema.key(op.key).reading.verb_values or (
             question and not schema.key(op.key).multi))
             and len({o.value for o in ops if o.op == Op.SET and o.key == op.key}) > 1}
    return [op for op in ops if op.key not in asked]


def _values_either_side_of_haishi(ops: list[Operation], text: str, where: dict[int, Span]) -> bool:
    """退货还是换货: values said on both sides of 还是 weigh one against the other; 还是换个新的吧，
    不修了 ("after all, a new one; no repair") says both after it, and decides."""
    at = text.find("还是")
    if at < 0 or re.search(r"[，,。.!！；;…]\s*(?:嗯|呃|那|那就|我们|咱们|就)?\s*$", text[:at]):
        return False        # (火锅太辣了，还是粤菜吧: a clause opened with 还是 decides, "Cantonese after all")
    starts = [where[id(op)][0] for op in ops if op.op == Op.SET and id(op) in where and where[id(op)][1] > 0]
    return any(p < at for p in starts) and any(p > at for p in starts)


def feeling_met_by_a_command(schema: DomainSchema, ops: list[Operation], text: str,
                             where: dict[int, Span]) -> list[Operation]:
    """A feeling said as the reason for a command to another control (座椅加热关了吧，太热; "open
    the window, it's stuffy"): the command meets it; the cabin's temperature is not moved too."""
    easing = {k for spec in schema.keys.values() for k in spec.reading.eased_by}
    # (a value said only as too much of it, 风太大了, is a feeling, no command)
    commanded = {op.key for op in ops if op.op == Op.SET and op.key and op.source != OpSource.RELATIVE
                 and op.key in easing and not (id(op) in where and _TOO_MUCH.search(text[slice(*where[id(op)])])
                                               and not UP_OR_DOWN.search(text[slice(*where[id(op)])]))}
    if not commanded:
        return ops
    rest = A_NOISE.sub(" ", A_FEELING.sub(" ", text)).lower()
    # (the command's own words name no other control: "pause the music, it's too loud", 换首歌，这个太吵了 ask
    # nothing of the volume, though music and 歌 are words of it too)
    lang = language_of(text)
    for key in commanded:
        spec = schema.key(key)
        words = {*spec.aliases.get(lang, ()), *spec.reading.value_cues.get(lang, ()),
                 *(w for table in spec.values.values() for w in table.get(lang, ()))}
        for word in sorted(words, key=len, reverse=True):
            if len(word) > 1 or lang != "en":
                rest = value_pattern(word.lower(), lang == "en").sub(" ", rest)

    def asked_anyway(key: str) -> bool:      # ("it's too hot, make it cooler and open the window")
        reading = felt_as(schema, key).reading
        if not reading.more and names_key(felt_as(schema, key), rest, language_of(text)):
            return True     # ("close the windows, and turn the music down, too loud")
        return bool(UP_OR_DOWN.search(rest)) or any(
            re.search(value_pattern(word.lower(), word.isascii()), rest)
            for words in (reading.more, reading.less) for word in words.get(language_of(text), ()))
    # ("my seat's freezing, can you warm it up": the command said as a feeling, and "it" is that.)
    felt = any(op.key in commanded and A_FEELING.search(op.words) for op in ops)

    def of_the_command(op: Operation) -> bool:
        said = text[where[id(op)][0]:where[id(op)][1]]
        if A_FEELING.search(said) or A_NOISE.search(said):
            return not asked_anyway(op.key)
        if quieting and _TOO_MUCH.search(said):
            # (窗户关上吧，风太大了: only the control's own name or a word of up and down asks it as well)
            spec = felt_as(schema, op.key)
            return not (UP_OR_DOWN.search(rest) or any(
                re.search(value_pattern(alias.lower(), lang == "en"), rest) for alias in spec.aliases.get(lang, ())))
        clause = clause_of(text, where[id(op)])
        return felt and not any(names_key(spec, clause, language_of(text)) for spec in schema.keys.values())

    quieting = any(op.op == Op.SET and op.key in commanded and str(op.value) in QUIETER for op in ops)

    def a_feeling(op: Operation) -> bool:       # (风量小一点，太吵了: the noise is the reason, no volume;
        # 窗户关上吧，风太大了: too much wind, met by the window closed, no fan turned down)
        said = text[where[id(op)][0]:where[id(op)][1]]
        return op.source == OpSource.RELATIVE or (quieting and bool(A_NOISE.search(said) or _TOO_MUCH.search(said)))
    return [op for op in ops if not (
        op.key not in commanded and id(op) in where and a_feeling(op)
        and commanded & set(felt_as(schema, op.key).reading.eased_by) and of_the_command(op))]


def it_is_the_noise(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span]) -> list[Operation]:
    """"Hmm, that's a little loud, turn it down a notch": the noise said names the control, and "it" is that
    control, not the cabin's temperature moved a step besides."""
    quieted = [op for op in ops if op.op == Op.SET and op.source != OpSource.RELATIVE and id(op) in where
               and str(op.value) in QUIETER and A_NOISE.search(op.words)]
    if not quieted:
        return ops
    return [op for op in ops if not (op.source == OpSource.RELATIVE and op.key not in {q.key for q in quieted}
                                     and not names_key(schema.key(op.key), op.words, language_of(text)))]


def feeling_met_by_its_level(schema: DomainSchema, ops: list[Operation], levels_said: Iterable[str]) -> list[Operation]:
    """"It's boiling in here, set the AC to 18", "set the temperature to seventy, I'm freezing": the level
    said (`levels_said`: the keys given a level this turn, or one to be asked about on another scale)
    meets the feeling; the cabin is not also moved a step."""
    said = set(levels_said)
    return [op for op in ops if not (op.op == Op.SET and op.key and op.source == OpSource.RELATIVE
                                     and A_FEELING.search(op.words) and felt_as(schema, op.key).name in said)]


def felt_as(schema: DomainSchema, key: str) -> KeySpec:
    """The key a feeling is about: the cabin's temperature for its step with none held."""
    spec = schema.key(key)
    return spec if spec.reading.verb_values else schema.level_stepped_by(key) or spec


def it_is_what_was_dropped(schema: DomainSchema, ops: list[Operation], text: str,
                           where: dict[int, Span]) -> list[Operation]:
    """"Never mind the gas station, skip it": "it" is the stop just taken back, not the song
    playing (a command with only a pronoun for its object, beside a withdrawal, says it again)."""
    if not any(op.op == Op.WITHDRAW and op.value not in (None, "") for op in ops):
        return ops
    lang = language_of(text)

    def says_it_again(op: Operation) -> bool:
        if op.op != Op.SET or id(op) not in where or not schema.key(op.key).reading.verb_values:
            return False
        clause = clause_of(text, where[id(op)])
        return bool(_DROP_IT.search(clause)) and not names_key(schema.key(op.key), clause, lang)
    return [op for op in ops if not says_it_again(op)]


def level_over_its_step(schema: DomainSchema, ops: list[Operation], text: str,
                        where: dict[int, Span]) -> list[Operation]:
    """"Turn the fan up to 4", 音量调大到二十: the level said is where the control goes; the step
    said on the way there (up) is no second change."""
    levels = [op for op in ops if op.op == Op.SET and op.key and schema.key(op.key).reading.stepped_by
              and id(op) in where]
    if not levels:
        return ops

    def step_to_a_level(op: Operation) -> bool:
        if op.op != Op.SET or id(op) not in where:
            return False
        for level in levels:
            if op.key and str(op.value) in schema.key(level.key).reading.stepped_by.get(op.key, {}):
                left, right = clause_bounds(text, *where[id(level)])
                if left <= where[id(op)][0] <= right:
                    return True
        return False

    return [op for op in ops if not step_to_a_level(op)]


def step_moves_the_level(schema: DomainSchema, ops: list[Operation], state: SessionState | None) -> list[Operation]:
    """A step said with a level held moves the level (the fan at 3, "turn the fan up": 4; the
    volume at 15, 小声点: 13), within its range; no level is said this turn."""
    if state is None:
        return ops
    out: list[Operation] = []
    for op in ops:
        moved: Operation | None = None
        for spec in schema.keys.values():
            steps = spec.reading.stepped_by.get(op.key, {}) if op.op == Op.SET and op.key else {}
            held = state.find(spec.name)
            if str(op.value) not in steps or len(held) != 1 or any(o.key == spec.name for o in ops):
                continue
            by = steps[str(op.value)]
            low, high = spec.reading.value_range or (None, None)
            counted = steps_said(op.words)
            if counted is not None:
                # ("the fan down two notches" at 5 is 3; 音量再大三格 at 10 is 13: that many of its units)
                level = float(held[0].value) + counted * (1 if by > 0 else -1)
            elif _ALL_THE_WAY.search(op.words) and low is not None and high is not None:
                level = high if by > 0 else low        # ("all the way up", 开到最大)
            elif _HOW_FAR.search(op.words):
                continue      # ("a couple of notches up": the car knows where it ends up; the step is
                # carried out and the level held let go, never a level guessed)
            else:
                level = float(held[0].value) + by
            if low is None or high is None:
                low, high = level, level
            level = min(max(level, low), high)
            moved = Operation(Op.SET, spec.name, Comparator.EQ, int(level) if spec.type == "int" else level,
                              op.words, correction=op.correction, source=OpSource.RELATIVE,
                              reason=f"{op.key} {op.value}: the level held moved a step")
        out.append(moved or op)
    return out


def a_step_along_its_scale(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span],
                           state: SessionState | None) -> list[Operation]:
    """"Something a notch cheaper" with the pricey held: moderate, the next value down the key's
    listed order, not the cheapest (an enum whose `relative: {more, less}` words say a step up or
    down its values, in the order the schema lists them). With none held, the step is from the
    option in view: "how much is that one?" … "pricey", "a notch cheaper" is moderate."""
    if state is None:
        return ops
    lang = language_of(text)
    out: list[Operation] = []
    for op in ops:
        spec = schema.keys.get(op.key) if op.op == Op.SET and op.key else None
        held = [c.value for c in state.find(op.key)] if spec is not None else []
        option = state.option_in_view
        if spec is not None and not held and option is not None and isinstance(option.about.get(op.key), str):
            held = [option.about[op.key]]
        if spec is None or spec.type != "enum" or not (spec.reading.more or spec.reading.less) or len(held) != 1 \
                or id(op) not in where or op.comparator == Comparator.NE:     # (别高档一点的了: refused, no step)
            out.append(op)
            continue
        clause = clause_of(text, where[id(op)])
        lowered = clause.lower()
        up = any(value_pattern(w.lower(), lang == "en").search(lowered) for w in spec.reading.more.get(lang, ()))
        down = any(value_pattern(w.lower(), lang == "en").search(lowered) for w in spec.reading.less.get(lang, ()))
        order = list(spec.values)
        if up == down or str(held[0]) not in order:
            out.append(op)
            continue
        measure = spec.reading.measured_by
        known = option.about.get(measure) if not state.find(op.key) and measure and option is not None else None
        if down and isinstance(known, (int, float)) and measure in schema.keys and not state.find(measure):
            # ("有没有便宜点的" after 四季民福 at ¥117 a head: a place under that, not the band below)
            out.append(Operation(Op.SET, measure, Comparator.LE, known - 1, op.words, correction=True,
                                 source=OpSource.RELATIVE, reason=f"cheaper than the option in view ({known})"))
            continue
        at = order.index(str(held[0])) + (1 if up else -1)
        value = order[min(max(at, 0), len(order) - 1)]
        out.append(Operation(Op.SET, op.key, Comparator.EQ, value, op.words, correction=True,
                             source=OpSource.RELATIVE, reason=f"a step from {held[0]} along {op.key}'s scale"))
    return out


def refined(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span]) -> list[Operation]:
    """Of two values of one key read in one turn, the one that says how far the other goes or
    what more it brings (`refines`: "open the windows a bit" is partly open; "cancel the order,
    and refund me" is the cancellation, which brings the money back)."""
    def refined(op: Operation) -> bool:
        if op.op != Op.SET or not op.key or id(op) not in where:
            return False
        spec = schema.key(op.key)
        return any(other.op == Op.SET and other.key == op.key and id(other) in where
                   and other.comparator != Comparator.NE
                   and str(op.value) in spec.refines.get(str(other.value), ()) for other in ops)
    return [op for op in ops if not refined(op)]


def taken_back_not_set_aside(schema: DomainSchema, ops: list[Operation], text: str,
                              state: SessionState | None) -> list[Operation]:
    """"Avoid highways", then "wait, highways are fine": a lasting wish said moments ago and
    lifted now is taken back, not set aside for this trip (a one-off is said with "today",
    "this time", or of a wish the user has held since before this conversation)."""
    if state is None or THIS_TIME_ONLY.search(text) or not _TAKEN_BACK.search(text):
        return ops
    out: list[Operation] = []
    for op in ops:
        aside = schema.key(op.key).reading.sets_aside.get(str(op.value)) \
            if op.op == Op.SET and op.key else None
        recent = [c for c in state.constraints.values() if aside is not None and str(c.value) == aside
                  and c.comparator != Comparator.EXCLUDES and 0 < c.turn and state.turn - c.turn <= 2]
        if not recent:
            out.append(op)
            continue
        out.extend(Operation(Op.WITHDRAW, c.key, value=c.value, words=op.words, correction=True,
                             reason=f"taken back just after it was said ({op.value})") for c in recent)
    return out


def the_errands_day(schema: DomainSchema, ops: list[Operation], text: str, where: dict[int, Span],
                     lang: str) -> list[Operation]:
    """`ops` less a day said after a stop was dropped, in a clause of nothing else: the day of
    that errand, not of the trip ("take off the pharmacy, I'll do it tomorrow", 药店不去了，明天再去;
    not 今天不去了，明天再去, the trip itself put off)."""
    dropped = [where[id(op)][1] for op in ops if op.op == Op.WITHDRAW and op.key and id(op) in where
               and schema.key(op.key).on_the_way_to]

    def the_errands(op: Operation) -> bool:
        if op.op != Op.SET or not op.key or id(op) not in where or schema.key(op.key).reader != Reader.DATE:
            return False
        span = where[id(op)]
        left, right = clause_bounds(text, *span)
        rest = (text[left:span[0]] + " " + text[span[1]:right]).strip()
        return any(end <= left for end in dropped) and bool(_THE_ERRAND_AGAIN[lang].fullmatch(rest))
    return [op for op in ops if not the_errands(op)]


def not_set_aside_by_its_reason(schema: DomainSchema, ops: list[Operation], text: str,
                                where: dict[int, Span]) -> list[Operation]:
    """`ops` less a one-off value said after the lasting wish it would set aside, in the same turn,
    with no word of this trip only: 别走高速了，走高速她更难受 ("no highways, she feels worse on them")
    names the highway as the reason, it does not take it this time ("avoid highways, but take the
    highway today" still does)."""
    if THIS_TIME_ONLY.search(text):
        return ops
    wished = {str(op.value): where[id(op)][1] for op in ops if op.op == Op.SET and id(op) in where}

    def reason(op: Operation) -> bool:
        aside = schema.key(op.key).reading.sets_aside.get(str(op.value)) if op.op == Op.SET and op.key else None
        return aside in wished and id(op) in where and where[id(op)][0] >= wished[aside]
    return [op for op in ops if not reason(op)]
