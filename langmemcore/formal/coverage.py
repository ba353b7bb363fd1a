"""Coverage, weighted max coverage and the utility-capacity frontier (pure, no I/O).

The formal paper's objects (``seeds/formal-agent-memory-paper.md``, sections 2-3 and 6):

- a **coverage instance** is a finite set of elements (events, notes) and of queries, each
  query with a probability mass and one or more *requirements*: sets of elements that
  answer it together. A memory (a set of kept elements) covers a query when it contains
  every element of at least one of its requirements. When every requirement is a single
  element the generation operator is *decomposable* (each element answers its own query
  set ``S_e``) and the problem is weighted maximum coverage; conjunctive requirements
  (a question whose evidence spans several notes) make it a monotone but non-submodular
  set function (Proposition 3.6 (b)).
- the **utility** of a memory is the covered query mass; the **frontier** ``U*(S)`` is the
  best utility of a memory of at most ``S`` elements; a policy's **memory-efficiency
  loss** is ``U*(|M|) - U(M)``; the **full-memory baseline** is the utility of keeping
  every element.

:func:`greedy_max_coverage` adds, at each step, the missing part of a requirement with the
most newly covered mass per unit of cost; for a decomposable instance with unit costs this
is the classical greedy with its ``1 - 1/e`` guarantee. :func:`exact_max_coverage`
enumerates memories of a given size, for small instances.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from langmemcore._errors import InvalidInputError

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "CoverageInstance",
    "CoverageQuery",
    "Frontier",
    "FrontierPoint",
    "GreedyResult",
    "coverage",
    "efficiency_loss",
    "exact_max_coverage",
    "frontier",
    "full_memory_value",
    "greedy_max_coverage",
    "precision",
    "water_inflation",
]

E = TypeVar("E", bound=Hashable)

DEFAULT_EXACT_LIMIT = 200_000
"""Most memories :func:`frontier` enumerates at one capacity before it falls back to greedy."""


@dataclass(frozen=True)
class CoverageQuery(Generic[E]):
    """One expected query.

    Attributes:
        key: Its identity (question id, query text, ...).
        mass: Its probability mass (any non-negative weight; utilities are reported as
            fractions of the instance's total mass only by the callers that say so).
        requirements: Element sets that each answer it on their own; it is covered when
            every element of one of them is kept. Empty: unanswerable from any memory.
    """

    key: Hashable
    mass: float
    requirements: tuple[frozenset[E], ...]


@dataclass(frozen=True)
class CoverageInstance(Generic[E]):
    """Elements, their costs and the expected queries.

    Attributes:
        elements: Every element that may be kept, in a fixed order (ties break by it).
        queries: The expected queries.
        costs: Cost of keeping each element (missing: 1).
    """

    elements: tuple[E, ...]
    queries: tuple[CoverageQuery[E], ...]
    costs: Mapping[E, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        known = set(self.elements)
        for query in self.queries:
            if query.mass < 0 or math.isnan(query.mass):
                raise InvalidInputError(f"query {query.key!r} has a negative mass")
            for requirement in query.requirements:
                if not requirement or not requirement <= known:
                    raise InvalidInputError(
                        f"query {query.key!r} requires elements outside the instance"
                    )

    @classmethod
    def from_answer_sets(
        cls,
        answers: Mapping[E, Iterable[Hashable]],
        masses: Mapping[Hashable, float],
    ) -> CoverageInstance[E]:
        """A decomposable instance: element ``e`` alone answers the queries ``answers[e]``.

        Args:
            answers: Element -> the queries it answers (the paper's ``S_e``).
            masses: Query -> probability mass (queries no element answers still count in
                the total mass).
        """
        by_query: dict[Hashable, list[frozenset[E]]] = {q: [] for q in masses}
        for element, queries in answers.items():
            for q in queries:
                if q not in by_query:
                    raise InvalidInputError(f"element {element!r} answers unknown query {q!r}")
                by_query[q].append(frozenset((element,)))
        return cls(
            tuple(answers),
            tuple(CoverageQuery(q, float(masses[q]), tuple(r)) for q, r in by_query.items()),
        )

    @property
    def decomposable(self) -> bool:
        """Whether every requirement is a single element (weighted max coverage)."""
        return all(len(r) == 1 for q in self.queries for r in q.requirements)

    @property
    def total_mass(self) -> float:
        """Sum of the query masses."""
        return sum(q.mass for q in self.queries)

    def cost(self, element: E) -> float:
        """Cost of keeping ``element``."""
        return float(self.costs.get(element, 1.0))

    def restricted(self, kept: Collection[E]) -> CoverageInstance[E]:
        """The same queries over the elements in ``kept`` only (requirements that need any
        other element are dropped), e.g. the true claims of a noisy memory.
        """
        keep = set(kept)
        return CoverageInstance(
            tuple(e for e in self.elements if e in keep),
            tuple(
                CoverageQuery(q.key, q.mass, tuple(r for r in q.requirements if r <= keep))
                for q in self.queries
            ),
            {e: c for e, c in self.costs.items() if e in keep},
        )


def _covered(query: CoverageQuery[E], memory: set[E] | frozenset[E]) -> bool:
    return any(r <= memory for r in query.requirements)


def coverage(instance: CoverageInstance[E], memory: Iterable[E]) -> float:
    """Expected coverage utility: the mass of the queries ``memory`` covers (Def. 2.5)."""
    kept = set(memory)
    return sum(q.mass for q in instance.queries if _covered(q, kept))


def precision(instance: CoverageInstance[E], memory: Iterable[E], true: Collection[E]) -> float:
    """Expected precision utility: the mass covered by the true elements of ``memory``
    only (its good span, Def. 4.2).
    """
    truth = set(true)
    return coverage(instance, [e for e in memory if e in truth])


def water_inflation(
    instance: CoverageInstance[E], memory: Iterable[E], true: Collection[E]
) -> float:
    """Water-inflation degree: coverage minus precision (Prop. 4.3; never negative)."""
    kept = list(memory)
    return coverage(instance, kept) - precision(instance, kept, true)


def full_memory_value(instance: CoverageInstance[E]) -> float:
    """The full-memory (full-context) baseline: the utility of keeping every element."""
    return coverage(instance, instance.elements)


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


class _Greedy(Generic[E]):
    """Lazy greedy over requirement completions (see :func:`greedy_max_coverage`)."""

    def __init__(self, instance: CoverageInstance[E]) -> None:
        self.instance = instance
        self.order = {e: i for i, e in enumerate(instance.elements)}
        self.touching: dict[E, list[int]] = {}
        for index, query in enumerate(instance.queries):
            for requirement in query.requirements:
                for element in requirement:
                    self.touching.setdefault(element, []).append(index)
        self.kept: set[E] = set()
        self.covered: set[int] = set()

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
                if _covered(self.instance.queries[index], trial):
                    total += self.instance.queries[index].mass
        return total

    def entry(self, added: tuple[E, ...]) -> tuple[float, tuple[int, ...], tuple[E, ...]]:
        cost = sum(self.instance.cost(e) for e in added)
        ratio = self.gain(added) / cost if cost > 0 else math.inf
        return (-ratio, tuple(self.order[e] for e in added), added)

    def add(self, added: Sequence[E]) -> float:
        gained = self.gain(added)
        self.kept.update(added)
        for element in added:
            for index in self.touching.get(element, ()):
                if index not in self.covered and _covered(self.instance.queries[index], self.kept):
                    self.covered.add(index)
        return gained


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
    state = _Greedy(instance)
    heap: list[tuple[float, tuple[int, ...], tuple[E, ...]]] = []
    pushed: set[tuple[E, ...]] = set()

    def push(added: tuple[E, ...]) -> None:
        if added and added not in pushed:
            pushed.add(added)
            heapq.heappush(heap, state.entry(added))

    for query in instance.queries:
        if query.mass > 0:
            for requirement in query.requirements:
                push(state.missing(requirement))
    spent = 0.0
    memory: list[E] = []
    gains: list[float] = []
    steps: list[tuple[E, ...]] = []
    while heap:
        _ratio, _order, added = heapq.heappop(heap)
        pushed.discard(added)
        fresh = tuple(e for e in added if e not in state.kept)
        if fresh != added:
            push(fresh)
            continue
        current = state.entry(added)
        if heap and current > heap[0]:
            pushed.add(added)
            heapq.heappush(heap, current)
            continue
        if current[0] >= 0:
            break
        cost = sum(instance.cost(e) for e in added)
        if spent + cost > budget + 1e-12:
            continue
        gains.append(state.add(added))
        spent += cost
        memory.extend(added)
        steps.append(added)
        for element in added:
            for index in state.touching.get(element, ()):
                if index not in state.covered:
                    for requirement in instance.queries[index].requirements:
                        push(state.missing(requirement))
    if fill:
        for element in instance.elements:
            cost = instance.cost(element)
            if element not in state.kept and spent + cost <= budget + 1e-12:
                gains.append(state.add((element,)))
                spent += cost
                memory.append(element)
                steps.append((element,))
    return GreedyResult(tuple(memory), coverage(instance, memory), tuple(gains), tuple(steps))


def exact_max_coverage(instance: CoverageInstance[E], size: int) -> tuple[tuple[E, ...], float]:
    """The best memory of at most ``size`` elements, by enumeration (unit costs).

    By monotonicity a best memory of exactly ``min(size, n)`` elements exists; ties go to
    the memory first in lexicographic ``instance.elements`` order.

    Returns:
        The memory (in ``instance.elements`` order) and its covered mass.
    """
    size = max(0, min(size, len(instance.elements)))
    best: tuple[E, ...] = ()
    best_value = -math.inf
    for memory in itertools.combinations(instance.elements, size):
        value = coverage(instance, memory)
        if value > best_value + 1e-12:
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
