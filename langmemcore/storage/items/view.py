"""The store's view of a namespace (pure statement parts, executed by
:mod:`~langmemcore.storage.items.access`): the items, and as items the observations that
``Memory`` wrote itself.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import DateTime, Float, Text, exists, func, literal, select, union_all
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import aliased

from langmemcore.storage.models import Item, Observation

__all__ = ["ITEM_KEY_PREFIX", "ItemSource", "item_view"]

ITEM_KEY_PREFIX = "item:"
"""Observation keys of store items: ``"item:" + item key`` in the item's namespace."""

ItemSource = Any
"""``Item`` (the items table) or :func:`item_view` (the items with memory's own
observations), the entity a read selects from."""


@cache
def item_view() -> Any:
    """The store's view of a namespace: the items, and as items the observations that
    ``Memory`` wrote itself (keys without :data:`ITEM_KEY_PREFIX`) and no item shadows
    (an item of the same namespace and key wins).

    Such an observation reads as an item with value ``{"text", "speaker", "event_time"}``
    (the time as ISO 8601 in UTC, to the second), its text as indexed text, created and
    updated when it was ingested, and no expiry.
    """
    items = select(
        Item.namespace,
        Item.key,
        Item.value,
        Item.value_text,
        Item.created_at,
        Item.updated_at,
        Item.expires_at,
        Item.ttl_minutes,
        Item.index_text,
    )
    moment = func.to_char(
        func.timezone("UTC", Observation.event_time), 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'
    )
    value = func.jsonb_build_object(
        "text",
        Observation.content,
        "speaker",
        Observation.speaker,
        "event_time",
        moment,
        type_=JSONB,
    )
    shadowed = exists().where(Item.namespace == Observation.namespace, Item.key == Observation.key)
    observed = select(
        Observation.namespace,
        Observation.key,
        value,
        literal(None, Text),
        Observation.ingested_at,
        Observation.ingested_at,
        literal(None, DateTime(timezone=True)),
        literal(None, Float),
        Observation.content,
    ).where(~Observation.key.startswith(ITEM_KEY_PREFIX, autoescape=True), ~shadowed)
    return aliased(Item, union_all(items, observed).subquery("item_view"), name="item_view")
