"""The dialogue policy (D1): from the state and the domain, the agent's next act.

Code decides, the LLM words: the policy picks one act per turn — ask for the most
important missing slot, offer the next option, read back before acting, act, answer from
memory, come back to the task after small talk — and the reply model only says it (with
a template in reserve, `wording.py`). So a small model can no longer offer a table before
the time is known, repeat an offer, or forget to book when the user says yes.

A plain library, like `memory/`: no frames, no audio, no pipecat.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from monologue.dialogue.state_questions import StateQuestion, checks_held
from monologue.memory.domain.catalogue import known_to_meet
from monologue.memory.domain.schema import ActionSpec, DomainSchema, Reader
from monologue.memory.language.cues import (
    A_YES_BUT,
    ABILITIES_QUESTION,
    ABOUT_ME,
    AGENT_NAME_QUESTION,
    ANOTHER_PLACE,
    CLOSING,
    COMPLAINT,
    DROWSY,
    ENTERTAIN_ME,
    EXCLAMATION,
    FILLERS,
    GO_AHEAD,
    GREETING,
    HANDOVER,
    HOLD_ON,
    HOW_ARE_YOU,
    NOT_DECIDED,
    NOT_YET,
    PRESENCE_CHECK,
    REFUSES_OFFER,
    THANKS,
    TO_THE_AGENT,
    WANTS_OPTIONS,
    WEARY,
    WEATHER,
    YES_WORD_DESCRIBING,
    language_of,
    opens_a_question,
    sounds_fine,
    yes_or_no,
)
from monologue.memory.language.memory_cues import ABOUT_THE_TALK, ASKS_TO_BE_TOLD, REQUEST
from monologue.memory.language.stances import asks_for_information, is_query, sentences_with_offsets
from monologue.memory.working.state import (
    WHICH_CONTROL,
    ActionDone,
    AgentAct,
    Comparator,
    ConditionStatus,
    SessionState,
    as_bound,
    as_member,
)
from monologue.memory.working.turn_classes import CallOff, TurnClass, names_the_task
from monologue.memory.working.wishes import asks_beyond


class Act(StrEnum):
    """What the agent does with its turn."""

    GREET = "greet"                  # hello, and what it can do
    ASK = "ask"                      # the most important missing slot
    PROPOSE = "propose"              # one option, once the required slots are filled
    SUGGEST = "suggest"              # one option named when asked for, while a slot is still missing (`key`)
    NO_OPTIONS = "no_options"        # nothing fits: say so, ask what to relax
    CONFIRM = "confirm"              # read back before acting
    ASK_CHANGE = "ask_change"        # the read-back was refused: what should change?
    RELAX = "relax"                  # the user agreed to drop a condition nothing fitted (then decided again)
    ACT = "act"                      # carry out an action (a tool runs)
    ALREADY_DONE = "already_done"    # nothing left to do: say it stands
    ASK_UNDO = "ask_undo"            # "cancel that" after a booking: read back, and cancelled on a yes
    UNDONE = "undone"                # what was done taken back ("cancel the route", "cancel the booking"): said so
    CALLED_OFF = "called_off"        # the task called off before it was done (算了，不订了): nothing more asked
    ANSWER_MEMORY = "answer_memory"  # a question about the user or the past, answered from memory
    DONT_KNOW = "dont_know"          # …and memory has nothing
    ANSWER = "answer"                # a question about the world: the model answers from the facts it is given
    ANSWER_STATE = "answer_state"    # a question about the task's own state: a slot, a summary, what comes next
    ANSWER_OPTION = "answer_option"  # a question about an option offered or chosen, answered from the catalogue
    SMALL_TALK = "small_talk"        # answered briefly; `then` comes back to the task
    RESUME = "resume"                # back to the task without repeating the offer that is open
    ONLY_OPTION = "only_option"      # asked for options again: the one that fits is the one offered
    CLARIFY = "clarify"              # working memory asks back (misheard, or a change to confirm)
    MEMORY = "memory"                # long-term memory's own words (a contradiction asked about, a change made)
    HANDOVER = "handover"            # the user wants a person
    CANT_DO = "cant_do"              # asked for something the domain does not do: said so, and what it does
    CLOSE = "close"                  # goodbye

    @property
    def said_as_decided(self) -> bool:
        """Acts whose words are facts the code already has: said exactly, never reworded by a model."""
        return self in (Act.ANSWER_MEMORY, Act.DONT_KNOW, Act.CLARIFY, Act.MEMORY, Act.ANSWER_STATE, Act.ANSWER_OPTION)


# A turn worded as a question, whatever else it is ("…要扣钱吗", "by the way, what happens if…?").
_ASKED = re.compile(r"[?？]\s*$|[吗呢]\W*$|"
                    r"^\W*(?:(?:by the way|btw|so|and|oh),?\s+)?(?:what|how|when|why|is|are|do|does|can|will)\b",
                    re.IGNORECASE)

# A liking hedged by a question after "but" (…但是有包间吗？).
# A recommendation asked for (有没有推荐的, "any recommendations?"), and words that ask for another than the one
# on offer (还有别的吗, "anything else?").
_A_RECOMMENDATION = re.compile(r"推荐(?!菜|的菜)|建议|\b(?:recommend\w*|suggest\w*)\b(?! (?:dish|to eat|to order))",
                               re.IGNORECASE)
_ANOTHER_THAN_THIS = re.compile(r"别的|其他|其它|另外|换|还有|\b(?:else|other|another|different|more)\b", re.IGNORECASE)


def _asks_for_another(text: str) -> bool:
    """Whether the turn asks for options other than the one on offer (not only what the agent recommends)."""
    return bool(WANTS_OPTIONS.search(text)) and not (_A_RECOMMENDATION.search(text)
                                                     and not _ANOTHER_THAN_THIS.search(text))


# ("Traffic looks awful today, doesn't it?": a remark with a tag, small talk, not a question.)
_TAG_QUESTION = re.compile(r",\s*(?:\w+n'?t\s+\w+|right|huh|eh|yeah)\s*\?\s*$|(?:对吧|是吧|是不是)[?？]?\s*$",
                           re.IGNORECASE)

# The acts a complaint's apology goes before (not a goodbye, a handover, a clarification, nor an
# answer: the answer itself is the reply).
_SORRY_FIRST = frozenset({Act.ASK, Act.PROPOSE, Act.SUGGEST, Act.CONFIRM, Act.RESUME, Act.NO_OPTIONS, Act.SMALL_TALK,
                          Act.GREET, Act.ONLY_OPTION})
# What may be said beside a value's own verb when it only says yes to it ("ok yeah, cancel it", 好，那就取消吧).
_JUST_A_YES = re.compile(r"\b(?:ok(?:ay)?|yeah|yes|yep|sure|please|just|go ahead|and|then|so|alright|right|it|that|"
                         r"this|the order|my order|do it)\b|好的?|行|对|嗯|那就|那|就|吧|它|这个|订单|帮我|确认")

# Acts that leave an option on the table: a yes to the next turn takes it.
_OFFERS = (Act.PROPOSE, Act.SUGGEST, Act.RESUME, Act.ONLY_OPTION)
# A value settled on, as the answer to its read-back (那就修吧, 就退款吧, 维修就行, "a repair it is"):
# only with the value said again (the turn changes a key read back, to the same value).
_SETTLES_ON = re.compile(r"(?:^|[，,。\s])(?:那就|就)(?!算|不|别|取消|下次|再等|等)[\u4e00-\u9fff]{1,6}(?:吧|了)\W*$|"
                         r"(?<![不别])[\u4e00-\u9fff]{1,6}就(?:行|好|可以)了?\W*$|"
                         r"^\W*(?:ok(?:ay)?,?\s+|alright,?\s+|fine,?\s+)?(?:an? )?\w+ it is\W*$", re.IGNORECASE)


# "Too expensive", "way too far", 太贵了, 有点太远: too much of what the offer is.
_TOO_MUCH = re.compile(r"\btoo\s+\w+|太(?!太)[\u4e00-\u9fff]", re.IGNORECASE)


@dataclass(frozen=True)
class TurnFacts:
    """What the policy knows about the user's turn, from the stages before it."""

    text: str
    language: str = "en"
    turn_class: TurnClass = TurnClass.CHIT_CHAT
    changed: frozenset[str] = frozenset()     # keys this turn set, replaced or withdrew (the domain's own names)
    clarify: str = ""                         # working memory's question back
    memory_say: str | None = None             # long-term memory's own answer
    memory_answer: str | None = None          # an answer from memory to a question about the user or the past
    about_user: bool = False                  # the turn asks about the user or the past
    state_question: StateQuestion | None = None   # the turn asks what the state holds, or what comes next
    option_answer: str = ""                   # the catalogue's answer to a question about the option in view
    # An option the turn asks about by name without choosing it ("羊大爷涮肉坊有位子吗？", "How about
    # Sakura?"): it fits, and is the one to offer.
    asked_option: str = ""
    asked_unfit: tuple[str, ...] = ()    # …that breaks these conditions held: another is offered instead
    # An option offered earlier, gone back to ("还是刚才那家吧"), and the conditions said since that
    # rule it out: they give way to it.
    back_to_unfit: tuple[str, ...] = ()
    refused_options: tuple[str, ...] = ()   # options the turn turns down by name (不要海底捞火锅: every branch)
    asked_option_said: str = ""          # the option asked about, said with its details, while details are missing
    # A request in words the domain does not know (帮我叫辆出租车, "open the sunroof"): nothing the
    # agent can do, and to be told so rather than "I see".
    beyond_the_domain: bool = False
    unnamed_controls: tuple[str, ...] = ()   # a verb said with none of these controls named: which one?
    calls_off: CallOff = CallOff.NONE    # the turn calls the task off ("cancel that", 不订了, 不用了)
    names_said: tuple[str, ...] = ()     # the words that name a catalogue item, as said (海底捞不错 → 海底捞)
    change_asked: str = ""               # a key the turn asks to change without a new value ("can I change the time?")
    # The turn asks for options ("any recommendations?", "is there a Sichuan place?", 有川菜吗): named now,
    # though details are still missing.
    asks_for_options: bool = False


GO_AHEAD_KEY = "go_ahead"
"""ALREADY_DONE's key where the user said yes or go ahead to what is done: it is said back."""
DONE_AGAIN_WITHOUT = "again_without"
"""An ACT's key where a control is done again without what the user just took back (the route without the stop)."""


@dataclass
class Decision:
    """The agent's act for one turn, with what it needs to be said and traced."""

    act: Act
    action: str = ""                     # the domain action it serves ("book")
    key: str = ""                        # ASK: the slot asked for
    option: str = ""                     # PROPOSE: the option's name
    option_item: dict[str, Any] = field(default_factory=dict)   # PROPOSE: the catalogue item
    args: dict[str, Any] = field(default_factory=dict)          # CONFIRM / ACT: the action's arguments
    say: str = ""                        # words the code already has (memory, clarify)
    then: Decision | None = None         # SMALL_TALK, ANSWER, GREET: the task step that follows
    reason: str = ""
    refused: tuple[str, ...] = ()        # options the user turned down this session
    record: str = ""                     # ACT: the tool's record id, once it ran
    rebooks: str = ""                    # CONFIRM / ACT: the record this one changes (cancelled once it is made)
    chosen_by: str = "policy"            # "policy", or the model that chose it (function calling)
    replaces: str = ""                   # PROPOSE: the chosen option a new condition rules out
    unfit: tuple[str, ...] = ()          # PROPOSE: …or the option asked about, and the conditions it breaks
    about: tuple[str, ...] = ()          # ANSWER_STATE: the keys asked about (none: a summary or what is next)
    yours: bool = False                  # ANSWER_STATE: asked as what the user said: answered as theirs
    checks: tuple[tuple[str, Any], ...] = ()   # ANSWER_STATE: a yes/no question's values (yes or no first)
    kept: dict[str, str] = field(default_factory=dict)   # slot → value the user would not drop when nothing fitted

    def steps(self) -> list[Decision]:
        """This decision and those it leads to, in order."""
        out: list[Decision] = []
        step: Decision | None = self
        while step is not None:
            out.append(step)
            step = step.then
        return out

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"act": str(self.act)}
        for name in ("action", "key", "option", "replaces", "say", "reason", "record"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.about:
            out["about"] = list(self.about)
        if self.checks:
            out["checks"] = {k: v for k, v in self.checks}
        if self.args:
            out["args"] = self.args
        if self.refused:
            out["refused"] = list(self.refused)
        if self.kept:
            out["kept"] = dict(self.kept)
        if self.chosen_by != "policy":
            out["chosen_by"] = self.chosen_by
        if self.then is not None:
            out["then"] = self.then.trace()
        return out

    def remembered(self, turn: int) -> AgentAct:
        """What the state keeps of this act, for the next turn's decision."""
        steps = self.steps()
        last = steps[-1]
        if last.act == Act.CLARIFY and last.key != WHICH_CONTROL:
            # A command carried out before the question ("把座椅加热关了，有点热"): the command is
            # what "a bit more" goes on with.
            last = next((s for s in reversed(steps) if s.act == Act.ACT), last)
        return AgentAct(act=str(last.act), turn=turn, first=str(self.act), refused=self.refused, action=last.action,
                        key=last.key, option=last.option, args=last.args, kept=self.kept)


def _unread_request(text: str) -> bool:
    """A command in which nothing was read (调到交通广播, "tune to NPR" where no key takes it): not
    small talk to nod at ("好的。" says it was done), but a request not understood, said so."""
    if not REQUEST.search(text) or ABOUT_THE_TALK.search(text) or ASKS_TO_BE_TOLD.search(text):
        return False
    return not (yes_or_no(text) is not None or GO_AHEAD.search(text) or HOLD_ON.search(text) or NOT_YET.search(text)
                or CLOSING.search(text) or THANKS.search(text) or GREETING.search(text) or sounds_fine(text)
                or ENTERTAIN_ME.search(text) or TO_THE_AGENT.search(text))


def acting_now(step: Decision | None, turn: TurnFacts) -> bool:
    """Whether this turn carries something out or changes what is wanted."""
    return (step is not None and step.act == Act.ACT) or bool(turn.changed)


def _then(step: Decision, last: Decision) -> Decision:
    """`step`, with `last` after every step already chained to it."""
    return replace(step, then=_then(step.then, last) if step.then is not None else last)


def live_values(state: SessionState, schema: DomainSchema) -> dict[str, Any]:
    """key → value of the state's live conditions (a set-valued key → its included values).
    A value "to confirm" (not mentioned for a while, or brought from an earlier session) is
    live: the user said it and has not taken it back. It is read back before an action uses
    it (`stale_keys`), never asked for again."""
    out: dict[str, Any] = {}
    for c in state.constraints.values():
        if schema.key(c.key).multi:
            default = Comparator(schema.key(c.key).default_op)
            # (a key whose values are refused by default carries its refusals: "no beef" goes on the booking)
            if c.comparator == Comparator.INCLUDES or c.comparator == default == Comparator.EXCLUDES:
                # (an action's argument is what it includes; what is refused is marked: "excludes:beef")
                out.setdefault(c.key, []).append(as_member(c.comparator, c.value, Comparator.INCLUDES))
                if default == Comparator.EXCLUDES:
                    out[c.key].sort(key=str)    # (a set of needs, in no order: the same needs read back are the same)
        elif c.comparator in (Comparator.LE, Comparator.GE) and schema.key(c.key).reading.bounds:
            out[c.key] = as_bound(c.comparator, c.value)     # ("after 5 pm": read back and acted on as a bound)
        elif c.comparator in (Comparator.EQ, Comparator.LE, Comparator.GE):
            out[c.key] = c.value
    return out


def stale_keys(state: SessionState) -> frozenset[str]:
    """Keys whose value is held but "to confirm": read back before acting on them."""
    return frozenset(c.key for c in state.constraints.values()
                     if c.status == ConditionStatus.TO_CONFIRM and not c.confirmed)


def _done_with(state: SessionState, action: str) -> ActionDone | None:
    for entry in reversed(state.done):
        if entry.action == action:
            return entry
    return None


class DialoguePolicy:
    """Decides the agent's act from the state, the domain and the turn."""

    def __init__(self, schema: DomainSchema) -> None:
        self.schema = schema

    # --- the task ------------------------------------------------------------------------

    def primary(self) -> ActionSpec | None:
        """The action that finishes the domain's task (book, set the route, open a ticket)."""
        return self.schema.primary_action()

    def args_of(self, action: ActionSpec, values: dict[str, Any]) -> dict[str, Any]:
        """The values the action is done with; not one only another way of doing it needs ("a text is
        easier" after an email was given: the ticket carries the number to text, not the address)."""
        needed_by_what_is_held = {k for key, table in action.needs_when.items()
                                  for k in table.get(str(values.get(key, "")), ())}
        only_otherwise = {k for table in action.needs_when.values() for ks in table.values() for k in ks} \
            - needed_by_what_is_held - set(action.needs)
        return {k: values[k] for k in action.keys if k in values
                and not (k in only_otherwise and any(key in values for key in action.needs_when))}

    def started(self, state: SessionState, values: dict[str, Any], text: str = "",
                changed: frozenset[str] = frozenset()) -> bool:
        action = self.primary()
        if action is None:
            return bool(state.goal)
        done = _done_with(state, action.name)
        asked_since = state.last_act.action == action.name and state.last_act.act in (
            Act.ASK, Act.CONFIRM, Act.ASK_CHANGE, Act.NO_OPTIONS, *_OFFERS)
        # ("What did I book?" names the task and asks about it: it does not ask for it again.)
        asks_again = names_the_task(text, self.schema) and not any(
            asks_for_information(s) or is_query(s) for _, s in sentences_with_offsets(text))
        # (不对，还是订吧 just after 算了不订了: the task taken up again.)
        taken_up = state.last_act.act == Act.CALLED_OFF and state.last_act.action == action.name \
            and bool(GO_AHEAD.search(text)) or bool(text) and self._restates_a_held_value(
                state, action, text, language_of(text))     # ("okay just cancel it then", a cancellation held)
        if done is not None and not done.args and not asks_again and not taken_up \
                and not changed & set(action.keys) and not asked_since:
            # Cancelled or called off ("取消导航", 算了，不订了) and not asked for since: not "where
            # to?" or "shall I book it?" after every aside, though the details are still held.
            return False
        if any(k in values for k in action.keys):
            return True
        # ("Is there a Sichuan place?" named one before any detail: 就这家吧 goes on with the task.)
        return bool(state.goal) or (state.last_act.action == action.name and state.last_act.act in _OFFERS)

    def _done_again_without(self, state: SessionState, undone: ActionSpec, values: dict[str, Any],
                            refused: tuple[str, ...]) -> Decision | None:
        """"Forget about the stop" after the route was set with it: the stop is taken off, and the route
        that carried it is set again without it (its record no longer says the stop)."""
        for action in self.schema.actions.values():
            done = _done_with(state, action.name)
            if action.name == undone.name or action.confirm or done is None or not done.args \
                    or not set(undone.needs) & set(done.args) or not all(k in values for k in action.needs):
                continue
            args = self.args_of(action, values)
            if args != done.args:
                return Decision(Act.ACT, action.name, key=DONE_AGAIN_WITHOUT, args=args, refused=refused,
                                reason=f"{action.name} was done with what the user took back")
        return None

    def _left_behind(self, key: str, turn: TurnFacts, values: dict[str, Any]) -> bool:
        """Whether `key` went because another key it goes with was set this turn (the volume muted
        lets its level go): that command is said, not the level cancelled."""
        return any(other in turn.changed and other in values for other in self.schema.key(key).reading.cleared_by)

    def task_step(self, state: SessionState, turn: TurnFacts, options: list[dict[str, Any]],
                  last: AgentAct, refused: tuple[str, ...],
                  ruled_out: frozenset[str] = frozenset(), relaxable: Sequence[str] = ()) -> Decision | None:
        """The next step of the task, or None when there is nothing to do (not started, or done)."""
        values = live_values(state, self.schema)
        for action in self.schema.actions.values():
            done = _done_with(state, action.name)
            if not action.confirm and done is not None and any(
                    k in turn.changed and k not in values and k in done.args and not self._left_behind(k, turn, values)
                    for k in action.needs):
                # "Cancel the route", 取消导航: what it was done with is taken back, and the car's
                # control with it (a booking, read back and confirmed, is no control to undo here).
                undone = Decision(Act.UNDONE, action.name, args=dict(done.args), refused=refused,
                                  reason="the user took back what it was done with")
                undone.then = self._done_again_without(state, action, values, refused)
                return undone
        primary = self.primary()
        undo = self._undo(state, turn, primary, last, refused) if primary is not None else None
        if undo is not None:
            return undo
        # The car's controls: a value named now is carried out now (the command is the confirmation).
        for action in self.schema.actions.values():
            if action.confirm or not (self._triggers(state, action) & turn.changed):
                continue
            if all(k in values for k in action.needs):
                args = self.args_of(action, values)
                done = _done_with(state, action.name)
                if done is None or done.args != args or self._moved_again(action, turn):
                    step = Decision(Act.ACT, action.name, args=args, reason=f"the user named {action.name}'s value",
                                    refused=refused)
                    other = self._other_immediate(state, turn, values, exclude=action.name, refused=refused)
                    step.then = other
                    return step
        if primary is None or not (self.started(state, values, turn.text, turn.changed)
                                   or WANTS_OPTIONS.search(turn.text) or turn.asks_for_options):
            return None
        action = primary
        missing = [k for k in action.needs if k not in values]
        # (…and what a value said needs: "text me instead" needs a number to text; asked once: a user who
        # goes on without it ("okay, let's do it") is served without it, by the number the account has.
        # "Yep, and my name's Tom" to "what's the best number?" gives none and goes on to nothing: it is
        # asked once more.)
        missing += [k for key, table in action.needs_when.items() for k in table.get(str(values.get(key, "")), ())
                    if k not in values and k not in missing and (
                        not any(a.act == Act.ASK and a.key == k for a in state.acts)
                        or last.act == Act.ASK and last.key == k and (
                            turn.turn_class == TurnClass.CHIT_CHAT
                            or self._yes(turn) is True and not GO_AHEAD.search(turn.text)
                            and sum(a.act == Act.ASK and a.key == k for a in state.acts) < 2))]
        if missing and last.act == Act.ASK and last.key in missing and self._not_decided(turn):
            # "I haven't decided yet": the question waits; ask what else is missing, or nothing.
            others = [k for k in missing if k != last.key]
            if not others:
                return Decision(Act.SMALL_TALK, action.name, key="no_rush", about=(last.key,), refused=refused,
                                reason=f"the user has not decided {last.key} yet and nothing else is missing")
            missing = others
        # (…and "sure" to "could we drop Downtown?": the place that fits now is named.)
        dropped = last.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) and bool(last.key) and last.key not in values
        # (…and "the fancy one please" just after a place was named that is not, or "有没有便宜点的" after one at
        # ¥117 a head: the one that is.)
        offer_ruled_out = last.act in _OFFERS and bool(last.option) \
            and bool(turn.changed) and all(str(o.get("name")) != last.option for o in options)
        if missing and (turn.asks_for_options or dropped or offer_ruled_out) and action.choose \
                and action.choose not in values:
            # "Is there a Sichuan place?" before the day is known: one that fits is named now, and
            # the question still open is asked; once all is known it is the one read back.
            # (Only a place known to be of the kind asked for: 有泰国菜吗 is not answered with a place
            # whose cuisine the catalogue does not say.)
            asked_kinds = [k for k in turn.changed if k in self.schema.kinds_of_option()]
            named = [o for o in options if str(o.get("name")) not in refused
                     and all(all(known_to_meet(o, c) for c in state.find(k)) and (k in o or state.find(k))
                             for k in asked_kinds)]
            if last.act in _OFFERS and last.option and len(named) > 1 and str(named[0].get("name")) == last.option \
                    and _asks_for_another(turn.text):
                named = named[1:]       # "还有别的吗": the next one, not the same one
            if named:
                pick = named[0]
                return Decision(Act.SUGGEST, action.name, key=missing[0], option=str(pick.get("name")),
                                option_item=pick, args=self.args_of(action, values), refused=refused,
                                reason=f"asked for options; {missing[0]} is still needed to {action.name}")
            drop = next(iter(relaxable), "") if not options else next(iter(asked_kinds), "")
            if drop:
                # "Any good Thai places around?" and none is known: said now, not after the day,
                # the time and the party were asked for.
                return Decision(Act.NO_OPTIONS, action.name, key=drop, args=self.args_of(action, values),
                                refused=refused, reason="asked for options of a kind none is known of")
        if missing:
            return Decision(Act.ASK, action.name, key=missing[0], reason=f"{missing[0]} is needed to "
                            f"{action.name} and not known yet", refused=refused)
        args = self.args_of(action, values)
        done = _done_with(state, action.name)
        chosen = str(values.get(action.choose, "")) if action.choose else ""
        if chosen and chosen not in refused and action.choose not in turn.changed and done is None \
                and last.act in (Act.CONFIRM, *_OFFERS) and ANOTHER_PLACE.search(turn.text) and not self._yes(turn) \
                and not (turn.changed - {k for k in turn.changed if self.schema.key(k).reader == Reader.FREE_TEXT}):
            # The place the user named, turned down when read back ("ok maybe somewhere quieter
            # then", "hmm, somewhere else"): another is offered, as for one a condition rules out.
            refused = (*refused, chosen)
            ruled_out = ruled_out | {chosen}
        if chosen and chosen in ruled_out:
            # Booked (or chosen), and a condition said since rules it out: offer what fits instead,
            # or (nothing fits) ask what to relax — never read the ruled-out place back.
            fitting = [o for o in options if str(o.get("name")) not in refused]
            if not fitting:
                drop = next(iter(relaxable), "")
                if last.act == Act.NO_OPTIONS and last.key == drop:
                    return Decision(Act.ASK_CHANGE, action.name, args=args, refused=refused,
                                    reason=f"{chosen} breaks a condition and nothing else fits")
                return Decision(Act.NO_OPTIONS, action.name, key=drop, args=args, refused=refused,
                                reason=f"{chosen} breaks a condition given since, and nothing else fits")
            # (Offered already and answered with something else, 再晚半小时吧: offered again with the
            # new details, never the ruled-out place read back for confirmation.)
            if not (last.act in _OFFERS and last.option == fitting[0].get("name") and self._yes(turn)):
                name = str(fitting[0].get("name"))
                return Decision(Act.PROPOSE, action.name, option=name, option_item=fitting[0],
                                args={**args, action.choose: name}, replaces=chosen, refused=refused,
                                reason=f"{chosen} breaks a condition given since")
        if done is not None and done.args == args:
            # ("ok let's go", 走吧, "yep that's it" once it is done: what stands is said back, so the
            # user hears what was done, not only that something was.)
            return Decision(Act.ALREADY_DONE, action.name, args=args, reason="done, and nothing changed since",
                            refused=refused, key=GO_AHEAD_KEY if self._yes(turn) else "")
        yes = self._yes(turn)
        if action.choose and action.choose not in values:
            before_turn_refused = refused
            if last.act in _OFFERS and last.action == action.name:
                offered = last.option
                # ("ok and actually one more person is coming so make it five": a yes before a change
                # of what was offered agrees to nothing yet; the offer is made again with it.)
                changed_offer = any(k in last.args and last.args.get(k) != args.get(k) for k in turn.changed)
                # ("Korean sounds fun, let's do that" to an Indian place: the yes is to the kind just
                # named, which the offer does not fit; one that does is offered.)
                still_fits = any(str(o.get("name")) == offered for o in options)
                if yes and offered and not changed_offer and (still_fits or not turn.changed):
                    # "Yes" to the offer, which read back every detail: that was the confirmation.
                    return Decision(Act.ACT, action.name, args={**args, action.choose: offered},
                                    reason="the user accepted the offer", refused=refused)
                # "No, make it six": a no that comes with a change corrects the details, not the offer.
                # "Too expensive", 太贵了: a kind of option refused as too much of it turns the offer down too.
                too_much = bool(_TOO_MUCH.search(turn.text)) and any(
                    c.comparator == Comparator.NE for key in turn.changed & self.schema.kinds_of_option()
                    for c in state.find(key))
                answering = self._complaint_answered_by(turn)
                if answering and offered and not state.find(answering):
                    # "That's too far, anything closer?" and no area known: which place is nearer
                    # cannot be judged, so the area is asked for (the offer stays until it is said).
                    return Decision(Act.ASK, action.name, key=answering, refused=refused,
                                    reason=f"{offered} is turned down in words {answering} answers, not known")
                turned_down = REFUSES_OFFER.search(turn.text) or (yes is False and not turn.changed) or too_much \
                    or bool(answering)
                if turned_down and offered and offered not in refused:
                    refused = (*refused, offered)
            fitting = [o for o in options if str(o.get("name")) not in refused]
            offered_item = next((o for o in options if last.act in _OFFERS and last.action == action.name
                                 and str(o.get("name")) == last.option), None)
            if not fitting and offered_item is not None and WANTS_OPTIONS.search(turn.text) \
                    and not any(r == last.option for r in before_turn_refused):
                # "Do you have another option?" and there is none: say the one on offer is the
                # only one that fits (it is not turned down by asking).
                return Decision(Act.ONLY_OPTION, action.name, option=last.option, args=dict(last.args),
                                refused=before_turn_refused, reason="asked for another option; none fits but this one")
            declined = [o for o in options if str(o.get("name")) in refused]
            asked_what_to_change = last.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) and not turn.changed
            if not fitting and declined and (yes or asked_what_to_change):
                # Nothing fits only because the user turned the places down, and they say yes
                # (or change nothing when asked what to change): they may want one after all.
                # Offer the last one turned down again, read back in full, rather than ask
                # what to change round and round.
                name = str(declined[-1].get("name")) if len(declined) == 1 else \
                    next(r for r in reversed(refused) if any(str(o.get("name")) == r for o in declined))
                item = next(o for o in declined if str(o.get("name")) == name)
                return Decision(Act.PROPOSE, action.name, option=name, option_item=item,
                                args={**args, action.choose: name}, refused=tuple(r for r in refused if r != name),
                                reason=f"nothing else fits; {name}, turned down earlier, is offered again")
            if not fitting:
                drop = next(iter(relaxable), "")
                if last.act == Act.NO_OPTIONS and last.key == drop and not turn.changed:
                    return Decision(Act.ASK_CHANGE, action.name, args=args, refused=refused,
                                    reason="nothing fits and the suggested change was not taken")
                return Decision(Act.NO_OPTIONS, action.name, key=drop, args=args, refused=refused,
                                reason="no option fits every condition")
            pick = fitting[0]
            if last.act in _OFFERS and last.option == pick.get("name") \
                    and last.args == {**args, action.choose: pick.get("name")}:
                # Never the same offer twice in a row: asked for options, the next one (or, the
                # only one that fits, say so); otherwise point back to the one on the table.
                if not _asks_for_another(turn.text) or turn.state_question is not None:
                    # ("What do you have for me so far?" asks what is held, not for another place; 有没有推荐的
                    # just after a place was recommended is answered by that place.)
                    recommended = bool(_A_RECOMMENDATION.search(turn.text)) and turn.state_question is None
                    return Decision(Act.RESUME, action.name, option=str(pick.get("name")),
                                    key="recommended" if recommended else "",
                                    args=dict(last.args), refused=refused,
                                    reason="asked what the agent recommends: the one on offer" if recommended
                                    else "the offer is still open and nothing it depends on changed")
                if len(fitting) == 1:
                    return Decision(Act.ONLY_OPTION, action.name, option=str(pick.get("name")),
                                    args=dict(last.args), refused=refused,
                                    reason="the only option that fits is already offered")
                pick = fitting[1]
            name = str(pick.get("name"))
            return Decision(Act.PROPOSE, action.name, option=name, option_item=pick,
                            args={**args, action.choose: name}, reason="every required slot is filled",
                            refused=refused)
        stale = sorted(stale_keys(state) & set(args))
        if action.confirm or stale:
            read_back = last.act in (Act.CONFIRM, *_OFFERS) and last.action == action.name
            # Done before with other details ("push it back an hour" after the booking): a change
            # of what was done, not a second booking beside it.
            # (…not another order's ticket: a different order number is a new ticket, not a change of the one opened)
            # (…nor a second booking asked for after it, "can I also get a table at Sakura": nothing it
            # was done with is still held from then; each value was said again for the new one)
            same_one = done is not None and all(args.get(k) == done.args.get(k) for k in action.needs
                                                if self.schema.key(k).reader == Reader.IDENTIFIER) \
                and (done.turn < 0 or any(c.turn <= done.turn for k in done.args for c in state.find(k)))
            rebooks = done.record if done is not None and done.args and done.record and action.completes \
                and same_one else ""
            if read_back and last.args == args and yes:
                return Decision(Act.ACT, action.name, args=args, reason="the user said yes to the read-back",
                                refused=refused, rebooks=rebooks)
            if read_back and last.args == args and yes is None and turn.changed and turn.changed <= set(args) \
                    and _SETTLES_ON.search(turn.text) and not REFUSES_OFFER.search(turn.text) \
                    and not NOT_YET.search(turn.text):
                # 嗯，那就修吧, "a repair it is" to the read-back of a repair: settled on what was read back.
                return Decision(Act.ACT, action.name, args=args, reason="the user settled on what was read back",
                                refused=refused, rebooks=rebooks)
            added = set(args) - set(last.args)
            if read_back and yes and added and added <= set(action.optional) \
                    and all(args.get(k) == v for k, v in last.args.items()):
                # "ok yeah book it, it's under Maria Lopez": a yes that only adds what the task
                # carries (a name, a phone, a wish) is carried out, the additions said back with it.
                return Decision(Act.ACT, action.name, args=args, refused=refused, rebooks=rebooks,
                                reason="the user said yes, adding details the task only carries")
            if read_back and last.args == args and yes is False:
                return Decision(Act.ASK_CHANGE, action.name, args=args, reason="the user said no to the read-back",
                                refused=refused)
            why = "read back before acting" if not stale else (
                f"read back before acting: {', '.join(stale)} not mentioned for a while (still holds?)")
            return Decision(Act.CONFIRM, action.name, args=args, reason=why, refused=refused, rebooks=rebooks)
        if done is not None:
            # A control the driver did not name this turn is left as it was set.
            return Decision(Act.ALREADY_DONE, action.name, args=dict(done.args),
                            reason="carried out when it was asked for; not asked again", refused=refused)
        return Decision(Act.ACT, action.name, args=args, reason="nothing to confirm", refused=refused)

    def _undo(self, state: SessionState, turn: TurnFacts, primary: ActionSpec, last: AgentAct,
              refused: tuple[str, ...]) -> Decision | None:
        """Cancelling what was done, or calling the task off before it is done.

        A booking or ticket made is read back before it is cancelled ("Shall I cancel the
        booking at Luigi's…?"), as it was before it was made: the cancel is as real as the
        booking. A task under way (asked about, offered or read back before this turn) is called
        off at once: nothing is undone, and it is not pressed again."""
        done = _done_with(state, primary.name)
        if last.act == Act.ASK_UNDO and last.action == primary.name and done is not None and done.args:
            yes = (True if turn.calls_off == CallOff.CANCEL else self._yes(turn)) if not turn.changed else None
            if yes:
                return Decision(Act.UNDONE, primary.name, args=dict(done.args), record=done.record, refused=refused,
                                option=str(done.args.get(primary.choose, "")) if primary.choose else "",
                                reason="the user confirmed the cancel")
            if yes is False and not turn.changed & {*primary.needs, primary.choose}:
                return Decision(Act.ALREADY_DONE, primary.name, args=dict(done.args), key="kept", refused=refused,
                                reason="the user kept what was done")
        if not turn.calls_off or turn.changed & {*primary.needs, primary.choose} \
                or self._restates_a_held_value(state, primary, turn.text, turn.language):
            return None
        if done is not None and done.args and done.record:
            if turn.calls_off != CallOff.CANCEL:
                return None      # "不用了，谢谢" to "anything else?": nothing more, nothing undone
            return Decision(Act.ASK_UNDO, primary.name, args=dict(done.args), record=done.record, refused=refused,
                            reason="the user asked to cancel what was done: read back first")
        if done is not None and not done.args:
            # ("帮我把工单取消吧" just after 不退了: it is off already; said so again, not refused.)
            return Decision(Act.CALLED_OFF, primary.name, refused=refused, reason="the task is already off")
        if last.action == primary.name and last.act in (Act.ASK, Act.CONFIRM, Act.ASK_CHANGE, Act.NO_OPTIONS,
                                                         *_OFFERS):
            return Decision(Act.CALLED_OFF, primary.name, refused=refused,
                            reason="the user called the task off before it was done")
        return None

    @staticmethod
    def _asked_only_in_complaint(decision: Decision, turn: TurnFacts) -> bool:
        """An answer the code has no words for, to a question asked only by the complaint itself
        (你们这什么破服务啊, "why is this taking forever?"): rhetorical, met with the apology alone."""
        if decision.act != Act.ANSWER or decision.say:
            return False
        asked = [s for _, s in sentences_with_offsets(turn.text) if asks_for_information(s) or is_query(s)]
        return bool(asked) and all(COMPLAINT.search(s) for s in asked)

    def _restates_a_held_value(self, state: SessionState, action: ActionSpec, text: str, language: str) -> bool:
        """Whether the words that would call the task off say a value it holds: "ok yeah, cancel
        it" with a cancellation of the order as what is wanted is a yes to that, not the ticket
        called off. (Before anything is done: a cancel after is the cancel of what was done.)"""
        lowered = text.lower()
        done = _done_with(state, action.name)
        if done is not None and done.args:
            return False        # (called off, it is no cancel of what was done: "okay just cancel it then")
        for key in action.needs:
            spec = self.schema.key(key)
            for condition in state.find(key):
                for words in spec.value_words(str(condition.value), language):
                    verb = words.split()[0] if language == "en" else words[:2]
                    if len(verb) < 2 or verb.lower() not in lowered:
                        continue
                    # …and nothing else said but a yes, the verb and what it is done to ("ok yeah cancel
                    # it", 那就取消吧): "cancel it, I'll call the store myself" still calls it off.
                    rest = _JUST_A_YES.sub(" ", lowered.replace(verb.lower(), " "))
                    if not re.sub(r"[\W_]+", "", rest):
                        return True
        return False

    @staticmethod
    def _triggers(state: SessionState, action: ActionSpec) -> set[str]:
        """The keys whose change carries `action` out now: its triggers, and, once it is done,
        any key of its own (a stop added to a route already set changes that route)."""
        return set(action.triggers) | (set(action.keys) if _done_with(state, action.name) is not None else set())

    def _other_immediate(self, state: SessionState, turn: TurnFacts, values: dict[str, Any], *, exclude: str,
                         refused: tuple[str, ...]) -> Decision | None:
        """The other controls named in the same turn, chained ("take me home and make it 21
        degrees", "a stop for petrol, and turn the seat heater off"); the stop added to the route
        is both (the route changes, and the stop is added)."""
        first: Decision | None = None
        for action in reversed(list(self.schema.actions.values())):
            if action.name == exclude or action.confirm or not (self._triggers(state, action) & turn.changed):
                continue
            if all(k in values for k in action.needs):
                args = self.args_of(action, values)
                done = _done_with(state, action.name)
                if done is None or done.args != args or self._moved_again(action, turn):
                    first = Decision(Act.ACT, action.name, args=args, reason=f"the user named {action.name}'s value",
                                     refused=refused, then=first)
        return first

    def _moved_again(self, action: ActionSpec, turn: TurnFacts) -> bool:
        """A control that moves a step per command, commanded again (再往后一点, "quieter still"):
        done again, though its value is the one already set."""
        return any(key in turn.changed and self.schema.key(key).reading.moves for key in action.triggers)

    @staticmethod
    def _not_decided(turn: TurnFacts) -> bool:
        """"I haven't decided yet", said about what was asked (not "not sure, what do you suggest?")."""
        return not turn.changed and bool(NOT_DECIDED.search(turn.text)) and not WANTS_OPTIONS.search(turn.text)

    def _complaint_answered_by(self, turn: TurnFacts) -> str:
        """The key whose complaint words the turn says of the offer ("too far": the area), unless
        it changes anything ("too far, somewhere in Chaoyang"; "closer to 8 maybe" is the time's)."""
        return "" if turn.changed else self.schema.complaint_answered_by(turn.text, turn.language)

    @staticmethod
    def _yes(turn: TurnFacts) -> bool | None:
        """Yes or no to what the agent offered or read back (None: neither)."""
        text = FILLERS.sub("", turn.text)
        # "是周五还是周六来着？", "Is it Friday?": a yes word inside a question answers nothing.
        text = " ".join(s for _, s in sentences_with_offsets(text) if not checks_held(s) and not (
            asks_for_information(s) and not GO_AHEAD.search(s)))
        if not text.strip():
            return None
        if REFUSES_OFFER.search(text):
            return False
        if NOT_YET.search(text):
            return None             # "don't book it yet, let me check with my team": not decided
        if opens_a_question(turn.text):
            # "sounds nice I guess, but is it romantic?", "hmm ok, what kind of food do they do?", 好，那家几点关门？:
            # not decided until answered
            return None
        if YES_WORD_DESCRIBING.search(text):
            return None             # "lovely weather this week" is small talk, not a yes
        answer = yes_or_no(text)
        if (HOLD_ON.search(text) or A_YES_BUT.search(text)) and answer is not False:
            # "yes — hold on, …", "yeah but what about Thai" is no yes yet ("no, wait" is still a no)
            return None
        if answer is None and (GO_AHEAD.search(text) or (sounds_fine(text, turn.names_said) and not turn.changed)):
            return True
        return answer

    # --- the turn ------------------------------------------------------------------------

    def kept_conditions(self, state: SessionState, turn: TurnFacts) -> dict[str, str]:
        """The conditions (slot → value) the user would not drop when nothing fitted, as of this
        turn: asked to drop one, they said it again ("French, I said") or said no. Kept for
        the session, so the agent never asks to drop it again; a new value for the slot, or
        its withdrawal, lets go."""
        last = state.last_act
        held = {slot: str(c.value) for slot, c in state.constraints.items()}
        kept = {slot: value for slot, value in last.kept.items() if held.get(slot) == value}
        asked = last.key if last.act == Act.NO_OPTIONS and last.key in held else ""
        if asked and (state.constraints[asked].key in turn.changed or (not turn.changed and self._yes(turn) is False)):
            kept[asked] = held[asked]
        return kept

    def decide(self, state: SessionState, turn: TurnFacts, options: list[dict[str, Any]],
               relaxable: Sequence[str] = (), ruled_out: frozenset[str] = frozenset()) -> Decision:
        """The act for this turn. `state` is the domain's view of the session (its own key
        names); `options` the catalogue items that fit it, best first; `relaxable` the
        conditions (slots) whose dropping would let options fit, most helpful first."""
        kept = self.kept_conditions(state, turn)
        # (What the user kept is not asked about again, unless only it stands in the way: no option
        # is chinese at all, and "which one could change?" had gone round in circles.)
        decision = self._decide(state, turn, options, [s for s in relaxable if s not in kept] or list(relaxable),
                                ruled_out)
        decision.kept = kept
        sorry_first = decision.act in _SORRY_FIRST or self._asked_only_in_complaint(decision, turn)
        if COMPLAINT.search(turn.text) and sorry_first and not (decision.act == Act.SMALL_TALK and decision.key):
            # "Ugh, this is taking forever": sorry first; then the step as it was (small talk is only the sorry).
            then = decision.then if decision.act in (Act.SMALL_TALK, Act.ANSWER) else decision
            return replace(decision, act=Act.SMALL_TALK, key="sorry", then=then, say="",
                           reason=f"a complaint: sorry first ({decision.reason})")
        return decision

    def _decide(self, state: SessionState, turn: TurnFacts, options: list[dict[str, Any]],
                relaxable: Sequence[str], ruled_out: frozenset[str]) -> Decision:
        last = state.last_act
        refused = tuple(dict.fromkeys((*last.refused, *turn.refused_options)))
        relaxable = [slot for slot in relaxable if slot in state.constraints]
        if turn.back_to_unfit:
            # "太贵了" … "还是刚才那家吧": the place gone back to wins over what ruled it out.
            primary = self.schema.primary_action()
            return Decision(Act.RELAX, primary.name if primary is not None else "", key=turn.back_to_unfit[0],
                            about=turn.back_to_unfit, refused=refused,
                            reason="the user went back to an earlier offer: the conditions said since give way")
        # (Asked to drop Thai, "what else have you got?" says yes: show me what there is; "yes please, and
        # by the window" says yes and adds a wish, which the options are then chosen by too.)
        if last.act == Act.NO_OPTIONS and last.key in state.constraints \
                and state.constraints[last.key].key not in turn.changed \
                and (self._yes(turn) if turn.changed else self._yes(turn) or WANTS_OPTIONS.search(turn.text)):
            return Decision(Act.RELAX, last.action, key=last.key, refused=refused,
                            reason="the user agreed to drop it")
        if turn.clarify:
            clarify = Decision(Act.CLARIFY, say=turn.clarify, reason="misheard or a change to confirm first",
                               refused=refused)
            if turn.unnamed_controls:
                # "Which should I change?": what was said is kept, for the answer ("the fan").
                clarify = replace(clarify, key=WHICH_CONTROL, args={"said": turn.text},
                                  reason=f"a control's verb with no control named: {', '.join(turn.unnamed_controls)}")
            step = self.task_step(state, turn, options, last, refused, ruled_out, relaxable)
            if step is not None and step.act == Act.ACT and step.action in self.schema.actions \
                    and not self.schema.actions[step.action].confirm:
                # "把座椅加热关了，有点热": the command named is carried out; the part to ask about is
                # asked after it, not instead of it.
                return _then(step, clarify)
            return clarify
        if turn.memory_say:
            return Decision(Act.MEMORY, say=turn.memory_say, reason="long-term memory answers this turn",
                            refused=refused)
        text = turn.text.strip()
        if HANDOVER.search(text):
            return Decision(Act.HANDOVER, reason="the user asked for a person", refused=refused)
        refused_before = refused
        step = self.task_step(state, turn, options, last, refused, ruled_out, relaxable)
        if step is not None and step.act in (Act.ASK_UNDO, Act.UNDONE, Act.CALLED_OFF) \
                or step is not None and step.act == Act.ALREADY_DONE and step.key == "kept":
            return step       # "算了，不订了", "cancel that, something came up": whatever else is said
        if step is not None:
            refused = step.refused
            if step.act == Act.SMALL_TALK and turn.state_question is None:
                return step          # "no rush": nothing to ask back to
            if step.act in (Act.PROPOSE, Act.RESUME, Act.CONFIRM, Act.ONLY_OPTION) \
                    and last.act in (Act.CONFIRM, *_OFFERS) and self._not_decided(turn) and turn.state_question is None:
                # "Let me think about it" to an offer: it stays on the table, not pressed again.
                return Decision(Act.SMALL_TALK, step.action, key="no_rush", refused=refused,
                                reason="the user is thinking the offer over")
        asked_action = step.action if step is not None else next(
            (a.name for a in self.schema.actions.values() if turn.change_asked in a.needs), "")
        if turn.change_asked and not turn.changed and asked_action and (step is None or step.act != Act.ACT):
            # "Can I change the time?", "can you set the temperature": what to, asked; the answer is the new value.
            return Decision(Act.ASK, asked_action,
                            key=turn.change_asked, refused=refused,
                            reason=f"the user wants to change {turn.change_asked}")
        wishes_only = bool(turn.changed) and all(self.schema.key(k).reader == Reader.FREE_TEXT for k in turn.changed)
        # (…or a change that keeps the same place on offer: "do they have anything vegetarian? my wife
        # doesn't eat meat" is answered, not only noted.)
        same_offer = step is not None and step.act in (Act.RESUME, Act.PROPOSE, Act.ONLY_OPTION) \
            and bool(last.option) and step.option == last.option
        if turn.option_answer and not (step is not None and step.act == Act.ACT) \
                and (not turn.changed or wishes_only or same_offer):
            # "这家人均多少？": the catalogue says, then back to the offer or the question open.
            then = self._resume(step, last)
            if wishes_only and step is not None:
                then = replace(step, then=None)     # "要安静一点的，有包间吗": the offer read back with the wish
            elif last.act in _OFFERS and last.option and (step is None or step.option != last.option) \
                    and not (turn.asked_option and step is not None and step.option == turn.asked_option):
                # Asking about the place on offer ("有什么推荐菜？") is not turning it down: it stays open.
                then = Decision(Act.RESUME, last.action, option=last.option, args=dict(last.args),
                                reason="the offer asked about stays open")
                refused = refused_before
            return Decision(Act.ANSWER_OPTION, say=turn.option_answer, then=then, refused=refused,
                            reason="a question about the option, answered from the catalogue")
        if turn.asked_unfit and step is not None and step.act in (Act.PROPOSE, Act.RESUME, Act.ONLY_OPTION) \
                and step.option and turn.state_question is None and not turn.option_answer:
            # "厉家菜怎么样？" after 便宜一点: it does not fit; the place that does is offered, saying why.
            return replace(step, act=Act.PROPOSE, replaces=turn.asked_option, unfit=turn.asked_unfit,
                           reason=f"{turn.asked_option}, asked about, breaks {', '.join(turn.asked_unfit)}")
        if turn.asked_option_said and step is not None and step.act == Act.ASK and not turn.option_answer \
                and turn.state_question is None and not turn.changed:
            # "杨大爷算肉芳怎么样？" before the day is known: it can be booked; then the question still
            # open. The question carries the option, so it stays the one on offer once all is known.
            return Decision(Act.ANSWER_OPTION, say=turn.asked_option_said, refused=refused,
                            then=replace(step, option=turn.asked_option),
                            reason=f"{turn.asked_option} asked about while {step.key} is still missing")
        if turn.asked_option and step is not None and step.option == turn.asked_option \
                and step.act in (Act.PROPOSE, Act.SUGGEST, Act.RESUME, Act.ONLY_OPTION) and turn.state_question is None:
            # "羊大爷涮肉坊有位子吗？": the place asked about is offered, read back in full for a yes.
            return step
        if turn.state_question is not None and (step is None or step.act != Act.ACT
                                                or turn.state_question.kind in ("next", "summary", "record", "done")):
            # "Okay, what now?" asks what comes next: answered, and the act waits for a yes to it.
            # Answered from the state (the words are the code's), then back to the task.
            question = turn.state_question
            then = self._resume(step, last)
            if step is not None and step.act == Act.ACT:     # the offer stays open, asked again; nothing done yet
                then = Decision(Act.RESUME, last.action, option=last.option, args=dict(last.args),
                                reason="asked what comes next: the go-ahead is still to come")
            elif question.kind == "next" and then is None and step is not None and step.act != Act.ALREADY_DONE:
                then = replace(step, then=None)     # what comes next is the open question, asked again
            return Decision(Act.ANSWER_STATE, key=question.kind, about=question.keys, yours=question.yours,
                            checks=question.checks, then=then, refused=refused,
                            reason=f"a question about the state ({question.kind}"
                                   f"{': ' + ', '.join(question.keys) if question.keys else ''})")
        if PRESENCE_CHECK.search(text) and re.search(r"\w", text):
            # "Are you there?", 在吗: the agent says it is, then goes on where the task stands.
            return Decision(Act.GREET, key="here", then=self._resume(step, last), refused=refused,
                            reason="asked whether the agent is there")
        asked = [s for _, s in sentences_with_offsets(text)
                 if (asks_for_information(s) or is_query(s)) and not EXCLAMATION.search(s)]
        if ABILITIES_QUESTION.search(text) and not acting_now(step, turn):
            return Decision(Act.SMALL_TALK, key="abilities", then=self._resume(step, last), refused=refused,
                            reason="asked what the agent can do")
        if AGENT_NAME_QUESTION.search(text):
            return Decision(Act.SMALL_TALK, key="name", then=self._resume(step, last), refused=refused,
                            reason="asked the agent's name")
        if (turn.about_user or (asked and turn.memory_answer)) and not TO_THE_AGENT.search(text):
            if turn.memory_answer:
                return Decision(Act.ANSWER_MEMORY, say=turn.memory_answer, then=self._resume(step, last),
                                reason="a question about the user, answered from memory", refused=refused)
            if ABOUT_ME.search(text):
                return Decision(Act.DONT_KNOW, then=self._resume(step, last), reason="memory has nothing on it",
                                refused=refused)
        acting = (step is not None and step.act == Act.ACT) or bool(turn.changed)
        # ("that's everything, submit it", 没别的了，提交吧: the go-ahead, not a goodbye)
        # (行了，就这样，谢谢 once all is done: a goodbye, though 就这样 alone would be a go-ahead)
        if CLOSING.search(text) and not acting and (
                not GO_AHEAD.search(text) or (step is not None and step.act == Act.ALREADY_DONE)):
            # ("that's all thanks" to "shall I book it?": said plainly that it is not done.)
            primary = self.primary()
            unfinished = step is not None and primary is not None and step.action == primary.name \
                and step.act in (Act.PROPOSE, Act.CONFIRM, Act.RESUME, Act.ASK, Act.SUGGEST, Act.ONLY_OPTION,
                                 Act.ASK_CHANGE, Act.NO_OPTIONS) \
                and _done_with(state, primary.name) is None and bool(state.constraints)
            return Decision(Act.CLOSE, key="unfinished" if unfinished else "", refused=refused,
                            reason="the user is leaving" + (", the task not done" if unfinished else ""),
                            action=step.action if step else "")
        drowsy = self.schema.at_the_wheel and bool(DROWSY.search(text))
        if (ENTERTAIN_ME.search(text) or drowsy) and not acting:
            # (讲个笑话呗，开车有点困: not "I see"; a tired driver is told to rest first)
            return Decision(Act.SMALL_TALK, key="drowsy" if drowsy else "entertain",
                            then=self._resume(step, last), reason="asked to be entertained", refused=refused)
        if WEARY.search(text) and not acting and not ENTERTAIN_ME.search(text):
            return Decision(Act.SMALL_TALK, key="weary", then=self._resume(step, last),
                            reason="the user told of a long day", refused=refused)
        if WEATHER.search(text) and not acting and not asked and not self.schema.at_the_wheel \
                and not WANTS_OPTIONS.search(text):
            # (at the wheel, "so hot today" is the cabin's, said to be cooled)
            return Decision(Act.SMALL_TALK, key="weather", then=self._resume(step, last),
                            reason="a remark about the weather", refused=refused)
        if TO_THE_AGENT.search(text) and not acting:
            return Decision(Act.SMALL_TALK, key="how_are_you" if HOW_ARE_YOU.search(text) else "to_me",
                            then=self._resume(step, last),
                            reason="small talk with the agent", refused=refused)
        unseen = self.schema.unseen_answer(text, turn.language)
        # (…and where the question itself set something, "where's my package right now?" (a trace): said
        # first, then what the task needs next; never before a command carried out)
        asks_only = turn.changed and step is not None and step.act in (Act.ASK, Act.CONFIRM, Act.PROPOSE)
        if unseen and (not acting or asks_only) and not WANTS_OPTIONS.search(text) \
                and (asked or (_ASKED.search(text) and not _TAG_QUESTION.search(text))):
            # "对了，你们取消预订要扣钱吗", "by the way, what happens if I cancel on the day?": asked
            # however it is worded (a request's words, a lead-in), and the agent cannot know it.
            return Decision(Act.ANSWER, then=step if asks_only else self._resume(step, last, after_an_answer=True),
                            say=unseen, refused=refused, reason="a question about what the agent cannot see")
        if asked and not WANTS_OPTIONS.search(text) and not ANOTHER_PLACE.search(text) and not acting:
            # (换一家呢, "somewhere else?": asks for another place, no question about the world)
            return Decision(Act.ANSWER, then=self._resume(step, last, after_an_answer=True), say=unseen,
                            refused=refused,
                            reason="a question about what the agent cannot see" if unseen
                            else "a question about the world")
        if turn.beyond_the_domain and not acting and yes_or_no(text) is None and not WANTS_OPTIONS.search(text) \
                and not GO_AHEAD.search(text) and not REFUSES_OFFER.search(text) \
                and not (step is not None and step.act in (Act.PROPOSE, Act.ONLY_OPTION) and last.act in _OFFERS):
            return Decision(Act.CANT_DO, then=self._resume(step, last), refused=refused,
                            reason="asked for something this domain does not do")
        if step is None:
            if GREETING.search(text) or not state.version:
                return Decision(Act.GREET, reason="nothing asked for yet", refused=refused)
            if THANKS.search(text):
                return Decision(Act.CLOSE, reason="thanked, nothing left to do", refused=refused)
            if turn.turn_class == TurnClass.CHIT_CHAT and not _unread_request(text):
                return Decision(Act.SMALL_TALK, reason="small talk, no task under way", refused=refused)
            if state.done and not turn.changed and (yes_or_no(text) is True or GO_AHEAD.search(text)
                                                    or sounds_fine(text)):
                # "ok cool", 好吧, "let's go" after the seat heating went on: a nod, not "what can I do?"
                return Decision(Act.SMALL_TALK, reason="a nod after what was done", refused=refused)
            if turn.changed:
                # "My price range is moderate now": no task yet, but what changed is said back.
                return Decision(Act.GREET, about=tuple(sorted(turn.changed)), refused=refused,
                                reason="a preference noted, no task recognised yet")
            # (Something said, but no task in it: not a second "what can I do for you?")
            return Decision(Act.GREET, key="" if GREETING.search(text) or not text.strip() else "unclear",
                            reason="no task recognised yet", refused=refused)
        if turn.turn_class == TurnClass.CHIT_CHAT and not turn.changed and self._yes(turn) is None \
                and not WANTS_OPTIONS.search(text) and not (last.act in _OFFERS and self._complaint_answered_by(turn)):
            if GREETING.search(text):
                return Decision(Act.GREET, then=self._resume(step, last), reason="a greeting", refused=refused)
            if step.act == Act.ALREADY_DONE and THANKS.search(text) and not GO_AHEAD.search(text):
                return Decision(Act.CLOSE, action=step.action, reason="thanked after the task was done",
                                refused=refused)
            return Decision(Act.SMALL_TALK, then=self._resume(step, last), reason="small talk during the task",
                            refused=refused)
        # ("thanks, go ahead and start the route": a go-ahead beside the thanks hears what stands)
        if step.act == Act.ALREADY_DONE and THANKS.search(text) and not GO_AHEAD.search(text):
            return Decision(Act.CLOSE, action=step.action, reason="thanked after the task was done", refused=refused)
        go_ahead = GO_AHEAD.search(text)
        if step.act == Act.ALREADY_DONE and turn.beyond_the_domain and not turn.changed and yes_or_no(text) is None \
                and (go_ahead is None or asks_beyond(self.schema, text[:go_ahead.start()] + text[go_ahead.end():],
                                                     turn.language)):
            # "你能帮我订个机票吗" after the route was set: not "all done", which it is not ("直接办吧" is
            # a go-ahead, and all is done).
            return Decision(Act.CANT_DO, refused=refused, reason="asked for something this domain does not do")
        return step

    @staticmethod
    def _resume(step: Decision | None, last: AgentAct, *, after_an_answer: bool = False) -> Decision | None:
        """The task step to come back to after small talk or a question — but an offer or a
        read-back the user has not answered is not made again back to back: the agent only
        points back to it."""
        if step is None or step.act == Act.ALREADY_DONE:
            return None
        if after_an_answer and step.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) and last.act == Act.NO_OPTIONS \
                and last.key:
            # ("how far is it from here?" while "could we drop the center?" waits: the answer, then that
            # question once more, so the user knows what is still asked; not after "let me think about it")
            return replace(step, act=Act.NO_OPTIONS, key=last.key, then=None)
        if step.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) and last.act in (Act.NO_OPTIONS, Act.ASK_CHANGE):
            return None          # the question about what to change is still open: not asked again
        if step.act in (Act.PROPOSE, Act.CONFIRM, Act.ONLY_OPTION) \
                and last.act in (Act.CONFIRM, *_OFFERS) and last.args == step.args:
            return replace(step, act=Act.RESUME, then=None, reason="an offer is open: point back, do not repeat it")
        return replace(step, then=None)
