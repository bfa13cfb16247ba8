"""How a decision is said: the policy's own template, and the note that asks a model to word it.

The template is complete and correct on its own — it is what the user hears whenever
the model's wording fails the check (`check.py`), the model is down or too slow. The
note gives a model the act, the facts and the template, so that a strong model words it
better at once and a weak one can fall back on copying it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monologue.dialogue.compose import split_sentences
from monologue.dialogue.policy import DONE_AGAIN_WITHOUT, GO_AHEAD_KEY, Act, Decision
from monologue.memory.domain.catalogue import said_in
from monologue.memory.domain.schema import ActionSpec, DomainSchema, KeySpec, Reader
from monologue.memory.language.phrases import join, say
from monologue.memory.working.render import spoken_condition, spoken_conditions, spoken_value
from monologue.memory.working.state import AgentAct, Comparator, Condition, SessionState, bound_of, member_of

LANGUAGE_NAMES = {"en": "English", "zh": "Chinese (Mandarin, simplified characters)"}


def _conditions(args: Mapping[str, Any], schema: DomainSchema) -> list[Condition]:
    out = []
    for key, value in args.items():
        spec = schema.key(key)
        for one in value if isinstance(value, list) else [value]:
            comparator, one = member_of(one, Comparator.INCLUDES) if spec.multi else bound_of(one)
            out.append(Condition(key, comparator, one, "", 0, multi=spec.multi))
    return out


def spoken_args(args: Mapping[str, Any], schema: DomainSchema, language: str,
                exclude: Sequence[str] = ()) -> str:
    """An action's arguments said aloud: "for 4 people on Saturday at 7 pm"."""
    return spoken_conditions(_conditions({k: v for k, v in args.items() if k not in exclude}, schema),
                             schema, language)


def said_of(action: ActionSpec, args: Mapping[str, Any], schema: DomainSchema, language: str,
            record: str = "") -> str:
    """What was done, in the past tense ("booked Luigi's Trattoria for 4 people on Saturday at 7 pm")."""
    template = action.said.get(language) or action.said.get("en") or f"{action.name} {{details}}"
    named = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    values: dict[str, str] = {"record": record}
    for key in named - {"details", "record"}:
        value = args.get(key)
        if isinstance(value, list):
            values[key] = join([spoken_value(schema.key(key), v, language) for v in value], language)
        else:
            values[key] = "" if value is None else spoken_value(schema.key(key), value, language)
    values["details"] = spoken_args(args, schema, language, exclude=sorted(named))
    text = template.format(**values)
    return re.sub(r"\s+", " ", text).strip(" ,，：:")


@dataclass(frozen=True)
class Wording:
    """Everything a decision is said with, in one language."""

    schema: DomainSchema
    language: str
    details: tuple[str, ...] = ()      # catalogue attributes said with an offered option ("italian, Downtown")

    # --- pieces ---------------------------------------------------------------------------

    def _action(self, decision: Decision) -> ActionSpec | None:
        return self.schema.actions.get(decision.action)

    def _verb(self, decision: Decision) -> str:
        action = self._action(decision)
        return (action.verb.get(self.language) or action.verb.get("en", "")) if action else ""

    def task(self, decision: Decision) -> str:
        return self._task_of(self._action(decision)) or say("policy.task_default", self.language)

    def _stepped(self, key: str) -> KeySpec | None:
        """The level a key of steps only moves (the cabin's temperature for "a degree warmer"), where
        the key is no control of its own (the fan's up and down are)."""
        return None if self.schema.key(key).reading.verb_values else self.schema.level_stepped_by(key)

    def _task_of(self, action: ActionSpec | None) -> str:
        """The action's task in the session's language ("the booking", 订位), or ""."""
        return (action.task.get(self.language) or action.task.get("en", "")) if action else ""

    def question(self, key: str) -> str:
        spec = self.schema.key(key)
        asked = spec.ask.get(self.language) or (spec.ask.get("en") if self.language == "en" else None)
        if asked:
            return asked
        if spec.type == "enum" and spec.values and not spec.multi:
            choices = [spoken_value(spec, v, self.language) for v in list(spec.values)[:3]]
            return say("policy.ask_key", self.language, label=say("policy.or", self.language).join(choices))
        return say("policy.ask_key", self.language, label=spec.label(self.language))

    def about(self, item: Mapping[str, Any]) -> str:
        """An option's details said aloud ("italian, Downtown")."""
        parts = []
        for key in self.details:
            if key in item:
                value = item[key]
                value = said_in(value[0] if isinstance(value, list) else value, self.language)
                parts.append(spoken_value(self.schema.key(key), value, self.language))
        return say("list.comma", self.language).join(parts)

    def what(self, decision: Decision) -> str:
        """A read-back: the chosen option first, then the details."""
        action = self._action(decision)
        chosen = action.choose if action else ""
        details = spoken_args(decision.args, self.schema, self.language, exclude=[chosen] if chosen else [])
        name = str(decision.args.get(chosen, "")) if chosen else ""
        if name and details:
            return f"{name} {details}" if self.language == "en" else f"{name}，{details}"
        return name or details

    # --- the template ----------------------------------------------------------------------

    def template(self, decision: Decision, state: SessionState | None = None, last: AgentAct | None = None,
                 thanked: bool = False, leaving: bool = False, noted: bool = False) -> str:
        """The decision said by the policy alone, with the steps it leads to. `noted`: the
        turn changed something the act does not say back ("Noted." first)."""
        if noted and decision.act in (Act.RESUME, Act.ALREADY_DONE, Act.ONLY_OPTION):
            return say("policy.noted", self.language) + (" " if self.language == "en" else "") + \
                self.template(decision, state, last, thanked, leaving)
        steps = decision.steps()
        acts = [s for s in steps if s.act == Act.ACT]
        if len(acts) > 1 and len(acts) == len(steps):
            # Several controls at once, in one sentence: "Done: I've set the route for home and set
            # the cabin to 20 degrees".
            # A control whose every value another one says is not said twice ("set the route with
            # a stop at a pharmacy", not "… and added a stop at a pharmacy").
            told = [s for s in acts if not any(o is not s and set(s.args) < set(o.args) for o in acts)]
            said = [said_of(self.schema.actions[s.action], s.args, self.schema, self.language, s.record)
                    for s in told if s.action in self.schema.actions]
            # (Chinese says each done as a clause of its own: 车内温度调到23度了，空调已经打开, not 、)
            return say("policy.done", self.language,
                       said=join(said, self.language, "list.and" if self.language == "en" else "list.comma"))
        parts = []
        for i, step in enumerate(steps):
            lead = i == 0 and step.then is not None and step.act == Act.GREET
            parts.append(self._one(step, state, last if i == 0 else None, thanked, leaving, short=lead, noted=noted))
        return (" " if self.language == "en" else "").join(p for p in parts if p)

    def essential(self, decision: Decision, template: str, state: SessionState | None = None) -> str:
        """What must still be said when a model's lead-in has already been spoken: the task
        step a small-talk answer leads to, or the whole template when it is one act."""
        steps = decision.steps()
        if len(steps) == 1 or all(s.act == Act.ACT for s in steps):
            return template
        return self._one(steps[-1], state, None, False, False)

    def stuck(self, d: Decision, state: SessionState | None, short: bool = False) -> str:
        """The same slot asked for again with no progress: what is held, what is missing, the question."""
        lang = self.language
        label = self.schema.key(d.key).label(lang)
        question = self.question(d.key)
        held = list(state.constraints.values()) if state is not None else []
        if short or not held:
            return say("policy.ask_stuck_short", lang, label=label, question=question)
        return say("policy.ask_stuck", lang, what=self._held_said(held), label=label, question=question)

    def _held_said(self, conditions: list[Condition]) -> str:
        """What is held, said as the object of "I have": in the domain's own order ("1450 Harbor
        Boulevard, tomorrow, arriving by 7:30 am", not in the order it was said), and in English
        without a leading preposition ("I have order 739908", "I have a note that it flickers")."""
        order = {key: at for at, key in enumerate(self.schema.keys)}
        what = spoken_conditions(sorted(conditions, key=lambda c: order.get(c.key, len(order))), self.schema,
                                 self.language)
        if self.language == "en":
            what = re.sub(r"^noting ", "a note that ", re.sub(r"^(?:for|with) ", "", what))
        return what

    def _one(self, d: Decision, state: SessionState | None, last: AgentAct | None,
             thanked: bool, leaving: bool, short: bool = False, noted: bool = False) -> str:
        lang = self.language
        if d.act == Act.GREET:
            changed = [c for c in state.constraints.values() if c.key in d.about] if state is not None else []
            if changed:
                return say("policy.noted_what", lang, what=spoken_conditions(changed, self.schema, lang))
            if d.key == "here":
                return say("policy.here_short" if short else "policy.here", lang)
            role = self.schema.role.get(lang) or self.schema.role.get("en", "")
            if d.key == "unclear" and role:
                return say("policy.greet_unclear", lang, role=role)
            return say("policy.greet_short" if short else "policy.greet", lang)
        if d.act == Act.ASK:
            question = self.question(d.key)
            if last is not None and last.act == Act.ASK and last.key == d.key:
                if not noted:
                    # Asked already and nothing moved: change tack, say what is held and what is
                    # still missing, rather than the same question again.
                    return self.stuck(d, state)
                lowered = question[:1].lower() + question[1:] if lang == "en" else question
                # ("几个人？嗯，六个，不对，七个" to the time asked: "好的，7个人。那几点钟合适？", what was taken said)
                said_now = [c for c in state.constraints.values() if c.turn == state.turn and c.turn > 0] \
                    if state is not None else []
                asked_twice = state is not None and len(state.acts) >= 2 and state.acts[-2].act == Act.ASK \
                    and state.acts[-2].key == d.key
                if said_now and asked_twice:
                    return self.stuck(d, state)     # (a third time: what is held, and what is still missing)
                if said_now and len(split_sentences(question, lang)) == 1:
                    # (a question of two sentences keeps them both: the reply says two at most)
                    return say("policy.ask_again_what", lang, what=self._held_said(said_now), question=lowered)
                return say("policy.ask_again", lang, question=lowered)
            return question
        if d.act == Act.SUGGEST:
            # Named while a detail is still missing: the place, then the question still open.
            about = self.about(d.option_item)
            return say("policy.suggest" if about else "policy.suggest_plain", lang, name=d.option, about=about,
                       question=self.question(d.key))
        if d.act == Act.PROPOSE:
            action = self._action(d)
            details = spoken_args(d.args, self.schema, lang, exclude=[action.choose] if action else [])
            about = self.about(d.option_item)
            key = "policy.propose" if about else "policy.propose_plain"
            if d.replaces and d.unfit and state is not None:
                unmet = [state.constraints[k] for k in d.unfit if k in state.constraints]
                return say("policy.propose_fitting" if about else "policy.propose_fitting_plain", lang,
                           name=d.option, about=about, verb=self._verb(d), details=details, old=d.replaces,
                           unmet=spoken_conditions(unmet, self.schema, lang))
            if d.replaces:
                key = "policy.propose_instead"
            elif last is not None and last.act in (Act.PROPOSE, Act.SUGGEST, Act.RESUME, Act.ONLY_OPTION) \
                    and last.option == d.option:
                key = "policy.propose_update"      # the same place, new details: not the same offer again
            return say(key, lang, name=d.option, about=about, verb=self._verb(d), details=details, old=d.replaces)
        if d.act == Act.NO_OPTIONS:
            condition = state.constraints.get(d.key) if state is not None and d.key else None
            held = self._changeable(state)
            if condition is None and last is not None and last.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) \
                    and len(held) > 1:
                return say("policy.ask_which_change", lang, conditions=spoken_conditions(held, self.schema, lang))
            if condition is None:
                return say("policy.no_options_plain", lang)
            spoken = spoken_condition(condition, self.schema, lang)
            if lang == "en" and spoken.startswith("no ") and len(spoken.split()) <= 3:
                # ("could we drop no pork?" says it twice over: "would pork be okay after all?")
                return say("policy.no_options_allow", lang, value=spoken[3:])
            choosing = [c for c in held if c.key in self.schema.kinds_of_option()]
            if lang == "zh" and len(choosing) > 1 and condition in choosing:
                # (海淀有没有川菜馆: "没找到同时满足川菜、海淀区的地方", what was looked for, not "these")
                fits = "、".join(spoken_condition(c, self.schema, lang) for c in choosing)
                return say("policy.no_options_of", lang, fits=fits, conditions=spoken)
            return say("policy.no_options", lang, conditions=spoken)
        if d.act == Act.CONFIRM and d.rebooks:
            return say("policy.confirm_change", lang, what=self.what(d), task=self.task(d))
        if d.act == Act.CONFIRM:
            return say("policy.confirm", lang, what=self.what(d), verb=self._verb(d))
        if d.act == Act.ASK_CHANGE:
            held = self._changeable(state)
            if last is not None and last.act in (Act.NO_OPTIONS, Act.ASK_CHANGE) and len(held) > 1:
                # Asked what to change and answered with no change ("sure", "go ahead"): the
                # same open question again goes round in circles; name the choice instead.
                return say("policy.ask_which_change", lang, conditions=spoken_conditions(held, self.schema, lang))
            return say("policy.ask_change", lang)
        if d.act == Act.ACT:
            action = self._action(d)
            said = said_of(action, d.args, self.schema, lang, d.record) if action else ""
            if d.rebooks:
                return say("policy.done_changed", lang, task=self.task(d), what=self.what(d))
            if d.key == DONE_AGAIN_WITHOUT:
                # (after "I've cancelled the stop": "The route is now for school", no second "Done")
                task = self.task(d)
                return say("policy.now_without", lang, task=task[:1].upper() + task[1:], what=self.what(d))
            return say("policy.done", lang, said=said)
        if d.act == Act.ALREADY_DONE and d.key == "kept":
            return say("policy.kept", lang, task=self.task(d))
        if d.act == Act.ALREADY_DONE and d.key == GO_AHEAD_KEY and (action := self._action(d)) is not None:
            said = said_of(action, d.args, self.schema, lang, d.record)
            if said:
                return say("policy.done_go_ahead", lang, said=said)
        if d.act == Act.ALREADY_DONE:
            return say("policy.already_done", lang)
        if d.act == Act.ASK_UNDO:
            return say("policy.ask_undo", lang, task=self.task(d), what=self.what(d))
        if d.act == Act.UNDONE:
            if d.option:
                return say("policy.undone_at", lang, task=self.task(d), option=d.option)
            return say("policy.undone", lang, task=self.task(d))
        if d.act == Act.CALLED_OFF:
            # (算了，谢谢，再见: called off and leaving, so no "anything else?")
            return say("policy.goodbye_unfinished" if leaving else "policy.called_off", lang,
                       verb=self._verb(d) or self.task(d), welcome="")
        if d.act == Act.ANSWER:
            return d.say or self.schema.not_sure.get(lang) or say("policy.not_sure", lang)
        if d.act == Act.ANSWER_STATE:
            return self.state_answer(d, state)
        if d.act == Act.SMALL_TALK and d.key == "no_rush":
            if d.about:
                return say("policy.no_rush", lang, label=self.schema.key(d.about[0]).label(lang))
            return say("policy.take_your_time", lang)
        role = self.schema.role.get(lang) or self.schema.role.get("en", "")
        if d.act == Act.SMALL_TALK and d.key == "abilities":
            return say("policy.my_abilities", lang, role=role)
        if d.act == Act.SMALL_TALK and d.key == "entertain":
            return say("policy.not_an_entertainer", lang, role=role)
        if d.act == Act.SMALL_TALK:
            return say({"name": "policy.my_name", "drowsy": "policy.rest_if_drowsy",
                        "to_me": "policy.small_talk_to_me", "sorry": "policy.sorry",
                        "again": "policy.small_talk_again",
                        "how_are_you": "policy.how_am_i",
                        "weary": "policy.weary_driving" if self.schema.at_the_wheel else "policy.weary",
                        "weather": "policy.weather",
                        }.get(d.key, "policy.small_talk"), lang)
        if d.act == Act.RESUME and d.rebooks:
            # (a change of what was done waits: "Shall I go ahead and change the ticket?", not open another)
            return say("policy.resume_change", lang, task=self.task(d))
        if d.act == Act.RESUME and d.key == "recommended" and d.option:
            # (有没有推荐的 just after one was recommended: that one, named again)
            action = self._action(d)
            return say("policy.recommended", lang, option=d.option, verb=self._verb(d) or self.task(d),
                       details=spoken_args(d.args, self.schema, lang, exclude=[action.choose] if action else []))
        if d.act == Act.RESUME:
            # (Chinese says the verb: 要我接着提交工单吗, not 要我继续工单吗.)
            return say("policy.resume", lang, task=self.task(d), verb=self._verb(d) or self.task(d))
        if d.act == Act.ONLY_OPTION:
            return say("policy.only_option", lang, task=self.task(d), verb=self._verb(d) or self.task(d))
        if d.act == Act.DONT_KNOW:
            return say("policy.dont_know", lang)
        if d.act == Act.HANDOVER:
            return say("policy.handover", lang)
        if d.act == Act.CANT_DO:
            return say("policy.cant_do" if role else "policy.cant_do_plain", lang, role=role)
        if d.act == Act.CLOSE:
            if d.key == "unfinished":
                return say("policy.goodbye_unfinished", lang, verb=self._verb(d) or self.task(d),
                           welcome=say("policy.welcome_lead", lang) if thanked else "")
            if thanked and leaving:
                return say("policy.welcome_goodbye", lang)
            return say("policy.welcome" if thanked else "policy.goodbye", lang)
        return d.say        # CLARIFY, MEMORY, ANSWER_MEMORY, ANSWER_OPTION: the code's own words

    def _changeable(self, state: SessionState | None) -> list[Condition]:
        """The conditions that decide which options fit, to name when asking which could change:
        not the place chosen nor a wish in the user's words (they only rank the options)."""
        held = list(state.constraints.values()) if state is not None else []
        chosen = {a.choose for a in self.schema.actions.values() if a.choose}
        return [c for c in held if c.key not in chosen and self.schema.key(c.key).reader != Reader.FREE_TEXT] or held

    def _last_done_said(self, state: SessionState | None) -> str:
        """What the agent last did, as it said it ("set the route for the airport"), or ""."""
        done = next((entry for entry in reversed(state.done) if entry.action in self.schema.actions),
                    None) if state is not None else None
        return (done.said.get(self.language) or done.said.get("en", "")) if done is not None else ""

    def done_again(self, state: SessionState | None) -> str:
        """What was done, said again ("Nothing more is needed: I've set the route for the
        airport."), or "" where nothing was: for "let's go" said twice, not "that's all set" twice."""
        said = self._last_done_said(state)
        return say("state_answer.next_done", self.language, said=said) if said else ""

    def _done_or_not(self, state: SessionState | None) -> str:
        """"Is it booked?": yes, with what was done; or not yet (the step that follows asks on)."""
        lang = self.language
        said = self._last_done_said(state)
        if said:
            return say("state_answer.yes_done", lang, said=said)
        return say("state_answer.not_done", lang, task=self._task_of(self.schema.primary_action()))

    def state_answer(self, d: Decision, state: SessionState | None) -> str:
        """A question about the task answered from the state in one sentence: the slots asked
        about, everything so far, or what comes next (the step that follows is said after it)."""
        lang = self.language
        conditions = list(state.constraints.values()) if state is not None else []
        if d.key == "summary":
            # ("What did I book?": what was done, or taken back, first; then what is held, if
            # it is not just what was done.)
            primary = self.schema.primary_action()
            # (A booking or a ticket, read back before it was made; a car's route is one setting among others.)
            done = next((entry for entry in reversed(state.done) if primary is not None and primary.completes
                         and primary.confirm and entry.action == primary.name), None) if state is not None else None
            said = (done.said.get(lang) or done.said.get("en", "")) if done is not None else ""
            done_said = say("state_answer.done", lang, said=said) if said else ""
            if not conditions:
                return done_said or say("state_answer.nothing_yet", lang)
            if done_said and done is not None and done.args:
                return done_said
            so_far = say("state_answer.summary", lang, what=self._held_said(conditions))
            # ("what have you got so far?" with a place on offer: that it is on offer, not chosen yet)
            on_offer = state.last_act.option if state is not None and not done_said and state.last_act.act in (
                Act.PROPOSE, Act.SUGGEST, Act.RESUME, Act.ONLY_OPTION) and primary is not None and primary.choose \
                and not state.find(primary.choose) else ""
            if on_offer:
                so_far = so_far.rstrip(".。") + say("state_answer.on_offer", lang, option=on_offer)
            return f"{done_said}{say('clause.join', lang)}{so_far}" if done_said else so_far
        if d.key == "next":
            return self._next(d, state)
        if d.key == "done":
            return self._done_or_not(state)
        if d.key == "record":
            done = next((entry for entry in reversed(state.done) if entry.record), None) if state is not None else None
            if done is None:
                task = self._task_of(self.schema.primary_action())
                return say("state_answer.no_record", lang, task=task) if task \
                    else say("state_answer.nothing_yet", lang)
            action = self.schema.actions.get(done.action)
            return say("state_answer.record", lang, task=self._task_of(action), record=done.record)
        parts = []
        # ("what did you put down for the callback?": "the callback time is tomorrow after 3 pm", the
        # day said with the time it is the day of)
        day_of = {self.schema.key(k).day_of: [c for c in conditions if c.key == k] for k in d.about
                  if self.schema.key(k).day_of in d.about}
        for key in d.about:
            spec = self.schema.key(key)
            held = [c for c in conditions if c.key == key]
            label = spec.label(lang)
            if spec.day_of in day_of and (not held or any(c.key == spec.day_of for c in conditions)):
                continue        # (said with its time below; no day held is not missing)
            if day_of.get(key) and held:
                parts.append(say("state_answer.is", lang, label=label,
                                 value=spoken_conditions(day_of[key] + held, self.schema, lang)))
                continue
            offered = [o.values[key] for o in (state.offered if state is not None else []) if o.values.get(key)]
            if not held and offered:
                # "What's the restaurant called?" before it is chosen: the one just suggested.
                parts.append(say("state_answer.offered", lang, label=label,
                                 value=spoken_value(spec, offered[-1] if len(offered) == 1 else offered[0], lang)))
            elif not held:
                # A control nobody has touched is not missing: it is as it was.
                parts.append(say("state_answer.untouched" if spec.reading.verb_values else "state_answer.missing",
                                 lang, label=label))
            elif len(held) == 1 and (level := self._stepped(key)) is not None:
                # "What's the temperature?" after "a bit warmer": the step taken, not a number nobody said.
                parts.append(say("state_answer.stepped", lang, what=spoken_condition(held[0], self.schema, lang),
                                 label=level.label(lang)))
            elif len(held) == 1 and held[0].comparator == Comparator.EQ and spec.reading.verb_values and lang != "en":
                parts.append(spoken_condition(held[0], self.schema, lang))    # 车窗打开, not 车窗是打开
            elif len(held) == 1 and held[0].comparator == Comparator.EQ:
                value = spoken_value(spec, held[0].value, lang)
                # ("the windows are partway down": a label said in the plural)
                plural = lang == "en" and label.endswith("s") and not label.endswith("ss")
                parts.append(say("state_answer.yours" if d.yours else "state_answer.are" if plural
                                 else "state_answer.is", lang, label=label, value=_with_unit(spec, value, lang)))
            elif all(spec.phrase(c.comparator, lang) for c in held) and parts:
                # ("The destination is the airport, with a stop at the office": the key's own
                # phrase says what it is; "for the stops: with a stop at…" said it twice.)
                parts[-1] += say("list.comma", lang) + spoken_conditions(held, self.schema, lang)
            elif all(spec.phrase(c.comparator, lang) for c in held):
                parts.append(spoken_conditions(held, self.schema, lang))
            else:
                parts.append(say("state_answer.has", lang, label=label,
                                 conditions=spoken_conditions(held, self.schema, lang)))
        answer = _sentence(join(parts, lang, "state_answer.join"), lang)
        verdict = self._checked(d, conditions)
        if verdict is None:
            return answer
        # "Is it for four?" — "Yes: the party size is 4." / "No: the party size is 6."
        return say("state_answer.yes" if verdict else "state_answer.no", lang, answer=_lower_first(answer, lang))

    def _checked(self, d: Decision, conditions: list[Condition]) -> bool | None:
        """Whether the values a yes/no question checks are the ones held (None: not a yes/no
        question, a key it checks holds nothing, or holds a part of the value asked: "are the
        windows open?" with them partway down is answered with what they are)."""
        if not d.checks:
            return None
        verdicts = []
        for key, value in d.checks:
            held = [c.value for c in conditions if c.key == key]
            refines = self.schema.key(key).refines if self.schema.knows(key) else {}
            if not held or any(str(value) in refines.get(str(h), ()) for h in held):
                return None
            verdicts.append(any(_same_value(h, value) for h in held))
        return all(verdicts)

    def _next(self, d: Decision, state: SessionState | None) -> str:
        lang = self.language
        step = d.then
        if step is None:
            done = state.done[-1] if state is not None and state.done else None
            if done is not None:
                said = done.said.get(lang) or done.said.get("en", "")
                return say("state_answer.next_done", lang, said=said) if said else say("policy.already_done", lang)
            return say("state_answer.next_none", lang)
        if step.act == Act.ASK:
            label = self.schema.key(step.key).label(lang)
            return say("state_answer.next_ask", lang, label=label, verb=self._verb(step))
        if step.act in (Act.NO_OPTIONS, Act.ASK_CHANGE):
            return say("state_answer.next_change", lang)
        return say("state_answer.next_yes", lang, verb=self._verb(step), what=self.what(step))

    # --- the note for a model ----------------------------------------------------------------

    def note(self, decision: Decision, template: str, facts: Sequence[str] = ()) -> str:
        """What the reply model is asked to say: the act in a few words, the facts, the template."""
        language = LANGUAGE_NAMES.get(self.language, self.language)
        # The system prompt already asks for one or two short sentences; each word here is
        # evaluated on every turn, before the model's first token.
        lines = [f"Planner: reply in {language}."]
        if decision.act == Act.ANSWER:
            # Only where the model answers from them: elsewhere a small model reads facts back
            # ("You want a vegetarian option at …") instead of saying the step.
            lines += [f"Fact: {fact}" for fact in facts]
        purpose = _PURPOSE.get(decision.act, "")
        if decision.act == Act.ANSWER:
            lines.append(f"{purpose} If the facts do not say, say you are not sure. "
                         f"Then: {self._after(decision, template)}".rstrip(": "))
        elif purpose:
            lines.append(purpose)
        lines.append(f"Say this in your own words: {template}")
        return "\n".join(lines)

    def _after(self, decision: Decision, template: str) -> str:
        if decision.then is None:
            return ""
        return self._one(decision.then, None, None, False, False)


def _same_value(held: Any, asked: Any) -> bool:
    if isinstance(held, (int, float)) and isinstance(asked, (int, float)) and not isinstance(held, bool):
        return float(held) == float(asked)
    return str(held).casefold() == str(asked).casefold()


def _lower_first(text: str, language: str) -> str:
    """The answer after "Yes:", its first letter lowered (a name keeps its capital)."""
    if language != "en" or not text or not text[0].isupper() or text[:2].isupper():
        return text
    first = text.split(" ", 1)[0]
    return text if first in ("I", "I'm", "I've") else text[0].lower() + text[1:]


def _with_unit(spec: KeySpec, value: str, language: str) -> str:
    """A number said with what it counts: "5 people" (the key's `heard`), "$65.50", "22 degrees", 22摄氏度."""
    heard = spec.heard.get(language)
    if heard:
        return heard.format(value=value)
    units = spec.reading.units.get(language, ())
    if not units or spec.type not in ("int", "money"):
        return value
    unit = units[0]
    if unit[:1] in "$£€¥":
        return f"{unit}{value}"
    return f"{value} {unit}" if language == "en" else f"{value}{unit}"


def _sentence(text: str, language: str) -> str:
    """Parts joined into one sentence: a capital first in English, the full stop of the language."""
    if not text:
        return text
    if language == "en":
        return text[:1].upper() + text[1:] + "."
    return text + "。"


_PURPOSE: dict[Act, str] = {
    Act.GREET: "Greet the user.",
    Act.ASK: "Ask exactly this one question, nothing else.",
    Act.PROPOSE: "Offer this one option and ask whether to go ahead.",
    Act.SUGGEST: "Name this one option, then ask the question still open.",
    Act.NO_OPTIONS: "Say nothing fits and ask which condition could be relaxed.",
    Act.CONFIRM: "Read the details back and ask for a yes before acting.",
    Act.ASK_CHANGE: "Ask what the user wants to change.",
    Act.ACT: "Say it is done, with the details.",
    Act.ALREADY_DONE: "Say it is already done and ask if there is anything else.",
    Act.ANSWER: "Answer the user's question briefly from the facts.",
    Act.ANSWER_STATE: "Answer the user's question about the task from these details.",
    Act.ANSWER_OPTION: "Answer the user's question about the place from these details.",
    Act.SMALL_TALK: "Answer the small talk warmly in a few words.",
    Act.RESUME: "Ask whether to go ahead.",
    Act.ONLY_OPTION: "Say it is the only option that fits and ask whether to go ahead.",
    Act.HANDOVER: "Say you are passing the user to a colleague.",
    Act.CANT_DO: "Say briefly that you cannot do what was asked, and what you can help with.",
    Act.CLOSE: "Say goodbye warmly.",
}
