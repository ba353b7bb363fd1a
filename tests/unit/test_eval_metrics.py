"""Turn-budget evidence recall and the per-category recall table (hand-computed cases)."""

from __future__ import annotations

import pytest

from langmemcore._errors import InvalidInputError
from langmemcore.eval import RecallTable, hit_at_k, recall_at_k, turns_within_budget


def test_turns_within_budget_truncates_last_result() -> None:
    ranked = [["a", "b"], ["b", "c", "d"], ["e"]]
    # a, b from the first result; b is a repeat; c fills the budget of 3; d is cut.
    assert turns_within_budget(ranked, 3) == ["a", "b", "c"]
    assert turns_within_budget(ranked, 4) == ["a", "b", "c", "d"]
    assert turns_within_budget(ranked, 10) == ["a", "b", "c", "d", "e"]
    assert turns_within_budget(ranked, 0) == []
    assert turns_within_budget([], 5) == []


def test_turns_within_budget_rejects_negative_budget() -> None:
    with pytest.raises(InvalidInputError):
        turns_within_budget([["a"]], -1)


def test_recall_and_hit() -> None:
    evidence = ["a", "b", "c", "d"]
    assert recall_at_k(evidence, ["b", "x", "d"]) == 0.5
    assert hit_at_k(evidence, ["b", "x", "d"]) is True
    assert recall_at_k(evidence, ["x", "y"]) == 0.0
    assert hit_at_k(evidence, []) is False
    # Duplicate evidence ids count once: 1 of 2 distinct ids found.
    assert recall_at_k(["a", "a", "b"], ["a"]) == 0.5


def test_recall_rejects_empty_evidence() -> None:
    with pytest.raises(InvalidInputError):
        recall_at_k([], ["a"])
    with pytest.raises(InvalidInputError):
        hit_at_k([], ["a"])


def _table() -> RecallTable:
    table = RecallTable(ks=(1, 3))
    # Multi-hop Q1: budget 1 -> {a}: 1/2; budget 3 -> {a, b, c}: 2/2; hit.
    table.add(1, [["a"], ["b"], ["c"]], ["a", "c"])
    # Multi-hop Q2: evidence never retrieved.
    table.add(1, [["x", "y"], ["z"]], ["q"])
    # Single-hop Q3: budget 1 -> {m}: 0; budget 3 -> {m, n, o}: 1; hit.
    table.add(4, [["m", "n", "o"]], ["n"])
    return table


def test_recall_table_is_sample_weighted() -> None:
    report = _table().report()
    multi, single, overall = report["multi-hop"], report["single-hop"], report["overall"]
    assert multi.n == 2 and single.n == 1 and overall.n == 3
    assert multi.recall == pytest.approx({1: 25.0, 3: 50.0})
    assert multi.hit == pytest.approx(50.0)
    assert single.recall == pytest.approx({1: 0.0, 3: 100.0})
    # Overall is the mean over the 3 questions (2/3), not the mean of category means (3/4).
    assert overall.recall == pytest.approx({1: 50.0 / 3, 3: 200.0 / 3})
    assert overall.hit == pytest.approx(200.0 / 3)
    assert report["temporal"].n == 0 and report["temporal"].hit is None


def test_recall_table_truncates_within_a_result() -> None:
    table = RecallTable(ks=(2,))
    table.add(2, [["a", "b", "c"]], ["c"])
    assert table.report()["overall"].recall[2] == 0.0
    assert table.report()["overall"].hit == 0.0


def test_recall_table_markdown() -> None:
    lines = _table().format_markdown().splitlines()
    assert lines[0] == "| category | R@1 | R@3 | Hit@3 | n |"
    assert [line.split("|")[1].strip() for line in lines[2:]] == [
        "multi-hop",
        "temporal",
        "open-domain",
        "single-hop",
        "overall",
    ]
    assert lines[2] == "| multi-hop | 25.0 | 50.0 | 50.0 | 2 |"
    assert lines[3] == "| temporal | - | - | - | 0 |"
    assert lines[6] == "| overall | 16.7 | 66.7 | 66.7 | 3 |"


def test_recall_table_default_columns() -> None:
    table = RecallTable()
    assert table.format_markdown().splitlines()[0] == (
        "| category | R@5 | R@10 | R@20 | Hit@20 | n |"
    )
    assert table.n == 0


@pytest.mark.parametrize("ks", [(), (0, 5), (10, 5), (5, 5)])
def test_recall_table_rejects_bad_budgets(ks: tuple[int, ...]) -> None:
    with pytest.raises(InvalidInputError):
        RecallTable(ks=ks)


def test_recall_table_rejects_adversarial_and_empty_evidence() -> None:
    table = RecallTable()
    with pytest.raises(InvalidInputError):
        table.add(5, [["a"]], ["a"])
    with pytest.raises(InvalidInputError):
        table.add(1, [["a"]], [])
    assert table.n == 0
