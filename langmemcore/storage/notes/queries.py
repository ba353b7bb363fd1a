"""Pure SQL builders of observations, notes and their sources: the gate's candidates and
the writes of ``apply``, ``undo`` and ``repair``.

The builders of the construction path are built once (see
:mod:`~langmemcore.storage.prepared`): writes that belong together fold into one round
trip (data-modifying CTEs), and lists travel as array parameters, so that applying an
observation costs few, constant statements. Every statement filters by namespace first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Insert,
    Select,
    Update,
    any_,
    bindparam,
    exists,
    func,
    insert,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import (
    ACTIVE,
    Keyword,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    vector_param,
)
from langmemcore.storage.prepared import (
    Prepared,
    id_array,
    number,
    text_array,
    text_param,
    time_param,
    vector_bind,
)

__all__ = [
    "add_note_source",
    "gate_candidates",
    "insert_note_with_links",
    "insert_observation",
    "lock_construction",
    "note_for_update",
    "notes_by_ids",
    "observation_by_key",
    "observation_hashes",
    "observations_by_keys",
    "rewrite_note",
    "source_ids_of_note",
    "sources_of_notes",
]

_LOCK_CONSTRUCTION = text("SELECT pg_advisory_xact_lock(hashtextextended(:ns, 0))")


def lock_construction(namespace: str) -> Prepared:
    """Serialise construction in the namespace until the transaction ends (the topics
    lock, :func:`~langmemcore.storage.topics.queries.lock_topics`, uses seed 1).
    """
    return Prepared(_LOCK_CONSTRUCTION, {"ns": namespace})


@cache
def _insert_observation() -> Insert:
    return (
        pg_insert(Observation)
        .values(
            namespace=text_param("namespace"),
            key=text_param("key"),
            content=text_param("content"),
            content_hash=text_param("content_hash"),
            speaker=text_param("speaker"),
            event_time=time_param("event_time"),
            meta=bindparam("meta", type_=JSONB),
            analysis=bindparam("analysis", type_=JSONB),
        )
        .on_conflict_do_nothing(constraint="uq_observations_namespace_key")
        .returning(Observation.id)
        .execution_options(dml_strategy="raw")
    )


def insert_observation(
    namespace: str,
    key: str,
    content: str,
    content_hash: str,
    *,
    speaker: str | None,
    event_time: datetime | None,
    metadata: dict[str, Any],
    analysis: dict[str, Any],
) -> Prepared:
    """Insert an observation with its analysis unless (namespace, key) exists; returns
    the new id.
    """
    return Prepared(
        _insert_observation(),
        {
            "namespace": namespace,
            "key": key,
            "content": content,
            "content_hash": content_hash,
            "speaker": speaker,
            "event_time": event_time,
            "meta": metadata,
            "analysis": analysis,
        },
    )


@cache
def _insert_note_with_links() -> Select:
    namespace = text_param("namespace")
    note = (
        pg_insert(Note)
        .values(
            namespace=namespace,
            context=text_param("context"),
            embedding=vector_bind("embedding"),
            thread_embedding=vector_bind("thread_embedding"),
            keywords=text_array("keywords"),
            speakers=text_array("speakers"),
            event_time=time_param("event_time"),
            confidence=number("confidence", float),
            origin=text_param("origin"),
        )
        .returning(Note.id)
        .cte("note")
    )
    sources = (
        pg_insert(NoteSource)
        .from_select(
            ["namespace", "note_id", "observation_id"],
            select(namespace, note.c.id, func.unnest(id_array("source_ids"))),
        )
        .cte("sources")
    )
    keywords = (
        pg_insert(NoteKeyword)
        .from_select(
            ["namespace", "note_id", "keyword_id"],
            select(namespace, note.c.id, func.unnest(id_array("keyword_ids"))),
        )
        .on_conflict_do_nothing()
        .cte("keywords")
    )
    return select(note.c.id).add_cte(sources, keywords)


def insert_note_with_links(
    namespace: str,
    values: dict[str, Any],
    source_ids: Sequence[int],
    keyword_ids: Sequence[int],
) -> Prepared:
    """Insert a note, its sources and its keyword associations; selects the note's id.

    Args:
        namespace: The note's namespace (encoded).
        values: Column values of the note: ``context``, ``embedding``, ``keywords``,
            ``speakers``, ``event_time``, ``confidence`` and ``origin``, and optionally
            ``thread_embedding`` (default: the embedding).
        source_ids: Observation ids of its sources.
        keyword_ids: Ids of its keywords (duplicates are ignored).
    """
    return Prepared(
        _insert_note_with_links(),
        {
            **values,
            "embedding": vector_param(values["embedding"]),
            "thread_embedding": vector_param(values.get("thread_embedding") or values["embedding"]),
            "namespace": namespace,
            "source_ids": list(source_ids),
            "keyword_ids": list(dict.fromkeys(keyword_ids)),
        },
    )


def _newest_sharing(namespace: Any) -> Select[Any]:
    """The ``keyword_k`` newest active notes holding one of ``keywords``: each keyword's
    newest ones read backwards along ``note_keywords``' ``(namespace, keyword_id,
    note_id)`` index, then the newest of those, so that a rare keyword costs a few index
    entries instead of a walk through the namespace's notes, newest first, in search of it.
    """
    limit = number("keyword_k")
    newest = (
        select(NoteKeyword.note_id)
        .join(Note, (Note.namespace == NoteKeyword.namespace) & (Note.id == NoteKeyword.note_id))
        .where(
            NoteKeyword.namespace == namespace,
            NoteKeyword.keyword_id == Keyword.id,
            Note.status == ACTIVE,
        )
        .order_by(NoteKeyword.note_id.desc())
        .limit(limit)
        .lateral("newest")
    )
    return (
        select(newest.c.note_id)
        .distinct()
        .select_from(Keyword)
        .join(newest, true())
        .where(Keyword.namespace == namespace, Keyword.name == any_(text_array("keywords")))
        .order_by(newest.c.note_id.desc())
        .limit(limit)
    )


@cache
def _gate_candidates(with_keywords: bool) -> Select:
    namespace, vector = text_param("namespace"), vector_bind()
    nearest = (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .order_by(Note.embedding.cosine_distance(vector), Note.id)
        .limit(number("k"))
    )
    ids = nearest
    if with_keywords:
        ids = nearest.union(_newest_sharing(namespace))  # type: ignore[assignment]
    sources = (
        select(func.count())
        .where(NoteSource.namespace == namespace, NoteSource.note_id == Note.id)
        .scalar_subquery()
    )
    changes = (
        exists()
        .where(
            NoteSource.namespace == namespace,
            NoteSource.note_id == Note.id,
            Observation.namespace == namespace,
            Observation.id == NoteSource.observation_id,
            Observation.analysis["changes"].as_boolean(),
        )
        .label("changes")
    )
    similarity = (1.0 - Note.embedding.cosine_distance(vector)).label("similarity")
    columns = (Note.id, Note.context, Note.keywords, similarity, sources.label("sources"))
    return (
        select(*columns, Note.valid_from, changes)
        .where(Note.namespace == namespace, Note.id.in_(ids.subquery().select()))
        .order_by(similarity.desc(), Note.id)
    )


def gate_candidates(
    namespace: str,
    vector: Sequence[float],
    keywords: Sequence[str],
    *,
    k: int,
    keyword_k: int,
) -> Prepared:
    """Candidate notes for the gate: the ``k`` nearest active notes plus the ``keyword_k``
    newest active notes sharing a keyword; with similarity, source count, ``valid_from``
    and whether a source's stored analysis announces a change.
    """
    return Prepared(
        _gate_candidates(bool(keywords)),
        {"namespace": namespace, "vector": vector_param(vector), "k": k}
        | ({"keywords": list(keywords), "keyword_k": keyword_k} if keywords else {}),
    )


def observation_by_key(namespace: str, key: str) -> Prepared:
    """The observation stored under (namespace, key)."""
    return Prepared(
        select(Observation).where(Observation.namespace == namespace, Observation.key == key), {}
    )


@cache
def _observations_by_keys() -> Select[Any]:
    return select(Observation).where(
        Observation.namespace == text_param("namespace"),
        Observation.key == any_(text_array("keys")),
    )


def observations_by_keys(namespace: str, keys: Sequence[str]) -> Prepared:
    """The observations stored under ``keys`` (built once; the keys travel as an array)."""
    return Prepared(_observations_by_keys(), {"namespace": namespace, "keys": list(keys)})


def observation_hashes(namespace: str, keys: Sequence[str]) -> Prepared:
    """(``key``, ``content_hash``) of the observations stored under ``keys``."""
    return Prepared(
        select(Observation.key, Observation.content_hash).where(
            Observation.namespace == namespace, Observation.key.in_(list(keys))
        ),
        {},
    )


def notes_by_ids(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Full note rows for ``note_ids``."""
    return Prepared(
        select(Note).where(Note.namespace == namespace, Note.id.in_(list(note_ids))), {}
    )


@cache
def _note_for_update() -> Select:
    return (
        select(Note)
        .where(
            Note.namespace == text_param("namespace"),
            Note.id == bindparam("note_id", type_=BigInteger),
        )
        .with_for_update()
    )


def note_for_update(namespace: str, note_id: int) -> Prepared:
    """The note row, locked (``FOR UPDATE``) until the transaction ends."""
    return Prepared(_note_for_update(), {"namespace": namespace, "note_id": note_id})


@cache
def _rewrite_note(with_confidence: bool) -> Update:
    # bind names differ from the column names, which UPDATE reserves for its SET clause
    columns = ("context", "embedding", "thread_embedding", "keywords", "speakers", "event_time")
    kinds = (text_param, vector_bind, vector_bind, text_array, text_array, time_param)
    values: dict[str, Any] = {c: kind(f"new_{c}") for c, kind in zip(columns, kinds, strict=True)}
    values["updated_at"] = func.now()
    if with_confidence:
        values["confidence"] = number("new_confidence", float)
    return (
        update(Note)
        .where(
            Note.namespace == text_param("in_namespace"),
            Note.id == bindparam("note", type_=BigInteger),
        )
        .values(values)
        .execution_options(synchronize_session=False)
    )


def rewrite_note(
    namespace: str, note_id: int, values: dict[str, Any], *, confidence: float | None = None
) -> Prepared:
    """Rewrite a note's content and mark it updated now.

    Args:
        namespace: The note's namespace (encoded).
        note_id: The note.
        values: ``context``, ``embedding``, ``keywords``, ``speakers`` and ``event_time``,
            and optionally ``thread_embedding`` (default: the embedding: a note rewritten
            other than by a merge at ingest keeps no thread context).
        confidence: A confidence to set too (``None`` leaves it as it is).
    """
    params = {
        "in_namespace": namespace,
        "note": note_id,
        "new_context": values["context"],
        "new_embedding": vector_param(values["embedding"]),
        "new_thread_embedding": vector_param(values.get("thread_embedding") or values["embedding"]),
        "new_keywords": list(values["keywords"]),
        "new_speakers": list(values["speakers"]),
        "new_event_time": values["event_time"],
    }
    if confidence is not None:
        params["new_confidence"] = confidence
    return Prepared(_rewrite_note(confidence is not None), params)


@cache
def _source_ids_of_note() -> Select:
    return select(NoteSource.observation_id).where(
        NoteSource.namespace == text_param("namespace"),
        NoteSource.note_id == bindparam("note_id", type_=BigInteger),
    )


def source_ids_of_note(namespace: str, note_id: int) -> Prepared:
    """The observation ids of one note's sources."""
    return Prepared(_source_ids_of_note(), {"namespace": namespace, "note_id": note_id})


@cache
def _add_note_source() -> Insert:
    return (
        insert(NoteSource)
        .values(
            namespace=text_param("namespace"),
            note_id=bindparam("note_id", type_=BigInteger),
            observation_id=bindparam("observation_id", type_=BigInteger),
        )
        .execution_options(dml_strategy="raw")
    )


def add_note_source(namespace: str, note_id: int, observation_id: int) -> Prepared:
    """Add one observation to a note's sources."""
    return Prepared(
        _add_note_source(),
        {"namespace": namespace, "note_id": note_id, "observation_id": observation_id},
    )


def sources_of_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """(``note_id``, observation) pairs of the notes' sources, in event order."""
    return Prepared(
        select(NoteSource.note_id, Observation)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            NoteSource.note_id.in_(list(note_ids)),
        )
        .order_by(NoteSource.note_id, Observation.event_time, Observation.id),
        {},
    )
