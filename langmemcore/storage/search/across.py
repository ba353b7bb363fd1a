"""Pure SQL builder of the rankings of a search across several namespaces at once: the
dense vector and full-text channels over the active notes of every namespace given, each
a ``UNION ALL`` branch numbered in its order, in one round trip.

The vector branch has the shape of the vector channel (cosine distance to the query's
embedding, the HNSW-indexed expression, best first) with the namespace condition
``namespace = ANY(namespaces)``; the full-text branch ranks the notes matching any of the
query's English lexemes by ``ts_rank_cd`` of their ``tsv`` column (no per-namespace term
statistics: they would weigh a term differently in each namespace).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    any_,
    func,
    literal_column,
    select,
    union_all,
)

from langmemcore.storage.models import ACTIVE, Note, vector_param
from langmemcore.storage.prepared import (
    Prepared,
    number,
    text_array,
    text_param,
    vector_bind,
)
from langmemcore.storage.search.shared import numbered

__all__ = ["rankings_across"]


def _any_lexeme() -> Any:
    """The query's English lexemes joined by OR as a ``simple`` tsquery (NULL when the
    query has none, e.g. only stop words), a scalar subquery.
    """
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    lexemes = (
        func.unnest(func.tsvector_to_array(func.to_tsvector(english, text_param("q"))))
        .table_valued("lexeme")
        .render_derived(name="lexemes")
    )
    terms = func.string_agg(func.quote_literal(lexemes.c.lexeme), literal_column("' | '"))
    return select(func.to_tsquery(simple, terms)).select_from(lexemes).scalar_subquery()


@cache
def _rankings_across(threaded: bool) -> CompoundSelect:
    namespaces, depth = any_(text_array("namespaces")), number("depth")
    column = Note.thread_embedding if threaded else Note.embedding
    distance = column.cosine_distance(vector_bind()).label("distance")
    nearest = (
        select(Note.id.label("note_id"), distance)
        .where(Note.namespace == namespaces, Note.status == ACTIVE)
        .order_by(distance, Note.id)
        .limit(depth)
        .subquery("vector_ranking")
    )
    query = _any_lexeme()
    rank = func.ts_rank_cd(Note.tsv, query).label("rank")
    matching = (
        select(Note.id.label("note_id"), rank)
        .where(Note.namespace == namespaces, Note.status == ACTIVE, Note.tsv.op("@@")(query))
        .order_by(rank.desc(), Note.id)
        .limit(depth)
        .subquery("fulltext_ranking")
    )
    return union_all(
        numbered("vector", nearest.c.note_id, nearest.c.distance, nearest.c.note_id),
        numbered("fulltext", matching.c.note_id, matching.c.rank.desc(), matching.c.note_id),
    )


def rankings_across(
    namespaces: Sequence[str], vector: Sequence[float], text: str, depth: int, *, threaded: bool
) -> Prepared:
    """The vector and full-text rankings of the active notes of ``namespaces`` (stored
    text forms) in one statement: rows ``(channel, position, note_id)``, at most
    ``depth`` notes a channel; ``threaded``: the vector channel ranks notes by their
    thread vectors.
    """
    values = {
        "namespaces": list(namespaces),
        "vector": vector_param(vector),
        "q": text,
        "depth": depth,
    }
    return Prepared(_rankings_across(threaded), values)
