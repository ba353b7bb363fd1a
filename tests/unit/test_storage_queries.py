"""The SQL builders, compiled without a database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.dialects import postgresql

from langmemcore import InvalidInputError
from langmemcore.storage._filters import namespace_prefix_filter
from langmemcore.storage.formal import queries as formal
from langmemcore.storage.formal import query_log
from langmemcore.storage.models import Item, decode_vector
from langmemcore.storage.notes import lineage_queries as lq
from langmemcore.storage.notes import queries as nq
from langmemcore.storage.notes import removal_queries as rq
from langmemcore.storage.notes.append_queries import append_observation
from langmemcore.storage.prepared import Prepared
from langmemcore.storage.records import content_hash, validate_text
from langmemcore.storage.search import channels, cues, fulltext
from langmemcore.storage.search.across import rankings_across
from langmemcore.storage.search.evidence import evidence_across, evidence_rows
from langmemcore.storage.search.fulltext_ranking import fulltext_ranking
from langmemcore.storage.search.neighbours import neighbourhood
from langmemcore.storage.search.shared import SHARED_CHANNELS, SharedQuery, shared_rankings
from langmemcore.storage.topics import evolution_queries as eq
from langmemcore.storage.topics import queries as tq

VECTOR = [0.1, 0.2, 0.3]


def sql(stmt: object) -> str:
    if isinstance(stmt, Prepared):
        stmt = stmt.statement
    return str(stmt.compile(dialect=postgresql.dialect()))  # type: ignore[attr-defined]


def where_clause(stmt: object) -> str:
    text = sql(stmt)
    return text.split("WHERE", 1)[1]


def own_where_clause(stmt: object) -> str:
    """The statement's own WHERE clause (not a sub-query's or a CTE's)."""
    if isinstance(stmt, Prepared):
        stmt = stmt.statement
    own = getattr(stmt, "whereclause", None)
    return "" if own is None else str(own.compile(dialect=postgresql.dialect()))


@pytest.mark.parametrize(
    "stmt",
    [
        channels.nearest_notes("ns", VECTOR, 5),
        cues.nearest_keywords("ns", VECTOR, 5),
        cues.notes_by_keywords("ns", ["paris"]),
        lq.edges_of_notes("ns", [1]),
        cues.topic_notes("ns", [1]),
        cues.nearest_topics("ns", VECTOR, 3),
        channels.topic_ranking("ns", VECTOR, 3, 60),
        channels.keyword_ranking("ns", [VECTOR, VECTOR], 10, 0.5, 60),
        fulltext_ranking("ns", "paris trip", 5, 1000, 20_000),
        evidence_rows("ns", [1, 2]),
        evidence_across(["a", "b"], [1, 2]),
        rankings_across(["a", "b"], VECTOR, "glass vases", 5, threaded=True),
        channels.nearest_notes_by_speakers("ns", VECTOR, ["Caroline"], 5),
        neighbourhood("ns", [1, 2], VECTOR),
        shared_rankings(
            "ns",
            SHARED_CHANNELS,
            SharedQuery("paris", VECTOR, [VECTOR], ["Caroline"], [], 10, 0.5, 60, VECTOR),
        ),
        channels.notes_in_time_range(
            "ns", datetime(2023, 1, 1, tzinfo=UTC), datetime(2023, 2, 1, tzinfo=UTC), 5
        ),
        nq.notes_by_ids("ns", [1]),
        channels.note_summaries("ns", [1]),
        cues.query_cues("ns", ["paris"], ["Caroline"]),
        nq.sources_of_notes("ns", [1]),
        nq.observation_by_key("ns", "k"),
        nq.observation_hashes("ns", ["k"]),
        nq.note_for_update("ns", 1),
        nq.source_ids_of_note("ns", 1),
        rq.observation_by_id("ns", 1),
        rq.note_exists("ns", 1),
        rq.notes_of_observation("ns", 1),
        lq.lineage_row("ns", 1),
        lq.lineage_after("ns", 1),
        lq.later_merge("ns", 1, 1),
        lq.merges_in_force("ns", 1),
        lq.links_in_force("ns", 1, 1),
        tq.keywords_of_notes("ns", [1]),
        tq.keyword_embeddings("ns", [1]),
        eq.keyword_cooccurrence("ns"),
        eq.active_keywords("ns"),
        eq.newest_generation("ns"),
    ],
)
def test_every_read_filters_by_namespace_first(stmt: object) -> None:
    first = {where_clause(stmt).split()[0], *own_where_clause(stmt).split()[:1]}
    assert any(column.endswith(".namespace") for column in first)


def test_nearest_notes_orders_by_cosine_distance_and_limits() -> None:
    text = sql(channels.nearest_notes("ns", VECTOR, 7))
    assert "<=>" in text
    assert "ORDER BY distance" in text
    assert "LIMIT" in text
    assert "notes.status = ANY" in text
    assert channels.nearest_notes("ns", VECTOR, 7).params == {
        "namespace": "ns",
        "vector": tuple(VECTOR),
        "k": 7,
        "statuses": ["active"],
    }


def test_prefix_filter_requires_a_dot_after_the_prefix() -> None:
    stmt = select(Item).where(namespace_prefix_filter(Item.namespace, "a"))
    compiled = stmt.compile(dialect=postgresql.dialect())
    params = compiled.params
    assert "a.%" in params.values()
    assert "a" in params.values()
    assert "a%" not in params.values()
    assert "ESCAPE" in str(compiled)


def test_observation_insert_is_idempotent_on_namespace_and_key() -> None:
    stmt = nq.insert_observation(
        "ns",
        "k",
        "hello",
        content_hash("hello"),
        speaker=None,
        event_time=None,
        metadata={},
        analysis={},
    )
    text = sql(stmt)
    assert "ON CONFLICT ON CONSTRAINT uq_observations_namespace_key DO NOTHING" in text
    assert "RETURNING observations.id" in text


def test_content_hash_is_sha256() -> None:
    assert content_hash("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


@pytest.mark.parametrize("text", ["", "   \n\t", "a\x00b"])
def test_unstorable_text_is_refused(text: str) -> None:
    with pytest.raises(InvalidInputError):
        validate_text(text, max_chars=100)


def test_oversized_text_error_names_the_limit() -> None:
    with pytest.raises(InvalidInputError, match="101 characters; the limit is 100"):
        validate_text("x" * 101, max_chars=100)
    assert validate_text("x" * 100, max_chars=100) == "x" * 100


def test_vectors_given_as_tuples_are_formatted_like_pgvector_once() -> None:
    from pgvector.sqlalchemy import Vector

    from langmemcore.storage.models import EmbeddingVector, vector_param, vector_text

    ours = EmbeddingVector().bind_processor(postgresql.dialect())
    theirs = Vector().bind_processor(postgresql.dialect())
    values = [0.125, -0.5, 3.0, 1e-7]
    assert ours(vector_param(values)) == theirs(values) == ours(values)
    assert ours(None) is None
    before = vector_text.cache_info().hits
    ours(vector_param([0.125, -0.5, 3.0, 1e-7]))
    assert vector_text.cache_info().hits == before + 1
    assert channels.nearest_notes("ns", values, 3).params["vector"] == vector_param(values)


def test_stored_statistics_are_scoped_and_capped_like_live_ones() -> None:
    text = sql(fulltext_ranking("ns", "paris trip", 5, 7, 11))
    assert "least(coalesce(lexeme_stats.df" in text and "least(namespace_stats.active_notes" in text
    assert "coalesce(" in text  # unknown lexemes are counted live
    for stmt in (fulltext.clear_lexeme_stats("ns"), fulltext.insert_lexeme_stats("ns")):
        assert "namespace" in where_clause(stmt)
    upsert = sql(fulltext.upsert_namespace_stats("ns"))
    assert "ON CONFLICT (namespace) DO UPDATE" in upsert


def test_binary_vectors_decode_to_their_floats() -> None:
    import struct

    floats = [0.5, -1.25, 3.0]
    packed = struct.pack(">hh3f", 3, 0, *floats)
    assert decode_vector(packed).tolist() == floats


def test_the_ranking_across_namespaces_orders_by_the_indexed_distance_and_rank() -> None:
    prepared = rankings_across(["a", "b"], VECTOR, "glass vases", 7, threaded=True)
    text = sql(prepared)
    assert "notes.thread_embedding <=>" in text
    assert "ORDER BY distance, notes.id" in text
    assert "ts_rank_cd(notes.tsv" in text
    assert "notes.namespace = ANY" in text
    assert prepared.params["namespaces"] == ["a", "b"]
    assert prepared.params["depth"] == 7
    plain = rankings_across(["c"], VECTOR, "x", 3, threaded=False)
    assert "notes.embedding <=>" in sql(plain)
    assert rankings_across(["d"], VECTOR, "y", 9, threaded=True).statement is prepared.statement


def test_a_search_across_namespaces_is_logged_in_each_with_its_own_notes() -> None:
    prepared = query_log.insert_queries(["a", "b", "c"], "glass?", [("b", 7), ("a", 3), ("b", 2)])
    assert prepared.params == {
        "namespaces": ["a", "b", "c"],
        "query": "glass?",
        "note_namespaces": ["b", "a", "b"],
        "note_ids": [7, 3, 2],
    }
    text = sql(prepared)
    assert "ORDER BY found.ord" in text
    assert "GROUP BY spaces.namespace" in text
    assert query_log.insert_queries(["d"], "x", []).statement is prepared.statement


def test_prepared_statements_are_built_once_per_shape() -> None:
    first = channels.keyword_ranking("a", [VECTOR], 10, 0.5, 60)
    second = channels.keyword_ranking("b", [VECTOR, VECTOR, VECTOR], 5, 0.7, 20)
    assert first.statement is second.statement
    assert second.params["namespace"] == "b" and len(second.params["vectors"]) == 3
    ranking = fulltext_ranking("a", "paris", 5, 1000, 20_000).statement
    assert fulltext_ranking("b", "x y", 9, 2, 10).statement is ranking
    logged = formal.insert_query("a", "where did she go?", [3, 1])
    assert formal.insert_query("b", "when?", []).statement is logged.statement
    assert logged.params == {"namespace": "a", "query": "where did she go?", "returned": [3, 1]}


def test_edge_writes_upsert_on_the_unique_edge_constraint() -> None:
    link = {"target_id": 2, "relation": "supports", "strength": 0.5, "tag": None, "reason": None}
    note = {
        "context": "c",
        "embedding": VECTOR,
        "keywords": [],
        "speakers": [],
        "event_time": None,
        "confidence": 0.5,
        "origin": "offline",
    }
    observation = {"key": "k", "content": "c", "content_hash": "h", "speaker": None}
    appended = append_observation(
        "ns",
        observation={**observation, "event_time": None, "meta": {}, "analysis": {}},
        note=note,
        keywords=[],
        links=[link],
        reason="r",
    )
    for stmt in (lq.insert_active_edges("ns", 1, [link]), appended):
        text = " ".join(sql(stmt).split())
        assert "ON CONFLICT ON CONSTRAINT uq_edges_source_target_relation DO UPDATE" in text
        assert "SET strength = edges.strength" in text


@pytest.mark.parametrize(
    "stmt",
    [
        lq.delete_link_edges("ns", observation_id=1),
        lq.delete_link_edges("ns", lineage_id=1),
        lq.delete_edges_of_notes("ns", [1]),
        lq.retire_lineage("ns", 1, [2], [3]),
        lq.mark_undone("ns", 1),
        lq.retire_merges_of_note("ns", 1),
        nq.rewrite_note(
            "ns",
            1,
            {
                "context": "c",
                "embedding": VECTOR,
                "keywords": [],
                "speakers": [],
                "event_time": None,
            },
        ),
        rq.delete_notes("ns", [1]),
        rq.delete_observation("ns", 1),
        rq.remove_note_source("ns", 1, 2),
        tq.detach_keywords("ns", 1),
        tq.delete_orphan_keywords("ns", [1]),
        eq.delete_topics("ns"),
        eq.delete_topics_without_keywords("ns"),
    ],
)
def test_lineage_repairs_filter_by_namespace_first(stmt: object) -> None:
    assert own_where_clause(stmt).split()[0].endswith(".namespace")


def literal_sql(stmt: object) -> str:
    if isinstance(stmt, Prepared):
        stmt = stmt.statement
    compiled = stmt.compile(  # type: ignore[attr-defined]
        dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}
    )
    return " ".join(str(compiled).split())


def test_retiring_lineage_covers_the_observation_its_notes_and_its_edges() -> None:
    text = literal_sql(lq.retire_lineage("ns", 1, [2], [3]))
    assert "lineage.undone_at IS NULL AND (lineage.observation_id = 1 OR" in text
    assert "lineage.note_id IN (2) OR" in text
    assert "lineage.operation = 'link' AND (lineage.after ->> 'edge_id') IN ('3')" in text


def test_an_edge_another_in_force_link_names_is_kept() -> None:
    text = literal_sql(lq.delete_link_edges("ns", lineage_id=7))
    assert "lineage.undone_at IS NULL AND lineage.id = 7)" in text
    assert "AND NOT (EXISTS (SELECT * FROM lineage AS lineage_1" in text
    assert "lineage_1.undone_at IS NULL AND NOT coalesce(lineage_1.id = 7, false)" in text
