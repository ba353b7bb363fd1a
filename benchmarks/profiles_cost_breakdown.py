"""Benchmark: where the semantic layer's ingest cost is, in figures that do not depend on
the machine's load.

A subset of a LoCoMo file (one conversation, its first ``--turns`` turns) is ingested with
``ingest_many`` into fresh namespaces of one embedded database, ``--rounds`` times per
side, alternating ``ConstructionConfig(profiles=True)`` and ``profiles=False``. Per side it
reports:

- the SQL statements sent, per observation and by kind (first words of the statement),
  counted with :func:`langmemcore.storage.diagnostics.statement_hooks`;
- CPU seconds of this process (client: Python, the embedder, the parse; of which the
  event loop's thread: construction and the SQL client, and the extraction's worker
  thread inside ``extract_batch``) and of the
  embedded server's processes (Postgres), summed over the ingest (``psutil``): CPU time is
  what the layer adds whatever else runs on the machine;
- wall seconds spent between sending a statement and having its result (time "inside"
  Postgres as the client sees it; this one does depend on load);
- wall seconds of the whole ingest.

Then the offline extraction alone on the same turns (``extract_batch``, thread CPU time),
which ingest runs beside the embedding in a worker thread.

Run from the repository root:
``python benchmarks/profiles_cost_breakdown.py ../shared/data/locomo-dev.json
--conversation conv-26 --turns 150 --rounds 3``
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

import psutil
from bench_profiles_cost import cpu_seconds, server_processes

from langmemcore.config import ConstructionConfig
from langmemcore.construction import ingest
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.profiles.extract import extract_batch
from langmemcore.storage import Database, upgrade
from langmemcore.storage.diagnostics import statement_hooks
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.text.parse import english_pipeline

__all__ = ["main"]

_KIND = re.compile(r"^\s*(WITH\s+\w+|SELECT|INSERT INTO \w+|UPDATE \w+|DELETE FROM \w+|\w+)", re.I)


def kind_of(sql: str) -> str:
    """A statement's kind: its first words (the verb and, for writes, the table)."""
    found = _KIND.match(sql)
    return " ".join(found.group(1).split()) if found else sql[:30]


@dataclass
class Side:
    """What one side's ingests cost, summed over its rounds."""

    statements: Counter[str] = field(default_factory=Counter)
    client_cpu: list[float] = field(default_factory=list)
    loop_cpu: list[float] = field(default_factory=list)
    extraction_cpu: list[float] = field(default_factory=list)
    server_cpu: list[float] = field(default_factory=list)
    in_database: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def _loop_cpu() -> float:
    """CPU seconds of this thread (the event loop: construction, the SQL client)."""
    me = threading.get_native_id()
    return sum(t.user_time + t.system_time for t in psutil.Process().threads() if t.id == me)


async def _ingest_once(
    memory: Memory,
    conversation: Conversation,
    namespace: tuple[str, ...],
    data_dir: Path,
    side: Side,
) -> None:
    me = psutil.Process()
    server = server_processes(data_dir)
    pending: list[float] = []
    inside = [0.0]

    def before(sql: str) -> None:
        side.statements[kind_of(sql)] += 1
        pending.append(time.perf_counter())

    def after(_sql: str) -> None:
        inside[0] += time.perf_counter() - pending.pop()

    extracting = [0.0]

    def timed_extraction(pairs: list[tuple[str, str | None]]) -> list[Any]:
        began = time.thread_time()
        try:
            return extract_batch(pairs)
        finally:
            extracting[0] += time.thread_time() - began

    client0, server0, loop0 = cpu_seconds([me]), cpu_seconds(server), _loop_cpu()
    wall0 = time.perf_counter()
    with (
        statement_hooks(memory.database, before, after),
        patch.object(ingest, "extract_batch", timed_extraction),
    ):
        await memory.aingest_many(namespace, conversation_observations(conversation))
        await memory.aflush()
    side.extraction_cpu.append(extracting[0])
    side.wall.append(time.perf_counter() - wall0)
    side.client_cpu.append(cpu_seconds([me]) - client0)
    side.loop_cpu.append(_loop_cpu() - loop0)
    side.server_cpu.append(cpu_seconds(server_processes(data_dir)) - server0)
    side.in_database.append(inside[0])


def _report(name: str, side: Side, rounds: int, turns: int) -> None:
    total = sum(side.statements.values())
    print(
        f"{name}: {total / rounds / turns:.2f} statements per observation; medians: "
        f"client CPU {statistics.median(side.client_cpu):.2f} s (event loop "
        f"{statistics.median(side.loop_cpu):.2f} s, extraction "
        f"{statistics.median(side.extraction_cpu):.2f} s), server CPU "
        f"{statistics.median(side.server_cpu):.2f} s, in database "
        f"{statistics.median(side.in_database):.2f} s, wall {statistics.median(side.wall):.2f} s"
    )
    for kind, count in side.statements.most_common():
        print(f"    {count / rounds:8.1f}  {kind}")


async def _run(path: Path, conversation_id: str, turns: int, rounds: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="lmc-cost-"))
    database = Database(embedded_database_url(data_dir))
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    english_pipeline()
    found = [c for c in load_locomo(path) if c.sample_id == conversation_id]
    conversation = replace(found[0], turns=found[0].turns[:turns])
    memories = {
        on: Memory(database, embeddings, config=ConstructionConfig(profiles=on))
        for on in (True, False)
    }
    run = f"cost-{uuid.uuid4().hex[:8]}"
    warm = replace(conversation, turns=conversation.turns[:20])
    for on, memory in memories.items():
        await memory.aingest_many((run, "warm", str(on)), conversation_observations(warm))
    sides = {True: Side(), False: Side()}
    ratios: list[float] = []
    for round_ in range(rounds):
        order = (True, False) if round_ % 2 == 0 else (False, True)
        for on in order:
            namespace = (run, f"r{round_}", "on" if on else "off")
            await _ingest_once(memories[on], conversation, namespace, data_dir, sides[on])
        ratios.append(sides[True].wall[-1] / sides[False].wall[-1])
    n = len(conversation.turns)
    for on in (True, False):
        _report("profiles on" if on else "profiles off", sides[on], rounds, n)
    pairs = [(e.text, e.speaker) for e in conversation_observations(conversation)]
    extraction: list[float] = []
    for _ in range(3):
        began = time.thread_time()
        extract_batch(pairs)
        extraction.append(time.thread_time() - began)
    cpu = [
        (a + b) / (c + d)
        for a, b, c, d in zip(
            sides[True].client_cpu,
            sides[True].server_cpu,
            sides[False].client_cpu,
            sides[False].server_cpu,
            strict=True,
        )
    ]
    print(
        f"extraction alone: {statistics.median(extraction):.2f} s CPU over {n} turns; "
        f"CPU (client + server) on / off per round: {', '.join(f'{r:.3f}' for r in cpu)}; "
        f"wall on / off per round: {', '.join(f'{r:.3f}' for r in ratios)}"
    )


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.conversation, args.turns, args.rounds))


if __name__ == "__main__":
    main()
