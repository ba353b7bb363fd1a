"""Retrieval's reads: the channels' rankings, full text and the evidence of the best notes."""

from __future__ import annotations

from langmemcore.storage.search.access import SearchAccess

__all__ = ["SearchAccess"]
