"""Pure SQL builders of validity: when what a note says became valid and when it stopped.

A note's ``valid_from`` is the latest event time of its sources (when what it says was
last said); its ``valid_to`` is the earliest ``valid_from`` of the notes that supersede it
(``supersedes`` edges to it, see :mod:`~langmemcore.construction.validity`), ``NULL``
while none does. Both are derived from the notes' sources and edges, so that whatever
removes a source or an edge (undo, unmerge, forget) restores them by refreshing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache

from sqlalchemy import BigInteger, DateTime, Integer, Text, TextClause, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY

from langmemcore.storage.models import SUPERSEDES
from langmemcore.storage.prepared import Prepared

__all__ = ["changes_after", "refresh_valid_from", "refresh_valid_to", "statements_about"]

_STATEMENTS_ABOUT = """
SELECT s.note_id
FROM observations o
JOIN note_sources s ON s.namespace = o.namespace AND s.observation_id = o.id
JOIN notes n ON n.namespace = s.namespace AND n.id = s.note_id AND n.status = 'active'
WHERE o.namespace = :namespace AND lower(o.speaker) = :speaker AND o.event_time < :before
  AND (o.analysis -> 'stems') ?| :stems
GROUP BY s.note_id
ORDER BY max(o.event_time) DESC, s.note_id DESC
LIMIT :limit
"""

_CHANGES_AFTER = """
SELECT s.note_id
FROM observations o
JOIN note_sources s ON s.namespace = o.namespace AND s.observation_id = o.id
JOIN notes n ON n.namespace = s.namespace AND n.id = s.note_id AND n.status = 'active'
WHERE o.namespace = :namespace AND lower(o.speaker) = :speaker AND o.event_time > :after
  AND (o.analysis -> 'change_stems') ?| :stems
GROUP BY s.note_id
ORDER BY min(o.event_time), s.note_id
LIMIT :limit
"""

_VALID_FROM = """
UPDATE notes n SET valid_from = said.at
FROM (
    SELECT s.note_id, max(o.event_time) AS at
    FROM note_sources s
    JOIN observations o ON o.namespace = s.namespace AND o.id = s.observation_id
    WHERE s.namespace = :namespace AND s.note_id = ANY(:ids)
    GROUP BY s.note_id
) said
WHERE n.namespace = :namespace AND n.id = said.note_id
  AND n.valid_from IS DISTINCT FROM said.at
"""

_VALID_TO = f"""
WITH targets AS (
    SELECT unnest(:ids) AS id
    UNION
    SELECT e.target_id FROM edges e
    WHERE e.namespace = :namespace AND e.source_id = ANY(:ids) AND e.relation = '{SUPERSEDES}'
    UNION
    SELECT t.id FROM notes t
    WHERE :ended AND t.namespace = :namespace AND t.valid_to IS NOT NULL
), ended AS (
    SELECT targets.id,
           (SELECT min(newer.valid_from)
            FROM edges e
            JOIN notes newer ON newer.namespace = e.namespace AND newer.id = e.source_id
            WHERE e.namespace = :namespace AND e.target_id = targets.id
              AND e.relation = '{SUPERSEDES}') AS at
    FROM targets
)
UPDATE notes n SET valid_to = ended.at
FROM ended
WHERE n.namespace = :namespace AND n.id = ended.id AND n.valid_to IS DISTINCT FROM ended.at
"""


@cache
def _statement(sql: str) -> TextClause:
    return text(sql).bindparams(
        bindparam("namespace", type_=Text),
        bindparam("ids", type_=ARRAY(BigInteger)),
    )


@cache
def _speaker_statement(sql: str, side: str) -> TextClause:
    return text(sql).bindparams(
        bindparam("namespace", type_=Text),
        bindparam("speaker", type_=Text),
        bindparam(side, type_=DateTime(timezone=True)),
        bindparam("stems", type_=ARRAY(Text)),
        bindparam("limit", type_=Integer),
    )


def _of_speaker(
    sql: str,
    side: str,
    namespace: str,
    speaker: str,
    stems: Sequence[str],
    at: datetime,
    limit: int,
) -> Prepared:
    """One of the queries of a speaker's statements, with ``at`` bound as ``side``."""
    params = {"namespace": namespace, "speaker": speaker.lower(), "stems": list(stems)}
    return Prepared(_speaker_statement(sql, side), {**params, side: at, "limit": limit})


def statements_about(
    namespace: str,
    speaker: str,
    stems: Sequence[str],
    before: datetime,
    limit: int,
) -> Prepared:
    """The active notes (ids, latest first) with a source said by ``speaker`` (any case)
    before ``before`` whose stored analysis has one of ``stems``; at most ``limit``.
    """
    return _of_speaker(_STATEMENTS_ABOUT, "before", namespace, speaker, stems, before, limit)


def changes_after(
    namespace: str,
    speaker: str,
    stems: Sequence[str],
    after: datetime,
    limit: int,
) -> Prepared:
    """The active notes (ids, earliest first) with a source said by ``speaker`` (any case)
    after ``after`` whose stored analysis announces a change naming one of ``stems``; at
    most ``limit``.
    """
    return _of_speaker(_CHANGES_AFTER, "after", namespace, speaker, stems, after, limit)


def refresh_valid_from(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Set the notes' ``valid_from`` to the latest event time of their sources."""
    return Prepared(_statement(_VALID_FROM), {"namespace": namespace, "ids": list(note_ids)})


def refresh_valid_to(namespace: str, note_ids: Sequence[int], *, ended: bool = False) -> Prepared:
    """Set ``valid_to`` of the notes, of those they supersede and, with ``ended``, of every
    note of the namespace that has one, to the earliest ``valid_from`` of the notes
    superseding each (``NULL`` when none does).
    """
    params = {"namespace": namespace, "ids": list(note_ids), "ended": ended}
    return Prepared(_statement(_VALID_TO), params)
