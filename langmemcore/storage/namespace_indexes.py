"""A large namespace's own vector indexes: partial HNSW indexes over its rows only.

Every namespace shares one HNSW index per vector column. A search filters it by
namespace: pgvector walks the shared graph and drops the other namespaces' rows until
enough of its own pass (``hnsw.iterative_scan``). A small namespace is read exactly
through its btree instead, but a large one beside much larger tables visits many foreign
rows per row it keeps, and the walk both slows and finds less as the table grows.

So a namespace that holds many notes gets partial HNSW indexes of its own
(``... WHERE namespace = '<namespace>'``) on the vector columns its searches order by.
Statements are planned for their actual parameters (``plan_cache_mode`` in
:data:`~langmemcore.storage.database.SESSION_OPTIONS`), so the planner sees that the
partial index covers the searched namespace and walks a graph of its rows alone. Indexes
are built with ``CREATE INDEX CONCURRENTLY``: writes go on meanwhile. A build that was
cut off (the server or the client killed) leaves an invalid index, which Postgres keeps
up to date but never reads; it is dropped and built again the next time.

Index names are ``ix_ns_<digest>_<table>_<column>``: a digest of the namespace, since a
namespace may be longer than a Postgres name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from sqlalchemy import Select, Text, TextClause, bindparam, literal, select, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.models import FulltextStatistics, Keyword, Note
from langmemcore.storage.prepared import Prepared, text_param

__all__ = [
    "INDEXED_COLUMNS",
    "NamespaceIndex",
    "NamespaceIndexAccess",
    "counted_notes",
    "create_index",
    "drop_index",
    "existing_indexes",
    "index_name",
    "lock_indexes",
    "own_index_names",
    "unlock_indexes",
]

INDEX_PREFIX = "ix_ns_"
"""The prefix of every namespace's own index."""

INDEXED_COLUMNS: tuple[tuple[str, str], ...] = (
    (Note.__tablename__, "embedding"),
    (Note.__tablename__, "thread_embedding"),
    (Keyword.__tablename__, "embedding"),
)
"""The ``(table, column)`` pairs whose nearest rows a search asks for by namespace."""


class NamespaceIndex(NamedTuple):
    """One of a namespace's own indexes as the catalogue holds it.

    Attributes:
        table: The indexed table.
        column: The indexed vector column.
        valid: Whether Postgres reads it (false while it is being built, or after a
            build that was cut off).
        building: Whether a backend is building it now.
    """

    table: str
    column: str
    valid: bool
    building: bool


def index_name(namespace: str, table: str, column: str) -> str:
    """The name of ``namespace``'s own index on ``table.column``."""
    digest = hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:16]
    return f"{INDEX_PREFIX}{digest}_{table}_{column}"


def create_index(namespace: str, table: str, column: str, dialect: Dialect) -> Prepared:
    """``CREATE INDEX CONCURRENTLY`` of ``namespace``'s own HNSW index on ``table.column``
    (cosine distance, as the shared index).

    DDL takes no bind parameters: the namespace goes into the statement as a string
    literal quoted by ``dialect`` (the connection's, which knows how the server reads
    backslashes); it is the only value that does.
    """
    quoted = literal(namespace).compile(dialect=dialect, compile_kwargs={"literal_binds": True})
    name = index_name(namespace, table, column)
    statement = text(
        f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{name}" ON "{table}" '
        f'USING hnsw ("{column}" vector_cosine_ops) WHERE namespace = {quoted}'
    )
    return Prepared(statement, {})


def drop_index(namespace: str, table: str, column: str) -> Prepared:
    """``DROP INDEX CONCURRENTLY`` of ``namespace``'s own index on ``table.column``."""
    name = index_name(namespace, table, column)
    return Prepared(text(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"'), {})


@cache
def _existing_indexes() -> TextClause:
    return text(
        "SELECT c.relname, i.indisvalid, EXISTS (SELECT 1 FROM pg_stat_progress_create_index p "
        "WHERE p.index_relid = c.oid) FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
        "WHERE c.relname = ANY(:names) AND c.relnamespace = to_regnamespace(current_schema())"
    ).bindparams(bindparam("names", type_=ARRAY(Text)))


def own_index_names(namespaces: Sequence[str]) -> dict[str, str]:
    """Every own index name the encoded ``namespaces`` could have -> its namespace."""
    return {index_name(ns, t, c): ns for ns in namespaces for t, c in INDEXED_COLUMNS}


def existing_indexes(names: Sequence[str]) -> Prepared:
    """The catalogue's rows of the indexes among ``names`` (see :func:`own_index_names`):
    (name, valid, being built).
    """
    return Prepared(_existing_indexes(), {"names": list(names)})


_LOCK = text("SELECT pg_try_advisory_lock(hashtextextended(:ns, 2))")
_UNLOCK = text("SELECT pg_advisory_unlock(hashtextextended(:ns, 2))")


def lock_indexes(namespace: str) -> Prepared:
    """Try to take the namespace's index lock (a session lock, apart from the construction
    and topics locks' keys 0 and 1): true when taken, false when another session holds it.
    """
    return Prepared(_LOCK, {"ns": namespace})


def unlock_indexes(namespace: str) -> Prepared:
    """Release the namespace's index lock."""
    return Prepared(_UNLOCK, {"ns": namespace})


@cache
def _counted_notes() -> Select[int]:
    stats = FulltextStatistics
    return select(stats.active_notes).where(stats.namespace == text_param("namespace"))


def counted_notes(namespace: str) -> Prepared:
    """The namespace's active notes as counted at its last topic evolution (no row when
    never counted).
    """
    return Prepared(_counted_notes(), {"namespace": namespace})


class NamespaceIndexAccess(SessionBound):
    """A namespace's own vector indexes. Postgres builds and drops indexes concurrently
    only outside a transaction block: use an autocommit repository
    (``Repository.open(database, autocommit=True)``).
    """

    async def counted_notes(self, namespace: Sequence[str]) -> int:
        """The namespace's active notes as counted at its last topic evolution (0 when
        never counted).
        """
        return int(await self._scalar(counted_notes(encode_namespace(namespace))) or 0)

    async def namespace_indexes(self, namespace: Sequence[str]) -> list[NamespaceIndex]:
        """The namespace's own indexes that exist, built or not."""
        ns = encode_namespace(namespace)
        pairs = {index_name(ns, t, c): (t, c) for t, c in INDEXED_COLUMNS}
        rows = await self._rows(existing_indexes(list(pairs)))
        return [NamespaceIndex(*pairs[str(n)], bool(v), bool(b)) for n, v, b in rows]

    async def lock_namespace_indexes(self, namespace: Sequence[str]) -> bool:
        """Take the lock of the namespace's index upkeep for this session, unless another
        session holds it (false then); release it with :meth:`unlock_namespace_indexes`.
        """
        return bool(await self._scalar(lock_indexes(encode_namespace(namespace))))

    async def unlock_namespace_indexes(self, namespace: Sequence[str]) -> None:
        """Release the lock :meth:`lock_namespace_indexes` took."""
        await self._run(unlock_indexes(encode_namespace(namespace)))

    async def build_namespace_index(
        self, namespace: Sequence[str], table: str, column: str
    ) -> None:
        """Build the namespace's own index on ``table.column`` (nothing if one exists)."""
        dialect = self._session.get_bind().dialect
        await self._run(create_index(encode_namespace(namespace), table, column, dialect))

    async def drop_namespace_index(self, namespace: Sequence[str], table: str, column: str) -> None:
        """Drop the namespace's own index on ``table.column`` (nothing if none exists)."""
        await self._run(drop_index(encode_namespace(namespace), table, column))
