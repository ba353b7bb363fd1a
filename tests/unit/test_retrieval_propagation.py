"""The propagation channel's pure part: personalised PageRank and the ranking it gives on
small hand-built graphs.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langmemcore import ConfigurationError
from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.propagation import personalised_pagerank, rank_by_propagation
from langmemcore.storage.records import Scored
from langmemcore.storage.search.access import Subgraph


def test_pagerank_on_two_nodes_matches_the_closed_form() -> None:
    # p_a = (1 - d) + d p_b, p_b = d p_a  ->  p_a = 1 / (1 + d), p_b = d / (1 + d)
    scores = personalised_pagerank({"a": 1.0}, [("a", "b", 1.0)], damping=0.5, iterations=60)
    assert scores["a"] == pytest.approx(2 / 3)
    assert scores["b"] == pytest.approx(1 / 3)


def test_pagerank_spreads_a_hub_thinly_and_a_specific_link_strongly() -> None:
    # seed s links to k1 (shared with x only) and k2 (shared with four others)
    links = [("s", "k1", 1.0), ("x", "k1", 1.0), ("s", "k2", 1.0)]
    links += [(f"y{i}", "k2", 1.0) for i in range(4)]
    scores = personalised_pagerank({"s": 1.0}, links, damping=0.5, iterations=30)
    assert scores["x"] > scores["y0"] > 0
    assert scores["y0"] == pytest.approx(scores["y3"])
    assert sum(scores.values()) == pytest.approx(1.0)


def test_pagerank_without_damping_is_the_restart_distribution() -> None:
    scores = personalised_pagerank(
        {"a": 3.0, "b": 1.0}, [("a", "c", 1.0)], damping=0.0, iterations=5
    )
    assert scores == {"a": pytest.approx(0.75), "b": pytest.approx(0.25), "c": 0.0}


def test_pagerank_weighs_links_by_their_weight_and_ignores_non_positive_ones() -> None:
    links = [("s", "strong", 0.9), ("s", "weak", 0.1), ("s", "ignored", 0.0)]
    scores = personalised_pagerank({"s": 1.0}, links, damping=0.5, iterations=30)
    assert scores["strong"] == pytest.approx(9 * scores["weak"])
    assert scores["ignored"] == 0.0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(0.0, 1.0, allow_nan=False)),
        max_size=20,
    ),
    st.dictionaries(st.integers(0, 7), st.floats(0.01, 5.0), min_size=1, max_size=4),
    st.floats(0.0, 0.95),
)
def test_pagerank_keeps_the_total_mass(
    links: list[tuple[int, int, float]], restart: dict[int, float], damping: float
) -> None:
    scores = personalised_pagerank(restart, links, damping=damping, iterations=8)
    assert sum(scores.values()) == pytest.approx(1.0)
    assert all(v >= 0 for v in scores.values())


def _config(**overrides: object) -> RetrievalConfig:
    return replace(RetrievalConfig(), **overrides)  # type: ignore[arg-type]


def test_ranking_crosses_specific_keywords_and_edges_but_not_hubs() -> None:
    # seed 1 carries keyword 10 (also on note 2), hub 11 (on 1 and notes 20..23) and
    # keyword 12 that only it carries; an edge joins it to note 3
    subgraph = Subgraph(
        carriers={10: [1, 2], 11: [1, 20, 21, 22, 23], 12: [1]},
        query_similarity={10: 0.2, 11: 0.1, 12: 0.0},
        edges=[(1, 3, 0.8)],
    )
    ranked = rank_by_propagation([Scored(1, 1.0)], subgraph, _config(propagation_max_carriers=4))
    assert ranked[0] == 1
    assert set(ranked) == {1, 2, 3}
    allowed = rank_by_propagation([Scored(1, 1.0)], subgraph, _config(propagation_max_carriers=5))
    assert set(allowed) == {1, 2, 3, 20, 21, 22, 23}
    assert allowed.index(2) < allowed.index(20)


def test_ranking_favours_notes_reached_from_several_seeds() -> None:
    # note 5 shares a keyword with both seeds, note 6 with one only
    subgraph = Subgraph(
        carriers={10: [1, 5], 11: [2, 5], 12: [2, 6]}, query_similarity={}, edges=[]
    )
    ranked = rank_by_propagation([Scored(1, 1.0), Scored(2, 1.0)], subgraph, _config())
    assert ranked.index(5) < ranked.index(6)
    assert set(ranked[:2]) == {1, 2}


def test_ranking_is_cut_at_the_depth_with_ties_by_note_id() -> None:
    subgraph = Subgraph(carriers={10: [1, 9, 8, 7]}, query_similarity={}, edges=[])
    ranked = rank_by_propagation([Scored(1, 1.0)], subgraph, _config(depth=3))
    assert ranked == [1, 7, 8]


def test_ranking_crosses_bridge_entities_only_not_the_questions_own_keywords() -> None:
    # keyword 10 is the question's own (similar to one of its keywords); 11 is a bridge
    subgraph = Subgraph(
        carriers={10: [1, 2], 11: [1, 3]}, query_similarity={10: 0.9, 11: 0.3}, edges=[]
    )
    config = _config()
    assert config.keyword_min_similarity == 0.5
    assert rank_by_propagation([Scored(1, 1.0)], subgraph, config) == [1, 3]


def test_ranking_keeps_to_the_pool_while_the_walk_crosses_the_rest() -> None:
    # note 4 is reached only through note 2, which is outside the pool
    subgraph = Subgraph(carriers={10: [1, 2], 11: [2, 4]}, query_similarity={}, edges=[(1, 5, 0.5)])
    everyone = rank_by_propagation([Scored(1, 1.0)], subgraph, _config())
    assert set(everyone) == {1, 2, 4, 5}
    ranked = rank_by_propagation([Scored(1, 1.0)], subgraph, _config(), pool={1, 4, 5})
    assert ranked == [n for n in everyone if n != 2]


def test_damping_outside_the_unit_interval_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="propagation_damping"):
        RetrievalConfig(propagation_damping=1.0)
    with pytest.raises(ValueError, match="propagation_damping"):
        RetrievalConfig(propagation_damping=-0.1)
