"""A speaker's observations in the order they were said, answered by an index.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06

When an observation is written, its note is compared with what its speaker said after it
(an observation arriving late, see :mod:`langmemcore.construction.validity`) and, when it
announces a change, with what they said before it. The btree index on the observations'
``(namespace, lower(speaker))`` gains ``event_time``, so each comparison reads only the
speaker's observations on its side of the time (none after the latest, the usual case)
instead of all of them; a probe for whether a name is a speaker reads its prefix as before.
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX ix_observations_namespace_speaker_time "
        "ON observations (namespace, lower(speaker), event_time)"
    )
    op.drop_index("ix_observations_namespace_speaker", table_name="observations")


def downgrade() -> None:
    op.execute(
        "CREATE INDEX ix_observations_namespace_speaker ON observations (namespace, lower(speaker))"
    )
    op.drop_index("ix_observations_namespace_speaker_time", table_name="observations")
