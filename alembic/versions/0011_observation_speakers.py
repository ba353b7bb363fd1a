"""Which names are speakers of a namespace, answered by an index of the namespace's own
observations.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03

A search that names people asks which of them are speakers of the namespace (the speaker
channel keeps to their notes, see :mod:`langmemcore.storage.search.cues`). The GIN index
on ``notes.speakers`` answered it by a bitmap of every note of the database with that
speaker, namespace checked after: every namespace with a speaker called "user" made the
question slower in all the others (at 100k notes with 20k notes of another namespace
sharing the name, 2 ms of a 40 ms search). Now a btree index on the observations'
``(namespace, lower(speaker))`` answers it with one probe per name, and the GIN index,
which nothing else reads, goes (one index fewer to maintain on every note written).
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX ix_observations_namespace_speaker ON observations (namespace, lower(speaker))"
    )
    op.drop_index("ix_notes_speakers_gin", table_name="notes")


def downgrade() -> None:
    op.create_index("ix_notes_speakers_gin", "notes", ["speakers"], postgresql_using="gin")
    op.drop_index("ix_observations_namespace_speaker", table_name="observations")
