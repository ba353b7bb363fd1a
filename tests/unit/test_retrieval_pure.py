"""Pure parts of retrieval: fusion, diversity, channel rankings, offline sufficiency."""

from __future__ import annotations

import itertools
from datetime import date

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langmemcore.prompts.sufficiency import parse_subquery
from langmemcore.retrieval.channels import (
    QueryPlan,
    rank_neighbours,
)
from langmemcore.retrieval.fusion import ChannelRanking, Fused, diversify, fuse
from langmemcore.retrieval.pack import SourceRef, order_sources
from langmemcore.retrieval.sufficiency import EvidenceNote, judge_offline
from langmemcore.storage.records import Scored
from langmemcore.text import TimeMention


def test_rrf_scores_and_attribution_by_hand() -> None:
    fused = fuse(
        [
            ChannelRanking("vector", (1, 2, 3), 1.0),
            ChannelRanking("keyword", (3, 1), 0.5),
        ],
        rrf_k=60,
    )
    scores = {f.note_id: f.score for f in fused}
    assert scores[1] == pytest.approx(1 / 61 + 0.5 / 62)
    assert scores[2] == pytest.approx(1 / 62)
    assert scores[3] == pytest.approx(1 / 63 + 0.5 / 61)
    assert [f.note_id for f in fused] == [1, 3, 2]
    assert fused[0].ranks == {"vector": 1, "keyword": 2}


def test_fusion_keeps_the_best_rank_per_channel_and_ignores_zero_weights() -> None:
    fused = fuse(
        [
            ChannelRanking("vector", (5, 6), 1.0, round=0),
            ChannelRanking("vector", (6, 5), 0.25, round=1),
            ChannelRanking("time", (7,), 0.0),
        ]
    )
    assert {f.note_id for f in fused} == {5, 6}
    assert all(f.ranks["vector"] == 1 for f in fused)


def test_diversify_pushes_near_duplicates_down() -> None:
    fused = [Fused(1, 1.0), Fused(2, 0.99), Fused(3, 0.9)]
    vectors = {1: [1.0, 0.0], 2: [1.0, 0.0], 3: [0.0, 1.0]}
    assert [f.note_id for f in diversify(fused, vectors, 0.7)] == [1, 3, 2]
    assert [f.note_id for f in diversify(fused, vectors, 1.0)] == [1, 2, 3]


def test_diversified_scores_are_the_values_notes_were_picked_at() -> None:
    fused = [Fused(1, 1.0), Fused(2, 0.99), Fused(3, 0.9)]
    vectors = {1: [1.0, 0.0], 2: [1.0, 0.0], 3: [0.0, 1.0]}
    picked = diversify(fused, vectors, 0.7)
    # 1 first at its fused score; 3: 0.7 * 0.9 + 0.3 * 1.0 * (1 - 0) = 0.93;
    # 2 (a duplicate of 1): 0.7 * 0.99 + 0.3 * 1.0 * (1 - 1) = 0.693
    assert [(f.note_id, f.score) for f in picked] == [
        (1, pytest.approx(1.0)),
        (3, pytest.approx(0.93)),
        (2, pytest.approx(0.693)),
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0.001, 1.0),
            st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3).filter(
                lambda v: sum(x * x for x in v) > 1e-3
            ),
        ),
        min_size=3,
        max_size=25,
    ),
    st.floats(0.0, 0.99),
)
def test_diversified_scores_never_increase_down_the_list(
    rows: list[tuple[float, list[float]]], relevance: float
) -> None:
    ordered = sorted(rows, key=lambda row: -row[0])
    fused = [Fused(i, score) for i, (score, _) in enumerate(ordered)]
    vectors = {i: np.asarray(v) / np.linalg.norm(v) for i, (_, v) in enumerate(ordered)}
    picked = diversify(fused, vectors, relevance)
    assert sorted(f.note_id for f in picked) == list(range(len(fused)))
    assert picked[0].score == pytest.approx(fused[0].score)
    assert all(a.score >= b.score - 1e-12 for a, b in itertools.pairwise(picked))
    # picking only the first few gives exactly the head of the whole order
    for limit in (1, 2, len(fused) // 2, len(fused) + 5):
        assert diversify(fused, vectors, relevance, limit) == picked[:limit]


def test_neighbour_ranking_is_gated_by_relevance() -> None:
    anchors = [Scored(1, 1.0), Scored(2, 0.5)]
    edges = [(1, 10, 0.9), (2, 11, 0.9), (12, 1, 0.5), (1, 2, 1.0)]
    relevance = {10: 0.2, 11: 0.9, 12: 0.8}
    # 11: 0.5 * 0.9 * 0.9 = 0.405; 12: 1.0 * 0.5 * 0.8 = 0.4; 10: 1.0 * 0.9 * 0.2 = 0.18
    assert rank_neighbours(anchors, edges, relevance, 10) == [11, 12, 10]
    assert rank_neighbours(anchors, edges, {10: 0.5}, 10) == [10]


def plan(keywords: tuple[str, ...], times: tuple[TimeMention, ...] = ()) -> QueryPlan:
    return QueryPlan("q", "t", keywords, (), times, (1.0,), (1.0,), ())


def test_offline_sufficiency_needs_every_keyword_and_the_date() -> None:
    evidence = [EvidenceNote(1, "Melanie ran a charity race.", ("charity race",), "2023-06-10")]
    assert judge_offline(plan(("charity race",)), evidence, ["q"]).sufficient
    missing = judge_offline(plan(("charity race", "pottery")), evidence, ["q"])
    assert not missing.sufficient
    assert missing.missing == "pottery"
    assert missing.subquery is not None and missing.subquery.startswith("pottery")
    assert missing.keywords[0] == "pottery"
    assert " ".join(missing.keywords) == missing.subquery
    june = TimeMention("in May", date(2023, 5, 1), date(2023, 5, 31), "month")
    assert not judge_offline(plan(("charity race",), (june,)), evidence, ["q"]).sufficient


def test_offline_sufficiency_covers_a_keyword_by_its_inflections() -> None:
    evidence = [
        EvidenceNote(1, "Caroline is pursuing counseling and camped with friends.", (), None),
        EvidenceNote(2, "She met her mentors.", ("signed up",), None),
    ]
    assert judge_offline(plan(("pursue", "camping", "sign")), evidence, ["q"]).sufficient
    verdict = judge_offline(plan(("pursue", "meet", "bookshelf")), evidence, ["q"])
    assert not verdict.sufficient and verdict.missing == "meet, bookshelf"


def test_offline_sufficiency_never_repeats_a_subquery() -> None:
    evidence = [EvidenceNote(1, "Nothing relevant.", (), None)]
    verdict = judge_offline(plan(("volcano",)), evidence, ["q", "volcano"])
    assert verdict.sufficient and verdict.subquery is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sub-question: Where does Mel live?", "Where does Mel live?"),
        ("None", None),
        ("  none.\n", None),
        ('"What is the date?"', "What is the date?"),
    ],
)
def test_parse_subquery(text: str, expected: str | None) -> None:
    assert parse_subquery(text) == expected


def test_sources_most_relevant_to_the_query_come_first() -> None:
    sources = [
        SourceRef("a", None, None, "We had pizza."),
        SourceRef("b", None, None, "I ran a charity race for mental health."),
    ]
    ordered = order_sources(sources, {"charity", "race"})
    assert [s.key for s in ordered] == ["b", "a"]
    assert [s.key for s in order_sources(sources, set())] == ["a", "b"]


def test_a_prior_channel_reweights_the_pool_and_brings_no_note_of_its_own() -> None:
    rankings = [
        ChannelRanking("vector", (1, 2), 1.0),
        ChannelRanking("topic", (9, 2, 8), 0.5),
    ]
    as_channel = fuse(rankings)
    assert {f.note_id for f in as_channel} == {1, 2, 8, 9}
    as_prior = fuse(rankings, priors=("topic",))
    assert [f.note_id for f in as_prior] == [2, 1]
    scores = {f.note_id: f.score for f in as_prior}
    assert scores[2] == pytest.approx(1 / 62 + 0.5 / 62)  # its rank in the topic ranking
    assert as_prior[0].ranks == {"vector": 2, "topic": 2}
    assert fuse([ChannelRanking("topic", (1, 2), 0.5)], priors=("topic",)) == []


def test_offline_sub_query_only_for_what_a_round_can_find() -> None:
    evidence = [EvidenceNote(1, "Melanie ran a charity race.", ("charity race",), "2023-06-10")]
    query = plan(("charity race", "pottery", "kiln"))
    stored = judge_offline(query, evidence, ["q"], stored=("kiln",))
    assert not stored.sufficient and stored.missing == "pottery, kiln"
    assert stored.keywords[0] == "kiln" and "pottery" not in stored.keywords
    unknown = judge_offline(query, evidence, ["q"], stored=())
    assert unknown.sufficient and unknown.subquery is None
    assert unknown.missing == "pottery, kiln"
    june = TimeMention("in May", date(2023, 5, 1), date(2023, 5, 31), "month")
    dated = plan(("charity race",), (june,))
    assert judge_offline(dated, evidence, ["q"], stored=(), times=False).sufficient
    asked = judge_offline(dated, evidence, ["q"], stored=(), times=True)
    assert not asked.sufficient and asked.keywords[0] == "in May"
