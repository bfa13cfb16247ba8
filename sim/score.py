"""What a simulated conversation got right and wrong, judged against the user's goal.

The harness records, after each turn, what the agent said and what its state and its
actions held (`AgentView`); the simulator never read those while it talked. Here they are
compared with what the user meant: was the task done with the goal's final values, which
values the user gave were lost, how often the agent asked for what it held, repeated itself
or looped, whether questions about the task's state were answered, which values it wrote
that the user never said.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from monologue.sim.domain import SimDomain
from monologue.sim.goals import Goal
from monologue.sim.reading import ReplyReader
from monologue.sim.user import ReturningUser, SimulatedUser, UserTurn
from monologue.sim.values import mentions, same_value


@dataclass
class AgentView:
    """The agent after one turn, as the score sees it (never the simulated user)."""

    reply: str
    values: dict[str, list[Any]] = field(default_factory=dict)    # key → values held, whatever their status
    statuses: dict[str, str] = field(default_factory=dict)        # key → active / to_confirm
    done: list[dict[str, Any]] = field(default_factory=list)      # {"action", "args"} so far


@dataclass
class Exchange:
    user: UserTurn
    agent: AgentView


@dataclass
class ConversationRecord:
    goal: Goal
    opening: str
    exchanges: list[Exchange]
    user: SimulatedUser | ReturningUser
    seconds: float = 0.0
    session: int = 1


@dataclass
class ConversationScore:
    goal_id: str
    domain: str
    language: str
    turns: int
    success: bool
    turns_to_success: int | None
    facts_lost: list[str] = field(default_factory=list)
    changes_missed: list[str] = field(default_factory=list)   # a value the user changed, not as changed at the end
    re_asks: int = 0
    repeated_replies: int = 0
    loops: int = 0
    state_questions: int = 0
    state_answered: int = 0
    wrong_writes: list[str] = field(default_factory=list)
    wishes_said: int = 0          # things the domain has no key for ("somewhere quiet"), said by the user
    wishes_kept: int = 0          # …and kept in the state's free-text key on that turn
    gave_up: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def badness(self) -> float:
        return ((0 if self.success else 4) + 2 * len(self.facts_lost) + 2 * len(self.changes_missed)
                + self.re_asks + 2 * self.loops
                + self.repeated_replies + len(self.wrong_writes) + (self.state_questions - self.state_answered))


def _holds(kind: str, accepted: tuple[Any, ...], held: list[Any], goal: Goal) -> bool:
    return any(same_value(kind, a, h, today=goal.today_date()) for a in accepted for h in held)


def _last_done(view: AgentView, action: str) -> dict[str, Any] | None:
    found = [d for d in view.done if d.get("action") == action]
    return found[-1] if found else None


def _action_right(record: ConversationRecord, domain: SimDomain, view: AgentView, action: str) -> bool:
    done = _last_done(view, action)
    if done is None:
        return False
    spec = domain.actions.get(action)
    args = done.get("args") or {}
    keys = set(spec.needs) | set(spec.optional) if spec else set(args)
    user, goal = record.user, record.goal
    assert isinstance(user, SimulatedUser)
    for key in keys:
        if key in user.current:
            if key not in args or not _holds(goal.slots[key].kind, user.accepted[key], _as_list(args[key]), goal):
                return False
        elif key in user.withdrawn and args.get(key) not in (None, "", []):
            return False
    return not (spec and spec.choose and not args.get(spec.choose))


def _as_list(value: Any) -> list[Any]:
    """An action's argument as its values. A set-valued key's value may carry how it binds ("excludes:pork",
    `as_member`); the goal says the value, not the comparator, so the value is what is compared."""
    values = list(value) if isinstance(value, (list, tuple, set)) else [value]
    return [_BINDS.sub("", v) if isinstance(v, str) else v for v in values]


# How an action's set-valued argument binds, written before its value (the agent's `as_member`; the simulator
# imports nothing of the agent).
_BINDS = re.compile(r"^(?:includes|excludes):")


def score(record: ConversationRecord, domain: SimDomain) -> ConversationScore:
    goal, user = record.goal, record.user
    assert isinstance(user, SimulatedUser), "a returning user's sessions are scored by score_returns"
    views = [e.agent for e in record.exchanges]
    final = views[-1] if views else AgentView("")
    result = ConversationScore(goal.id, goal.domain, goal.language, len(record.exchanges), False, None,
                               seconds=record.seconds,
                               gave_up=any(e.user.meant.act == "giveup" for e in record.exchanges))
    reader = ReplyReader(domain, goal.language, user.bank.enum_words)
    # Task success: every action of the goal done, with the final values.
    # (An action whose every needed value the user took back is no longer wanted: "forget the fan".)
    wanted = [a for a in goal.actions if not (a in domain.actions and domain.actions[a].needs
                                              and set(domain.actions[a].needs) <= set(user.withdrawn))]
    result.success = all(_action_right(record, domain, final, a) for a in wanted)
    for index, view in enumerate(views, 1):
        if _action_right(record, domain, view, goal.actions[0]):
            result.turns_to_success = index
            break
    # Facts lost: given, never changed or withdrawn, and missing or wrong at the end or in the action.
    primary = _last_done(final, goal.actions[0])
    for key, value in user.current.items():
        if key in user.changed or key in user.withdrawn:
            continue
        kind = goal.slots[key].kind
        in_state = _holds(kind, user.accepted[key], final.values.get(key, []), goal)
        spec = domain.actions.get(goal.actions[0])
        in_action = True
        if primary is not None and spec is not None and key in set(spec.needs) | set(spec.optional):
            in_action = key in primary.get("args", {}) and _holds(kind, user.accepted[key],
                                                                   _as_list(primary["args"][key]), goal)
        if not in_state or not in_action:
            where = ("" if in_state else " (state)") + ("" if in_action else " (action)")
            result.facts_lost.append(f"{key}={value}{where}")
    for key in sorted(user.changed & set(user.current)):
        if not _holds(goal.slots[key].kind, user.accepted[key], final.values.get(key, []), goal):
            result.changes_missed.append(f"{key}: wanted {user.accepted[key][0]}, held {final.values.get(key)}")
    # Re-asks, repeats, loops, as the user heard the replies.
    known: dict[str, tuple[Any, ...]] = {}
    previous_core, run_key, run_length, run_values = reply_core(record.opening), "", 0, ""
    for index, exchange in enumerate(record.exchanges, 1):
        meant = exchange.user.meant
        for key, accepted in meant.accept.items():
            known[key] = accepted
        for key in meant.withdrawn:
            known.pop(key, None)
        view = exchange.agent
        move = reader.read(view.reply, {k: v[0] for k, v in known.items() if v}, goal.today_date())
        for key in move.asked:
            if key in known and key in goal.slots and _holds(goal.slots[key].kind, known[key], view.values.get(key, []),
                                                              goal):
                result.re_asks += 1
                result.problems.append(f"turn {index}: asked for {key}, held: {view.reply!r}")
        reply = view.reply.strip()
        core = reply_core(reply)
        if core and core == previous_core:
            result.repeated_replies += 1
            result.problems.append(f"turn {index}: said again: {reply!r}")
        previous_core = core
        asked = move.asked[0] if move.asked else ""
        state_now = json.dumps(view.values, sort_keys=True, default=str)
        # No progress: the user tried to move the task on (gave, changed, said yes) and nothing changed.
        tried = bool(meant.informs or meant.changes or meant.withdrawn) or meant.act in ("affirm", "accept_offer")
        if asked and asked == run_key and state_now == run_values:
            run_length += 1 if tried else 0
            if run_length == 3:
                result.loops += 1
                result.problems.append(f"turn {index}: the same question three times, no progress: {reply!r}")
        else:
            run_key, run_length, run_values = asked, 1 if asked else 0, state_now
        if meant.state_question:
            result.state_questions += 1
            right = _answers(meant.state_question, meant.expected, view, goal, reader, domain, known)
            result.state_answered += right
            if not right:
                result.problems.append(f"turn {index}: state question ({meant.state_question}) not answered: {reply!r}")
    # Free-text wishes: one said is kept on its turn; one written on any other turn was not said.
    free = {k for k, spec in domain.keys.items() if spec.free_text}
    seen: set[str] = set()
    before: dict[str, list[Any]] = {}
    for index, exchange in enumerate(record.exchanges, 1):
        now = {k: list(exchange.agent.values.get(k, [])) for k in free}
        added = [f"{k}={v}" for k in free for v in now[k] if v not in before.get(k, [])]
        if exchange.user.meant.act == "unknown_preference":
            result.wishes_said += 1
            result.wishes_kept += bool(added)
            if not added:
                result.problems.append(f"turn {index}: a wish with no key was not kept: {exchange.user.text!r}")
        else:
            for mark in added:
                if mark not in seen:
                    seen.add(mark)
                    result.wrong_writes.append(mark)
        before = now
    # Wrong writes: a value held at any point that the user never said (an offer it took is fine).
    for view in views:
        for key, held in view.values.items():
            if key == goal.choose or key not in domain.keys or key in free:
                continue
            kind = domain.keys[key].type
            for value in held:
                said = user.said.get(key, []) + [a for a in user.accepted.get(key, ())]
                planned = goal.slots[key].change if key in goal.slots else None
                if planned is not None:
                    said += list(planned.accept)
                if not any(same_value(kind, s, value, today=goal.today_date()) for s in said):
                    mark = f"{key}={value}"
                    if mark not in seen:
                        seen.add(mark)
                        result.wrong_writes.append(mark)
    return result


_NAMED_AS_OLD = re.compile(r"\b(?:changed|corrected|switched|moved|updated) (?:it |that )?from\b[^.;!?]*"
                           r"|从[^，。；！？]*?(?:改|换)(?:过来|成|到)?", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|[:：]\s*")


def reply_core(reply: str) -> tuple[str, ...]:
    """The sentences of a reply that carry content, normalised: what a repeat is judged on.

    An agent that says "As I said: I see. What day?" twice has repeated itself, whatever
    acknowledgement it put in front, so short sentences (under four words, or under five
    characters of Chinese) are left out, unless that is all the reply says; case and
    punctuation do not count.
    """
    kept = []
    for sentence in _SENTENCE_END.split(reply.strip()):
        words = re.findall(r"[\w']+", sentence.lower())
        cjk = sum(1 for char in sentence if "\u4e00" <= char <= "\u9fff")
        if len(words) >= 4 or cjk >= 5:
            kept.append(" ".join(words))
    if not kept and reply.strip():     # a reply made only of short sentences is judged whole
        kept.append(" ".join(re.findall(r"[\w']+", reply.lower())))
    return tuple(kept)


def _answers(question: str, expected: tuple[Any, ...], view: AgentView, goal: Goal, reader: ReplyReader,
             domain: SimDomain, known: dict[str, tuple[Any, ...]]) -> bool:
    text = view.reply
    move = reader.read(text, {k: v[0] for k, v in known.items() if v}, goal.today_date())
    if question in domain.keys:
        kind = domain.keys[question].type
        return any(mentions(kind, value, text, goal.language, today=goal.today_date(),
                            words=reader.words.get(question)) for value in expected)
    if move.refusal and not move.read_back:
        return False
    if question == "summary":
        named = sum(1 for right in move.read_back.values() if right)
        return named >= max(1, len(known) // 2)
    return bool(move.asked or move.read_back or move.done or move.offer)


# --- tables and transcripts ---------------------------------------------------------------

def summarise(scores: list[ConversationScore]) -> dict[str, Any]:
    n = len(scores)
    if not n:
        return {"n": 0}
    to_success = [s.turns_to_success for s in scores if s.turns_to_success is not None]
    questions = sum(s.state_questions for s in scores)
    return {
        "n": n,
        "task_success": sum(s.success for s in scores) / n,
        "facts_lost_per_conv": sum(len(s.facts_lost) for s in scores) / n,
        "convs_losing_a_fact": sum(bool(s.facts_lost) for s in scores) / n,
        "changes_missed_per_conv": sum(len(s.changes_missed) for s in scores) / n,
        "re_asks_per_conv": sum(s.re_asks for s in scores) / n,
        "repeated_replies_per_conv": sum(s.repeated_replies for s in scores) / n,
        "convs_with_loop": sum(bool(s.loops) for s in scores) / n,
        "state_questions_right": (sum(s.state_answered for s in scores), questions),
        "wrong_writes_per_conv": sum(len(s.wrong_writes) for s in scores) / n,
        "wishes_kept": (sum(s.wishes_kept for s in scores), sum(s.wishes_said for s in scores)),
        "median_turns_to_success": statistics.median(to_success) if to_success else None,
        "gave_up": sum(s.gave_up for s in scores) / n,
        "median_secs": statistics.median(s.seconds for s in scores),
    }


TABLE_COLUMNS = (("task_success", "success", "{:.0%}"), ("facts_lost_per_conv", "lost/conv", "{:.2f}"),
                 ("changes_missed_per_conv", "changes missed/conv", "{:.2f}"),
                 ("re_asks_per_conv", "re-asks/conv", "{:.2f}"),
                 ("repeated_replies_per_conv", "repeats/conv", "{:.2f}"),
                 ("convs_with_loop", "loops", "{:.0%}"), ("state_questions_right", "state Qs", "{}"),
                 ("wrong_writes_per_conv", "wrong writes/conv", "{:.2f}"),
                 ("wishes_kept", "wishes kept", "{}"),
                 ("median_turns_to_success", "turns to success", "{}"), ("median_secs", "s/conv", "{:.1f}"))


def format_table(rows: dict[str, dict[str, Any]]) -> str:
    header = "| domain × language | n | " + " | ".join(title for _, title, _ in TABLE_COLUMNS) + " |"
    lines = [header, "|" + "---|" * (len(TABLE_COLUMNS) + 2)]
    for name, row in rows.items():
        cells = []
        for field_name, _, form in TABLE_COLUMNS:
            value = row.get(field_name)
            if field_name in ("state_questions_right", "wishes_kept") and value:
                cells.append(f"{value[0]}/{value[1]}")
            else:
                cells.append("–" if value is None else form.format(value))
        lines.append(f"| {name} | {row.get('n', 0)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _diff(before: AgentView | None, after: AgentView) -> str:
    old = before.values if before else {}
    parts = []
    for key in sorted(set(old) | set(after.values)):
        a, b = old.get(key), after.values.get(key)
        status = after.statuses.get(key, "")
        if a != b:
            parts.append(f"{key}: {a} → {b}" if a else f"+{key}={b}" if b else f"-{key}")
        elif before is not None and before.statuses.get(key) != status and status:
            parts.append(f"{key} ({status})")
    done = len(after.done) - (len(before.done) if before else 0)
    if done > 0:
        parts += [f"DONE {d.get('action')} {json.dumps(d.get('args'), ensure_ascii=False, default=str)}"
                  for d in after.done[-done:]]
    return "; ".join(parts)


def transcript(record: ConversationRecord, result: ConversationScore) -> str:
    goal = record.goal
    lines = [f"# {goal.id}  session {record.session}",
             f"success: {result.success}; facts lost: {result.facts_lost}; changes missed: {result.changes_missed}; "
             f"re-asks: {result.re_asks}; "
             f"repeats: {result.repeated_replies}; loops: {result.loops}; state questions: "
             f"{result.state_answered}/{result.state_questions}; wrong writes: {result.wrong_writes}",
             "goal: " + json.dumps({k: {**{f: v for f, v in asdict(s).items() if v not in (None, False, 0, "")}}
                                    for k, s in goal.slots.items()}, ensure_ascii=False, default=str),
             f"actions: {list(goal.actions)}; offers turned down: {goal.reject_offers}; today: {goal.today}", ""]
    if record.opening:
        lines.append(f"agent ▸ {record.opening}")
    before: AgentView | None = None
    for exchange in record.exchanges:
        meant = exchange.user.meant
        detail = {k: v for k, v in asdict(meant).items() if v and k not in ("act", "ends")}
        shown = ' ' + json.dumps(detail, ensure_ascii=False, default=str) if detail else ''
        lines.append(f"user  ▸ {exchange.user.text}    [{meant.act}{shown}]")
        lines.append(f"agent ▸ {exchange.agent.reply}")
        diff = _diff(before, exchange.agent)
        if diff:
            lines.append(f"        state: {diff}")
        before = exchange.agent
    if result.problems:
        lines += ["", "problems:"] + [f"- {p}" for p in result.problems]
    return "\n".join(lines) + "\n"


def write_worst(records: list[tuple[ConversationRecord, ConversationScore]], folder: Path,
                count: int = 10) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    worst = sorted(records, key=lambda pair: -pair[1].badness)[:count]
    paths = []
    for rank, (record, result) in enumerate(worst, 1):
        path = folder / f"{rank:02d}-{record.goal.id}.txt"
        path.write_text(transcript(record, result), encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class MemoryScore:
    """A returning user's later sessions: were its questions about the past answered right?"""

    goal_id: str
    asked: int = 0
    right: int = 0
    stale: int = 0               # the replaced value given as if it still held
    problems: list[str] = field(default_factory=list)


def score_returns(records: list[ConversationRecord], domain: SimDomain) -> MemoryScore:
    """Score the sessions after the first (each record one session) on their memory questions."""
    result = MemoryScore(records[0].goal.id if records else "")
    for record in records[1:]:
        goal = record.goal
        for index, exchange in enumerate(record.exchanges, 1):
            meant = exchange.user.meant
            if meant.act != "ask_memory" or meant.state_question not in domain.keys:
                continue
            kind = domain.keys[meant.state_question].type
            words = {v: [*w, *domain.keys[meant.state_question].words_for(goal.language).get(v, [])]
                     for v, w in (record.user.bank.enum_words.get(meant.state_question) or {}).items()} or \
                domain.keys[meant.state_question].words_for(goal.language)
            reply = exchange.agent.reply
            right = any(mentions(kind, v, reply, goal.language, today=goal.today_date(), words=words)
                        for v in meant.expected)
            # A replaced value named as replaced ("21 degrees: you changed it from 22", 是你从短信改过来的)
            # is the answer's source, as D4 asks, not the stale value given.
            current = _NAMED_AS_OLD.sub(" ", reply)
            stale = any(mentions(kind, v, current, goal.language, today=goal.today_date(), words=words)
                        for v in meant.stale)
            result.asked += 1
            result.right += right and not stale
            result.stale += stale
            if not right or stale:
                not_stale = f", not {meant.stale}" if meant.stale else ""
                result.problems.append(f"session {record.session} turn {index}: asked about {meant.state_question} "
                                       f"(expected {meant.expected}{not_stale}): {reply!r}")
    return result
