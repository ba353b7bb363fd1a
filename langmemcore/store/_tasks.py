"""Memory maintenance for store items, and ranking items by their notes.

An ``item_tasks`` row says "bring this item's observation in line with the item". A
worker claims the row (``FOR UPDATE SKIP LOCKED``, so two stores never work on one item
at once), forgets a stale observation (repairing its notes), ingests the item's current
text through the construction graph, and clears the row unless it was re-queued since.
Rows survive a crash: any store opened on the database resumes them.
"""

from __future__ import annotations

import logging
import math

from langgraph.store.base import SearchItem, SearchOp

from langmemcore._namespace import decode_namespace
from langmemcore._validate import LIMITS
from langmemcore.memory import Memory
from langmemcore.storage.items import ItemRef
from langmemcore.storage.repository import Repository
from langmemcore.store._index import IndexSpec, item_key_of, observation_key
from langmemcore.store._ops import stored_attribution, to_item

__all__ = ["process_task", "reconcile_item", "search_by_query"]

_log = logging.getLogger("langmemcore.store")


async def reconcile_item(
    memory: Memory, spec: IndexSpec, namespace: tuple[str, ...], key: str
) -> str:
    """Make the item's observation match its indexed text, speaker and event time (the
    time read from its value, else the put's time).

    Returns:
        ``"ingested"``, ``"forgotten"``, ``"replaced"`` or ``"unchanged"``.
    """
    obs_key = observation_key(key)
    async with Repository.open(memory.database) as repo:
        found = await repo.items_by_key(namespace, [key], omit_expired=False)
        observation = await repo.observation(namespace, obs_key)
    row = found[0] if found else None
    text = None if row is None else row.index_text
    wanted = None
    if row is not None and text is not None:
        attribution = stored_attribution(row, spec)
        wanted = (text, attribution.speaker, attribution.event_time or row.updated_at)
    stored = None
    if observation is not None:
        stored = (observation.content, observation.speaker, observation.event_time)
    if stored == wanted:
        return "unchanged"
    if stored is not None:
        await memory.aforget(namespace, obs_key)
    if wanted is None:
        return "forgotten"
    await memory.aingest(
        namespace,
        wanted[0],
        key=obs_key,
        speaker=wanted[1],
        event_time=wanted[2],
        metadata={"item_key": key},
    )
    return "ingested" if stored is None else "replaced"


async def process_task(memory: Memory, spec: IndexSpec, pair: ItemRef | None = None) -> bool:
    """Claim one queued item (the oldest, or ``pair``), reconcile it under the store's
    index settings ``spec`` and clear its task.

    Returns:
        ``True`` if a task was claimed and done, ``False`` if none was available.
    """
    async with Repository.open(memory.database) as claim:
        task = await claim.claim_item_task(pair)
        if task is None:
            return False
        (namespace, key), version = task
        await reconcile_item(memory, spec, namespace, key)
        await claim.finish_item_task((namespace, key), version)
    return True


async def search_by_query(memory: Memory, op: SearchOp, *, omit_expired: bool) -> list[SearchItem]:
    """Rank the indexed items under the prefix by their best note's retrieval score.

    The retrieval graph runs in every namespace under the prefix that holds indexed items;
    each note's score goes to the items among its sources. Items without notes are not
    returned (like ``PostgresStore`` with items stored ``index=False``). Each namespace
    gives at most ``Limits.k`` notes, however large ``limit + offset``.
    """
    assert op.query is not None
    async with Repository.open(memory.database) as repo:
        namespaces = await repo.namespaces_with_indexed_items(
            tuple(op.namespace_prefix), omit_expired=omit_expired
        )
    wanted = op.offset + op.limit
    k = min(LIMITS.k, max(memory.retrieval.k_final, 3 * wanted))
    scores: dict[ItemRef, float] = {}
    for ns in namespaces:
        for note in await memory.asearch(ns, op.query, k=k):
            for source in note.sources:
                item_key = item_key_of(source.key)
                if item_key is not None:
                    pair = (ns, item_key)
                    scores[pair] = max(scores.get(pair, -math.inf), note.score)
    if not scores or op.limit == 0:
        return []
    async with Repository.open(memory.database) as repo:
        found = await repo.items_by_ref(list(scores), op.filter, omit_expired=omit_expired)
        rows = [r for r in found if r.index_text is not None]
        rows.sort(
            key=lambda r: (
                -scores[(decode_namespace(r.namespace), r.key)],
                -r.updated_at.timestamp(),
                r.namespace,
                r.key,
            )
        )
        page = rows[op.offset : op.offset + op.limit]
        if op.refresh_ttl and page:
            await repo.refresh_item_ttl([(decode_namespace(r.namespace), r.key) for r in page])
    return [
        to_item(r, scores[(decode_namespace(r.namespace), r.key)], search=True)  # type: ignore[misc]
        for r in page
    ]
