"""The read path: MemCoRe's tri-pathway retrieval (topic, keyword, neighbour) plus dense,
full-text and time channels, fused by weighted reciprocal rank fusion, with iterative
evidence refinement.
"""

from __future__ import annotations

from langmemcore.retrieval.channels import QueryPlan
from langmemcore.retrieval.fusion import ChannelRanking, Fused, fuse
from langmemcore.retrieval.graph import RetrievalContext, RetrievalState, build_retrieval_graph
from langmemcore.retrieval.pack import RetrievedNote, SourceRef

__all__ = [
    "ChannelRanking",
    "Fused",
    "QueryPlan",
    "RetrievalContext",
    "RetrievalState",
    "RetrievedNote",
    "SourceRef",
    "build_retrieval_graph",
    "fuse",
]
