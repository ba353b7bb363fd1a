"""MemoryStore against LangGraph's InMemoryStore on random operation sequences.

Each example runs the same generated operations on a fresh ``InMemoryStore`` and on a
``MemoryStore`` (real Postgres, ``index=False`` so no embedding runs) under a namespace
root of its own, and requires identical answers from get / put / delete / filtered
search / list_namespaces, through the sync and the async API.

Where LangGraph's two stores disagree, ``MemoryStore`` follows ``PostgresStore`` and the
reference is normalised accordingly (documented in ``docs`` of each comparison):

- a search without query lists the most recently updated item first (``PostgresStore``'s
  ``ORDER BY updated_at DESC``; ``InMemoryStore`` keeps insertion order); items written in
  one batch tie and come by namespace, then key. The model keeps a write clock;
- ``list_namespaces`` lists namespaces that hold items (``InMemoryStore`` also lists
  namespaces that were only read or whose items were all deleted).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.postgres import PostgresStore
from sqlalchemy import make_url

from langmemcore._bridge import run_sync
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.store import MemoryStore
from tests.conftest import libpq_url

Namespace = tuple[str, ...]

LABELS = st.sampled_from(["a", "b", "B", "a-b", "a_b", "é", "z9"])
SUBSPACES = st.lists(LABELS, min_size=1, max_size=3).map(tuple)
KEYS = st.sampled_from(["k1", "k2", "K", "k_3", "", "ü"])
STRINGS = st.sampled_from(["", "a", "b", "B", "ä", "a b"])
SMALL = st.integers(-3, 3)

VALUES = st.fixed_dictionaries(
    {"n": SMALL, "s": STRINGS, "b": st.booleans()},
    optional={
        "m": st.none() | SMALL,
        "nested": st.fixed_dictionaries({"x": SMALL}, optional={"y": STRINGS}),
        "tags": st.lists(SMALL, max_size=3),
        "f": st.floats(allow_nan=False, allow_infinity=False),
        "big": st.integers(-(2**70), 2**70),
    },
)

COMPARISON = st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"])
CONDITIONS = st.one_of(
    st.tuples(st.just("n"), SMALL),
    st.tuples(st.just("n"), st.dictionaries(COMPARISON, SMALL, min_size=1, max_size=2)),
    st.tuples(st.just("s"), STRINGS | STRINGS.map(lambda s: {"$ne": s})),
    st.tuples(st.just("b"), st.booleans() | st.booleans().map(lambda b: {"$eq": b})),
    st.tuples(st.just("m"), st.none() | SMALL | SMALL.map(lambda v: {"$ne": v})),
    st.tuples(st.just("nested"), st.fixed_dictionaries({"x": SMALL})),
    st.tuples(st.just("tags"), st.lists(SMALL, max_size=2)),
)
FILTERS = st.none() | st.lists(CONDITIONS, min_size=1, max_size=2).map(dict)

OPS = st.one_of(
    st.tuples(st.just("put"), SUBSPACES, KEYS, VALUES),
    st.tuples(st.just("put"), SUBSPACES, KEYS, VALUES),
    st.tuples(st.just("put_many"), st.lists(st.tuples(SUBSPACES, KEYS, VALUES), max_size=3)),
    st.tuples(st.just("delete"), SUBSPACES, KEYS),
    st.tuples(st.just("get"), SUBSPACES, KEYS),
    st.tuples(
        st.just("search"),
        st.lists(LABELS, max_size=2).map(tuple),
        FILTERS,
        st.integers(0, 6),
        st.integers(0, 4),
    ),
    st.tuples(
        st.just("list"),
        st.lists(LABELS | st.just("*"), max_size=2).map(tuple),
        st.none() | st.lists(LABELS | st.just("*"), min_size=1, max_size=2).map(tuple),
        st.none() | st.integers(1, 5),
        st.integers(0, 6),
        st.integers(0, 3),
    ),
)


class Model:
    """InMemoryStore plus the write clock that gives PostgresStore's order."""

    def __init__(self) -> None:
        self.store = InMemoryStore()
        self.clock = 0
        self.written: dict[tuple[Namespace, str], int] = {}
        self.live: set[tuple[Namespace, str]] = set()

    def write(self, puts: list[tuple[Namespace, str, dict[str, Any] | None]]) -> None:
        self.clock += 1
        self.store.batch([PutOp(ns, key, value) for ns, key, value in puts])
        for ns, key, value in puts:
            if value is None:
                self.live.discard((ns, key))
            else:
                self.live.add((ns, key))
                self.written[(ns, key)] = self.clock

    def search(
        self, prefix: Namespace, flt: dict[str, Any] | None, limit: int, offset: int
    ) -> list[Any]:
        found = self.store.search(prefix, filter=flt, limit=10**6)
        found.sort(
            key=lambda i: (-self.written[(i.namespace, i.key)], ".".join(i.namespace), i.key)
        )
        return [(i.namespace, i.key, i.value) for i in found[offset : offset + limit]]

    def list(
        self,
        prefix: Namespace,
        suffix: Namespace | None,
        max_depth: int | None,
        limit: int,
        offset: int,
    ) -> list[Namespace]:
        listed = self.store.list_namespaces(prefix=prefix, suffix=suffix, limit=10**6)
        holding = {ns for ns, _key in self.live}
        kept = {ns[:max_depth] if max_depth else ns for ns in listed if ns in holding}
        return sorted(kept)[offset : offset + limit]


@pytest.fixture(scope="module")
def conformance_store(database: Database, embeddings: LocalEmbeddings) -> Iterator[MemoryStore]:
    """A MemoryStore without indexing on the test database."""
    yield MemoryStore(Memory(database, embeddings), index=False)


def _run(store: MemoryStore, api: str, ops: list[Any]) -> None:
    root = ("conf", uuid.uuid4().hex[:12])
    model = Model()
    sync = api == "sync"

    def call(method: str, *args: Any, **kwargs: Any) -> Any:
        if sync:
            return getattr(store, method)(*args, **kwargs)
        return run_sync(getattr(store, "a" + method)(*args, **kwargs))

    for op in ops:
        kind = op[0]
        if kind == "put":
            _, sub, key, value = op
            ns = root + sub
            model.write([(ns, key, value)])
            call("put", ns, key, value)
        elif kind == "put_many":
            puts = [(root + sub, key, value) for sub, key, value in op[1]]
            if not puts:
                continue
            model.write(puts)
            batch = [PutOp(ns, key, value, index=False) for ns, key, value in puts]
            call("batch", batch)
        elif kind == "delete":
            ns = root + op[1]
            model.write([(ns, op[2], None)])
            call("delete", ns, op[2])
        elif kind == "get":
            ns = root + op[1]
            expected = model.store.get(ns, op[2])
            got = call("get", ns, op[2])
            assert (got and (got.namespace, got.key, got.value)) == (
                expected and (expected.namespace, expected.key, expected.value)
            )
        elif kind == "search":
            _, sub, flt, limit, offset = op
            prefix = root + sub
            got = call("search", prefix, filter=flt, limit=limit, offset=offset)
            assert [(i.namespace, i.key, i.value) for i in got] == model.search(
                prefix, flt, limit, offset
            ), (flt, limit, offset)
            assert all(i.score is None for i in got)
        else:
            _, sub, suffix, max_depth, limit, offset = op
            prefix = root + sub
            got = call(
                "list_namespaces",
                prefix=prefix,
                suffix=suffix,
                max_depth=max_depth,
                limit=limit,
                offset=offset,
            )
            assert got == model.list(prefix, suffix, max_depth, limit, offset), op


@pytest.mark.parametrize("api", ["sync", "async"])
def test_random_sequences_match_langgraph(conformance_store: MemoryStore, api: str) -> None:
    executed: list[int] = []

    @settings(
        max_examples=500,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(OPS, min_size=10, max_size=16))
    def check(ops: list[Any]) -> None:
        _run(conformance_store, api, ops)
        executed.append(len(ops))

    check()
    assert sum(executed) >= 5000  # the differential covers at least 5,000 operations per API


@pytest.fixture(scope="module")
def postgres_store(database_url: str) -> Iterator[PostgresStore]:
    """LangGraph's own PostgresStore in a database of its own on the same server."""
    name = f"lmc_pgstore_{uuid.uuid4().hex[:8]}"
    admin = libpq_url(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(database_url).set(database=name)
    try:
        with PostgresStore.from_conn_string(libpq_url(url.render_as_string(False))) as store:
            store.setup()
            yield store
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


SHARED_FILTERS = st.none() | st.dictionaries(
    st.sampled_from(["n", "s", "b"]), SMALL | STRINGS | st.booleans(), min_size=1, max_size=2
)
ORDER_OPS = st.one_of(
    st.tuples(st.just("put"), SUBSPACES, KEYS, st.fixed_dictionaries({"n": SMALL, "s": STRINGS})),
    st.tuples(st.just("delete"), SUBSPACES, KEYS),
    st.tuples(
        st.just("search"),
        st.lists(LABELS, max_size=2).map(tuple),
        SHARED_FILTERS,
        st.integers(0, 6),
        st.integers(0, 4),
    ),
)


def test_unqueried_search_order_matches_postgres_store(
    conformance_store: MemoryStore, postgres_store: PostgresStore
) -> None:
    """Where LangGraph's PostgresStore and InMemoryStore disagree (order without query),
    MemoryStore answers exactly as PostgresStore: most recently updated first."""

    @settings(
        max_examples=500,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(ORDER_OPS, max_size=12))
    def check(ops: list[Any]) -> None:
        root = ("order", uuid.uuid4().hex[:12])
        for op in ops:
            if op[0] == "put":
                for store in (postgres_store, conformance_store):
                    store.put(root + op[1], op[2], op[3])
            elif op[0] == "delete":
                for store in (postgres_store, conformance_store):
                    store.delete(root + op[1], op[2])
            else:
                _, sub, flt, limit, offset = op
                expected, got = (
                    [
                        (i.namespace, i.key, i.value)
                        for i in store.search(root + sub, filter=flt, limit=limit, offset=offset)
                    ]
                    for store in (postgres_store, conformance_store)
                )
                assert got == expected, op

    check()
