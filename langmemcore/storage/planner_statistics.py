"""The planner's statistics after a bulk ingest: ``ANALYZE`` of the tables it wrote.

Postgres plans each statement from its tables' statistics, which autovacuum refreshes once
a table has changed by 50 rows plus 10% of its size (its default thresholds). A process
that bulk-ingests and then searches, or stops its embedded server, can be faster than
autovacuum's next round: its searches then run on plans made for empty tables (the
evidence statement took 12.3 ms on the ingested dev split before ``ANALYZE``, 3.1 ms after;
docs/experiments/retrieval-cost.md, "Search cost, round four"). So a bulk ingest that
wrote as much as autovacuum's thresholds ask for analyses the tables it wrote at its end,
as Postgres' manual advises after loading data. ``ANALYZE`` takes no lock that blocks
reads or writes; on a table the user does not own Postgres skips it with a warning.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import TextClause, text

from langmemcore.storage.database import Database
from langmemcore.storage.models import (
    Edge,
    Keyword,
    Lineage,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    ProfileStatement,
    ProfileValue,
    ProfileValueSource,
)
from langmemcore.storage.prepared import Prepared

__all__ = ["analyze_written_tables", "statistics_due"]

_BASE_ROWS = 50
"""Autovacuum's default ``autovacuum_analyze_threshold``."""

_SHARE = 0.1
"""Autovacuum's default ``autovacuum_analyze_scale_factor``."""

_WRITTEN = (
    Observation,
    Note,
    NoteSource,
    Keyword,
    NoteKeyword,
    Edge,
    Lineage,
    ProfileStatement,
    ProfileValue,
    ProfileValueSource,
)
"""The tables construction writes, whose statistics the search's plans read."""


def statistics_due(written: int, rows_before: float) -> bool:
    """Whether a bulk ingest changed the notes table as much as autovacuum's default
    thresholds ask for before it analyses a table.

    Args:
        written: Observations the ingest stored (appended or merged).
        rows_before: The notes table's estimated rows before (``pg_class.reltuples``;
            negative when never analysed, read as empty).
    """
    return written >= _BASE_ROWS + _SHARE * max(rows_before, 0.0)


def estimated_notes() -> Prepared:
    """The notes table's estimated row count (-1 when it was never analysed)."""
    statement = text("SELECT reltuples FROM pg_class WHERE oid = to_regclass(:table)")
    return Prepared(statement, {"table": Note.__tablename__})


@cache
def analyze_statement() -> TextClause:
    """``ANALYZE`` of the tables construction writes."""
    tables = ", ".join(f'"{model.__tablename__}"' for model in _WRITTEN)
    return text(f"ANALYZE {tables}")


async def analyze_written_tables(database: Database, written: int) -> bool:
    """Analyse the tables a bulk ingest wrote, when `statistics_due` says so.

    Args:
        database: The database.
        written: Observations the ingest stored.

    Returns:
        Whether the tables were analysed.
    """
    if not statistics_due(written, 0.0):
        return False
    async with database.reader() as session:
        prepared = estimated_notes()
        rows = await session.scalar(prepared.statement, prepared.params)
        if not statistics_due(written, float(rows if rows is not None else -1)):
            return False
        await session.execute(analyze_statement())
    return True
