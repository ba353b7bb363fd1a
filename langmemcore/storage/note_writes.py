"""Pure SQL builders for the construction's writes that fold several inserts into one
round trip (data-modifying CTEs), so that applying an observation costs few statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import BigInteger, Select, cast, func, literal, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import Edge, Note, NoteKeyword, NoteSource

__all__ = ["insert_active_edges", "insert_note_with_links"]


def _ids(values: Sequence[int]) -> Any:
    return func.unnest(cast(list(values), ARRAY(BigInteger)))


def insert_note_with_links(
    namespace: str,
    values: dict[str, Any],
    source_ids: Sequence[int],
    keyword_ids: Sequence[int],
) -> Select:
    """Insert a note, its sources and its keyword associations; selects the note's id.

    Args:
        namespace: The note's namespace (encoded).
        values: Column values of the note (``namespace`` is added).
        source_ids: Observation ids of its sources.
        keyword_ids: Ids of its keywords (duplicates are ignored).
    """
    note = pg_insert(Note).values(namespace=namespace, **values).returning(Note.id).cte("note")
    stmt = select(note.c.id)
    if source_ids:
        sources = (
            pg_insert(NoteSource)
            .from_select(
                ["namespace", "note_id", "observation_id"],
                select(literal(namespace), note.c.id, _ids(source_ids)),
            )
            .cte("sources")
        )
        stmt = stmt.add_cte(sources)
    if keyword_ids:
        keywords = (
            pg_insert(NoteKeyword)
            .from_select(
                ["namespace", "note_id", "keyword_id"],
                select(literal(namespace), note.c.id, _ids(list(dict.fromkeys(keyword_ids)))),
            )
            .on_conflict_do_nothing()
            .cte("keywords")
        )
        stmt = stmt.add_cte(keywords)
    return stmt


def insert_active_edges(namespace: str, source_id: int, links: Sequence[dict[str, Any]]) -> Select:
    """Insert edges from ``source_id`` to those link targets that are active notes of the
    namespace (never to itself); selects (edge id, target id) of the edges created.

    Args:
        namespace: The namespace (encoded).
        source_id: The new note.
        links: Dicts with ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``.
    """
    wanted = select(
        func.unnest(cast([link["target_id"] for link in links], ARRAY(BigInteger))).label("t"),
        func.unnest(cast([link["relation"] for link in links], ARRAY(Edge.relation.type))).label(
            "relation"
        ),
        func.unnest(
            cast([float(link["strength"]) for link in links], ARRAY(Edge.strength.type))
        ).label("strength"),
        func.unnest(cast([link["tag"] for link in links], ARRAY(Edge.tag.type))).label("tag"),
        func.unnest(cast([link["reason"] for link in links], ARRAY(Edge.reason.type))).label(
            "reason"
        ),
        func.generate_subscripts(
            cast([link["target_id"] for link in links], ARRAY(BigInteger)), 1
        ).label("position"),
    ).subquery("wanted")
    targets = (
        select(
            literal(namespace),
            literal(source_id, BigInteger),
            wanted.c.t,
            wanted.c.relation,
            wanted.c.strength,
            wanted.c.tag,
            wanted.c.reason,
        )
        .join(Note, Note.id == wanted.c.t)
        .where(Note.namespace == namespace, Note.status == "active", wanted.c.t != source_id)
        .order_by(wanted.c.position)
    )
    created = (
        pg_insert(Edge)
        .from_select(
            ["namespace", "source_id", "target_id", "relation", "strength", "tag", "reason"],
            targets,
        )
        .returning(Edge.id, Edge.target_id)
        .cte("created")
    )
    return select(created.c.id, created.c.target_id).order_by(created.c.id)
