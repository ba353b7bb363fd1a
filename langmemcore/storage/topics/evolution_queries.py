"""Pure SQL builders of topic evolution: the keyword co-occurrence graph of active notes,
the label texts, and the writes of a new generation of topics. Each filters by namespace
first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sqlalchemy import DateTime, Insert, delete, exists, func, insert, literal, select
from sqlalchemy.orm import aliased

from langmemcore.storage.models import ACTIVE, Note, NoteKeyword, Topic, TopicKeyword
from langmemcore.storage.prepared import (
    Prepared,
    id_array,
    number,
    text_array,
    text_param,
    vector_array,
    vector_texts,
)

__all__ = [
    "active_keywords",
    "delete_topics",
    "delete_topics_without_keywords",
    "insert_topic_keywords",
    "insert_topics",
    "keyword_cooccurrence",
    "newest_generation",
    "notes_since_topics",
    "oldest_note_contexts",
]


def keyword_cooccurrence(namespace: str) -> Prepared:
    """(``a``, ``b``, active notes carrying both) of every co-occurring keyword pair
    ``a < b``.
    """
    a, b = aliased(NoteKeyword), aliased(NoteKeyword)
    return Prepared(
        select(a.keyword_id, b.keyword_id, func.count())
        .join(b, (b.note_id == a.note_id) & (b.keyword_id > a.keyword_id))
        .join(Note, Note.id == a.note_id)
        .where(a.namespace == namespace, b.namespace == namespace, Note.status == ACTIVE)
        .group_by(a.keyword_id, b.keyword_id),
        {},
    )


def active_keywords(namespace: str) -> Prepared:
    """The distinct ids of the keywords active notes carry."""
    return Prepared(
        select(NoteKeyword.keyword_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(NoteKeyword.namespace == namespace, Note.status == ACTIVE)
        .distinct(),
        {},
    )


def oldest_note_contexts(namespace: str, keyword_ids: Sequence[int]) -> Prepared:
    """(``keyword_id``, context) of the oldest active note carrying each keyword."""
    oldest = (
        select(NoteKeyword.keyword_id, func.min(Note.id).label("note_id"))
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.status == ACTIVE,
            NoteKeyword.keyword_id.in_(list(keyword_ids)),
        )
        .group_by(NoteKeyword.keyword_id)
        .subquery()
    )
    return Prepared(
        select(oldest.c.keyword_id, Note.context).join(Note, Note.id == oldest.c.note_id), {}
    )


def newest_generation(namespace: str) -> Prepared:
    """The namespace's newest topic generation, 0 when it has none."""
    return Prepared(
        select(func.coalesce(func.max(Topic.generation), 0)).where(Topic.namespace == namespace),
        {},
    )


def delete_topics(namespace: str) -> Prepared:
    """Delete every topic of the namespace (their keyword memberships go with them)."""
    return Prepared(delete(Topic).where(Topic.namespace == namespace), {})


def delete_topics_without_keywords(namespace: str) -> Prepared:
    """Delete the namespace's topics that have no keyword left."""
    return Prepared(
        delete(Topic).where(
            Topic.namespace == namespace, ~exists().where(TopicKeyword.topic_id == Topic.id)
        ),
        {},
    )


@cache
def _insert_topics() -> Insert:
    rows = (
        func.unnest(text_array("labels"), vector_array("centroids"), id_array("sizes"))
        .table_valued("label", "centroid", "size", with_ordinality="position")
        .render_derived(name="rows")
    )
    ordered = select(
        text_param("namespace"),
        rows.c.label,
        rows.c.centroid,
        number("generation"),
        rows.c.size,
    ).order_by(rows.c.position)
    return (
        insert(Topic)
        .from_select(["namespace", "label", "centroid", "generation", "size"], ordered)
        .returning(Topic.id)
        .execution_options(dml_strategy="raw")
    )


def insert_topics(
    namespace: str,
    generation: int,
    labels: Sequence[str],
    centroids: Sequence[Sequence[float]],
    sizes: Sequence[int],
) -> Prepared:
    """Insert topics of one generation in one statement; returns their ids (ascending ids
    follow the rows' order: identities are drawn as the ordered rows are inserted).
    """
    return Prepared(
        _insert_topics(),
        {
            "namespace": namespace,
            "generation": generation,
            "labels": list(labels),
            "centroids": vector_texts(centroids),
            "sizes": list(sizes),
        },
    )


@cache
def _insert_topic_keywords() -> Insert:
    rows = (
        func.unnest(id_array("topic_ids"), id_array("keyword_ids"))
        .table_valued("topic_id", "keyword_id")
        .render_derived(name="members")
    )
    return (
        insert(TopicKeyword)
        .from_select(
            ["namespace", "topic_id", "keyword_id"],
            select(text_param("namespace"), rows.c.topic_id, rows.c.keyword_id),
        )
        .execution_options(dml_strategy="raw")
    )


def insert_topic_keywords(namespace: str, memberships: Sequence[tuple[int, int]]) -> Prepared:
    """Insert (topic id, keyword id) memberships in one statement."""
    return Prepared(
        _insert_topic_keywords(),
        {
            "namespace": namespace,
            "topic_ids": [t for t, _k in memberships],
            "keyword_ids": [k for _t, k in memberships],
        },
    )


def notes_since_topics(namespace: str) -> Prepared:
    """How many active notes were written after the newest topic group (all of them
    when the namespace has no topics yet).
    """
    newest = select(func.max(Topic.created_at)).where(Topic.namespace == namespace)
    after = func.coalesce(newest.scalar_subquery(), literal("-infinity", DateTime(True)))
    return Prepared(
        select(func.count()).where(
            Note.namespace == namespace, Note.status == ACTIVE, Note.created_at > after
        ),
        {},
    )
