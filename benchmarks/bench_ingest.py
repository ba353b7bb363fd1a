"""Benchmark: offline bulk ingest of LoCoMo turns vs LangGraph's ``PostgresStore.put``.

Both run in the same process, on the same Postgres (a fresh embedded server unless
``--url`` / ``DATABASE_URL`` is given), with the same embedder (local all-MiniLM-L6-v2).
The two systems take turns conversation by conversation (ours first on the first, theirs
first on the next, ...), so that a machine whose speed drifts during the run weighs on
both alike. Prints each conversation's times, turns/s, peak memory and the time ratio.

Run from the repository root: ``python benchmarks/bench_ingest.py ../shared/data/locomo-dev.json``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import make_url

from langmemcore.config import ConstructionConfig
from langmemcore.construction.bulk import IngestReport
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

if TYPE_CHECKING:
    from langgraph.store.postgres import PostgresStore

__all__ = ["main"]


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _ours(memory: Memory, conversation: Conversation, run: str) -> tuple[float, IngestReport]:
    start = time.perf_counter()
    report = await memory.aingest_many(
        (run, conversation.sample_id), conversation_observations(conversation), progress=True
    )
    return time.perf_counter() - start, report


@contextmanager
def _postgres_store(url: str, embeddings: LocalEmbeddings) -> Iterator[PostgresStore]:
    from langgraph.store.postgres import PostgresStore
    from psycopg import Connection
    from psycopg.rows import dict_row

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with Connection.connect(
        conninfo, autocommit=True, prepare_threshold=0, row_factory=dict_row
    ) as conn:
        store = PostgresStore(conn, index={"dims": 384, "embed": embeddings, "fields": ["text"]})
        store.setup()
        yield store


def _theirs(store: PostgresStore, conversation: Conversation, run: str) -> float:
    start = time.perf_counter()
    for t in conversation.turns:
        value: dict[str, Any] = {
            "text": t.full_text,
            "speaker": t.speaker,
            "time": t.event_time.isoformat() if t.event_time else None,
        }
        store.put((run, conversation.sample_id), t.dia_id, value)
    return time.perf_counter() - start


async def _run(path: Path, url: str | None) -> None:
    if url is None:
        url = embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    conversations = load_locomo(path)
    turns = sum(len(c.turns) for c in conversations)
    memory = Memory(database, embeddings, config=ConstructionConfig())
    run = f"bench-{uuid.uuid4().hex[:8]}"
    rss_before = _peak_rss_mb()
    ours = theirs = 0.0
    reports: list[IngestReport] = []
    with _postgres_store(url, embeddings) as store:
        for index, conversation in enumerate(conversations):
            theirs_first = index % 2 == 1
            if theirs_first:
                their_seconds = await asyncio.to_thread(_theirs, store, conversation, run)
            our_seconds, report = await _ours(memory, conversation, run)
            if not theirs_first:
                their_seconds = await asyncio.to_thread(_theirs, store, conversation, run)
            reports.append(report)
            ours, theirs = ours + our_seconds, theirs + their_seconds
            print(
                f"{conversation.sample_id}: {len(conversation.turns)} turns, langmemcore "
                f"{our_seconds:.2f} s, PostgresStore {their_seconds:.2f} s "
                f"({'theirs' if theirs_first else 'ours'} first)"
            )
    merges = sum(r.count("merge") for r in reports)
    appends = sum(r.count("append") for r in reports)
    links = sum(r.links for r in reports)
    topics = sum(len(r.topics[-1].topics) for r in reports if r.topics)
    print(f"turns: {turns} in {len(conversations)} conversations")
    print(
        f"langmemcore ingest_many: {ours:.2f} s, {turns / ours:.1f} turns/s "
        f"(appends {appends}, merges {merges}, links {links}, topics {topics})"
    )
    print(f"PostgresStore.put:       {theirs:.2f} s, {turns / theirs:.1f} turns/s")
    print(f"time ratio langmemcore / PostgresStore: {ours / theirs:.2f}x")
    print(f"peak RSS: {rss_before:.0f} MB before ingest, {_peak_rss_mb():.0f} MB at the end")


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.url))


if __name__ == "__main__":
    main()
