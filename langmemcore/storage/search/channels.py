"""Pure SQL builders of the retrieval channels, each built once per shape.

Every builder returns a :class:`~langmemcore.storage.prepared.Prepared`: a statement built
once (bind parameters in place of values, cached per shape) and this call's values. Every
statement filters by namespace first; :class:`~langmemcore.storage.search.access.SearchAccess`
executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    any_,
    exists,
    func,
    select,
    true,
)

from langmemcore.storage.models import (
    ACTIVE,
    Keyword,
    Note,
    NoteKeyword,
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
    time_param,
    vector_array,
    vector_bind,
    vector_texts,
)

__all__ = [
    "keyword_ranking",
    "keyword_ranking_select",
    "nearest_by_speakers_select",
    "nearest_notes",
    "nearest_notes_by_speakers",
    "note_summaries",
    "notes_in_time_range",
    "topic_ranking",
]


@cache
def _nearest_notes(threaded: bool) -> Select:
    column = Note.thread_embedding if threaded else Note.embedding
    distance = column.cosine_distance(vector_bind()).label("distance")
    return (
        select(Note.id, distance)
        .where(
            Note.namespace == text_param("namespace"), Note.status == any_(text_array("statuses"))
        )
        .order_by(distance, Note.id)
        .limit(number("k"))
    )


def nearest_notes(
    namespace: str,
    vector: Sequence[float],
    k: int,
    *,
    statuses: Sequence[str] = (ACTIVE,),
    threaded: bool = False,
) -> Prepared:
    """Notes ordered by cosine distance to ``vector`` (``id``, ``distance``), top ``k``;
    ``threaded``: by the distance of their thread vectors instead of their embeddings.
    """
    values = {"namespace": namespace, "vector": vector_param(vector), "k": k}
    return Prepared(_nearest_notes(threaded), {**values, "statuses": list(statuses)})


def nearest_by_speakers_select(namespace: Any, vector: Any, speakers: Any, limit: Any) -> Select:
    """Active notes said by one of ``speakers`` by cosine distance to ``vector`` (``id``,
    ``distance``), top ``limit`` (the values are bind parameters or expressions).
    """
    distance = Note.embedding.cosine_distance(vector).label("distance")
    return (
        select(Note.id, distance)
        .where(
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.speakers.overlap(speakers),
        )
        .order_by(distance, Note.id)
        .limit(limit)
    )


@cache
def _nearest_notes_by_speakers() -> Select:
    return nearest_by_speakers_select(
        text_param("namespace"), vector_bind(), text_array("speakers"), number("k")
    )


def nearest_notes_by_speakers(
    namespace: str, vector: Sequence[float], speakers: Sequence[str], k: int
) -> Prepared:
    """Active notes with a source said by one of ``speakers`` (case-insensitive), by
    cosine distance to ``vector`` (``id``, ``distance``), top ``k``.
    """
    return Prepared(
        _nearest_notes_by_speakers(),
        {
            "namespace": namespace,
            "vector": vector_param(vector),
            "speakers": [s.lower() for s in speakers],
            "k": k,
        },
    )


def _active_best_first(namespace: Any, scored: Any, limit: Any) -> Select:
    """The active notes of ``scored`` (``note_id``, ``score``; ordered best first, ties by
    the higher note id), top ``limit``.

    ``scored`` is ordered before the status check, so Postgres probes notes only until
    ``limit`` active ones are found instead of checking every scored note.
    """
    return (
        select(scored.c.note_id, scored.c.score)
        .where(_is_active(namespace, scored.c.note_id))
        .limit(limit)
    )


def _is_active(namespace: Any, note_id: ColumnElement[int]) -> ColumnElement[bool]:
    """Whether the note ``note_id`` is an active note of the namespace."""
    return exists().where(Note.id == note_id, Note.namespace == namespace, Note.status == ACTIVE)


def keyword_ranking_select(
    namespace: Any, vectors: Any, k: Any, min_similarity: Any, limit: Any
) -> Select:
    """The keyword channel's ranking (``note_id``, ``score``; see :func:`keyword_ranking`),
    the values being bind parameters or expressions.
    """
    entities = (
        func.unnest(vectors).table_valued("vector", with_ordinality="entity").render_derived()
    )
    distance = Keyword.embedding.cosine_distance(entities.c.vector)
    nearest = (
        select(Keyword.id.label("keyword_id"), distance.label("distance"))
        .where(Keyword.namespace == namespace)
        .order_by(distance, Keyword.id)
        .limit(k)
        .lateral("nearest")
    )
    similarity = 1.0 - nearest.c.distance
    matches = (
        select(entities.c.entity, nearest.c.keyword_id, similarity.label("similarity"))
        .select_from(entities)
        .join(nearest, true())
        .where(similarity >= min_similarity)
        .cte("matches")
    )
    best = (
        select(NoteKeyword.note_id, func.max(matches.c.similarity).label("best"))
        .join(
            NoteKeyword,
            and_(
                NoteKeyword.namespace == namespace,
                NoteKeyword.keyword_id == matches.c.keyword_id,
            ),
        )
        .group_by(NoteKeyword.note_id, matches.c.entity)
        .subquery("best")
    )
    score = func.sum(best.c.best).label("score")
    scored = (
        select(best.c.note_id, score)
        .group_by(best.c.note_id)
        .having(score > 0)
        .order_by(score.desc(), best.c.note_id.desc())
        .subquery("scored")
    )
    return _active_best_first(namespace, scored, limit)


@cache
def _keyword_ranking() -> Select:
    return keyword_ranking_select(
        text_param("namespace"),
        vector_array("vectors"),
        number("k"),
        number("min_similarity", float),
        number("limit"),
    )


def keyword_ranking(
    namespace: str,
    vectors: Sequence[Sequence[float]],
    k: int,
    min_similarity: float,
    limit: int,
) -> Prepared:
    """The keyword channel in one statement (``note_id``, ``score``), best first.

    Each query entity (one vector each) matches its ``k`` nearest keywords at least
    ``min_similarity`` similar; an active note scores the sum over entities of its best
    matching keyword's similarity; ties go to the higher note id. Note-keyword pairs are
    read from the covering ``(namespace, keyword_id, note_id)`` index alone.
    """
    return Prepared(
        _keyword_ranking(),
        {
            "namespace": namespace,
            "vectors": vector_texts(vectors),
            "k": k,
            "min_similarity": min_similarity,
            "limit": limit,
        },
    )


def _nearest_topics(namespace: Any, vector: Any, k: Any) -> Any:
    """The ``k`` newest-generation topics nearest to ``vector`` (``id``, ``similarity``)."""
    newest = (
        select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()
    )
    distance = Topic.centroid.cosine_distance(vector)
    return (
        select(Topic.id, (1.0 - distance).label("similarity"))
        .where(Topic.namespace == namespace, Topic.generation == newest)
        .order_by(distance, Topic.id)
        .limit(k)
        .cte("nearest")
    )


def _topic_members(namespace: Any, nearest: Any) -> Any:
    """The notes carrying keywords of the ``nearest`` topics (``topic_id``,
    ``similarity``, ``note_id``, ``matches``: keywords of the topic the note carries).
    """
    return (
        select(
            nearest.c.id.label("topic_id"),
            nearest.c.similarity,
            NoteKeyword.note_id,
            func.count().label("matches"),
        )
        .join(
            TopicKeyword,
            and_(TopicKeyword.namespace == namespace, TopicKeyword.topic_id == nearest.c.id),
        )
        .join(
            NoteKeyword,
            and_(
                NoteKeyword.namespace == namespace,
                NoteKeyword.keyword_id == TopicKeyword.keyword_id,
            ),
        )
        .group_by(nearest.c.id, nearest.c.similarity, NoteKeyword.note_id)
        .cte("members")
    )


def _most_matches(namespace: Any, nearest: Any, members: Any) -> Any:
    """The matches of each nearest topic's first active member by matches (``topic_id``,
    ``most``).
    """
    # each topic's members by matches, the sort fenced (OFFSET 0) so that status is
    # probed in that order and only until the first active member
    by_matches = (
        select(members.c.note_id, members.c.matches)
        .where(members.c.topic_id == nearest.c.id)
        .order_by(members.c.matches.desc())
        .offset(0)
        .correlate(nearest)
        .subquery("by_matches")
    )
    first_active = (
        select(by_matches.c.matches)
        .where(_is_active(namespace, by_matches.c.note_id))
        .limit(1)
        .lateral("first_active")
    )
    return (
        select(nearest.c.id.label("topic_id"), first_active.c.matches.label("most"))
        .select_from(nearest)
        .join(first_active, true(), isouter=True)
        .cte("most")
        .prefix_with("MATERIALIZED")
    )


@cache
def _topic_ranking() -> Select:
    namespace = text_param("namespace")
    nearest = _nearest_topics(namespace, vector_bind(), number("k"))
    members = _topic_members(namespace, nearest)
    most = _most_matches(namespace, nearest, members)
    share = members.c.similarity * members.c.matches / most.c.most
    score = func.greatest(func.max(share), 0.0).label("score")
    scored = (
        select(members.c.note_id, score)
        .join(most, most.c.topic_id == members.c.topic_id)
        .group_by(members.c.note_id)
        .order_by(score.desc(), members.c.note_id.desc())
        .subquery("scored")
    )
    return _active_best_first(namespace, scored, number("limit"))


def topic_ranking(namespace: str, vector: Sequence[float], k: int, limit: int) -> Prepared:
    """The topic channel in one statement (``note_id``, ``score``), best first.

    The ``k`` topics of the newest generation nearest to ``vector`` by centroid; an active
    note carrying their keywords scores, over those topics, the highest topic similarity x
    (keywords of the topic it carries / the most any active note of the topic carries),
    at least 0; ties go to the higher note id.

    Note-keyword pairs come from the covering index; note status is probed only for the
    members with the most keywords of each topic and for the best-scored notes.
    """
    return Prepared(
        _topic_ranking(),
        {"namespace": namespace, "vector": vector_param(vector), "k": k, "limit": limit},
    )


@cache
def _notes_in_time_range() -> Select:
    return (
        select(Note.id, Note.event_time)
        .where(
            Note.namespace == text_param("namespace"),
            Note.status == any_(text_array("statuses")),
            Note.event_time >= time_param("start"),
            Note.event_time < time_param("end"),
        )
        .order_by(Note.event_time, Note.id)
        .limit(number("k"))
    )


def notes_in_time_range(
    namespace: str,
    start: datetime,
    end: datetime,
    k: int,
    *,
    statuses: Sequence[str] = (ACTIVE,),
) -> Prepared:
    """Notes whose event time falls in ``[start, end)``, oldest first."""
    return Prepared(
        _notes_in_time_range(),
        {"namespace": namespace, "start": start, "end": end, "k": k, "statuses": list(statuses)},
    )


@cache
def _note_summaries() -> Select:
    return select(Note.id, Note.context, Note.keywords, Note.event_time).where(
        Note.namespace == text_param("namespace"), Note.id == any_(id_array("note_ids"))
    )


def note_summaries(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """(``id``, ``context``, ``keywords``, ``event_time``) of the notes ``note_ids``."""
    return Prepared(_note_summaries(), {"namespace": namespace, "note_ids": list(note_ids)})
