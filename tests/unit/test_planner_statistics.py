"""When a bulk ingest refreshes the planner's statistics: autovacuum's default thresholds
(50 rows plus 10% of the table)."""

from __future__ import annotations

from langmemcore.storage.planner_statistics import analyze_statement, statistics_due


def test_an_ingest_is_due_at_fifty_rows_plus_a_tenth_of_the_table() -> None:
    assert statistics_due(50, -1.0) and statistics_due(50, 0.0)
    assert not statistics_due(49, 0.0)
    assert statistics_due(150, 1000.0) and not statistics_due(149, 1000.0)
    assert not statistics_due(5_000, 100_000.0) and statistics_due(10_050, 100_000.0)


def test_the_statement_names_the_tables_construction_writes() -> None:
    sql = str(analyze_statement())
    assert sql.startswith("ANALYZE ")
    for table in ('"notes"', '"note_keywords"', '"observations"', '"profile_values"'):
        assert table in sql
    assert '"items"' not in sql and '"topics"' not in sql
