"""Pure SQL builders of the full-text channel's term statistics: live, stored and their
refresh (the ranking that reads them: :mod:`~langmemcore.storage.search.fulltext_ranking`).

A term's weight is BM25's inverse document frequency among the namespace's active notes.
Counting a common term live costs a GIN bitmap of every note holding it, so the counts
are also stored per namespace (``lexeme_stats``, ``namespace_stats``) and refreshed with
topic evolution; terms the stored counts do not know (newer notes) are counted live.
Stored and live counts are capped alike, so fresh stored statistics weigh exactly as live
ones.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    delete,
    func,
    literal_column,
    null,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import ACTIVE, FulltextStatistics, LexemeStats, Note
from langmemcore.storage.prepared import Prepared, number, text_param

__all__ = [
    "DOCUMENT_FREQUENCY_CAP",
    "NOTE_COUNT_CAP",
    "clear_lexeme_stats",
    "insert_lexeme_stats",
    "live_document_frequency",
    "live_note_count",
    "lexeme_statistics",
    "stored_lexeme_statistics",
    "upsert_namespace_stats",
]


def _query_lexemes() -> Any:
    """The query's English lexemes, one row each (column ``lexeme``)."""
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    return select(
        func.unnest(func.tsvector_to_array(func.to_tsvector(english, text_param("q")))).label(
            "lexeme"
        )
    ).subquery("lexemes")


def live_note_count(namespace: Any, cap: Any) -> Any:
    """Active notes of the namespace, counted up to ``cap`` (a scalar subquery)."""
    active = (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .limit(cap)
        .subquery()
    )
    return select(func.count()).select_from(active).scalar_subquery()


def live_document_frequency(namespace: Any, lexeme: ColumnElement[Any], cap: Any) -> Any:
    """Active notes of the namespace holding ``lexeme``, counted up to ``cap``."""
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    matching = (
        select(Note.id)
        .where(
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.tsv.op("@@")(func.to_tsquery(simple, func.quote_literal(lexeme))),
        )
        .correlate_except(Note)
        .limit(cap)
        .subquery()
    )
    return select(func.count()).select_from(matching).scalar_subquery()


DOCUMENT_FREQUENCY_CAP = 1000
"""Document frequencies are counted up to this many notes: a term that common weighs
next to nothing and no longer selects full-text candidates on its own."""

NOTE_COUNT_CAP = 20_000
"""The active notes of a namespace are counted up to this many for inverse document
frequencies (beyond it the weights hardly change, and counting would cost a scan)."""


def _statistics_values(namespace: str, query: str, cap: int, total_cap: int) -> dict[str, Any]:
    return {"namespace": namespace, "q": query, "cap": cap, "total_cap": total_cap}


@cache
def _lexeme_statistics() -> Select:
    namespace, cap = text_param("namespace"), number("cap")
    lexemes = _query_lexemes()
    total = live_note_count(namespace, number("total_cap"))
    df = live_document_frequency(namespace, lexemes.c.lexeme, cap)
    return select(lexemes.c.lexeme, df.label("df"), total.label("total"), null().label("stored_df"))


def lexeme_statistics(
    namespace: str,
    query: str,
    cap: int = DOCUMENT_FREQUENCY_CAP,
    total_cap: int = NOTE_COUNT_CAP,
) -> Prepared:
    """The query's English lexemes with their document frequency among the namespace's
    active notes, counted live up to ``cap``, plus the number of active notes counted up
    to ``total_cap`` (``lexeme``, ``df``, ``total``, ``stored_df``: here always null).
    """
    return Prepared(_lexeme_statistics(), _statistics_values(namespace, query, cap, total_cap))


@cache
def _stored_lexeme_statistics() -> Select:
    namespace, cap = text_param("namespace"), number("cap")
    lexemes = _query_lexemes()
    live = live_document_frequency(namespace, lexemes.c.lexeme, cap)
    df = func.least(func.coalesce(LexemeStats.df, live), cap)
    total = func.least(FulltextStatistics.active_notes, number("total_cap"))
    return (
        select(
            lexemes.c.lexeme,
            df.label("df"),
            total.label("total"),
            LexemeStats.df.label("stored_df"),
        )
        .select_from(lexemes)
        .join(FulltextStatistics, FulltextStatistics.namespace == namespace)
        .outerjoin(
            LexemeStats,
            (LexemeStats.namespace == namespace) & (LexemeStats.lexeme == lexemes.c.lexeme),
        )
    )


def stored_lexeme_statistics(
    namespace: str,
    query: str,
    cap: int = DOCUMENT_FREQUENCY_CAP,
    total_cap: int = NOTE_COUNT_CAP,
) -> Prepared:
    """Like :func:`lexeme_statistics`, from the stored statistics: a lexeme they do not
    know is counted live (it can only be in notes written since the refresh). No rows
    when the namespace's statistics were never refreshed. ``stored_df`` is the stored
    count, uncapped (null for a lexeme counted live): it tells which of two terms past the
    cap is rarer.
    """
    values = _statistics_values(namespace, query, cap, total_cap)
    return Prepared(_stored_lexeme_statistics(), values)


@cache
def _clear_lexeme_stats() -> Delete:
    return delete(LexemeStats).where(LexemeStats.namespace == text_param("namespace"))


def clear_lexeme_stats(namespace: str) -> Prepared:
    """Forget the namespace's stored lexeme counts (before a refresh)."""
    return Prepared(_clear_lexeme_stats(), {"namespace": namespace})


@cache
def _insert_lexeme_stats() -> Insert:
    namespace = text_param("namespace")
    lexeme = func.unnest(func.tsvector_to_array(Note.tsv)).label("lexeme")
    per_note = select(lexeme).where(Note.namespace == namespace, Note.status == ACTIVE).subquery()
    counts = select(
        namespace.label("namespace"), per_note.c.lexeme, func.count().label("df")
    ).group_by(per_note.c.lexeme)
    stmt = pg_insert(LexemeStats).from_select(["namespace", "lexeme", "df"], counts)
    return stmt.on_conflict_do_update(
        index_elements=[LexemeStats.namespace, LexemeStats.lexeme],
        set_={"df": stmt.excluded.df},
    ).execution_options(dml_strategy="raw")


def insert_lexeme_stats(namespace: str) -> Prepared:
    """Count every lexeme of the namespace's active notes into ``lexeme_stats`` (a count
    already stored is overwritten, so that running it twice leaves the same rows).
    """
    return Prepared(_insert_lexeme_stats(), {"namespace": namespace})


@cache
def _upsert_namespace_stats() -> Insert:
    namespace = text_param("namespace")
    active = (
        select(func.count())
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .scalar_subquery()
    )
    stmt = pg_insert(FulltextStatistics).values(namespace=namespace, active_notes=active)
    return stmt.on_conflict_do_update(
        index_elements=[FulltextStatistics.namespace],
        set_={"active_notes": stmt.excluded.active_notes, "refreshed_at": func.now()},
    ).execution_options(dml_strategy="raw")


def upsert_namespace_stats(namespace: str) -> Prepared:
    """Record the namespace's active notes and the time of this refresh."""
    return Prepared(_upsert_namespace_stats(), {"namespace": namespace})
