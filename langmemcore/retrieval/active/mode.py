"""Active mode as a search: MRAgent's traversal packed like the retrieval graph's results.

``Memory.asearch(..., mode="active")`` (and through it ``MemoryRetriever(mode="active")``
and ``langmemcore search --active``) runs :func:`active_notes`: the memory's tool-calling
model walks the namespace, and the evidence it gathered comes back as the same
:class:`~langmemcore.retrieval.pack.RetrievedNote` list as a passive search, in the
agent's rank order (notes its answer cites first, then the others in order of discovery).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, cast, get_args

from langgraph.runtime import Runtime

from langmemcore._errors import ConfigurationError, InvalidInputError
from langmemcore.retrieval.active.agent import active_search
from langmemcore.retrieval.fusion import Fused
from langmemcore.retrieval.graph import RetrievalContext, RetrievalState, pack
from langmemcore.retrieval.pack import RetrievedNote

__all__ = ["ACTIVE_CHANNEL", "SEARCH_MODES", "SearchMode", "active_notes", "check_mode"]

SearchMode = Literal["passive", "active"]
"""How a search finds its evidence: the retrieval graph, or MRAgent's traversal agent."""

SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
"""Every search mode."""

ACTIVE_CHANNEL = "active"
"""The channel an active search's notes report (with their rank in the agent's order)."""


def check_mode(mode: object) -> SearchMode:
    """``mode`` if it is a search mode.

    Raises:
        InvalidInputError: Any other value.
    """
    if isinstance(mode, str) and mode in SEARCH_MODES:
        return cast(SearchMode, mode)
    raise InvalidInputError(f"mode must be 'passive' or 'active', got {mode!r:.60}")


async def active_notes(
    context: RetrievalContext,
    namespace: Sequence[str],
    query: str,
    k: int | None = None,
    token_budget: int | None = None,
    min_confidence: float | None = None,
) -> list[RetrievedNote]:
    """Let ``context.llm`` traverse the namespace and pack the evidence it gathered.

    The agent gathers at most ``max(k, k_final)`` notes; those below ``min_confidence``
    are left out before the cut at ``k`` notes or ``token_budget`` tokens. A note's score
    is ``1 / rank`` in the agent's order and its channels are ``{"active": rank}``.

    Args:
        context: The memory's database, embedder, retrieval settings and chat model.
        namespace: Where to search.
        query: The question.
        k: Notes returned at most (default ``k_final``).
        token_budget: Stop packing notes past this many (estimated) tokens.
        min_confidence: Leave out notes whose confidence ``tau`` is below this.

    Raises:
        ConfigurationError: There is no chat model, or it does not support tool calling.
    """
    if context.llm is None:
        raise ConfigurationError(
            "active search needs a tool-calling chat model: pass llm= (e.g. ChatOpenAI) "
            "to Memory or Memory.open"
        )
    limit = k or context.config.k_final
    found = await active_search(
        context.database,
        context.embeddings,
        context.llm,
        namespace,
        query,
        max_notes=max(limit, context.config.k_final),
    )
    fused = [
        Fused(note_id, 1.0 / rank, {ACTIVE_CHANNEL: rank})
        for rank, note_id in enumerate(found.note_ids, 1)
    ]
    in_order = replace(context, config=replace(context.config, diversity=0.0, supersession=False))
    state: RetrievalState = {
        "namespace": tuple(namespace),
        "query": query,
        "fused": fused,
        "k": limit,
        "token_budget": token_budget,
        "min_confidence": min_confidence,
    }
    packed = await pack(state, Runtime(context=in_order))
    return list(packed["results"])
