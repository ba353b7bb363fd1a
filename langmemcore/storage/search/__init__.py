"""Retrieval's reads: the evidence packed for the best notes."""

from __future__ import annotations

from langmemcore.storage.search.access import SearchAccess

__all__ = ["SearchAccess"]
