"""Pure SQL builder of an appended observation: everything ``apply`` writes when the gate
appends (with or without links) in one statement.

The observation, its keywords, the note with its source and keywords, the edges to the
link targets that are still active, and a lineage row per operation are written by one
chain of data-modifying CTEs; when the observation's key already exists nothing is
written and no row comes back. The statement is built once (see
:mod:`~langmemcore.storage.prepared`); the caller takes the namespace lock in a statement
of its own first, so that this one reads what the previous holder of the lock wrote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import BigInteger, DateTime, Float, Text, TextClause, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from langmemcore.storage.models import EmbeddingVector, vector_param
from langmemcore.storage.prepared import Prepared, vector_texts

__all__ = ["append_observation"]

_SQL = """
WITH obs AS (
    INSERT INTO observations (namespace, key, content, content_hash, speaker, event_time,
                              metadata, analysis)
    VALUES (:namespace, :key, :content, :content_hash, :speaker, :event_time, :meta,
            :analysis)
    ON CONFLICT ON CONSTRAINT uq_observations_namespace_key DO NOTHING
    RETURNING id
),
wanted_keywords AS (
    SELECT w.name, w.embedding, w.position
    FROM obs, unnest(:keyword_names, CAST(:keyword_vectors AS vector[]))
        WITH ORDINALITY AS w(name, embedding, position)
),
new_keywords AS (
    INSERT INTO keywords (namespace, name, embedding)
    SELECT :namespace, name, embedding FROM wanted_keywords ORDER BY position
    ON CONFLICT ON CONSTRAINT uq_keywords_namespace_name DO NOTHING
    RETURNING id
),
keyword_ids AS (
    SELECT id FROM new_keywords
    UNION
    SELECT k.id FROM keywords k JOIN wanted_keywords w ON k.name = w.name
    WHERE k.namespace = :namespace
),
note AS (
    INSERT INTO notes (namespace, context, embedding, thread_embedding, keywords, speakers,
                       event_time, valid_from, confidence, origin)
    SELECT :namespace, :context, :embedding, :thread_embedding, :note_keywords, :speakers,
           :note_time, :event_time, :confidence, :origin
    FROM obs
    RETURNING id
),
sources AS (
    INSERT INTO note_sources (namespace, note_id, observation_id)
    SELECT :namespace, note.id, obs.id FROM note, obs
),
note_keywords AS (
    INSERT INTO note_keywords (namespace, note_id, keyword_id)
    SELECT :namespace, note.id, keyword_ids.id FROM note, keyword_ids
    ON CONFLICT DO NOTHING
),
edges AS (
    INSERT INTO edges (namespace, source_id, target_id, relation, strength, tag, reason)
    SELECT :namespace, note.id, l.target, l.relation, l.strength, l.tag, l.reason
    FROM note,
         unnest(:targets, :relations, :strengths, :tags, :reasons)
             WITH ORDINALITY AS l(target, relation, strength, tag, reason, position)
         JOIN notes t ON t.id = l.target
    WHERE t.namespace = :namespace AND t.status = 'active' AND l.target <> note.id
    ORDER BY l.position
    ON CONFLICT ON CONSTRAINT uq_edges_source_target_relation DO UPDATE
    SET strength = edges.strength
    RETURNING id, target_id, relation, strength, tag, reason
),
lineage AS (
    INSERT INTO lineage (namespace, operation, observation_id, note_id, before, after, reason)
    SELECT :namespace, r.operation, obs.id, note.id, 'null'::jsonb, r.after, r.reason
    FROM obs, note, (
        SELECT 0 AS edge_id, 'append' AS operation, CAST(:append_after AS jsonb) AS after,
               CAST(:reason AS text) AS reason
        UNION ALL
        SELECT id, 'link',
               jsonb_build_object('edge_id', id, 'target_id', target_id,
                                  'relation', relation, 'strength', strength, 'tag', tag),
               reason
        FROM edges
    ) AS r
    ORDER BY r.edge_id
    RETURNING id
)
SELECT obs.id AS observation_id,
       note.id AS note_id,
       ARRAY(SELECT id FROM edges ORDER BY id) AS edge_ids,
       ARRAY(SELECT target_id FROM edges ORDER BY id) AS edge_targets,
       ARRAY(SELECT id FROM lineage ORDER BY id) AS lineage_ids
FROM obs, note
"""


@cache
def _append_observation() -> TextClause:
    texts = ARRAY(Text)
    return text(_SQL).bindparams(
        bindparam("namespace", type_=Text),
        bindparam("key", type_=Text),
        bindparam("content", type_=Text),
        bindparam("content_hash", type_=Text),
        bindparam("speaker", type_=Text),
        bindparam("event_time", type_=DateTime(timezone=True)),
        bindparam("meta", type_=JSONB),
        bindparam("analysis", type_=JSONB),
        bindparam("keyword_names", type_=texts),
        bindparam("keyword_vectors", type_=texts),
        bindparam("context", type_=Text),
        bindparam("embedding", type_=EmbeddingVector()),
        bindparam("thread_embedding", type_=EmbeddingVector()),
        bindparam("note_keywords", type_=texts),
        bindparam("speakers", type_=texts),
        bindparam("note_time", type_=DateTime(timezone=True)),
        bindparam("confidence", type_=Float),
        bindparam("origin", type_=Text),
        bindparam("targets", type_=ARRAY(BigInteger)),
        bindparam("relations", type_=texts),
        bindparam("strengths", type_=ARRAY(Float)),
        bindparam("tags", type_=texts),
        bindparam("reasons", type_=texts),
        bindparam("append_after", type_=Text),
        bindparam("reason", type_=Text),
    )


def append_observation(
    namespace: str,
    *,
    observation: dict[str, Any],
    note: dict[str, Any],
    keywords: Sequence[tuple[str, Sequence[float]]],
    links: Sequence[dict[str, Any]],
    reason: str,
) -> Prepared:
    """Store an observation and append its note, in one statement.

    Selects one row (``observation_id``, ``note_id``, ``edge_ids``, ``edge_targets``,
    ``lineage_ids``: edges and lineage rows in creation order) or none when the key
    already exists.

    Args:
        namespace: The namespace (encoded).
        observation: ``key``, ``content``, ``content_hash``, ``speaker``, ``event_time``,
            ``meta``, ``analysis`` (see :mod:`~langmemcore.analysis`).
        note: ``context``, ``embedding``, ``keywords``, ``speakers`` (lower-cased),
            ``event_time``, ``confidence``, ``origin``, and optionally
            ``thread_embedding`` (default: the embedding).
        keywords: The note's keywords with their embeddings (created when missing).
        links: Dicts with ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``
            (at most one per target and relation); an edge is written to each target that
            is an active note of the namespace, upserted as by
            :func:`~langmemcore.storage.notes.lineage_queries.insert_active_edges`.
        reason: The gate's reason, recorded with the append.
    """
    event_time: datetime | None = note["event_time"]
    return Prepared(
        _append_observation(),
        {
            "namespace": namespace,
            **{name: observation[name] for name in ("key", "content", "content_hash")},
            "speaker": observation["speaker"],
            "event_time": observation["event_time"],
            "meta": observation["meta"],
            "analysis": observation["analysis"],
            "keyword_names": [name for name, _v in keywords],
            "keyword_vectors": vector_texts([v for _n, v in keywords]),
            "context": note["context"],
            "embedding": vector_param(note["embedding"]),
            "thread_embedding": vector_param(note.get("thread_embedding") or note["embedding"]),
            "note_keywords": list(note["keywords"]),
            "speakers": list(note["speakers"]),
            "note_time": event_time,
            "confidence": note["confidence"],
            "origin": note["origin"],
            "targets": [link["target_id"] for link in links],
            "relations": [link["relation"] for link in links],
            "strengths": [float(link["strength"]) for link in links],
            "tags": [link["tag"] for link in links],
            "reasons": [link["reason"] for link in links],
            "append_after": json.dumps(
                {"context": note["context"], "keywords": list(note["keywords"])}
            ),
            "reason": reason,
        },
    )
