"""Search filters on the JSONB value of the store's items (pure statement parts):
LangGraph's ``InMemoryStore`` filter semantics as SQL.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import ColumnElement, Text, and_, cast, func, literal, true
from sqlalchemy.dialects.postgresql import JSONB

from langmemcore.storage.items.view import ItemSource
from langmemcore.storage.models import Item

__all__ = ["OPERATORS", "filter_condition"]

_COMPARISONS = ("$gt", "$gte", "$lt", "$lte")
OPERATORS = ("$eq", "$ne", *_COMPARISONS)
"""Filter operators understood (LangGraph's set)."""


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


def filter_condition(
    filter: Mapping[str, Any] | None, source: ItemSource = Item
) -> ColumnElement[bool]:
    """The WHERE condition of a search filter on the value of ``source``'s items.

    Args:
        filter: Field -> value (equality) or field -> ``{"$op": value, ...}``.
        source: ``Item`` or :func:`item_view`.

    Raises:
        ValueError: An operator outside ``$eq $ne $gt $gte $lt $lte``.
    """
    if not filter:
        return true()
    return and_(true(), *(_match(source.value[str(k)], v) for k, v in filter.items()))
