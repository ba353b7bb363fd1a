"""Pure SQL builders of what feedback on store items reads: the logged search of a query
and the active notes built from the items' observations.

Each returns a :class:`~langmemcore.storage.prepared.Prepared` (built per call, values
bound in place, empty params); :class:`~langmemcore.storage.items.access.ItemAccess`
runs them.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from langmemcore.storage.models import ACTIVE, Note, NoteSource, Observation, QueryLog
from langmemcore.storage.prepared import Prepared

__all__ = ["latest_query_id", "notes_of_observation_keys"]


def latest_query_id(namespace: str, query: str) -> Prepared:
    """Id of the newest logged search of ``query`` in the namespace (to settle feedback
    on the items it returned).
    """
    stmt = (
        select(QueryLog.id)
        .where(QueryLog.namespace == namespace, QueryLog.query == query)
        .order_by(QueryLog.id.desc())
        .limit(1)
    )
    return Prepared(stmt, {})


def notes_of_observation_keys(namespace: str, keys: Sequence[str]) -> Prepared:
    """Ids of the active notes built from the observations with these keys."""
    stmt = (
        select(NoteSource.note_id)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            Observation.key.in_(list(keys)),
            Note.status == ACTIVE,
        )
        .distinct()
        .order_by(NoteSource.note_id)
    )
    return Prepared(stmt, {})
