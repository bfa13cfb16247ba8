"""LoCoMo evidence recall (E2) and retrieval latency at scale (L17).

    python scripts/bench_locomo.py --data ../shared/data/locomo [--scale 1000,10000,100000]

Each conversation is ingested session by session with its dates, one memory per turn
("Speaker: text"), into a fresh stream. For every question with evidence (adversarial
category 5 left out, as in the published baseline) the top 25 memories are compared with
the evidence turns: recall@5/10/25 per category, for BM25 over turns, plain embedding
similarity, and Monologue's retrieval — side by side in one run, same memories.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from datetime import datetime
from pathlib import Path

import numpy as np

from monologue.memory.longterm.engine import RECALL_WEIGHTS
from monologue.memory.longterm.importance import rule_importance
from monologue.memory.longterm.records import MemoryRecord, MemorySource
from monologue.memory.longterm.retrieval import BM25, RetrievalWeights, Retriever
from monologue.memory.longterm.stream import MemoryStream, StreamOptions
from monologue.memory.stores.memories import SqlMemoryStore

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 25)


def session_time(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp()


def ingest(conversation: dict, encoder) -> tuple[MemoryStream, list[MemoryRecord], float]:
    conv = conversation["conversation"]
    store = SqlMemoryStore(":memory:")
    stream = MemoryStream(store, conversation["sample_id"], embed=encoder.embed,
                          options=StreamOptions(near_duplicate=1.01))
    rows, last = [], 0.0
    index = 1
    while f"session_{index}" in conv:
        at = session_time(conv[f"session_{index}_date_time"])
        turns = conv[f"session_{index}"]
        texts = [f"{t['speaker']}: {t['text']}" for t in turns]
        # Each turn is also read with its neighbours: the turn before it (for the vector)
        # and both sides (for the words) — a reply means little without its question.
        before = [(texts[n - 1] + " " if n else "") + texts[n] for n in range(len(texts))]
        around = [before[n] + (" " + texts[n + 1] if n + 1 < len(texts) else "") for n in range(len(texts))]
        vectors = encoder.embed(before)
        for n, (turn, text) in enumerate(zip(turns, texts, strict=True)):
            record = MemoryRecord(id=turn["dia_id"], user_id=stream.user_id, text=text,
                                  importance=rule_importance(turn["text"]) or 4, source=MemorySource.USER_STATED,
                                  created_at=at + n * 30, last_accessed_at=at + n * 30, expires_at=None,
                                  evidence=[turn["dia_id"]], session_id=f"S{index}",
                                  context={"speaker": turn["speaker"], "around": around[n]})
            rows.append((record, vectors[n]))
        last = max(last, at)
        index += 1
    store.put_many(rows)
    return stream, [r for r, _ in rows], last + 86400


def recall(ranked: list[str], evidence: list[str]) -> dict[int, float]:
    wanted = set(evidence)
    return {k: len(wanted & set(ranked[:k])) / len(wanted) for k in KS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo"))
    parser.add_argument("--scale", default="1000,10000,100000", help="memory counts for the latency test ('' skips)")
    args = parser.parse_args()
    path = Path(args.data)
    path = path / "locomo-dev6.json" if path.is_dir() else path
    if not path.is_file():
        raise SystemExit(f"no LoCoMo data at {path}; pass --data ../shared/data/locomo")
    from monologue.models.embedder import SentenceEncoder

    encoder = SentenceEncoder()
    data = json.loads(path.read_text())
    product = f"Monologue recall ({RECALL_WEIGHTS.recency}/{RECALL_WEIGHTS.importance}/{RECALL_WEIGHTS.relevance})"
    methods: dict[str, list[dict[int, float]]] = {
        "BM25 over turns": [], "embedding similarity": [], "Monologue (seed weights .3/.4/.3)": [], product: []}
    cats: list[int] = []
    latencies: list[float] = []
    started = time.perf_counter()
    for conversation in data:
        stream, records, now = ingest(conversation, encoder)
        ids = [r.id for r in records]
        bm25 = BM25([r.text for r in records], stemmed=False)   # the published baseline's plain words
        plain = encoder.embed([r.text for r in records])   # the plain-embedding baseline: turn text only
        seed = Retriever(stream, RetrievalWeights())
        led = Retriever(stream, RECALL_WEIGHTS)    # what LongTermMemory uses on a reply
        for qa in conversation["qa"]:
            if qa["category"] not in CATEGORIES or not qa.get("evidence"):
                continue
            question = qa["question"]
            evidence = [e.strip() for e in qa["evidence"]]
            cats.append(qa["category"])
            lexical = bm25.scores(question)
            methods["BM25 over turns"].append(recall([ids[i] for i in np.argsort(-lexical)[:25]], evidence))
            q = encoder.embed([question])[0]
            dense = plain @ q
            methods["embedding similarity"].append(recall([ids[i] for i in np.argsort(-dense)[:25]], evidence))
            for name, retriever in (("Monologue (seed weights .3/.4/.3)", seed),
                                    (product, led)):
                result = retriever.retrieve(question, k=25, now=now, touch=False)
                if name.startswith("Monologue (seed"):
                    latencies.append(result.elapsed_ms)
                methods[name].append(recall([m.record.id for m in result.memories], evidence))
    print(f"\n## LoCoMo evidence recall — {path.name}: {len(data)} conversations, {len(cats)} questions "
          f"(categories 1–4), {time.perf_counter() - started:.0f} s")
    print("\n| method | R@5 | R@10 | R@25 | multi-hop R@10 | temporal R@10 | open-domain R@10 | single-hop R@10 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, rows in methods.items():
        overall = [statistics.mean(r[k] for r in rows) for k in KS]
        per = [statistics.mean(r[10] for r, c in zip(rows, cats, strict=True) if c == cat) for cat in CATEGORIES]
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in overall) + " | "
              + " | ".join(f"{v:.3f}" for v in per) + " |")
    print(f"\nretrieval latency on LoCoMo streams (~600 memories): median {statistics.median(latencies):.1f} ms, "
          f"p95 {np.percentile(latencies, 95):.1f} ms (query embedding included)")
    if args.scale:
        scale_test([int(x) for x in args.scale.split(",") if x], data, encoder)


def scale_test(sizes: list[int], data: list[dict], encoder) -> None:
    """Latency for one user with N memories (LoCoMo turns, repeated with new ids and vectors)."""
    texts = [f"{t['speaker']}: {t['text']}" for c in data for k, v in c["conversation"].items()
             if k.startswith("session_") and not k.endswith("date_time") for t in v]
    base = encoder.embed(texts[:2000])
    rng = np.random.default_rng(0)
    questions = [qa["question"] for c in data for qa in c["qa"]][:200]
    print("\n| memories | build (s) | median (ms) | p95 (ms) |\n|---:|---:|---:|---:|")
    for size in sizes:
        store = SqlMemoryStore(":memory:")
        stream = MemoryStream(store, "scale", embed=encoder.embed)
        now = time.time()
        rows = []
        for i in range(size):
            vector = base[i % len(base)] + rng.normal(0, 0.02, base.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            rows.append((MemoryRecord(id=f"m{i}", user_id="scale", text=texts[i % len(texts)] + f" #{i // len(texts)}",
                                      importance=int(rng.integers(1, 11)), source=MemorySource.USER_STATED,
                                      created_at=now - i * 60, last_accessed_at=now - i * 60, expires_at=None,
                                      session_id=f"s{i // 30}"), vector))   # 30 memories a session
        build = time.perf_counter()
        store.put_many(rows)
        retriever = Retriever(stream)
        retriever.retrieve("warm up", touch=False)
        build = time.perf_counter() - build
        times = []
        for question in random.Random(1).sample(questions, min(60, len(questions))):
            t = time.perf_counter()
            retriever.retrieve(question, k=10, now=now, touch=False)
            times.append((time.perf_counter() - t) * 1000)
        print(f"| {size:,} | {build:.1f} | {statistics.median(times):.1f} | {np.percentile(times, 95):.1f} |")


if __name__ == "__main__":
    main()
