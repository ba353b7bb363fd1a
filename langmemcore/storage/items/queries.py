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
    and_,
    any_,
    cast,
    column,
    delete,
    false,
    func,
    literal,
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
from langmemcore.storage.models import (
    Item,
    ItemTask,
)
from langmemcore.storage.prepared import Prepared, float_array, text_array, text_param

__all__ = [
    "claim_tasks",
    "delete_items",
    "enqueue_tasks",
    "filter_condition",
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

_COMPARISONS = ("$gt", "$gte", "$lt", "$lte")
OPERATORS = ("$eq", "$ne", *_COMPARISONS)
"""Filter operators understood (LangGraph's set)."""


def _not_expired(omit_expired: bool) -> ColumnElement[bool]:
    if not omit_expired:
        return true()
    return or_(Item.expires_at.is_(None), Item.expires_at > func.now())


def _expiry(minutes: Any) -> ColumnElement[Any]:
    return func.now() + func.make_interval(0, 0, 0, 0, 0, 0, minutes * 60.0)


def _jsonb(value: Any) -> ColumnElement[Any]:
    return cast(literal(json.dumps(value), Text), JSONB)


def _compare(target: ColumnElement[Any], operator: str, operand: Any) -> ColumnElement[bool]:
    value = func.coalesce(target, _jsonb(None))
    if operator == "$eq":
        return value == _jsonb(operand)
    if operator == "$ne":
        return value != _jsonb(operand)
    if operator not in _COMPARISONS:
        raise ValueError(f"Unsupported operator: {operator}")
    same_type = func.jsonb_typeof(target) == func.jsonb_typeof(_jsonb(operand))
    ordered = {
        "$gt": target > _jsonb(operand),
        "$gte": target >= _jsonb(operand),
        "$lt": target < _jsonb(operand),
        "$lte": target <= _jsonb(operand),
    }[operator]
    return and_(same_type, ordered)


def _match(target: ColumnElement[Any], expected: Any) -> ColumnElement[bool]:
    """``InMemoryStore._compare_values`` as SQL on the JSONB ``target``."""
    if isinstance(expected, Mapping):
        if any(str(k).startswith("$") for k in expected):
            return and_(true(), *(_compare(target, op, v) for op, v in expected.items()))
        return and_(
            func.jsonb_typeof(target) == "object",
            *(_match(target[str(k)], v) for k, v in expected.items()),
        )
    if isinstance(expected, list | tuple):
        return func.coalesce(target, _jsonb(None)) == _jsonb(list(expected))
    return func.coalesce(target, _jsonb(None)) == _jsonb(expected)


def filter_condition(filter: Mapping[str, Any] | None) -> ColumnElement[bool]:
    """The WHERE condition of a search filter on ``items.value``.

    Args:
        filter: Field -> value (equality) or field -> ``{"$op": value, ...}``.

    Raises:
        ValueError: An operator outside ``$eq $ne $gt $gte $lt $lte``.
    """
    if not filter:
        return true()
    return and_(true(), *(_match(Item.value[str(k)], v) for k, v in filter.items()))


@cache
def _get_items(omit_expired: bool) -> Select[Item]:
    return select(Item).where(
        Item.namespace == text_param("namespace"),
        Item.key == any_(text_array("keys")),
        _not_expired(omit_expired),
    )


def get_items(namespace: str, keys: Sequence[str], *, omit_expired: bool = False) -> Prepared:
    """Items of one namespace by key (the statement is built once; keys as an array)."""
    return Prepared(_get_items(omit_expired), {"namespace": namespace, "keys": list(keys)})


def items_by_keys(
    pairs: Sequence[tuple[str, str]],
    filter: Mapping[str, Any] | None,
    *,
    omit_expired: bool = False,
) -> Prepared:
    """Items by (namespace, key) that also pass ``filter``."""
    if not pairs:
        return Prepared(select(Item).where(false()), {})
    stmt = select(Item).where(
        tuple_(Item.namespace, Item.key).in_([tuple(p) for p in pairs]),
        filter_condition(filter),
        _not_expired(omit_expired),
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
    """Items in ``prefix`` or below that pass ``filter``, most recently updated first
    (``PostgresStore``'s order; ties, from one batch, by namespace and key).
    """
    where = [filter_condition(filter), _not_expired(omit_expired)]
    if prefix:
        where.append(namespace_prefix_filter(Item.namespace, prefix))
    stmt = (
        select(Item)
        .where(*where)
        .order_by(
            Item.updated_at.desc(),
            Item.namespace.collate("C"),
            Item.key.collate("C"),
        )
        .limit(limit)
        .offset(offset)
    )
    return Prepared(stmt, {})


def item_namespaces_with_text(prefix: str | None, *, omit_expired: bool = False) -> Prepared:
    """Namespaces in ``prefix`` or below holding indexed items."""
    where = [Item.index_text.is_not(None), _not_expired(omit_expired)]
    if prefix:
        where.append(namespace_prefix_filter(Item.namespace, prefix))
    stmt = select(Item.namespace).where(*where).distinct()
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
    """Distinct namespaces of stored items, truncated to ``max_depth`` labels, in tuple
    order (labels compared by code point, as Python sorts tuples).

    Args:
        conditions: (``"prefix"`` | ``"suffix"``, path) pairs, all of which must match.
        max_depth: Keep at most this many leading labels.
        limit: At most this many namespaces.
        offset: Skip this many first.
        omit_expired: Leave out items past their expiry.
    """
    labels: ColumnElement[Any] = func.string_to_array(Item.namespace, ".", type_=ARRAY(Text))
    if max_depth is not None:
        labels = labels[1:max_depth]
    where = [_not_expired(omit_expired)]
    for match_type, path in conditions:
        if path:
            where.append(Item.namespace.regexp_match(namespace_match_pattern(path, match_type)))
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
