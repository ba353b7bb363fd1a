"""Where one offline search's time goes: SQL statements per search, the time each kind of
statement takes (sent to fetched, as the driver sees it), and the rest (Python: the
graph's supersteps, fusion, packing, the query's embedding).

Run from the repository root on a memory already loaded (for example by
``benchmarks/ranked_notes.py ingest`` or ``benchmarks/bench_search.py``, whose embedded
server it can reopen with ``--url``):
``python benchmarks/search_profile.py DATA --url URL --namespace A.B [--questions 100]
[--pyinstrument FILE]``. With ``--pyinstrument`` (the package importable) a profile of the
searches is written as text to ``FILE``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.database import resolve_database_url
from langmemcore.storage.diagnostics import statement_hooks

Timings = dict[str, list[float]]


def _kind(statement: str) -> str:
    """A short name for a statement: its first table or function after FROM, with the
    statement's first words.
    """
    flat = " ".join(statement.split())
    head = " ".join(flat.split()[:2])
    found = re.search(r"FROM (\w+(?:\(\w+)?)", flat)
    return f"{head} .. FROM {found.group(1) if found else '?'} [{len(flat)} chars]"


@contextmanager
def _timed(database: Database) -> Iterator[Timings]:
    spent: Timings = defaultdict(list)
    started: list[float] = []

    def before(_statement: str) -> None:
        started.append(time.perf_counter())

    def after(statement: str) -> None:
        spent[_kind(statement)].append((time.perf_counter() - started.pop()) * 1000)

    with statement_hooks(database, before, after):
        yield spent


async def _run(args: argparse.Namespace) -> None:
    database = Database.connect(resolve_database_url(args.url))
    questions = [q.question for c in load_locomo(args.path) for q in c.retrieval_questions][
        : args.questions
    ]
    memory = Memory(database, LocalEmbeddings())
    namespace = tuple(args.namespace.split("."))
    for question in questions[-5:]:
        await memory.asearch(namespace, question, k=20)
    embed = []
    for question in questions:
        start = time.perf_counter()
        await memory.embeddings.aembed_documents([question])
        embed.append((time.perf_counter() - start) * 1000)
    profiler = None
    if args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(async_mode="enabled")
        profiler.start()
    total = []
    with _timed(database) as spent:
        for question in questions:
            start = time.perf_counter()
            await memory.asearch(namespace, question, k=20)
            total.append((time.perf_counter() - start) * 1000)
    if profiler is not None:
        profiler.stop()
        args.pyinstrument.write_text(profiler.output_text(unicode=False, show_all=False))
    n = len(questions)
    sql = sum(sum(v) for v in spent.values())
    print(f"{n} searches: mean {np.mean(total):.2f} ms, p50 {np.median(total):.2f} ms")
    print(f"statements per search {sum(len(v) for v in spent.values()) / n:.2f}")
    print(f"SQL (driver) per search {sql / n:.2f} ms; embedding the query {np.mean(embed):.2f} ms")
    print(f"the rest (Python) per search {np.mean(total) - sql / n - np.mean(embed):.2f} ms")
    for kind, ms in sorted(spent.items(), key=lambda item: -sum(item[1])):
        print(
            f"  {sum(ms) / n:7.2f} ms/search  x{len(ms) / n:4.2f}  mean {np.mean(ms):6.2f}  {kind}"
        )
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=None)
    parser.add_argument("--namespace", required=True, help="dot-separated")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--pyinstrument", type=Path, default=None)
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
