"""Memory maintenance for store items.

An ``item_tasks`` row says "bring this item's observation in line with the item". A
worker claims rows in bulk (``FOR UPDATE SKIP LOCKED``, so two stores never work on one
item at once), forgets stale observations (repairing their notes), ingests the items'
current texts together, each with its own speaker and event time (per namespace, through
``Memory.aingest_many``: drafted and embedded in batches; topics evolve only as they fall
due, as for single puts), and clears the rows it completed unless they were re-queued
since. The rows stay locked until their construction is done; they survive a crash, and
any store opened on the database resumes them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

from langmemcore._errors import safe_error_text
from langmemcore.construction.ingest import ObservationIn
from langmemcore.memory import Memory
from langmemcore.storage.items import ItemRef
from langmemcore.storage.models import Item as ItemRow
from langmemcore.storage.models import Observation
from langmemcore.storage.repository import Repository
from langmemcore.store._index import IndexSpec, item_key_of, observation_key
from langmemcore.store._ops import stored_attribution

__all__ = [
    "CLAIM_LIMIT",
    "item_observation",
    "process_tasks",
    "reconcile_items",
]

_log = logging.getLogger("langmemcore.store")

CLAIM_LIMIT = 1_000
"""Item tasks claimed (and constructed together) at a time."""


def item_observation(row: ItemRow, spec: IndexSpec) -> ObservationIn | None:
    """The observation that a stored item gives memory under the index settings ``spec``:
    its indexed text, speaker and event time (read from its value, else the put's time);
    ``None`` when nothing of it is indexed.
    """
    if row.index_text is None:
        return None
    attribution = stored_attribution(row, spec)
    return ObservationIn(
        observation_key(row.key),
        row.index_text,
        attribution.speaker,
        attribution.event_time or row.updated_at,
        metadata={"item_key": row.key},
    )


def _matches(stored: Observation | None, wanted: ObservationIn | None) -> bool:
    """Whether the stored observation already is the wanted one (both none counts)."""
    if stored is None or wanted is None:
        return stored is None and wanted is None
    return (stored.content, stored.speaker, stored.event_time) == (
        wanted.text,
        wanted.speaker,
        wanted.event_time,
    )


async def _reconcile_namespace(
    memory: Memory, spec: IndexSpec, ns: tuple[str, ...], keys: Sequence[str]
) -> None:
    """Make the observations of the items ``keys`` of ``ns`` match their indexed texts,
    speakers and times: stale ones are forgotten, the new ones ingested together. An
    observation ``Memory`` wrote itself under one of the keys is forgotten: the store's
    put or delete of the key replaced it.
    """
    async with Repository.open(memory.database) as repo:
        rows = {r.key: r for r in await repo.items_by_key(ns, keys, omit_expired=False)}
        stored = await repo.observations(ns, [observation_key(key) for key in keys])
        replaced = await repo.observations(ns, [k for k in keys if item_key_of(k) is None])
    for key in replaced:
        await memory.aforget(ns, key)
    fresh: list[ObservationIn] = []
    for key in keys:
        row = rows.get(key)
        wanted = None if row is None else item_observation(row, spec)
        known = stored.get(observation_key(key))
        if _matches(known, wanted):
            continue
        if known is not None:
            await memory.aforget(ns, observation_key(key))
        if wanted is not None:
            fresh.append(wanted)
    if fresh:
        await memory.aingest_many(ns, fresh, evolve_at_end=False)


async def reconcile_items(
    memory: Memory, spec: IndexSpec, refs: Sequence[ItemRef]
) -> tuple[set[ItemRef], list[Exception]]:
    """Reconcile the items under the store's index settings ``spec``, namespace by
    namespace (see :func:`_reconcile_namespace`).

    Returns:
        The items reconciled, and the errors of the namespaces that failed (their items
        are left out).
    """
    by_namespace: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for ns, key in refs:
        by_namespace[ns].append(key)
    done: set[ItemRef] = set()
    errors: list[Exception] = []
    for ns, keys in by_namespace.items():
        try:
            await _reconcile_namespace(memory, spec, ns, keys)
        except Exception as exc:
            errors.append(exc)
            continue
        done.update((ns, key) for key in keys)
    return done, errors


async def process_tasks(
    memory: Memory,
    spec: IndexSpec,
    refs: Sequence[ItemRef] | None = None,
    *,
    limit: int = CLAIM_LIMIT,
) -> int:
    """Claim queued items (the oldest ``limit``, or those of ``refs`` that are free),
    reconcile them together under the index settings ``spec`` and clear the tasks of
    those reconciled.

    Returns:
        How many tasks were claimed (0: none was free).

    Raises:
        Exception: The first construction error, once the tasks of the other namespaces
            are cleared (the failed ones stay queued; further errors are logged).
    """
    async with Repository.open(memory.database) as claim:
        tasks = await claim.claim_item_tasks(refs, limit=limit)
        if not tasks:
            return 0
        done, errors = await reconcile_items(memory, spec, [ref for ref, _version in tasks])
        await claim.finish_item_tasks([(ref, v) for ref, v in tasks if ref in done])
    for extra in errors[1:]:
        _log.warning("construction failed too (%s); its items stay queued", safe_error_text(extra))
    if errors:
        raise errors[0]
    return len(tasks)
