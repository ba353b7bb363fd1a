"""When a namespace gets vector indexes of its own, and their upkeep.

A namespace that holds ``ConstructionConfig.namespace_index_notes`` active notes or more
(as counted at its last topic evolution) gets its own partial HNSW indexes
(:mod:`~langmemcore.storage.namespace_indexes`): its vector searches then walk a graph of
its own rows instead of filtering the graph every namespace shares. The check runs after
each topic evolution, the namespace-wide job that already runs every ``topic_every`` new
notes; building takes as long as building any HNSW index over the namespace's rows, and
writes go on meanwhile. A namespace that shrinks keeps its indexes (they cost only its
own writes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from langmemcore.storage.database import Database
from langmemcore.storage.namespace_indexes import INDEXED_COLUMNS, NamespaceIndex
from langmemcore.storage.repository import Repository

__all__ = ["IndexWork", "ensure_namespace_indexes", "index_work"]

Column = tuple[str, str]
"""A ``(table, column)`` pair."""


class IndexWork(NamedTuple):
    """What a namespace's own indexes need.

    Attributes:
        drop: Indexes left invalid by a build that was cut off, to drop first.
        build: Indexes to build (those dropped included).
    """

    drop: tuple[Column, ...]
    build: tuple[Column, ...]


def index_work(counted: int, existing: Sequence[NamespaceIndex], min_notes: int) -> IndexWork:
    """What to drop and build for a namespace of ``counted`` active notes.

    Args:
        counted: The namespace's active notes.
        existing: Its own indexes the catalogue holds.
        min_notes: Active notes from which a namespace has its own indexes (0: never).
    """
    if min_notes <= 0 or counted < min_notes:
        return IndexWork((), ())
    found = {(i.table, i.column): i for i in existing}
    broken = tuple(pair for pair, i in found.items() if not i.valid and not i.building)
    missing = tuple(pair for pair in INDEXED_COLUMNS if pair not in found)
    return IndexWork(broken, tuple(p for p in INDEXED_COLUMNS if p in broken or p in missing))


async def ensure_namespace_indexes(
    database: Database, namespace: tuple[str, ...], min_notes: int
) -> tuple[Column, ...]:
    """Give the namespace the own indexes it needs (see :func:`index_work`), unless
    another session is at it (it holds the namespace's index lock).

    Args:
        database: Where memory lives.
        namespace: The namespace.
        min_notes: Active notes from which a namespace has its own indexes (0: never).

    Returns:
        The ``(table, column)`` pairs built.
    """
    if min_notes <= 0:
        return ()
    async with Repository.open(database, autocommit=True) as repo:
        counted = await repo.counted_notes(namespace)
        if counted < min_notes or not await repo.lock_namespace_indexes(namespace):
            return ()
        try:
            work = index_work(counted, await repo.namespace_indexes(namespace), min_notes)
            for table, column in work.drop:
                await repo.drop_namespace_index(namespace, table, column)
            for table, column in work.build:
                await repo.build_namespace_index(namespace, table, column)
        finally:
            await repo.unlock_namespace_indexes(namespace)
    return work.build
