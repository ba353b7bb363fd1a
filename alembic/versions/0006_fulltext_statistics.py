"""Stored full-text statistics: document frequencies of a namespace's lexemes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29

- ``namespace_stats``: per namespace, the active notes counted when the statistics were
  last refreshed (with topic evolution) and when that was.
- ``lexeme_stats``: per namespace and lexeme, how many active notes contained it then.

The full-text channel weighs query terms by inverse document frequency. Counting a
common term's notes at query time costs a GIN bitmap of every note holding it (about 3 ms
a term at 100k notes); the stored counts are read by primary key instead. Terms the
stored statistics do not know (notes written since the refresh) are still counted live.
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "namespace_stats",
        sa.Column("namespace", sa.Text, primary_key=True),
        sa.Column("active_notes", sa.Integer, nullable=False),
        sa.Column(
            "refreshed_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
    )
    op.create_table(
        "lexeme_stats",
        sa.Column("namespace", sa.Text, primary_key=True),
        sa.Column("lexeme", sa.Text, primary_key=True),
        sa.Column("df", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lexeme_stats")
    op.drop_table("namespace_stats")
