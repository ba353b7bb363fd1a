"""Thread vectors: each note's embedding with the observation before it in its thread.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

- ``notes.thread_embedding``: the embedding of the note's context preceded by the text of
  the observation just before its latest source in the same namespace, when the two are
  close in time (:data:`langmemcore.config.ConstructionConfig.thread_gap`); otherwise the
  note's own embedding. The vector channel ranks by it (a reply such as "Yup, we did it
  yesterday!" is found through the question it answers); everything else keeps
  ``notes.embedding``.
- Existing notes take their own embedding (the migration has no embedder); notes written
  from now on get their thread vector when they are written.
- An HNSW index (cosine) on the new column, as on ``notes.embedding``.

The column takes the type of ``notes.embedding`` (the dimensions chosen at setup).
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "DO $$ BEGIN EXECUTE format('ALTER TABLE notes ADD COLUMN thread_embedding %s', "
        "(SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'notes'::regclass AND attname = 'embedding')); END $$"
    )
    op.execute("UPDATE notes SET thread_embedding = embedding")
    op.alter_column("notes", "thread_embedding", nullable=False)
    op.execute(
        "CREATE INDEX ix_notes_thread_embedding_hnsw ON notes "
        "USING hnsw (thread_embedding vector_cosine_ops)"
    )


def downgrade() -> None:
    op.drop_index("ix_notes_thread_embedding_hnsw", table_name="notes")
    op.drop_column("notes", "thread_embedding")
