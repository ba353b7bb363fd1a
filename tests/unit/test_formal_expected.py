"""The expected-query model compaction maximises, and the frontier report (no database)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from sqlalchemy.dialects import postgresql

from langmemcore.eval.frontier import (
    CurvePoint,
    FrontierReport,
    GoldQuery,
    NamespaceCurve,
    gold_instance,
    split_questions,
)
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.formal.coverage import coverage
from langmemcore.formal.expected import (
    EdgeFacts,
    LoggedQuery,
    NoteFacts,
    expected_queries,
    prior_masses,
)
from langmemcore.formal.max_coverage import greedy_max_coverage
from langmemcore.storage.formal import queries as fq

NOTES = [
    NoteFacts(1, 1, ("adoption", "agency"), 10, 0.5),
    NoteFacts(2, 2, (), 5, 0.5),
    NoteFacts(3, 3, ("pottery",), 8, 0.5),
    NoteFacts(4, 4, ("adoption",), 12, 0.5),
    NoteFacts(5, 5, (), 4, 0.5),
]
EDGES = [EdgeFacts(1, 4, 1.0)]


def test_prior_without_log_is_the_documented_mix() -> None:
    only_recency = FormalConfig(
        prior_recency=1.0, prior_degree=0.0, prior_centrality=0.0, prior_keywords=0.0
    )
    masses = prior_masses(NOTES, EDGES, (), only_recency)
    assert masses == pytest.approx({1: 0.0, 2: 0.1, 3: 0.2, 4: 0.3, 5: 0.4})
    only_degree = FormalConfig(
        prior_recency=0.0, prior_degree=1.0, prior_centrality=0.0, prior_keywords=0.0
    )
    assert prior_masses(NOTES, EDGES, (), only_degree) == pytest.approx(
        {1: 0.5, 2: 0.0, 3: 0.0, 4: 0.5, 5: 0.0}
    )
    instance = expected_queries(NOTES, EDGES, (), [], FormalConfig())
    assert instance.decomposable and instance.total_mass == pytest.approx(0.5)
    assert instance.elements == (5, 4, 3, 2, 1)


def test_topic_keywords_raise_centrality() -> None:
    config = FormalConfig(prior_recency=0, prior_degree=0, prior_centrality=1, prior_keywords=0)
    plain = prior_masses(NOTES, (), (), config)
    topical = prior_masses(NOTES, (), ("pottery",), config)
    assert topical[3] > plain[3]


def test_used_notes_are_required_together_and_kept() -> None:
    log = [LoggedQuery(7, returned=(3, 2), used=(2, 5))]
    config = FormalConfig(log_share=0.9, used_share=0.8)
    instance = expected_queries(NOTES, EDGES, (), log, config)
    conjunctive = [q for q in instance.queries if q.key == ("log", 7)]
    assert conjunctive[0].requirements == (frozenset({2, 5}),)
    assert conjunctive[0].mass == pytest.approx(0.9 * 0.8 * 0.5)
    assert instance.total_mass == pytest.approx(0.5)
    kept = greedy_max_coverage(instance, 2).memory
    assert set(kept) == {2, 5}


def test_spread_reaches_returned_neighbours_and_keyword_sharers() -> None:
    log = [LoggedQuery(8, returned=(1,), used=())]
    config = FormalConfig(log_share=1.0, neighbour_share=0.3, keyword_share=0.3, prior_recency=1.0)
    instance = expected_queries(NOTES, EDGES, (), log, config)
    mass = {q.key: q.mass for q in instance.queries}
    assert mass[("note", 1)] == pytest.approx(0.4 * 0.5)
    assert mass[("note", 4)] == pytest.approx(0.6 * 0.5)
    assert mass[("note", 3)] == 0.0


def test_confidence_scales_single_note_mass() -> None:
    doubtful = [NoteFacts(1, 1, (), 1, 0.1), NoteFacts(2, 1, (), 1, 0.9)]
    instance = expected_queries(doubtful, (), (), [], FormalConfig(prior_recency=0.0))
    assert greedy_max_coverage(instance, 1, fill=False).memory == ()
    config = FormalConfig(prior_recency=0.0, prior_keywords=0.0, prior_degree=0.0)
    assert coverage(instance, [2]) >= coverage(instance, [1])
    assert config.budget_for(("x",)) == Budget()


def test_token_costs() -> None:
    instance = expected_queries(NOTES, (), (), [], FormalConfig(), token_costs=True)
    assert instance.cost(4) == 12.0
    kept = greedy_max_coverage(instance, 10).memory
    assert sum(instance.cost(e) for e in kept) <= 10


def test_split_is_fixed_and_halves() -> None:
    questions = [GoldQuery(f"q{i}", (f"D1:{i}",)) for i in range(9)]
    disclosed, scoring = split_questions(questions, 0, "conv-1")
    assert (len(disclosed), len(scoring)) == (4, 5)
    assert set(disclosed).isdisjoint(scoring) and set(disclosed) | set(scoring) == set(questions)
    assert split_questions(questions, 0, "conv-1") == (disclosed, scoring)
    assert split_questions(questions, 1, "conv-1") != (disclosed, scoring)


def test_gold_instance_needs_every_evidence_note() -> None:
    questions = [GoldQuery("a", ("x", "y")), GoldQuery("b", ("z",)), GoldQuery("c", ("gone",))]
    instance = gold_instance([1, 2, 3], {"x": 1, "y": 2, "z": 2}, questions)
    assert coverage(instance, [1]) == 0.0
    assert coverage(instance, [1, 2]) == 2.0
    assert coverage(instance, [1, 2, 3]) == 2.0


def report() -> FrontierReport:
    def curve(name: str, covered: list[dict[str, float]]) -> NamespaceCurve:
        points = tuple(
            CurvePoint(s, int(s * 10), c, "greedy")
            for s, c in zip((0.25, 0.5), covered, strict=True)
        )
        return NamespaceCurve(name, 10, 4, 4.0, points)

    first = {"policy": 2.0, "recency": 1.0, "random": 1.0, "oracle": 3.0}
    second = {"policy": 3.0, "recency": 2.0, "random": 1.0, "oracle": 4.0}
    return FrontierReport((curve("a", [first, second]), curve("b", [second, second])))


def test_report_pools_namespaces(tmp_path: Path) -> None:
    pooled = report()
    assert pooled.scoring == 8
    assert pooled.pooled(0.25, "policy") == pytest.approx(100 * 5 / 8)
    rows = pooled.rows()
    assert rows[0]["policy_loss"] == pytest.approx(100 * 7 / 8 - 100 * 5 / 8, abs=0.01)
    assert rows[1]["notes"] == 10 and rows[1]["full"] == 100.0
    table = pooled.format_markdown()
    assert "| 25% | 4 | 62.5 | 37.5 | 25.0 | 87.5 | 25.0 | greedy |" in table
    pooled.write_csv(tmp_path / "f.csv")
    with (tmp_path / "f.csv").open() as handle:
        assert [r["share"] for r in csv.DictReader(handle)] == ["0.25", "0.5"]
    pooled.plot(tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_formal_statements_filter_by_namespace() -> None:
    for stmt in (
        fq.recent_queries("ns", 5),
        fq.active_note_facts("ns"),
        fq.edges_among_active("ns"),
        fq.current_topic_keywords("ns"),
        fq.archive_notes("ns", [1]),
        fq.restore_notes("ns", [1]),
        fq.update_beliefs("ns", [(1, 1.5, 0.5, 0.75)]),
        fq.active_usage("ns"),
        fq.confident_notes("ns", [1], 0.5),
        fq.latest_query_id("ns", "where?"),
        fq.notes_of_observation_keys("ns", ["k"]),
        fq.note_beliefs("ns", [1], lock=True),
        fq.query_for_update("ns", 1),
        fq.settle_query("ns", 1, [1], 1.0),
        fq.edges_by_ids("ns", [1]),
    ):
        sql = str(stmt.statement.compile(dialect=postgresql.dialect()))
        assert "namespace = " in sql and "ns" in stmt.params.values()
    archive = str(fq.archive_notes("ns", [1]).statement.compile(dialect=postgresql.dialect()))
    assert "notes.status = " in archive and "RETURNING notes.id" in archive
    beliefs = fq.update_beliefs("ns", [(1, 1.5, 0.5, 0.75), (2, 1.0, 2.0, 1 / 3)])
    assert beliefs.params["ids"] == [1, 2] and beliefs.params["taus"] == [0.75, 1 / 3]


def test_report_with_truth_shows_precision_and_inflation() -> None:
    covered = {"policy": 3.0, "recency": 1.0, "random": 1.0, "oracle": 4.0}
    precise = {"policy": 2.0, "recency": 1.0, "random": 0.0, "oracle": 4.0}
    curve = NamespaceCurve("a", 8, 4, 4.0, (CurvePoint(0.25, 2, covered, "exact", precise),))
    pooled = FrontierReport((curve,))
    assert pooled.has_truth
    row = pooled.rows()[0]
    assert (row["policy_precision"], row["policy_inflation"]) == (50.0, 25.0)
    assert "| 25% | 75.0 | 50.0 | 25.0 |" in pooled.format_markdown()
