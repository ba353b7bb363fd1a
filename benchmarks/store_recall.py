"""Benchmark: LoCoMo evidence recall through ``MemoryStore`` vs ``Memory``, same run.

Run from the repository root: ``python benchmarks/store_recall.py
[../shared/data/locomo-dev.json] [--limit N] [--url URL]``

Each conversation is loaded twice, into two namespaces of one Postgres (a fresh embedded
server in a temporary folder unless ``--url`` / ``DATABASE_URL``), with the same embedder
(local all-MiniLM-L6-v2), no LLM and default settings:

- **store**: one ``MemoryStore.aput`` per turn, key = dia_id, value ``{"text", "speaker",
  "time"}`` (the default ``index``: the speaker and time are read from the value), then
  every category 1-4 question through ``MemoryStore.asearch(query=..., limit=20)``; each
  item is one turn.
- **store batch**: the same values, one ``MemoryStore.abatch`` of PutOps per conversation
  (built in bulk), asked the same way.
- **memory**: ``Memory.aingest_many`` of the same turns (speaker and event time given),
  then ``Memory.asearch(k=20)``; each note is expanded to its source turns.

Both are scored with ``langmemcore.eval.metrics.RecallTable`` (evidence recall within a
budget of 5 / 10 / 20 distinct turns), as ``langmemcore eval locomo`` does. The store is
asked twice: as loaded, and again after ``evolve_topics`` in each of its namespaces (what
``ingest_many`` does once at its end, and a run of single puts does only when due: the
notes are the same either way). Prints each run's load time and the overall and
per-category table, and the R@20 differences.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph.store.base import PutOp

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.locomo_eval import ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS, RecallTable
from langmemcore.locomo import Conversation, Turn, limit_conversations, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.store import MemoryStore

__all__ = ["main"]

DEFAULT_PATH = Path("../shared/data/locomo-dev.json")
"""The LoCoMo dev split, next to the repository."""


def _value(turn: Turn) -> dict[str, Any]:
    value: dict[str, Any] = {"text": turn.full_text, "speaker": turn.speaker}
    if turn.event_time is not None:
        value["time"] = turn.event_time.isoformat()
    return value


async def _load_store(
    store: MemoryStore, conversations: Sequence[Conversation], prefix: str
) -> float:
    start = time.perf_counter()
    for conversation in conversations:
        ns = (prefix, conversation.sample_id)
        for turn in conversation.turns:
            await store.aput(ns, turn.dia_id, _value(turn))
    await store.aflush()
    return time.perf_counter() - start


async def _load_store_batches(
    store: MemoryStore, conversations: Sequence[Conversation], prefix: str
) -> float:
    start = time.perf_counter()
    for conversation in conversations:
        ns = (prefix, conversation.sample_id)
        await store.abatch([PutOp(ns, t.dia_id, _value(t)) for t in conversation.turns])
    await store.aflush()
    return time.perf_counter() - start


async def _ask_store(
    store: MemoryStore, conversations: Sequence[Conversation], prefix: str
) -> RecallTable:
    table = RecallTable(DEFAULT_KS)
    for conversation in conversations:
        ns = (prefix, conversation.sample_id)
        for question in conversation.retrieval_questions:
            items = await store.asearch(ns, query=question.question, limit=max(DEFAULT_KS))
            table.add(question.category, [[item.key] for item in items], question.evidence)
    return table


async def _ask_memory(
    memory: Memory, conversations: Sequence[Conversation], prefix: str
) -> RecallTable:
    table = RecallTable(DEFAULT_KS)
    for conversation in conversations:
        ns = (prefix, conversation.sample_id)
        for question in conversation.retrieval_questions:
            notes = await memory.asearch(ns, question.question, k=max(DEFAULT_KS))
            sources = [[s.key for s in note.sources] for note in notes]
            table.add(question.category, sources, question.evidence)
    return table


def _report(tables: dict[str, RecallTable], seconds: dict[str, float]) -> str:
    ks = DEFAULT_KS
    lines = [
        "| run | load s | " + " | ".join(f"R@{k}" for k in ks) + " |",
        "|---|---|" + "---|" * len(ks),
    ]
    for name, table in tables.items():
        overall = table.report()["overall"]
        cells = " | ".join(f"{overall.recall[k]:.1f}" for k in ks)
        lines.append(f"| {name} | {seconds[name]:.0f} | {cells} |")
    for name, table in tables.items():
        lines += ["", f"### {name}", "", table.format_markdown()]
    return "\n".join(lines)


async def _run(path: Path, limit: int | None, url: str | None) -> None:
    if url is None:
        url = embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    conversations = limit_conversations(load_locomo(path), conversations_limit=limit)
    turns = sum(len(c.turns) for c in conversations)
    questions = sum(len(c.retrieval_questions) for c in conversations)
    print(f"{len(conversations)} conversations, {turns} turns, {questions} questions")
    run = f"recall-{uuid.uuid4().hex[:8]}"
    memory = Memory(database, embeddings)
    store = MemoryStore(Memory(database, embeddings))
    seconds = {"store": await _load_store(store, conversations, run + "-store")}
    print(f"store loaded in {seconds['store']:.0f} s")
    batched = MemoryStore(Memory(database, embeddings))
    seconds["store batch"] = await _load_store_batches(batched, conversations, run + "-batch")
    print(f"store batch loaded in {seconds['store batch']:.0f} s")
    start = time.perf_counter()
    await ingest_conversations(memory, conversations, run + "-memory")
    await memory.aflush()
    seconds["memory"] = time.perf_counter() - start
    print(f"memory loaded in {seconds['memory']:.0f} s")
    tables = {
        "store": await _ask_store(store, conversations, run + "-store"),
        "store batch": await _ask_store(batched, conversations, run + "-batch"),
        "memory": await _ask_memory(memory, conversations, run + "-memory"),
    }
    start = time.perf_counter()
    for conversation in conversations:
        await store.memory.aevolve_topics((run + "-store", conversation.sample_id))
    seconds["store + evolve_topics"] = seconds["store"] + time.perf_counter() - start
    tables["store + evolve_topics"] = await _ask_store(store, conversations, run + "-store")
    print(_report(tables, seconds))
    top = max(DEFAULT_KS)
    memory_recall = tables["memory"].report()["overall"].recall[top]
    for name in ("store", "store batch", "store + evolve_topics"):
        gap = tables[name].report()["overall"].recall[top] - memory_recall
        print(f"R@{top} {name} - memory: {gap:+.1f} points")
    await store.aclose()
    await batched.aclose()
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_PATH, help="LoCoMo file")
    parser.add_argument("--limit", type=int, default=None, help="first N conversations")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.limit, args.url))


if __name__ == "__main__":
    main()
