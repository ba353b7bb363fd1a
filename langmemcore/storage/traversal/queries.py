"""Pure SQL builders of MRAgent's traversal moves over the cue-tag-content graph.

Each function returns a :class:`~langmemcore.storage.prepared.Prepared` and executes
nothing; every ``WHERE`` filters by namespace first. The statements are built per call
with their values bound in place, so each ``Prepared`` carries empty params.
:class:`~langmemcore.storage.traversal.access.TraversalAccess` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ScalarSelect, Select, and_, case, distinct, func, or_, select

from langmemcore.storage.models import (
    ACTIVE,
    Edge,
    Keyword,
    Note,
    NoteKeyword,
    Topic,
    TopicKeyword,
    vector_param,
)
from langmemcore.storage.prepared import Prepared
from langmemcore.storage.search import cues

__all__ = [
    "carrier_count",
    "keyword_by_name",
    "keyword_tags",
    "nearest_keywords",
    "nearest_topic",
    "note_neighbours",
    "note_row",
    "note_topics",
    "notes_for",
    "timeline",
    "topic_by_id",
    "topic_by_label",
    "topic_member_notes",
]


def _newest_generation(namespace: str) -> ScalarSelect[Any]:
    """The namespace's current topic generation."""
    return select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()


def _carriers(namespace: str, keyword_id: int) -> Select:
    """Active note ids carrying the keyword (namespace first)."""
    return (
        select(NoteKeyword.note_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id == keyword_id,
            Note.status == ACTIVE,
        )
    )


def keyword_by_name(namespace: str, name: str) -> Prepared:
    """(``id``, ``name``) of the keyword with this normalised name."""
    stmt = select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name == name
    )
    return Prepared(stmt, {})


def carrier_count(namespace: str, keyword_id: int) -> Prepared:
    """How many active notes carry the keyword."""
    carriers = _carriers(namespace, keyword_id).subquery()
    return Prepared(select(func.count()).select_from(carriers), {})


def nearest_keywords(namespace: str, vector: Sequence[float], limit: int) -> Prepared:
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
            Note.status == ACTIVE,
        )
        .scalar_subquery()
        .label("notes")
    )
    stmt = (
        select(Keyword.name, distance, notes)
        .where(Keyword.namespace == namespace)
        .order_by(distance, Keyword.id)
        .limit(limit)
    )
    return Prepared(stmt, {})


def keyword_tags(namespace: str, keyword_id: int, limit: int) -> Prepared:
    """Tags of edges touching active notes that carry the keyword: (``tag``, ``relation``,
    ``edges``), most edges first.
    """
    carriers = _carriers(namespace, keyword_id)
    edges = func.count(distinct(Edge.id)).label("edges")
    stmt = (
        select(Edge.tag, Edge.relation, edges)
        .where(
            Edge.namespace == namespace,
            or_(Edge.source_id.in_(carriers), Edge.target_id.in_(carriers)),
        )
        .group_by(Edge.tag, Edge.relation)
        .order_by(edges.desc(), Edge.tag, Edge.relation)
        .limit(limit)
    )
    return Prepared(stmt, {})


def notes_for(namespace: str, keyword_id: int, tag: str | None, limit: int) -> Prepared:
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
        Note.status == ACTIVE,
    )
    if tag is None:
        oldest = Note.event_time.asc().nulls_last()
        return Prepared(base.where(*where).order_by(oldest, Note.id).limit(limit), {})
    strongest = func.max(Edge.strength)
    stmt = (
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
    return Prepared(stmt, {})


def note_row(namespace: str, note_id: int) -> Prepared:
    """One note (``id``, ``context``, ``event_time``, ``status``, ``keywords``)."""
    stmt = select(Note.id, Note.context, Note.event_time, Note.status, Note.keywords).where(
        Note.namespace == namespace, Note.id == note_id
    )
    return Prepared(stmt, {})


def note_neighbours(namespace: str, note_id: int, limit: int) -> Prepared:
    """Edges from the note to active neighbours (``note_id``, ``relation``, ``tag``,
    ``strength``), strongest first.
    """
    other = case((Edge.source_id == note_id, Edge.target_id), else_=Edge.source_id)
    stmt = (
        select(other.label("note_id"), Edge.relation, Edge.tag, Edge.strength)
        .join(Note, Note.id == other)
        .where(
            Edge.namespace == namespace,
            Note.namespace == namespace,
            or_(Edge.source_id == note_id, Edge.target_id == note_id),
            Note.status == ACTIVE,
        )
        .order_by(Edge.strength.desc(), Edge.id)
        .limit(limit)
    )
    return Prepared(stmt, {})


def note_topics(namespace: str, note_id: int, limit: int) -> Prepared:
    """Topics of the newest generation sharing cues with the note (``id``, ``label``)."""
    shared = func.count(TopicKeyword.keyword_id)
    stmt = (
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
    return Prepared(stmt, {})


def timeline(namespace: str, start: datetime, end: datetime, limit: int) -> Prepared:
    """Active notes with event time in ``[start, end)``, oldest first (``id``, ``context``,
    ``event_time``, ``total``).
    """
    stmt = (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .where(
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.event_time >= start,
            Note.event_time < end,
        )
        .order_by(Note.event_time, Note.id)
        .limit(limit)
    )
    return Prepared(stmt, {})


def topic_by_id(namespace: str, topic_id: int) -> Prepared:
    """The topic with this id, if of the newest generation (``id``, ``label``)."""
    stmt = select(Topic.id, Topic.label).where(
        Topic.namespace == namespace,
        Topic.id == topic_id,
        Topic.generation == _newest_generation(namespace),
    )
    return Prepared(stmt, {})


def topic_by_label(namespace: str, text: str) -> Prepared:
    """The newest-generation topic whose label contains ``text`` (case-insensitively),
    shortest label first (an exact label wins) (``id``, ``label``).
    """
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    stmt = (
        select(Topic.id, Topic.label)
        .where(
            Topic.namespace == namespace,
            Topic.generation == _newest_generation(namespace),
            Topic.label.ilike(pattern, escape="\\"),
        )
        .order_by(func.length(Topic.label), Topic.id)
        .limit(1)
    )
    return Prepared(stmt, {})


def nearest_topic(namespace: str, vector: Sequence[float]) -> Prepared:
    """The newest-generation topic whose centroid is nearest to ``vector`` (``id``,
    ``label``, ``distance``).
    """
    return cues.nearest_topics(namespace, vector, 1)


def topic_member_notes(namespace: str, topic_id: int, limit: int) -> Prepared:
    """Active notes carrying the topic's keywords, most shared keywords first (``id``,
    ``context``, ``event_time``, ``total``).
    """
    shared = func.count(NoteKeyword.keyword_id)
    stmt = (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .join(NoteKeyword, NoteKeyword.note_id == Note.id)
        .join(TopicKeyword, TopicKeyword.keyword_id == NoteKeyword.keyword_id)
        .where(
            Note.namespace == namespace,
            NoteKeyword.namespace == namespace,
            TopicKeyword.namespace == namespace,
            TopicKeyword.topic_id == topic_id,
            Note.status == ACTIVE,
        )
        .group_by(Note.id, Note.context, Note.event_time)
        .order_by(shared.desc(), Note.event_time.asc().nulls_last(), Note.id)
        .limit(limit)
    )
    return Prepared(stmt, {})
