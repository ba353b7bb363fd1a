"""Side-by-side search latency of two checkouts on knowledge-update questions.

Run from the repository root: ``python benchmarks/search_ab_updates.py SET --a A --b B
[--conversations 3] [--rounds 5]`` (for example ``SET`` =
``tests/data/knowledge_updates_heldout4.json``).

The first ``--conversations`` conversations with the most facts are remembered, offline
and with default settings, each in its own namespace of a fresh embedded Postgres; then,
conversation by conversation, two worker processes of ``benchmarks/search_ab.py`` (one
per checkout) answer that conversation's current-state and past-period questions in turn,
the first of each pair alternating. Every one of these questions goes through
supersession, which LoCoMo's rarely do. Prints both sides' p50 / p95 ms, their ratios
b / a, and the median and quartiles of the per-question ratio b / a.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.knowledge_updates import UpdateSet, load_update_set
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

from search_ab import WARMUP, _ask, _spawn

PREFIX = "search-ab-updates"
"""The namespaces' first label."""


async def _remember(url: str, updates: UpdateSet, conversations: list[str]) -> None:
    database = Database(url)
    upgrade(database)
    memory = Memory(database, LocalEmbeddings())
    for conversation in updates.conversations:
        if conversation.id in conversations:
            await memory.aingest_many((PREFIX, conversation.id), conversation.observations)
    await memory.aflush()
    await database.dispose()


def _pairs(
    args: argparse.Namespace, url: str, conversation: str, questions: list[str]
) -> list[tuple[float, float]]:
    """(a ms, b ms) of each question, ``args.rounds`` times, in one conversation."""
    spawn_args = argparse.Namespace(namespace=f"{PREFIX}.{conversation}", url=url)
    workers = {"a": _spawn(args.a, spawn_args), "b": _spawn(args.b, spawn_args)}
    for question in questions[:WARMUP]:
        for worker in workers.values():
            _ask(worker, question)
    pairs = []
    for round in range(args.rounds):
        for index, question in enumerate(questions):
            ms = {}
            for side in ("a", "b") if (index + round) % 2 else ("b", "a"):
                ms[side] = _ask(workers[side], question)
            pairs.append((ms["a"], ms["b"]))
    for worker in workers.values():
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
    return pairs


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="knowledge-update set")
    parser.add_argument("--a", type=Path, default=Path("/work/main"))
    parser.add_argument("--b", type=Path, default=Path("."))
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    updates = load_update_set(args.path)
    by_facts = Counter(fact.conversation for fact in updates.facts)
    chosen = [c for c, _ in by_facts.most_common(args.conversations)]
    url = embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-ab-updates-")))
    asyncio.run(_remember(url, updates, chosen))
    pairs = []
    for conversation in chosen:
        facts = [f for f in updates.facts if f.conversation == conversation]
        questions = [q for f in facts for q in (f.current_question, f.past_question)]
        pairs += _pairs(args, url, conversation, questions)
    a, b = np.array(pairs).T
    for name, ms in (("a", a), ("b", b)):
        print(f"{name}: p50 {np.percentile(ms, 50):.1f} p95 {np.percentile(ms, 95):.1f} ms")
    for q in (50, 95):
        print(f"p{q} ratio b/a: {np.percentile(b, q) / np.percentile(a, q):.3f}")
    low, mid, high = np.percentile(b / a, [25, 50, 75])
    print(
        f"per-question ratio b/a: median {mid:.3f}, quartiles {low:.3f}-{high:.3f} "
        f"over {len(pairs)} pairs"
    )


if __name__ == "__main__":
    main()
