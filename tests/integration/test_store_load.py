"""MemoryStore under load: batches and concurrent puts are constructed through the bulk
ingest path, concurrent calls are coalesced (60,000 at once complete), a flush reports
progress, and a connection wait beyond the bound is a ``DatabaseUnavailableError``."""

from __future__ import annotations

import asyncio
import itertools
import threading
import uuid
from contextlib import AsyncExitStack

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp
from sqlalchemy import select

from langmemcore import DatabaseUnavailableError, InvalidInputError, MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.database import MAX_OVERFLOW
from langmemcore.storage.models import ItemTask, Lineage, Observation

TEXTS = [
    f"Turn {i}: {who} talked about {topic} on day {i}."
    for i, (who, topic) in enumerate(
        (who, topic)
        for who in ("Caroline", "Melanie", "Jon", "Gina")
        for topic in ("painting", "camping", "adoption", "pottery", "a charity run")
    )
]


class CountingEmbeddings(Embeddings):
    """The real embedder, counting the calls made to it."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.calls = 0
        self._lock = threading.Lock()

    def _count(self) -> None:
        with self._lock:
            self.calls += 1

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self._count()
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self._count()
        return self.inner.embed_query(text)


def _memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, CountingEmbeddings(embeddings), config=ConstructionConfig())


def _calls(memory: Memory) -> int:
    embedder = memory.embeddings
    assert isinstance(embedder, CountingEmbeddings)
    return embedder.calls


async def _observations(database: Database, ns: tuple[str, ...]) -> dict[str, str]:
    async with database.session() as s:
        rows = await s.execute(
            select(Observation.key, Observation.content).where(
                Observation.namespace == ".".join(ns)
            )
        )
        return {key: content for key, content in rows}


async def _tasks(database: Database) -> int:
    async with database.session() as s:
        return len(list(await s.scalars(select(ItemTask.key))))


async def _bulk_reference(database: Database, embeddings: LocalEmbeddings) -> int:
    """Embedding calls of ``Memory.aingest_many`` over the test's texts."""
    memory = _memory(database, embeddings)
    observations = [ObservationIn(f"item:k{i}", t) for i, t in enumerate(TEXTS)]
    await memory.aingest_many(("ref", uuid.uuid4().hex[:12]), observations)
    return _calls(memory)


async def test_a_batch_of_puts_is_ingested_in_bulk(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    reference = await _bulk_reference(database, embeddings)
    memory = _memory(database, embeddings)
    store = MemoryStore(memory)
    await store.abatch([PutOp(ns, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS)])
    assert _calls(memory) == reference < len(TEXTS)
    assert await _observations(database, ns) == {f"item:k{i}": t for i, t in enumerate(TEXTS)}
    found = await store.asearch(ns, query="Who talked about adoption?", limit=20)
    assert {i.key for i in found} >= {f"k{i}" for i, t in enumerate(TEXTS) if "adoption" in t}
    assert await _tasks(database) == 0


async def test_concurrent_puts_are_coalesced_and_constructed_together(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    reference = await _bulk_reference(database, embeddings)
    memory = _memory(database, embeddings)
    store = MemoryStore(memory)
    await asyncio.gather(*(store.aput(ns, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS)))
    assert _calls(memory) == reference
    assert await _observations(database, ns) == {f"item:k{i}": t for i, t in enumerate(TEXTS)}
    assert await _tasks(database) == 0


async def test_a_bad_call_fails_alone_among_concurrent_ones(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), index=False)
    outcomes = await asyncio.gather(
        store.aput(ns, "a", {"n": 1}),
        store.aput(ns, "b", {"n": float("nan")}),
        store.aget(ns, "a"),
        return_exceptions=True,
    )
    assert outcomes[0] is None and isinstance(outcomes[1], InvalidInputError)
    assert (await store.aget(ns, "a")) is not None and (await store.aget(ns, "b")) is None


async def test_a_batch_replacing_and_deleting_items_reconciles_memory(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings))
    await store.abatch([PutOp(ns, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS[:6])])
    await store.abatch(
        [
            PutOp(ns, "k0", None),
            PutOp(ns, "k1", {"text": TEXTS[10]}),
            PutOp(ns, "k2", {"other": 3}),
            PutOp(ns, "k6", {"text": TEXTS[6]}),
        ]
    )
    expected = {f"item:k{i}": TEXTS[i] for i in (3, 4, 5, 6)} | {"item:k1": TEXTS[10]}
    assert await _observations(database, ns) == expected


async def _topic_runs(database: Database, ns: tuple[str, ...]) -> int:
    """Topic evolutions run in the namespace (one ``topics`` lineage row each)."""
    async with database.session() as s:
        rows = await s.scalars(
            select(Lineage.id).where(
                Lineage.namespace == ".".join(ns), Lineage.operation == "topics"
            )
        )
        return len(list(rows))


async def test_a_store_batch_evolves_topics_only_when_due(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """Like single puts, and unlike a plain ``Memory.aingest_many`` (which evolves once
    more at its end), a store batch evolves topics only after ``topic_every`` new notes.
    """
    rare = ConstructionConfig(topic_every=1_000, topic_min_size=2)
    store = MemoryStore(Memory(database, embeddings, config=rare))
    await store.abatch([PutOp(ns, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS)])
    await store.aflush()
    assert await _topic_runs(database, ns) == 0
    reference = (ns[0], f"{ns[1]}-ref")
    observations = [ObservationIn(f"item:k{i}", t) for i, t in enumerate(TEXTS)]
    await store.memory.aingest_many(reference, observations)
    assert await _topic_runs(database, reference) == 1
    often = (ns[0], f"{ns[1]}-often")
    frequent = ConstructionConfig(topic_every=4, topic_min_size=2)
    store = MemoryStore(Memory(database, embeddings, config=frequent))
    await store.abatch([PutOp(often, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS)])
    await store.aflush()
    assert await _topic_runs(database, often) >= 1


async def test_background_puts_flush_with_progress(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), background=True)
    await asyncio.gather(*(store.aput(ns, f"k{i}", {"text": t}) for i, t in enumerate(TEXTS)))
    seen: list[tuple[int, int]] = []
    await store.aflush(progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1] >= 1
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    assert await _observations(database, ns) == {f"item:k{i}": t for i, t in enumerate(TEXTS)}
    assert await _tasks(database) == 0


CALLS = 60_000
"""Concurrent calls of the load test (issue 15's acceptance figure)."""


async def test_sixty_thousand_concurrent_calls_complete(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), index={"fields": ["text"]})
    keys = 50
    await store.abatch([PutOp(ns, f"k{i}", {"n": i}) for i in range(keys)])
    written = (ns[0], f"{ns[1]}-written")

    async def call(i: int) -> object:
        j = i % keys
        if i % 3 == 0:
            return await store.aget(ns, f"k{j}")
        if i % 3 == 1:
            return await store.asearch(ns, filter={"n": j}, limit=1)
        return await store.aput(written, f"w{i}", {"n": i}, index=False)

    results = await asyncio.gather(*(call(i) for i in range(CALLS)))
    for i, result in enumerate(results):
        j = i % keys
        if i % 3 == 0:
            assert result is not None and result.value == {"n": j}  # type: ignore[attr-defined]
        elif i % 3 == 1:
            assert [(r.key, r.value) for r in result] == [(f"k{j}", {"n": j})]  # type: ignore[attr-defined]
        else:
            assert result is None
    stored = await store.asearch(written, limit=CALLS)
    assert len(stored) == CALLS // 3 and {i.value["n"] % 3 for i in stored} == {2}


async def test_a_connection_wait_beyond_the_bound_is_database_unavailable(
    database_url: str,
) -> None:
    database = Database(database_url, pool_size=1, pool_timeout=0.5)
    async with AsyncExitStack() as held:
        for _ in range(database.pool_size + MAX_OVERFLOW):
            await held.enter_async_context(database.session())
        with pytest.raises(DatabaseUnavailableError, match="No database connection"):
            async with database.session():
                pass
    await database.dispose()
