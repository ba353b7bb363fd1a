"""Pure SQL builders of edges and the lineage log, and of what keeps the log exact when
edges and notes go away.

A ``link`` lineage row refers to its edge by ``after ->> 'edge_id'``. Edges are unique on
(source, target, relation), so a link that finds its edge already there refers to that
edge too: several in-force link rows can share one edge. Removing the edges of some link
rows therefore leaves an edge that another in-force link row still refers to, and every
lineage row whose edge or note is removed is marked undone, so that no row in force
refers to something that no longer exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Insert,
    Select,
    any_,
    bindparam,
    cast,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import aliased

from langmemcore.storage.models import ACTIVE, Edge, Lineage, Note
from langmemcore.storage.prepared import (
    Prepared,
    float_array,
    id_array,
    text_array,
    text_param,
)

__all__ = [
    "delete_edges_of_notes",
    "delete_link_edges",
    "edges_of_notes",
    "insert_active_edges",
    "insert_lineages",
    "later_merge",
    "lineage_after",
    "lineage_row",
    "links_in_force",
    "mark_undone",
    "merges_in_force",
    "retire_lineage",
    "retire_merges_of_note",
]

LINK = "link"
MERGE = "merge"


def _edge_id(row: type[Lineage]) -> ColumnElement[int]:
    """The edge id a ``link`` row's ``after`` names (null for any other row)."""
    return row.after["edge_id"].astext.cast(BigInteger)


def delete_link_edges(
    namespace: str, *, observation_id: int | None = None, lineage_id: int | None = None
) -> Prepared:
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
    return Prepared(
        delete(Edge)
        .where(Edge.namespace == namespace, Edge.id.in_(own), ~shared)
        .returning(Edge.id),
        {},
    )


def delete_edges_of_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Delete every edge from or to the notes (before the notes go); returns their ids."""
    ids = list(note_ids)
    return Prepared(
        delete(Edge)
        .where(Edge.namespace == namespace, or_(Edge.source_id.in_(ids), Edge.target_id.in_(ids)))
        .returning(Edge.id),
        {},
    )


def retire_lineage(
    namespace: str, observation_id: int, note_ids: Sequence[int], edge_ids: Sequence[int]
) -> Prepared:
    """Mark undone every in-force lineage row of the observation, of one of the notes, or
    whose link names one of the edges (all of them forgotten or removed).
    """
    edges = [str(e) for e in edge_ids]
    return Prepared(
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
        .values(undone_at=func.now()),
        {},
    )


@cache
def _insert_active_edges() -> Select:
    namespace, source_id = text_param("namespace"), bindparam("source_id", type_=BigInteger)
    wanted = (
        func.unnest(
            id_array("targets"),
            cast(text_array("relations"), ARRAY(Edge.relation.type)),
            float_array("strengths"),
            cast(text_array("tags"), ARRAY(Edge.tag.type)),
            cast(text_array("reasons"), ARRAY(Edge.reason.type)),
        )
        .table_valued("t", "relation", "strength", "tag", "reason", with_ordinality="position")
        .render_derived(name="wanted")
    )
    targets = (
        select(
            namespace,
            source_id,
            wanted.c.t,
            wanted.c.relation,
            wanted.c.strength,
            wanted.c.tag,
            wanted.c.reason,
        )
        .join(Note, Note.id == wanted.c.t)
        .where(Note.namespace == namespace, Note.status == ACTIVE, wanted.c.t != source_id)
        .order_by(wanted.c.position)
    )
    stmt = pg_insert(Edge).from_select(
        ["namespace", "source_id", "target_id", "relation", "strength", "tag", "reason"], targets
    )
    # an edge already there is kept as it is (a no-op update, so that its id comes back)
    upsert = stmt.on_conflict_do_update(
        constraint="uq_edges_source_target_relation", set_={"strength": Edge.strength}
    )
    created = upsert.returning(Edge.id, Edge.target_id).cte("created")
    return select(created.c.id, created.c.target_id).order_by(created.c.id)


def insert_active_edges(
    namespace: str, source_id: int, links: Sequence[dict[str, Any]]
) -> Prepared:
    """Upsert edges from ``source_id`` to those link targets that are active notes of the
    namespace (never to itself); selects (edge id, target id) of the edges written, by
    edge id. An edge of the same source, target and relation (they are unique) that
    exists already is kept as it is, and its id selected: undoing the later link, which
    then leaves the edge to the earlier one, restores exactly what was there before.

    Args:
        namespace: The namespace (encoded).
        source_id: The note the edges start from.
        links: Dicts with ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``;
            at most one per target and relation.
    """
    return Prepared(
        _insert_active_edges(),
        {
            "namespace": namespace,
            "source_id": source_id,
            "targets": [link["target_id"] for link in links],
            "relations": [link["relation"] for link in links],
            "strengths": [float(link["strength"]) for link in links],
            "tags": [link["tag"] for link in links],
            "reasons": [link["reason"] for link in links],
        },
    )


@cache
def _insert_lineages() -> Insert:
    jsonb_array = ARRAY(JSONB)
    rows = (
        func.unnest(
            text_array("operations"),
            id_array("observation_ids"),
            id_array("note_ids"),
            cast(text_array("befores"), jsonb_array),
            cast(text_array("afters"), jsonb_array),
            text_array("reasons"),
        )
        .table_valued(
            "operation",
            "observation_id",
            "note_id",
            "before",
            "after",
            "reason",
            with_ordinality="position",
        )
        .render_derived(name="rows")
    )
    ordered = select(
        text_param("namespace"),
        rows.c.operation,
        rows.c.observation_id,
        rows.c.note_id,
        rows.c.before,
        rows.c.after,
        rows.c.reason,
    ).order_by(rows.c.position)
    columns = ["namespace", "operation", "observation_id", "note_id", "before", "after", "reason"]
    return (
        insert(Lineage)
        .from_select(columns, ordered)
        .returning(Lineage.id)
        .execution_options(dml_strategy="raw")
    )


def insert_lineages(namespace: str, rows: Sequence[dict[str, Any]]) -> Prepared:
    """Insert lineage rows in one statement; returns their ids (ascending ids follow the
    rows' order: identities are drawn as the ordered rows are inserted).

    Each row dict carries ``operation`` and optionally ``observation_id``, ``note_id``,
    ``before``, ``after`` (JSON-able) and ``reason``.
    """
    return Prepared(
        _insert_lineages(),
        {
            "namespace": namespace,
            "operations": [row["operation"] for row in rows],
            "observation_ids": [row.get("observation_id") for row in rows],
            "note_ids": [row.get("note_id") for row in rows],
            "befores": [json.dumps(row.get("before")) for row in rows],
            "afters": [json.dumps(row.get("after")) for row in rows],
            "reasons": [row.get("reason") for row in rows],
        },
    )


@cache
def _edges_of_notes() -> Select:
    ids = any_(id_array("note_ids"))
    return (
        select(Edge)
        .where(
            Edge.namespace == text_param("namespace"),
            or_(Edge.source_id == ids, Edge.target_id == ids),
        )
        .order_by(Edge.strength.desc(), Edge.id)
    )


def edges_of_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Edges touching any of ``note_ids`` (either end)."""
    return Prepared(_edges_of_notes(), {"namespace": namespace, "note_ids": list(note_ids)})


def _in_force(namespace: str, note_id: int | None, operation: str) -> ColumnElement[bool]:
    """In-force lineage rows of ``operation`` about the note."""
    return (
        (Lineage.namespace == namespace)
        & (Lineage.note_id == note_id)
        & (Lineage.operation == operation)
        & Lineage.undone_at.is_(None)
    )


def lineage_row(namespace: str, lineage_id: int) -> Prepared:
    """The lineage row ``lineage_id`` of the namespace."""
    return Prepared(
        select(Lineage).where(Lineage.namespace == namespace, Lineage.id == lineage_id), {}
    )


def lineage_after(namespace: str, lineage_id: int) -> Prepared:
    """The ``after`` of the lineage row ``lineage_id``."""
    return Prepared(
        select(Lineage.after).where(Lineage.namespace == namespace, Lineage.id == lineage_id),
        {},
    )


def later_merge(namespace: str, note_id: int | None, lineage_id: int) -> Prepared:
    """The id of one in-force merge into the note written after the row ``lineage_id``."""
    return Prepared(
        select(Lineage.id)
        .where(_in_force(namespace, note_id, MERGE), Lineage.id > lineage_id)
        .limit(1),
        {},
    )


def merges_in_force(namespace: str, note_id: int) -> Prepared:
    """The in-force merge rows into the note, newest first."""
    return Prepared(
        select(Lineage).where(_in_force(namespace, note_id, MERGE)).order_by(Lineage.id.desc()),
        {},
    )


def links_in_force(namespace: str, note_id: int, observation_id: int | None) -> Prepared:
    """The in-force link rows from the note written with the observation, newest first."""
    return Prepared(
        select(Lineage)
        .where(_in_force(namespace, note_id, LINK), Lineage.observation_id == observation_id)
        .order_by(Lineage.id.desc()),
        {},
    )


def mark_undone(namespace: str, lineage_id: int) -> Prepared:
    """Mark the lineage row ``lineage_id`` undone now."""
    return Prepared(
        update(Lineage)
        .where(Lineage.namespace == namespace, Lineage.id == lineage_id)
        .values(undone_at=func.now()),
        {},
    )


def retire_merges_of_note(namespace: str, note_id: int) -> Prepared:
    """Mark undone every in-force merge into the note (superseded by a repair)."""
    return Prepared(
        update(Lineage).where(_in_force(namespace, note_id, MERGE)).values(undone_at=func.now()),
        {},
    )
