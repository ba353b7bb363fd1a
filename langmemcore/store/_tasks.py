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
from collections.abc import Sequence

from langgraph.store.base import SearchItem, SearchOp
from sqlalchemy import select

from langmemcore._namespace import decode_namespace
from langmemcore._validate import LIMITS
from langmemcore.memory import Memory
from langmemcore.storage import items as q
from langmemcore.storage.models import Item as ItemRow
from langmemcore.storage.repository import Repository
from langmemcore.store._index import item_key_of, observation_key
from langmemcore.store._ops import to_item

__all__ = ["process_task", "reconcile_item", "search_by_query"]

_log = logging.getLogger("langmemcore.store")


async def reconcile_item(memory: Memory, namespace: tuple[str, ...], key: str) -> str:
    """Make the item's observation match its indexed text.

    Returns:
        ``"ingested"``, ``"forgotten"``, ``"replaced"`` or ``"unchanged"``.
    """
    ns = ".".join(namespace)
    obs_key = observation_key(key)
    async with Repository.open(memory.database) as repo:
        text = await repo.session.scalar(
            select(ItemRow.index_text).where(ItemRow.namespace == ns, ItemRow.key == key)
        )
        observation = await repo.observation(namespace, obs_key)
        stored = observation.content if observation is not None else None
    if stored == text:
        return "unchanged"
    if stored is not None:
        await memory.aforget(namespace, obs_key)
    if text is None:
        return "forgotten"
    await memory.aingest(namespace, text, key=obs_key, metadata={"item_key": key})
    return "ingested" if stored is None else "replaced"


async def process_task(memory: Memory, pair: tuple[str, str] | None = None) -> bool:
    """Claim one queued item (the oldest, or ``pair``), reconcile it and clear its task.

    Returns:
        ``True`` if a task was claimed and done, ``False`` if none was available.
    """
    async with memory.database.session() as claim:
        row = (await claim.execute(q.claim_task(pair))).first()
        if row is None:
            return False
        ns, key, version = row
        await reconcile_item(memory, decode_namespace(ns), key)
        await claim.execute(q.finish_task(ns, key, version))
    return True


async def search_by_query(memory: Memory, op: SearchOp, *, omit_expired: bool) -> list[SearchItem]:
    """Rank the indexed items under the prefix by their best note's retrieval score.

    The retrieval graph runs in every namespace under the prefix that holds indexed items;
    each note's score goes to the items among its sources. Items without notes are not
    returned (like ``PostgresStore`` with items stored ``index=False``). Each namespace
    gives at most ``Limits.k`` notes, however large ``limit + offset``.
    """
    assert op.query is not None
    prefix = ".".join(op.namespace_prefix) if op.namespace_prefix else None
    async with memory.database.session() as session:
        namespaces: Sequence[str] = list(
            await session.scalars(q.item_namespaces_with_text(prefix, omit_expired=omit_expired))
        )
    wanted = op.offset + op.limit
    k = min(LIMITS.k, max(memory.retrieval.k_final, 3 * wanted))
    scores: dict[tuple[str, str], float] = {}
    for ns in sorted(namespaces):
        for note in await memory.asearch(decode_namespace(ns), op.query, k=k):
            for source in note.sources:
                item_key = item_key_of(source.key)
                if item_key is not None:
                    pair = (ns, item_key)
                    scores[pair] = max(scores.get(pair, -math.inf), note.score)
    if not scores or op.limit == 0:
        return []
    async with memory.database.session() as session:
        rows = [
            r
            for r in await session.scalars(
                q.items_by_keys(list(scores), op.filter, omit_expired=omit_expired)
            )
            if r.index_text is not None
        ]
        rows.sort(
            key=lambda r: (
                -scores[(r.namespace, r.key)],
                -r.updated_at.timestamp(),
                r.namespace,
                r.key,
            )
        )
        page = rows[op.offset : op.offset + op.limit]
        if op.refresh_ttl and page:
            await session.execute(q.refresh_ttl([(r.namespace, r.key) for r in page]))
    return [
        to_item(r, scores[(r.namespace, r.key)], search=True)  # type: ignore[misc]
        for r in page
    ]
