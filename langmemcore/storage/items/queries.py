"""Pure SQL builders for the store's items (LangGraph ``BaseStore`` semantics).

Each builder returns a :class:`~langmemcore.storage.prepared.Prepared` (built per call,
values bound in place, empty params) and executes nothing;
:class:`~langmemcore.storage.items.access.ItemAccess` runs them. Namespaces arrive as
their stored text (labels joined by ``"."``). Filters follow LangGraph's
``InMemoryStore``: a missing field compares as JSON ``null``, a nested dict filter matches
a subset of the item's nested object, and ``$gt`` / ``$gte`` / ``$lt`` / ``$lte`` compare
values of the same JSON type (numbers numerically).
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Insert,
    Select,
    Table,
    Text,
    any_,
    cast,
    column,
    delete,
    false,
    func,
    or_,
    select,
    true,
    tuple_,
    type_coerce,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage._filters import namespace_prefix_filter
from langmemcore.storage.items.filters import filter_condition
from langmemcore.storage.items.view import ItemSource, item_view
from langmemcore.storage.models import (
    Item,
    ItemTask,
)
from langmemcore.storage.prepared import Prepared, float_array, text_array, text_param

__all__ = [
    "claim_tasks",
    "delete_items",
    "enqueue_tasks",
    "finish_tasks",
    "get_items",
    "index_text_of",
    "index_texts",
    "item_namespaces_with_text",
    "items_by_keys",
    "list_namespaces",
    "namespace_match_pattern",
    "pending_task_count",
    "refresh_ttl",
    "search_items",
    "sweep_expired",
    "upsert_items",
]


def _not_expired(omit_expired: bool, source: ItemSource = Item) -> ColumnElement[bool]:
    if not omit_expired:
        return true()
    return or_(source.expires_at.is_(None), source.expires_at > func.now())


def _expiry(minutes: Any) -> ColumnElement[Any]:
    return func.now() + func.make_interval(0, 0, 0, 0, 0, 0, minutes * 60.0)


def _source(view: bool) -> ItemSource:
    return item_view() if view else Item


@cache
def _get_items(omit_expired: bool, view: bool) -> Select[Item]:
    source = _source(view)
    return select(source).where(
        source.namespace == text_param("namespace"),
        source.key == any_(text_array("keys")),
        _not_expired(omit_expired, source),
    )


def get_items(
    namespace: str, keys: Sequence[str], *, omit_expired: bool = False, view: bool = False
) -> Prepared:
    """Items of one namespace by key (the statement is built once; keys as an array);
    ``view``: from :func:`item_view`.
    """
    return Prepared(_get_items(omit_expired, view), {"namespace": namespace, "keys": list(keys)})


def items_by_keys(
    pairs: Sequence[tuple[str, str]],
    filter: Mapping[str, Any] | None,
    *,
    omit_expired: bool = False,
    view: bool = False,
) -> Prepared:
    """Items by (namespace, key) that also pass ``filter``; ``view``: from
    :func:`item_view`.
    """
    source = _source(view)
    if not pairs:
        return Prepared(select(source).where(false()), {})
    stmt = select(source).where(
        tuple_(source.namespace, source.key).in_([tuple(p) for p in pairs]),
        filter_condition(filter, source),
        _not_expired(omit_expired, source),
    )
    return Prepared(stmt, {})


def refresh_ttl(pairs: Sequence[tuple[str, str]]) -> Prepared:
    """Restart the TTL clock of items that have one and have not expired yet: a read
    never brings an expired item that the sweeper has not deleted yet back to life.
    """
    stmt = (
        update(Item)
        .where(
            tuple_(Item.namespace, Item.key).in_([tuple(p) for p in pairs]),
            Item.ttl_minutes.is_not(None),
            Item.expires_at > func.now(),
        )
        .values(expires_at=_expiry(Item.ttl_minutes))
    )
    return Prepared(stmt, {})


def index_text_of(namespace: str, key: str) -> Prepared:
    """The indexed text of one item (NULL or no row: nothing to index)."""
    stmt = select(Item.index_text).where(Item.namespace == namespace, Item.key == key)
    return Prepared(stmt, {})


def index_texts(pairs: Sequence[tuple[str, str]]) -> Prepared:
    """(namespace, key, index_text) of existing items, to decide what memory must redo."""
    stmt = select(Item.namespace, Item.key, Item.index_text).where(
        tuple_(Item.namespace, Item.key).in_([tuple(p) for p in pairs])
    )
    return Prepared(stmt, {})


@cache
def _upsert_items() -> Insert:
    rows = (
        func.unnest(
            text_array("namespaces"),
            text_array("keys"),
            text_array("value_texts"),
            text_array("index_texts"),
            float_array("ttls"),
        )
        .table_valued(
            column("namespace", Text),
            column("key", Text),
            column("value_text", Text),
            column("index_text", Text),
            column("ttl_minutes", Float),
        )
        .render_derived(name="put")
    )
    items = typing.cast(Table, Item.__table__)
    stmt = pg_insert(items).from_select(
        ["namespace", "key", "value", "value_text", "index_text", "ttl_minutes", "expires_at"],
        select(
            rows.c.namespace,
            rows.c.key,
            cast(rows.c.value_text, JSONB),
            rows.c.value_text,
            rows.c.index_text,
            rows.c.ttl_minutes,
            _expiry(rows.c.ttl_minutes),
        ),
    )
    return stmt.on_conflict_do_update(
        index_elements=[Item.namespace, Item.key],
        set_={
            "value": stmt.excluded.value,
            "value_text": stmt.excluded.value_text,
            "index_text": stmt.excluded.index_text,
            "ttl_minutes": stmt.excluded.ttl_minutes,
            "expires_at": stmt.excluded.expires_at,
            "updated_at": func.now(),
        },
    )


def upsert_items(rows: Sequence[Mapping[str, Any]]) -> Prepared:
    """Insert or replace items; ``created_at`` survives a replace (like ``PostgresStore``).

    Each row carries ``namespace``, ``key``, ``value``, ``index_text`` and ``ttl_minutes``;
    the statement is built once and takes the rows as arrays.
    """
    params = {
        "namespaces": [r["namespace"] for r in rows],
        "keys": [r["key"] for r in rows],
        "value_texts": [json.dumps(r["value"]) for r in rows],
        "index_texts": [r["index_text"] for r in rows],
        "ttls": [None if r["ttl_minutes"] is None else float(r["ttl_minutes"]) for r in rows],
    }
    return Prepared(_upsert_items(), params)


def delete_items(namespace: str, keys: Sequence[str]) -> Prepared:
    """Delete items of one namespace; returns (key, index_text) of those deleted."""
    stmt = (
        delete(Item)
        .where(Item.namespace == namespace, Item.key.in_(list(keys)))
        .returning(Item.key, Item.index_text)
    )
    return Prepared(stmt, {})


def enqueue_tasks(pairs: Sequence[tuple[str, str]]) -> Prepared:
    """Queue items for memory maintenance (a re-queue bumps the version)."""
    stmt = pg_insert(ItemTask).values([{"namespace": n, "key": k} for n, k in pairs])
    stmt = stmt.on_conflict_do_update(
        index_elements=[ItemTask.namespace, ItemTask.key],
        set_={"version": ItemTask.version + 1},
    )
    return Prepared(stmt, {})


def claim_tasks(pairs: Sequence[tuple[str, str]] | None, limit: int) -> Prepared:
    """Lock up to ``limit`` of the oldest tasks (of ``pairs`` only, when given); skips
    tasks others hold.
    """
    stmt = select(ItemTask.namespace, ItemTask.key, ItemTask.version)
    if pairs is not None:
        stmt = stmt.where(tuple_(ItemTask.namespace, ItemTask.key).in_([tuple(p) for p in pairs]))
    stmt = (
        stmt.order_by(ItemTask.created_at, ItemTask.namespace, ItemTask.key)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    return Prepared(stmt, {})


def finish_tasks(claimed: Sequence[tuple[str, str, int]]) -> Prepared:
    """Clear tasks by (namespace, key, version claimed), except those re-queued since."""
    stmt = delete(ItemTask).where(
        tuple_(ItemTask.namespace, ItemTask.key, ItemTask.version).in_([tuple(c) for c in claimed])
    )
    return Prepared(stmt, {})


def pending_task_count(prefix: str | None = None) -> Prepared:
    """How many tasks are queued (of namespaces at or below the encoded ``prefix``)."""
    stmt = select(func.count()).select_from(ItemTask)
    if prefix:
        stmt = stmt.where(namespace_prefix_filter(ItemTask.namespace, prefix))
    return Prepared(stmt, {})


def search_items(
    prefix: str | None,
    filter: Mapping[str, Any] | None,
    *,
    limit: int,
    offset: int,
    omit_expired: bool = False,
) -> Prepared:
    """Items of :func:`item_view` in ``prefix`` or below that pass ``filter``, most
    recently updated first (``PostgresStore``'s order; ties, from one batch, by namespace
    and key).
    """
    view = item_view()
    where = [filter_condition(filter, view), _not_expired(omit_expired, view)]
    if prefix:
        where.append(namespace_prefix_filter(view.namespace, prefix))
    stmt = (
        select(view)
        .where(*where)
        .order_by(
            view.updated_at.desc(),
            view.namespace.collate("C"),
            view.key.collate("C"),
        )
        .limit(limit)
        .offset(offset)
    )
    return Prepared(stmt, {})


def item_namespaces_with_text(prefix: str | None, *, omit_expired: bool = False) -> Prepared:
    """Namespaces in ``prefix`` or below holding indexed items of :func:`item_view`."""
    view = item_view()
    where = [view.index_text.is_not(None), _not_expired(omit_expired, view)]
    if prefix:
        where.append(namespace_prefix_filter(view.namespace, prefix))
    stmt = select(view.namespace).where(*where).distinct()
    return Prepared(stmt, {})


def namespace_match_pattern(path: Sequence[str], match_type: str) -> str:
    """A POSIX regex matching stored namespaces on whole labels (``*`` = any one label)."""
    body = r"\.".join("[^.]+" if part == "*" else re.escape(part) for part in path)
    if match_type == "suffix":
        return rf"(^|\.){body}$"
    if match_type == "prefix":
        return rf"^{body}(\.|$)"
    raise ValueError(f"Unsupported match type: {match_type}")


def list_namespaces(
    conditions: Sequence[tuple[str, Sequence[str]]],
    *,
    max_depth: int | None,
    limit: int,
    offset: int,
    omit_expired: bool = False,
) -> Prepared:
    """Distinct namespaces of the items of :func:`item_view`, truncated to ``max_depth``
    labels, in tuple order (labels compared by code point, as Python sorts tuples).

    Args:
        conditions: (``"prefix"`` | ``"suffix"``, path) pairs, all of which must match.
        max_depth: Keep at most this many leading labels.
        limit: At most this many namespaces.
        offset: Skip this many first.
        omit_expired: Leave out items past their expiry.
    """
    view = item_view()
    labels: ColumnElement[Any] = func.string_to_array(view.namespace, ".", type_=ARRAY(Text))
    if max_depth is not None:
        labels = labels[1:max_depth]
    where = [_not_expired(omit_expired, view)]
    for match_type, path in conditions:
        if path:
            where.append(view.namespace.regexp_match(namespace_match_pattern(path, match_type)))
    truncated = select(labels.label("labels")).where(*where).distinct().subquery()
    stmt = (
        select(truncated.c.labels)
        .order_by(type_coerce(truncated.c.labels, Text).collate("C"))
        .limit(limit)
        .offset(offset)
    )
    return Prepared(stmt, {})


def sweep_expired() -> Prepared:
    """Delete expired items; returns (namespace, key, index_text) of those deleted."""
    stmt = (
        delete(Item)
        .where(Item.expires_at.is_not(None), Item.expires_at < func.now())
        .returning(Item.namespace, Item.key, Item.index_text)
    )
    return Prepared(stmt, {})
