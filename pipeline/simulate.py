"""Simulated users against the real agent: closed-loop conversations, scored.

    monologue simulate --domain restaurant --language en --n 20
    python scripts/bench_conversations.py          # three domains × en/zh × 50, held-out partition

Each conversation runs through the same processors as `monologue chat` (typed turns in,
text out: the classifier, the monologue with its working memory, the policy and the reply
stage with its check), in this process, against a fresh store. The user (`monologue.sim`)
hears only the reply; after each turn this harness also reads the state and the actions
done, for the score alone. Seeded: the same seed gives the same goals and, for the same
agent, the same conversations.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pipecat.frames.frames import EndWorkerFrame, Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.configs import MonologueConfig, load_config
from monologue.memory.working.engine import WorkingMemory
from monologue.pipeline.builder import AgentModels, TurnGate
from monologue.pipeline.text_chat import typed_turn
from monologue.processors.frames import Turn, UserTurnFrame
from monologue.sim.domain import load_domain
from monologue.sim.goals import Goal, UserWords, make_goal
from monologue.sim.phrasing import CorpusSpec, Partition, PhrasingBank
from monologue.sim.reference import Faults, ReferenceAgent
from monologue.sim.score import (
    AgentView,
    ConversationRecord,
    ConversationScore,
    Exchange,
    MemoryScore,
    score,
    score_returns,
    summarise,
)
from monologue.sim.user import ReturningUser, SimulatedUser, UserTurn, plan_returns

TURN_TIMEOUT_SECS = 300.0        # one agent turn; a turn that never ends is reported, not waited on forever
MAX_TURNS = 40


class Agent(Protocol):
    async def start(self) -> str: ...
    async def turn(self, user: UserTurn) -> AgentView: ...
    async def close(self) -> None: ...


class QueuedTurnSource(FrameProcessor):
    """One job: feed the simulated user's turns in as they come, each once the last was answered."""

    def __init__(self, gate: TurnGate) -> None:
        super().__init__()
        self._gate = gate
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()

    def say(self, line: str | None) -> None:
        self._lines.put_nowait(line)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.create_task(self._feed(), name="simulated-user")

    async def _feed(self) -> None:
        number = 0
        while (line := await self._lines.get()) is not None:
            number += 1
            await self._gate.wait_idle()
            turn = typed_turn(number, line)
            self._gate.turn_started(turn)
            await self.push_frame(UserTurnFrame(turn=turn))
        await self._gate.wait_idle()
        await self.push_frame(EndWorkerFrame(reason="the simulated user left"))


def agent_view(turn: Turn | None, memory: WorkingMemory | None) -> AgentView:
    view = AgentView(turn.reply.text if turn is not None else "")
    if memory is None:
        return view
    state = memory.state
    for condition in state.constraints.values():
        view.values.setdefault(condition.key, []).append(condition.value)
        view.statuses[condition.key] = str(condition.status)
    view.done = [{"action": d.action, "args": dict(d.args)} for d in state.done]
    return view


class PipelineAgent:
    """The real agent, one session: the text pipeline of `monologue chat`, turn by turn."""

    def __init__(self, config: MonologueConfig, models: AgentModels, *, session_id: str, store: Any,
                 long_term: Any = None) -> None:
        self.config, self.models = config, models
        self.session_id, self.store, self.long_term = session_id, store, long_term
        self._gate = TurnGate(stall_secs=TURN_TIMEOUT_SECS)
        self._source = QueuedTurnSource(self._gate)
        self._answered: asyncio.Queue[AgentView] = asyncio.Queue()
        self._started = asyncio.Event()
        self._opening = ""
        self._task: asyncio.Task[Any] | None = None

    async def start(self) -> str:
        from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session

        def on_start(session: Session) -> None:
            self._opening = session.opening
            self._started.set()

        def on_turn(turn: Turn, memory: WorkingMemory | None) -> None:
            self._answered.put_nowait(agent_view(turn, memory))

        spec = SessionSpec(self.config, self.models, None, session_id=self.session_id, store=self.store,
                           long_term=self.long_term, mode="text")
        self._task = asyncio.create_task(run_session(spec, self._source, gate=self._gate,
                                                     hooks=SessionHooks(on_start=on_start, on_turn=on_turn)))
        started = asyncio.create_task(self._started.wait())
        await asyncio.wait({started, self._task}, return_when=asyncio.FIRST_COMPLETED, timeout=TURN_TIMEOUT_SECS)
        if self._task.done():
            self._task.result()          # the session failed to start: say why
        started.cancel()
        return self._opening

    async def turn(self, user: UserTurn) -> AgentView:
        self._source.say(user.text)
        try:
            return await asyncio.wait_for(self._answered.get(), TURN_TIMEOUT_SECS)
        except TimeoutError as exc:
            raise RuntimeError(f"session {self.session_id}: no answer to {user.text!r} within "
                               f"{TURN_TIMEOUT_SECS:.0f} s") from exc

    async def close(self) -> None:
        self._source.say(None)
        if self._task is not None:
            await asyncio.wait_for(self._task, TURN_TIMEOUT_SECS)


async def converse(agent: Agent, user: SimulatedUser, *, max_turns: int = MAX_TURNS, session: int = 1
                   ) -> ConversationRecord:
    started = time.perf_counter()
    opening = await agent.start()
    exchanges: list[Exchange] = []
    try:
        turn = user.opening()
        while True:
            view = await agent.turn(turn)
            exchanges.append(Exchange(turn, view))
            if turn.meant.ends or len(exchanges) >= max_turns:
                break
            turn = user.respond(view.reply)
    finally:
        await agent.close()
    return ConversationRecord(user.goal, opening, exchanges, user, time.perf_counter() - started, session)


# --- the benchmark ------------------------------------------------------------------------

@dataclass
class BenchOptions:
    domains: tuple[str, ...] = ("restaurant", "in_car", "customer_service")
    languages: tuple[str, ...] = ("en", "zh")
    n: int = 50
    seed: int = 0
    partition: Partition = "heldout"
    corpora: list[CorpusSpec] | None = None
    wording: str = "policy"          # policy: the template says each act (fast); model: the LLM words it
    agent: str = "monologue"         # monologue | reference | reference:forget=3 | reference:repeat | reference:ignore
    config_path: str | None = None
    llm: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)


def goal_rng(seed: int, domain: str, language: str, partition: str, index: int) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`: the same goal on every machine and run.
    return random.Random(f"{seed}/{domain}/{language}/{partition}/{index}")


def reference_faults(spec: str) -> Faults:
    faults = Faults()
    for part in spec.split(":")[1:]:
        name, _, value = part.partition("=")
        if name == "forget":
            faults.forget_after = int(value or 3)
        elif name == "repeat":
            faults.repeat_question = True
        elif name == "ignore":
            faults.ignore_corrections = True
        else:
            raise ValueError(f"--agent {spec!r}: faults are forget=N, repeat, ignore")
    return faults


def bench_config(options: BenchOptions, domain: str, language: str) -> MonologueConfig:
    overrides: dict[str, Any] = {"monologue": {"domain": domain}, "language": language, "trace": {"enabled": False},
                                 "reply": {"wording": options.wording}}
    if options.llm:
        overrides["llm"] = {"model": options.llm}
    for section, values in options.overrides.items():
        overrides.setdefault(section, {}).update(values)
    return load_config(options.config_path, overrides=overrides)


async def run_cell(options: BenchOptions, domain_name: str, language: str, models: AgentModels | None,
                   on_done: Callable[[ConversationRecord, ConversationScore], None] | None = None,
                   ) -> list[tuple[ConversationRecord, ConversationScore]]:
    """`options.n` conversations in one domain and language."""
    domain = load_domain(domain_name)
    bank = PhrasingBank(domain, language, options.partition, options.corpora)
    seen = bank.values
    config = bench_config(options, domain_name, language) if options.agent == "monologue" else None
    out = []
    with tempfile.TemporaryDirectory(prefix="monologue-sim-") as tmp:
        store = None
        if config is not None:
            from monologue.memory.stores.state import SqlStateStore

            store = SqlStateStore(str(Path(tmp) / "sim.db"))
        for index in range(options.n):
            rng = goal_rng(options.seed, domain.name, language, options.partition, index)
            goal = make_goal(domain, language, rng, goal_id=f"{domain.name}-{language}-{options.partition}-{index}",
                             today=dt.date.today(), said=UserWords(seen, bank.enum_words))
            user = SimulatedUser(goal, domain, bank, rng)
            agent: Agent
            if config is None:
                agent = ReferenceAgent(domain, language, reference_faults(options.agent))
            else:
                assert models is not None
                agent = PipelineAgent(config, models, session_id=goal.id, store=store)
            record = await converse(agent, user)
            result = score(record, domain)
            out.append((record, result))
            if on_done is not None:
                on_done(record, result)
    return out


async def run_benchmark(options: BenchOptions, models_for: Callable[[str], Awaitable[AgentModels]] | None = None,
                        on_done: Callable[[ConversationRecord, ConversationScore], None] | None = None,
                        ) -> tuple[dict[str, dict[str, Any]], list[tuple[ConversationRecord, ConversationScore]]]:
    rows: dict[str, dict[str, Any]] = {}
    everything: list[tuple[ConversationRecord, ConversationScore]] = []
    for language in options.languages:
        models = await models_for(language) if models_for is not None and options.agent == "monologue" else None
        for domain in options.domains:
            cell = await run_cell(options, domain, language, models, on_done)
            rows[f"{load_domain(domain).name} × {language}"] = summarise([s for _, s in cell])
            everything += cell
    rows["all"] = summarise([s for _, s in everything])
    return rows, everything


# --- a user who comes back ------------------------------------------------------------------

async def converse_returning(agent: Agent, user: ReturningUser, goal: Goal, session: int) -> ConversationRecord:
    started = time.perf_counter()
    opening = await agent.start()
    exchanges: list[Exchange] = []
    try:
        while not user.ended:
            turn = user.next_turn()
            exchanges.append(Exchange(turn, await agent.turn(turn)))
    finally:
        await agent.close()
    return ConversationRecord(goal, opening, exchanges, user, time.perf_counter() - started, session)


async def run_returns(options: BenchOptions, domain_name: str, language: str, models: AgentModels,
                      sessions: int = 3, days_apart: float = 3.0,
                      on_done: Callable[[list[ConversationRecord], MemoryScore], None] | None = None,
                      ) -> list[tuple[list[ConversationRecord], MemoryScore]]:
    """`options.n` users, each over `sessions` sessions `days_apart` apart, with long-term memory:
    the first session a task that states lasting preferences; the next ones a correction and
    questions about what was said."""
    from monologue.memory.stores.state import SqlStateStore
    from monologue.pipeline.builder import user_memory

    domain = load_domain(domain_name)
    bank = PhrasingBank(domain, language, options.partition, options.corpora)
    config = bench_config(options, domain_name, language)
    out = []
    with tempfile.TemporaryDirectory(prefix="monologue-sim-returns-") as tmp:
        for index in range(options.n):
            rng = goal_rng(options.seed, domain.name, language, f"{options.partition}-returns", index)
            first_at = time.time() - days_apart * 86400 * sessions
            goal = make_goal(domain, language, rng, goal_id=f"{domain.name}-{language}-returns-{index}",
                             today=dt.date.fromtimestamp(first_at), said=UserWords(bank.values, bank.enum_words),
                             lasting=2)
            plans = plan_returns(goal, domain, rng, sessions=sessions, words=bank.enum_words)
            path = str(Path(tmp) / f"user-{index}.db")
            store = SqlStateStore(path)
            records: list[ConversationRecord] = []
            for number in range(1, sessions + 1):
                at = first_at + days_apart * 86400 * (number - 1)
                long_term = user_memory(config, models, f"sim-user-{index}", path, at=at)
                agent = PipelineAgent(config, models, session_id=f"{goal.id}-{number}", store=store,
                                      long_term=long_term)
                if number == 1:
                    records.append(await converse(agent, SimulatedUser(goal, domain, bank, rng)))
                elif number - 2 < len(plans):
                    user = ReturningUser(plans[number - 2], domain, bank, rng, language)
                    records.append(await converse_returning(agent, user, goal, number))
            result = score_returns(records, domain)
            out.append((records, result))
            if on_done is not None:
                on_done(records, result)
    return out


# --- the command line (monologue simulate, scripts/bench_conversations.py) -------------------

def options_from(args: Any) -> BenchOptions:
    from monologue.sim.phrasing import parse_phrasing

    return BenchOptions(domains=tuple(d.strip() for d in args.domain.split(",") if d.strip()),
                        languages=tuple(x.strip() for x in args.language.split(",") if x.strip()),
                        n=args.n, seed=args.seed, partition=args.partition,
                        corpora=parse_phrasing(args.phrasing) or None,
                        wording=args.wording, agent=args.agent, config_path=args.config, llm=args.llm)


def simulate(args: Any) -> int:
    """Run, print the table, and keep the scores and transcripts in a folder."""
    import json
    from dataclasses import asdict, replace

    from monologue.pipeline.builder import load_text_models
    from monologue.sim.score import format_table, transcript, write_worst

    options = options_from(args)
    for language in options.languages:
        if language not in ("en", "zh"):
            raise ValueError(f"--language {language!r}: en or zh")
    for domain in options.domains:
        load_domain(domain)            # a missing domain fails here, before any model loads
    out = Path(args.out or Path("out") / "simulate" / time.strftime("%Y%m%d-%H%M%S"))
    (out / "conversations").mkdir(parents=True, exist_ok=True)
    loaded: dict[str, AgentModels] = {}

    async def models_for(language: str) -> AgentModels:
        if language not in loaded:
            loaded[language] = await asyncio.to_thread(
                load_text_models, bench_config(options, options.domains[0], language))
        return loaded[language]

    def shown_in(folder: str) -> Callable[[ConversationRecord, ConversationScore], None]:
        """Each conversation's transcript into `folder`, and a line on the terminal. The model's
        wording reruns the same goals: its transcripts go to a folder of their own."""
        (out / folder).mkdir(parents=True, exist_ok=True)

        def show(record: ConversationRecord, result: ConversationScore) -> None:
            (out / folder / f"{record.goal.id}.txt").write_text(transcript(record, result), encoding="utf-8")
            print(f"  {record.goal.id:38s} {'done' if result.success else 'not done':8s} {result.turns:2d} turns  "
                  f"lost {len(result.facts_lost)}  re-asks {result.re_asks}  loops {result.loops}  "
                  f"state Qs {result.state_answered}/{result.state_questions}  {result.seconds:.1f} s", flush=True)
        return show

    async def run() -> dict[str, Any]:
        started = time.perf_counter()
        rows, scored = await run_benchmark(options, models_for, shown_in("conversations"))
        report: dict[str, Any] = {"options": {k: str(v) for k, v in asdict(options).items()}, "rows": rows,
                                  "seconds": round(time.perf_counter() - started, 1)}
        write_worst(scored, out / "worst", args.worst)
        report["conversations"] = [asdict(result) for _, result in scored]
        if args.model_subset and options.agent == "monologue" and options.wording != "model":
            worded = replace(options, n=args.model_subset, wording="model")
            model_rows, model_scored = await run_benchmark(worded, models_for, shown_in("conversations-model-wording"))
            report["model_wording_rows"] = model_rows
            write_worst(model_scored, out / "worst-model-wording", min(args.worst, 5))
        if args.returns and options.agent == "monologue":
            report["returns"] = {}
            for language in options.languages:
                models = await models_for(language)
                for domain in options.domains:
                    returned = await run_returns(replace(options, n=args.returns), domain, language, models)
                    asked = sum(r.asked for _, r in returned)
                    report["returns"][f"{load_domain(domain).name} × {language}"] = {
                        "users": len(returned), "asked": asked, "right": sum(r.right for _, r in returned),
                        "stale": sum(r.stale for _, r in returned),
                        "problems": [p for _, r in returned for p in r.problems]}
                    for records, result in returned:
                        text = "\n".join(transcript(rec, score_session(rec, domain)) for rec in records)
                        (out / "conversations" / f"{result.goal_id}.txt").write_text(
                            text + "\n" + "\n".join(result.problems) + "\n", encoding="utf-8")
        return report

    report = asyncio.run(run())
    (out / "results.json").write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    table = format_table(report["rows"])
    lines = [f"Simulated users, {options.partition} partition, wording: {options.wording}, agent: {options.agent}, "
             f"seed {options.seed}, {report['seconds']} s", "", table]
    if "model_wording_rows" in report:
        lines += ["", "With the model's wording:", "", format_table(report["model_wording_rows"])]
    if "returns" in report:
        lines += ["", "Returning users (memory questions answered right / asked; stale: a replaced value given):", ""]
        lines += [f"- {cell}: {r['right']}/{r['asked']} right, {r['stale']} stale, {r['users']} users"
                  for cell, r in report["returns"].items()]
    text = "\n".join(lines)
    (out / "table.md").write_text(text + "\n", encoding="utf-8")
    print("\n" + text)
    print(f"\nscores, transcripts and the worst conversations: {out}")
    return 0


def score_session(record: ConversationRecord, domain_name: str) -> ConversationScore:
    """A returning user's first session is a task like any other; its later ones have no task to score."""
    domain = load_domain(domain_name)
    if isinstance(record.user, SimulatedUser):
        return score(record, domain)
    return ConversationScore(record.goal.id, record.goal.domain, record.goal.language, len(record.exchanges),
                             False, None, seconds=record.seconds)
