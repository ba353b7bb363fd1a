"""The formal memory layer (``seeds/formal-agent-memory-paper.md``): capacity budgets with
coverage-maximising compaction, the utility-capacity frontier, and note confidence as a
Beta posterior settled by feedback.

Pure math lives in :mod:`~langmemcore.formal.coverage`, :mod:`~langmemcore.formal.precision`
and :mod:`~langmemcore.formal.expected`; the database layer in
:mod:`~langmemcore.formal.capacity`; the ``Memory`` methods in :mod:`~langmemcore.formal.api`.
"""

from __future__ import annotations

from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.formal.coverage import (
    CoverageInstance,
    CoverageQuery,
    Frontier,
    FrontierPoint,
    GreedyResult,
    coverage,
    efficiency_loss,
    exact_max_coverage,
    frontier,
    full_memory_value,
    greedy_max_coverage,
    precision,
    water_inflation,
)
from langmemcore.formal.precision import BetaBelief, edge_evidence, prior_belief, settle

__all__ = [
    "BetaBelief",
    "Budget",
    "CoverageInstance",
    "CoverageQuery",
    "FormalConfig",
    "Frontier",
    "FrontierPoint",
    "GreedyResult",
    "coverage",
    "edge_evidence",
    "efficiency_loss",
    "exact_max_coverage",
    "frontier",
    "full_memory_value",
    "greedy_max_coverage",
    "precision",
    "prior_belief",
    "settle",
    "water_inflation",
]
