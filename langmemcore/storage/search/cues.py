"""Pure SQL builders of retrieval's cue lookups: the keywords and topics nearest to a query,
the active notes they lead to, and which names a query gives are speakers in memory.

Every builder returns a :class:`~langmemcore.storage.prepared.Prepared` (a statement built
once per shape and this call's values); every statement filters by namespace first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sqlalchemy import (
    CompoundSelect,
    Select,
    any_,
    exists,
    func,
    literal_column,
    null,
    select,
    union_all,
)

from langmemcore.storage.models import (
    ACTIVE,
    Keyword,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
    vector_param,
)
from langmemcore.storage.prepared import (
    Prepared,
    id_array,
    number,
    text_array,
    text_param,
    vector_bind,
)

__all__ = [
    "nearest_keywords",
    "nearest_topics",
    "notes_by_keywords",
    "query_cues",
    "topic_notes",
]


@cache
def _nearest_keywords() -> Select:
    distance = Keyword.embedding.cosine_distance(vector_bind()).label("distance")
    return (
        select(Keyword.id, Keyword.name, distance)
        .where(Keyword.namespace == text_param("namespace"))
        .order_by(distance, Keyword.id)
        .limit(number("k"))
    )


def nearest_keywords(namespace: str, vector: Sequence[float], k: int) -> Prepared:
    """Keywords ordered by cosine distance (``id``, ``name``, ``distance``), top ``k``."""
    values = {"namespace": namespace, "vector": vector_param(vector), "k": k}
    return Prepared(_nearest_keywords(), values)


@cache
def _nearest_topics() -> Select:
    namespace = text_param("namespace")
    newest = (
        select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()
    )
    distance = Topic.centroid.cosine_distance(vector_bind()).label("distance")
    return (
        select(Topic.id, Topic.label, distance)
        .where(Topic.namespace == namespace, Topic.generation == newest)
        .order_by(distance, Topic.id)
        .limit(number("k"))
    )


def nearest_topics(namespace: str, vector: Sequence[float], k: int) -> Prepared:
    """Topics of the newest generation ordered by centroid distance (``id``, ``label``,
    ``distance``), top ``k``.
    """
    values = {"namespace": namespace, "vector": vector_param(vector), "k": k}
    return Prepared(_nearest_topics(), values)


@cache
def _notes_by_keywords() -> Select:
    namespace = text_param("namespace")
    ids = select(Keyword.id).where(
        Keyword.namespace == namespace, Keyword.name == any_(text_array("names"))
    )
    matches = func.count(NoteKeyword.keyword_id).label("matches")
    return (
        select(Note.id, matches)
        .join(NoteKeyword, NoteKeyword.note_id == Note.id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id.in_(ids),
            Note.status == ACTIVE,
        )
        .group_by(Note.id)
        .order_by(matches.desc(), Note.id)
    )


def notes_by_keywords(namespace: str, names: Sequence[str]) -> Prepared:
    """Active notes carrying any of the keyword ``names`` (``id``, ``matches``), most
    matches first.
    """
    return Prepared(_notes_by_keywords(), {"namespace": namespace, "names": list(names)})


@cache
def _topic_notes() -> Select:
    namespace = text_param("namespace")
    matches = func.count(NoteKeyword.keyword_id).label("matches")
    return (
        select(TopicKeyword.topic_id, Note.id.label("note_id"), matches)
        .join(NoteKeyword, NoteKeyword.keyword_id == TopicKeyword.keyword_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            TopicKeyword.namespace == namespace,
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            TopicKeyword.topic_id == any_(id_array("topic_ids")),
            Note.status == ACTIVE,
        )
        .group_by(TopicKeyword.topic_id, Note.id)
        .order_by(TopicKeyword.topic_id, matches.desc(), Note.id)
    )


def topic_notes(namespace: str, topic_ids: Sequence[int]) -> Prepared:
    """Active notes whose keywords belong to the topics (``topic_id``, ``note_id``,
    ``matches``).
    """
    return Prepared(_topic_notes(), {"namespace": namespace, "topic_ids": list(topic_ids)})


@cache
def _query_cues() -> CompoundSelect:
    namespace = text_param("namespace")
    stored = select(literal_column("'keyword'"), Keyword.name, Keyword.embedding).where(
        Keyword.namespace == namespace, Keyword.name == any_(text_array("keywords"))
    )
    named = func.unnest(text_array("names")).table_valued("name").render_derived("named")
    active_note = (
        select(NoteSource.note_id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(
            NoteSource.namespace == namespace,
            NoteSource.observation_id == Observation.id,
            Note.status == ACTIVE,
        )
        .correlate(Observation)
        # an offset keeps it a subplan run per observation, stopping at the first
        # found, where a join would hash every observation of the speaker first
        .offset(0)
        .exists()
    )
    said = exists().where(
        Observation.namespace == namespace,
        func.lower(Observation.speaker) == func.lower(named.c.name),
        active_note,
    )
    speakers = select(
        literal_column("'speaker'"), named.c.name, null().cast(Keyword.embedding.type)
    ).where(said)
    return union_all(stored, speakers)


def query_cues(namespace: str, keywords: Sequence[str], names: Sequence[str]) -> Prepared:
    """In one statement, rows ``(kind, name, embedding)``: ``"keyword"`` with the stored
    embedding of each of the normalised keyword names the namespace has, and ``"speaker"``
    (no embedding) for each of ``names`` (as given) that the speaker of a source of an
    active note bears, case-insensitive (the observations' ``(namespace, lower(speaker))``
    index finds the speaker's observations; the first with an active note answers).
    """
    values = {"namespace": namespace, "keywords": list(keywords), "names": list(names)}
    return Prepared(_query_cues(), values)
