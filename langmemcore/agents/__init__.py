"""Long-term memory for LangChain v1 agents (``langchain.agents.create_agent``).

:class:`MemoryMiddleware` recalls before the model call and writes the exchange after the
agent; the tool factories give an agent memory tools of its own (search, manage, profile,
timeline, MRAgent's traversal). Middleware and tools take the namespace from each run (a
template such as ``("memories", "{user_id}")``, see :class:`NamespaceTemplate`), so one
instance serves every user.
"""

from __future__ import annotations

from langmemcore.agents._namespace_template import NamespaceLike, NamespaceTemplate
from langmemcore.agents.middleware import MemoryMiddleware
from langmemcore.agents.tools import (
    DEFAULT_NAMESPACE,
    create_manage_memory_tool,
    create_memory_tools,
    create_profile_tool,
    create_search_memory_tool,
    create_timeline_tool,
    create_traversal_tools,
)

__all__ = [
    "DEFAULT_NAMESPACE",
    "MemoryMiddleware",
    "NamespaceLike",
    "NamespaceTemplate",
    "create_manage_memory_tool",
    "create_memory_tools",
    "create_profile_tool",
    "create_search_memory_tool",
    "create_timeline_tool",
    "create_traversal_tools",
]
