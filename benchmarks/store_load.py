"""Benchmark: MemoryStore under load (issue 15, acceptance points 2 and 3).

1. Loading: the LoCoMo dev split, one turn per item with value ``{"text", "speaker",
   "time"}``, through ``store.batch`` of PutOps (one batch per conversation, then
   ``flush``) and through concurrent ``aput`` calls (``asyncio.gather`` of a
   conversation's turns, then ``flush``), against ``Memory.ingest_many`` of the same turns
   with the same speakers and times. The ways take turns conversation by conversation,
   rotating which goes first, ``--repeats`` times; each run writes a namespace of its own
   with a fresh ``Memory`` (no warm caches), and its time includes ``Memory.aflush`` (the
   background topic runs). Targets: batch <= 1.15x, concurrent aput <= 1.3x
   ``ingest_many``. At its end ``ingest_many`` evolves topics once more; store batches
   evolve them only when due, as single puts do, so the benchmark also runs
   ``ingest_many when due`` (``evolve_at_end=False``: exactly the store's construction)
   and reports the topic runs each way made.
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
    python benchmarks/store_load.py ../shared/data/locomo-dev.json --repeats 2 --rounds 3
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
from sqlalchemy import make_url, select

from langmemcore import MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.storage.models import Lineage

__all__ = ["main"]

INDEX = {"fields": ["text"]}
"""The store indexes a turn's text (speaker and time are fields of the value)."""


def turn_values(conversation: Conversation) -> list[tuple[str, dict[str, Any]]]:
    """Key and store value of each turn (the same speaker and time as
    ``conversation_observations`` gives ``ingest_many``).
    """
    values: list[tuple[str, dict[str, Any]]] = []
    for t in conversation.turns:
        value: dict[str, Any] = {"text": t.full_text, "speaker": t.speaker}
        if t.event_time is not None:
            value["time"] = t.event_time.isoformat()
        values.append((t.dia_id, value))
    return values


async def _ingest_many(memory: Memory, ns: tuple[str, ...], conversation: Conversation) -> None:
    await memory.aingest_many(ns, conversation_observations(conversation))


async def _ingest_when_due(memory: Memory, ns: tuple[str, ...], conversation: Conversation) -> None:
    observations = conversation_observations(conversation)
    await memory.aingest_many(ns, observations, evolve_at_end=False)


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
    "ingest_many when due": _ingest_when_due,
    "store.batch": _batch,
    "concurrent aput": _aput,
}


async def _topic_runs(database: Database, ns: tuple[str, ...]) -> int:
    """Topic evolutions run in the namespace (one ``topics`` lineage row each)."""
    async with database.session() as s:
        rows = await s.scalars(
            select(Lineage.id).where(
                Lineage.namespace == ".".join(ns), Lineage.operation == "topics"
            )
        )
        return len(list(rows))


async def _load_round(
    database: Database,
    embeddings: LocalEmbeddings,
    conversations: list[Conversation],
    turn: int,
) -> tuple[dict[str, float], dict[str, int]]:
    """One pass over the conversations, every way on each, rotating the order (from
    ``turn``); returns each way's total seconds and topic runs.
    """
    run = f"load-{uuid.uuid4().hex[:8]}"
    names = list(LOADERS)
    totals, topics = dict.fromkeys(names, 0.0), dict.fromkeys(names, 0)
    for index, conversation in enumerate(conversations):
        shift = (turn + index) % len(names)
        order = names[shift:] + names[:shift]
        seconds: dict[str, float] = {}
        for name in order:
            memory = Memory(database, embeddings, config=ConstructionConfig())
            ns = (run, name.replace(" ", "_").replace(".", "_"), conversation.sample_id)
            start = time.perf_counter()
            await LOADERS[name](memory, ns, conversation)
            await memory.aflush()
            seconds[name] = time.perf_counter() - start
            totals[name] += seconds[name]
            topics[name] += await _topic_runs(database, ns)
        print(
            f"{conversation.sample_id}: {len(conversation.turns)} turns, "
            + ", ".join(f"{n} {seconds[n]:.2f} s" for n in names)
            + f" (order: {', '.join(order)})",
            flush=True,
        )
    return totals, topics


async def load_part(
    database: Database,
    embeddings: LocalEmbeddings,
    conversations: list[Conversation],
    repeats: int,
) -> None:
    """Part 1: the ways of loading, ``repeats`` passes; per-pass totals, then the median
    and range of each way's total and of its ratio to each ``ingest_many``.
    """
    turns = sum(len(c.turns) for c in conversations)
    passes: list[dict[str, float]] = []
    for repeat in range(repeats):
        totals, topics = await _load_round(database, embeddings, conversations, repeat)
        passes.append(totals)
        print(
            f"pass {repeat + 1}: "
            + ", ".join(f"{n} {totals[n]:.2f} s ({topics[n]} topic runs)" for n in LOADERS),
            flush=True,
        )
    for name in LOADERS:
        seconds = [p[name] for p in passes]
        ratios = [p[name] / p["ingest_many"] for p in passes]
        due = [p[name] / p["ingest_many when due"] for p in passes]
        print(
            f"{name:20s} median {statistics.median(seconds):7.2f} s "
            f"(range {min(seconds):.2f}..{max(seconds):.2f}), "
            f"{turns / statistics.median(seconds):5.1f} turns/s, "
            f"{statistics.median(ratios):.2f}x ingest_many ({min(ratios):.2f}..{max(ratios):.2f}), "
            f"{statistics.median(due):.2f}x ingest_many when due ({min(due):.2f}..{max(due):.2f})"
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
        await load_part(database, embeddings, conversations, args.repeats)
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
    parser.add_argument("--repeats", type=int, default=1, help="passes of the loading part")
    parser.add_argument("--skip-load", action="store_true", help="only the concurrent calls")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
