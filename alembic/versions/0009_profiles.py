"""The semantic layer: profile statements, the values replayed from them, their sources.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

- ``profile_statements``: one row per thing an observation states about a subject's
  aspect (subject, aspect, value, whether it ends a value, whether the wording marks a
  change, and its time: the observation's event time, else when it was stored). Immutable
  like observations, and deleted with them (``ON DELETE CASCADE``).
- ``profile_values``: the materialised profile, derived from the statements of one
  (namespace, subject, aspect) chain by a pure replay
  (:mod:`langmemcore.profiles.resolve`) and rewritten whole whenever the chain changes:
  each value with its first and last time, whether it is current, when it stopped being
  current (``ended_at``; ``end`` says whether it was ``replaced`` or ``ended``) and the
  value that replaced it.
- ``profile_value_sources``: the observations that state (``role = 'states'``) or end
  (``'ends'``) each value.

``subject_key`` and ``value_key`` are the case-folded, space-normalised forms compared by
the replay and by lookups.
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def _observation(name: str = "observation_id") -> sa.Column[int]:
    return sa.Column(
        name,
        sa.BigInteger,
        sa.ForeignKey("observations.id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "profile_statements",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("namespace", sa.Text, nullable=False),
        _observation(),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("subject_key", sa.Text, nullable=False),
        sa.Column("aspect", sa.String(32), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("value_key", sa.Text, nullable=False),
        sa.Column("ended", sa.Boolean, nullable=False),
        sa.Column("change", sa.Boolean, nullable=False),
        sa.Column("stated_at", TZ, nullable=False),
    )
    op.create_index(
        "ix_profile_statements_chain",
        "profile_statements",
        ["namespace", "subject_key", "aspect", "stated_at"],
    )
    op.create_index("ix_profile_statements_observation", "profile_statements", ["observation_id"])
    op.create_table(
        "profile_values",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("subject_key", sa.Text, nullable=False),
        sa.Column("aspect", sa.String(32), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("value_key", sa.Text, nullable=False),
        sa.Column("first_time", TZ, nullable=False),
        sa.Column("last_time", TZ, nullable=False),
        sa.Column("current", sa.Boolean, nullable=False),
        sa.Column("ended_at", TZ),
        sa.Column("end", sa.String(16)),
        sa.Column(
            "replaced_by",
            sa.BigInteger,
            sa.ForeignKey("profile_values.id", ondelete="SET NULL"),
        ),
        sa.UniqueConstraint(
            "namespace", "subject_key", "aspect", "position", name="uq_profile_values_chain"
        ),
        sa.CheckConstraint("\"end\" IS NULL OR \"end\" IN ('replaced', 'ended')"),
    )
    op.create_table(
        "profile_value_sources",
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column(
            "value_id",
            sa.BigInteger,
            sa.ForeignKey("profile_values.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "observation_id",
            sa.BigInteger,
            sa.ForeignKey("observations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("role", sa.String(8), primary_key=True),
        sa.Column("stated_at", TZ, nullable=False),
        sa.CheckConstraint("role IN ('states', 'ends')"),
    )
    op.create_index(
        "ix_profile_value_sources_observation", "profile_value_sources", ["observation_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_profile_value_sources_observation", table_name="profile_value_sources")
    op.drop_table("profile_value_sources")
    op.drop_table("profile_values")
    op.drop_index("ix_profile_statements_observation", table_name="profile_statements")
    op.drop_index("ix_profile_statements_chain", table_name="profile_statements")
    op.drop_table("profile_statements")
