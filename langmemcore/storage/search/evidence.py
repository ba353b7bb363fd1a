"""Pure SQL builders of the evidence the retrieval graph packs.

Packing reads, in one statement, everything a search returns about its best notes: the
context, keywords and embedding of each active note, its source observations in event
order and the label of its topic. Re-ordering a larger pool by maximal marginal relevance
first reads only the pool's embeddings, so that the sources and topics are read for the
notes returned alone. Embeddings travel in pgvector's binary form
(``vector_send``, decoded by :func:`~langmemcore.storage.models.decode_vector`):
decoding 384 floats from text costs about 75 microseconds a vector in Python, from
binary about 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import BigInteger, Select, any_, cast, func, select
from sqlalchemy.dialects.postgresql import ARRAY, aggregate_order_by

from langmemcore.storage.models import (
    ACTIVE,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
)
from langmemcore.storage.prepared import Prepared, id_array, text_array, text_param, time_param

__all__ = ["evidence_across", "evidence_rows", "observed_sources", "vector_rows"]


def _evidence_select(namespace: Any) -> Select:
    """What packing reads of a note (see :func:`evidence_rows`), its sources and topic
    read in ``namespace`` (a bind parameter, or the note's own namespace column).

    The topic is looked up from the note's keywords, gathered first into an array, so
    that the planner starts from the note's few keywords, not from every topic keyword
    of the namespace (BENCHMARKS.md, "Search at scale").
    """
    sources = (
        select(
            func.json_agg(
                aggregate_order_by(
                    func.json_build_array(
                        Observation.key,
                        Observation.speaker,
                        Observation.event_time,
                        Observation.content,
                        Observation.analysis,
                    ),
                    Observation.event_time,
                    Observation.id,
                )
            )
        )
        .select_from(NoteSource)
        .join(
            Observation,
            (Observation.id == NoteSource.observation_id) & (Observation.namespace == namespace),
        )
        .where(NoteSource.namespace == namespace, NoteSource.note_id == Note.id)
        .scalar_subquery()
    )
    keywords = cast(
        select(func.array_agg(NoteKeyword.keyword_id))
        .where(NoteKeyword.namespace == namespace, NoteKeyword.note_id == Note.id)
        .correlate_except(NoteKeyword)
        .scalar_subquery(),
        ARRAY(BigInteger),
    )
    topic = (
        select(Topic.label)
        .select_from(TopicKeyword)
        .join(Topic, (Topic.id == TopicKeyword.topic_id) & (Topic.namespace == namespace))
        .where(TopicKeyword.namespace == namespace, TopicKeyword.keyword_id == any_(keywords))
        .group_by(Topic.label)
        .order_by(func.count().desc(), Topic.label)
        .limit(1)
        .scalar_subquery()
    )
    return select(
        Note.id,
        Note.context,
        Note.keywords,
        func.vector_send(Note.embedding).label("vector"),
        sources.label("sources"),
        topic.label("topic"),
        Note.valid_from,
        Note.valid_to,
    )


@cache
def _evidence_rows() -> Select:
    namespace, ids = text_param("namespace"), any_(id_array("note_ids"))
    return _evidence_select(namespace).where(
        Note.namespace == namespace, Note.status == ACTIVE, Note.id == ids
    )


def evidence_rows(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """The active notes among ``note_ids`` with what packing needs: ``id``, ``context``,
    ``keywords``, ``vector`` (binary, see
    :func:`~langmemcore.storage.models.decode_vector`), ``sources`` (JSON array of
    ``[key, speaker, event_time, text, analysis]`` in event order), ``topic`` (the label of the
    topic sharing most keywords with the note, ties by label), ``valid_from`` and
    ``valid_to``.
    """
    return Prepared(_evidence_rows(), {"namespace": namespace, "note_ids": list(note_ids)})


@cache
def _evidence_across() -> Select:
    namespaces, ids = any_(text_array("namespaces")), any_(id_array("note_ids"))
    return (
        _evidence_select(Note.namespace)
        .add_columns(Note.namespace)
        .where(Note.namespace == namespaces, Note.status == ACTIVE, Note.id == ids)
    )


def evidence_across(namespaces: Sequence[str], note_ids: Sequence[int]) -> Prepared:
    """The active notes among ``note_ids`` in any of ``namespaces`` with the columns of
    :func:`evidence_rows` (sources and topic read in each note's own namespace) and the
    note's ``namespace``.
    """
    values = {"namespaces": list(namespaces), "note_ids": list(note_ids)}
    return Prepared(_evidence_across(), values)


@cache
def _vector_rows() -> Select:
    namespace, ids = text_param("namespace"), any_(id_array("note_ids"))
    return select(Note.id, func.vector_send(Note.embedding).label("vector")).where(
        Note.namespace == namespace, Note.status == ACTIVE, Note.id == ids
    )


def vector_rows(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """The active notes among ``note_ids`` with their embedding: ``id``, ``vector``
    (binary, see :func:`~langmemcore.storage.models.decode_vector`).
    """
    return Prepared(_vector_rows(), {"namespace": namespace, "note_ids": list(note_ids)})


@cache
def _observed_sources() -> Select:
    namespace, ids = text_param("namespace"), any_(id_array("note_ids"))
    observed = func.coalesce(Observation.event_time, Observation.ingested_at)
    return (
        select(NoteSource.note_id, Observation.key)
        .select_from(NoteSource)
        .join(
            Observation,
            (Observation.id == NoteSource.observation_id) & (Observation.namespace == namespace),
        )
        .where(
            NoteSource.namespace == namespace,
            NoteSource.note_id == ids,
            observed <= time_param("as_of"),
        )
    )


def observed_sources(namespace: str, note_ids: Sequence[int], as_of: datetime) -> Prepared:
    """(``note_id``, ``key``) of the source observations of ``note_ids`` observed at or
    before ``as_of``: at their event time, or when they were ingested if they have none.
    """
    params = {"namespace": namespace, "note_ids": list(note_ids), "as_of": as_of}
    return Prepared(_observed_sources(), params)
