"""The Odyssey instance of the formal paper (section 6, tables 3 and 4) through the public
functions the system itself uses for compaction and the frontier evaluation."""

from __future__ import annotations

import pytest

from langmemcore.formal.coverage import (
    CoverageInstance,
    coverage,
    full_memory_value,
    precision,
    water_inflation,
)
from langmemcore.formal.max_coverage import efficiency_loss, frontier, greedy_max_coverage

MASSES = {
    "q1": 0.20,
    "q2": 0.05,
    "q3": 0.10,
    "q4": 0.15,
    "q5": 0.05,
    "q6": 0.20,
    "q7": 0.05,
    "q8": 0.20,
}
ANSWERS = {
    "e1": ("q1", "q2"),
    "e2": ("q3", "q8"),
    "e3": ("q4", "q8"),
    "e4": ("q6",),
    "e5": ("q5",),
    "e6": ("q7",),
}
TABLE_4 = [0.00, 0.35, 0.60, 0.80, 0.90, 0.95, 1.00]
FALSE_CLAIM = {"e_hat": ("q1", "q2", "q6")}


def odyssey() -> CoverageInstance[str]:
    return CoverageInstance.from_answer_sets(ANSWERS, MASSES)


def test_table_3_event_masses() -> None:
    instance = odyssey()
    masses = {e: coverage(instance, [e]) for e in ANSWERS}
    assert masses == pytest.approx(
        {"e1": 0.25, "e2": 0.30, "e3": 0.35, "e4": 0.20, "e5": 0.05, "e6": 0.05}
    )
    assert instance.decomposable


def test_table_4_frontier_is_exact_and_matches() -> None:
    curve = frontier(odyssey())
    assert curve.method == "exact"
    assert [p.capacity for p in curve.points] == list(range(7))
    assert [p.value for p in curve.points] == pytest.approx(TABLE_4, abs=1e-12)
    assert set(curve.points[1].memory) == {"e3"}
    assert set(curve.points[2].memory) == {"e3", "e1"}
    assert set(curve.points[3].memory) == {"e3", "e1", "e4"}
    assert set(curve.points[4].memory) == {"e3", "e1", "e4", "e2"}
    assert curve.baseline == pytest.approx(1.0) == full_memory_value(odyssey())


def test_greedy_coincides_with_the_optimum_and_its_gains_never_increase() -> None:
    instance = odyssey()
    for size, expected in enumerate(TABLE_4):
        assert greedy_max_coverage(instance, size).value == pytest.approx(expected, abs=1e-12)
    full = greedy_max_coverage(instance, 6)
    assert full.gains == pytest.approx([0.35, 0.25, 0.20, 0.10, 0.05, 0.05], abs=1e-12)
    assert full.memory[:4] == ("e3", "e1", "e4", "e2")


def test_wanderings_policy_loses_0_15_at_s4() -> None:
    instance = odyssey()
    policy = ["e3", "e2", "e1", "e6"]
    assert coverage(instance, policy) == pytest.approx(0.75)
    loss = efficiency_loss(instance, policy, frontier(instance, [4]))
    assert loss == pytest.approx(0.15, abs=1e-12)


def test_false_claim_inflates_coverage_by_0_45_at_size_2() -> None:
    noisy = CoverageInstance.from_answer_sets({**ANSWERS, **FALSE_CLAIM}, MASSES)
    true = set(ANSWERS)
    curve = frontier(noisy, [1, 2])
    one, two = curve.points
    assert set(one.memory) == {"e_hat"} and one.value == pytest.approx(0.45)
    assert precision(noisy, one.memory, true) == 0.0
    assert set(two.memory) == {"e_hat", "e3"}
    assert coverage(noisy, two.memory) == pytest.approx(0.80)
    assert precision(noisy, two.memory, true) == pytest.approx(0.35)
    assert water_inflation(noisy, two.memory, true) == pytest.approx(0.45)
    precise = frontier(noisy.restricted(true), [2]).points[0]
    assert set(precise.memory) == {"e3", "e1"}
    assert precise.value == pytest.approx(0.60)
    assert water_inflation(noisy, precise.memory, true) == 0.0
