"""What memory holds, per namespace: counts of observations, notes, merges, links, keywords,
topics and store items queued for construction, the topics with their labels, and the
reads an evaluation makes of a namespace.

The statement builders are pure (they return SQLAlchemy statements or
:class:`~langmemcore.storage.prepared.Prepared`); :func:`memory_stats`, :func:`list_topics`
and :class:`EvalReads` run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, literal, select, true, union_all

from langmemcore._namespace import decode_namespace, encode_namespace
from langmemcore.storage._filters import namespace_prefix_filter
from langmemcore.storage._session import SessionBound
from langmemcore.storage.database import Database
from langmemcore.storage.models import (
    Edge,
    ItemTask,
    Keyword,
    Lineage,
    Note,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
)
from langmemcore.storage.namespace_indexes import existing_indexes, own_index_names
from langmemcore.storage.prepared import Prepared, text_param

__all__ = [
    "COUNTED",
    "EvalReads",
    "NamespaceStats",
    "TopicInfo",
    "active_note_ids_query",
    "list_topics",
    "memory_stats",
    "note_of_observation_query",
    "stats_statement",
    "topics_statement",
]

COUNTED = (
    "observations",
    "notes",
    "merged_notes",
    "merges",
    "links",
    "keywords",
    "topics",
    "queued",
    "own_indexes",
)
"""The counts of :class:`NamespaceStats`, in the order they are reported."""


@dataclass(frozen=True)
class NamespaceStats:
    """Counts for one namespace.

    Attributes:
        namespace: The namespace.
        observations: Raw observations remembered.
        notes: Active notes.
        merged_notes: Active notes built from more than one observation.
        merges: Merges performed (lineage rows not undone).
        links: Edges between notes.
        keywords: Distinct keywords.
        topics: Topics of the current generation.
        queued: Store items waiting for construction (their notes not built yet).
        own_indexes: Vector indexes of its own that searches read (a large namespace's,
            see :mod:`~langmemcore.storage.namespace_indexes`).
    """

    namespace: tuple[str, ...]
    observations: int = 0
    notes: int = 0
    merged_notes: int = 0
    merges: int = 0
    links: int = 0
    keywords: int = 0
    topics: int = 0
    queued: int = 0
    own_indexes: int = 0


@dataclass(frozen=True)
class TopicInfo:
    """One topic of a namespace.

    Attributes:
        topic_id: The topic.
        label: Its label (its three most connected keywords).
        size: Keywords in it.
        keywords: Its keywords, alphabetically.
    """

    topic_id: int
    label: str
    size: int
    keywords: tuple[str, ...]


def _scope(column: Any, prefix: Sequence[str] | None) -> ColumnElement[bool]:
    return namespace_prefix_filter(column, encode_namespace(prefix)) if prefix else true()


def _counting(namespace: Any, name: str) -> Select:
    return select(
        namespace.label("namespace"), literal(name).label("name"), func.count().label("count")
    )


def stats_statement(prefix: Sequence[str] | None = None) -> Prepared:
    """Rows ``(namespace, count name, count)`` for every namespace at or below ``prefix``
    (every namespace when ``prefix`` is empty or ``None``).
    """
    counts = [
        _counting(Observation.namespace, "observations")
        .where(_scope(Observation.namespace, prefix))
        .group_by(Observation.namespace),
        _counting(Note.namespace, "notes")
        .where(_scope(Note.namespace, prefix), Note.status == "active")
        .group_by(Note.namespace),
        _counting(Lineage.namespace, "merges")
        .where(
            _scope(Lineage.namespace, prefix),
            Lineage.operation == "merge",
            Lineage.undone_at.is_(None),
        )
        .group_by(Lineage.namespace),
        _counting(Edge.namespace, "links")
        .where(_scope(Edge.namespace, prefix))
        .group_by(Edge.namespace),
        _counting(Keyword.namespace, "keywords")
        .where(_scope(Keyword.namespace, prefix))
        .group_by(Keyword.namespace),
        _counting(Topic.namespace, "topics")
        .where(_scope(Topic.namespace, prefix))
        .group_by(Topic.namespace),
        _counting(ItemTask.namespace, "queued")
        .where(_scope(ItemTask.namespace, prefix))
        .group_by(ItemTask.namespace),
    ]
    merged = _merged_notes_statement(prefix)
    rows = union_all(*counts, merged).subquery()
    ordered = select(rows.c.namespace, rows.c.name, rows.c.count)
    return Prepared(ordered.order_by(rows.c.namespace, rows.c.name), {})


def _merged_notes_statement(prefix: Sequence[str] | None) -> Select:
    sizes = (
        select(NoteSource.namespace, NoteSource.note_id)
        .join(Note, and_(Note.id == NoteSource.note_id, Note.status == "active"))
        .where(_scope(NoteSource.namespace, prefix))
        .group_by(NoteSource.namespace, NoteSource.note_id)
        .having(func.count() > 1)
        .subquery()
    )
    return _counting(sizes.c.namespace, "merged_notes").group_by(sizes.c.namespace)


def topics_statement(namespace: Sequence[str]) -> Prepared:
    """Rows ``(topic id, label, size, keyword)`` of a namespace's topics, largest first."""
    ns = encode_namespace(namespace)
    statement = (
        select(Topic.id, Topic.label, Topic.size, Keyword.name)
        .join(TopicKeyword, and_(TopicKeyword.topic_id == Topic.id, TopicKeyword.namespace == ns))
        .join(Keyword, Keyword.id == TopicKeyword.keyword_id)
        .where(Topic.namespace == ns)
        .order_by(Topic.size.desc(), Topic.id, Keyword.name)
    )
    return Prepared(statement, {})


async def memory_stats(
    database: Database, prefix: Sequence[str] | None = None
) -> list[NamespaceStats]:
    """Counts for every namespace at or below ``prefix`` (all namespaces by default).

    Returns:
        One entry per namespace that holds anything, sorted by namespace.
    """
    async with database.session() as session:
        rows = (await session.execute(*stats_statement(prefix))).all()
        found: dict[str, dict[str, int]] = {}
        for namespace, name, count in rows:
            found.setdefault(namespace, {})[name] = int(count)
        names = own_index_names(list(found))
        for index, valid, _building in await session.execute(*existing_indexes(list(names))):
            counts = found[names[index]]
            counts["own_indexes"] = counts.get("own_indexes", 0) + int(valid)
    return [NamespaceStats(decode_namespace(ns), **counts) for ns, counts in sorted(found.items())]


async def list_topics(database: Database, namespace: Sequence[str]) -> list[TopicInfo]:
    """The namespace's current topics with their keywords, largest first."""
    async with database.session() as session:
        rows = (await session.execute(*topics_statement(namespace))).all()
    topics: dict[int, tuple[str, int, list[str]]] = {}
    for topic_id, label, size, keyword in rows:
        topics.setdefault(topic_id, (label, size, []))[2].append(keyword)
    return [
        TopicInfo(topic_id, label, size, tuple(words))
        for topic_id, (label, size, words) in topics.items()
    ]


@cache
def _active_note_ids() -> Select:
    namespace = text_param("namespace")
    return (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == "active")
        .order_by(Note.id)
    )


def active_note_ids_query(namespace: str) -> Prepared:
    """Ids of the namespace's active notes (``id``), oldest first.

    Args:
        namespace: The encoded namespace.
    """
    return Prepared(_active_note_ids(), {"namespace": namespace})


@cache
def _note_of_observation() -> Select:
    namespace = text_param("namespace")
    return (
        select(Observation.key, NoteSource.note_id)
        .join(NoteSource, NoteSource.observation_id == Observation.id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(
            Observation.namespace == namespace,
            NoteSource.namespace == namespace,
            Note.namespace == namespace,
            Note.status == "active",
        )
    )


def note_of_observation_query(namespace: str) -> Prepared:
    """Each observation held by an active note of the namespace (``key``, ``note_id``).

    Args:
        namespace: The encoded namespace.
    """
    return Prepared(_note_of_observation(), {"namespace": namespace})


class EvalReads(SessionBound):
    """What an evaluation reads of a namespace: its active notes and which holds what."""

    async def active_note_ids(self, namespace: Sequence[str]) -> list[int]:
        """Ids of the namespace's active notes, oldest first."""
        ids = await self._scalars(active_note_ids_query(encode_namespace(namespace)))
        return [int(i) for i in ids]

    async def note_of_observation_keys(self, namespace: Sequence[str]) -> dict[str, int]:
        """Observation key -> the active note holding that observation."""
        rows = await self._rows(note_of_observation_query(encode_namespace(namespace)))
        return {str(row.key): int(row.note_id) for row in rows}
