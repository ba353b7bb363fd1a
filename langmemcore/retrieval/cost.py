"""What searches cost: rounds and channel calls counted by the retrieval graph's nodes.

:func:`track_search_cost` opens a counter for the searches run inside its block (tasks
started in it included, as LangGraph's nodes are); outside one, nothing is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["SearchCost", "count", "track_search_cost"]


@dataclass
class SearchCost:
    """Counts over the searches of one block."""

    searches: int = 0
    """Searches started (the decompose step ran)."""

    refined: int = 0
    """Searches that ran at least one sub-query round."""

    subquery_rounds: int = 0
    """Sub-query rounds run, over all searches."""

    channel_calls: int = 0
    """Channel rankings computed (each channel of each round, the neighbour channel
    included)."""

    superseded: int = 0
    """Searches whose returned order supersession changed (a newer statement moved above
    the older one it supersedes, or for a question about the state before a change, the
    older above the newer)."""

    @property
    def refined_share(self) -> float:
        """Share of searches with a sub-query round (0 when none ran)."""
        return self.refined / self.searches if self.searches else 0.0

    @property
    def channel_calls_per_search(self) -> float:
        """Mean channel rankings per search (0 when none ran)."""
        return self.channel_calls / self.searches if self.searches else 0.0


_cost: ContextVar[SearchCost | None] = ContextVar("langmemcore_search_cost", default=None)


def count(
    *,
    searches: int = 0,
    refined: int = 0,
    subquery_rounds: int = 0,
    channel_calls: int = 0,
    superseded: int = 0,
) -> None:
    """Add to the counter of the block running (no-op outside one)."""
    cost = _cost.get()
    if cost is None:
        return
    cost.searches += searches
    cost.refined += refined
    cost.subquery_rounds += subquery_rounds
    cost.channel_calls += channel_calls
    cost.superseded += superseded


@contextmanager
def track_search_cost() -> Iterator[SearchCost]:
    """Count the rounds and channel calls of the searches run inside the block."""
    cost = SearchCost()
    token = _cost.set(cost)
    try:
        yield cost
    finally:
        _cost.reset(token)
