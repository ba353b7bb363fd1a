"""The LangGraph store integration: :class:`MemoryStore` and its search results,
:class:`MemorySearchItem`.
"""

from __future__ import annotations

from langmemcore.store._item import MemorySearchItem
from langmemcore.store._store import MemoryStore

__all__ = ["MemorySearchItem", "MemoryStore"]
