"""Side-by-side search latency of two checkouts of langmemcore on the same loaded memory.

Run from the repository root: ``python benchmarks/search_ab.py DATA --a /work/main --b .
--namespace A.B [--questions 100] [--rounds 3]`` (``--url`` or ``LANGMEMCORE_HOME`` names
the database, for example the embedded server ``benchmarks/bench_search.py`` left loaded).

Two worker processes, one per checkout (``PYTHONPATH`` set to it), each with its own
embedder and connection pool, answer the same LoCoMo questions (``Memory.asearch``,
defaults, no LLM, ``k=20``) in turn, question by question, the first of each pair
alternating, so that the machine's drift weighs on both alike. Each worker times its own
searches. After 5 warm-up questions each, every round prints both sides' p50 / p95 / mean
ms and the ratios b / a; then the median and range of the ratios over rounds, and the
median and quartiles of the per-question ratios b / a (paired, so the drift between
questions cancels; steadier than a ratio of percentiles on a loaded machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

WARMUP = 5


async def _worker(url: str | None, namespace: str) -> None:
    from langmemcore.embeddings import LocalEmbeddings
    from langmemcore.memory import Memory
    from langmemcore.storage import Database

    memory = Memory(Database.connect(url), LocalEmbeddings())
    ns = tuple(namespace.split("."))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        question = json.loads(line)["q"]
        start = time.perf_counter()
        await memory.asearch(ns, question, k=20)
        print(json.dumps({"ms": (time.perf_counter() - start) * 1000}), flush=True)


def _spawn(checkout: Path, args: argparse.Namespace) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    command = [sys.executable, __file__, "worker", "--namespace", args.namespace]
    if args.url:
        command += ["--url", args.url]
    worker = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert worker.stdout is not None
    json.loads(worker.stdout.readline())
    return worker


def _ask(worker: subprocess.Popen[str], question: str) -> float:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps({"q": question}) + "\n")
    worker.stdin.flush()
    return float(json.loads(worker.stdout.readline())["ms"])


def _compare(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(args.a.resolve()))
    from langmemcore.locomo import load_locomo

    questions = [q.question for c in load_locomo(args.path) for q in c.retrieval_questions]
    asked = questions[: args.questions]
    workers = {"a": _spawn(args.a, args), "b": _spawn(args.b, args)}
    for question in questions[-WARMUP:]:
        for worker in workers.values():
            _ask(worker, question)
    ratios: dict[str, list[float]] = {"p50": [], "p95": []}
    paired: list[float] = []
    for round in range(1, args.rounds + 1):
        ms: dict[str, list[float]] = {"a": [], "b": []}
        for index, question in enumerate(asked):
            order = ("a", "b") if (index + round) % 2 else ("b", "a")
            for side in order:
                ms[side].append(_ask(workers[side], question))
        paired += [b / a for a, b in zip(ms["a"], ms["b"], strict=True)]
        line = []
        for side in ("a", "b"):
            p50, p95 = np.percentile(ms[side], [50, 95])
            line.append(f"{side}: p50 {p50:.1f} p95 {p95:.1f} mean {np.mean(ms[side]):.1f}")
        for q in (50, 95):
            ratios[f"p{q}"].append(np.percentile(ms["b"], q) / np.percentile(ms["a"], q))
        line.append(f"b/a p50 {ratios['p50'][-1]:.3f} p95 {ratios['p95'][-1]:.3f}")
        print(f"round {round}: " + "; ".join(line), flush=True)
    for name, values in ratios.items():
        print(
            f"{name} ratio b/a: median {np.median(values):.3f}, "
            f"range {min(values):.3f}-{max(values):.3f} over {len(values)} rounds"
        )
    low, mid, high = np.percentile(paired, [25, 50, 75])
    print(
        f"per-question ratio b/a (each question's two searches back to back): median "
        f"{mid:.3f}, quartiles {low:.3f}-{high:.3f} over {len(paired)} pairs"
    )
    for worker in workers.values():
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["compare", "worker"])
    parser.add_argument("path", type=Path, nargs="?", help="LoCoMo JSON file (compare)")
    parser.add_argument("--a", type=Path, default=Path("/work/main"))
    parser.add_argument("--b", type=Path, default=Path("."))
    parser.add_argument("--namespace", required=True, help="dot-separated")
    parser.add_argument("--url", default=None)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.mode == "worker":
        asyncio.run(_worker(args.url, args.namespace))
    else:
        _compare(args)


if __name__ == "__main__":
    main()
