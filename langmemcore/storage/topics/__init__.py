"""Keywords and topics: pure builders and their data access."""

from __future__ import annotations

from langmemcore.storage.topics.access import TopicAccess

__all__ = ["TopicAccess"]
