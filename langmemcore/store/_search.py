"""Store searches by query: the items of the store's view ranked by their notes.

Each namespace under the prefix that holds indexed items (store items, or observations
``Memory`` wrote itself) is searched through the retrieval graph (the texts it embeds are
embedded once, see :class:`~langmemcore.retrieval.query_vectors.QueryVectorCache`); each
note's score goes to the items among its sources. ``limit`` counts items: a namespace is
searched again with twice the notes while its notes name fewer matching items than
``offset + limit`` and more notes could come (a note may hold several items' observations,
an item may have several notes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph.store.base import SearchItem, SearchOp

from langmemcore._namespace import decode_namespace
from langmemcore._validate import LIMITS
from langmemcore.memory import Memory
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.items import ItemRef
from langmemcore.storage.models import Item as ItemRow
from langmemcore.storage.repository import Repository
from langmemcore.store._index import item_key_of
from langmemcore.store._ops import to_item

__all__ = ["search_by_query"]


@dataclass
class _Ranked:
    """An item found by a search: its row and the notes that name it, best first."""

    row: ItemRow
    notes: list[RetrievedNote] = field(default_factory=list)

    @property
    def score(self) -> float:
        return max(note.score for note in self.notes)


def _evidence(notes: Sequence[RetrievedNote]) -> dict[str, list[RetrievedNote]]:
    """Key in the store's view -> the notes whose sources hold it, in rank order (an
    observation of a store item by the item's key, one ``Memory`` wrote by its own).
    """
    found: dict[str, list[RetrievedNote]] = {}
    for note in notes:
        for source in note.sources:
            key = item_key_of(source.key) or source.key
            named = found.setdefault(key, [])
            if not named or named[-1] is not note:
                named.append(note)
    return found


async def _rank_namespace(
    memory: Memory,
    ns: tuple[str, ...],
    query: str,
    filter: Mapping[str, Any] | None,
    *,
    wanted: int,
    omit_expired: bool,
    as_of: datetime | None,
) -> list[_Ranked]:
    """The indexed items of ``ns`` that pass ``filter`` named by the notes found for
    ``query`` (memory as it stood at ``as_of``, if given): at least ``wanted`` of them
    when that many can be found.
    """
    k = min(LIMITS.k, max(memory.retrieval.k_final, 3 * wanted))
    while True:
        notes = await memory.asearch(ns, query, k=k, as_of=as_of)
        evidence = _evidence(notes)
        async with Repository.open(memory.database) as repo:
            rows = await repo.items_by_ref(
                [(ns, key) for key in evidence], filter, omit_expired=omit_expired, view=True
            )
        ranked = [_Ranked(r, evidence[r.key]) for r in rows if r.index_text is not None]
        if len(ranked) >= wanted or len(notes) < k or k >= LIMITS.k:
            return ranked
        k = min(LIMITS.k, 2 * k)


async def search_by_query(
    memory: Memory, op: SearchOp, *, omit_expired: bool, as_of: datetime | None = None
) -> list[SearchItem]:
    """Rank the indexed items under the prefix by their best note's retrieval score
    (ties: most recently updated first), ``op.limit`` items from ``op.offset``; with
    ``as_of``, by memory as it stood then.

    Items without notes are not returned (like ``PostgresStore`` with items stored
    ``index=False``). Each result is a
    :class:`~langmemcore.store._item.MemorySearchItem` carrying the notes that named it.
    """
    assert op.query is not None
    if op.limit == 0:
        return []
    async with Repository.open(memory.database) as repo:
        namespaces = await repo.namespaces_with_indexed_items(
            tuple(op.namespace_prefix), omit_expired=omit_expired
        )
    wanted = op.offset + op.limit
    ranked: list[_Ranked] = []
    for ns in namespaces:
        ranked.extend(
            await _rank_namespace(
                memory,
                ns,
                op.query,
                op.filter,
                wanted=wanted,
                omit_expired=omit_expired,
                as_of=as_of,
            )
        )
    ranked.sort(key=lambda r: (-r.score, -r.row.updated_at.timestamp(), r.row.namespace, r.row.key))
    page = ranked[op.offset : op.offset + op.limit]
    if op.refresh_ttl and page:
        refs: list[ItemRef] = [(decode_namespace(r.row.namespace), r.row.key) for r in page]
        async with Repository.open(memory.database) as repo:
            await repo.refresh_item_ttl(refs)
    return [
        to_item(r.row, r.score, search=True, notes=r.notes)  # type: ignore[misc]
        for r in page
    ]
