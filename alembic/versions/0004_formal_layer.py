"""The formal memory layer: query log, note confidence as a Beta posterior, archive time.

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-29

- ``query_log``: every search (namespace, query text, the notes it returned in rank
  order) and, once settled by feedback, the notes the answer used and the outcome. It is
  the sample of the namespace's query distribution that compaction maximises coverage of.
- ``notes.alpha`` / ``notes.beta``: the Beta pseudo-counts behind ``notes.confidence``
  (``tau = alpha / (alpha + beta)``). ``NULL`` until the first piece of evidence: the
  prior then comes from ``confidence`` (see ``langmemcore.formal.confidence``), so writers
  that only set ``confidence`` need no change.
- ``notes.archived_at``: when compaction archived the note (``status = 'archived'``);
  ``NULL`` for notes in memory. Archived notes keep their sources, keywords and edges.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY

from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("notes", sa.Column("alpha", sa.Float))
    op.add_column("notes", sa.Column("beta", sa.Float))
    op.add_column("notes", sa.Column("archived_at", TZ))
    op.create_check_constraint(
        "ck_notes_beta_belief",
        "notes",
        "(alpha IS NULL AND beta IS NULL) OR (alpha >= 0 AND beta >= 0 AND alpha + beta > 0)",
    )
    op.create_table(
        "query_log",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False, server_default=sa.func.now()),
        sa.Column("returned", ARRAY(sa.BigInteger), nullable=False, server_default="{}"),
        sa.Column("used", ARRAY(sa.BigInteger), nullable=False, server_default="{}"),
        sa.Column("outcome", sa.Float),
        sa.Column("settled_at", TZ),
        sa.CheckConstraint("outcome IS NULL OR (outcome >= 0 AND outcome <= 1)"),
    )
    op.create_index("ix_query_log_namespace_id", "query_log", ["namespace", "id"])


def downgrade() -> None:
    op.drop_index("ix_query_log_namespace_id", table_name="query_log")
    op.drop_table("query_log")
    op.drop_constraint("ck_notes_beta_belief", "notes", type_="check")
    op.drop_column("notes", "archived_at")
    op.drop_column("notes", "beta")
    op.drop_column("notes", "alpha")
