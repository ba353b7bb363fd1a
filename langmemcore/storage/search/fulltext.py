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
    delete,
    func,
    literal_column,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import ACTIVE, FulltextStatistics, LexemeStats, Note
from langmemcore.storage.prepared import Prepared, text_param

__all__ = [
    "DOCUMENT_FREQUENCY_CAP",
    "NOTE_COUNT_CAP",
    "clear_lexeme_stats",
    "insert_lexeme_stats",
    "live_document_frequency",
    "live_note_count",
    "upsert_namespace_stats",
]


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
