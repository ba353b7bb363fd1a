"""Edges unique on (source, target, relation).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

A merge used to insert the links of the merged note again, so one note pair could carry
the same relation several times. Upgrading first keeps one edge of each such group, the
strongest (the oldest among equally strong ones), points the ``link`` lineage rows of the
others at it and deletes them; then ``uq_edges_source_target_relation`` is added, which
edge writes name in ``ON CONFLICT``. Downgrading drops the constraint; the deleted
duplicates are not brought back.
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None

CONSTRAINT = "uq_edges_source_target_relation"

_DEDUPLICATE = """
WITH duplicates AS (
    SELECT id, keep FROM (
        SELECT id, first_value(id) OVER (
            PARTITION BY source_id, target_id, relation ORDER BY strength DESC, id
        ) AS keep
        FROM edges
    ) AS ranked
    WHERE id <> keep
),
relinked AS (
    UPDATE lineage AS l
    SET after = jsonb_set(l.after, '{edge_id}', to_jsonb(d.keep))
    FROM duplicates AS d
    WHERE l.operation = 'link' AND l.after ->> 'edge_id' = d.id::text
)
DELETE FROM edges AS e USING duplicates AS d WHERE e.id = d.id
"""


def upgrade() -> None:
    op.execute(_DEDUPLICATE)
    op.create_unique_constraint(CONSTRAINT, "edges", ["source_id", "target_id", "relation"])


def downgrade() -> None:
    op.drop_constraint(CONSTRAINT, "edges", type_="unique")
