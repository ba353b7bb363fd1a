"""The formal memory layer (``seeds/formal-agent-memory-paper.md``): capacity budgets with
coverage-maximising compaction, the utility-capacity frontier, and note confidence as a
Beta posterior settled by feedback.

Pure maths lives in :mod:`~langmemcore.formal.coverage` (instances and utilities),
:mod:`~langmemcore.formal.max_coverage` (greedy / exact max coverage, the frontier),
:mod:`~langmemcore.formal.confidence` (the Beta confidence rule) and
:mod:`~langmemcore.formal.expected` (the expected-query model); compaction, settlement and
the archive in :mod:`~langmemcore.formal.capacity`; :class:`FormalLayer`
(:mod:`~langmemcore.formal.layer`) is the object ``Memory`` holds and calls.
"""

from __future__ import annotations

from langmemcore.formal.confidence import BetaBelief, edge_evidence, prior_belief, settle
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.formal.coverage import (
    CoverageInstance,
    CoverageQuery,
    coverage,
    full_memory_value,
    precision,
    water_inflation,
)
from langmemcore.formal.max_coverage import (
    Frontier,
    FrontierPoint,
    GreedyResult,
    efficiency_loss,
    exact_max_coverage,
    frontier,
    greedy_max_coverage,
)

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
