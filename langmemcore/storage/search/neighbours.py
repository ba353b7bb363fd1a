"""Pure SQL builder of the neighbour channel's read: the association edges touching the
anchor notes and the similarity to the query of the active notes at their other ends, in
one statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sqlalchemy import CompoundSelect, all_, any_, literal_column, null, or_, select, union_all

from langmemcore.storage.models import ACTIVE, SUPERSEDES, Edge, Note, vector_param
from langmemcore.storage.prepared import Prepared, id_array, text_param, vector_bind

__all__ = ["neighbourhood"]


@cache
def _neighbourhood() -> CompoundSelect:
    namespace, anchors = text_param("namespace"), id_array("anchor_ids")
    touching = (
        select(Edge.id, Edge.source_id, Edge.target_id, Edge.strength)
        .where(
            Edge.namespace == namespace,
            or_(Edge.source_id == any_(anchors), Edge.target_id == any_(anchors)),
            Edge.relation != SUPERSEDES,
        )
        .cte("touching")
    )
    ends = union_all(
        select(touching.c.source_id.label("note_id")), select(touching.c.target_id)
    ).subquery("ends")
    edges = select(
        literal_column("'edge'").label("kind"),
        touching.c.source_id,
        touching.c.target_id,
        touching.c.strength.label("value"),
        touching.c.id.label("edge_id"),
    )
    similar = select(
        literal_column("'note'"),
        Note.id,
        null(),
        Note.embedding.cosine_distance(vector_bind()),
        null(),
    ).where(
        Note.namespace == namespace,
        Note.status == ACTIVE,
        Note.id.in_(select(ends.c.note_id)),
        Note.id != all_(anchors),
    )
    return union_all(edges, similar)


def neighbourhood(namespace: str, anchor_ids: Sequence[int], vector: Sequence[float]) -> Prepared:
    """Rows ``(kind, id, target_id, value, edge_id)``: ``'edge'`` rows (``source_id``,
    ``target_id``, ``strength``, edge id) of the edges touching any anchor, and ``'note'``
    rows (``id``, null, cosine distance to ``vector``, null) of the active notes at their
    ends that are not anchors.
    """
    return Prepared(
        _neighbourhood(),
        {"namespace": namespace, "anchor_ids": list(anchor_ids), "vector": vector_param(vector)},
    )
