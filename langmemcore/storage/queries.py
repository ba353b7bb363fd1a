"""Pure SQL-building functions: each returns a SQLAlchemy statement, executes nothing.

Every statement filters by namespace first. They are tested by compiling them, without a
database; :mod:`langmemcore.storage.repository` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    Text,
    cast,
    delete,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore._namespace import like_prefix_pattern
from langmemcore.storage.models import (
    Edge,
    Keyword,
    Lineage,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
    vector_param,
)

__all__ = [
    "ACTIVE",
    "delete_note_sources",
    "gate_candidates",
    "insert_observation",
    "keyword_ids_by_name",
    "insert_edges",
    "insert_lineages",
    "namespace_prefix_filter",
    "nearest_keywords",
    "nearest_topics",
    "notes_by_ids",
    "notes_by_keywords",
    "observation_by_key",
    "sources_of_notes",
    "topic_notes",
    "upsert_keywords",
]

ACTIVE = "active"


def namespace_prefix_filter(column: Any, prefix_text: str) -> ColumnElement[bool]:
    """Match ``column`` equal to ``prefix_text`` or strictly below it (``'a'``, ``'a.*'``).

    ``('a',)`` never matches ``('ab',)``: the prefix must be followed by a ``"."``.
    """
    return or_(column == prefix_text, column.like(like_prefix_pattern(prefix_text), escape="\\"))


def insert_observation(
    namespace: str,
    key: str,
    content: str,
    content_hash: str,
    *,
    speaker: str | None,
    event_time: datetime | None,
    metadata: dict[str, Any],
) -> Insert:
    """Insert an observation unless (namespace, key) exists; returns the new id."""
    return (
        pg_insert(Observation)
        .values(
            namespace=namespace,
            key=key,
            content=content,
            content_hash=content_hash,
            speaker=speaker,
            event_time=event_time,
            meta=metadata,
        )
        .on_conflict_do_nothing(constraint="uq_observations_namespace_key")
        .returning(Observation.id)
    )


def observation_by_key(namespace: str, key: str) -> Select:
    """The observation stored under (namespace, key)."""
    return select(Observation).where(Observation.namespace == namespace, Observation.key == key)


def nearest_keywords(namespace: str, vector: Sequence[float], k: int) -> Select:
    """Keywords ordered by cosine distance (``id``, ``name``, ``distance``), top ``k``."""
    distance = Keyword.embedding.cosine_distance(vector_param(vector)).label("distance")
    return (
        select(Keyword.id, Keyword.name, distance)
        .where(Keyword.namespace == namespace)
        .order_by(distance, Keyword.id)
        .limit(k)
    )


def nearest_topics(namespace: str, vector: Sequence[float], k: int) -> Select:
    """Topics of the newest generation ordered by centroid distance, top ``k``."""
    newest = (
        select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()
    )
    distance = Topic.centroid.cosine_distance(vector_param(vector)).label("distance")
    return (
        select(Topic.id, Topic.label, distance)
        .where(Topic.namespace == namespace, Topic.generation == newest)
        .order_by(distance, Topic.id)
        .limit(k)
    )


def keyword_ids_by_name(namespace: str, names: Sequence[str]) -> Select:
    """(``id``, ``name``) of the given normalised keyword names."""
    return select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name.in_(list(names))
    )


def notes_by_keywords(
    namespace: str, names: Sequence[str], *, statuses: Sequence[str] = (ACTIVE,)
) -> Select:
    """Notes carrying any of the keyword ``names`` (``id``, ``matches``), most matches first."""
    ids = select(Keyword.id).where(Keyword.namespace == namespace, Keyword.name.in_(list(names)))
    matches = func.count(NoteKeyword.keyword_id).label("matches")
    return (
        select(Note.id, matches)
        .join(NoteKeyword, NoteKeyword.note_id == Note.id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id.in_(ids),
            Note.status.in_(statuses),
        )
        .group_by(Note.id)
        .order_by(matches.desc(), Note.id)
    )


def topic_notes(
    namespace: str, topic_ids: Sequence[int], *, statuses: Sequence[str] = (ACTIVE,)
) -> Select:
    """Notes whose keywords belong to the topics (``topic_id``, ``note_id``, ``matches``)."""
    matches = func.count(NoteKeyword.keyword_id).label("matches")
    return (
        select(TopicKeyword.topic_id, Note.id.label("note_id"), matches)
        .join(NoteKeyword, NoteKeyword.keyword_id == TopicKeyword.keyword_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            TopicKeyword.namespace == namespace,
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            TopicKeyword.topic_id.in_(list(topic_ids)),
            Note.status.in_(statuses),
        )
        .group_by(TopicKeyword.topic_id, Note.id)
        .order_by(TopicKeyword.topic_id, matches.desc(), Note.id)
    )


def notes_by_ids(namespace: str, note_ids: Sequence[int]) -> Select:
    """Full note rows for ``note_ids``."""
    return select(Note).where(Note.namespace == namespace, Note.id.in_(list(note_ids)))


def sources_of_notes(namespace: str, note_ids: Sequence[int]) -> Select:
    """(``note_id``, observation) pairs of the notes' sources, in event order."""
    return (
        select(NoteSource.note_id, Observation)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            NoteSource.note_id.in_(list(note_ids)),
        )
        .order_by(NoteSource.note_id, Observation.event_time, Observation.id)
    )


def delete_note_sources(namespace: str, note_id: int) -> Delete:
    """Remove every source link of one note."""
    return delete(NoteSource).where(
        NoteSource.namespace == namespace, NoteSource.note_id == note_id
    )


def upsert_keywords(namespace: str, rows: Sequence[tuple[str, Sequence[float]]]) -> Select:
    """Insert the keywords that do not exist yet and return (``id``, ``name``) of all of
    them, new and existing, in one statement.
    """
    inserted = (
        pg_insert(Keyword)
        .values(
            [{"namespace": namespace, "name": n, "embedding": vector_param(v)} for n, v in rows]
        )
        .on_conflict_do_nothing(constraint="uq_keywords_namespace_name")
        .returning(Keyword.id, Keyword.name)
        .cte("inserted")
    )
    existing = select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name.in_([n for n, _ in rows])
    )
    return select(inserted.c.id, inserted.c.name).union_all(existing)  # type: ignore[return-value]


def insert_lineages() -> Insert:
    """Insert lineage rows (executemany); returns their ids in parameter order."""
    return insert(Lineage).returning(Lineage.id, sort_by_parameter_order=True)


def insert_edges() -> Insert:
    """Insert edges (executemany); returns (``id``, ``target_id``) in parameter order."""
    return insert(Edge).returning(Edge.id, Edge.target_id, sort_by_parameter_order=True)


def gate_candidates(
    namespace: str,
    vector: Sequence[float],
    keywords: Sequence[str],
    *,
    k: int,
    keyword_k: int,
) -> Select:
    """Candidate notes for the gate: the ``k`` nearest active notes plus the ``keyword_k``
    newest active notes sharing a keyword; with similarity and source count.
    """
    nearest = (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .order_by(Note.embedding.cosine_distance(vector_param(vector)), Note.id)
        .limit(k)
    )
    ids = nearest
    if keywords:
        sharing = (
            select(Note.id)
            .where(
                Note.namespace == namespace,
                Note.status == ACTIVE,
                Note.keywords.overlap(cast(list(keywords), ARRAY(Text))),
            )
            .order_by(Note.id.desc())
            .limit(keyword_k)
        )
        ids = nearest.union(sharing)  # type: ignore[assignment]
    sources = (
        select(func.count())
        .where(NoteSource.namespace == namespace, NoteSource.note_id == Note.id)
        .scalar_subquery()
    )
    similarity = (1.0 - Note.embedding.cosine_distance(vector_param(vector))).label("similarity")
    return (
        select(Note.id, Note.context, Note.keywords, similarity, sources.label("sources"))
        .where(Note.namespace == namespace, Note.id.in_(ids.subquery().select()))
        .order_by(similarity.desc(), Note.id)
    )
