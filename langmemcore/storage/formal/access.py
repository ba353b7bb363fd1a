"""The formal layer's data access: query log, settlement, confidence, usage and archive.

:class:`FormalAccess` runs the builders of :mod:`~langmemcore.storage.formal.queries`;
``Repository`` inherits it, so the formal layer calls ``repo.log_query(...)`` and the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.formal import queries, query_log
from langmemcore.storage.records import Scored
from langmemcore.storage.search import channels

__all__ = ["FormalAccess", "StoredBelief"]


@dataclass(frozen=True)
class StoredBelief:
    """A note's stored confidence.

    Attributes:
        note_id: The note.
        confidence: Its confidence ``tau``.
        alpha: Beta-posterior ``alpha``, ``None`` until evidence first arrived.
        beta: Beta-posterior ``beta``, ``None`` until evidence first arrived.
    """

    note_id: int
    confidence: float
    alpha: float | None
    beta: float | None


class FormalAccess(SessionBound):
    """Query log, confidence, capacity and archive reads and writes of one transaction."""

    async def log_query(self, namespace: Sequence[str], query: str, returned: Sequence[int]) -> int:
        """Log a search and the notes it returned (rank order); returns the query id.

        The row's transaction commits without waiting for the WAL flush (see
        :func:`~langmemcore.storage.formal.queries.insert_query`): call it on a repository
        opened with ``autocommit=True``, so that no other write shares that transaction.
        """
        prepared = queries.insert_query(encode_namespace(namespace), query, returned)
        return int(await self._scalar(prepared))

    async def log_queries(
        self,
        namespaces: Sequence[Sequence[str]],
        query: str,
        returned: Sequence[tuple[Sequence[str], int]],
    ) -> None:
        """Log a search that ran in several ``namespaces`` at once, a row in each with its
        own notes of ``returned`` (``(namespace, note id)``, rank order), in one statement
        that commits as :meth:`log_query` does (call it on a repository opened with
        ``autocommit=True``).
        """
        found = [(encode_namespace(ns), note_id) for ns, note_id in returned]
        encoded = [encode_namespace(ns) for ns in namespaces]
        await self._run(query_log.insert_queries(encoded, query, found))

    async def latest_query_id(self, namespace: Sequence[str], query: str) -> int | None:
        """Id of the newest logged search of ``query`` in the namespace, if any."""
        found = await self._scalar(queries.latest_query_id(encode_namespace(namespace), query))
        return None if found is None else int(found)

    async def lock_logged_query(self, namespace: Sequence[str], query_id: int) -> list[int] | None:
        """Lock a logged query for settlement; returns the notes already recorded as used
        by its answer, or ``None`` when the query is not logged in the namespace.
        """
        prepared = queries.query_for_update(encode_namespace(namespace), query_id)
        used = (await self._scalars(prepared)).one_or_none()
        return None if used is None else [int(i) for i in used]

    async def settle_logged_query(
        self, namespace: Sequence[str], query_id: int, used: Sequence[int], outcome: float
    ) -> None:
        """Record the notes an answer used and its outcome on a logged query."""
        await self._run(queries.settle_query(encode_namespace(namespace), query_id, used, outcome))

    async def recent_queries(
        self, namespace: Sequence[str], limit: int
    ) -> list[tuple[int, list[int], list[int]]]:
        """(id, returned, used) of the newest ``limit`` logged queries, newest first."""
        rows = await self._rows(queries.recent_queries(encode_namespace(namespace), limit))
        return [(int(i), list(r), list(u)) for i, r, u in rows]

    async def lock_beliefs(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> list[StoredBelief]:
        """Stored confidence of the notes among ``note_ids`` (any status), locked for update."""
        prepared = queries.note_beliefs(encode_namespace(namespace), note_ids, lock=True)
        return [StoredBelief(int(i), c, a, b) for i, c, a, b, _s in await self._rows(prepared)]

    async def store_beliefs(
        self, namespace: Sequence[str], beliefs: Sequence[tuple[int, float, float, float]]
    ) -> None:
        """Write (note id, ``alpha``, ``beta``, confidence) of each note."""
        if beliefs:
            await self._run(queries.update_beliefs(encode_namespace(namespace), beliefs))

    async def confident_note_ids(
        self, namespace: Sequence[str], note_ids: Sequence[int], floor: float
    ) -> set[int]:
        """The notes among ``note_ids`` whose confidence is at least ``floor``."""
        prepared = queries.confident_notes(encode_namespace(namespace), note_ids, floor)
        return {int(i) for i in await self._scalars(prepared)}

    async def present_note_ids(self, namespace: Sequence[str], note_ids: Sequence[int]) -> set[int]:
        """The notes among ``note_ids`` that exist in the namespace (any status)."""
        prepared = queries.note_beliefs(encode_namespace(namespace), note_ids)
        return {int(row[0]) for row in await self._rows(prepared)}

    async def active_notes_of_observation_keys(
        self, namespace: Sequence[str], keys: Sequence[str]
    ) -> list[int]:
        """Ids of the active notes built from the observations with these keys, ascending."""
        prepared = queries.notes_of_observation_keys(encode_namespace(namespace), keys)
        return [int(i) for i in await self._scalars(prepared)]

    async def edge_relations(
        self, namespace: Sequence[str], edge_ids: Sequence[int]
    ) -> list[tuple[int, int, str, float]]:
        """(source, target, relation, strength) of the edges ``edge_ids``."""
        rows = await self._rows(queries.edges_by_ids(encode_namespace(namespace), edge_ids))
        return [(int(s), int(t), r, float(w)) for s, t, r, w in rows]

    async def active_usage(self, namespace: Sequence[str]) -> tuple[int, int]:
        """(notes, estimated tokens) of the namespace's active notes."""
        notes, tokens = (await self._rows(queries.active_usage(encode_namespace(namespace)))).one()
        return int(notes), int(tokens)

    async def active_note_facts(
        self, namespace: Sequence[str]
    ) -> list[tuple[int, tuple[str, ...], int, float]]:
        """(id, keywords, estimated tokens, confidence) of every active note, oldest first."""
        rows = await self._rows(queries.active_note_facts(encode_namespace(namespace)))
        return [(int(i), tuple(kw), int(t), float(c)) for i, kw, t, c in rows]

    async def edges_among_active(self, namespace: Sequence[str]) -> list[tuple[int, int, float]]:
        """(source, target, strength) of the edges whose notes are both active."""
        rows = await self._rows(queries.edges_among_active(encode_namespace(namespace)))
        return [(int(s), int(t), float(w)) for s, t, w in rows]

    async def current_topic_keywords(self, namespace: Sequence[str]) -> list[str]:
        """Names of the keywords in a topic of the newest generation."""
        return list(
            await self._scalars(queries.current_topic_keywords(encode_namespace(namespace)))
        )

    async def archive_notes(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Archive the active notes among ``note_ids``; returns the ids archived, ascending."""
        prepared = queries.archive_notes(encode_namespace(namespace), note_ids)
        return sorted(int(i) for i in await self._scalars(prepared))

    async def restore_notes(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Bring the archived notes among ``note_ids`` back; returns their ids, ascending."""
        prepared = queries.restore_notes(encode_namespace(namespace), note_ids)
        return sorted(int(i) for i in await self._scalars(prepared))

    async def nearest_archived_notes(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[Scored]:
        """Archived notes by cosine similarity to ``vector``, best first."""
        prepared = channels.nearest_notes(
            encode_namespace(namespace), vector, k, statuses=(queries.ARCHIVED,)
        )
        return [Scored(int(i), 1.0 - d) for i, d in await self._rows(prepared)]
