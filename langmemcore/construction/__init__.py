"""The write path of MemCoRe: ingest -> gate -> merge | append (an append may link), with
topic evolution scheduled beside it (:mod:`~langmemcore.construction.topic_schedule`).
"""

from __future__ import annotations

from langmemcore.construction.apply import ApplyResult
from langmemcore.construction.gate import (
    Candidate,
    Decision,
    GateResult,
    NoteDraft,
    calibrated_strength,
    decide,
    merge_contexts,
)
from langmemcore.construction.graph import (
    ConstructionContext,
    ConstructionState,
    build_construction_graph,
)
from langmemcore.construction.ingest import ObservationIn
from langmemcore.construction.topics import TopicSummary, partition_keywords

__all__ = [
    "ApplyResult",
    "Candidate",
    "ConstructionContext",
    "ConstructionState",
    "Decision",
    "GateResult",
    "NoteDraft",
    "ObservationIn",
    "TopicSummary",
    "build_construction_graph",
    "calibrated_strength",
    "decide",
    "merge_contexts",
    "partition_keywords",
]
