"""Benchmark: the cost of the semantic layer (profiles) on bulk ingest, as a ratio.

Each LoCoMo conversation is ingested with ``ingest_many`` twice per round, into fresh
namespaces of one database: once with ``ConstructionConfig(profiles=True)`` (the default)
and once with ``profiles=False``, alternating which goes first (round by round and
conversation by conversation), so that drift of the machine's speed weighs on both. Prints
each pair's times and ratio, then the median and the range (min .. max) of the ratios, and
what the layer wrote (statements, values, conflict links). Before timing, the embedder and
the parse pipeline are loaded and each side ingests the first conversation's first 20 turns
once (a warm-up namespace), so that no pair pays for a first load.

Run from the repository root:
``python benchmarks/bench_profiles_cost.py ../shared/data/locomo-dev.json --rounds 2``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository, upgrade
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.text.parse import english_pipeline

__all__ = ["main"]

_WARM_TURNS = 20
"""Turns ingested once by each side before timing: the first ingest of a run also loads
the parse pipeline and warms the database, which would weigh on whichever side goes first.
"""


async def _ingest(memory: Memory, conversation: Conversation, namespace: tuple[str, ...]) -> float:
    start = time.perf_counter()
    await memory.aingest_many(namespace, conversation_observations(conversation))
    await memory.aflush()
    return time.perf_counter() - start


async def _written(database: Database, namespace: tuple[str, ...]) -> tuple[int, int, int]:
    """(chains, values, current values) of the namespace's profiles."""
    async with Repository.open(database, autocommit=True) as repo:
        chains = await repo.profile_chains(namespace)
        subjects = await repo.profile_subjects(namespace)
    return len(chains), sum(s[1] for s in subjects), sum(s[2] for s in subjects)


async def _run(path: Path, url: str | None, rounds: int) -> None:
    if url is None:
        url = embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    english_pipeline()
    memories = {
        on: Memory(database, embeddings, config=ConstructionConfig(profiles=on))
        for on in (True, False)
    }
    conversations = load_locomo(path)
    run = f"bench-{uuid.uuid4().hex[:8]}"
    warm = replace(conversations[0], turns=conversations[0].turns[:_WARM_TURNS])
    for on, memory in memories.items():
        await _ingest(memory, warm, (run, "warm-up", "on" if on else "off"))
    ratios: list[float] = []
    for round_ in range(rounds):
        for index, conversation in enumerate(conversations):
            order = (True, False) if (round_ + index) % 2 == 0 else (False, True)
            seconds: dict[bool, float] = {}
            for on in order:
                namespace = (run, f"r{round_}", "on" if on else "off", conversation.sample_id)
                seconds[on] = await _ingest(memories[on], conversation, namespace)
            ratio = seconds[True] / seconds[False]
            ratios.append(ratio)
            written = await _written(database, (run, f"r{round_}", "on", conversation.sample_id))
            print(
                f"round {round_} {conversation.sample_id}: {len(conversation.turns)} turns, "
                f"profiles on {seconds[True]:.2f} s, off {seconds[False]:.2f} s, "
                f"ratio {ratio:.3f} ({'on' if order[0] else 'off'} first); "
                f"chains {written[0]}, values {written[1]}, current {written[2]}",
                flush=True,
            )
    print(
        f"ingest time ratio profiles on / off over {len(ratios)} pairs: median "
        f"{statistics.median(ratios):.3f}, range {min(ratios):.3f} .. {max(ratios):.3f}"
    )


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--rounds", type=int, default=2, help="pairs per conversation")
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.url, args.rounds))


if __name__ == "__main__":
    main()
