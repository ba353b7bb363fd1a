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

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    bindparam,
    case,
    delete,
    func,
    insert,
    literal,
    literal_column,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import LexemeStats, NamespaceStats, Note

__all__ = [
    "DOCUMENT_FREQUENCY_CAP",
    "NOTE_COUNT_CAP",
    "clear_lexeme_stats",
    "fulltext_notes",
    "insert_lexeme_stats",
    "lexeme_statistics",
    "stored_lexeme_statistics",
    "upsert_namespace_stats",
]

ACTIVE = "active"


def _query_lexemes(query: str) -> Any:
    """The query's English lexemes, one row each (column ``lexeme``)."""
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    return select(
        func.unnest(func.tsvector_to_array(func.to_tsvector(english, bindparam("q", query)))).label(
            "lexeme"
        )
    ).subquery("lexemes")


def _live_df(namespace: str, lexeme: ColumnElement[Any], cap: int) -> Any:
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


def lexeme_statistics(
    namespace: str,
    query: str,
    cap: int = DOCUMENT_FREQUENCY_CAP,
    total_cap: int = NOTE_COUNT_CAP,
) -> Select:
    """The query's English lexemes with their document frequency among the namespace's
    active notes, counted live up to ``cap``, plus the number of active notes counted up
    to ``total_cap`` (``lexeme``, ``df``, ``total``).
    """
    lexemes = _query_lexemes(query)
    active = (
        select(Note.id)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .limit(total_cap)
        .subquery()
    )
    total = select(func.count()).select_from(active).scalar_subquery()
    df = _live_df(namespace, lexemes.c.lexeme, cap)
    return select(lexemes.c.lexeme, df.label("df"), total.label("total"))


def stored_lexeme_statistics(
    namespace: str,
    query: str,
    cap: int = DOCUMENT_FREQUENCY_CAP,
    total_cap: int = NOTE_COUNT_CAP,
) -> Select:
    """Like :func:`lexeme_statistics`, from the stored statistics: a lexeme they do not
    know is counted live (it can only be in notes written since the refresh). No rows
    when the namespace's statistics were never refreshed.
    """
    lexemes = _query_lexemes(query)
    df = func.least(func.coalesce(LexemeStats.df, _live_df(namespace, lexemes.c.lexeme, cap)), cap)
    total = func.least(NamespaceStats.active_notes, total_cap)
    return (
        select(lexemes.c.lexeme, df.label("df"), total.label("total"))
        .select_from(lexemes)
        .join(NamespaceStats, NamespaceStats.namespace == namespace)
        .outerjoin(
            LexemeStats,
            (LexemeStats.namespace == namespace) & (LexemeStats.lexeme == lexemes.c.lexeme),
        )
    )


def clear_lexeme_stats(namespace: str) -> Delete:
    """Forget the namespace's stored lexeme counts (before a refresh)."""
    return delete(LexemeStats).where(LexemeStats.namespace == namespace)


def insert_lexeme_stats(namespace: str) -> Insert:
    """Count every lexeme of the namespace's active notes into ``lexeme_stats``."""
    lexeme = func.unnest(func.tsvector_to_array(Note.tsv)).label("lexeme")
    per_note = select(lexeme).where(Note.namespace == namespace, Note.status == ACTIVE).subquery()
    counts = select(
        literal(namespace).label("namespace"), per_note.c.lexeme, func.count().label("df")
    ).group_by(per_note.c.lexeme)
    return insert(LexemeStats).from_select(["namespace", "lexeme", "df"], counts)


def upsert_namespace_stats(namespace: str) -> Insert:
    """Record the namespace's active notes and the time of this refresh."""
    active = (
        select(func.count())
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .scalar_subquery()
    )
    stmt = pg_insert(NamespaceStats).values(namespace=namespace, active_notes=active)
    return stmt.on_conflict_do_update(
        index_elements=[NamespaceStats.namespace],
        set_={"active_notes": stmt.excluded.active_notes, "refreshed_at": func.now()},
    )


def _tsquery_literal(lexeme: str) -> str:
    """Quote a lexeme for ``to_tsquery`` (quotes doubled, backslashes escaped)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def fulltext_notes(
    namespace: str,
    weighted: Sequence[tuple[str, float]],
    k: int,
    candidates: Sequence[str] | None = None,
) -> Select:
    """Notes matching any of the ``candidates`` lexemes (default: all), scored by the sum
    of the weights (IDF) of every lexeme they match, ``ts_rank`` breaking ties
    (``id``, ``score``).
    """
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    queries = [
        func.to_tsquery(simple, func.quote_literal(bindparam(f"lex{i}", lex)))
        for i, (lex, _w) in enumerate(weighted)
    ]
    chosen = list(candidates) if candidates else [lex for lex, _w in weighted]
    any_term = func.to_tsquery(
        simple, bindparam("any", " | ".join(_tsquery_literal(lex) for lex in chosen))
    )
    score = sum(
        (
            case((Note.tsv.op("@@")(tsq), weight), else_=0.0)
            for tsq, (_lex, weight) in zip(queries, weighted, strict=True)
        ),
        start=func.ts_rank(Note.tsv, any_term) * 0.01,
    ).label("score")
    return (
        select(Note.id, score)
        .where(Note.namespace == namespace, Note.status == ACTIVE, Note.tsv.op("@@")(any_term))
        .order_by(score.desc(), Note.id)
        .limit(k)
    )
