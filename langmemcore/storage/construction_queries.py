"""Pure SQL builders of the construction path: the gate's candidates and the writes of
``apply``, each built once (see :mod:`~langmemcore.storage.prepared`).

Writes that belong together fold into one round trip (data-modifying CTEs), and lists
travel as array parameters, so that applying an observation costs few, constant
statements: the same statement objects are executed for every observation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Insert,
    Select,
    TextClause,
    any_,
    bindparam,
    cast,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import (
    ACTIVE,
    Edge,
    Keyword,
    Lineage,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    vector_param,
)
from langmemcore.storage.prepared import (
    Prepared,
    float_array,
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
    "LOCK_NAMESPACE",
    "gate_candidates",
    "insert_active_edges",
    "insert_lineages",
    "insert_note_with_links",
    "insert_observation",
    "upsert_keywords",
]


LOCK_NAMESPACE: TextClause = text("SELECT pg_advisory_xact_lock(hashtextextended(:ns, 0))")
"""Serialises construction in the namespace ``:ns`` until the transaction ends."""


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
) -> Prepared:
    """Insert an observation unless (namespace, key) exists; returns the new id."""
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
        },
    )


@cache
def _upsert_keywords() -> Select:
    namespace, names = text_param("namespace"), text_array("names")
    rows = (
        func.unnest(names, vector_array("vectors"))
        .table_valued("name", "embedding", with_ordinality="position")
        .render_derived(name="wanted")
    )
    inserted = (
        pg_insert(Keyword)
        .from_select(
            ["namespace", "name", "embedding"],
            select(namespace, rows.c.name, rows.c.embedding).order_by(rows.c.position),
        )
        .on_conflict_do_nothing(constraint="uq_keywords_namespace_name")
        .returning(Keyword.id, Keyword.name)
        .cte("inserted")
    )
    existing = select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name == any_(names)
    )
    return select(inserted.c.id, inserted.c.name).union_all(existing)  # type: ignore[return-value]


def upsert_keywords(namespace: str, rows: Sequence[tuple[str, Sequence[float]]]) -> Prepared:
    """Insert the keywords that do not exist yet and return (``id``, ``name``) of all of
    them, new and existing, in one statement.
    """
    return Prepared(
        _upsert_keywords(),
        {
            "namespace": namespace,
            "names": [name for name, _v in rows],
            "vectors": vector_texts([v for _n, v in rows]),
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
            ``speakers``, ``event_time``, ``confidence`` and ``origin``.
        source_ids: Observation ids of its sources.
        keyword_ids: Ids of its keywords (duplicates are ignored).
    """
    return Prepared(
        _insert_note_with_links(),
        {
            **values,
            "embedding": vector_param(values["embedding"]),
            "namespace": namespace,
            "source_ids": list(source_ids),
            "keyword_ids": list(dict.fromkeys(keyword_ids)),
        },
    )


@cache
def _insert_active_edges() -> Select:
    namespace, source_id = text_param("namespace"), bindparam("source_id", type_=BigInteger)
    wanted = (
        func.unnest(
            id_array("targets"),
            cast(text_array("relations"), ARRAY(Edge.relation.type)),
            float_array("strengths"),
            cast(text_array("tags"), ARRAY(Edge.tag.type)),
            cast(text_array("reasons"), ARRAY(Edge.reason.type)),
        )
        .table_valued("t", "relation", "strength", "tag", "reason", with_ordinality="position")
        .render_derived(name="wanted")
    )
    targets = (
        select(
            namespace,
            source_id,
            wanted.c.t,
            wanted.c.relation,
            wanted.c.strength,
            wanted.c.tag,
            wanted.c.reason,
        )
        .join(Note, Note.id == wanted.c.t)
        .where(Note.namespace == namespace, Note.status == ACTIVE, wanted.c.t != source_id)
        .order_by(wanted.c.position)
    )
    stmt = pg_insert(Edge).from_select(
        ["namespace", "source_id", "target_id", "relation", "strength", "tag", "reason"], targets
    )
    # an edge already there is kept as it is (a no-op update, so that its id comes back)
    upsert = stmt.on_conflict_do_update(
        constraint="uq_edges_source_target_relation", set_={"strength": Edge.strength}
    )
    created = upsert.returning(Edge.id, Edge.target_id).cte("created")
    return select(created.c.id, created.c.target_id).order_by(created.c.id)


def insert_active_edges(
    namespace: str, source_id: int, links: Sequence[dict[str, Any]]
) -> Prepared:
    """Upsert edges from ``source_id`` to those link targets that are active notes of the
    namespace (never to itself); selects (edge id, target id) of the edges written, by
    edge id. An edge of the same source, target and relation (they are unique) that
    exists already is kept as it is, and its id selected: undoing the later link, which
    then leaves the edge to the earlier one, restores exactly what was there before.

    Args:
        namespace: The namespace (encoded).
        source_id: The note the edges start from.
        links: Dicts with ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``;
            at most one per target and relation.
    """
    return Prepared(
        _insert_active_edges(),
        {
            "namespace": namespace,
            "source_id": source_id,
            "targets": [link["target_id"] for link in links],
            "relations": [link["relation"] for link in links],
            "strengths": [float(link["strength"]) for link in links],
            "tags": [link["tag"] for link in links],
            "reasons": [link["reason"] for link in links],
        },
    )


@cache
def _insert_lineages() -> Insert:
    jsonb_array = ARRAY(JSONB)
    rows = (
        func.unnest(
            text_array("operations"),
            id_array("observation_ids"),
            id_array("note_ids"),
            cast(text_array("befores"), jsonb_array),
            cast(text_array("afters"), jsonb_array),
            text_array("reasons"),
        )
        .table_valued(
            "operation",
            "observation_id",
            "note_id",
            "before",
            "after",
            "reason",
            with_ordinality="position",
        )
        .render_derived(name="rows")
    )
    ordered = select(
        text_param("namespace"),
        rows.c.operation,
        rows.c.observation_id,
        rows.c.note_id,
        rows.c.before,
        rows.c.after,
        rows.c.reason,
    ).order_by(rows.c.position)
    columns = ["namespace", "operation", "observation_id", "note_id", "before", "after", "reason"]
    return (
        insert(Lineage)
        .from_select(columns, ordered)
        .returning(Lineage.id)
        .execution_options(dml_strategy="raw")
    )


def insert_lineages(namespace: str, rows: Sequence[dict[str, Any]]) -> Prepared:
    """Insert lineage rows in one statement; returns their ids (ascending ids follow the
    rows' order: identities are drawn as the ordered rows are inserted).

    Each row dict carries ``operation`` and optionally ``observation_id``, ``note_id``,
    ``before``, ``after`` (JSON-able) and ``reason``.
    """
    return Prepared(
        _insert_lineages(),
        {
            "namespace": namespace,
            "operations": [row["operation"] for row in rows],
            "observation_ids": [row.get("observation_id") for row in rows],
            "note_ids": [row.get("note_id") for row in rows],
            "befores": [json.dumps(row.get("before")) for row in rows],
            "afters": [json.dumps(row.get("after")) for row in rows],
            "reasons": [row.get("reason") for row in rows],
        },
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
        sharing = (
            select(Note.id)
            .where(
                Note.namespace == namespace,
                Note.status == ACTIVE,
                Note.keywords.overlap(text_array("keywords")),
            )
            .order_by(Note.id.desc())
            .limit(number("keyword_k"))
        )
        ids = nearest.union(sharing)  # type: ignore[assignment]
    sources = (
        select(func.count())
        .where(NoteSource.namespace == namespace, NoteSource.note_id == Note.id)
        .scalar_subquery()
    )
    similarity = (1.0 - Note.embedding.cosine_distance(vector)).label("similarity")
    return (
        select(Note.id, Note.context, Note.keywords, similarity, sources.label("sources"))
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
    newest active notes sharing a keyword; with similarity and source count.
    """
    return Prepared(
        _gate_candidates(bool(keywords)),
        {"namespace": namespace, "vector": vector_param(vector), "k": k}
        | ({"keywords": list(keywords), "keyword_k": keyword_k} if keywords else {}),
    )
