"""Namespace-scoped full-text index and a covering note-keyword index for retrieval.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29

- ``notes (namespace, tsv)`` GIN (``btree_gin`` for the namespace column) replaces the
  ``tsv``-only GIN index: a term's postings are intersected with the namespace's inside
  the index, so counting or fetching a common term in one namespace no longer visits the
  matching notes of every other namespace.
- ``note_keywords (namespace, keyword_id, note_id)`` replaces ``(namespace, keyword_id)``:
  the keyword and topic channels read note-keyword pairs from the index alone.

``btree_gin`` ships with Postgres (contrib) and is a trusted extension: a database owner
can create it without superuser rights.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    op.create_index(
        "ix_notes_namespace_tsv_gin", "notes", ["namespace", "tsv"], postgresql_using="gin"
    )
    op.drop_index("ix_notes_tsv_gin", table_name="notes")
    op.create_index(
        "ix_note_keywords_namespace_keyword_note",
        "note_keywords",
        ["namespace", "keyword_id", "note_id"],
    )
    op.drop_index("ix_note_keywords_namespace_keyword", table_name="note_keywords")


def downgrade() -> None:
    op.create_index(
        "ix_note_keywords_namespace_keyword", "note_keywords", ["namespace", "keyword_id"]
    )
    op.drop_index("ix_note_keywords_namespace_keyword_note", table_name="note_keywords")
    op.create_index("ix_notes_tsv_gin", "notes", ["tsv"], postgresql_using="gin")
    op.drop_index("ix_notes_namespace_tsv_gin", table_name="notes")
