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

This module holds the instance and the utilities; the solvers (greedy and exact max
coverage) and the frontier are in :mod:`~langmemcore.formal.max_coverage`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from langmemcore._errors import InvalidInputError

__all__ = [
    "CoverageInstance",
    "CoverageQuery",
    "coverage",
    "full_memory_value",
    "precision",
    "water_inflation",
]

E = TypeVar("E", bound=Hashable)


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

    def covered_by(self, memory: set[E] | frozenset[E]) -> bool:
        """Whether ``memory`` holds every element of one of the requirements."""
        return any(r <= memory for r in self.requirements)


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


def coverage(instance: CoverageInstance[E], memory: Iterable[E]) -> float:
    """Expected coverage utility: the mass of the queries ``memory`` covers (Def. 2.5)."""
    kept = set(memory)
    return sum(q.mass for q in instance.queries if q.covered_by(kept))


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
