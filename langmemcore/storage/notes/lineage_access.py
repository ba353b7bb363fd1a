"""Data access to edges and the lineage log (see
:mod:`~langmemcore.storage.notes.lineage_queries`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.models import Edge, Lineage
from langmemcore.storage.notes import lineage_queries as lq

__all__ = ["LineageAccess"]


class LineageAccess(SessionBound):
    """Edges between notes and the lineage log of a namespace, within one transaction."""

    async def add_edges(
        self, namespace: Sequence[str], source_id: int, links: Sequence[dict[str, Any]]
    ) -> list[tuple[int, int]]:
        """Upsert edges from ``source_id`` to each link's ``target_id`` that is still an
        active note; returns (edge id, target id) of the edges written, by edge id (an
        edge that existed already keeps its id, see
        :func:`~langmemcore.storage.notes.lineage_queries.insert_active_edges`).

        Each link dict carries ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``.
        """
        if not links:
            return []
        prepared = lq.insert_active_edges(encode_namespace(namespace), source_id, links)
        return [(int(i), int(t)) for i, t in await self._rows(prepared)]

    async def edges_of(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[Edge]:
        """Edges touching any of ``note_ids``, strongest first."""
        if not note_ids:
            return []
        return list(await self._scalars(lq.edges_of_notes(encode_namespace(namespace), note_ids)))

    async def remove_link_edge(self, namespace: Sequence[str], lineage_id: int) -> list[int]:
        """Delete the edge of the in-force link row ``lineage_id`` unless another in-force
        link row refers to it; returns the ids deleted.
        """
        prepared = lq.delete_link_edges(encode_namespace(namespace), lineage_id=lineage_id)
        return list(await self._scalars(prepared))

    async def remove_link_edges_of_observation(
        self, namespace: Sequence[str], observation_id: int
    ) -> list[int]:
        """Delete the edges of the observation's in-force link rows that no other in-force
        link row refers to; returns their ids.
        """
        ns = encode_namespace(namespace)
        return list(await self._scalars(lq.delete_link_edges(ns, observation_id=observation_id)))

    async def append_lineage(
        self,
        namespace: Sequence[str],
        operation: str,
        *,
        observation_id: int | None = None,
        note_id: int | None = None,
        before: dict[str, Any] | None = None,
        after: dict[str, Any] | None = None,
        reason: str | None = None,
    ) -> int:
        """Append one lineage row; returns its id."""
        row = {
            "operation": operation,
            "observation_id": observation_id,
            "note_id": note_id,
            "before": before,
            "after": after,
            "reason": reason,
        }
        return (await self.append_lineages(namespace, [row]))[0]

    async def append_lineages(
        self, namespace: Sequence[str], rows: Sequence[dict[str, Any]]
    ) -> list[int]:
        """Append several lineage rows in one statement; returns their ids in order.

        Each dict carries ``operation`` and optionally ``observation_id``, ``note_id``,
        ``before``, ``after``, ``reason``.
        """
        if not rows:
            return []
        ids = await self._scalars(lq.insert_lineages(encode_namespace(namespace), rows))
        return sorted(int(i) for i in ids)

    async def lineage(self, namespace: Sequence[str], lineage_id: int) -> Lineage | None:
        """The lineage row ``lineage_id``, or ``None`` when the namespace has none."""
        return await self._scalar(lq.lineage_row(encode_namespace(namespace), lineage_id))

    async def lineage_after(
        self, namespace: Sequence[str], lineage_id: int
    ) -> dict[str, Any] | None:
        """The ``after`` state recorded by the lineage row ``lineage_id``."""
        return await self._scalar(lq.lineage_after(encode_namespace(namespace), lineage_id))

    async def later_merge_in_force(
        self, namespace: Sequence[str], note_id: int | None, lineage_id: int
    ) -> int | None:
        """The id of an in-force merge into the note newer than ``lineage_id``, if any."""
        return await self._scalar(lq.later_merge(encode_namespace(namespace), note_id, lineage_id))

    async def merges_in_force(self, namespace: Sequence[str], note_id: int) -> list[Lineage]:
        """The in-force merge rows into the note, newest first."""
        return list(await self._scalars(lq.merges_in_force(encode_namespace(namespace), note_id)))

    async def links_in_force(
        self, namespace: Sequence[str], note_id: int, observation_id: int | None
    ) -> list[Lineage]:
        """The in-force link rows the note got with the observation, newest first."""
        prepared = lq.links_in_force(encode_namespace(namespace), note_id, observation_id)
        return list(await self._scalars(prepared))

    async def mark_undone(self, namespace: Sequence[str], lineage_id: int) -> None:
        """Mark the lineage row ``lineage_id`` undone now."""
        await self._run(lq.mark_undone(encode_namespace(namespace), lineage_id))

    async def retire_merges_of_note(self, namespace: Sequence[str], note_id: int) -> None:
        """Mark undone every in-force merge into the note (a repair superseded them)."""
        await self._run(lq.retire_merges_of_note(encode_namespace(namespace), note_id))

    async def retire_forgotten_lineage(
        self,
        namespace: Sequence[str],
        observation_id: int,
        note_ids: Sequence[int],
        edge_ids: Sequence[int],
    ) -> None:
        """Mark undone every in-force lineage row of the forgotten observation, of one of
        the deleted notes, or whose link names one of the removed edges.
        """
        ns = encode_namespace(namespace)
        await self._run(lq.retire_lineage(ns, observation_id, note_ids, edge_ids))
