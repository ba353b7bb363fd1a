"""Store values kept exactly: the JSON text of each item's value beside its JSONB.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

JSONB normalises numbers (``-0.0`` becomes ``0``, ``1e16`` an integer) and reorders
object keys, so ``get`` could not return exactly what was put. ``items.value_text`` holds
the value as the JSON text that was written; ``items.value`` stays for filters. Items
written before this revision have no text and read from ``value`` as before.
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("items", sa.Column("value_text", sa.Text, nullable=True))


def downgrade() -> None:
    op.drop_column("items", "value_text")
