"""Pure SQL builders of the formal layer (query log, confidence, capacity, archive).

Every builder returns a :class:`~langmemcore.storage.prepared.Prepared`: a statement built
once per shape (bind parameters in place of values) and this call's values. Every
statement filters by namespace first;
:class:`~langmemcore.storage.formal.access.FormalAccess` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Float,
    Insert,
    Select,
    Table,
    Update,
    bindparam,
    column,
    func,
    insert,
    select,
    update,
)

from langmemcore.storage.models import (
    ACTIVE,
    Edge,
    Keyword,
    Note,
    NoteSource,
    Observation,
    QueryLog,
    Topic,
    TopicKeyword,
)
from langmemcore.storage.prepared import Prepared, float_array, id_array, number, text_param

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


def _ids(name: str) -> BindParameter[Any]:
    """An ``IN`` list bind parameter (expanded at execution: one shape for every length)."""
    return bindparam(name, expanding=True)


def _id(name: str) -> BindParameter[int]:
    """A ``bigint`` id bind parameter."""
    return bindparam(name, type_=BigInteger)


def _namespace(name: str = "namespace") -> BindParameter[str]:
    """The namespace bind parameter (in an UPDATE, ``b_namespace``: a bind parameter may
    not share a column's name there).
    """
    return text_param(name)


def token_estimate() -> ColumnElement[Any]:
    """SQL twin of :func:`langmemcore.retrieval.pack.estimate_tokens`:
    ``greatest(1, length(context) / 4)``.
    """
    return func.greatest(1, func.length(Note.context) / 4)


@cache
def _insert_query() -> Insert:
    row = select(_namespace(), text_param("query"), id_array("returned")).where(
        func.set_config("synchronous_commit", "off", True) == "off"
    )
    log = cast(Table, QueryLog.__table__)
    return (
        insert(log)
        .from_select([log.c.namespace, log.c.query, log.c.returned], row)
        .returning(log.c.id)
    )


def insert_query(namespace: str, query: str, returned: Sequence[int]) -> Prepared:
    """Log one search; returns its id (every search runs it).

    The row commits asynchronously: the statement turns ``synchronous_commit`` off for its
    own transaction only (``set_config(..., true)``; run outside a transaction block, the
    statement is that transaction, so run it alone), and the search does not wait for the
    WAL flush: 1-2 ms on a quiet machine, 4 ms p50 (17 ms mean) at load 10
    (docs/experiments/retrieval-cost.md, "Search cost, round three" and "round four"). The
    row is visible to every session at once; only a crash of the server or the machine
    within the WAL writer's next flushes (at most three times ``wal_writer_delay``, 600 ms
    by default) can lose it, never half-write it. Every other write keeps the server's
    durable commit.
    """
    return Prepared(
        _insert_query(), {"namespace": namespace, "query": query, "returned": list(returned)}
    )


@cache
def _query_for_update() -> Select:
    return (
        select(QueryLog.used)
        .where(QueryLog.namespace == _namespace(), QueryLog.id == _id("query_id"))
        .with_for_update()
    )


def query_for_update(namespace: str, query_id: int) -> Prepared:
    """The ``used`` notes of the log row of ``query_id``, the row locked for settlement."""
    return Prepared(_query_for_update(), {"namespace": namespace, "query_id": query_id})


@cache
def _settle_query() -> Update:
    return (
        update(QueryLog)
        .where(QueryLog.namespace == _namespace("b_namespace"), QueryLog.id == _id("b_id"))
        .values(used=id_array("b_used"), outcome=number("b_outcome", float), settled_at=func.now())
    )


def settle_query(
    namespace: str, query_id: int, used: Sequence[int], outcome: float | None
) -> Prepared:
    """Record the notes an answer used and its outcome on a logged query."""
    values = {"b_namespace": namespace, "b_id": query_id, "b_used": list(used)}
    return Prepared(_settle_query(), {**values, "b_outcome": outcome})


@cache
def _recent_queries() -> Select:
    return (
        select(QueryLog.id, QueryLog.returned, QueryLog.used)
        .where(QueryLog.namespace == _namespace())
        .order_by(QueryLog.id.desc())
        .limit(number("limit"))
    )


def recent_queries(namespace: str, limit: int) -> Prepared:
    """(``id``, ``returned``, ``used``) of the newest ``limit`` logged queries, newest first."""
    return Prepared(_recent_queries(), {"namespace": namespace, "limit": limit})


@cache
def _confident_notes() -> Select:
    return select(Note.id).where(
        Note.namespace == _namespace(),
        Note.id.in_(_ids("note_ids")),
        Note.confidence >= number("floor", float),
    )


def confident_notes(namespace: str, note_ids: Sequence[int], floor: float) -> Prepared:
    """Ids among ``note_ids`` whose confidence is at least ``floor``."""
    values = {"namespace": namespace, "note_ids": list(note_ids), "floor": floor}
    return Prepared(_confident_notes(), values)


@cache
def _latest_query_id() -> Select:
    return (
        select(QueryLog.id)
        .where(QueryLog.namespace == _namespace(), QueryLog.query == text_param("query"))
        .order_by(QueryLog.id.desc())
        .limit(1)
    )


def latest_query_id(namespace: str, query: str) -> Prepared:
    """Id of the newest logged search of ``query`` in the namespace."""
    return Prepared(_latest_query_id(), {"namespace": namespace, "query": query})


@cache
def _notes_of_observation_keys() -> Select:
    namespace = _namespace()
    return (
        select(NoteSource.note_id)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            Observation.key.in_(_ids("keys")),
            Note.status == ACTIVE,
        )
        .distinct()
        .order_by(NoteSource.note_id)
    )


def notes_of_observation_keys(namespace: str, keys: Sequence[str]) -> Prepared:
    """Ids of the active notes built from the observations with these keys."""
    return Prepared(_notes_of_observation_keys(), {"namespace": namespace, "keys": list(keys)})


@cache
def _note_beliefs(lock: bool) -> Select:
    stmt = select(Note.id, Note.confidence, Note.alpha, Note.beta, Note.status).where(
        Note.namespace == _namespace(), Note.id.in_(_ids("note_ids"))
    )
    return stmt.with_for_update() if lock else stmt


def note_beliefs(namespace: str, note_ids: Sequence[int], *, lock: bool = False) -> Prepared:
    """(``id``, ``confidence``, ``alpha``, ``beta``, ``status``) of ``note_ids``."""
    return Prepared(_note_beliefs(lock), {"namespace": namespace, "note_ids": list(note_ids)})


@cache
def _update_beliefs() -> Update:
    notes = cast(Table, Note.__table__)
    values = (
        func.unnest(
            id_array("ids"), float_array("alphas"), float_array("betas"), float_array("taus")
        )
        .table_valued(
            column("id", BigInteger),
            column("alpha", Float),
            column("beta", Float),
            column("confidence", Float),
        )
        .render_derived(name="belief")
    )
    return (
        update(notes)
        .where(notes.c.namespace == _namespace("b_namespace"), notes.c.id == values.c.id)
        .values(alpha=values.c.alpha, beta=values.c.beta, confidence=values.c.confidence)
    )


def update_beliefs(namespace: str, beliefs: Sequence[tuple[int, float, float, float]]) -> Prepared:
    """Set ``alpha``, ``beta`` and ``confidence`` of each note of ``beliefs``
    (``id``, ``alpha``, ``beta``, ``confidence``; one row per note), in one statement.
    """
    values = {
        name: [row[column] for row in beliefs]
        for column, name in enumerate(("ids", "alphas", "betas", "taus"))
    }
    return Prepared(_update_beliefs(), {"b_namespace": namespace, **values})


@cache
def _edges_by_ids() -> Select:
    return select(Edge.source_id, Edge.target_id, Edge.relation, Edge.strength).where(
        Edge.namespace == _namespace(), Edge.id.in_(_ids("edge_ids"))
    )


def edges_by_ids(namespace: str, edge_ids: Sequence[int]) -> Prepared:
    """(``source_id``, ``target_id``, ``relation``, ``strength``) of ``edge_ids``."""
    return Prepared(_edges_by_ids(), {"namespace": namespace, "edge_ids": list(edge_ids)})


@cache
def _active_usage() -> Select:
    return select(func.count(), func.coalesce(func.sum(token_estimate()), 0)).where(
        Note.namespace == _namespace(), Note.status == ACTIVE
    )


def active_usage(namespace: str) -> Prepared:
    """(``notes``, ``tokens``) of the namespace's active notes."""
    return Prepared(_active_usage(), {"namespace": namespace})


@cache
def _active_note_facts() -> Select:
    return (
        select(Note.id, Note.keywords, token_estimate(), Note.confidence)
        .where(Note.namespace == _namespace(), Note.status == ACTIVE)
        .order_by(Note.id)
    )


def active_note_facts(namespace: str) -> Prepared:
    """(``id``, ``keywords``, ``tokens``, ``confidence``) of every active note, oldest first."""
    return Prepared(_active_note_facts(), {"namespace": namespace})


@cache
def _edges_among_active() -> Select:
    namespace = _namespace()
    active = select(Note.id).where(Note.namespace == namespace, Note.status == ACTIVE)
    return select(Edge.source_id, Edge.target_id, Edge.strength).where(
        Edge.namespace == namespace, Edge.source_id.in_(active), Edge.target_id.in_(active)
    )


def edges_among_active(namespace: str) -> Prepared:
    """(``source_id``, ``target_id``, ``strength``) of edges whose notes are both active."""
    return Prepared(_edges_among_active(), {"namespace": namespace})


@cache
def _current_topic_keywords() -> Select:
    namespace = _namespace()
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


def current_topic_keywords(namespace: str) -> Prepared:
    """Names of the keywords in a topic of the newest generation."""
    return Prepared(_current_topic_keywords(), {"namespace": namespace})


@cache
def _set_status(old: str, new: str) -> Update:
    archived_at = func.now() if new == ARCHIVED else None
    return (
        update(Note)
        .where(
            Note.namespace == _namespace("b_namespace"),
            Note.status == old,
            Note.id.in_(_ids("b_note_ids")),
        )
        .values(status=new, archived_at=archived_at)
        .returning(Note.id)
        .execution_options(synchronize_session=False)
    )


def archive_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Archive the active notes among ``note_ids``; returns the ids archived."""
    values = {"b_namespace": namespace, "b_note_ids": list(note_ids)}
    return Prepared(_set_status(ACTIVE, ARCHIVED), values)


def restore_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Bring the archived notes among ``note_ids`` back into memory; returns their ids."""
    values = {"b_namespace": namespace, "b_note_ids": list(note_ids)}
    return Prepared(_set_status(ARCHIVED, ACTIVE), values)
