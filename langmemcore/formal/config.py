"""Settings of the formal memory layer: capacity budgets, the expected-query model that
compaction maximises, and the confidence (precision) rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langmemcore._errors import ConfigurationError

__all__ = ["Budget", "FormalConfig"]


@dataclass(frozen=True)
class Budget:
    """Capacity of one namespace; a write that leaves it exceeded triggers compaction."""

    max_notes: int | None = None
    """Active notes at most (``None``: no limit)."""

    max_tokens: int | None = None
    """Estimated tokens of the active notes' contexts at most (``None``: no limit)."""

    def __post_init__(self) -> None:
        for name in ("max_notes", "max_tokens"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ConfigurationError(f"{name} must not be negative")

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        return self.max_notes is not None or self.max_tokens is not None


@dataclass(frozen=True)
class FormalConfig:
    """Capacity, expected queries and confidence. Every namespace gets ``budget`` unless
    ``budgets`` names it.
    """

    budget: Budget = Budget()
    """Default capacity of every namespace (unlimited by default: nothing is compacted)."""

    budgets: tuple[tuple[tuple[str, ...], Budget], ...] = ()
    """Per-namespace capacities, overriding ``budget``."""

    log_queries: bool = True
    """Whether every search is written to the query log (one insert per search)."""

    compact_to: float = 1.0
    """Compaction brings an over-budget namespace down to this fraction of its budget
    (below 1 leaves headroom so that the next writes do not each trigger a compaction)."""

    log_window: int = 1000
    """Most recent logged queries that shape the expected queries."""

    log_share: float = 0.7
    """Share of the expected query mass given to the query log once it has entries (the
    rest follows the prior)."""

    used_share: float = 0.5
    """Share of a logged query's mass on the notes its answer used, required together;
    the rest spreads to the notes it returned and to their neighbours."""

    returned_top: int = 10
    """Returned notes of a logged query that share its spread mass (rank-weighted
    ``1 / (rank + 1)``)."""

    neighbour_share: float = 0.2
    """Share of a logged query's spread mass passed along edges of its used / returned
    notes (weighted by edge strength)."""

    keyword_share: float = 0.2
    """Share of a logged query's spread mass given to notes sharing keywords with its
    used / top returned notes (weighted by inverse document frequency)."""

    prior_recency: float = 0.5
    """Prior weight of recency (newest note 1, oldest 0)."""

    prior_degree: float = 1.0
    """Prior weight of edge degree (normalised by the namespace's largest)."""

    prior_centrality: float = 1.0
    """Prior weight of topic centrality: the note's keywords' document frequencies
    (log-scaled), keywords in a current topic counting double, normalised."""

    prior_keywords: float = 1.0
    """Prior weight of informativeness: keywords carried (normalised)."""

    prior_strength: float = 2.0
    """``n0``: pseudo-count of an extracted note's prior (``alpha = n0 * c``)."""

    edge_weight: float = 0.5
    """``w_edge``: a supports / conflicts edge of strength ``s`` adds ``s * w_edge`` to
    alpha / beta of both notes."""

    merge_weight: float = 0.5
    """``w_merge``: a merged-in agreeing source adds this to the note's alpha."""

    feedback_weight: float = 1.0
    """``w``: weight of one settlement (``alpha += w * o``, ``beta += w * (1 - o)``)."""

    def budget_for(self, namespace: Sequence[str]) -> Budget:
        """The budget of ``namespace``."""
        return dict(self.budgets).get(tuple(namespace), self.budget)

    def __post_init__(self) -> None:
        shares = (self.log_share, self.used_share, self.neighbour_share, self.keyword_share)
        if not all(0.0 <= s <= 1.0 for s in shares):
            raise ConfigurationError("shares must be within [0, 1]")
        if self.neighbour_share + self.keyword_share > 1.0:
            raise ConfigurationError("neighbour_share + keyword_share must not exceed 1")
        if not 0.0 < self.compact_to <= 1.0:
            raise ConfigurationError("compact_to must be within (0, 1]")
        if self.prior_strength <= 0 or self.log_window < 0 or self.returned_top < 1:
            raise ConfigurationError(
                "prior_strength must be positive, log_window >= 0, returned_top >= 1"
            )
