"""Max coverage and the utility-capacity frontier (pure, no I/O).

Solvers over a :class:`~langmemcore.formal.coverage.CoverageInstance`:
:func:`greedy_max_coverage` adds, at each step, the missing part of a requirement with the
most newly covered mass per unit of cost; for a decomposable instance with unit costs this
is the classical greedy with its ``1 - 1/e`` guarantee. :func:`exact_max_coverage`
enumerates memories of a given size, for small instances. :func:`frontier` is the paper's
``U*(S)`` (Def. 3.1), exact where enumeration is affordable, and
:func:`efficiency_loss` a policy's distance to it.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from langmemcore._errors import InvalidInputError
from langmemcore.formal.coverage import CoverageInstance, coverage, full_memory_value

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "Frontier",
    "FrontierPoint",
    "GreedyResult",
    "efficiency_loss",
    "exact_max_coverage",
    "frontier",
    "greedy_max_coverage",
]

E = TypeVar("E", bound=Hashable)

DEFAULT_EXACT_LIMIT = 200_000
"""Most memories :func:`frontier` enumerates at one capacity before it falls back to greedy."""

_SLACK = 1e-12
"""Rounding slack of the budget check."""


@dataclass(frozen=True)
class GreedyResult(Generic[E]):
    """What greedy max coverage kept.

    Attributes:
        memory: Kept elements in the order they were added.
        value: Covered mass.
        gains: Covered mass added by each step (a step adds one or more elements).
        steps: Elements added by each step.
    """

    memory: tuple[E, ...]
    value: float
    gains: tuple[float, ...]
    steps: tuple[tuple[E, ...], ...]


_Entry = tuple[float, tuple[int, ...], tuple[E, ...]]


class _Greedy(Generic[E]):
    """Lazy greedy over requirement completions (see :func:`greedy_max_coverage`).

    Candidates are the missing parts of requirements of uncovered queries, in a heap by
    (minus gain per cost, position of their elements in ``instance.elements``).
    """

    def __init__(self, instance: CoverageInstance[E], budget: float) -> None:
        self.instance = instance
        self.budget = budget
        self.order = {e: i for i, e in enumerate(instance.elements)}
        self.touching: dict[E, list[int]] = {}
        for index, query in enumerate(instance.queries):
            for requirement in query.requirements:
                for element in requirement:
                    self.touching.setdefault(element, []).append(index)
        self.kept: set[E] = set()
        self.covered: set[int] = set()
        self.heap: list[_Entry[E]] = []
        self.pushed: set[tuple[E, ...]] = set()
        self.spent = 0.0
        self.steps: list[tuple[E, ...]] = []
        self.gains: list[float] = []

    def missing(self, requirement: frozenset[E]) -> tuple[E, ...]:
        return tuple(sorted(requirement - self.kept, key=self.order.__getitem__))

    def gain(self, added: Sequence[E]) -> float:
        trial = self.kept | set(added)
        seen: set[int] = set()
        total = 0.0
        for element in added:
            for index in self.touching.get(element, ()):
                if index in self.covered or index in seen:
                    continue
                seen.add(index)
                if self.instance.queries[index].covered_by(trial):
                    total += self.instance.queries[index].mass
        return total

    def cost(self, added: Sequence[E]) -> float:
        return sum(self.instance.cost(e) for e in added)

    def entry(self, added: tuple[E, ...]) -> _Entry[E]:
        cost = self.cost(added)
        ratio = self.gain(added) / cost if cost > 0 else math.inf
        return (-ratio, tuple(self.order[e] for e in added), added)

    def push(self, added: tuple[E, ...]) -> None:
        if added and added not in self.pushed:
            self.pushed.add(added)
            heapq.heappush(self.heap, self.entry(added))

    def push_completions(self, indices: Iterable[int]) -> None:
        """Candidates completing a requirement of each uncovered query of ``indices``."""
        for index in indices:
            if index not in self.covered:
                for requirement in self.instance.queries[index].requirements:
                    self.push(self.missing(requirement))

    def next_step(self) -> tuple[E, ...] | None:
        """The best candidate by its current gain (re-evaluated lazily), or ``None`` when
        no candidate adds coverage any more.
        """
        while self.heap:
            _ratio, _order, added = heapq.heappop(self.heap)
            self.pushed.discard(added)
            fresh = tuple(e for e in added if e not in self.kept)
            if fresh != added:
                self.push(fresh)
                continue
            current = self.entry(added)
            if self.heap and current > self.heap[0]:
                self.pushed.add(added)
                heapq.heappush(self.heap, current)
                continue
            return None if current[0] >= 0 else added
        return None

    def fits(self, added: Sequence[E]) -> bool:
        return self.spent + self.cost(added) <= self.budget + _SLACK

    def keep(self, added: tuple[E, ...]) -> None:
        """Add one step's elements and mark the queries they cover."""
        gained = self.gain(added)
        self.kept.update(added)
        for element in added:
            for index in self.touching.get(element, ()):
                query = self.instance.queries[index]
                if index not in self.covered and query.covered_by(self.kept):
                    self.covered.add(index)
        self.gains.append(gained)
        self.spent += self.cost(added)
        self.steps.append(added)

    def result(self) -> GreedyResult[E]:
        memory = tuple(e for step in self.steps for e in step)
        value = coverage(self.instance, memory)
        return GreedyResult(memory, value, tuple(self.gains), tuple(self.steps))


def greedy_max_coverage(
    instance: CoverageInstance[E], budget: float, *, fill: bool = True
) -> GreedyResult[E]:
    """Greedy weighted max coverage within ``budget`` (total cost of the kept elements).

    Each step adds the missing elements of one requirement of an uncovered query (a
    single element when the instance is decomposable), the one with the most newly
    covered mass per unit of cost that still fits; ties go to the elements earlier in
    ``instance.elements``. Gains are re-evaluated lazily and candidates touching the
    elements just added are refreshed. For a decomposable instance with unit costs the
    result is the classical greedy, within ``1 - 1/e`` of the optimum; with conjunctive
    requirements or unequal costs no guarantee is claimed.

    Args:
        instance: The coverage instance.
        budget: Largest total cost of the memory (with unit costs: its size).
        fill: Fill the budget left once nothing adds coverage with the remaining elements
            in ``instance.elements`` order (more memory is never worse).
    """
    state = _Greedy(instance, budget)
    state.push_completions(i for i, q in enumerate(instance.queries) if q.mass > 0)
    while (added := state.next_step()) is not None:
        if state.fits(added):
            state.keep(added)
            state.push_completions(i for e in added for i in state.touching.get(e, ()))
    if fill:
        for element in instance.elements:
            if element not in state.kept and state.fits((element,)):
                state.keep((element,))
    return state.result()


def exact_max_coverage(instance: CoverageInstance[E], size: int) -> tuple[tuple[E, ...], float]:
    """The best memory of at most ``size`` elements, by enumeration (unit costs).

    By monotonicity a best memory of exactly ``min(size, n)`` elements exists; ties (equal
    up to float rounding, relative to the values, however small) go to the memory first in
    lexicographic ``instance.elements`` order.

    Returns:
        The memory (in ``instance.elements`` order) and its covered mass.
    """
    size = max(0, min(size, len(instance.elements)))
    best: tuple[E, ...] = ()
    best_value = -math.inf
    for memory in itertools.combinations(instance.elements, size):
        value = coverage(instance, memory)
        if value > best_value and not math.isclose(value, best_value, rel_tol=1e-12):
            best, best_value = memory, value
    return best, max(best_value, 0.0)


@dataclass(frozen=True)
class FrontierPoint(Generic[E]):
    """One capacity of the utility-capacity frontier.

    Attributes:
        capacity: ``S``.
        value: ``U*(S)`` (exact) or the greedy lower bound of it.
        memory: A memory attaining ``value``.
        method: ``"exact"`` (enumeration) or ``"greedy"``.
    """

    capacity: int
    value: float
    memory: tuple[E, ...]
    method: str


@dataclass(frozen=True)
class Frontier(Generic[E]):
    """The utility-capacity curve ``U*(S)`` with the full-memory baseline.

    Attributes:
        points: One point per capacity, in increasing capacity.
        baseline: Utility of keeping every element.
    """

    points: tuple[FrontierPoint[E], ...]
    baseline: float

    def value(self, capacity: int) -> float:
        """``U*(capacity)``."""
        for point in self.points:
            if point.capacity == capacity:
                return point.value
        raise InvalidInputError(f"capacity {capacity} is not on this frontier")

    @property
    def method(self) -> str:
        """``"exact"`` when every point was enumerated, else ``"greedy"`` (a lower bound)."""
        return "exact" if all(p.method == "exact" for p in self.points) else "greedy"


def frontier(
    instance: CoverageInstance[E],
    capacities: Iterable[int] | None = None,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> Frontier[E]:
    """The utility-capacity frontier (Def. 3.1) at ``capacities`` (default ``0..n``).

    A capacity is solved exactly when at most ``exact_limit`` memories of that size
    exist (and costs are unit), else by :func:`greedy_max_coverage`; each point says which.
    """
    n = len(instance.elements)
    unit = all(instance.cost(e) == 1.0 for e in instance.elements)
    points = []
    for capacity in sorted(set(range(n + 1) if capacities is None else capacities)):
        if capacity < 0:
            raise InvalidInputError("capacities must be non-negative")
        if unit and math.comb(n, min(capacity, n)) <= exact_limit:
            memory, value = exact_max_coverage(instance, capacity)
            points.append(FrontierPoint(capacity, value, memory, "exact"))
        else:
            result = greedy_max_coverage(instance, capacity)
            points.append(FrontierPoint(capacity, result.value, result.memory, "greedy"))
    return Frontier(tuple(points), full_memory_value(instance))


def efficiency_loss(
    instance: CoverageInstance[E], memory: Collection[E], curve: Frontier[E]
) -> float:
    """Memory-efficiency loss of a policy's memory: ``U*(|memory|) - U(memory)``.

    Raises:
        InvalidInputError: ``curve`` has no point at ``len(memory)``.
    """
    return curve.value(len(set(memory))) - coverage(instance, memory)
