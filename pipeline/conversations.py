"""Whole scripted conversations through the pipeline, judged on behaviour, not wording.

A conversation script (`assets/conversations/*.json`) is a user's side of one or more
sessions in one domain and language, with what each session should achieve (`completes`:
the action that finishes it) and what some turns test (`expect`: small_talk, about_user,
dont_know). `run_conversation` plays it through `chat_session` (text mode: classifier,
monologue, policy, reply model and check) against a fresh store; `judge` measures what a
user would notice: was the task done and recorded, how many turns it took, was an offer
repeated back to back, was small talk answered and the task resumed, were questions about
the user answered from memory in the second person, did any reply fail the check.
Tests (`tests/test_conversations.py`) and `scripts/bench_dialogue.py` share it.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monologue.configs import MonologueConfig, load_config
from monologue.dialogue.check import audit
from monologue.memory.domain.schema import load_schema
from monologue.memory.longterm.profile import session_status
from monologue.memory.stores.actions import SqlActionStore
from monologue.memory.stores.state import SqlStateStore
from monologue.pipeline.builder import AgentModels, elsewhere_names, user_memory
from monologue.pipeline.text_chat import ChatOptions, chat_session
from monologue.processors.frames import Turn

CONVERSATIONS_DIR = Path(__file__).resolve().parents[1] / "assets" / "conversations"
EXPECTS = ("small_talk", "about_user", "dont_know")


@dataclass(frozen=True)
class ScriptedTurn:
    say: str
    expect: str = ""


@dataclass(frozen=True)
class ScriptedSession:
    turns: tuple[ScriptedTurn, ...]
    at: str = ""                 # ISO time the session happens at ("" : now)
    completes: str = ""          # the action that should finish it ("" : none should)


@dataclass(frozen=True)
class ConversationScript:
    name: str
    domain: str
    language: str
    sessions: tuple[ScriptedSession, ...]
    user: str = ""               # a user across sessions (long-term memory); "" keeps nothing
    about: str = ""


def load_conversation(path: str | Path) -> ConversationScript:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    sessions = []
    for raw in data["sessions"]:
        turns = tuple(ScriptedTurn(str(t["say"]), str(t.get("expect", ""))) for t in raw["turns"])
        unknown = {t.expect for t in turns if t.expect and t.expect not in EXPECTS}
        if unknown:
            raise ValueError(f"{path}: unknown expect {sorted(unknown)}; use one of {EXPECTS}")
        sessions.append(ScriptedSession(turns, str(raw.get("at", "")), str(raw.get("completes", ""))))
    return ConversationScript(str(data["name"]), str(data["domain"]), str(data.get("language", "en")),
                              tuple(sessions), str(data.get("user", "")), str(data.get("about", "")))


def bundled_conversations() -> list[ConversationScript]:
    return [load_conversation(p) for p in sorted(CONVERSATIONS_DIR.glob("*.json"))]


@dataclass
class SessionRun:
    """One scripted session as it ran: its turns, its final state's status and its records."""

    script: ScriptedSession
    session_id: str
    opening: str
    turns: list[Turn]
    status: str
    records: list[dict[str, Any]]


@dataclass
class ConversationRun:
    script: ConversationScript
    sessions: list[SessionRun] = field(default_factory=list)


def conversation_config(script: ConversationScript, base: dict[str, Any] | None = None) -> MonologueConfig:
    overrides: dict[str, Any] = json.loads(json.dumps(base or {}))
    overrides.setdefault("monologue", {})["domain"] = script.domain
    overrides["language"] = script.language
    overrides.setdefault("trace", {})["enabled"] = False
    return load_config(overrides=overrides, environ={})


async def run_conversation(script: ConversationScript, models: AgentModels, *, overrides: dict[str, Any] | None = None,
                           store_dir: Path | None = None) -> ConversationRun:
    """Play every session of `script` against a fresh store (in `store_dir`, or a temporary one)."""
    config = conversation_config(script, overrides)
    with tempfile.TemporaryDirectory(prefix="monologue-conv-") as tmp:
        path = str((store_dir or Path(tmp)) / f"{script.name}.db")
        store = SqlStateStore(path)
        actions = SqlActionStore(store.db)
        run = ConversationRun(script)
        for index, session in enumerate(script.sessions, 1):
            at = dt.datetime.fromisoformat(session.at).timestamp() if session.at else None
            long_term = user_memory(config, models, script.user, path, at=at) if script.user else None
            session_id = f"{script.name}-{index}"
            result = await chat_session([t.say for t in session.turns], config, models,
                                        ChatOptions(session_id=session_id, store=store, long_term=long_term))
            state = store.load(session_id)
            owner = script.user or f"session:{session_id}"
            records = [{"id": r.id, "action": r.action, "args": r.args, "said": r.said}
                       for r in actions.records(owner) if r.session_id == session_id]
            run.sessions.append(SessionRun(session, session_id, result.opening, result.turns,
                                           session_status(state), records))
    return run


# --- judging --------------------------------------------------------------------------------

def _offer(turn: Turn) -> tuple[str, str] | None:
    decision = turn.reply.decision
    while decision.get("then"):
        decision = decision["then"]
    if decision.get("act") != "propose":
        return None
    return str(decision.get("option")), json.dumps(decision.get("args"), sort_keys=True)


def _second_person(text: str, language: str) -> bool:
    if language == "zh":
        return "你" in text
    words = {w.strip(".,!?;:'\"").lower() for w in text.split()}
    return bool(words & {"you", "your", "you're", "you've", "yours"})


@dataclass
class Verdict:
    """What a user would notice about one scripted conversation."""

    name: str
    sessions: int = 0
    tasks: int = 0                      # sessions that should complete
    completed: int = 0                  # …that reached COMPLETED with their record
    turns_to_completion: list[int] = field(default_factory=list)
    repeated_offers: int = 0            # the same offer (option and details) in two replies in a row
    repeated_replies: int = 0           # the same reply twice in a row
    check_caught: Counter[str] = field(default_factory=Counter)   # model clauses the check stopped, by kind
    spoken_failures: Counter[str] = field(default_factory=Counter)   # what still reached the user, by kind
    sources: Counter[str] = field(default_factory=Counter)         # who worded each reply
    small_talk: int = 0
    small_talk_resumed: int = 0
    about_user: int = 0
    about_user_answered: int = 0        # from memory, in the second person
    dont_know: int = 0
    dont_know_said: int = 0
    other_domain_mentions: int = 0      # a restaurant named in a car, and the like
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        for name in ("check_caught", "spoken_failures", "sources"):
            out[name] = dict(out[name])
        return out


def judge(run: ConversationRun) -> Verdict:
    script = run.script
    verdict = Verdict(script.name, sessions=len(run.sessions))
    schema = load_schema(script.domain)
    foreign = _foreign_words(script.domain)
    for session in run.sessions:
        previous = session.opening
        last_offer: tuple[str, str] | None = None
        done_at = 0
        for index, (turn, scripted) in enumerate(zip(session.turns, session.script.turns, strict=False), 1):
            reply = turn.reply.text
            verdict.sources[turn.reply.source or "none"] += 1
            for caught in turn.reply.check:
                verdict.check_caught[caught.kind] += 1
            for failure in audit(reply, previous, script.language, schema):
                verdict.spoken_failures[str(failure)] += 1
                verdict.problems.append(f"{session.session_id} turn {index}: {failure}: {reply!r}")
            offer = _offer(turn)
            if offer is not None and offer == last_offer:
                verdict.repeated_offers += 1
                verdict.problems.append(f"{session.session_id} turn {index}: offer repeated: {reply!r}")
            last_offer = offer
            if reply and reply.strip() == previous.strip():
                verdict.repeated_replies += 1
            lowered = reply.lower()
            if any(word in lowered for word in foreign):
                verdict.other_domain_mentions += 1
                verdict.problems.append(f"{session.session_id} turn {index}: another domain: {reply!r}")
            act = turn.reply.decision.get("act", "")
            if scripted.expect == "small_talk":
                verdict.small_talk += 1
                if act in ("small_talk", "greet") and (turn.reply.decision.get("then") or done_at):
                    verdict.small_talk_resumed += 1
                else:
                    verdict.problems.append(f"{session.session_id} turn {index}: small talk not answered and "
                                            f"resumed ({act}): {reply!r}")
            if scripted.expect == "about_user":
                verdict.about_user += 1
                if act in ("answer_memory", "answer_state") and _second_person(reply, script.language):
                    verdict.about_user_answered += 1
                else:
                    verdict.problems.append(f"{session.session_id} turn {index}: about the user ({act}): {reply!r}")
            if scripted.expect == "dont_know":
                verdict.dont_know += 1
                if act == "dont_know":
                    verdict.dont_know_said += 1
                else:
                    verdict.problems.append(f"{session.session_id} turn {index}: should not know ({act}): {reply!r}")
            if not done_at and session.script.completes and _did(turn, session.script.completes):
                done_at = index
            previous = reply or previous
        if session.script.completes:
            verdict.tasks += 1
            recorded = any(r["action"] == session.script.completes for r in session.records)
            if session.status == "COMPLETED" and recorded and done_at:
                verdict.completed += 1
                verdict.turns_to_completion.append(done_at)
            else:
                verdict.problems.append(f"{session.session_id}: not completed (status {session.status}, "
                                        f"records {[r['action'] for r in session.records]})")
    return verdict


def _did(turn: Turn, action: str) -> bool:
    decision: dict[str, Any] | None = turn.reply.decision
    while decision:
        if decision.get("act") == "act" and decision.get("action") == action and decision.get("record"):
            return True
        decision = decision.get("then")
    return False


def _foreign_words(domain: str) -> list[str]:
    """Words that belong to other domains only: their options' names (a restaurant in a car)."""
    words = sorted(name.lower() for name in elsewhere_names(domain))
    if domain != "restaurant":
        words += ["restaurant", "餐厅"]
    return words
