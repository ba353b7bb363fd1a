"""Store searches by query: the items of the store's view ranked by their notes.

The namespaces under the prefix that hold indexed items (store items, or observations
``Memory`` wrote itself) are searched for notes; each note's score goes to the items among
its sources. When the prefix covers one such namespace it is searched through the
retrieval graph; when it covers several, their notes are ranked together in one pass by
the dense vector and full-text channels, fused by reciprocal rank fusion (the query is
embedded once, see :class:`~langmemcore.retrieval.query_vectors.QueryVectorCache`).
``limit`` counts items: the search runs again with twice the notes while its notes name
fewer matching items than ``offset + limit`` and more notes could come (a note may hold
several items' observations, an item may have several notes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph.store.base import SearchItem, SearchOp

from langmemcore._namespace import Namespace, decode_namespace
from langmemcore._validate import LIMITS
from langmemcore.memory import Memory
from langmemcore.retrieval.fusion import ChannelRanking, fuse
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.items import ItemRef
from langmemcore.storage.models import Item as ItemRow
from langmemcore.storage.repository import Repository
from langmemcore.store._index import item_key_of
from langmemcore.store._ops import to_item
from langmemcore.text import content_terms

__all__ = ["search_by_query"]


@dataclass
class _Ranked:
    """An item found by a search: its row and the notes that name it, best first."""

    row: ItemRow
    notes: list[RetrievedNote] = field(default_factory=list)

    @property
    def score(self) -> float:
        return max(note.score for note in self.notes)


def _evidence(
    found: Sequence[tuple[Namespace, RetrievedNote]],
) -> dict[ItemRef, list[RetrievedNote]]:
    """Address in the store's view -> the notes (each with its namespace) whose sources
    hold it, in rank order (an observation of a store item by the item's key, one
    ``Memory`` wrote by its own).
    """
    named: dict[ItemRef, list[RetrievedNote]] = {}
    for ns, note in found:
        for source in note.sources:
            notes = named.setdefault((ns, item_key_of(source.key) or source.key), [])
            if not notes or notes[-1] is not note:
                notes.append(note)
    return named


async def _ranked_items(
    repo: Repository,
    found: Sequence[tuple[Namespace, RetrievedNote]],
    filter: Mapping[str, Any] | None,
    *,
    omit_expired: bool,
) -> list[_Ranked]:
    """The indexed items that pass ``filter`` named by the ``found`` notes."""
    evidence = _evidence(found)
    rows = await repo.items_by_ref(list(evidence), filter, omit_expired=omit_expired, view=True)
    return [
        _Ranked(r, evidence[(decode_namespace(r.namespace), r.key)])
        for r in rows
        if r.index_text is not None
    ]


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
        async with Repository.open(memory.database) as repo:
            found = [(ns, note) for note in notes]
            ranked = await _ranked_items(repo, found, filter, omit_expired=omit_expired)
        if len(ranked) >= wanted or len(notes) < k or k >= LIMITS.k:
            return ranked
        k = min(LIMITS.k, 2 * k)


async def _rank_across(
    memory: Memory,
    namespaces: Sequence[Namespace],
    query: str,
    filter: Mapping[str, Any] | None,
    *,
    wanted: int,
    omit_expired: bool,
) -> list[_Ranked]:
    """The indexed items of ``namespaces`` that pass ``filter`` named by the best notes
    the vector and full-text channels rank for ``query`` over all of them at once, fused
    by reciprocal rank fusion with the memory's channel weights: at least ``wanted`` of
    them when that many can be found.

    The search is logged in each namespace with its own notes among those returned
    (unless the memory's query log is off), so that feedback on the items finds it.
    """
    config = memory.retrieval
    vector = await memory.query_vectors.aembed_query(query)
    query_terms = set(content_terms(query))
    k = min(LIMITS.k, max(config.k_final, 3 * wanted))
    while True:
        depth = max(config.depth, k)
        async with Repository.open(memory.database) as repo:
            rankings = await repo.rankings_across(
                namespaces, vector, query, depth, threaded=config.thread_vectors
            )
            fused = fuse(
                [ChannelRanking(c, tuple(ids), config.weight(c)) for c, ids in rankings.items()],
                config.rrf_k,
            )
            best = fused[:k]
            notes = await repo.note_evidence_across(namespaces, [f.note_id for f in best])
            found = [
                (notes[f.note_id][0], RetrievedNote.of(f, notes[f.note_id][1], query_terms))
                for f in best
                if f.note_id in notes
            ]
            ranked = await _ranked_items(repo, found, filter, omit_expired=omit_expired)
        exhausted = len(fused) <= k and all(len(ids) < depth for ids in rankings.values())
        if len(ranked) >= wanted or exhausted or k >= LIMITS.k:
            break
        k = min(LIMITS.k, 2 * k)
    if memory.formal.log_queries:
        async with Repository.open(memory.database, autocommit=True) as repo:
            returned = [(ns, note.note_id) for ns, note in found]
            await repo.log_queries(namespaces, query, returned)
    return ranked


async def search_by_query(
    memory: Memory, op: SearchOp, *, omit_expired: bool, as_of: datetime | None = None
) -> list[SearchItem]:
    """Rank the indexed items under the prefix by their best note's retrieval score
    (ties: most recently updated first), ``op.limit`` items from ``op.offset``; with
    ``as_of``, by memory as it stood then.

    A prefix covering one namespace with indexed items is searched through the retrieval
    graph (every channel: topics, keywords, neighbours, the refinement loop, ordering by
    validity). A prefix covering several is ranked in one pass over all their notes by
    the dense vector and full-text channels alone, fused by reciprocal rank fusion, so
    that scores compare across namespaces and the cost hardly grows with their number.

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
    if not namespaces:
        return []
    wanted = op.offset + op.limit
    if len(namespaces) == 1 or as_of is not None:
        ranked = []
        for ns in namespaces:
            ranked += await _rank_namespace(
                memory,
                ns,
                op.query,
                op.filter,
                wanted=wanted,
                omit_expired=omit_expired,
                as_of=as_of,
            )
    else:
        ranked = await _rank_across(
            memory, namespaces, op.query, op.filter, wanted=wanted, omit_expired=omit_expired
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
