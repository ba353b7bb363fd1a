"""Validity on the notes: when what each says became valid and when it stopped.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06

- ``edges.relation`` may be ``supersedes``: an edge from a note to one it supersedes,
  decided when either is written (:mod:`langmemcore.construction.validity`).
- ``notes.valid_from`` is the latest event time of the note's sources; ``notes.valid_to``
  the earliest ``valid_from`` of the notes superseding it (an index of the notes that have
  one, per namespace, serves their refresh after undo, unmerge and forget).
- Existing databases are decided here, namespace by namespace: each note is compared, as
  a write compares it, with the notes linked to it and, when it announces a change, with
  the latest statements of its speaker said before it that speak of what it says
  changed; each ``supersedes`` edge is written with the ``link`` lineage row of the
  note's latest source observation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_RELATIONS = "'supports', 'conflicts', 'related_to'"

_VALID_FROM = """
UPDATE notes n SET valid_from = said.at
FROM (SELECT s.namespace, s.note_id, max(o.event_time) AS at
      FROM note_sources s
      JOIN observations o ON o.namespace = s.namespace AND o.id = s.observation_id
      GROUP BY s.namespace, s.note_id) said
WHERE n.namespace = said.namespace AND n.id = said.note_id
"""

_VALID_TO = """
UPDATE notes n SET valid_to = ended.at
FROM (SELECT e.namespace, e.target_id, min(newer.valid_from) AS at
      FROM edges e
      JOIN notes newer ON newer.namespace = e.namespace AND newer.id = e.source_id
      WHERE e.relation = 'supersedes'
      GROUP BY e.namespace, e.target_id) ended
WHERE n.namespace = ended.namespace AND n.id = ended.target_id
"""

_NOTES = sa.text(
    """
    SELECT n.id, n.context, n.keywords, o.id AS observation_id, o.key, o.speaker,
           o.event_time, o.content, o.analysis
    FROM notes n
    JOIN note_sources s ON s.namespace = n.namespace AND s.note_id = n.id
    JOIN observations o ON o.namespace = s.namespace AND o.id = s.observation_id
    WHERE n.namespace = :namespace AND n.status = 'active'
    ORDER BY n.id, o.event_time NULLS FIRST, o.id
    """
)

_EDGES = sa.text("SELECT source_id, target_id, relation FROM edges WHERE namespace = :namespace")

_INSERT_EDGE = sa.text(
    """
    INSERT INTO edges (namespace, source_id, target_id, relation, strength, tag, reason)
    VALUES (:namespace, :source_id, :target_id, 'supersedes', 0.5, :tag, :reason)
    ON CONFLICT DO NOTHING
    RETURNING id
    """
)

_INSERT_LINEAGE = sa.text(
    """
    INSERT INTO lineage (namespace, operation, observation_id, note_id, after, reason)
    VALUES (:namespace, 'link', :observation_id, :note_id, :after, :reason)
    """
).bindparams(sa.bindparam("after", type_=JSONB))


def _statements(bind: Any, namespace: str) -> tuple[dict[int, Any], dict[int, int]]:
    """The namespace's active notes as supersession reads them, and the latest source
    observation of each.
    """
    from langmemcore.retrieval.pack import statement_of
    from langmemcore.storage.search.access import Evidence, SourceRow

    sources: dict[int, list[SourceRow]] = {}
    heads: dict[int, Any] = {}
    latest: dict[int, int] = {}
    for row in bind.execute(_NOTES, {"namespace": namespace}):
        heads[row.id] = row
        latest[row.id] = row.observation_id
        source = SourceRow(row.key, row.speaker, row.event_time, row.content, row.analysis)
        sources.setdefault(row.id, []).append(source)
    statements = {}
    for note_id, head in heads.items():
        said = tuple(sources[note_id])
        note = Evidence(note_id, head.context, tuple(head.keywords), None, said, None)  # type: ignore[arg-type]
        statements[note_id] = statement_of(note)
    return statements, latest


def _links(bind: Any, namespace: str) -> dict[frozenset[int], str]:
    links: dict[frozenset[int], str] = {}
    for source_id, target_id, relation in bind.execute(_EDGES, {"namespace": namespace}):
        pair = frozenset((source_id, target_id))
        if links.get(pair) != "conflicts":
            links[pair] = relation
    return links


def _compared(note: Any, statements: Sequence[Any], links: dict[frozenset[int], str]) -> set[int]:
    """The notes a write of ``note`` compares it with (see the module docstring)."""
    from langmemcore.construction.validity import CANDIDATES

    linked = {n for pair in links if note.note_id in pair for n in pair}
    if not note.changed or note.time is None or len(note.speakers) != 1:
        return linked - {note.note_id}
    about = [
        st
        for st in statements
        if st.speakers == note.speakers
        and st.time is not None
        and st.time < note.time
        and note.changed & st.terms
    ]
    about.sort(key=lambda st: st.time, reverse=True)
    return (linked | {st.note_id for st in about[:CANDIDATES]}) - {note.note_id}


def _decide(bind: Any, namespace: str) -> None:
    from langmemcore.retrieval.supersession import supersedes_when_written

    statements, latest = _statements(bind, namespace)
    links = _links(bind, namespace)
    ordered = list(statements.values())
    for note in ordered:
        for other in sorted(_compared(note, ordered, links)):
            older = statements.get(other)
            if older is None or not supersedes_when_written(note, older, links):
                continue
            shared = sorted(note.changed & older.terms)
            reason = f"validity: note {note.note_id} supersedes note {other}"
            values = {"namespace": namespace, "source_id": note.note_id, "target_id": other}
            values |= {"tag": shared[0] if shared else None, "reason": reason}
            edge_id = bind.execute(_INSERT_EDGE, values).scalar()
            if edge_id is None:
                continue
            after = {"edge_id": edge_id, "target_id": other, "relation": "supersedes"}
            after |= {"strength": 0.5, "tag": values["tag"]}
            bind.execute(
                _INSERT_LINEAGE,
                {
                    "namespace": namespace,
                    "observation_id": latest[note.note_id],
                    "note_id": note.note_id,
                    "after": after,
                    "reason": reason,
                },
            )


def _relations(relations: str) -> None:
    op.drop_constraint("ck_edges_relation", "edges", type_="check")
    op.create_check_constraint("ck_edges_relation", "edges", f"relation IN ({relations})")


def upgrade() -> None:
    _relations(f"{_RELATIONS}, 'supersedes'")
    op.create_index(
        "ix_notes_namespace_superseded",
        "notes",
        ["namespace"],
        postgresql_where=sa.text("valid_to IS NOT NULL"),
    )
    bind = op.get_bind()
    bind.execute(sa.text(_VALID_FROM))
    for (namespace,) in bind.execute(sa.text("SELECT DISTINCT namespace FROM notes")).all():
        _decide(bind, namespace)
    bind.execute(sa.text(_VALID_TO))


def downgrade() -> None:
    op.execute(
        "DELETE FROM lineage WHERE operation = 'link' AND after ->> 'relation' = 'supersedes'"
    )
    op.execute("DELETE FROM edges WHERE relation = 'supersedes'")
    _relations(_RELATIONS)
    op.drop_index("ix_notes_namespace_superseded", table_name="notes")
    op.execute("UPDATE notes SET valid_from = NULL, valid_to = NULL")
