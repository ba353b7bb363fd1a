"""MRAgent's active retrieval: an LLM agent walks the cue-tag-content graph with tools.

Works with any ``BaseChatModel`` that supports ``bind_tools``. :func:`active_search` runs
the agent (:mod:`.agent`) over the traversal tools (:mod:`.tools`, usable by any other
agent too); :func:`active_notes` (:mod:`.mode`) is active mode as a search, behind
``Memory.asearch(..., mode="active")``, ``MemoryRetriever(mode="active")`` and
``langmemcore search --active``.
"""

from __future__ import annotations

from langmemcore.retrieval.active.agent import (
    MAX_CALLS_PER_STEP,
    ActiveResult,
    StoppedBy,
    TraversalStep,
    active_search,
    bind_traversal_tools,
    cited_note_ids,
    rank_evidence,
)
from langmemcore.retrieval.active.mode import (
    ACTIVE_CHANNEL,
    SEARCH_MODES,
    SearchMode,
    active_notes,
    check_mode,
)
from langmemcore.retrieval.active.tools import MAX_CONTEXT_CHARS, build_traversal_tools

__all__ = [
    "ACTIVE_CHANNEL",
    "MAX_CALLS_PER_STEP",
    "MAX_CONTEXT_CHARS",
    "SEARCH_MODES",
    "ActiveResult",
    "SearchMode",
    "StoppedBy",
    "TraversalStep",
    "active_notes",
    "active_search",
    "bind_traversal_tools",
    "build_traversal_tools",
    "check_mode",
    "cited_note_ids",
    "rank_evidence",
]
