"""Benchmark: knowledge updates (a fact that changes) on the project's test set.

Run from the repository root: ``python benchmarks/knowledge_updates.py
[tests/data/knowledge_updates.json] [--url URL] [--without CHANNEL ...] [--as-of-baseline]
[--summary] [--reversed]``

Each conversation of the set is remembered in its own namespace of one Postgres (a fresh
embedded server in a temporary folder unless ``--url`` / ``DATABASE_URL``) through
``Memory.aingest_many``, offline (no LLM) with the local all-MiniLM-L6-v2 embedder and
default settings; then every fact's current-state and past-period questions go through
``Memory.asearch`` (k = 20). Reports the share of current-state questions whose newer
statement's note ranks above the older's, the share of past-period questions with the
older statement in the top 3, and every miss. Facts with ``as_of`` times also have their
``as_of_question`` asked as of ``as_of`` (older statement in the top 3 and above the newer)
and ``as_of_after`` (newer above older). ``--as-of-baseline`` asks those questions again
without a time (reference time now). ``--without`` repeats the questions, on the same
memory, with those channels switched off (e.g. ``--without profile``). ``--summary``
prints the summary lines only (for a blind set). ``--reversed`` has each conversation's
turns arrive newest first (memory as of any time should not depend on the order in which
what was said arrives).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.knowledge_updates import (
    UpdateReport,
    UpdateSet,
    evaluate_updates,
    ingest_update_set,
    load_update_set,
)
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]

DEFAULT_PATH = Path("tests/data/knowledge_updates.json")
"""The project's knowledge-update set."""


def _newest_first(updates: UpdateSet) -> UpdateSet:
    """The set with each conversation's turns in reverse order of arrival."""
    conversations = tuple(
        replace(c, observations=c.observations[::-1]) for c in updates.conversations
    )
    return replace(updates, conversations=conversations)


async def _run(
    path: Path,
    url: str | None,
    without: list[str],
    baseline: bool,
    summary: bool,
    newest_first: bool,
) -> None:
    def show(report: UpdateReport) -> None:
        print("\n".join(report.summary()) if summary else report.format())

    if url is None:
        url = embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    updates = load_update_set(path)
    memory = Memory(database, embeddings)
    prefix = f"updates-{uuid.uuid4().hex[:8]}"
    start = time.perf_counter()
    await ingest_update_set(memory, _newest_first(updates) if newest_first else updates, prefix)
    print(f"{len(updates.facts)} facts, ingested in {time.perf_counter() - start:.0f} s")
    print("## default settings")
    show(await evaluate_updates(memory, updates, prefix))
    if baseline:
        print("## as-of questions asked without a time (reference time now)")
        show(await evaluate_updates(memory, updates, prefix, as_of=False))
    if without:
        kept = tuple(c for c in memory.retrieval.channels if c not in without)
        config = replace(memory.retrieval, channels=kept)
        print(f"## without {', '.join(without)}")
        show(await evaluate_updates(memory, updates, prefix, config=config))
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_PATH, help="the set")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--without", nargs="*", default=[], help="channels to switch off")
    parser.add_argument(
        "--as-of-baseline", action="store_true", help="as-of questions again without a time"
    )
    parser.add_argument("--summary", action="store_true", help="summary lines only")
    parser.add_argument("--reversed", action="store_true", help="turns arrive newest first")
    args = parser.parse_args()
    options = (args.as_of_baseline, args.summary, args.reversed)
    asyncio.run(_run(args.path, args.url, args.without, *options))


if __name__ == "__main__":
    main()
