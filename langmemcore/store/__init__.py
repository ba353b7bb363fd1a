"""The LangGraph store integration: :class:`MemoryStore`."""

from __future__ import annotations

from langmemcore.store._store import MemoryStore

__all__ = ["MemoryStore"]
