"""Benchmark: the cost of the semantic layer (profiles) on bulk ingest, as a ratio.

Each LoCoMo conversation is ingested with ``ingest_many`` twice per round, into fresh
namespaces of one database: once with ``ConstructionConfig(profiles=True)`` (the default)
and once with ``profiles=False``, alternating which goes first (round by round and
conversation by conversation), so that drift of the machine's speed weighs on both. Prints
each pair's times and ratio, and its ratio of CPU seconds (this process and, with the
embedded server, the server's processes: what the layer adds whatever else the machine
runs), then the median and the range (min .. max) of both ratios, the SQL statements per
observation of each side, and what the layer wrote (chains, values, current values). Before
timing, the embedder and the parse pipeline are loaded and each side ingests the first
conversation's first 20 turns once (a warm-up namespace), so that no pair pays for a first
load. ``--conversation`` and ``--turns`` restrict the run to a fixed subset (one
conversation, its first turns), so that many pairs fit in a short run.

Run from the repository root:
``python benchmarks/bench_profiles_cost.py ../shared/data/locomo-dev.json --rounds 2``
``python benchmarks/bench_profiles_cost.py ../shared/data/locomo-dev.json --conversation
conv-26 --turns 150 --rounds 8``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path

import psutil

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository, upgrade
from langmemcore.storage.diagnostics import statement_hooks
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.text.parse import english_pipeline

__all__ = ["main"]

_WARM_TURNS = 20
"""Turns ingested once by each side before timing: the first ingest of a run also loads
the parse pipeline and warms the database, which would weigh on whichever side goes first.
"""


def server_processes(data_dir: Path) -> list[psutil.Process]:
    """The embedded server's postmaster and its children (backends, writers)."""
    pid = int((data_dir / "pgdata" / "postmaster.pid").read_text().split()[0])
    master = psutil.Process(pid)
    return [master, *master.children(recursive=True)]


def cpu_seconds(processes: list[psutil.Process]) -> float:
    """User and system CPU seconds so far of the processes still running."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def _cpu(data_dir: Path | None) -> float:
    """CPU seconds so far of this process and of the embedded server's processes (none
    with ``--url``).
    """
    server = server_processes(data_dir) if data_dir is not None else []
    return cpu_seconds([psutil.Process(), *server])


async def _ingest(
    memory: Memory,
    conversation: Conversation,
    namespace: tuple[str, ...],
    data_dir: Path | None,
    statements: Counter[bool],
) -> tuple[float, float]:
    """Wall and CPU seconds of one ingest; counts its statements under the side's key."""
    on = memory.config.profiles

    def count(_sql: str) -> None:
        statements[on] += 1

    cpu, start = _cpu(data_dir), time.perf_counter()
    with statement_hooks(memory.database, count):
        await memory.aingest_many(namespace, conversation_observations(conversation))
        await memory.aflush()
    return time.perf_counter() - start, _cpu(data_dir) - cpu


async def _written(database: Database, namespace: tuple[str, ...]) -> tuple[int, int, int]:
    """(chains, values, current values) of the namespace's profiles."""
    async with Repository.open(database, autocommit=True) as repo:
        chains = await repo.profile_chains(namespace)
        subjects = await repo.profile_subjects(namespace)
    return len(chains), sum(s[1] for s in subjects), sum(s[2] for s in subjects)


def _conversations(path: Path, only: str | None, turns: int | None) -> list[Conversation]:
    """The file's conversations, or the one named, each cut to its first ``turns``."""
    found = [c for c in load_locomo(path) if only is None or c.sample_id == only]
    return [replace(c, turns=c.turns[:turns]) if turns else c for c in found]


def _spread(name: str, ratios: list[float]) -> str:
    return (
        f"{name} on / off over {len(ratios)} pairs: median {statistics.median(ratios):.3f}, "
        f"range {min(ratios):.3f} .. {max(ratios):.3f}"
    )


async def _run(path: Path, url: str | None, args: argparse.Namespace) -> None:
    data_dir = None
    if url is None:
        data_dir = Path(tempfile.mkdtemp(prefix="lmc-bench-"))
        url = embedded_database_url(data_dir)
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    english_pipeline()
    memories = {
        on: Memory(database, embeddings, config=ConstructionConfig(profiles=on))
        for on in (True, False)
    }
    conversations = _conversations(path, args.conversation, args.turns)
    run = f"bench-{uuid.uuid4().hex[:8]}"
    warm = replace(conversations[0], turns=conversations[0].turns[:_WARM_TURNS])
    statements: Counter[bool] = Counter()
    for on, memory in memories.items():
        await _ingest(memory, warm, (run, "warm-up", "on" if on else "off"), data_dir, Counter())
    walls: list[float] = []
    cpus: list[float] = []
    for round_ in range(args.rounds):
        for index, conversation in enumerate(conversations):
            order = (True, False) if (round_ + index) % 2 == 0 else (False, True)
            spent: dict[bool, tuple[float, float]] = {}
            for on in order:
                namespace = (run, f"r{round_}", "on" if on else "off", conversation.sample_id)
                spent[on] = await _ingest(
                    memories[on], conversation, namespace, data_dir, statements
                )
            walls.append(spent[True][0] / spent[False][0])
            cpus.append(spent[True][1] / spent[False][1])
            written = await _written(database, (run, f"r{round_}", "on", conversation.sample_id))
            print(
                f"round {round_} {conversation.sample_id}: {len(conversation.turns)} turns, "
                f"profiles on {spent[True][0]:.2f} s, off {spent[False][0]:.2f} s, "
                f"ratio {walls[-1]:.3f}, CPU ratio {cpus[-1]:.3f} "
                f"({'on' if order[0] else 'off'} first); "
                f"chains {written[0]}, values {written[1]}, current {written[2]}",
                flush=True,
            )
    observations = args.rounds * sum(len(c.turns) for c in conversations)
    print(_spread("ingest time ratio profiles", walls))
    print(_spread("CPU seconds ratio profiles", cpus))
    print(
        f"SQL statements per observation: profiles on {statements[True] / observations:.3f}, "
        f"off {statements[False] / observations:.3f}"
    )


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--rounds", type=int, default=2, help="pairs per conversation")
    parser.add_argument("--conversation", help="only this conversation (sample id)")
    parser.add_argument("--turns", type=int, help="only each conversation's first turns")
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.url, args))


if __name__ == "__main__":
    main()
