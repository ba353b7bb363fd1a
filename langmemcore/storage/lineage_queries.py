"""Pure SQL builders that keep the lineage log exact when edges and notes go away.

A ``link`` lineage row refers to its edge by ``after ->> 'edge_id'``. Edges are unique on
(source, target, relation), so a link that finds its edge already there refers to that
edge too: several in-force link rows can share one edge. Removing the edges of some link
rows therefore leaves an edge that another in-force link row still refers to, and every
lineage row whose edge or note is removed is marked undone, so that no row in force
refers to something that no longer exists.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Update,
    delete,
    exists,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import aliased
from sqlalchemy.sql.dml import ReturningDelete

from langmemcore.storage.models import Edge, Lineage

__all__ = ["delete_edges_of_notes", "delete_link_edges", "retire_lineage"]

LINK = "link"


def _edge_id(row: type[Lineage]) -> ColumnElement[int]:
    """The edge id a ``link`` row's ``after`` names (null for any other row)."""
    return row.after["edge_id"].astext.cast(BigInteger)


def delete_link_edges(
    namespace: str, *, observation_id: int | None = None, lineage_id: int | None = None
) -> ReturningDelete[int]:
    """Delete the edges of the in-force link rows of ``observation_id`` (or of the row
    ``lineage_id``) that no other in-force link row refers to; returns their ids.

    Args:
        namespace: The namespace (encoded).
        observation_id: Select the link rows of this observation.
        lineage_id: Or select this one row.
    """
    other = aliased(Lineage)

    def chosen(row: type[Lineage]) -> ColumnElement[bool]:
        if lineage_id is not None:
            return row.id == lineage_id
        return row.observation_id == observation_id

    def in_force_links(row: type[Lineage]) -> ColumnElement[bool]:
        return (row.namespace == namespace) & (row.operation == LINK) & row.undone_at.is_(None)

    own = select(_edge_id(Lineage)).where(in_force_links(Lineage), chosen(Lineage))
    shared = exists().where(
        in_force_links(other),
        ~func.coalesce(chosen(other), False),
        _edge_id(other) == Edge.id,
    )
    return (
        delete(Edge)
        .where(Edge.namespace == namespace, Edge.id.in_(own), ~shared)
        .returning(Edge.id)
    )


def delete_edges_of_notes(namespace: str, note_ids: Sequence[int]) -> ReturningDelete[int]:
    """Delete every edge from or to the notes (before the notes go); returns their ids."""
    ids = list(note_ids)
    return (
        delete(Edge)
        .where(Edge.namespace == namespace, or_(Edge.source_id.in_(ids), Edge.target_id.in_(ids)))
        .returning(Edge.id)
    )


def retire_lineage(
    namespace: str, observation_id: int, note_ids: Sequence[int], edge_ids: Sequence[int]
) -> Update:
    """Mark undone every in-force lineage row of the observation, of one of the notes, or
    whose link names one of the edges (all of them forgotten or removed).
    """
    edges = [str(e) for e in edge_ids]
    return (
        update(Lineage)
        .where(
            Lineage.namespace == namespace,
            Lineage.undone_at.is_(None),
            or_(
                Lineage.observation_id == observation_id,
                Lineage.note_id.in_(list(note_ids)),
                (Lineage.operation == LINK) & Lineage.after["edge_id"].astext.in_(edges),
            ),
        )
        .values(undone_at=func.now())
    )
