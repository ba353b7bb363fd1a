"""Execution of LangGraph store operations inside one transaction.

Reads (get, search without query, list namespaces) see the state before the batch's
writes, as in ``InMemoryStore`` and ``PostgresStore``; puts are de-duplicated (the last
put of a key wins) and applied after the reads. Every put or delete that changes what an
item gives memory queues an ``item_tasks`` row in the same transaction.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from langgraph.store.base import GetOp, Item, ListNamespacesOp, PutOp, SearchItem, SearchOp

from langmemcore._errors import InvalidInputError, safe_error_text
from langmemcore._namespace import decode_namespace, validate_labels, validate_namespace
from langmemcore._validate import (
    LIMITS,
    check_count,
    check_filter,
    check_query,
    check_string,
    check_ttl,
)
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.items import ItemRef, ItemWrite
from langmemcore.storage.items.filters import OPERATORS
from langmemcore.storage.models import Item as ItemRow
from langmemcore.storage.repository import Repository
from langmemcore.store._index import (
    ITEM_KEY_PREFIX,
    Attribution,
    IndexSpec,
    attribution_of,
    check_value,
    item_key_of,
    item_text,
)
from langmemcore.store._item import MemorySearchItem

RESERVED_ROOT = "langgraph"
"""LangGraph's reserved namespace root: items under it are stored but never indexed
into memory (memory's namespaces cannot have it)."""

__all__ = [
    "PreparedPut",
    "apply_puts",
    "check_op",
    "list_namespaces",
    "prepare_puts",
    "run_gets",
    "search_plain",
    "stored_attribution",
    "stored_value",
    "to_item",
]

_log = logging.getLogger("langmemcore.store")


def _check_page(limit: object, offset: object) -> None:
    check_count(limit, "limit")
    check_count(offset, "offset")


def _check_put(op: PutOp) -> None:
    validate_namespace(op.namespace, reserved_root=True)
    check_string(op.key, "item key", max_bytes=LIMITS.key_bytes - len(ITEM_KEY_PREFIX))
    check_ttl(op.ttl)
    if op.index not in (None, False) and (
        isinstance(op.index, str)
        or not isinstance(op.index, list | tuple)
        or not all(isinstance(f, str) for f in op.index)
    ):
        raise InvalidInputError(
            f"index must be False, None or a list of field paths, got {op.index!r}"
        )


def _check_search(op: SearchOp) -> None:
    validate_labels(op.namespace_prefix)
    if op.query is not None:
        check_query(op.query)
    _check_page(op.limit, op.offset)
    check_filter(op.filter, OPERATORS)


def _check_list(op: ListNamespacesOp) -> None:
    for condition in op.match_conditions or ():
        if condition.match_type not in ("prefix", "suffix"):
            raise InvalidInputError(f"unknown match type {condition.match_type!r}")
        validate_labels(condition.path)
    if op.max_depth is not None:
        check_count(op.max_depth, "max_depth", minimum=1)
    _check_page(op.limit, op.offset)


def check_op(op: object) -> None:
    """Validate an op's namespace and arguments with langmemcore's errors, before
    anything is read or written (see :mod:`langmemcore._validate`).

    Ops may address LangGraph's reserved root ``"langgraph"``: ``InMemoryStore`` and
    ``PostgresStore`` refuse it in ``put`` / ``aput`` only, not in ``batch``.

    Raises:
        InvalidNamespaceError: A namespace breaks LangGraph's rules or a limit.
        InvalidInputError: An unknown op, a key, query, filter, ttl, limit or offset
            that cannot be stored or bound.
    """
    if isinstance(op, PutOp):
        _check_put(op)
    elif isinstance(op, GetOp):
        validate_namespace(op.namespace, reserved_root=True)
        check_string(op.key, "item key")
    elif isinstance(op, SearchOp):
        _check_search(op)
    elif isinstance(op, ListNamespacesOp):
        _check_list(op)
    else:
        raise InvalidInputError(f"Unknown operation type: {type(op).__name__}")


def stored_value(row: ItemRow) -> dict[str, Any]:
    """A stored item's value exactly as put."""
    value: dict[str, Any] = row.value if row.value_text is None else json.loads(row.value_text)
    return value


def stored_attribution(row: ItemRow, spec: IndexSpec) -> Attribution:
    """The speaker and event time of a stored item under ``spec``: none when its value
    does not pass ``spec`` (it was put through a store with other ``index`` settings).
    """
    try:
        return attribution_of(stored_value(row), spec)
    except InvalidInputError as exc:
        _log.warning("an item keeps no speaker or time (%s)", safe_error_text(exc))
        return Attribution(None, None, frozenset())


def to_item(
    row: ItemRow,
    score: float | None = None,
    *,
    search: bool = False,
    notes: Sequence[RetrievedNote] = (),
) -> Item:
    """A stored row as LangGraph's ``Item`` (a :class:`MemorySearchItem` with its
    ``notes`` for search results).
    """
    namespace = decode_namespace(row.namespace)
    value = stored_value(row)
    if search:
        return MemorySearchItem(
            namespace, row.key, value, row.created_at, row.updated_at, score=score, notes=notes
        )
    return Item(
        value=value,
        key=row.key,
        namespace=namespace,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


async def run_gets(
    repo: Repository, ops: Sequence[tuple[int, GetOp]], *, omit_expired: bool
) -> dict[int, Item | None]:
    """Fetch items of the store's view (refreshing the TTL of those asked to), grouped
    per namespace: an observation ``Memory`` wrote itself reads as an item (see
    :func:`~langmemcore.storage.items.view.item_view`).
    """
    by_namespace: dict[tuple[str, ...], list[tuple[int, GetOp]]] = defaultdict(list)
    for index, op in ops:
        by_namespace[tuple(op.namespace)].append((index, op))
    results: dict[int, Item | None] = {}
    for ns, group in by_namespace.items():
        refresh = [(ns, op.key) for _i, op in group if op.refresh_ttl]
        if refresh:
            await repo.refresh_item_ttl(refresh)
        keys = [op.key for _i, op in group]
        found = await repo.items_by_key(ns, keys, omit_expired=omit_expired, view=True)
        rows = {r.key: r for r in found}
        for index, op in group:
            row = rows.get(op.key)
            results[index] = to_item(row) if row is not None else None
    return results


async def search_plain(
    repo: Repository, ops: Sequence[tuple[int, SearchOp]], *, omit_expired: bool
) -> dict[int, list[SearchItem]]:
    """Searches without query: filter, most recently updated first, limit / offset.

    Identical searches are run once (each still gets items of its own); the TTL of the
    items found by the searches asking for it is refreshed in one statement after them.
    """
    found: dict[str, list[ItemRow]] = {}
    results: dict[int, list[SearchItem]] = {}
    refresh: dict[ItemRef, None] = {}
    for index, op in ops:
        signature = json.dumps(
            [list(op.namespace_prefix), op.filter, op.limit, op.offset], sort_keys=True
        )
        rows = found.get(signature)
        if rows is None:
            rows = found[signature] = await repo.search_items(
                tuple(op.namespace_prefix),
                op.filter,
                limit=op.limit,
                offset=op.offset,
                omit_expired=omit_expired,
            )
        if op.refresh_ttl:
            refresh.update(((decode_namespace(r.namespace), r.key), None) for r in rows)
        results[index] = [to_item(r, search=True) for r in rows]  # type: ignore[misc]
    if refresh:
        await repo.refresh_item_ttl(list(refresh))
    return results


async def list_namespaces(
    repo: Repository, op: ListNamespacesOp, *, omit_expired: bool
) -> list[tuple[str, ...]]:
    """Namespaces of stored items (prefix / suffix with ``*``, max depth, limit, offset)."""
    conditions = [(c.match_type, tuple(c.path)) for c in op.match_conditions or ()]
    return await repo.item_namespaces(
        conditions,
        max_depth=op.max_depth,
        limit=op.limit,
        offset=op.offset,
        omit_expired=omit_expired,
    )


class PreparedPut:
    """A put checked and turned into its row (before any write).

    Args:
        op: The put (``value=None`` deletes).
        spec: The store's index settings.
        max_chars: Longest indexed text accepted.

    Attributes:
        attribution: The speaker and event time read from an indexed value (``None`` when
            the put gives memory nothing).

    Raises:
        InvalidInputError: The value, its indexed text, speaker or time cannot be stored.
    """

    def __init__(self, op: PutOp, spec: IndexSpec, max_chars: int) -> None:
        self.spec = spec
        self.namespace = tuple(op.namespace)
        self.key = str(op.key)
        self.value: dict[str, Any] | None = None
        self.text: str | None = None
        self.attribution: Attribution | None = None
        self.ttl = None if op.ttl is None else float(op.ttl)
        if op.value is None:
            return
        self.value = check_value(op.value)
        if spec.enabled and op.index is not False and self.namespace[0] != RESERVED_ROOT:
            fields = spec.fields if op.index is None else tuple(op.index)
            attribution = attribution_of(self.value, spec)
            self.text = item_text(self.value, fields, max_chars=max_chars, skip=attribution.fields)
            if self.text is not None:
                self.attribution = attribution

    def retells(self, before: ItemRow) -> bool:
        """Whether the put changes the speaker or time of ``before``, an item with the
        same indexed text.
        """
        assert self.attribution is not None
        was = stored_attribution(before, self.spec)
        now = self.attribution
        return (was.speaker, was.event_time) != (now.speaker, now.event_time)


def prepare_puts(ops: Sequence[PutOp], spec: IndexSpec, max_chars: int) -> list[PreparedPut]:
    """Check every put of a batch (the last put of a key wins) before anything is written.

    Raises:
        InvalidInputError: A value or its indexed text cannot be stored.
    """
    last: dict[tuple[tuple[str, ...], str], PutOp] = {}
    for op in ops:
        last[(tuple(op.namespace), str(op.key))] = op
    return [PreparedPut(op, spec, max_chars) for op in last.values()]


async def _changed(repo: Repository, puts: Sequence[PreparedPut]) -> list[ItemRef]:
    """The puts whose item's memory must change: its indexed text, speaker or time."""
    refs = [(p.namespace, p.key) for p in puts]
    before = await repo.item_index_texts(refs)
    same_text = [
        ref
        for p, ref in zip(puts, refs, strict=True)
        if p.text is not None and before.get(ref) == p.text
    ]
    retold: set[ItemRef] = set()
    if same_text:
        rows = await repo.items_by_ref(same_text, None, omit_expired=False)
        stored = {(decode_namespace(r.namespace), r.key): r for r in rows}
        retold = {
            ref
            for p, ref in zip(puts, refs, strict=True)
            if ref in stored and p.retells(stored[ref])
        }
    return [
        ref
        for p, ref in zip(puts, refs, strict=True)
        if ref in retold
        or (before.get(ref) != p.text and (p.text is not None or before.get(ref) is not None))
    ]


async def _replacing(repo: Repository, puts: Sequence[PreparedPut]) -> list[ItemRef]:
    """The puts and deletes of keys under which ``Memory`` wrote an observation itself
    (which the store showed as an item): the store's write replaces it.
    """
    keys: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for p in puts:
        if p.namespace[0] != RESERVED_ROOT and item_key_of(p.key) is None:
            keys[p.namespace].append(p.key)
    found: list[ItemRef] = []
    for ns, wanted in keys.items():
        written = await repo.observations(ns, wanted)
        found.extend((ns, key) for key in wanted if key in written)
    return found


async def apply_puts(repo: Repository, puts: Sequence[PreparedPut]) -> list[ItemRef]:
    """Write the puts and queue the items whose memory must change (their indexed text,
    speaker or time, or an observation ``Memory`` wrote under their key).

    Returns:
        (namespace, key) of the items queued for construction or repair.
    """
    if not puts:
        return []
    changed = await _changed(repo, puts)
    queued = list(dict.fromkeys([*changed, *await _replacing(repo, puts)]))
    deletes: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for p in puts:
        if p.value is None:
            deletes[p.namespace].append(p.key)
    for ns, keys in deletes.items():
        await repo.delete_items(ns, keys)
    rows = [
        ItemWrite(p.namespace, p.key, p.value, p.text, p.ttl) for p in puts if p.value is not None
    ]
    if rows:
        await repo.write_items(rows)
    if queued:
        await repo.queue_item_tasks(queued)
    return queued
