"""Pure SQL builder of the propagation channel's subgraph: the note-keyword-edge
neighbourhood of a few seed notes, in one statement.

The statement returns links as rows (``kind``, ``keyword_id``, ``note_id``, ``other_id``,
``weight``):

- ``"keyword"`` rows: a keyword of a seed note and one active note carrying it (the seed
  itself included), at most ``carriers + 1`` carriers per keyword, so that a keyword
  carried by more notes than that shows as a hub (more rows than ``carriers``) without
  its carriers being read in full;
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
    literal,
    null,
    or_,
    select,
    true,
    union_all,
)

from langmemcore.storage.models import ACTIVE, Edge, Note, NoteKeyword
from langmemcore.storage.prepared import Prepared, id_array, number, text_param

__all__ = ["propagation_subgraph"]


def _active(namespace: Any, note_id: Any) -> Any:
    """Whether ``note_id`` is an active note of the namespace (as a join condition)."""
    return and_(Note.id == note_id, Note.namespace == namespace, Note.status == ACTIVE)


def _keyword_links(namespace: Any, seeds: Any, limit: Any) -> Select:
    """Keywords of the seeds, each with up to ``limit`` active carriers."""
    seed_keywords = (
        select(NoteKeyword.keyword_id)
        .where(NoteKeyword.namespace == namespace, NoteKeyword.note_id == any_(seeds))
        .distinct()
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
        cast(literal(1.0), Float).label("weight"),
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
        )
    )


@cache
def _propagation_subgraph() -> Any:
    namespace, seeds = text_param("namespace"), id_array("seeds")
    return union_all(
        _keyword_links(namespace, seeds, number("limit")), _edge_links(namespace, seeds)
    )


def propagation_subgraph(namespace: str, seeds: Sequence[int], carriers: int) -> Prepared:
    """The links of the seeds' neighbourhood (see the module docstring).

    Args:
        namespace: Encoded namespace.
        seeds: Seed note ids.
        carriers: Carriers read per keyword before it counts as a hub (one more is read).
    """
    return Prepared(
        _propagation_subgraph(),
        {"namespace": namespace, "seeds": list(seeds), "limit": carriers + 1},
    )
