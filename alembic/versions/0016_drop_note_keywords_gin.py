"""Notes lose the GIN index on their keyword array, which no statement reads.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07

The keyword channels and the gate find notes by keyword through ``note_keywords`` (its
``(namespace, keyword_id, note_id)`` index); ``notes.keywords`` is read only as a column of
the notes already found. Every insert of a note, and every update that moves one to
another page, still wrote the index.
"""

from __future__ import annotations

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_notes_keywords_gin", table_name="notes")


def downgrade() -> None:
    op.create_index("ix_notes_keywords_gin", "notes", ["keywords"], postgresql_using="gin")
