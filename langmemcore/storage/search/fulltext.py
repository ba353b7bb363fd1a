"""Pure SQL builders of the full-text channel: term statistics (live, stored and their
refresh) and the IDF-weighted ranking.

A term's weight is BM25's inverse document frequency among the namespace's active notes.
Counting a common term live costs a GIN bitmap of every note holding it, so the counts
are also stored per namespace (``lexeme_stats``, ``namespace_stats``) and refreshed with
topic evolution; terms the stored counts do not know (newer notes) are counted live.
Stored and live counts are capped alike, so fresh stored statistics weigh exactly as live
ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    cast,
    delete,
    func,
    literal_column,
    null,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY, TSQUERY
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import ACTIVE, FulltextStatistics, LexemeStats, Note
from langmemcore.storage.prepared import Prepared, float_array, number, text_array, text_param

__all__ = [
    "DOCUMENT_FREQUENCY_CAP",
    "NOTE_COUNT_CAP",
    "TermStatistics",
    "bm25_idf",
    "clear_lexeme_stats",
    "fulltext_notes",
    "insert_lexeme_stats",
    "lexeme_statistics",
    "stored_lexeme_statistics",
    "upsert_namespace_stats",
    "weigh_terms",
]


def _query_lexemes() -> Any:
    """The query's English lexemes, one row each (column ``lexeme``)."""
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    return select(
        func.unnest(func.tsvector_to_array(func.to_tsvector(english, text_param("q")))).label(
            "lexeme"
        )
    ).subquery("lexemes")


def _live_df(namespace: Any, lexeme: ColumnElement[Any], cap: Any) -> Any:
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


def bm25_idf(document_frequency: int, total: int) -> float:
    """BM25's inverse document frequency, ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1.0 + (total - document_frequency + 0.5) / (document_frequency + 0.5))


TermStatistics = tuple[str, int, int, int | None]
"""A query lexeme's row of :func:`lexeme_statistics` / :func:`stored_lexeme_statistics`:
``(lexeme, df, total, stored_df)``."""


def weigh_terms(
    stats: Sequence[TermStatistics], cap: int = DOCUMENT_FREQUENCY_CAP
) -> tuple[list[tuple[str, float]], list[str]]:
    """Weigh the query's terms and choose those that select full-text candidates.

    Every term found in some note weighs its BM25 IDF. Terms found in more than a tenth
    of the notes (speaker names, say), or in at least ``cap`` notes, weigh in but do not
    select candidates on their own, unless every term is that common: then the rarest of
    them does, by the stored, uncapped counts where known (at the cap, counts tie).

    Args:
        stats: One row per query lexeme, in the statement's order.
        cap: The cap the document frequencies were counted up to.

    Returns:
        ``(lexeme, weight)`` of the terms found in some note, and the candidate terms;
        both empty when no term is found.
    """
    found = [row for row in stats if row[1]]
    weighted = [(lexeme, bm25_idf(df, total)) for lexeme, df, total, _ in found]
    rare = [lexeme for lexeme, df, total, _ in found if df <= 0.1 * total and df < cap]
    if rare or not found:
        return weighted, rare
    rarest = min(found, key=lambda row: row[3] or row[1])
    return weighted, [rarest[0]]


def _statistics_values(namespace: str, query: str, cap: int, total_cap: int) -> dict[str, Any]:
    return {"namespace": namespace, "q": query, "cap": cap, "total_cap": total_cap}


@cache
def _lexeme_statistics() -> Select:
    namespace, cap = text_param("namespace"), number("cap")
    lexemes = _query_lexemes()
    active = (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .limit(number("total_cap"))
        .subquery()
    )
    total = select(func.count()).select_from(active).scalar_subquery()
    df = _live_df(namespace, lexemes.c.lexeme, cap)
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
    live = _live_df(namespace, lexemes.c.lexeme, cap)
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


def _tsquery_literal(lexeme: str) -> str:
    """Quote a lexeme for ``to_tsquery`` (quotes doubled, backslashes escaped)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@cache
def _fulltext_notes() -> Select:
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    any_term = func.to_tsquery(simple, text_param("any"))
    # each lexeme as a tsquery, parsed once per statement rather than once per note
    lexemes = cast(text_array("lexemes"), ARRAY(TSQUERY))
    terms = (
        func.unnest(lexemes, float_array("weights"))
        .table_valued("query", "weight")
        .render_derived(name="terms")
    )
    matched = (
        select(func.coalesce(func.sum(terms.c.weight), 0.0))
        .select_from(terms)
        .where(Note.tsv.op("@@")(terms.c.query))
        .correlate(Note)
        .scalar_subquery()
    )
    score = (func.ts_rank(Note.tsv, any_term) * 0.01 + matched).label("score")
    return (
        select(Note.id, score)
        .where(
            Note.namespace == text_param("namespace"),
            Note.status == ACTIVE,
            Note.tsv.op("@@")(any_term),
        )
        .order_by(score.desc(), Note.id)
        .limit(number("k"))
    )


def fulltext_notes(
    namespace: str,
    weighted: Sequence[tuple[str, float]],
    k: int,
    candidates: Sequence[str] | None = None,
) -> Prepared:
    """Notes matching any of the ``candidates`` lexemes (default: all), scored by the sum
    of the weights (IDF) of every lexeme they match, ``ts_rank`` breaking ties
    (``id``, ``score``).
    """
    chosen = list(candidates) if candidates else [lex for lex, _w in weighted]
    return Prepared(
        _fulltext_notes(),
        {
            "namespace": namespace,
            "any": " | ".join(_tsquery_literal(lex) for lex in chosen),
            "lexemes": [_tsquery_literal(lex) for lex, _w in weighted],
            "weights": [float(w) for _lex, w in weighted],
            "k": k,
        },
    )
