"""Notes carry the (lower-cased) speakers of their sources, for the speaker channel.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

Denormalised from note_sources -> observations so that "notes said by Caroline" is an
indexed array filter that pgvector's iterative HNSW scan can apply, instead of a join over
every source of the namespace.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "notes",
        sa.Column("speakers", ARRAY(sa.Text), nullable=False, server_default="{}"),
    )
    op.execute(
        """
        UPDATE notes AS n SET speakers = ARRAY(
            SELECT DISTINCT lower(o.speaker)
            FROM note_sources AS s JOIN observations AS o ON o.id = s.observation_id
            WHERE s.note_id = n.id AND o.speaker IS NOT NULL
            ORDER BY 1
        )
        """
    )
    op.create_index("ix_notes_speakers_gin", "notes", ["speakers"], postgresql_using="gin")


def downgrade() -> None:
    op.drop_index("ix_notes_speakers_gin", table_name="notes")
    op.drop_column("notes", "speakers")
