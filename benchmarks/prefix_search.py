"""Benchmark: ``MemoryStore.search(prefix, query=...)`` over one namespace and over a prefix
that covers many.

Loads ``--namespaces`` namespaces under ``("bench", <run>)``, each with the demo
conversation's 50 real turns (``langmemcore/demo/conversation.json``) as store items with
value ``{"text", "speaker", "time"}`` (one ``PutOp`` batch per namespace, constructed
offline), then times, alternating ``--rounds`` times, the demo's questions searched in one
namespace and over the prefix covering all of them. Prints each round's seconds, the
median and spread (min-max) of each, and the ratio of the medians.

Same server for everything: a fresh embedded Postgres unless ``--url`` / ``DATABASE_URL``
is given. The local all-MiniLM-L6-v2 embedder, no model.

Run from the repository root::

    python benchmarks/prefix_search.py
    python benchmarks/prefix_search.py --namespaces 40 --rounds 7
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

from langgraph.store.base import PutOp

from langmemcore import MemoryStore
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]

DEMO = Path(__file__).resolve().parents[1] / "langmemcore" / "demo" / "conversation.json"


async def _load(store: MemoryStore, root: tuple[str, ...], count: int) -> list[str]:
    demo = json.loads(DEMO.read_text())
    for i in range(count):
        ns = (*root, f"user{i:03d}")
        ops = [
            PutOp(ns, o["key"], {"text": o["text"], "speaker": o["speaker"], "time": o["time"]})
            for o in demo["observations"]
        ]
        await store.abatch(ops)
    await store.aflush()
    return list(demo["questions"])


async def _timed(store: MemoryStore, prefix: tuple[str, ...], questions: list[str]) -> float:
    start = time.perf_counter()
    for question in questions:
        await store.asearch(prefix, query=question, limit=10)
    return time.perf_counter() - start


async def _run(args: argparse.Namespace) -> None:
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    store = MemoryStore(Memory(database, LocalEmbeddings()))
    root = ("bench", uuid.uuid4().hex[:8])
    start = time.perf_counter()
    questions = await _load(store, root, args.namespaces)
    print(f"loaded {args.namespaces} namespaces x 50 turns in {time.perf_counter() - start:.1f} s")
    one = (*root, "user000")
    await _timed(store, one, questions[:1])
    await _timed(store, root, questions[:1])
    times: dict[str, list[float]] = {"one": [], "prefix": []}
    for round_no in range(args.rounds):
        order = ["one", "prefix"] if round_no % 2 == 0 else ["prefix", "one"]
        for which in order:
            times[which].append(await _timed(store, one if which == "one" else root, questions))
        print(
            f"round {round_no + 1}: one namespace {times['one'][-1]:.3f} s, "
            f"prefix of {args.namespaces} {times['prefix'][-1]:.3f} s "
            f"({len(questions)} questions each)"
        )
    for which, label in (("one", "one namespace"), ("prefix", f"prefix of {args.namespaces}")):
        runs = times[which]
        print(
            f"{label}: median {statistics.median(runs):.3f} s "
            f"(min {min(runs):.3f}, max {max(runs):.3f}) for {len(questions)} questions"
        )
    ratio = statistics.median(times["prefix"]) / statistics.median(times["one"])
    print(f"ratio prefix / one: {ratio:.2f}x")
    await database.dispose()


def main() -> None:
    """Parse the arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespaces", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
