"""MemoryStore against the behaviours LangGraph's own store tests check.

LangGraph tests its stores in ``libs/checkpoint/tests/test_store.py`` (``InMemoryStore``)
and ``libs/checkpoint-postgres/tests/test_store.py`` / ``test_async_store.py``
(``PostgresStore``, ``AsyncPostgresStore``). These are the project's own tests of the
behaviours there that apply to any ``BaseStore``: each runs on ``MemoryStore`` on the real
Postgres and, where cheap, on LangGraph's ``InMemoryStore`` (or ``PostgresStore``, for TTL,
which ``InMemoryStore`` does not support) as the reference, with the same assertions.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
    TTLConfig,
)
from langgraph.store.memory import InMemoryStore
from langgraph.store.postgres import PostgresStore
from sqlalchemy import make_url

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.store import MemoryStore
from tests.conftest import libpq_url

Namespace = tuple[str, ...]
TTL: TTLConfig = {"refresh_on_read": True, "omit_expired": True}


@pytest.fixture(params=["memory_store", "in_memory_store"])
def store(request: pytest.FixtureRequest, database: Database, embeddings: LocalEmbeddings) -> Any:
    """MemoryStore (real Postgres, no indexing), then LangGraph's InMemoryStore."""
    if request.param == "in_memory_store":
        return InMemoryStore()
    return MemoryStore(Memory(database, embeddings), index=False)


@pytest.fixture()
def root() -> Namespace:
    return ("lgconf", uuid.uuid4().hex[:12])


@pytest.fixture(scope="module")
def postgres_url(database_url: str) -> Iterator[str]:
    """A database of its own on the same server for LangGraph's PostgresStore."""
    name = f"lmc_lgconf_{uuid.uuid4().hex[:8]}"
    admin = libpq_url(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = libpq_url(make_url(database_url).set(database=name).render_as_string(False))
    try:
        with PostgresStore.from_conn_string(url) as pg:
            pg.setup()
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _ttl_stores(
    database: Database, embeddings: LocalEmbeddings, postgres_url: str
) -> Iterator[tuple[str, BaseStore]]:
    yield "memory_store", MemoryStore(Memory(database, embeddings), index=False, ttl=TTL)
    with PostgresStore.from_conn_string(postgres_url, ttl=TTL) as pg:
        yield "postgres_store", pg


def _triples(items: list[Any]) -> list[tuple[Namespace, str, Any]]:
    return [(i.namespace, i.key, i.value) for i in items]


def test_put_get_overwrite_delete(store: BaseStore, root: Namespace) -> None:
    ns = (*root, "docs")
    assert store.get(ns, "k") is None
    store.put(ns, "k", {"text": "first", "n": 1})
    item = store.get(ns, "k")
    assert item is not None and (item.namespace, item.key, item.value) == (
        ns,
        "k",
        {"text": "first", "n": 1},
    )
    assert item.created_at <= item.updated_at
    store.put(ns, "k", {"text": "second"})
    again = store.get(ns, "k")
    assert again is not None and again.value == {"text": "second"}
    assert again.updated_at >= item.updated_at
    store.delete(ns, "k")
    assert store.get(ns, "k") is None
    store.delete(ns, "never-there")  # deleting a missing key is no error


def test_values_round_trip_unicode_and_nesting(store: BaseStore, root: Namespace) -> None:
    ns = (*root, "ünï", "日本")
    value = {"text": "héllo 👋", "nested": {"list": [1, 2.5, None, True], "s": ""}}
    store.put(ns, "ключ", value)
    item = store.get(ns, "ключ")
    assert item is not None and item.value == value
    assert store.list_namespaces(prefix=root) == [ns]


def test_batch_results_follow_op_order_and_reads_see_state_before(
    store: BaseStore, root: Namespace
) -> None:
    ns = (*root, "b")
    store.put(ns, "old", {"n": 0})
    results = store.batch(
        [
            PutOp(ns, "new", {"n": 1}),
            GetOp(ns, "old"),
            GetOp(ns, "new"),
            SearchOp(ns, limit=10),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", root),)),
            PutOp(ns, "old", None),
        ]
    )
    assert len(results) == 6 and results[0] is None and results[5] is None
    assert results[1] is not None and results[1].value == {"n": 0}
    assert results[2] is None
    assert _triples(results[3]) == [(ns, "old", {"n": 0})]
    assert results[4] == [ns]
    assert store.get(ns, "old") is None
    assert (got := store.get(ns, "new")) is not None and got.value == {"n": 1}


def test_batch_last_put_of_a_key_wins(store: BaseStore, root: Namespace) -> None:
    ns = (*root, "dup")
    store.batch([PutOp(ns, "k", {"v": 1}), PutOp(ns, "k", {"v": 2}), PutOp(ns, "j", {"v": 3})])
    assert (got := store.get(ns, "k")) is not None and got.value == {"v": 2}
    store.batch([PutOp(ns, "j", {"v": 4}), PutOp(ns, "j", None)])
    assert store.get(ns, "j") is None


def test_search_filter_limit_offset(store: BaseStore, root: Namespace) -> None:
    for i in range(6):
        kind = "even" if i % 2 == 0 else "odd"
        store.put((*root, kind), f"k{i}", {"kind": kind, "n": i, "tag": {"x": i % 3}})
    keys: Callable[[list[Any]], set[str]] = lambda items: {i.key for i in items}  # noqa: E731
    assert keys(store.search(root, filter={"kind": "even"})) == {"k0", "k2", "k4"}
    assert keys(store.search(root, filter={"n": {"$gte": 2, "$lt": 5}})) == {"k2", "k3", "k4"}
    assert keys(store.search(root, filter={"n": {"$ne": 0}, "kind": "even"})) == {"k2", "k4"}
    assert keys(store.search(root, filter={"tag": {"x": 0}})) == {"k0", "k3"}
    assert keys(store.search((*root, "odd"))) == {"k1", "k3", "k5"}
    assert store.search(root, filter={"kind": "none"}) == []
    assert len(store.search(root, limit=4)) == 4
    pages = [store.search(root, limit=2, offset=o) for o in (0, 2, 4, 6)]
    assert [len(p) for p in pages] == [2, 2, 2, 0]
    assert set().union(*(keys(p) for p in pages)) == {f"k{i}" for i in range(6)}
    assert all(i.score is None for p in pages for i in p)


def test_search_prefix_matches_whole_labels(store: BaseStore, root: Namespace) -> None:
    store.put((*root, "user"), "a", {"n": 1})
    store.put((*root, "user2"), "b", {"n": 2})
    store.put((*root, "user", "sub"), "c", {"n": 3})
    assert {i.key for i in store.search((*root, "user"))} == {"a", "c"}


def test_list_namespaces_prefix_suffix_wildcard_depth_paging(
    store: BaseStore, root: Namespace
) -> None:
    spaces = [
        (*root, "a", "docs"),
        (*root, "a", "notes"),
        (*root, "b", "docs"),
        (*root, "b", "docs", "deep"),
    ]
    for ns in spaces:
        store.put(ns, "k", {"n": 1})
    assert store.list_namespaces(prefix=root) == sorted(spaces)
    assert store.list_namespaces(prefix=(*root, "a")) == spaces[:2]
    assert store.list_namespaces(prefix=root, suffix=("docs",)) == [spaces[0], spaces[2]]
    assert store.list_namespaces(prefix=(*root, "*", "docs")) == [spaces[0], *spaces[2:]]
    assert store.list_namespaces(prefix=root, max_depth=3) == [(*root, "a"), (*root, "b")]
    assert store.list_namespaces(prefix=root, limit=2, offset=1) == sorted(spaces)[1:3]
    assert store.list_namespaces(prefix=(*root, "zzz")) == []


def test_reserved_langgraph_root_refused_by_put_only(store: BaseStore, root: Namespace) -> None:
    reserved = ("langgraph", *root)
    with pytest.raises(InvalidNamespaceError):
        store.put(reserved, "k", {"n": 1})
    store.batch([PutOp(reserved, "k", {"n": 1})])
    results = store.batch(
        [
            GetOp(reserved, "k"),
            SearchOp(reserved),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", reserved),)),
        ]
    )
    assert results[0] is not None and results[0].value == {"n": 1}
    assert _triples(results[1]) == [(reserved, "k", {"n": 1})]
    assert results[2] == [reserved]
    assert (got := store.get(reserved, "k")) is not None and got.value == {"n": 1}
    store.delete(reserved, "k")
    assert store.get(reserved, "k") is None


@pytest.mark.parametrize("bad", [("a.b",), ("a", ""), ("a\x00",)])
def test_bad_labels_refused_everywhere(store: BaseStore, bad: Namespace) -> None:
    for call in (
        lambda: store.put(bad, "k", {"n": 1}),
        lambda: store.get(bad, "k"),
        lambda: store.search(bad),
        lambda: store.delete(bad, "k"),
        lambda: store.list_namespaces(prefix=bad),
    ):
        with pytest.raises(InvalidNamespaceError):
            call()


def test_ttl_refresh_never_revives_an_expired_item(
    database: Database, embeddings: LocalEmbeddings, postgres_url: str
) -> None:
    """With ``omit_expired``, an expired item not yet swept stays gone, even for a read
    that refreshes the TTL (PostgresStore's answer: ``None``)."""
    for name, ttl_store in _ttl_stores(database, embeddings, postgres_url):
        ns = ("lgconf", uuid.uuid4().hex[:12])
        ttl_store.put(ns, "brief", {"n": 1}, ttl=0.002)  # 0.12 s
        ttl_store.put(ns, "lasting", {"n": 2}, ttl=60)
        time.sleep(0.5)
        assert ttl_store.get(ns, "brief", refresh_ttl=True) is None, name
        assert ttl_store.get(ns, "brief", refresh_ttl=False) is None, name
        assert [i.key for i in ttl_store.search(ns, refresh_ttl=True)] == ["lasting"], name
        assert ttl_store.get(ns, "brief") is None, name
        ttl_store.delete(ns, "lasting")
        assert ttl_store.list_namespaces(prefix=ns) == [], name


def test_ttl_refresh_on_read_extends_a_live_item(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    """A read with ``refresh_on_read`` restarts a live item's TTL clock (MemoryStore
    only: here PostgresStore 3.2 loses the refreshed item too)."""
    store = MemoryStore(Memory(database, embeddings), index=False, ttl=TTL)
    ns = ("lgconf", uuid.uuid4().hex[:12])
    for key in ("read", "unread", "searched"):
        store.put(ns, key, {"key": key}, ttl=0.1)  # 6 s
    time.sleep(4)
    assert store.get(ns, "read") is not None  # refresh_on_read: 6 s more
    assert store.get(ns, "unread", refresh_ttl=False) is not None
    assert store.search(ns, filter={"key": "searched"})[0].key == "searched"
    time.sleep(4)
    assert store.get(ns, "unread", refresh_ttl=False) is None
    assert store.get(ns, "read", refresh_ttl=False) is not None
    assert store.get(ns, "searched", refresh_ttl=False) is not None


def test_sweep_deletes_expired_items(database: Database, embeddings: LocalEmbeddings) -> None:
    store = MemoryStore(Memory(database, embeddings), index=False, ttl=TTL)
    ns = ("lgconf", uuid.uuid4().hex[:12])
    store.put(ns, "brief", {"n": 1}, ttl=0.001)
    store.put(ns, "lasting", {"n": 1})
    time.sleep(0.3)
    assert store.sweep_ttl() >= 1
    assert store.list_namespaces(prefix=ns) == [ns]
    assert store.get(ns, "lasting") is not None


def test_ttl_sweeper_from_sync_code(database: Database, embeddings: LocalEmbeddings) -> None:
    store = MemoryStore(Memory(database, embeddings), index=False, ttl=TTL)
    ns = ("lgconf", uuid.uuid4().hex[:12])
    store.put(ns, "brief", {"n": 1}, ttl=0.001)
    future = store.start_ttl_sweeper(sweep_interval_minutes=0.001)
    assert not future.done()
    deadline = time.monotonic() + 20
    while store.list_namespaces(prefix=ns) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.list_namespaces(prefix=ns) == []
    stopped = store.stop_ttl_sweeper(timeout=10)
    assert stopped and future.done()
    assert store.stop_ttl_sweeper()  # not running: stopped


async def test_ttl_sweeper_awaitable_from_async_code(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    """``await store.start_ttl_sweeper()`` / ``await store.stop_ttl_sweeper()`` as with
    AsyncPostgresStore."""
    store = MemoryStore(Memory(database, embeddings), index=False, ttl=TTL)
    ns = ("lgconf", uuid.uuid4().hex[:12])
    await store.aput(ns, "brief", {"n": 1}, ttl=0.001)
    handle = await store.start_ttl_sweeper(sweep_interval_minutes=0.001)
    deadline = time.monotonic() + 20
    while await store.alist_namespaces(prefix=ns) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert await store.alist_namespaces(prefix=ns) == []
    assert await store.stop_ttl_sweeper(timeout=10) is True
    assert handle.done()
    no_ttl = MemoryStore(store.memory, index=False)
    assert (await no_ttl.start_ttl_sweeper()).done()  # nothing to sweep without a TTL config
    assert await no_ttl.stop_ttl_sweeper() is True


async def test_sync_calls_on_the_stores_own_loop_raise(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    """As AsyncPostgresStore: a sync call from the loop the store lives on raises
    ``InvalidStateError`` (it would block that loop); from another thread it works."""
    store = MemoryStore(Memory(database, embeddings), index=False)
    ns = ("lgconf", uuid.uuid4().hex[:12])
    calls: list[Callable[[], Any]] = [
        lambda: store.put(ns, "k", {"n": 1}),
        lambda: store.get(ns, "k"),
        lambda: store.search(ns),
        lambda: store.delete(ns, "k"),
        lambda: store.list_namespaces(prefix=ns),
        lambda: store.batch([GetOp(ns, "k")]),
    ]
    for call in calls:
        with pytest.raises(asyncio.InvalidStateError, match=r"await store\.a"):
            call()
    await asyncio.to_thread(store.put, ns, "k", {"n": 1})
    got = await asyncio.to_thread(store.get, ns, "k")
    assert got is not None and got.value == {"n": 1}
    assert (await store.aget(ns, "k")) is not None


def test_query_scores_are_set_and_in_result_order(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    store = MemoryStore(Memory(database, embeddings))
    ns = ("lgconf", uuid.uuid4().hex[:12])
    texts = {
        "dog": "Maya walks her beagle Pretzel in the park every morning.",
        "cook": "Maya bakes sourdough bread on Sundays.",
        "job": "Maya works as a structural engineer designing bridges.",
    }
    store.batch([PutOp(ns, key, {"text": text}) for key, text in texts.items()])
    found = store.search(ns, query="What is the name of Maya's dog?", limit=3)
    assert found and found[0].key == "dog"
    scores = [i.score for i in found]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert all(i.score is None for i in store.search(ns))
