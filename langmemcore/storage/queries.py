"""Pure SQL-building functions: each returns a SQLAlchemy statement, executes nothing.

Every statement filters by namespace first. They are tested by compiling them, without a
database; :mod:`langmemcore.storage.repository` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Integer,
    Select,
    Text,
    and_,
    cast,
    delete,
    exists,
    func,
    insert,
    literal,
    or_,
    select,
    true,
    union_all,
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
    "edges_of_notes",
    "gate_candidates",
    "insert_observation",
    "keyword_ranking",
    "keyword_vectors_by_name",
    "keyword_ids_by_name",
    "insert_edges",
    "insert_lineages",
    "namespace_prefix_filter",
    "nearest_keywords",
    "nearest_notes",
    "nearest_notes_by_speakers",
    "nearest_topics",
    "note_similarities",
    "note_summaries",
    "notes_by_ids",
    "notes_by_keywords",
    "notes_in_time_range",
    "observation_by_key",
    "sources_of_notes",
    "topic_notes",
    "topic_ranking",
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


def nearest_notes(
    namespace: str, vector: Sequence[float], k: int, *, statuses: Sequence[str] = (ACTIVE,)
) -> Select:
    """Notes ordered by cosine distance to ``vector`` (``id``, ``distance``), top ``k``."""
    distance = Note.embedding.cosine_distance(vector_param(vector)).label("distance")
    return (
        select(Note.id, distance)
        .where(Note.namespace == namespace, Note.status.in_(statuses))
        .order_by(distance, Note.id)
        .limit(k)
    )


def nearest_notes_by_speakers(
    namespace: str, vector: Sequence[float], speakers: Sequence[str], k: int
) -> Select:
    """Active notes with a source said by one of ``speakers`` (case-insensitive), by
    cosine distance to ``vector`` (``id``, ``distance``), top ``k``.
    """
    distance = Note.embedding.cosine_distance(vector_param(vector)).label("distance")
    return (
        select(Note.id, distance)
        .where(
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.speakers.overlap(cast([s.lower() for s in speakers], ARRAY(Text))),
        )
        .order_by(distance, Note.id)
        .limit(k)
    )


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


def _active_best_first(namespace: str, scored: Any, limit: int) -> Select:
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


def _is_active(namespace: str, note_id: ColumnElement[int]) -> ColumnElement[bool]:
    """Whether the note ``note_id`` is an active note of the namespace."""
    return exists().where(Note.id == note_id, Note.namespace == namespace, Note.status == ACTIVE)


def keyword_ranking(
    namespace: str,
    vectors: Sequence[Sequence[float]],
    k: int,
    min_similarity: float,
    limit: int,
) -> Select:
    """The keyword channel in one statement (``note_id``, ``score``), best first.

    Each query entity (one vector each) matches its ``k`` nearest keywords at least
    ``min_similarity`` similar; an active note scores the sum over entities of its best
    matching keyword's similarity; ties go to the higher note id. Note-keyword pairs are
    read from the covering ``(namespace, keyword_id, note_id)`` index alone.
    """
    entities = union_all(
        *(
            select(
                literal(i, Integer).label("entity"),
                cast(literal(list(v), Vector()), Vector()).label("vector"),
            )
            for i, v in enumerate(vectors)
        )
    ).subquery("entities")
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


def topic_ranking(namespace: str, vector: Sequence[float], k: int, limit: int) -> Select:
    """The topic channel in one statement (``note_id``, ``score``), best first.

    The ``k`` topics of the newest generation nearest to ``vector`` by centroid; an active
    note carrying their keywords scores, over those topics, the highest topic similarity x
    (keywords of the topic it carries / the most any active note of the topic carries),
    at least 0; ties go to the higher note id.

    Note-keyword pairs come from the covering index; note status is probed only for the
    members with the most keywords of each topic and for the best-scored notes.
    """
    newest = (
        select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()
    )
    distance = Topic.centroid.cosine_distance(vector_param(vector))
    nearest = (
        select(Topic.id, (1.0 - distance).label("similarity"))
        .where(Topic.namespace == namespace, Topic.generation == newest)
        .order_by(distance, Topic.id)
        .limit(k)
        .cte("nearest")
    )
    members = (
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
    most = (
        select(nearest.c.id.label("topic_id"), first_active.c.matches.label("most"))
        .select_from(nearest)
        .join(first_active, true(), isouter=True)
        .cte("most")
        .prefix_with("MATERIALIZED")
    )
    share = members.c.similarity * members.c.matches / most.c.most
    score = func.greatest(func.max(share), 0.0).label("score")
    scored = (
        select(members.c.note_id, score)
        .join(most, most.c.topic_id == members.c.topic_id)
        .group_by(members.c.note_id)
        .order_by(score.desc(), members.c.note_id.desc())
        .subquery("scored")
    )
    return _active_best_first(namespace, scored, limit)


def keyword_vectors_by_name(namespace: str, names: Sequence[str]) -> Select:
    """(``name``, ``embedding``) of the given normalised keyword names."""
    return select(Keyword.name, Keyword.embedding).where(
        Keyword.namespace == namespace, Keyword.name.in_(list(names))
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


def edges_of_notes(namespace: str, note_ids: Sequence[int]) -> Select:
    """Edges touching any of ``note_ids`` (either end)."""
    ids = list(note_ids)
    return (
        select(Edge)
        .where(Edge.namespace == namespace, or_(Edge.source_id.in_(ids), Edge.target_id.in_(ids)))
        .order_by(Edge.strength.desc(), Edge.id)
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


def notes_in_time_range(
    namespace: str,
    start: datetime,
    end: datetime,
    k: int,
    *,
    statuses: Sequence[str] = (ACTIVE,),
) -> Select:
    """Notes whose event time falls in ``[start, end)``, oldest first."""
    return (
        select(Note.id, Note.event_time)
        .where(
            Note.namespace == namespace,
            Note.status.in_(statuses),
            Note.event_time >= start,
            Note.event_time < end,
        )
        .order_by(Note.event_time, Note.id)
        .limit(k)
    )


def note_similarities(namespace: str, note_ids: Sequence[int], vector: Sequence[float]) -> Select:
    """(``id``, ``distance``) to ``vector`` of the active notes among ``note_ids``."""
    return select(Note.id, Note.embedding.cosine_distance(vector_param(vector))).where(
        Note.namespace == namespace, Note.status == ACTIVE, Note.id.in_(list(note_ids))
    )


def note_summaries(namespace: str, note_ids: Sequence[int]) -> Select:
    """(``id``, ``context``, ``keywords``, ``event_time``) of the notes ``note_ids``."""
    return select(Note.id, Note.context, Note.keywords, Note.event_time).where(
        Note.namespace == namespace, Note.id.in_(list(note_ids))
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
