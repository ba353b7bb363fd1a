"""Store items carry their indexed text; a task queue links items to memory.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29

``items.index_text`` is the text an item contributed to memory (its indexed fields joined;
NULL when the item is not indexed). ``item_tasks`` holds the items whose observation must
be (re)built or removed: a row is written in the same transaction as the put or delete, so
construction that was interrupted is resumed by the next store opened on the database.
A ``text_pattern_ops`` index serves the namespace prefix (``LIKE 'a.b.%'``) searches.
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("items", sa.Column("index_text", sa.Text, nullable=True))
    op.create_index(
        "ix_items_namespace_pattern",
        "items",
        [sa.text("namespace text_pattern_ops")],
    )
    op.create_table(
        "item_tasks",
        sa.Column("namespace", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("version", sa.BigInteger, nullable=False, server_default="1"),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.func.clock_timestamp(),
        ),
    )
    op.create_index("ix_item_tasks_created_at", "item_tasks", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_item_tasks_created_at", table_name="item_tasks")
    op.drop_table("item_tasks")
    op.drop_index("ix_items_namespace_pattern", table_name="items")
    op.drop_column("items", "index_text")
