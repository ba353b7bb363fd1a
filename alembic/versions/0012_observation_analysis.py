"""Each observation's analysis, worked out once when it is written.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06

- ``observations.analysis`` (JSONB, not null): what the observation says, as later steps
  read it (:mod:`langmemcore.analysis`): a search ordering statements about a state reads
  it instead of re-reading the texts of the notes it returns.
- Existing observations are analysed here, in batches: the context read is that of the
  note built from the observation alone when there is one (the context it was drafted
  into), else the offline draft of its text (speaker and time resolved).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BATCH = 500

_UNANALYSED = sa.text(
    """
    SELECT o.id, o.content, o.speaker, o.event_time,
           (SELECT n.context FROM note_sources s JOIN notes n ON n.id = s.note_id
            WHERE s.observation_id = o.id
              AND (SELECT count(*) FROM note_sources t WHERE t.note_id = n.id) = 1
            LIMIT 1) AS context
    FROM observations o
    WHERE o.analysis IS NULL AND o.id > :after
    ORDER BY o.id
    LIMIT :batch
    """
)

_STORE = sa.text("UPDATE observations SET analysis = :analysis WHERE id = :id").bindparams(
    sa.bindparam("analysis", type_=JSONB)
)


def _analysis(row: Any) -> dict[str, Any]:
    from langmemcore.analysis import analyze
    from langmemcore.text import analyze_observation

    context = row.context
    if context is None:
        draft = analyze_observation(row.content, speaker=row.speaker, event_time=row.event_time)
        context = draft.context
    return analyze(row.content, context).to_json()


def upgrade() -> None:
    op.add_column("observations", sa.Column("analysis", JSONB, nullable=True))
    bind = op.get_bind()
    after = 0
    while rows := bind.execute(_UNANALYSED, {"after": after, "batch": BATCH}).fetchall():
        bind.execute(_STORE, [{"id": row.id, "analysis": _analysis(row)} for row in rows])
        after = rows[-1].id
    op.alter_column("observations", "analysis", nullable=False)


def downgrade() -> None:
    op.drop_column("observations", "analysis")
