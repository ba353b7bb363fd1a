"""``MemorySearchItem``: a store search result with the evidence that ranked it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from langgraph.store.base import SearchItem

from langmemcore.retrieval.pack import RetrievedNote, SourceRef

__all__ = ["MemorySearchItem"]


class MemorySearchItem(SearchItem):
    """A LangGraph ``SearchItem`` that also carries the notes that ranked it.

    ``value`` is exactly what was put (what ``get`` returns); the evidence is kept apart
    from it, and ``dict()`` is LangGraph's (no evidence), so results serialise as any
    store's.

    Args:
        namespace: The item's namespace.
        key: Its key.
        value: Its value, exactly as put.
        created_at: When it was first put.
        updated_at: When it was last put.
        score: Its best note's retrieval score (``None`` for a search without query).
        notes: The retrieved notes whose sources hold the item's observation.

    Attributes:
        notes: The retrieved notes whose sources hold the item's observation, best first
            (empty for a search without query). A note may hold other observations too:
            a merged note's sources are all of them.
    """

    __slots__ = ("notes",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        score: float | None = None,
        notes: Iterable[RetrievedNote] = (),
    ) -> None:
        super().__init__(namespace, key, value, created_at, updated_at, score=score)
        self.notes: tuple[RetrievedNote, ...] = tuple(notes)

    @property
    def sources(self) -> tuple[SourceRef, ...]:
        """The source observations of :attr:`notes`, each once, note by note in the notes'
        order (within a note most query-relevant first, as
        :attr:`RetrievedNote.sources <langmemcore.retrieval.pack.RetrievedNote.sources>`).
        """
        seen: dict[str, SourceRef] = {}
        for note in self.notes:
            for source in note.sources:
                seen.setdefault(source.key, source)
        return tuple(seen.values())
