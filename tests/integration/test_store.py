"""MemoryStore beyond conformance: indexed puts build memory, query search ranks items by
their notes, deleting / replacing / expiring repairs memory, interrupted construction is
resumed by the next store, TTL, and clear errors."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError as LangGraphInvalidNamespaceError
from sqlalchemy import func, select

from langmemcore import (
    DatabaseUnavailableError,
    InvalidInputError,
    InvalidNamespaceError,
    MemoryStore,
    NotFoundError,
)
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.models import (
    Edge,
    Item,
    ItemTask,
    Keyword,
    Lineage,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    QueryLog,
)

SUNRISE = "I painted a sunrise over the lake last weekend."
SUNRISE_AGAIN = "I painted a sunrise over the lake last weekend!"
PAINTING = "My painting of the lake sunrise now hangs in the living room."
ADOPTION = "Caroline is researching adoption agencies to give a kid a home."
CAMPING = "We took the kids camping in the mountains and roasted marshmallows."


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


async def _state(database: Database, ns: tuple[str, ...]) -> dict[str, Any]:
    """Notes (sources as keys), keywords and edges of a namespace."""
    text = ".".join(ns)
    async with database.session() as s:
        notes = {n.id: n for n in await s.scalars(select(Note).where(Note.namespace == text))}
        sources: dict[int, set[str]] = {i: set() for i in notes}
        for note_id, key in await s.execute(
            select(NoteSource.note_id, Observation.key)
            .join(Observation, Observation.id == NoteSource.observation_id)
            .where(NoteSource.namespace == text)
        ):
            sources[note_id].add(key)
        return {
            "notes": notes,
            "sources": sources,
            "observations": set(
                await s.scalars(select(Observation.key).where(Observation.namespace == text))
            ),
            "keywords": int(
                await s.scalar(select(func.count()).where(Keyword.namespace == text)) or 0
            ),
            "note_keywords": list(
                await s.scalars(select(NoteKeyword.note_id).where(NoteKeyword.namespace == text))
            ),
            "edges": list(
                await s.execute(
                    select(Edge.source_id, Edge.target_id).where(Edge.namespace == text)
                )
            ),
            "tasks": int(
                await s.scalar(select(func.count()).where(ItemTask.namespace == text)) or 0
            ),
            "operations": list(
                await s.scalars(select(Lineage.operation).where(Lineage.namespace == text))
            ),
        }


async def test_indexed_puts_build_memory_and_query_search_ranks_items(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory, index={"fields": ["text"]})
    await store.aput(ns, "adopt", {"text": ADOPTION, "tags": ["family"]})
    await store.aput(ns, "camp", {"text": CAMPING, "n": 2})
    await store.aput(ns, "hidden", {"text": "Caroline loves adoption stories."}, index=False)
    await store.aput(ns, "notext", {"n": 1})
    state = await _state(database, ns)
    assert state["observations"] == {"item:adopt", "item:camp"}
    assert state["tasks"] == 0

    found = await store.asearch(ns, query="Which adoption agencies did Caroline research?")
    assert [i.key for i in found][:1] == ["adopt"]
    assert {i.key for i in found} <= {"adopt", "camp"}
    assert all(i.score is not None for i in found)
    assert [i.score for i in found] == sorted((i.score for i in found), reverse=True)
    assert found[0].value == {"text": ADOPTION, "tags": ["family"]}

    filtered = await store.asearch(ns, query="adoption agencies", filter={"n": 2})
    assert [i.key for i in filtered] == ["camp"]

    item = await store.aget(ns, "adopt")
    assert item is not None and item.value == {"text": ADOPTION, "tags": ["family"]}
    await store.aput(ns, "adopt", {"text": ADOPTION, "tags": ["family", "kids"]})
    again = await store.aget(ns, "adopt")
    assert again is not None
    assert again.created_at == item.created_at and again.updated_at > item.updated_at
    assert (await _state(database, ns))["observations"] == {"item:adopt", "item:camp"}


async def test_feedback_on_searched_items_settles_their_notes(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory, index={"fields": ["text"]})
    await store.aput(ns, "adopt", {"text": ADOPTION})
    await store.aput(ns, "camp", {"text": CAMPING})
    await store.aput(ns, "plain", {"text": "Caroline adopted a cat."}, index=False)
    query = "Which adoption agencies did Caroline research?"
    found = await store.asearch(ns, query=query)
    adopt = next(i for i in found if i.key == "adopt")
    state = await _state(database, ns)
    adopt_notes = {n for n, keys in state["sources"].items() if "item:adopt" in keys}
    settled = await store.afeedback([adopt], 1.0, query=query)
    assert set(settled) == adopt_notes
    assert all(tau > 0.5 for tau in settled.values())
    async with database.session() as s:
        used = await s.scalar(
            select(QueryLog.used)
            .where(QueryLog.namespace == ".".join(ns), QueryLog.query == query)
            .order_by(QueryLog.id.desc())
            .limit(1)
        )
    assert set(used or []) == adopt_notes
    with pytest.raises(NotFoundError):
        await store.afeedback([adopt], 1.0, query="never asked")
    plain = await store.aget(ns, "plain")
    assert plain is not None
    with pytest.raises(NotFoundError):
        await store.afeedback([plain], 0.0, query=query)


async def test_sync_api_runs_through_the_bridge(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)

    def work() -> list[str]:
        store.put(ns, "camp", {"note": CAMPING})
        return [i.key for i in store.search(ns, query="camping in the mountains")]

    assert await asyncio.to_thread(work) == ["camp"]


async def test_deleting_and_replacing_items_repairs_memory(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await store.aput(ns, "a", {"text": SUNRISE})
    await store.aput(ns, "b", {"text": SUNRISE_AGAIN})
    await store.aput(ns, "c", {"text": PAINTING})
    state = await _state(database, ns)
    merged = next(i for i, src in state["sources"].items() if src == {"item:a", "item:b"})

    await store.adelete(ns, "a")
    state = await _state(database, ns)
    assert state["sources"][merged] == {"item:b"}
    assert state["notes"][merged].context.count("sunrise") == 1
    assert "item:a" not in state["observations"]
    assert "repair" in state["operations"] and "forget" in state["operations"]

    await store.aput(ns, "b", {"text": CAMPING})
    state = await _state(database, ns)
    assert merged not in state["notes"]
    assert sorted(state["sources"].values(), key=sorted) == [{"item:b"}, {"item:c"}]
    camp = next(n for n in state["notes"].values() if "camping" in n.context)
    assert "sunrise" not in camp.context
    found = await store.asearch(ns, query="camping trip with marshmallows")
    assert found[0].key == "b"

    await store.aput(ns, "c", {"text": PAINTING}, index=False)
    await store.adelete(ns, "b")
    state = await _state(database, ns)
    assert state["notes"] == {} and state["observations"] == set()
    assert state["keywords"] == 0 and state["note_keywords"] == [] and state["edges"] == []
    assert await store.asearch(ns, query="painting") == []
    assert (await store.aget(ns, "c")) is not None


async def test_forget_removes_edges_and_orphan_keywords(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest(ns, SUNRISE, key="s")
    await memory.aingest(ns, PAINTING, key="p")
    await memory.aingest(ns, ADOPTION, key="x")
    before = await _state(database, ns)
    report = await memory.aforget(ns, "p")
    assert report is not None and len(report.deleted_notes) == 1
    after = await _state(database, ns)
    alive = set(after["notes"])
    assert all(s in alive and t in alive for s, t in after["edges"])
    assert set(after["note_keywords"]) <= alive
    assert after["keywords"] < before["keywords"]
    assert await memory.aforget(ns, "p") is None


async def test_background_construction_resumes_in_the_next_store(
    database: Database, database_url: str, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    first = MemoryStore(Memory(database, embeddings), background=True)
    await first.aput(ns, "adopt", {"text": ADOPTION})
    for worker in first._queue.workers.values():
        worker.cancel()  # the process "exits" before construction ran
    state = await _state(database, ns)
    assert state["tasks"] == 1 and state["observations"] == set()

    second = await MemoryStore.aopen(database_url, embeddings=embeddings)
    assert (await second.aget(ns, "adopt")) is not None
    await second.aflush()
    state = await _state(database, ns)
    assert state["tasks"] == 0 and state["observations"] == {"item:adopt"}
    found = await second.asearch(ns, query="adoption agencies")
    assert [i.key for i in found] == ["adopt"]


async def test_background_put_and_flush(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    async with MemoryStore(memory, background=True) as store:
        for i, text in enumerate([SUNRISE, CAMPING, ADOPTION]):
            await store.aput(ns, f"k{i}", {"text": text})
        await store.aflush()
        assert (await _state(database, ns))["observations"] == {"item:k0", "item:k1", "item:k2"}
    assert (await _state(database, ns))["tasks"] == 0


async def test_ttl_expiry_refresh_and_sweep(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory, ttl={"default_ttl": 10.0, "refresh_on_read": True})
    await store.aput(ns, "keep", {"text": CAMPING}, ttl=None)
    await store.aput(ns, "long", {"n": 1})
    await store.aput(ns, "short", {"text": ADOPTION}, ttl=0.0005)

    async def expiry(key: str) -> Any:
        async with database.session() as s:
            return await s.scalar(
                select(Item.expires_at).where(Item.namespace == ".".join(ns), Item.key == key)
            )

    assert await expiry("keep") is None
    first = await expiry("long")
    assert first is not None
    await asyncio.sleep(0.05)
    await store.aget(ns, "long")
    assert await expiry("long") > first
    await store.aget(ns, "long", refresh_ttl=False)
    # expired, not swept: still there unless the store omits expired items
    assert (await store.aget(ns, "short", refresh_ttl=False)) is not None
    omitting = MemoryStore(memory, ttl={"omit_expired": True})
    assert (await omitting.aget(ns, "short", refresh_ttl=False)) is None
    assert await store.asweep_ttl() >= 1
    assert (await store.aget(ns, "short")) is None
    assert "item:short" not in (await _state(database, ns))["observations"]


def test_ttl_sweeper_thread(memory: Memory, database: Database, ns: tuple[str, ...]) -> None:
    store = MemoryStore(memory, ttl={"sweep_interval_minutes": 1})
    store.put(ns, "brief", {"n": 1}, ttl=0.0001)
    future = store.start_ttl_sweeper(sweep_interval_minutes=0.001)  # type: ignore[arg-type]
    for _ in range(200):
        if store.get(ns, "brief", refresh_ttl=False) is None:
            break
        time.sleep(0.05)
    assert store.get(ns, "brief") is None
    assert store.stop_ttl_sweeper(timeout=10)
    assert future.done()


async def test_clear_errors_and_nothing_stored(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    for bad in [(), ("langgraph", "x"), ("a.b",), ("a", ""), ("a", 3)]:
        with pytest.raises(InvalidNamespaceError) as info:
            await store.aput(bad, "k", {"text": "x"})  # type: ignore[arg-type]
        assert isinstance(info.value, LangGraphInvalidNamespaceError)
    with pytest.raises(InvalidInputError, match="dict"):
        await store.aput(ns, "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="NUL"):
        await store.aput(ns, "k", {"text": "a\x00b"})
    with pytest.raises(InvalidInputError, match="JSON"):
        await store.aput(ns, "k", {"x": float("nan")})
    small = Memory(database, memory.embeddings, config=ConstructionConfig(max_observation_chars=50))
    with pytest.raises(InvalidInputError, match="limit is 50"):
        await MemoryStore(small).aput(ns, "big", {"text": "word " * 40})
    assert await store.aget(ns, "big") is None and await store.aget(ns, "k") is None
    with pytest.raises(InvalidInputError, match="empty"):
        await store.asearch(ns, query="   ")

    gone = MemoryStore(
        Memory(Database("postgresql+psycopg://nobody@127.0.0.1:9/none"), memory.embeddings)
    )
    with pytest.raises(DatabaseUnavailableError):
        await gone.aget(ns, "k")
    with pytest.raises(DatabaseUnavailableError):
        await gone.aput(ns, "k", {"text": "x"})


async def test_a_prefix_never_reaches_sibling_namespaces(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory, index=False)
    root = ns[1]
    for namespace, value in [
        ((root + "a",), "a-root"),
        ((root + "a", "child"), "a-child"),
        ((root + "ab",), "ab"),
        ((root + "a_b",), "a_b"),
        ((root + "aXb",), "aXb"),
    ]:
        await store.aput(namespace, "k", {"v": value})
    under_a = await store.asearch((root + "a",), limit=100)
    under_a_b = await store.asearch((root + "a_b",), limit=100)
    assert sorted(i.value["v"] for i in under_a) == ["a-child", "a-root"]
    assert [i.value["v"] for i in under_a_b] == ["a_b"]
