"""MRAgent's graph walk: the reads of active mode's traversal moves."""

from __future__ import annotations

from langmemcore.storage.traversal.access import TraversalAccess

__all__ = ["TraversalAccess"]
