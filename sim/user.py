"""The agenda-based simulated user: a goal, and a reaction to each thing the agent says.

Each turn the user reads the reply (`reading.py`), then, in this order: gives up past its
patience; says goodbye once the task is done and nothing is left; makes a change or takes a
value back when it falls due; corrects a read-back that is wrong; answers the key asked
(sometimes not yet); takes or turns down an offer; says yes to a right read-back or a yes/no
question; asks about the task's state, makes small talk or mentions a preference the domain
has no key for when those fall due; else volunteers what it has not said, or asks to go ahead.
Every turn carries what the user meant (`UserTurn.meant`), for scoring only: the agent never
sees it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from monologue.sim.domain import SimDomain
from monologue.sim.goals import Goal, GoalSlot
from monologue.sim.phrasing import PhrasingBank, corpus_share, fill
from monologue.sim.reading import AgentMove, ReplyReader
from monologue.sim.values import EN_NUMBERS, say, zh_number


@dataclass
class Meant:
    """What a user turn meant, in the goal's terms (the score's view, never the agent's)."""

    act: str
    informs: dict[str, Any] = field(default_factory=dict)      # key → value said this turn
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)   # key → (old, new)
    accept: dict[str, tuple[Any, ...]] = field(default_factory=dict)    # key → final values that read it right
    withdrawn: list[str] = field(default_factory=list)
    state_question: str = ""                                   # a key, "next" or "summary"
    expected: tuple[Any, ...] = ()                             # what a right answer to it names
    stale: tuple[Any, ...] = ()                                # what it must not give as current (replaced)
    ends: bool = False


@dataclass
class UserTurn:
    text: str
    meant: Meant


class SimulatedUser:
    def __init__(self, goal: Goal, domain: SimDomain, bank: PhrasingBank, rng: random.Random) -> None:
        self.goal = goal
        self.domain = domain
        self.bank = bank
        self.rng = rng
        self.language = goal.language
        self.reader = ReplyReader(domain, goal.language, bank.enum_words)
        self.turn = 0
        self.current: dict[str, Any] = {}            # key → what the user now wants, once said
        self.accepted: dict[str, tuple[Any, ...]] = {}
        self.given_at: dict[str, int] = {}
        self.said: dict[str, list[Any]] = {}         # key → every value the user said
        self.old: dict[str, list[Any]] = {}          # key → values it no longer wants
        self.changed: set[str] = set()
        self.withdrawn: set[str] = set()
        self.not_yet: set[str] = set()               # keys it said it has not decided (once each)
        self.offers_rejected = 0
        self.done_seen = 0
        self.questions = list(goal.state_questions)
        self.small_talk = list(goal.small_talk_turns)
        self.unknown_left = goal.unknown_preferences
        self.asked_next = False
        self.go_aheads = 0
        self.cancelled: set[str] = set()                 # changes never made: the task was done first
        self.last_reply, self.same_replies = "", 0
        self.withdrawals_said: Counter[str] = Counter()   # key → how often the user has taken it back
        self.answered_with: dict[str, str] = {}          # key → how this user last answered a question for it
        self.done_with: dict[str, dict[str, Any]] = {}   # action → the values it was said to be done with
        self.ended = False
        self.moves: list[AgentMove] = []

    # --- saying things ---

    def _surface(self, key: str, value: Any) -> str:
        return say(self.goal.slots[key].kind if key in self.goal.slots else self.domain.keys[key].type, value,
                   self.language, self.rng, today=self.goal.today_date(), words=self.bank.enum_words.get(key))

    def _label(self, key: str) -> str:
        return self.domain.keys[key].label(self.language)

    def _template(self, family: str, key: str = "") -> str:
        kind = self.domain.keys[key].type if key in self.domain.keys else ""
        if key in self.bank.clause_keys:
            kind = "clause"          # a whole statement ("my dad uses a wheelchair"): no noun frame around it
        return self.bank.pick(family, self.rng, key=key, kind=kind, corpus_keys={key} if key else set())

    def _informs(self, keys: list[str], family: str = "inform") -> str:
        """One turn giving `keys`: a corpus turn with exactly those keys when there is one, else parts."""
        values = {k: self._surface(k, self.current[k]) for k in keys}
        exact = self.bank.corpus_for(family, set(keys))
        if exact and self.rng.random() < corpus_share(len(exact)):
            return fill(exact_fix(self.rng.choice(exact).text, keys, self.domain), values)
        parts = []
        if family == "intent":
            parts.append(fill(self.bank.pick("intent", self.rng, corpus_keys=set()), {"task": self._task()}))
        rest = list(keys)
        while rest:
            subsets = [t for t in self.bank.corpus.get("inform", []) if len(t.slots) > 1 and set(t.slots) <= set(rest)]
            if subsets and self.rng.random() < 0.5:
                chosen = self.rng.choice(subsets)
                parts.append(fill(exact_fix(chosen.text, list(chosen.slots), self.domain), values))
                rest = [k for k in rest if k not in chosen.slots]
                continue
            key = rest.pop(0)
            template = self._template("inform", key)
            parts.append(fill(exact_fix(template, [key], self.domain),
                              {**values, "VALUE": values[key], "label": self._label(key)}))
        return " ".join(p for p in parts if p)

    def _task(self) -> str:
        return {"en": self.domain.name.replace("_", " "), "zh": self.domain.name}.get(self.language, self.domain.name)

    def _with_hesitation(self, text: str) -> str:
        if not text or self.rng.random() >= self.goal.hesitation:
            return text
        family = "restart" if self.rng.random() < 0.25 else "hesitate"
        prefix = fill(self.rng.choice(self.bank.family(family) or [""]), {})
        if self.language == "en" and prefix and text[:1].isupper() and not text.startswith("I "):
            text = text[:1].lower() + text[1:]
        return (prefix + (" " if prefix and not prefix.endswith((" ", "，", "，", "—")) else "") + text).strip()

    def _give(self, key: str) -> None:
        slot = self.goal.slots[key]
        if key not in self.current:
            self.current[key] = slot.value
            self.accepted[key] = (slot.value,)
            self.given_at[key] = self.turn
        self.said.setdefault(key, [])
        if self.current[key] not in self.said[key]:
            self.said[key].append(self.current[key])

    # --- the turn ---

    def opening(self) -> UserTurn:
        """The first thing the user says: what it wants, with the values it volunteers."""
        self.turn = 1
        keys = [k for k, s in self.goal.slots.items() if s.volunteer][:3]
        for key in keys:
            self._give(key)
        if keys:
            text = self._informs(keys, "intent")
        else:
            text = fill(self.bank.pick("intent", self.rng), {"task": self._task()})
        return UserTurn(self.bank.idiomatic(self._with_hesitation(text)),
                        Meant("intent", informs={k: self.current[k] for k in keys},
                              accept={k: self.accepted[k] for k in keys}))

    def respond(self, reply: str) -> UserTurn:
        self.turn += 1
        move = self.reader.read(reply, self.current, self.goal.today_date(), self.old)
        self.moves.append(move)
        turn = self._decide(move)
        turn.text = self._with_hesitation(turn.text) if turn.meant.act not in ("bye", "giveup") else turn.text
        turn.text = self.bank.idiomatic(turn.text)
        self.ended = turn.meant.ends
        return turn

    def _left_to_say(self) -> list[str]:
        return [k for k in self.goal.slots if k not in self.current and k not in self.withdrawn]

    def _needs(self, action: str) -> list[str]:
        spec = self.domain.actions.get(action)
        return [k for k in (spec.needs if spec else ()) if k in self.goal.slots]

    def _believes_done(self) -> bool:
        """Every action of the goal was said to be done, with what the user wants now."""
        return all(self.done_with.get(a) == {k: self.current.get(k) for k in self._needs(a)} for a in self.goal.actions)

    def _pending_changes(self) -> list[str]:
        return [k for k, s in self.goal.slots.items() if k not in self.cancelled and (
                (s.change is not None and k in self.current and k not in self.changed)
                or (s.withdraw_after and k in self.current and k not in self.withdrawn))]

    def _decide(self, move: AgentMove) -> UserTurn:
        if self.turn > self.goal.patience or self.go_aheads >= 3:
            return UserTurn(fill(self._template("giveup"), {}), Meant("giveup", ends=True))
        if move.done and not any(right is False for right in move.read_back.values()):
            self.done_seen += 1
            for action in self.goal.actions:
                needs = self._needs(action)
                if not needs or any(move.read_back.get(k) for k in needs):
                    self.done_with[action] = {k: self.current.get(k) for k in needs}
        nothing_left = not self._left_to_say()
        if self._believes_done():
            self.cancelled |= set(self._pending_changes())    # done as wanted: no second thoughts
        # A change still to come is made before the user says yes to a read-back or an offer.
        now = nothing_left and (move.yes_no or move.offer)
        for key, slot in self.goal.slots.items():
            if key in self.cancelled:
                continue
            if self._change_due(key, slot, now=now):
                return self._change(key, slot)
            if slot.withdraw_after and key in self.current and key not in self.withdrawn and (
                    self.turn - self.given_at[key] >= slot.withdraw_after or now):
                return self._withdraw(key)
        if move.text.strip() and move.text.strip() == self.last_reply:
            self.same_replies += 1
        else:
            self.same_replies = 0
        self.last_reply = move.text.strip()
        if self.same_replies >= 3:
            return UserTurn(fill(self._template("giveup"), {}), Meant("giveup", ends=True))
        if nothing_left and self._believes_done():
            askable = [q for q in self.questions if q.key in self.current or q.key in ("next", "summary")]
            if askable and self.rng.random() < 0.5:
                self.questions.remove(askable[0])
                return self._state_question(askable[0].key)
            return UserTurn(fill(self.bank.pick("bye", self.rng), {}), Meant("bye", ends=True))
        relax = [k for k in move.relax if k in self.current and k not in self.changed]
        if relax:
            # Nothing fits, and the agent asks to give a value up: this user agrees (it could not
            # be had anyway); what they agreed to drop is no longer theirs to lose.
            key = relax[0]
            self.withdrawn.add(key)
            self.old.setdefault(key, []).append(self.current.pop(key))
            return UserTurn(fill(self.bank.pick("affirm", self.rng), {}), Meant("affirm", withdrawn=[key]))
        wrong = [k for k, right in move.read_back.items() if not right and k in self.current]
        if wrong:
            return self._correct(wrong[0], move)
        taken_back = [k for k, right in move.read_back.items()
                      if not right and k in self.withdrawn and k not in self.current and self.withdrawals_said[k] < 3]
        if taken_back:
            return self._withdraw_again(taken_back[0])
        scheduled = self._scheduled()
        if scheduled is not None and (not move.question or self.rng.random() < 0.35):
            return scheduled
        asked = [k for k in move.asked if k in self.goal.slots and k not in self.withdrawn]
        if asked:
            return self._answer(asked[0])
        if move.asked and not move.offer:       # a key the user does not care about
            return UserTurn(fill(self._template("dont_know"), {}), Meant("no_preference"))
        left = self._left_to_say()
        if move.offer and self.goal.choose and self.offers_rejected < self.goal.reject_offers:
            self.offers_rejected += 1
            return UserTurn(fill(self.bank.pick("reject_offer", self.rng), {}), Meant("reject_offer"))
        if move.offer and self.goal.choose and not left:
            return UserTurn(fill(self.bank.pick("accept_offer", self.rng), {}), Meant("accept_offer"))
        if move.question and (move.yes_no or move.read_back) and not left:
            return UserTurn(fill(self.bank.pick("affirm", self.rng), {}), Meant("affirm"))
        if scheduled is not None:
            return scheduled
        if left:
            keys = left[:1] + ([k for k in left[1:2]] if self.rng.random() < 0.3 else [])
            for key in keys:
                self._give(key)
            return UserTurn(self._informs(keys), Meant("inform", informs={k: self.current[k] for k in keys},
                                                       accept={k: self.accepted[k] for k in keys}))
        if not self.asked_next:
            self.asked_next = True
            return self._state_question("next")
        self.go_aheads += 1
        return UserTurn(fill(self._template("go_ahead"), {}), Meant("go_ahead"))

    def _change_due(self, key: str, slot: GoalSlot, now: bool = False) -> bool:
        return (slot.change is not None and key in self.current and key not in self.changed
                and (now or self.turn - self.given_at[key] >= slot.change.after_turns))

    def _change(self, key: str, slot: GoalSlot) -> UserTurn:
        assert slot.change is not None
        change = slot.change
        old = self.current[key]
        self.changed.add(key)
        self.old.setdefault(key, []).append(old)
        self.current[key], self.accepted[key] = change.new, change.accept
        self.said[key].append(change.new)
        delta = zh_number(change.delta) if self.language == "zh" else (
            EN_NUMBERS[change.delta] if change.delta < len(EN_NUMBERS) else str(change.delta))
        values = {"old": self._surface(key, old), "new": self._surface(key, change.new), "label": self._label(key),
                  "delta": delta, "VALUE": self._surface(key, change.new)}
        template = self._template(change.family, key)
        if not template:
            template = self._template("change_abs", key)
        return UserTurn(fill(template, values), Meant(f"change_{change.style}", changes={key: (old, change.new)},
                                                      accept={key: change.accept}))

    def _withdraw(self, key: str) -> UserTurn:
        self.withdrawn.add(key)
        value = self.current.pop(key)
        self.old.setdefault(key, []).append(value)
        return self._withdraw_again(key)

    def _withdraw_again(self, key: str) -> UserTurn:
        """Says that `key` is taken back: first when it is, then whenever the agent reads the
        value back as if it held (a person says so again, not yes)."""
        self.withdrawals_said[key] += 1
        value = self.old[key][-1]
        text = fill(self._template("withdraw", key), {"label": self._label(key), "VALUE": self._surface(key, value)})
        return UserTurn(text, Meant("withdraw", withdrawn=[key]))

    def _correct(self, key: str, move: AgentMove) -> UserTurn:
        heard = self.reader.typed_values(move.text, key, self.goal.today_date())
        old = next((h for h in heard if h != self.current[key]), None) or next(iter(self.old.get(key, [])), None)
        templates = self.bank.corpus_for("correct", {key})
        kind = "clause" if key in self.bank.clause_keys else ""    # a whole request: no "the X is" frame
        own = [t for t in self.bank.family("correct", key, kind) if old is not None or "{old}" not in t]
        values = {"new": self._surface(key, self.current[key]), "label": self._label(key),
                  key: self._surface(key, self.current[key])}
        if old is not None:
            values["old"] = self._surface(key, old)
        if templates and self.rng.random() < 0.5:
            text = fill(exact_fix(self.rng.choice(templates).text, [key], self.domain), values)
        else:
            text = fill(self.rng.choice(own), values)
        return UserTurn(text, Meant("correct", informs={key: self.current[key]}, accept={key: self.accepted[key]}))

    def _answer(self, key: str) -> UserTurn:
        if key not in self.current and key not in self.not_yet and self.rng.random() < 0.08:
            self.not_yet.add(key)
            return UserTurn(fill(self._template("dont_know"), {}), Meant("not_yet"))
        again = key in self.current
        self._give(key)
        keys = [key]
        left = [k for k in self._left_to_say() if k != key]
        if left and self.rng.random() < 0.25:
            keys.append(left[0])
            self._give(left[0])
        text = self._informs(keys)
        for _ in range(4):          # asked again, a person says it another way where they can
            if not again or text != self.answered_with.get(key):
                break
            text = self._informs(keys)
        self.answered_with[key] = text
        if again and self.rng.random() < 0.5:
            prefix = fill(self._template("already_said"), {})
            text = prefix + (" " + text[:1].lower() + text[1:] if self.language == "en" else text)
        return UserTurn(text, Meant("inform", informs={k: self.current[k] for k in keys},
                                    accept={k: self.accepted[k] for k in keys}))

    def _scheduled(self) -> UserTurn | None:
        if self.questions and self.turn >= self.questions[0].after_turn:
            question = self.questions[0]
            if question.key in ("next", "summary") or question.key in self.current:
                self.questions.pop(0)
                return self._state_question(question.key)
        if self.small_talk and self.turn >= self.small_talk[0]:
            self.small_talk.pop(0)
            return UserTurn(fill(self._template("smalltalk"), {}), Meant("small_talk"))
        if self.unknown_left and self.turn >= 3:
            self.unknown_left -= 1
            return UserTurn(fill(self.bank.pick("unknown_pref", self.rng, key=self.domain.name), {}),
                            Meant("unknown_preference"))
        return None

    def _state_question(self, key: str) -> UserTurn:
        if key in ("next", "summary"):
            return UserTurn(fill(self._template(f"ask_{key}"), {}), Meant(f"ask_{key}", state_question=key))
        text = fill(self._template("ask_state", key), {"label": self._label(key)})
        return UserTurn(text, Meant("ask_state", state_question=key, expected=self.accepted.get(key, ())))


def exact_fix(template: str, keys: list[str], domain: SimDomain) -> str:
    """Corpus dates were "the 7th": a weekday said in their place drops the article."""
    for key in keys:
        if key in domain.keys and domain.keys[key].type == "date":
            template = template.replace("the {" + key + "}", "{" + key + "}")
    return template


@dataclass
class MemoryProbe:
    """One thing a returning user says in a later session: a correction or a question about the past."""

    key: str
    act: str                     # correct_memory | ask_memory
    value: Any                   # the value a right answer names (the new one after a correction)
    old: Any = None              # the value it replaced (a right answer does not name it as current)


class ReturningUser:
    """A user who comes back days later: corrects a lasting preference, asks what the agent remembers.

    Its goal's first session is a `SimulatedUser` task that states the preferences; the probes
    of each later session come from `plan_returns`.
    """

    def __init__(self, probes: list[MemoryProbe], domain: SimDomain, bank: PhrasingBank, rng: random.Random,
                 language: str) -> None:
        self.probes = list(probes)
        self.domain, self.bank, self.rng, self.language = domain, bank, rng, language
        self.goal: Goal | None = None
        self.ended = False

    def _surface(self, key: str, value: Any) -> str:
        return say(self.domain.keys[key].type, value, self.language, self.rng, words=self.bank.enum_words.get(key))

    def next_turn(self) -> UserTurn:
        if not self.probes:
            self.ended = True
            return UserTurn(fill(self.bank.pick("bye", self.rng), {}), Meant("bye", ends=True))
        probe = self.probes.pop(0)
        label = self.domain.keys[probe.key].label(self.language)
        if probe.act == "correct_memory":
            text = fill(self.rng.choice(self.bank.family("correct_memory")),
                        {"label": label, "new": self._surface(probe.key, probe.value),
                         "old": self._surface(probe.key, probe.old)})
            return UserTurn(text, Meant("correct_memory", changes={probe.key: (probe.old, probe.value)},
                                        accept={probe.key: (probe.value,)}))
        text = fill(self.rng.choice(self.bank.family("ask_memory")), {"label": label})
        return UserTurn(text, Meant("ask_memory", state_question=probe.key, expected=(probe.value,),
                                    stale=() if probe.old is None else (probe.old,)))


def plan_returns(goal: Goal, domain: SimDomain, rng: random.Random, *, sessions: int = 2,
                 words: dict[str, dict[str, list[str]]] | None = None) -> list[list[MemoryProbe]]:
    """Probes for the sessions after the first: session 2 corrects one lasting preference and asks
    about both; each later one asks again (what was corrected must stay corrected)."""
    from monologue.sim.goals import draw_value

    lasting = [k for k, s in goal.slots.items() if domain.keys[k].durable and s.change is None and not s.withdraw_after]
    if not lasting:
        return []
    rng.shuffle(lasting)
    corrected, kept = lasting[0], lasting[1:2]
    new = draw_value(domain.keys[corrected], goal.language, rng, avoid=goal.slots[corrected].value, words=words)
    old = goal.slots[corrected].value
    plans: list[list[MemoryProbe]] = []
    for index in range(1, sessions):
        probes = [MemoryProbe(k, "ask_memory", goal.slots[k].value) for k in kept]
        if index == 1 and new is not None:
            probes.insert(0, MemoryProbe(corrected, "correct_memory", new, old))
        probes.append(MemoryProbe(corrected, "ask_memory", new if new is not None else old,
                                  old if new is not None else None))
        plans.append(probes)
    return plans
