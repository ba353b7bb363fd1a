"""Benchmark: MemoryStore under load (issue 15, acceptance points 2 and 3).

1. Loading: the LoCoMo dev split, one turn per item with value ``{"text", "speaker",
   "time"}``, through ``store.batch`` of PutOps (one batch per conversation) and through
   concurrent ``aput`` calls (``asyncio.gather`` of a conversation's turns), against
   ``Memory.ingest_many`` of the same turns (with speaker and time). The three take turns
   conversation by conversation, rotating which goes first; each run writes a namespace
   of its own with a fresh ``Memory`` (no warm caches). Targets: batch <= 1.15x,
   concurrent aput <= 1.3x ``ingest_many``. Also ``ingest_many text``: the same turns
   as text only (no speaker or time), the observations a store gives memory while its
   puts carry neither.
2. Load: ``--calls`` concurrent calls through ``asyncio.gather``: 45% ``aget``, 45%
   ``asearch`` (a filter on the speaker, no query), 10% ``aput`` (``index=False``; with a
   third of puts, ``AsyncPostgresStore`` fails: its one INSERT for 20,000 puts binds
   more than Postgres's 65,535 parameters), on
   the same turns stored in both MemoryStore and LangGraph's ``AsyncPostgresStore`` on the
   same server; the two alternate ``--rounds`` times. Reports each round's wall time, the
   median and range, and the ratio of the medians.

Same server for everything: a fresh embedded Postgres unless ``--url`` / ``DATABASE_URL``
is given. The local all-MiniLM-L6-v2 embedder, no model (offline construction).

Run from the repository root::

    python benchmarks/store_load.py ../shared/data/locomo-dev.json
    python benchmarks/store_load.py ../shared/data/locomo-dev.json --limit 1 --calls 6000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, PutOp
from sqlalchemy import make_url

from langmemcore import MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]

INDEX = {"fields": ["text"]}
"""The store indexes a turn's text (speaker and time are fields of the value)."""


def turn_values(conversation: Conversation) -> list[tuple[str, dict[str, Any]]]:
    """Key and store value of each turn."""
    return [
        (
            t.dia_id,
            {
                "text": t.full_text,
                "speaker": t.speaker,
                "time": t.event_time.isoformat() if t.event_time else None,
            },
        )
        for t in conversation.turns
    ]


async def _ingest_many(memory: Memory, ns: tuple[str, ...], conversation: Conversation) -> None:
    await memory.aingest_many(ns, conversation_observations(conversation))


async def _ingest_text_only(
    memory: Memory, ns: tuple[str, ...], conversation: Conversation
) -> None:
    observations = [
        ObservationIn(f"item:{key}", value["text"], metadata={"item_key": key})
        for key, value in turn_values(conversation)
    ]
    await memory.aingest_many(ns, observations)


async def _batch(memory: Memory, ns: tuple[str, ...], conversation: Conversation) -> None:
    store = MemoryStore(memory, index=INDEX)
    await store.abatch([PutOp(ns, key, value) for key, value in turn_values(conversation)])
    await store.aflush()


async def _aput(memory: Memory, ns: tuple[str, ...], conversation: Conversation) -> None:
    store = MemoryStore(memory, index=INDEX)
    await asyncio.gather(*(store.aput(ns, k, v) for k, v in turn_values(conversation)))
    await store.aflush()


LOADERS: dict[str, Callable[[Memory, tuple[str, ...], Conversation], Awaitable[None]]] = {
    "ingest_many": _ingest_many,
    "ingest_many text": _ingest_text_only,
    "store.batch": _batch,
    "concurrent aput": _aput,
}


async def load_part(
    database: Database, embeddings: LocalEmbeddings, conversations: list[Conversation]
) -> None:
    """Part 1: the three ways of loading, conversation by conversation, rotating."""
    run = f"load-{uuid.uuid4().hex[:8]}"
    totals = dict.fromkeys(LOADERS, 0.0)
    names = list(LOADERS)
    for index, conversation in enumerate(conversations):
        order = names[index % len(names) :] + names[: index % len(names)]
        seconds: dict[str, float] = {}
        for name in order:
            memory = Memory(database, embeddings, config=ConstructionConfig())
            ns = (run, name.replace(" ", "_").replace(".", "_"), conversation.sample_id)
            start = time.perf_counter()
            await LOADERS[name](memory, ns, conversation)
            await memory.aflush()
            seconds[name] = time.perf_counter() - start
            totals[name] += seconds[name]
        print(
            f"{conversation.sample_id}: {len(conversation.turns)} turns, "
            + ", ".join(f"{n} {seconds[n]:.2f} s" for n in names)
            + f" (order: {', '.join(order)})",
            flush=True,
        )
    turns = sum(len(c.turns) for c in conversations)
    for name in names:
        print(
            f"{name:16s} {totals[name]:7.2f} s, {turns / totals[name]:5.1f} turns/s, "
            f"{totals[name] / totals['ingest_many']:.2f}x ingest_many, "
            f"{totals[name] / totals['ingest_many text']:.2f}x ingest_many text"
        )


async def _mixed(
    store: BaseStore, ns: tuple[str, ...], values: list[tuple[str, dict[str, Any]]], calls: int
) -> float:
    """``calls`` concurrent calls (get, search with a filter, put); returns the wall time."""
    written = (ns[0], f"{ns[1]}-written")
    keys = [k for k, _v in values]
    speakers = sorted({v["speaker"] for _k, v in values})

    async def call(i: int) -> object:
        if i % 10 == 9:
            return await store.aput(written, f"w{i}", {"text": f"note {i}"}, index=False)
        if i % 2 == 0:
            return await store.aget(ns, keys[i % len(keys)])
        return await store.asearch(ns, filter={"speaker": speakers[i % len(speakers)]})

    start = time.perf_counter()
    results = await asyncio.gather(*(call(i) for i in range(calls)))
    wall = time.perf_counter() - start
    reads = [(i, r) for i, r in enumerate(results) if i % 10 != 9]
    missing = sum(1 for i, r in reads if i % 2 == 0 and r is None)
    empty = sum(1 for i, r in reads if i % 2 == 1 and not r)
    if missing or empty:
        raise RuntimeError(f"{missing} gets found nothing, {empty} searches were empty")
    return wall


async def load_calls_part(
    url: str,
    database: Database,
    embeddings: LocalEmbeddings,
    conversation: Conversation,
    calls: int,
    rounds: int,
) -> None:
    """Part 2: concurrent mixed calls, MemoryStore against AsyncPostgresStore."""
    from langgraph.store.postgres import AsyncPostgresStore

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    values = turn_values(conversation)
    ours = MemoryStore(Memory(database, embeddings, config=ConstructionConfig()), index=INDEX)
    times: dict[str, list[float]] = {"MemoryStore": [], "AsyncPostgresStore": []}
    async with AsyncPostgresStore.from_conn_string(conninfo) as theirs:
        await theirs.setup()
        stores: dict[str, BaseStore] = {"MemoryStore": ours, "AsyncPostgresStore": theirs}
        for round_ in range(rounds):
            order = list(stores) if round_ % 2 == 0 else list(stores)[::-1]
            for name in order:
                ns = ("calls", uuid.uuid4().hex[:8])
                await stores[name].abatch([PutOp(ns, k, v, index=False) for k, v in values])
                times[name].append(await _mixed(stores[name], ns, values, calls))
            print(
                f"round {round_ + 1}: "
                + ", ".join(f"{n} {times[n][-1]:.2f} s" for n in stores)
                + f" ({order[0]} first)",
                flush=True,
            )
    medians = {n: statistics.median(t) for n, t in times.items()}
    for name, seconds in times.items():
        print(
            f"{name:18s} {calls} calls: median {medians[name]:.2f} s "
            f"(range {min(seconds):.2f}..{max(seconds):.2f} s)"
        )
    ratio = medians["MemoryStore"] / medians["AsyncPostgresStore"]
    print(f"ratio MemoryStore / AsyncPostgresStore: {ratio:.2f}x")


async def _run(args: argparse.Namespace) -> None:
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    embeddings.embed_documents(["warm up the model"])
    conversations = load_locomo(args.path)[: args.limit]
    print(f"{sum(len(c.turns) for c in conversations)} turns in {len(conversations)} conversations")
    if not args.skip_load:
        await load_part(database, embeddings, conversations)
    if args.calls:
        await load_calls_part(url, database, embeddings, conversations[0], args.calls, args.rounds)


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--limit", type=int, default=None, help="first N conversations only")
    parser.add_argument("--calls", type=int, default=60_000, help="concurrent calls (0: skip)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of calls")
    parser.add_argument("--skip-load", action="store_true", help="only the concurrent calls")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
