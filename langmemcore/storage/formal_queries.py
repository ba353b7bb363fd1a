"""Pure SQL builders of the formal layer (query log, confidence, capacity, archive).

Each function returns a SQLAlchemy statement and executes nothing (the query-log insert,
which every search runs, a :class:`~langmemcore.storage.prepared.Prepared` built once);
every statement filters by namespace first. :mod:`langmemcore.formal.capacity` executes
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Insert,
    Select,
    Table,
    Update,
    bindparam,
    func,
    insert,
    select,
    update,
)

from langmemcore.storage.models import (
    Edge,
    Keyword,
    Note,
    NoteSource,
    Observation,
    QueryLog,
    Topic,
    TopicKeyword,
)
from langmemcore.storage.prepared import Prepared, id_array, text_param

__all__ = [
    "ARCHIVED",
    "active_note_facts",
    "active_usage",
    "archive_notes",
    "confident_notes",
    "current_topic_keywords",
    "edges_among_active",
    "edges_by_ids",
    "insert_query",
    "latest_query_id",
    "note_beliefs",
    "notes_of_observation_keys",
    "query_for_update",
    "recent_queries",
    "restore_notes",
    "settle_query",
    "token_estimate",
    "update_beliefs",
]

ARCHIVED = "archived"
"""Status of a note compaction took out of memory (kept, searchable on request)."""


def token_estimate() -> ColumnElement[Any]:
    """SQL twin of :func:`langmemcore.retrieval.pack.estimate_tokens`:
    ``greatest(1, length(context) / 4)``.
    """
    return func.greatest(1, func.length(Note.context) / 4)


@cache
def _insert_query() -> Insert:
    return (
        insert(QueryLog)
        .values(
            namespace=text_param("namespace"),
            query=text_param("query"),
            returned=id_array("returned"),
        )
        .returning(QueryLog.id)
    )


def insert_query(namespace: str, query: str, returned: Sequence[int]) -> Prepared:
    """Log one search; returns its id (built once: every search runs it)."""
    return Prepared(
        _insert_query(), {"namespace": namespace, "query": query, "returned": list(returned)}
    )


def query_for_update(namespace: str, query_id: int) -> Select:
    """The log row of ``query_id``, locked for settlement."""
    return (
        select(QueryLog)
        .where(QueryLog.namespace == namespace, QueryLog.id == query_id)
        .with_for_update()
    )


def settle_query(
    namespace: str, query_id: int, used: Sequence[int], outcome: float | None
) -> Update:
    """Record the notes an answer used and its outcome on a logged query."""
    return (
        update(QueryLog)
        .where(QueryLog.namespace == namespace, QueryLog.id == query_id)
        .values(used=list(used), outcome=outcome, settled_at=func.now())
    )


def recent_queries(namespace: str, limit: int) -> Select:
    """(``id``, ``returned``, ``used``) of the newest ``limit`` logged queries, newest first."""
    return (
        select(QueryLog.id, QueryLog.returned, QueryLog.used)
        .where(QueryLog.namespace == namespace)
        .order_by(QueryLog.id.desc())
        .limit(limit)
    )


def confident_notes(namespace: str, note_ids: Sequence[int], floor: float) -> Select:
    """Ids among ``note_ids`` whose confidence is at least ``floor``."""
    return select(Note.id).where(
        Note.namespace == namespace, Note.id.in_(list(note_ids)), Note.confidence >= floor
    )


def latest_query_id(namespace: str, query: str) -> Select:
    """Id of the newest logged search of ``query`` in the namespace."""
    return (
        select(QueryLog.id)
        .where(QueryLog.namespace == namespace, QueryLog.query == query)
        .order_by(QueryLog.id.desc())
        .limit(1)
    )


def notes_of_observation_keys(namespace: str, keys: Sequence[str]) -> Select:
    """Ids of the active notes built from the observations with these keys."""
    return (
        select(NoteSource.note_id)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            Observation.key.in_(list(keys)),
            Note.status == "active",
        )
        .distinct()
        .order_by(NoteSource.note_id)
    )


def note_beliefs(namespace: str, note_ids: Sequence[int], *, lock: bool = False) -> Select:
    """(``id``, ``confidence``, ``alpha``, ``beta``, ``status``) of ``note_ids``."""
    stmt = select(Note.id, Note.confidence, Note.alpha, Note.beta, Note.status).where(
        Note.namespace == namespace, Note.id.in_(list(note_ids))
    )
    return stmt.with_for_update() if lock else stmt


def update_beliefs(namespace: str) -> Update:
    """Set ``alpha``, ``beta`` and ``confidence`` of one note per parameter set
    (``b_id``, ``b_alpha``, ``b_beta``, ``b_confidence``); run with executemany (a Core
    statement: the ORM would read the parameter sets as a bulk update by primary key).
    """
    notes = cast(Table, Note.__table__)
    return (
        update(notes)
        .where(notes.c.namespace == namespace, notes.c.id == bindparam("b_id"))
        .values(
            alpha=bindparam("b_alpha"),
            beta=bindparam("b_beta"),
            confidence=bindparam("b_confidence"),
        )
    )


def edges_by_ids(namespace: str, edge_ids: Sequence[int]) -> Select:
    """(``source_id``, ``target_id``, ``relation``, ``strength``) of ``edge_ids``."""
    return select(Edge.source_id, Edge.target_id, Edge.relation, Edge.strength).where(
        Edge.namespace == namespace, Edge.id.in_(list(edge_ids))
    )


def active_usage(namespace: str) -> Select:
    """(``notes``, ``tokens``) of the namespace's active notes."""
    return select(func.count(), func.coalesce(func.sum(token_estimate()), 0)).where(
        Note.namespace == namespace, Note.status == "active"
    )


def active_note_facts(namespace: str) -> Select:
    """(``id``, ``keywords``, ``tokens``, ``confidence``) of every active note, oldest first."""
    return (
        select(Note.id, Note.keywords, token_estimate(), Note.confidence)
        .where(Note.namespace == namespace, Note.status == "active")
        .order_by(Note.id)
    )


def edges_among_active(namespace: str) -> Select:
    """(``source_id``, ``target_id``, ``strength``) of edges whose notes are both active."""
    source = select(Note.id).where(Note.namespace == namespace, Note.status == "active")
    return select(Edge.source_id, Edge.target_id, Edge.strength).where(
        Edge.namespace == namespace,
        Edge.source_id.in_(source),
        Edge.target_id.in_(source),
    )


def current_topic_keywords(namespace: str) -> Select:
    """Names of the keywords in a topic of the newest generation."""
    newest = (
        select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()
    )
    return (
        select(Keyword.name)
        .join(TopicKeyword, TopicKeyword.keyword_id == Keyword.id)
        .join(Topic, Topic.id == TopicKeyword.topic_id)
        .where(
            Keyword.namespace == namespace,
            TopicKeyword.namespace == namespace,
            Topic.namespace == namespace,
            Topic.generation == newest,
        )
        .distinct()
    )


def archive_notes(namespace: str, note_ids: Sequence[int]) -> Update:
    """Archive the active notes among ``note_ids``; returns the ids archived."""
    return (
        update(Note)
        .where(Note.namespace == namespace, Note.status == "active", Note.id.in_(list(note_ids)))
        .values(status=ARCHIVED, archived_at=func.now())
        .returning(Note.id)
        .execution_options(synchronize_session=False)
    )


def restore_notes(namespace: str, note_ids: Sequence[int]) -> Update:
    """Bring the archived notes among ``note_ids`` back into memory; returns their ids."""
    return (
        update(Note)
        .where(Note.namespace == namespace, Note.status == ARCHIVED, Note.id.in_(list(note_ids)))
        .values(status="active", archived_at=None)
        .returning(Note.id)
        .execution_options(synchronize_session=False)
    )
