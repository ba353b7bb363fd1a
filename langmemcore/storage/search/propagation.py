"""Pure SQL builder of the propagation channel's subgraph: the note-keyword-edge
neighbourhood of a few seed notes, in one statement.

The statement returns links as rows (``kind``, ``keyword_id``, ``note_id``, ``other_id``,
``weight``):

- ``"keyword"`` rows: a keyword of a seed note and one active note carrying it (the seed
  itself included), at most ``carriers + 1`` carriers per keyword, so that a keyword
  carried by more notes than that shows as a hub (more rows than ``carriers``) without
  its carriers being read in full; ``weight`` is the keyword's highest cosine
  similarity to the query's keywords;
- ``"edge"`` rows: an association edge touching a seed (``note_id`` -> ``other_id``, its
  strength as ``weight``) whose other end is active.

Every subquery filters by namespace first. Executed by
:meth:`~langmemcore.storage.search.access.SearchAccess.propagation_subgraph`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    Select,
    and_,
    any_,
    cast,
    func,
    literal,
    null,
    or_,
    select,
    true,
    union_all,
)

from langmemcore.storage.models import ACTIVE, SUPERSEDES, Edge, Keyword, Note, NoteKeyword
from langmemcore.storage.prepared import (
    Prepared,
    id_array,
    number,
    text_param,
    vector_array,
    vector_texts,
)

__all__ = ["propagation_subgraph"]


def _active(namespace: Any, note_id: Any) -> Any:
    """Whether ``note_id`` is an active note of the namespace (as a join condition)."""
    return and_(Note.id == note_id, Note.namespace == namespace, Note.status == ACTIVE)


def _query_similarity(vectors: Any) -> Any:
    """A keyword's highest cosine similarity to the query's keyword vectors (``NULL``
    without any).
    """
    query = func.unnest(vectors).table_valued("vector").render_derived()
    similarity = 1.0 - Keyword.embedding.cosine_distance(query.c.vector)
    return select(func.max(similarity)).select_from(query).scalar_subquery()


def _keyword_links(namespace: Any, seeds: Any, vectors: Any, limit: Any) -> Select:
    """Keywords of the seeds with their similarity to the query, each with up to
    ``limit`` active carriers.
    """
    seed_ids = (
        select(NoteKeyword.keyword_id)
        .where(NoteKeyword.namespace == namespace, NoteKeyword.note_id == any_(seeds))
        .distinct()
        .subquery("seed_ids")
    )
    seed_keywords = (
        select(Keyword.id.label("keyword_id"), _query_similarity(vectors).label("similarity"))
        .join(seed_ids, seed_ids.c.keyword_id == Keyword.id)
        .where(Keyword.namespace == namespace)
        .subquery("seed_keywords")
    )
    carrier = (
        select(NoteKeyword.note_id)
        .join(Note, _active(namespace, NoteKeyword.note_id))
        .where(
            NoteKeyword.namespace == namespace,
            NoteKeyword.keyword_id == seed_keywords.c.keyword_id,
        )
        .order_by(NoteKeyword.note_id)
        .limit(limit)
        .lateral("carrier")
    )
    return select(
        literal("keyword").label("kind"),
        seed_keywords.c.keyword_id,
        carrier.c.note_id,
        cast(null(), BigInteger).label("other_id"),
        cast(func.coalesce(seed_keywords.c.similarity, 0.0), Float).label("weight"),
    ).select_from(seed_keywords.join(carrier, true()))


def _edge_links(namespace: Any, seeds: Any) -> Select:
    """Association edges touching a seed whose both ends are active notes."""
    source, target = Note.__table__.alias("source"), Note.__table__.alias("target")
    return (
        select(
            literal("edge").label("kind"),
            cast(null(), BigInteger).label("keyword_id"),
            Edge.source_id.label("note_id"),
            Edge.target_id.label("other_id"),
            Edge.strength.label("weight"),
        )
        .join(
            source,
            and_(
                source.c.id == Edge.source_id,
                source.c.namespace == namespace,
                source.c.status == ACTIVE,
            ),
        )
        .join(
            target,
            and_(
                target.c.id == Edge.target_id,
                target.c.namespace == namespace,
                target.c.status == ACTIVE,
            ),
        )
        .where(
            Edge.namespace == namespace,
            or_(Edge.source_id == any_(seeds), Edge.target_id == any_(seeds)),
            Edge.relation != SUPERSEDES,
        )
    )


@cache
def _propagation_subgraph() -> Any:
    namespace, seeds = text_param("namespace"), id_array("seeds")
    keywords = _keyword_links(namespace, seeds, vector_array("vectors"), number("limit"))
    return union_all(keywords, _edge_links(namespace, seeds))


def propagation_subgraph(
    namespace: str,
    seeds: Sequence[int],
    query_vectors: Sequence[Sequence[float]],
    carriers: int,
) -> Prepared:
    """The links of the seeds' neighbourhood (see the module docstring).

    Args:
        namespace: Encoded namespace.
        seeds: Seed note ids.
        query_vectors: The query's keyword vectors (a keyword row's ``weight`` is its
            highest similarity to them, 0 without any).
        carriers: Carriers read per keyword before it counts as a hub (one more is read).
    """
    values = {"namespace": namespace, "seeds": list(seeds), "limit": carriers + 1}
    return Prepared(_propagation_subgraph(), {**values, "vectors": vector_texts(query_vectors)})
