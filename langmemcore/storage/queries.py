"""Pure SQL-building functions: each returns a SQLAlchemy statement, executes nothing.

Every statement filters by namespace first. They are tested by compiling them, without a
database; :mod:`langmemcore.storage.repository` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    func,
    or_,
    select,
)

from langmemcore._namespace import like_prefix_pattern
from langmemcore.storage.models import (
    ACTIVE,
    Keyword,
    Note,
    NoteKeyword,
    Topic,
    TopicKeyword,
    vector_param,
)

__all__ = [
    "ACTIVE",
    "namespace_prefix_filter",
    "nearest_keywords",
    "nearest_topics",
    "notes_by_keywords",
    "topic_notes",
]


def namespace_prefix_filter(column: Any, prefix_text: str) -> ColumnElement[bool]:
    """Match ``column`` equal to ``prefix_text`` or strictly below it (``'a'``, ``'a.*'``).

    ``('a',)`` never matches ``('ab',)``: the prefix must be followed by a ``"."``.
    """
    return or_(column == prefix_text, column.like(like_prefix_pattern(prefix_text), escape="\\"))


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
