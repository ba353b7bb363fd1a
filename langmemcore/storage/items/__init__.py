"""The store's items, their TTL and the store's task queue."""

from __future__ import annotations

from langmemcore.storage.items.access import ItemAccess, ItemRef, ItemWrite

__all__ = ["ItemAccess", "ItemRef", "ItemWrite"]
