"""The store's items, their TTL and its task queue.

Reads for the store's searches and namespace listings see the store's view of a namespace
(:func:`~langmemcore.storage.items.view.item_view`: the items, and as items the
observations ``Memory`` wrote itself); gets and reads by address see it when asked
(``view=True``), the construction queue the items alone.

Items are addressed as :data:`ItemRef` pairs (namespace as a tuple, key); the namespace is
encoded here, and may have LangGraph's reserved root ``"langgraph"`` (its stores refuse it
in ``put`` only, not in ``batch``). Reads hand back ORM
:class:`~langmemcore.storage.models.Item` rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from langmemcore._namespace import decode_namespace, encode_namespace, encode_prefix
from langmemcore.storage._session import SessionBound
from langmemcore.storage.items import queries as q
from langmemcore.storage.models import Item

__all__ = ["ItemAccess", "ItemRef", "ItemWrite"]

ItemRef = tuple[tuple[str, ...], str]
"""An item's address: its namespace (labels) and key."""


class ItemWrite(NamedTuple):
    """An item to insert or replace (``created_at`` survives a replace)."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    index_text: str | None
    ttl_minutes: float | None


CHUNK = 2_000
"""Items or tasks per statement where each takes bind values of its own (Postgres binds
at most 65,535 values in one statement)."""

T = TypeVar("T")


def _item_namespace(namespace: Sequence[str]) -> str:
    return encode_namespace(namespace, reserved_root=True)


def _encoded(refs: Sequence[ItemRef]) -> list[tuple[str, str]]:
    return [(_item_namespace(namespace), key) for namespace, key in refs]


def _chunks(rows: Sequence[T]) -> list[Sequence[T]]:
    return [rows[i : i + CHUNK] for i in range(0, len(rows), CHUNK)]


class ItemAccess(SessionBound):
    """The store's items and task queue within one transaction."""

    async def items_by_key(
        self,
        namespace: Sequence[str],
        keys: Sequence[str],
        *,
        omit_expired: bool,
        view: bool = False,
    ) -> list[Item]:
        """Items of one namespace by key (missing keys left out); ``view``: from the
        store's view of a namespace (see :func:`~langmemcore.storage.items.view.item_view`).
        """
        stmt = q.get_items(_item_namespace(namespace), keys, omit_expired=omit_expired, view=view)
        return list(await self._scalars(stmt))

    async def items_by_ref(
        self,
        refs: Sequence[ItemRef],
        filter: Mapping[str, Any] | None,
        *,
        omit_expired: bool,
        view: bool = False,
    ) -> list[Item]:
        """Items by address that also pass ``filter``; ``view``: from the store's view of
        a namespace (see :func:`~langmemcore.storage.items.view.item_view`).
        """
        stmt = q.items_by_keys(_encoded(refs), filter, omit_expired=omit_expired, view=view)
        return list(await self._scalars(stmt))

    async def search_items(
        self,
        prefix: Sequence[str],
        filter: Mapping[str, Any] | None,
        *,
        limit: int,
        offset: int,
        omit_expired: bool,
    ) -> list[Item]:
        """Items of the store's view in ``prefix`` or below (no labels: all) that pass
        ``filter``, most recently updated first (see
        :func:`~langmemcore.storage.items.queries.search_items`).
        """
        stmt = q.search_items(
            encode_prefix(prefix), filter, limit=limit, offset=offset, omit_expired=omit_expired
        )
        return list(await self._scalars(stmt))

    async def item_namespaces(
        self,
        conditions: Sequence[tuple[str, Sequence[str]]],
        *,
        max_depth: int | None,
        limit: int,
        offset: int,
        omit_expired: bool,
    ) -> list[tuple[str, ...]]:
        """Namespaces of the store's view matching every (``"prefix"`` | ``"suffix"``,
        path) condition, truncated to ``max_depth`` labels, in tuple order.
        """
        stmt = q.list_namespaces(
            conditions, max_depth=max_depth, limit=limit, offset=offset, omit_expired=omit_expired
        )
        return [tuple(labels) for labels in await self._scalars(stmt)]

    async def namespaces_with_indexed_items(
        self, prefix: Sequence[str], *, omit_expired: bool
    ) -> list[tuple[str, ...]]:
        """Namespaces in ``prefix`` or below holding indexed items of the store's view,
        in the order of their stored text.
        """
        stmt = q.item_namespaces_with_text(encode_prefix(prefix), omit_expired=omit_expired)
        return [decode_namespace(text) for text in sorted(await self._scalars(stmt))]

    async def item_index_text(self, namespace: Sequence[str], key: str) -> str | None:
        """The item's indexed text (``None``: no item, or nothing indexed)."""
        return await self._scalar(q.index_text_of(_item_namespace(namespace), key))

    async def item_index_texts(self, refs: Sequence[ItemRef]) -> dict[ItemRef, str | None]:
        """Indexed texts of the items that exist among ``refs``."""
        texts: dict[ItemRef, str | None] = {}
        for chunk in _chunks(refs):
            for r in await self._rows(q.index_texts(_encoded(chunk))):
                texts[(decode_namespace(r.namespace), r.key)] = r.index_text
        return texts

    async def refresh_item_ttl(self, refs: Sequence[ItemRef]) -> None:
        """Restart the TTL clock of the items among ``refs`` that have one and have not
        expired (an expired item stays expired until it is swept).
        """
        for chunk in _chunks(refs):
            await self._run(q.refresh_ttl(_encoded(chunk)))

    async def write_items(self, items: Sequence[ItemWrite]) -> None:
        """Insert or replace items."""
        rows = [{**item._asdict(), "namespace": _item_namespace(item.namespace)} for item in items]
        await self._run(q.upsert_items(rows))

    async def delete_items(self, namespace: Sequence[str], keys: Sequence[str]) -> None:
        """Delete items of one namespace."""
        await self._run(q.delete_items(_item_namespace(namespace), keys))

    async def sweep_expired_items(self) -> list[tuple[ItemRef, str | None]]:
        """Delete expired items; returns the address and indexed text of each."""
        rows = await self._rows(q.sweep_expired())
        return [((decode_namespace(r.namespace), r.key), r.index_text) for r in rows]

    async def queue_item_tasks(self, refs: Sequence[ItemRef]) -> None:
        """Queue items for memory maintenance (a re-queue bumps the task's version)."""
        for chunk in _chunks(refs):
            await self._run(q.enqueue_tasks(_encoded(chunk)))

    async def claim_item_tasks(
        self, refs: Sequence[ItemRef] | None = None, *, limit: int
    ) -> list[tuple[ItemRef, int]]:
        """Lock up to ``limit`` of the oldest unclaimed tasks (of ``refs`` only, when
        given) until the transaction ends; returns each one's item and version (none:
        nothing free to claim).
        """
        pairs = None if refs is None else _encoded(refs)
        rows = await self._rows(q.claim_tasks(pairs, limit))
        return [((decode_namespace(r.namespace), r.key), int(r.version)) for r in rows]

    async def finish_item_tasks(self, claimed: Sequence[tuple[ItemRef, int]]) -> None:
        """Clear the claimed tasks (item, version claimed), except those re-queued since."""
        for chunk in _chunks(claimed):
            encoded = _encoded([ref for ref, _version in chunk])
            versions = [version for _ref, version in chunk]
            rows = [(n, k, v) for (n, k), v in zip(encoded, versions, strict=True)]
            await self._run(q.finish_tasks(rows))

    async def pending_item_tasks(self, prefix: Sequence[str] | None = None) -> int:
        """How many item tasks are queued (of namespaces at or below ``prefix``)."""
        encoded = encode_prefix(prefix) if prefix else None
        return int(await self._scalar(q.pending_task_count(encoded)) or 0)
