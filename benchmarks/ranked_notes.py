"""Ranked notes of the LoCoMo dev questions on one memory, to compare two versions of the
code on the same data (identical rankings = identical evaluation figures), and their
search time side by side.

Run from the repository root, with ``PYTHONPATH`` naming the code to run (the
repository root, or another checkout):

- ``python benchmarks/ranked_notes.py ingest DATA --url URL --prefix P``: ingest each
  conversation into ``(P, sample_id)`` (offline, defaults), once;
- ``python benchmarks/ranked_notes.py dump DATA --url URL --prefix P --out FILE``: ask
  every category 1-4 question (``Memory.asearch``, defaults, no LLM, ``k=20`` as the
  evaluation asks) and write, per question, the ranked note ids, their scores (rounded to
  1e-9) and source keys as JSON, plus the SQL statements each search sent on average;
- ``python benchmarks/ranked_notes.py time DATA --url URL --prefix P --rounds N``: the
  same searches ``N`` times after a warm-up, printing each round's p50 / p95 / mean ms (run
  it alternately under two ``PYTHONPATH`` values for a side-by-side ratio); with
  ``--namespace A.B`` every question goes to that namespace instead (for example one that
  ``benchmarks/bench_search.py`` loaded).

``--url`` defaults to the embedded server of ``LANGMEMCORE_HOME``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.locomo_eval import ingest_conversations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.database import resolve_database_url
from langmemcore.storage.diagnostics import statement_hooks

K = 20
"""Notes asked per question (the evaluation's largest turn budget)."""


@contextmanager
def _statements(database: Database) -> Iterator[list[str]]:
    sent: list[str] = []
    with statement_hooks(database, sent.append):
        yield sent


def _questions(conversations: list[Conversation], prefix: str) -> list[tuple[tuple[str, ...], str]]:
    return [
        ((prefix, c.sample_id), q.question) for c in conversations for q in c.retrieval_questions
    ]


async def _dump(memory: Memory, asked: list[tuple[tuple[str, ...], str]], out: Path) -> None:
    ranked: list[dict[str, Any]] = []
    with _statements(memory.database) as sent:
        for namespace, question in asked:
            notes = await memory.asearch(namespace, question, k=K)
            ranked.append(
                {
                    "namespace": list(namespace),
                    "question": question,
                    "notes": [n.note_id for n in notes],
                    "scores": [round(n.score, 9) for n in notes],
                    "sources": [[s.key for s in n.sources] for n in notes],
                }
            )
    out.write_text(json.dumps(ranked, indent=0))
    print(f"{len(ranked)} questions, {len(sent) / len(ranked):.2f} statements per search")


async def _time(memory: Memory, asked: list[tuple[tuple[str, ...], str]], rounds: int) -> None:
    for namespace, question in asked[-5:]:
        await memory.asearch(namespace, question, k=K)
    for round in range(1, rounds + 1):
        ms = []
        for namespace, question in asked:
            start = time.perf_counter()
            await memory.asearch(namespace, question, k=K)
            ms.append((time.perf_counter() - start) * 1000)
        p50, p95 = np.percentile(ms, [50, 95])
        print(f"round {round}: p50 {p50:.2f} p95 {p95:.2f} mean {np.mean(ms):.2f} ms", flush=True)


async def _run(args: argparse.Namespace) -> None:
    database = Database.connect(resolve_database_url(args.url))
    conversations = load_locomo(args.path)
    memory = Memory(database, LocalEmbeddings())
    asked = _questions(conversations, args.prefix)
    if args.namespace:
        asked = [(tuple(args.namespace.split(".")), question) for _ns, question in asked]
    if args.questions:
        asked = asked[: args.questions]
    if args.command == "ingest":
        upgrade(database)
        await ingest_conversations(memory, conversations, args.prefix)
    elif args.command == "dump":
        await _dump(memory, asked, args.out)
    else:
        await _time(memory, asked, args.rounds)
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["ingest", "dump", "time"])
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=None)
    parser.add_argument("--prefix", default="ranked")
    parser.add_argument("--out", type=Path, default=Path("ranked.json"))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--namespace", default=None, help="dot-separated (time only)")
    parser.add_argument("--questions", type=int, default=0, help="first N only (0: all)")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
