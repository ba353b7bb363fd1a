"""A large namespace's own vector indexes, against real Postgres: a topic evolution gives a
namespace past ``namespace_index_notes`` partial HNSW indexes of its own, the planner walks
them for its parameterised vector statements (and never for another namespace's), a
namespace with quotes and backslashes gets exactly its own predicate, and a build that
was cut off (an invalid index) is dropped and built again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from langmemcore.config import ConstructionConfig
from langmemcore.construction.namespace_indexes import ensure_namespace_indexes
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.database import SESSION_OPTIONS
from langmemcore.storage.namespace_indexes import (
    INDEXED_COLUMNS,
    NamespaceIndex,
    index_name,
)
from langmemcore.storage.stats import memory_stats
from tests.conftest import libpq_url

from .plans import plan_nodes
from .test_profiles import observations

SIZE = 4
"""namespace_index_notes in these tests: the Nadia conversation's four notes reach it."""

CHANNEL = (
    "SELECT id FROM notes WHERE namespace = %s AND status = ANY(%s) "
    "ORDER BY thread_embedding <=> %s, id LIMIT 60"
)
"""The vector channel's statement (as ``storage.search.channels`` builds it)."""


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(
        database, embeddings, config=ConstructionConfig(topic_every=0, namespace_index_notes=SIZE)
    )


@pytest.fixture()
def conn(database_url: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection with the library's session settings, every statement server-prepared."""
    with psycopg.connect(
        libpq_url(database_url), autocommit=True, options=SESSION_OPTIONS, prepare_threshold=0
    ) as connection:
        register_vector(connection)
        yield connection


def own_indexes(conn: psycopg.Connection[Any], namespace: str) -> dict[str, tuple[bool, str]]:
    """The namespace's own indexes: name -> (valid, predicate)."""
    names = [index_name(namespace, t, c) for t, c in INDEXED_COLUMNS]
    rows = conn.execute(
        "SELECT c.relname, i.indisvalid, pg_get_expr(i.indpred, i.indrelid) "
        "FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = ANY(%s)",
        (names,),
    ).fetchall()
    return {name: (valid, predicate) for name, valid, predicate in rows}


def walked_index(conn: psycopg.Connection[Any], namespace: str) -> set[str]:
    """The indexes the planner reads for the vector channel's statement in ``namespace``,
    sorting forbidden so that only an index can give the order (a handful of notes is
    otherwise read through the namespace's btree and sorted).
    """
    vector = np.full(384, 0.05, dtype=np.float32)
    with conn.transaction():
        conn.execute("SET LOCAL enable_sort = off")
        (plan,) = conn.execute(
            "EXPLAIN (FORMAT JSON) " + CHANNEL, (namespace, ["active"], vector)
        ).fetchone()
    return {node["Index Name"] for node in plan_nodes(plan) if "Index Name" in node}


async def test_a_namespace_past_the_size_gets_indexes_of_its_own_the_planner_walks(
    memory: Memory, ns: tuple[str, ...], conn: psycopg.Connection[Any]
) -> None:
    name = ".".join(ns)
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    indexes = own_indexes(conn, name)
    assert len(indexes) == len(INDEXED_COLUMNS)
    assert all(valid for valid, _ in indexes.values())
    assert walked_index(conn, name) == {index_name(name, "notes", "thread_embedding")}
    other = "test.no-such-namespace"
    assert walked_index(conn, other) == {"ix_notes_thread_embedding_hnsw"}
    results = await memory.asearch(ns, "Where does Nadia live now?")
    assert any("Hamburg" in note.context for note in results[:2])
    (stats,) = await memory_stats(memory.database, ns)
    assert stats.own_indexes == len(INDEXED_COLUMNS)


async def test_a_smaller_namespace_gets_none(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    conn: psycopg.Connection[Any],
) -> None:
    config = ConstructionConfig(topic_every=0, namespace_index_notes=SIZE + 1)
    memory = Memory(database, embeddings, config=config)
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    assert own_indexes(conn, ".".join(ns)) == {}
    (stats,) = await memory_stats(database, ns)
    assert stats.own_indexes == 0


async def test_quotes_and_backslashes_in_a_namespace_stay_in_its_predicate(
    memory: Memory, conn: psycopg.Connection[Any]
) -> None:
    ns = ("test", "o'brien\\'; DROP TABLE notes; --")
    name = ".".join(ns)
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    predicates = {predicate for _valid, predicate in own_indexes(conn, name).values()}
    (predicate,) = predicates
    count = "SELECT count(*), count(*) FILTER (WHERE namespace = %s) FROM notes WHERE "
    matched = conn.execute(count + predicate, (name,)).fetchone()
    assert matched is not None
    assert matched[0] == matched[1] == 4, "the predicate holds the namespace's rows, only them"
    assert walked_index(conn, name) == {index_name(name, "notes", "thread_embedding")}


async def test_a_build_cut_off_is_dropped_and_built_again(
    memory: Memory, database: Database, ns: tuple[str, ...], conn: psycopg.Connection[Any]
) -> None:
    name = ".".join(ns)
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    broken = index_name(name, "notes", "embedding")
    # What a killed CREATE INDEX CONCURRENTLY leaves: an index Postgres never reads.
    conn.execute(
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", (broken,)
    )
    async with Repository.open(database, autocommit=True) as repo:
        seen = {(i.table, i.column): i for i in await repo.namespace_indexes(ns)}
    assert seen[("notes", "embedding")] == NamespaceIndex("notes", "embedding", False, False)
    built = await ensure_namespace_indexes(database, ns, SIZE)
    assert built == (("notes", "embedding"),)
    assert all(valid for valid, _ in own_indexes(conn, name).values())
    assert await ensure_namespace_indexes(database, ns, SIZE) == ()


async def test_a_namespace_whose_indexes_another_session_is_building_is_left_to_it(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    conn: psycopg.Connection[Any],
) -> None:
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    name = ".".join(ns)
    conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 2))", (name,))
    assert await ensure_namespace_indexes(database, ns, SIZE) == ()
    assert own_indexes(conn, name) == {}
    conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 2))", (name,))
    assert await ensure_namespace_indexes(database, ns, SIZE) == INDEXED_COLUMNS
    assert len(own_indexes(conn, name)) == len(INDEXED_COLUMNS)
