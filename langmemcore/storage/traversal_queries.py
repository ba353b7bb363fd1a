"""Pure SQL builders of active mode's traversal moves over the cue-tag-content graph.

Each function returns a SQLAlchemy statement and executes nothing; every ``WHERE`` filters
by namespace first. :mod:`langmemcore.retrieval.traversal` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ScalarSelect, Select, and_, case, distinct, func, or_, select

from langmemcore.storage import queries as q
from langmemcore.storage.models import (
    Edge,
    Keyword,
    Note,
    NoteKeyword,
    Topic,
    TopicKeyword,
    vector_param,
)

__all__ = [
    "active_notes_with",
    "keyword_tags_stmt",
    "nearest_keywords_stmt",
    "note_neighbours_stmt",
    "note_row_stmt",
    "note_topics_stmt",
    "notes_for_stmt",
    "timeline_stmt",
    "topic_by_id_stmt",
    "topic_by_label_stmt",
    "topic_member_notes_stmt",
]

_ACTIVE = q.ACTIVE
_MAX_ID = 2**63 - 1


def _newest_generation(namespace: str) -> ScalarSelect[Any]:
    """The namespace's current topic generation."""
    return select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()


def active_notes_with(keyword_id: int, namespace: str) -> Select:
    """Active note ids carrying the keyword (namespace first)."""
    return (
        select(NoteKeyword.note_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id == keyword_id,
            Note.status == _ACTIVE,
        )
    )


def nearest_keywords_stmt(namespace: str, vector: Sequence[float], limit: int) -> Select:
    """Keywords by cosine distance (``name``, ``distance``, ``notes``), nearest first."""
    distance = Keyword.embedding.cosine_distance(vector_param(vector)).label("distance")
    notes = (
        select(func.count())
        .select_from(NoteKeyword)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id == Keyword.id,
            Note.status == _ACTIVE,
        )
        .scalar_subquery()
        .label("notes")
    )
    return (
        select(Keyword.name, distance, notes)
        .where(Keyword.namespace == namespace)
        .order_by(distance, Keyword.id)
        .limit(limit)
    )


def keyword_tags_stmt(namespace: str, keyword_id: int, limit: int) -> Select:
    """Tags of edges touching active notes that carry the keyword: (``tag``, ``relation``,
    ``edges``), most edges first.
    """
    carriers = active_notes_with(keyword_id, namespace)
    edges = func.count(distinct(Edge.id)).label("edges")
    return (
        select(Edge.tag, Edge.relation, edges)
        .where(
            Edge.namespace == namespace,
            or_(Edge.source_id.in_(carriers), Edge.target_id.in_(carriers)),
        )
        .group_by(Edge.tag, Edge.relation)
        .order_by(edges.desc(), Edge.tag, Edge.relation)
        .limit(limit)
    )


def notes_for_stmt(namespace: str, keyword_id: int, tag: str | None, limit: int) -> Select:
    """Active notes carrying the keyword (``id``, ``context``, ``event_time``, ``total``).

    With ``tag``, only notes with an edge whose tag (case-insensitively) or relation equals
    it, strongest such edge first; without, every carrier, oldest first.
    """
    total = func.count().over().label("total")
    base = select(Note.id, Note.context, Note.event_time, total).join(
        NoteKeyword, NoteKeyword.note_id == Note.id
    )
    where = (
        Note.namespace == namespace,
        NoteKeyword.namespace == namespace,
        NoteKeyword.keyword_id == keyword_id,
        Note.status == _ACTIVE,
    )
    if tag is None:
        return base.where(*where).order_by(Note.event_time.asc().nulls_last(), Note.id).limit(limit)
    strongest = func.max(Edge.strength)
    return (
        base.join(
            Edge,
            and_(
                Edge.namespace == namespace,
                or_(Edge.source_id == Note.id, Edge.target_id == Note.id),
            ),
        )
        .where(
            *where,
            or_(func.lower(Edge.tag) == tag.strip().lower(), Edge.relation == tag.strip().lower()),
        )
        .group_by(Note.id, Note.context, Note.event_time)
        .order_by(strongest.desc(), Note.id)
        .limit(limit)
    )


def note_row_stmt(namespace: str, note_id: int) -> Select:
    """One note (``id``, ``context``, ``event_time``, ``status``, ``keywords``)."""
    return select(Note.id, Note.context, Note.event_time, Note.status, Note.keywords).where(
        Note.namespace == namespace, Note.id == note_id
    )


def note_neighbours_stmt(namespace: str, note_id: int, limit: int) -> Select:
    """Edges from the note to active neighbours (``note_id``, ``relation``, ``tag``,
    ``strength``), strongest first.
    """
    other = case((Edge.source_id == note_id, Edge.target_id), else_=Edge.source_id)
    return (
        select(other.label("note_id"), Edge.relation, Edge.tag, Edge.strength)
        .join(Note, Note.id == other)
        .where(
            Edge.namespace == namespace,
            Note.namespace == namespace,
            or_(Edge.source_id == note_id, Edge.target_id == note_id),
            Note.status == _ACTIVE,
        )
        .order_by(Edge.strength.desc(), Edge.id)
        .limit(limit)
    )


def note_topics_stmt(namespace: str, note_id: int, limit: int) -> Select:
    """Topics of the newest generation sharing cues with the note (``id``, ``label``)."""
    shared = func.count(TopicKeyword.keyword_id)
    return (
        select(Topic.id, Topic.label)
        .join(TopicKeyword, TopicKeyword.topic_id == Topic.id)
        .join(NoteKeyword, NoteKeyword.keyword_id == TopicKeyword.keyword_id)
        .where(
            Topic.namespace == namespace,
            TopicKeyword.namespace == namespace,
            NoteKeyword.namespace == namespace,
            NoteKeyword.note_id == note_id,
            Topic.generation == _newest_generation(namespace),
        )
        .group_by(Topic.id, Topic.label)
        .order_by(shared.desc(), Topic.id)
        .limit(limit)
    )


def timeline_stmt(namespace: str, start: datetime, end: datetime, limit: int) -> Select:
    """Active notes with event time in ``[start, end)``, oldest first (``id``, ``context``,
    ``event_time``, ``total``).
    """
    return (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .where(
            Note.namespace == namespace,
            Note.status == _ACTIVE,
            Note.event_time >= start,
            Note.event_time < end,
        )
        .order_by(Note.event_time, Note.id)
        .limit(limit)
    )


def topic_by_id_stmt(namespace: str, topic_id: int) -> Select:
    """The topic with this id, if of the newest generation (``id``, ``label``)."""
    return select(Topic.id, Topic.label).where(
        Topic.namespace == namespace,
        Topic.id == topic_id,
        Topic.generation == _newest_generation(namespace),
    )


def topic_by_label_stmt(namespace: str, text: str) -> Select:
    """The newest-generation topic whose label contains ``text`` (case-insensitively),
    shortest label first (an exact label wins) (``id``, ``label``).
    """
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    return (
        select(Topic.id, Topic.label)
        .where(
            Topic.namespace == namespace,
            Topic.generation == _newest_generation(namespace),
            Topic.label.ilike(pattern, escape="\\"),
        )
        .order_by(func.length(Topic.label), Topic.id)
        .limit(1)
    )


def topic_member_notes_stmt(namespace: str, topic_id: int, limit: int) -> Select:
    """Active notes carrying the topic's keywords, most shared keywords first (``id``,
    ``context``, ``event_time``, ``total``).
    """
    shared = func.count(NoteKeyword.keyword_id)
    return (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .join(NoteKeyword, NoteKeyword.note_id == Note.id)
        .join(TopicKeyword, TopicKeyword.keyword_id == NoteKeyword.keyword_id)
        .where(
            Note.namespace == namespace,
            NoteKeyword.namespace == namespace,
            TopicKeyword.namespace == namespace,
            TopicKeyword.topic_id == topic_id,
            Note.status == _ACTIVE,
        )
        .group_by(Note.id, Note.context, Note.event_time)
        .order_by(shared.desc(), Note.event_time.asc().nulls_last(), Note.id)
        .limit(limit)
    )
