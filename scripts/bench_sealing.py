"""What sealing at rest costs (U3): writing memories and loading a user's stream, sealed vs plain.

    python scripts/bench_sealing.py [--memories 2000] [--runs 5]

Both stores are files in one temporary folder, measured side by side in the same run; the
medians are printed with their ratio. Loading the whole stream is what a session's first
recall does (`MemoryStream.records`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from monologue.memory.longterm.records import MemoryRecord, MemorySource
from monologue.memory.stores.memories import SqlMemoryStore
from monologue.memory.stores.sqlite import SQLiteDatabase


def _records(n: int) -> list[tuple[MemoryRecord, np.ndarray | None]]:
    rng = np.random.default_rng(14)
    return [(MemoryRecord(id=f"m{i}", user_id="bench", text=f"My friend Alex{i} likes table {i} near Pine Park.",
                          importance=5, source=MemorySource.USER_STATED, created_at=float(i), last_accessed_at=float(i),
                          expires_at=None), rng.standard_normal(384).astype(np.float32)) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = _records(args.memories)
    times: dict[str, dict[str, list[float]]] = {"plain": {"write": [], "load": []}, "sealed": {"write": [], "load": []}}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MONOLOGUE_KEY_FILE"] = str(Path(tmp) / "store.key")
        for run in range(args.runs):
            for variant in ("plain", "sealed"):
                db = SQLiteDatabase(Path(tmp) / f"{variant}-{run}.db", sealed=variant == "sealed")
                store = SqlMemoryStore(db)
                started = time.perf_counter()
                store.put_many(rows)
                times[variant]["write"].append(time.perf_counter() - started)
                started = time.perf_counter()
                SqlMemoryStore(db).all("bench")
                times[variant]["load"].append(time.perf_counter() - started)
                db.close()
    print(f"{args.memories} memories with 384-d vectors, median of {args.runs} runs")
    print("| | plain | sealed | ratio |\n|---|---|---|---|")
    for what in ("write", "load"):
        plain, sealed = (statistics.median(times[v][what]) * 1000 for v in ("plain", "sealed"))
        print(f"| {what} all | {plain:.0f} ms | {sealed:.0f} ms | ×{sealed / plain:.2f} |")


if __name__ == "__main__":
    main()
