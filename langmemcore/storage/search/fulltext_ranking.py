"""Pure SQL builder of the full-text channel in one statement: the query's term
statistics (stored, or counted live when the namespace has none, see
:mod:`~langmemcore.storage.search.fulltext`), their weights and the choice of candidate
terms, then the IDF-weighted ranking of the notes, in one round trip.

Every term found in some note weighs its BM25 IDF, ``ln(1 + (N - df + 0.5) / (df +
0.5))``. Terms found in more than a tenth of the notes (speaker names, say), or in at
least ``cap`` notes, weigh in but do not select candidates on their own, unless every term
is that common: then the rarest of them does, by the stored, uncapped counts where known,
the first in query order among equals; and when every term is in ``cap`` notes or more,
the notes holding all of them are the candidates (the rarest alone would bring every note
holding it to be ranked, thousands at 100k notes; their conjunction is a GIN intersection,
usually far fewer). Below ``cap`` notes in a namespace this never happens.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Select,
    and_,
    case,
    cast,
    exists,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.dialects.postgresql import TSQUERY, aggregate_order_by

from langmemcore.storage.models import ACTIVE, FulltextStatistics, LexemeStats, Note
from langmemcore.storage.prepared import Prepared, number, text_param
from langmemcore.storage.search.fulltext import live_document_frequency, live_note_count

__all__ = ["fulltext_ranking", "fulltext_ranking_select"]

_SIMPLE: ColumnElement[Any] = literal_column("'simple'::regconfig")


def _query_lexemes() -> Any:
    """The query's English lexemes with their order (``lexeme``, ``ord``)."""
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    return (
        func.unnest(func.tsvector_to_array(func.to_tsvector(english, text_param("q"))))
        .table_valued("lexeme", with_ordinality="ord")
        .render_derived(name="lexemes")
    )


def _statistics(namespace: Any, cap: Any, total_cap: Any) -> Any:
    """``(lexeme, ord, df, total, stored_df)`` per query lexeme: from the stored counts
    when the namespace has them (a lexeme they lack counted live), else all live.
    """
    lexemes = _query_lexemes()
    live = live_document_frequency(namespace, lexemes.c.lexeme, cap)
    stored = (
        select(
            lexemes.c.lexeme,
            lexemes.c.ord,
            func.least(func.coalesce(LexemeStats.df, live), cap).label("df"),
            func.least(FulltextStatistics.active_notes, total_cap).label("total"),
            LexemeStats.df.label("stored_df"),
        )
        .select_from(lexemes)
        .join(FulltextStatistics, FulltextStatistics.namespace == namespace)
        .outerjoin(
            LexemeStats,
            (LexemeStats.namespace == namespace) & (LexemeStats.lexeme == lexemes.c.lexeme),
        )
    )
    counted = exists().where(FulltextStatistics.namespace == namespace)
    fallback = _query_lexemes()
    all_live = select(
        fallback.c.lexeme,
        fallback.c.ord,
        live_document_frequency(namespace, fallback.c.lexeme, cap),
        live_note_count(namespace, total_cap),
        null(),
    ).where(~counted)
    return union_all(stored, all_live).cte("statistics")


def _float(value: Any) -> ColumnElement[float]:
    return cast(value, Float)


def _quoted(lexeme: Any) -> ColumnElement[str]:
    """A lexeme quoted for ``to_tsquery`` (backslashes escaped, quotes doubled)."""
    escaped = func.replace(func.replace(lexeme, "\\", "\\\\"), "'", "''")
    return literal("'") + escaped + literal("'")


def _weighted(stats: Any, cap: Any) -> Any:
    """The terms found in some note with their BM25 IDF weight, whether they are rare
    enough to select candidates, whether their count reached ``cap``, and their rarity key
    (stored count where known).
    """
    df, total = _float(stats.c.df), _float(stats.c.total)
    idf = func.ln(_float(1.0) + (total - df + _float(0.5)) / (df + _float(0.5)))
    return (
        select(
            stats.c.lexeme,
            stats.c.ord,
            idf.label("weight"),
            and_(df <= _float(0.1) * total, stats.c.df < cap).label("rare"),
            (stats.c.df >= cap).label("capped"),
            func.coalesce(func.nullif(stats.c.stored_df, 0), stats.c.df).label("rarity"),
        )
        .where(stats.c.df != 0)
        .cte("weighted")
    )


def _terms(weighted: Any) -> Any:
    """One row: the candidates' tsquery text (``any``: any rare term, else the rarest,
    else, every term counted at the cap, all of them), and every found term as tsqueries
    with their weights, in query order.
    """
    any_rare = exists().where(weighted.c.rare)
    all_capped = ~exists().where(~weighted.c.capped)
    rarest = (
        select(weighted.c.ord)
        .order_by(weighted.c.rarity, weighted.c.ord)
        .limit(1)
        .scalar_subquery()
    )
    chosen = or_(weighted.c.rare, and_(~any_rare, weighted.c.ord == rarest))
    quoted = _quoted(weighted.c.lexeme)
    candidates = case(
        (all_capped, func.string_agg(quoted, aggregate_order_by(literal(" & "), weighted.c.ord))),
        else_=func.string_agg(quoted, aggregate_order_by(literal(" | "), weighted.c.ord)).filter(
            chosen
        ),
    )
    return select(
        candidates.label("any"),
        func.array_agg(aggregate_order_by(cast(quoted, TSQUERY), weighted.c.ord)).label("queries"),
        func.array_agg(aggregate_order_by(weighted.c.weight, weighted.c.ord)).label("weights"),
    ).cte("terms")


def fulltext_ranking_select(namespace: Any, limit: Any) -> Select:
    """The full-text ranking (``id``, ``score``; see :func:`fulltext_ranking`), top
    ``limit``, reading the bind parameters ``q``, ``cap`` and ``total_cap``.
    """
    cap = number("cap")
    weighted = _weighted(_statistics(namespace, cap, number("total_cap")), cap)
    terms = _terms(weighted)
    any_term = func.to_tsquery(_SIMPLE, terms.c.any)
    each = (
        func.unnest(terms.c.queries, terms.c.weights)
        .table_valued("query", "weight")
        .render_derived(name="each_term")
    )
    matched = (
        select(func.coalesce(func.sum(each.c.weight), 0.0))
        .select_from(each)
        .where(Note.tsv.op("@@")(each.c.query))
        .correlate(Note, terms)
        .scalar_subquery()
    )
    score = (func.ts_rank(Note.tsv, any_term) * 0.01 + matched).label("score")
    return (
        select(Note.id, score)
        .select_from(terms)
        .join(Note, literal_column("true"))
        .where(
            terms.c.any.isnot(None),
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.tsv.op("@@")(any_term),
        )
        .order_by(score.desc(), Note.id)
        .limit(limit)
    )


@cache
def _fulltext_ranking() -> Select:
    return fulltext_ranking_select(text_param("namespace"), number("k"))


def fulltext_ranking(
    namespace: str,
    query: str,
    k: int,
    cap: int,
    total_cap: int,
) -> Prepared:
    """Active notes matching a candidate term of ``query``, scored by the sum of the
    weights (BM25 IDF) of every query term they hold, ``ts_rank`` breaking ties (``id``,
    ``score``), top ``k``: the statistics, the weighing and the ranking in one statement.
    Document frequencies are counted up to ``cap``, active notes up to ``total_cap`` (see
    :data:`~langmemcore.storage.search.fulltext.DOCUMENT_FREQUENCY_CAP`).
    """
    return Prepared(
        _fulltext_ranking(),
        {"namespace": namespace, "q": query, "k": k, "cap": cap, "total_cap": total_cap},
    )
