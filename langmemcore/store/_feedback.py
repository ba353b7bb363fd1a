"""Settling store searches: the items an answer used, turned into feedback on their notes.

A query search of :class:`~langmemcore.store.MemoryStore` is logged by the memory in each
namespace it ran in; feedback on items finds that logged search (the newest one of the
same query text) and the active notes built from each item (from the observation of a
store item, or from the observation ``Memory`` wrote under the item's key, which the store
shows as an item), and settles them through :meth:`~langmemcore.memory.Memory.afeedback`.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.store.base import Item

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore.memory import Memory
from langmemcore.storage.repository import Repository
from langmemcore.store._index import observation_key

__all__ = ["settle_items"]


async def settle_items(
    memory: Memory, items: Sequence[Item], query: str, outcome: float
) -> dict[int, float]:
    """Feedback on the notes of ``items`` for the newest logged search of ``query``.

    Args:
        memory: The store's memory.
        items: Items (e.g. from ``search(query=...)``) the answer used.
        query: The query text of that search.
        outcome: 1 for a right answer, 0 for a wrong one, or a grade in between.

    Returns:
        The new confidence of each settled note.

    Raises:
        InvalidInputError: No items.
        NotFoundError: The query was never searched in an item's namespace, or an item
            has no active notes (stored with ``index=False``, or not constructed yet).
    """
    if not items:
        raise InvalidInputError("feedback needs at least one item")
    keys: dict[tuple[str, ...], list[str]] = {}
    for item in items:
        keys.setdefault(tuple(item.namespace), []).extend((observation_key(item.key), item.key))
    settled: dict[int, float] = {}
    for namespace, observation_keys in keys.items():
        async with Repository.open(memory.database) as repo:
            query_id = await repo.latest_query_id(namespace, query)
            note_ids = await repo.active_notes_of_observation_keys(namespace, observation_keys)
        if query_id is None:
            raise NotFoundError(f"no logged search of {query!r} in namespace {namespace!r}")
        if not note_ids:
            raise NotFoundError(f"the items in {namespace!r} have no notes to settle")
        settled.update(await memory.afeedback(namespace, query_id, note_ids, outcome))
    return settled
