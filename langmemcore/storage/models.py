"""SQLAlchemy 2 typed models for the whole vocabulary of DESIGN.md.

The models describe the tables for query building; the schema itself is owned by alembic
(``alembic/versions``), which creates the vector columns with the dimensions chosen at
setup time (recorded in ``langmemcore_settings``). The vector columns are therefore typed
without a dimension here.

Every table carries ``namespace`` (the labels joined by ``"."``), every query filters by
it first, and every primary key, unique constraint and foreign key includes it (last, so
that lookups by id use the key's index), so that the schema can be partitioned or
distributed by it (a Citus distribution column, see ``docs/distributed.md``). A row refers
only to rows of its own namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    Boolean,
    Computed,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Integer,
    String,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ACTIVE",
    "Base",
    "EmbeddingVector",
    "Edge",
    "FulltextStatistics",
    "Item",
    "ItemTask",
    "Keyword",
    "LexemeStats",
    "Lineage",
    "Note",
    "NoteKeyword",
    "NoteSource",
    "Observation",
    "ProfileStatement",
    "ProfileValue",
    "ProfileValueSource",
    "QueryLog",
    "SUPERSEDES",
    "Topic",
    "TopicKeyword",
    "decode_vector",
    "vector_param",
    "vector_text",
]

ACTIVE = "active"
"""Status of a note in memory (compaction archives notes, see
``langmemcore.storage.formal.queries.ARCHIVED``)."""

SUPERSEDES = "supersedes"
"""The relation of an edge from a note to one it supersedes (validity, see
:mod:`~langmemcore.construction.validity`): a record of what stopped holding, not an
association, so the channels that walk associations leave it out."""

TSVECTOR_EXPRESSION = "to_tsvector('english'::regconfig, context)"
"""Expression of the generated full-text column of notes (GIN indexed)."""


@lru_cache(maxsize=8192)
def vector_text(value: tuple[float, ...]) -> str:
    """A vector in pgvector's text form, as pgvector writes it (cached: the same vector
    is bound many times).
    """
    return "[" + ",".join(map(str, map(float, value))) + "]"


def decode_vector(packed: bytes) -> npt.NDArray[np.float32]:
    """A vector from pgvector's binary form (dimensions, unused, big-endian float4s)."""
    return np.frombuffer(packed, dtype=">f4", offset=4).astype(np.float32)


class EmbeddingVector(Vector):
    """pgvector's column type, formatting a vector given as a tuple once per process.

    Formatting 384 floats as text costs about 0.4 ms; the same vector is bound many times
    (a query vector by several channels, a keyword vector by every note that names it),
    so tuples are formatted through a bounded cache keyed by their values.
    """

    cache_ok = True

    def bind_processor(self, dialect: Any) -> Any:
        """Format tuples through the cache, anything else as pgvector does."""
        base = super().bind_processor(dialect)

        def process(value: Any) -> Any:
            if isinstance(value, tuple):
                return vector_text(value)
            return base(value)

        return process


def vector_param(values: Sequence[float]) -> tuple[float, ...]:
    """A vector as a bind value of :class:`EmbeddingVector` (formatted once per process)."""
    return values if isinstance(values, tuple) else tuple(map(float, values))


def _refers(column: str, table: str, on_delete: str = "CASCADE") -> ForeignKeyConstraint:
    """The foreign key from ``(column, namespace)`` to ``table``'s ``(id, namespace)``; a
    reference set to null on delete clears ``column`` alone.
    """
    action = f"SET NULL ({column})" if on_delete == "SET NULL" else on_delete
    return ForeignKeyConstraint(
        [column, "namespace"], [f"{table}.id", f"{table}.namespace"], ondelete=action
    )


class Base(DeclarativeBase):
    """Declarative base of all langmemcore tables."""

    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSONB,
        datetime: DateTime(timezone=True),
    }


class Observation(Base):
    """One immutable raw input; never rewritten by consolidation."""

    __tablename__ = "observations"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    key: Mapped[str] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    speaker: Mapped[str | None] = mapped_column(Text)
    event_time: Mapped[datetime | None]
    ingested_at: Mapped[datetime] = mapped_column(server_default=func.now())
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", server_default="{}")
    analysis: Mapped[dict[str, Any]] = mapped_column(JSONB)
    """What it says, worked out when it was written (see :mod:`~langmemcore.analysis`)."""


class Note(Base):
    """The unit of evidence retrieval returns, built from one or more observations."""

    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    context: Mapped[str] = mapped_column(Text)
    embedding: Mapped[Any] = mapped_column(EmbeddingVector())
    thread_embedding: Mapped[Any] = mapped_column(EmbeddingVector())
    """The context's embedding with the observation before the latest source in its
    thread (the vector channel ranks by it); the note's own embedding when there is none."""
    keywords: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    speakers: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    confidence: Mapped[float] = mapped_column(Float, server_default="0.5")
    alpha: Mapped[float | None] = mapped_column(Float)
    beta: Mapped[float | None] = mapped_column(Float)
    valid_from: Mapped[datetime | None]
    """When what it says became valid: the latest event time of its sources."""
    valid_to: Mapped[datetime | None]
    """When it stopped being valid: the earliest ``valid_from`` of the notes superseding
    it (``supersedes`` edges, see :mod:`~langmemcore.construction.validity`); ``None``
    while none does."""
    event_time: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(16), server_default="active")
    origin: Mapped[str] = mapped_column(String(16), server_default="offline")
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now())
    archived_at: Mapped[datetime | None]
    tsv: Mapped[Any] = mapped_column(
        TSVECTOR, Computed(TSVECTOR_EXPRESSION, persisted=True), deferred=True
    )
    """Generated full-text vector; used in SQL only, so loading a note leaves it out."""


class NoteSource(Base):
    """Which observations a note was built from."""

    __tablename__ = "note_sources"
    __table_args__ = (
        _refers("note_id", "notes"),
        _refers("observation_id", "observations"),
    )

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    note_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    observation_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)


class Keyword(Base):
    """A normalised entity / noun phrase with its own embedding."""

    __tablename__ = "keywords"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    embedding: Mapped[Any] = mapped_column(EmbeddingVector())
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


class NoteKeyword(Base):
    """Association of notes and keywords."""

    __tablename__ = "note_keywords"
    __table_args__ = (
        _refers("note_id", "notes"),
        _refers("keyword_id", "keywords"),
    )

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    note_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    keyword_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)


class Edge(Base):
    """A note <-> note association with relation, strength and optional tag."""

    __tablename__ = "edges"
    __table_args__ = (
        _refers("source_id", "notes"),
        _refers("target_id", "notes"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    source_id: Mapped[int] = mapped_column(BigInteger)
    target_id: Mapped[int] = mapped_column(BigInteger)
    relation: Mapped[str] = mapped_column(String(16))
    strength: Mapped[float] = mapped_column(Float)
    tag: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


class Topic(Base):
    """A Leiden community over the keyword co-occurrence graph."""

    __tablename__ = "topics"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    label: Mapped[str] = mapped_column(Text)
    centroid: Mapped[Any] = mapped_column(EmbeddingVector())
    generation: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


class TopicKeyword(Base):
    """Membership of keywords in topics."""

    __tablename__ = "topic_keywords"
    __table_args__ = (
        _refers("topic_id", "topics"),
        _refers("keyword_id", "keywords"),
    )

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    topic_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    keyword_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)


class FulltextStatistics(Base):
    """A namespace's active notes when its full-text statistics were last refreshed."""

    __tablename__ = "namespace_stats"

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    active_notes: Mapped[int] = mapped_column(Integer)
    refreshed_at: Mapped[datetime] = mapped_column(server_default=func.now())


class LexemeStats(Base):
    """How many active notes of a namespace held a lexeme at the last refresh."""

    __tablename__ = "lexeme_stats"

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    lexeme: Mapped[str] = mapped_column(Text, primary_key=True)
    df: Mapped[int] = mapped_column(Integer)


class Lineage(Base):
    """Log of every merge / link / append / unmerge with before and after state."""

    __tablename__ = "lineage"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    operation: Mapped[str] = mapped_column(String(16))
    observation_id: Mapped[int | None] = mapped_column(BigInteger)
    note_id: Mapped[int | None] = mapped_column(BigInteger)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    undone_at: Mapped[datetime | None]


class QueryLog(Base):
    """A logged search: the query, the notes it returned and, once settled, the notes
    the answer used and the outcome (the formal layer's sample of the query distribution).
    """

    __tablename__ = "query_log"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    query: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    returned: Mapped[list[int]] = mapped_column(ARRAY(BigInteger), server_default="{}")
    used: Mapped[list[int]] = mapped_column(ARRAY(BigInteger), server_default="{}")
    outcome: Mapped[float | None] = mapped_column(Float)
    settled_at: Mapped[datetime | None]


class Item(Base):
    """A LangGraph ``BaseStore`` item: exactly what was put, with its timestamps."""

    __tablename__ = "items"

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    key: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSONB)
    """The value as JSONB, for filters (JSONB normalises numbers: ``-0.0`` reads as ``0``,
    ``1e16`` as an integer)."""
    value_text: Mapped[str | None] = mapped_column(Text)
    """The value exactly as put, as JSON text (what ``get`` returns); ``None`` for items
    written before revision 0007, which read from ``value``."""
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime | None]
    ttl_minutes: Mapped[float | None] = mapped_column(Float)
    index_text: Mapped[str | None] = mapped_column(Text)
    """The text the item contributed to memory (indexed fields joined), or ``None``."""


class ItemTask(Base):
    """An item whose observation must be rebuilt or removed (pending construction/repair).

    Written in the same transaction as the put or delete; ``version`` grows with every
    re-queue so a worker only clears the task it actually completed.
    """

    __tablename__ = "item_tasks"

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    key: Mapped[str] = mapped_column(Text, primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, server_default="1")
    created_at: Mapped[datetime] = mapped_column(server_default=func.clock_timestamp())


class ProfileStatement(Base):
    """One thing an observation states about a subject's aspect (immutable, like its
    observation; deleted with it).
    """

    __tablename__ = "profile_statements"
    __table_args__ = (_refers("observation_id", "observations"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    observation_id: Mapped[int] = mapped_column(BigInteger)
    position: Mapped[int] = mapped_column(Integer)
    subject: Mapped[str] = mapped_column(Text)
    subject_key: Mapped[str] = mapped_column(Text)
    aspect: Mapped[str] = mapped_column(String(32))
    value: Mapped[str] = mapped_column(Text)
    value_key: Mapped[str] = mapped_column(Text)
    ended: Mapped[bool] = mapped_column(Boolean)
    change: Mapped[bool] = mapped_column(Boolean)
    stated_at: Mapped[datetime]


class ProfileValue(Base):
    """A value of a subject's aspect, replayed from the statements of its chain."""

    __tablename__ = "profile_values"
    __table_args__ = (_refers("replaced_by", "profile_values", "SET NULL"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    subject: Mapped[str] = mapped_column(Text)
    subject_key: Mapped[str] = mapped_column(Text)
    aspect: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(Text)
    value_key: Mapped[str] = mapped_column(Text)
    first_time: Mapped[datetime]
    last_time: Mapped[datetime]
    current: Mapped[bool] = mapped_column(Boolean)
    ended_at: Mapped[datetime | None]
    end: Mapped[str | None] = mapped_column(String(16))
    replaced_by: Mapped[int | None] = mapped_column(BigInteger)


class ProfileValueSource(Base):
    """An observation that states (or ends) a profile value."""

    __tablename__ = "profile_value_sources"
    __table_args__ = (
        _refers("value_id", "profile_values"),
        _refers("observation_id", "observations"),
    )

    namespace: Mapped[str] = mapped_column(Text, primary_key=True)
    value_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    observation_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    role: Mapped[str] = mapped_column(String(8), primary_key=True)
    stated_at: Mapped[datetime]
