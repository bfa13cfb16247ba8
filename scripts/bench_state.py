"""Working-memory benchmarks over a 30-turn session (W7, W10, E1).

    python scripts/bench_state.py [--repeats 5] [--llm local/qwen2.5-0.5b-instruct] [--no-llm]

1. Cost per turn: state-update time and reply-prompt tokens at each turn; the ratios
   turn 30 / turn 3 show whether either grows with the session.
2. Faithfulness: at turns 10, 20 and 30 the user asks for a read-back; the same LLM
   answers three ways — from Monologue's state, from the whole history, from the last
   two user turns — and each answer is scored on the user's live conditions it states
   and on superseded values it repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monologue.configs import load_config
from monologue.memory.stores.state import InMemoryStateStore
from monologue.memory.working.conversation import ConversationLog
from monologue.memory.working.engine import WorkingMemory, WorkingMemoryOptions
from monologue.memory.working.render import render_state_for_reply
from monologue.memory.working.turn_classes import classify_turn
from monologue.processors.frames import Transcription, Turn
from monologue.processors.reply_wording import PromptOptions, build_reply_prompt

SESSION = Path(__file__).resolve().parent.parent / "assets" / "scripts" / "long_session_en.json"
READ_BACK = ("Please read back my booking: the day, the time, how many people, and every other "
             "request I made.")
CHECKPOINTS = (10, 20, 30)
NUMBER_WORDS = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 300: "three hundred", 500: "five hundred"}


def token_counter() -> tuple[Callable[[str], int], str]:
    """Qwen's own tokenizer when llama.cpp is installed, else ~4 characters a token."""
    try:
        import llama_cpp

        from monologue.models.llm import gguf_path

        vocab = llama_cpp.Llama(model_path=str(gguf_path("local/qwen2.5-0.5b-instruct")), vocab_only=True,
                                verbose=False)
        return (lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False))), "Qwen2.5 tokenizer"
    except Exception:
        return (lambda text: max(1, len(text) // 4)), "≈ chars/4"


def prompt_text(messages: list[dict[str, str]]) -> str:
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages)


async def cost_per_turn(turns: list[dict[str, Any]], repeats: int, count: Callable[[str], int]) -> dict[str, Any]:
    config = load_config(environ={})
    system = config.reply.system_prompt.replace("{role}", "books restaurant tables and recommends places to eat")
    update_ms: list[list[float]] = [[] for _ in turns]
    tokens: list[int] = []
    history_tokens: list[int] = []
    for repeat in range(repeats):
        memory = WorkingMemory(f"bench-{repeat}", InMemoryStateStore(), WorkingMemoryOptions())
        log = ConversationLog()
        for index, turn in enumerate(turns, 1):
            text = turn["say"]
            cls = classify_turn(text, memory.reads_condition, schema=memory.schema).turn_class
            started = time.perf_counter()
            if cls.triggers_monologue:
                await memory.update(text, turn=index, turn_class=cls.value)
            update_ms[index - 1].append((time.perf_counter() - started) * 1000)
            log.add("user", text, index)
            if repeat == 0:
                record = Turn(index, 0.0, 0.0, 0.0, 0.0)
                record.asr = Transcription(text=text)
                state_text = render_state_for_reply(memory.state, memory.schema)
                messages = build_reply_prompt(log, record, PromptOptions(system, 4, 240), state_text)
                tokens.append(count(prompt_text(messages)))
                everything = [{"role": "system", "content": system}] + [
                    {"role": u.role, "content": u.text} for u in log.all()]
                history_tokens.append(count(prompt_text(everything)))
            log.add("assistant", "Okay, noted.", index)
    return {"update_ms": [statistics.median(v) for v in update_ms], "tokens": tokens, "history_tokens": history_tokens}


def live_at(turns: list[dict[str, Any]], k: int) -> tuple[dict[str, Any], dict[str, set[Any]]]:
    """Conditions live after turn k, and every value each slot held before (superseded)."""
    live: dict[str, Any] = {}
    old: dict[str, set[Any]] = {}
    for turn in turns[:k]:
        for slot, value in turn["expect"].items():
            if slot in live and live[slot] != value:
                old.setdefault(slot, set()).add(live[slot])
            if value is None:
                live.pop(slot, None)
            else:
                live[slot] = value
    for slot, value in live.items():
        old.get(slot, set()).discard(value)
    return live, old


def mentions(text: str, slot: str, value: Any) -> bool:
    t = text.lower()
    if slot == "time":
        hour, minute = (int(x) for x in str(value).split(":"))
        h12 = hour - 12 if hour > 12 else hour
        pattern = rf"\b(?:{hour}:{minute:02d}|{h12}(?::{minute:02d})?\s*(?:pm|p\.m\.)" + (
            rf"|half past {h12}|{h12}:30" if minute == 30 else rf"|{h12} o'?clock") + ")"
        return re.search(pattern, t) is not None
    if slot.startswith("dietary:"):
        negated = rf"\b(?:no|not|without|non-|avoid\w*|free of|allerg\w*)\W+(?:\w+\W+){{0,3}}{value[:4]}"
        return re.search(negated, t) is not None
    if isinstance(value, int):
        words = [str(value)] + ([NUMBER_WORDS[value]] if value in NUMBER_WORDS else [])
        return any(re.search(rf"\b{w}\b", t) for w in words)
    return str(value).replace("_", " ") in t


def score(reply: str, live: dict[str, Any], old: dict[str, set[Any]]) -> tuple[int, int, int]:
    honoured = sum(mentions(reply, slot, value) for slot, value in live.items())
    stale = sum(mentions(reply, slot, value) for slot, values in old.items() for value in values
                if not (isinstance(value, int) and slot == "party_size" and str(value) in str(live.get(slot, ""))))
    return honoured, len(live), stale


async def three_ways(turns: list[dict[str, Any]], llm_model: str) -> list[dict[str, Any]]:
    from monologue.configs import LLMOptions
    from monologue.models.chat import ChatLLM, StreamStats

    config = load_config(environ={})
    system = config.reply.system_prompt.replace("{role}", "books restaurant tables and recommends places to eat")
    # The baselines get no context note, so their system prompt does not promise one.
    plain_system = system.split(" Each user message starts")[0]
    llm = ChatLLM(LLMOptions(model=llm_model, fallback=None, max_tokens=90, temperature=0.0, timeout_secs=120))
    await asyncio.to_thread(llm.warm_up)
    memory = WorkingMemory("three-ways", InMemoryStateStore(), WorkingMemoryOptions())
    log = ConversationLog()
    rows = []

    async def answer(messages: list[dict[str, str]]) -> str:
        return "".join([d async for d in llm.stream(messages, StreamStats())]).strip()

    for index, turn in enumerate(turns, 1):
        cls = classify_turn(turn["say"], memory.reads_condition, schema=memory.schema).turn_class
        if cls.triggers_monologue:
            await memory.update(turn["say"], turn=index, turn_class=cls.value)
        # User turns only: the same words reach all three prompts (filler agent turns would
        # only teach a small model to repeat them).
        log.add("user", turn["say"], index)
        if index not in CHECKPOINTS:
            continue
        live, old = live_at(turns, index)
        question = {"role": "user", "content": READ_BACK}
        record = Turn(index + 1000, 0.0, 0.0, 0.0, 0.0)
        record.asr = Transcription(text=READ_BACK)
        prompts = {
            "monologue state": build_reply_prompt(log, record, PromptOptions(system, 4, 240),
                                                  render_state_for_reply(memory.state, memory.schema)),
            "whole history": [{"role": "system", "content": plain_system}]
            + [{"role": u.role, "content": u.text} for u in log.all()] + [question],
            "last two user turns": [{"role": "system", "content": plain_system}]
            + [{"role": "user", "content": u.text} for u in log.all() if u.role == "user"][-2:] + [question],
        }
        for method, messages in prompts.items():
            started = time.perf_counter()
            reply = await answer(messages)
            honoured, total, stale = score(reply, live, old)
            rows.append({"turn": index, "method": method, "honoured": honoured, "live": total, "stale": stale,
                         "secs": time.perf_counter() - started, "reply": reply})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--llm", default="local/qwen2.5-0.5b-instruct")
    parser.add_argument("--no-llm", action="store_true", help="skip the three-way comparison")
    parser.add_argument("--json", help="write the raw rows here")
    args = parser.parse_args()
    turns = json.loads(SESSION.read_text())["turns"]
    count, tokenizer = token_counter()
    cost = asyncio.run(cost_per_turn(turns, args.repeats, count))
    ms, tok, hist = cost["update_ms"], cost["tokens"], cost["history_tokens"]
    print(f"\n## Working memory over a {len(turns)}-turn session ({SESSION.name}; rules, no LLM in the update)")
    print(f"tokens: {tokenizer}; update times are medians of {args.repeats} runs")
    print("\n| turn | update (ms) | reply prompt (tokens) | whole-history prompt (tokens) |\n|---:|---:|---:|---:|")
    for t in (1, 3, 10, 20, 30):
        print(f"| {t} | {ms[t - 1]:.2f} | {tok[t - 1]} | {hist[t - 1]} |")
    ran = [i for i, m in enumerate(ms) if m > 0.05]          # turns whose update ran (not chit-chat)
    first, last = next(i for i in ran if i >= 2), ran[-1]
    print(f"\nupdate time, last updating turn ({last + 1}) / first from turn 3 ({first + 1}): "
          f"×{ms[last] / ms[first]:.2f}; "
          f"reply prompt turn 30 / turn 3: ×{tok[29] / tok[2]:.2f} (whole history ×{hist[29] / hist[2]:.2f}); "
          f"median update {statistics.median(ms[i] for i in ran):.2f} ms over the {len(ran)} updating turns")
    if args.no_llm:
        return
    rows = asyncio.run(three_ways(turns, args.llm))
    print(f"\n## Read-backs at turns {', '.join(map(str, CHECKPOINTS))} — same LLM ({args.llm}), three prompts")
    print("\n| method | live conditions stated | superseded values repeated | median reply time (s) |"
          "\n|---|---:|---:|---:|")
    for method in ("monologue state", "whole history", "last two user turns"):
        mine = [r for r in rows if r["method"] == method]
        honoured, live = sum(r["honoured"] for r in mine), sum(r["live"] for r in mine)
        print(f"| {method} | {honoured}/{live} ({honoured / live:.0%}) | {sum(r['stale'] for r in mine)} | "
              f"{statistics.median(r['secs'] for r in mine):.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"cost": cost, "three_ways": rows}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
