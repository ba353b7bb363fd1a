"""Time of one observation's write into a namespace that already holds many notes (for
example one that ``benchmarks/bench_scale.py`` loaded, with its server kept): LoCoMo turns
written one by one through ``Memory.aingest`` (defaults, no LLM; topic evolution off so
that no namespace-wide run lands inside the timing), each under a key of this run, so
that a rerun writes new observations.

Run from the repository root, with ``PYTHONPATH`` naming the code to run (alternate two
checkouts for a side-by-side ratio): ``python benchmarks/ingest_at_scale.py DATA --url URL
--namespace A.B [--turns 30] [--skip 0]``; ``--skip`` starts further into the turns, so
that each run of a pair writes other turns. Prints p50 / p95 / mean milliseconds per
observation.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from pathlib import Path

import numpy as np

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.database import resolve_database_url


async def _run(args: argparse.Namespace) -> None:
    database = Database.connect(resolve_database_url(args.url))
    memory = Memory(database, LocalEmbeddings(), config=ConstructionConfig(topic_every=0))
    items = [o for c in load_locomo(args.path) for o in conversation_observations(c)]
    items = items[args.skip : args.skip + args.turns]
    namespace = tuple(args.namespace.split("."))
    run = uuid.uuid4().hex[:8]
    await memory.aingest(namespace, "warming up the embedder and the pool", key=f"{run}-warm")
    spent = []
    for item in items:
        started = time.perf_counter()
        await memory.aingest(
            namespace,
            item.text,
            key=f"{run}-{item.key}",
            speaker=item.speaker,
            event_time=item.event_time,
        )
        spent.append((time.perf_counter() - started) * 1000)
    p50, p95 = np.percentile(spent, [50, 95])
    print(f"{len(spent)} writes: p50 {p50:.1f} p95 {p95:.1f} mean {np.mean(spent):.1f} ms")
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=None)
    parser.add_argument("--namespace", required=True, help="dot-separated")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--skip", type=int, default=0)
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
