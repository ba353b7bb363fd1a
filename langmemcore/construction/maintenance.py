"""Revisions of what construction wrote, as one layer of :class:`~langmemcore.Memory`:
undo a lineage row, split a merged note, forget an observation, re-thread notes.
"""

from __future__ import annotations

from collections.abc import Sequence

from langmemcore._namespace import validate_namespace
from langmemcore._progress import ProgressLike
from langmemcore._validate import check_count, check_key
from langmemcore.construction.graph import ConstructionContext
from langmemcore.construction.repair import RepairReport, forget_key
from langmemcore.construction.rethread import RethreadReport, rethread_namespace
from langmemcore.construction.undo import undo_lineage, unmerge_note
from langmemcore.storage.repository import Repository

__all__ = ["Maintenance"]


class Maintenance:
    """Undo, unmerge, forget and re-thread, with the construction graph's dependencies.

    Args:
        context: The construction context (database, embedder, settings).
    """

    def __init__(self, context: ConstructionContext) -> None:
        self._context = context

    async def undo(self, namespace: Sequence[str], lineage_id: int) -> int:
        """Undo one lineage row (see :func:`~langmemcore.construction.undo.undo_lineage`)."""
        ns = validate_namespace(namespace)
        check_count(lineage_id, "lineage_id", minimum=1)
        strength = self._context.config.link_threshold
        async with Repository.open(self._context.database) as repo:
            return await undo_lineage(repo, ns, lineage_id, conflict_strength=strength)

    async def unmerge(self, namespace: Sequence[str], note_id: int) -> list[int]:
        """Split a merged note back into the notes it was built from."""
        ns = validate_namespace(namespace)
        check_count(note_id, "note_id", minimum=1)
        strength = self._context.config.link_threshold
        async with Repository.open(self._context.database) as repo:
            return await unmerge_note(repo, ns, note_id, conflict_strength=strength)

    async def forget(self, namespace: Sequence[str], key: str) -> RepairReport | None:
        """Forget the observation stored under ``key`` and repair the notes built from it
        (see :mod:`langmemcore.construction.repair`); ``None`` when no observation has it.
        """
        ns = validate_namespace(namespace)
        async with Repository.open(self._context.database) as repo:
            return await forget_key(repo, ns, check_key(key), self._context)

    async def rethread(
        self, namespace: Sequence[str], *, batch_size: int = 64, progress: ProgressLike = None
    ) -> RethreadReport:
        """Give the notes whose thread vector is still their own embedding the one an
        ingest gives today (see :mod:`langmemcore.construction.rethread`).
        """
        ns = validate_namespace(namespace)
        check_count(batch_size, "batch_size", minimum=1)
        ctx = self._context
        return await rethread_namespace(
            ctx.database, ctx.embeddings, ns, ctx.config, batch_size=batch_size, progress=progress
        )
