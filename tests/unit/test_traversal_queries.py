"""Active mode's pure parts: the traversal SQL builders compiled without a database, the
timeline date parsing, and the citation ranking of the evidence."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from sqlalchemy.dialects import postgresql

from langmemcore import InvalidInputError
from langmemcore.retrieval import traversal as tr
from langmemcore.retrieval.active import cited_note_ids, rank_evidence
from langmemcore.storage.prepared import Prepared
from langmemcore.storage.traversal import queries as tq

VECTOR = [0.1, 0.2, 0.3]
START = datetime(2023, 5, 8, tzinfo=UTC)
END = datetime(2023, 5, 9, tzinfo=UTC)
TABLES = ("notes", "keywords", "note_keywords", "edges", "topics", "topic_keywords")

BUILDERS = {
    "keyword_by_name": tq.keyword_by_name("ns", "paris"),
    "carrier_count": tq.carrier_count("ns", 7),
    "nearest_keywords": tq.nearest_keywords("ns", VECTOR, 10),
    "keyword_tags": tq.keyword_tags("ns", 7, 10),
    "notes_for": tq.notes_for("ns", 7, None, 10),
    "notes_for_tag": tq.notes_for("ns", 7, "Adoption Agency", 10),
    "note_row": tq.note_row("ns", 3),
    "note_neighbours": tq.note_neighbours("ns", 3, 10),
    "note_topics": tq.note_topics("ns", 3, 10),
    "timeline": tq.timeline("ns", START, END, 10),
    "topic_by_id": tq.topic_by_id("ns", 4),
    "topic_by_label": tq.topic_by_label("ns", "camping"),
    "nearest_topic": tq.nearest_topic("ns", VECTOR),
    "topic_member_notes": tq.topic_member_notes("ns", 4, 10),
}


def sql(prepared: Prepared) -> str:
    return str(prepared.statement.compile(dialect=postgresql.dialect()))


def params(prepared: Prepared) -> dict[str, object]:
    compiled = dict(prepared.statement.compile(dialect=postgresql.dialect()).params)
    return {**compiled, **prepared.params}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_where_clause_starts_with_the_namespace(name: str) -> None:
    text = sql(BUILDERS[name])
    clauses = text.split("WHERE")[1:]
    assert clauses
    for clause in clauses:
        assert clause.strip().split()[0].endswith(".namespace"), clause


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_table_touched_is_filtered_by_namespace(name: str) -> None:
    text = sql(BUILDERS[name])
    touched = set(re.findall(r"\b(" + "|".join(TABLES) + r")\.\w+", text))
    assert touched
    for table in touched:
        assert f"{table}.namespace = " in text, (table, text)
    namespaces = [v for k, v in params(BUILDERS[name]).items() if k.startswith("namespace")]
    assert namespaces and set(namespaces) == {"ns"}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_lists_are_capped(name: str) -> None:
    if name in ("keyword_by_name", "carrier_count", "note_row", "topic_by_id"):
        return
    assert "LIMIT" in sql(BUILDERS[name])


def test_nearest_keywords_orders_by_cosine_distance_and_counts_active_notes() -> None:
    text = sql(BUILDERS["nearest_keywords"])
    assert "<=>" in text
    assert "ORDER BY distance" in text
    assert "count(*)" in text
    assert "notes.status = " in text


def test_keyword_tags_count_distinct_edges_at_either_end_grouped_by_tag() -> None:
    text = sql(BUILDERS["keyword_tags"])
    assert "count(DISTINCT edges.id)" in text
    assert "edges.source_id IN" in text and "edges.target_id IN" in text
    assert "GROUP BY edges.tag, edges.relation" in text
    assert "ORDER BY edges DESC" in text


def test_notes_for_without_tag_reads_every_carrier_oldest_first() -> None:
    text = sql(BUILDERS["notes_for"])
    assert "JOIN edges" not in text
    assert "ORDER BY notes.event_time ASC NULLS LAST" in text
    assert "count(*) OVER ()" in text


def test_notes_for_with_tag_matches_tag_or_relation_case_insensitively() -> None:
    stmt = BUILDERS["notes_for_tag"]
    text = sql(stmt)
    assert "JOIN edges ON edges.namespace = " in text
    assert "lower(edges.tag) = " in text and "edges.relation = " in text
    assert "max(edges.strength) DESC" in text
    assert set(params(stmt).values()) >= {"adoption agency"}


def test_neighbours_pick_the_other_end_of_the_edge() -> None:
    text = sql(BUILDERS["note_neighbours"])
    assert "CASE WHEN (edges.source_id = " in text
    assert "ELSE edges.source_id END" in text
    assert "notes.status = " in text


def test_topics_are_of_the_newest_generation() -> None:
    for name in ("note_topics", "topic_by_id", "topic_by_label"):
        assert "max(topics.generation)" in sql(BUILDERS[name]), name


def test_timeline_is_half_open_and_oldest_first() -> None:
    text = sql(BUILDERS["timeline"])
    assert "notes.event_time >= " in text and "notes.event_time < " in text
    assert "ORDER BY notes.event_time, notes.id" in text


def test_topic_label_pattern_escapes_like_wildcards() -> None:
    stmt = tq.topic_by_label("ns", " 50%_off ")
    assert "ILIKE" in sql(stmt)
    assert "%50\\%\\_off%" in params(stmt).values()


def test_date_range_includes_the_whole_end_day() -> None:
    assert tr.date_range("2023-05-08", "2023-05-10") == (
        datetime(2023, 5, 8, tzinfo=UTC),
        datetime(2023, 5, 11, tzinfo=UTC),
    )
    assert tr.date_range("8 May, 2023") == (START, END)
    assert tr.date_range("2023-05-08T10:00", "2023-05-08T12:30") == (
        datetime(2023, 5, 8, 10, tzinfo=UTC),
        datetime(2023, 5, 8, 12, 30, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("start", "end"),
    [("last week", None), ("", None), ("2023-05-08", "soon"), ("2023-05-08", "2023-05-01")],
)
def test_date_range_refuses_what_it_cannot_read(start: str, end: str | None) -> None:
    with pytest.raises(InvalidInputError):
        tr.date_range(start, end)


def test_citations_are_read_in_order_in_several_spellings() -> None:
    text = "Yes [note 12]. She went twice [Note #7, note 3] and [notes 4, 5]; not [12] or note 9."
    assert cited_note_ids(text) == [12, 7, 3, 4, 5]
    assert cited_note_ids("no evidence in memory") == []


def test_cited_notes_come_first_and_uncited_ones_keep_discovery_order() -> None:
    assert rank_evidence([5, 3, 5, 8, 1], [8, 99, 3], 10) == (8, 3, 5, 1)
    assert rank_evidence([5, 3, 8, 1], [], 2) == (5, 3)
    assert rank_evidence([5, 3, 8, 1], [1], 2) == (1, 5)
