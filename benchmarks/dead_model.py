"""Benchmark: bulk ingest under a model endpoint that accepts and never answers, with the
circuit breaker (default ``LLMConfig``) against without it (``failure_threshold=0``).

Each run ingests the same observations into a fresh namespace with a fresh ``ChatOpenAI``
(so each run starts with a closed breaker), on the same Postgres (a fresh embedded server
unless ``--url`` / ``DATABASE_URL`` is given) and the same local embedder. Runs alternate
(with, without, with, ...), so that a machine whose speed drifts weighs on both alike.
An offline run (no model) shows what the ingest itself costs. Prints every run, the
median and spread of each setting, and the time ratio.

Run from the repository root: ``python -m benchmarks.dead_model``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from langchain_openai import ChatOpenAI

from langmemcore.config import ConstructionConfig, LLMConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url
from tests.dead_endpoint import DeadEndpoint, dead_endpoint

SUBJECTS = ["green tea", "a puppy named Max", "pottery class", "the charity race", "Paris"]
SETTINGS: dict[str, LLMConfig | None] = {
    "with breaker": LLMConfig(),
    "without breaker": LLMConfig(failure_threshold=0),
    "offline": None,
}
"""Model call settings of each run (``None``: no model at all)."""


def _observations(count: int) -> list[ObservationIn]:
    return [
        ObservationIn(
            f"o{i}",
            f"Caroline told Melanie about {SUBJECTS[i % len(SUBJECTS)]} on day {i}.",
            speaker="Caroline",
        )
        for i in range(count)
    ]


async def _run(
    database: Database,
    embeddings: LocalEmbeddings,
    dead: DeadEndpoint,
    settings: LLMConfig | None,
    args: argparse.Namespace,
) -> tuple[float, int, int, int]:
    """One timed ingest: seconds, observations stored, model calls skipped, connections."""
    llm = ChatOpenAI(
        model="stub", base_url=dead.base_url, api_key="x", timeout=args.timeout, max_retries=0
    )
    memory = Memory(
        database,
        embeddings,
        llm=llm if settings is not None else None,
        config=ConstructionConfig(topic_every=0),
        llm_config=settings,
    )
    before = dead.connections
    start = time.perf_counter()
    report = await memory.aingest_many(("bench-dead", uuid.uuid4().hex), _observations(args.n))
    seconds = time.perf_counter() - start
    stored = sum(1 for r in report.results if r.operation != "unchanged")
    return seconds, stored, report.llm.skipped, dead.connections - before


async def _main(args: argparse.Namespace) -> None:
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    await embeddings.aembed_documents(["warm up"])
    times: dict[str, list[float]] = {name: [] for name in SETTINGS}
    with dead_endpoint() as dead:
        for round_ in range(args.runs):
            for name, settings in SETTINGS.items():
                seconds, stored, skipped, calls = await _run(
                    database, embeddings, dead, settings, args
                )
                times[name].append(seconds)
                print(
                    f"run {round_ + 1} {name:>15}: {seconds:6.2f} s, {stored}/{args.n} stored, "
                    f"{skipped} model calls skipped, {calls} connections to the dead endpoint"
                )
    for name, values in times.items():
        spread = f"{min(values):.2f}..{max(values):.2f}"
        print(f"{name:>15}: median {statistics.median(values):6.2f} s (range {spread} s)")
    median = {name: statistics.median(values) for name, values in times.items()}
    ratio = median["without breaker"] / median["with breaker"]
    print(f"without / with breaker (medians): {ratio:.1f}x")
    lost = {name: median[name] - median["offline"] for name in ("with breaker", "without breaker")}
    print(
        f"time lost to the dead model (median over offline): with breaker "
        f"{lost['with breaker']:.2f} s, without {lost['without breaker']:.2f} s"
    )


def main() -> None:
    """Parse the command line and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=28, help="observations per run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each setting")
    parser.add_argument("--timeout", type=float, default=0.5, help="ChatOpenAI timeout (s)")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
