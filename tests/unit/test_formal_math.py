"""Coverage, greedy / exact max coverage and the Beta confidence rule, without a database."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langmemcore import InvalidInputError
from langmemcore.formal.confidence import BetaBelief, edge_evidence, prior_belief, settle
from langmemcore.formal.coverage import CoverageInstance, CoverageQuery, coverage
from langmemcore.formal.max_coverage import exact_max_coverage, frontier, greedy_max_coverage


def conjunctive() -> CoverageInstance[int]:
    return CoverageInstance(
        (1, 2, 3, 4),
        (
            CoverageQuery("a", 0.5, (frozenset({1, 2}),)),
            CoverageQuery("b", 0.3, (frozenset({3}),)),
            CoverageQuery("c", 0.2, (frozenset({4}), frozenset({1}))),
        ),
    )


def test_conjunctive_requirement_needs_every_element() -> None:
    instance = conjunctive()
    assert not instance.decomposable
    assert coverage(instance, [1]) == pytest.approx(0.2)
    assert coverage(instance, [1, 2]) == pytest.approx(0.7)
    result = greedy_max_coverage(instance, 2)
    assert set(result.memory) == {1, 2} and result.value == pytest.approx(0.7)


def test_greedy_respects_costs_and_budget() -> None:
    instance = CoverageInstance(
        ("big", "small1", "small2"),
        (
            CoverageQuery("x", 0.6, (frozenset({"big"}),)),
            CoverageQuery("y", 0.35, (frozenset({"small1"}),)),
            CoverageQuery("z", 0.3, (frozenset({"small2"}),)),
        ),
        {"big": 3.0, "small1": 1.0, "small2": 1.0},
    )
    result = greedy_max_coverage(instance, 2.0)
    assert set(result.memory) == {"small1", "small2"}
    assert sum(instance.cost(e) for e in result.memory) <= 2.0


def test_fill_uses_the_whole_budget_and_no_fill_stops() -> None:
    instance = CoverageInstance((1, 2, 3), (CoverageQuery("a", 1.0, (frozenset({2}),)),))
    assert greedy_max_coverage(instance, 2).memory == (2, 1)
    assert greedy_max_coverage(instance, 2, fill=False).memory == (2,)


def test_invalid_instances_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        CoverageInstance((1,), (CoverageQuery("a", 1.0, (frozenset({9}),)),))
    with pytest.raises(InvalidInputError):
        CoverageInstance((1,), (CoverageQuery("a", -1.0, (frozenset({1}),)),))
    with pytest.raises(InvalidInputError):
        frontier(conjunctive(), [2]).value(3)


def test_frontier_falls_back_to_greedy_and_says_so() -> None:
    curve = frontier(conjunctive(), [2], exact_limit=1)
    assert curve.method == "greedy"
    assert frontier(conjunctive(), [2]).method == "exact"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.0, 1.0), st.sets(st.integers(0, 6), min_size=1, max_size=3)),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 7),
)
def test_decomposable_greedy_is_within_1_minus_1_over_e(
    queries: list[tuple[float, set[int]]], size: int
) -> None:
    answers: dict[int, list[str]] = {e: [] for e in range(7)}
    masses = {}
    for index, (mass, elements) in enumerate(queries):
        masses[f"q{index}"] = mass
        for e in elements:
            answers[e].append(f"q{index}")
    instance = CoverageInstance.from_answer_sets(answers, masses)
    best = max(coverage(instance, m) for m in itertools.combinations(range(7), min(size, 7)))
    assert exact_max_coverage(instance, size)[1] == pytest.approx(best)
    greedy = greedy_max_coverage(instance, size).value
    assert greedy >= (1 - 1 / 2.718281828459045) * best - 1e-9
    assert greedy <= best + 1e-9


def test_prior_settle_and_edges_follow_the_documented_rule() -> None:
    prior = prior_belief(0.5, 2.0)
    assert (prior.alpha, prior.beta, prior.tau) == (1.0, 1.0, 0.5)
    right = settle(prior, 1.0, 1.0)
    assert (right.alpha, right.beta) == (2.0, 1.0)
    assert right.tau == pytest.approx(2 / 3)
    wrong = settle(right, 0.0, 2.0)
    assert (wrong.alpha, wrong.beta) == (2.0, 3.0)
    assert wrong.tau == pytest.approx(0.4)
    half = settle(prior, 0.25, 4.0)
    assert (half.alpha, half.beta) == (2.0, 4.0)
    assert edge_evidence("supports", 0.8, 0.5) == (0.4, 0.0)
    assert edge_evidence("conflicts", 0.6, 1.0) == (0.0, 0.6)
    assert edge_evidence("related_to", 0.9, 1.0) == (0.0, 0.0)


def test_beliefs_refuse_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        settle(prior_belief(0.5, 2.0), 1.5)
    with pytest.raises(InvalidInputError):
        prior_belief(0.5, 0.0)
    with pytest.raises(InvalidInputError):
        BetaBelief(0.0, 0.0)


def test_exact_max_coverage_tells_tiny_masses_apart() -> None:
    answers = {0: ["q0"], 1: ["q1"]}
    instance = CoverageInstance.from_answer_sets(answers, {"q0": 1e-12, "q1": 2e-12})
    assert exact_max_coverage(instance, 1) == ((1,), 2e-12)
