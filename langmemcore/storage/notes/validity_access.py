"""Data access to validity (see :mod:`~langmemcore.storage.notes.validity_queries`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.notes import validity_queries as vq

__all__ = ["ValidityAccess"]


class ValidityAccess(SessionBound):
    """When what the notes of a namespace say became valid and stopped, within one
    transaction.
    """

    async def statements_about(
        self,
        namespace: Sequence[str],
        speaker: str,
        *,
        stems: Sequence[str],
        before: datetime,
        limit: int,
    ) -> list[int]:
        """The active notes, latest first, with a source ``speaker`` said before ``before``
        whose stored analysis has one of ``stems``; at most ``limit``.
        """
        if not stems:
            return []
        ns = encode_namespace(namespace)
        prepared = vq.statements_about(ns, speaker, stems, before, limit)
        return [int(i) for i in await self._scalars(prepared)]

    async def changes_after(
        self,
        namespace: Sequence[str],
        speaker: str,
        *,
        stems: Sequence[str],
        after: datetime,
        limit: int,
    ) -> list[int]:
        """The active notes, earliest first, with a source ``speaker`` said after ``after``
        whose stored analysis announces a change naming one of ``stems``; at most
        ``limit``.
        """
        if not stems:
            return []
        prepared = vq.changes_after(encode_namespace(namespace), speaker, stems, after, limit)
        return [int(i) for i in await self._scalars(prepared)]

    async def refresh_validity(
        self, namespace: Sequence[str], note_ids: Sequence[int], *, ended: bool = False
    ) -> None:
        """Derive again ``valid_from`` of ``note_ids`` and ``valid_to`` of them, of the notes
        they supersede and, with ``ended``, of every note of the namespace that has one
        (after undo, unmerge or forget removed sources or edges).
        """
        ns = encode_namespace(namespace)
        if note_ids:
            await self._run(vq.refresh_valid_from(ns, note_ids))
        await self._run(vq.refresh_valid_to(ns, note_ids, ended=ended))
