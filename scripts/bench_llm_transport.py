"""In-process llama.cpp (litellm custom provider) vs llama-cpp-python's OpenAI server.

    pip install 'llama-cpp-python[server]==0.3.36'
    python scripts/bench_llm_transport.py [--runs 8]

Both serve the same GGUF with the same threads; requests alternate between the two
so machine noise hits both alike. Prints median time to first token and to the end
of a short streamed reply, through litellm in both cases.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

from monologue.configs import LLMOptions
from monologue.models.chat import ChatLLM, StreamStats
from monologue.models.llm import gguf_path

MODEL = "local/qwen2.5-0.5b-instruct"
MESSAGES = [
    {"role": "system", "content": "You are a friendly voice assistant. Answer in one short sentence."},
    {"role": "user", "content": "I'd like to book a table for four people on Saturday evening, nothing spicy."},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def timed(chat: ChatLLM) -> tuple[float, float]:
    stats = StreamStats()
    started = time.perf_counter()
    async for _ in chat.stream(MESSAGES, stats):
        pass
    return (stats.first_token_at or started) - started, (stats.finished_at or started) - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    port = free_port()
    path = gguf_path(MODEL)
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--n_threads", "2", "--model_alias", "qwen"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started = time.perf_counter()
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                if server.poll() is not None or time.perf_counter() - started > 60:
                    raise SystemExit("llama_cpp.server did not start; is llama-cpp-python[server] installed?") from None
                time.sleep(0.2)
        server_start = time.perf_counter() - started
        in_process = ChatLLM(LLMOptions(model=MODEL, fallback=None, max_tokens=40, temperature=0.0))
        over_http = ChatLLM(LLMOptions(model="openai/qwen", api_base=f"http://127.0.0.1:{port}/v1", fallback=None,
                                       max_tokens=40, temperature=0.0), extra={"api_key": "none"})
        started = time.perf_counter()
        in_process.warm_up()
        in_process_load = time.perf_counter() - started
        over_http.prepare()
        results: dict[str, list[tuple[float, float]]] = {"in-process": [], "server": []}

        async def run_all() -> None:
            await timed(over_http)  # server warm-up
            for _ in range(args.runs):
                results["in-process"].append(await timed(in_process))
                results["server"].append(await timed(over_http))

        asyncio.run(run_all())
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"\n## Local LLM transport — {MODEL}, {args.runs} alternating requests each, 40 tokens max")
    print(f"start-up: server process ready in {server_start:.1f} s; in-process load + warm-up {in_process_load:.1f} s")
    print("\n| transport | TTFT median (ms) | full reply median (ms) |\n|---|---:|---:|")
    for name, rows in results.items():
        print(f"| {name} | {statistics.median(r[0] for r in rows) * 1000:.0f} | "
              f"{statistics.median(r[1] for r in rows) * 1000:.0f} |")
    ratio = statistics.median(r[0] for r in results["server"]) / statistics.median(r[0] for r in results["in-process"])
    print(f"\nserver / in-process TTFT ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
