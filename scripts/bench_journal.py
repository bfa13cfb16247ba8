"""What the turn journal adds to a reply: the time from the reply being made
to its acknowledgement, which now waits for one small insert (`LongTermMemory.journal_turn`).

    python scripts/bench_journal.py [--turns 200] [--store PATH | postgresql://…] [--json out.json]

Each turn runs as the reply stage runs it: recall, the journal entry (timed: this is what the
reply waits for), then the long-term write in the background, which the next turn's recall
waits for. The store is a fresh sealed SQLite file (FULL synchronous, as Monologue opens it)
unless `--store` names one; a PostgreSQL database gets a user of its own per run. Printed:
the entry's latency (median, p95, max) and the background write's for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from monologue.memory.longterm.engine import AnsweredTurn, LongTermMemory, LongTermStores
from monologue.memory.stores.factory import open_stores
from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV
from monologue.memory.working.turn_classes import TurnClass


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _summary(ms: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(_percentile(ms, 0.95), 3),
            "max_ms": round(max(ms), 3)}


async def bench(store: str, turns: int) -> dict[str, Any]:
    stores = open_stores(store)
    user, session = f"bench-{uuid.uuid4().hex[:6]}", f"bench-session-{uuid.uuid4().hex[:6]}"
    memory = LongTermMemory(stores.memories, user, stores=LongTermStores(profiles=stores.profiles))
    journal_ms: list[float] = []
    write_ms: list[float] = []
    for turn in range(1, turns + 1):
        text = f"my neighbour Kalo{turn} waters the plants on day {turn}"
        before = await memory.before_reply(text, session_id=session, turn_class=TurnClass.INFORMATION_CHANGE)
        started = time.perf_counter()
        pending = await memory.journal_turn(before, text, session_id=session, turn=turn,
                                            turn_class=TurnClass.INFORMATION_CHANGE, reply_text="Noted.")
        journal_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await memory.after_reply(AnsweredTurn(before, text, session_id=session, turn=turn,
                                              turn_class=TurnClass.INFORMATION_CHANGE, reply_text="Noted.",
                                              pending=pending))
        write_ms.append((time.perf_counter() - started) * 1000)
    left = memory.journal.count(user) if memory.journal is not None else -1
    memory.stream.erase()
    return {"store": stores.database.path, "turns": turns, "journal_entry": _summary(journal_ms),
            "background_write": _summary(write_ms), "entries_left": left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--store", default="", help="a SQLite path or postgresql:// URL (default: a fresh file)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = args.store or str(Path(folder) / "bench.db")
        if not args.store and not os.environ.get(KEY_ENV) and not os.environ.get(KEY_FILE_ENV):
            os.environ[KEY_FILE_ENV] = str(Path(folder) / "bench.key")     # not the user's own key file
        result = asyncio.run(bench(store, args.turns))
    print(json.dumps(result, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
