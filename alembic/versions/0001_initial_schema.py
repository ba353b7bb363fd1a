"""Initial schema: the whole vocabulary of DESIGN.md plus BaseStore items.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

The embedding dimensions are fixed here, at setup time: ``alembic -x dims=N upgrade head``
or ``langmemcore migrate --dims N`` (default 384, the local all-MiniLM-L6-v2). They are
recorded in ``langmemcore_settings`` so the library can refuse a mismatching embedder.
"""

from __future__ import annotations

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR

from alembic import context, op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

DEFAULT_DIMS = 384
TZ = sa.DateTime(timezone=True)


def _dims() -> int:
    raw = context.get_x_argument(as_dictionary=True).get("dims")
    raw = raw or context.config.attributes.get("embedding_dims")
    dims = int(raw) if raw else DEFAULT_DIMS
    if not 1 <= dims <= 2000:
        raise ValueError(f"embedding dims must be within 1..2000 (HNSW limit), got {dims}")
    return dims


def _ns() -> sa.Column[str]:
    return sa.Column("namespace", sa.Text, nullable=False)


def _now(name: str) -> sa.Column[object]:
    return sa.Column(name, TZ, nullable=False, server_default=sa.func.now())


def _hnsw(table: str, column: str) -> None:
    op.execute(
        f"CREATE INDEX ix_{table}_{column}_hnsw ON {table} USING hnsw ({column} vector_cosine_ops)"
    )


def upgrade() -> None:
    dims = _dims()
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "langmemcore_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.execute(
        sa.text(
            "INSERT INTO langmemcore_settings (key, value) VALUES ('embedding_dims', :d)"
        ).bindparams(d=str(dims))
    )
    op.create_table(
        "observations",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("speaker", sa.Text),
        sa.Column("event_time", TZ),
        _now("ingested_at"),
        sa.Column("metadata", JSONB, nullable=False, server_default="{}"),
        sa.UniqueConstraint("namespace", "key", name="uq_observations_namespace_key"),
    )
    op.create_index(
        "ix_observations_namespace_event_time", "observations", ["namespace", "event_time"]
    )
    op.create_table(
        "notes",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("embedding", Vector(dims), nullable=False),
        sa.Column("keywords", ARRAY(sa.Text), nullable=False, server_default="{}"),
        sa.Column("confidence", sa.Float, nullable=False, server_default="0.5"),
        sa.Column("valid_from", TZ),
        sa.Column("valid_to", TZ),
        sa.Column("event_time", TZ),
        sa.Column("status", sa.String(16), nullable=False, server_default="active"),
        sa.Column("origin", sa.String(16), nullable=False, server_default="offline"),
        _now("created_at"),
        _now("updated_at"),
        sa.Column(
            "tsv",
            TSVECTOR,
            sa.Computed("to_tsvector('english'::regconfig, context)", persisted=True),
        ),
        sa.CheckConstraint("status IN ('active', 'merged', 'archived')", name="ck_notes_status"),
        sa.CheckConstraint("confidence >= 0 AND confidence <= 1", name="ck_notes_confidence"),
    )
    op.create_index("ix_notes_namespace_status", "notes", ["namespace", "status"])
    op.create_index("ix_notes_namespace_event_time", "notes", ["namespace", "event_time"])
    _hnsw("notes", "embedding")
    op.create_index("ix_notes_tsv_gin", "notes", ["tsv"], postgresql_using="gin")
    op.create_index("ix_notes_keywords_gin", "notes", ["keywords"], postgresql_using="gin")
    op.create_table(
        "note_sources",
        _ns(),
        sa.Column(
            "note_id",
            sa.BigInteger,
            sa.ForeignKey("notes.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "observation_id",
            sa.BigInteger,
            sa.ForeignKey("observations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index(
        "ix_note_sources_namespace_observation", "note_sources", ["namespace", "observation_id"]
    )
    op.create_table(
        "keywords",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("embedding", Vector(dims), nullable=False),
        _now("created_at"),
        sa.UniqueConstraint("namespace", "name", name="uq_keywords_namespace_name"),
    )
    _hnsw("keywords", "embedding")
    op.create_table(
        "note_keywords",
        _ns(),
        sa.Column(
            "note_id",
            sa.BigInteger,
            sa.ForeignKey("notes.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "keyword_id",
            sa.BigInteger,
            sa.ForeignKey("keywords.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index(
        "ix_note_keywords_namespace_keyword", "note_keywords", ["namespace", "keyword_id"]
    )
    op.create_table(
        "edges",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column(
            "source_id",
            sa.BigInteger,
            sa.ForeignKey("notes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "target_id",
            sa.BigInteger,
            sa.ForeignKey("notes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("relation", sa.String(16), nullable=False),
        sa.Column("strength", sa.Float, nullable=False),
        sa.Column("tag", sa.Text),
        sa.Column("reason", sa.Text),
        _now("created_at"),
        sa.CheckConstraint(
            "relation IN ('supports', 'conflicts', 'related_to')", name="ck_edges_relation"
        ),
        sa.CheckConstraint("strength >= 0 AND strength <= 1", name="ck_edges_strength"),
    )
    op.create_index("ix_edges_namespace_source", "edges", ["namespace", "source_id"])
    op.create_index("ix_edges_namespace_target", "edges", ["namespace", "target_id"])
    op.create_table(
        "topics",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("centroid", Vector(dims), nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        _now("created_at"),
    )
    op.create_index("ix_topics_namespace_generation", "topics", ["namespace", "generation"])
    _hnsw("topics", "centroid")
    op.create_table(
        "topic_keywords",
        _ns(),
        sa.Column(
            "topic_id",
            sa.BigInteger,
            sa.ForeignKey("topics.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "keyword_id",
            sa.BigInteger,
            sa.ForeignKey("keywords.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index(
        "ix_topic_keywords_namespace_keyword", "topic_keywords", ["namespace", "keyword_id"]
    )
    op.create_table(
        "lineage",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _ns(),
        sa.Column("operation", sa.String(16), nullable=False),
        sa.Column("observation_id", sa.BigInteger),
        sa.Column("note_id", sa.BigInteger),
        sa.Column("before", JSONB),
        sa.Column("after", JSONB),
        sa.Column("reason", sa.Text),
        _now("created_at"),
        sa.Column("undone_at", TZ),
    )
    op.create_index("ix_lineage_namespace_id", "lineage", ["namespace", "id"])
    op.create_table(
        "items",
        sa.Column("namespace", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", JSONB, nullable=False),
        _now("created_at"),
        _now("updated_at"),
        sa.Column("expires_at", TZ),
        sa.Column("ttl_minutes", sa.Float),
    )
    op.create_index(
        "ix_items_expires_at",
        "items",
        ["expires_at"],
        postgresql_where=sa.text("expires_at IS NOT NULL"),
    )


def downgrade() -> None:
    for table in (
        "items",
        "lineage",
        "topic_keywords",
        "topics",
        "edges",
        "note_keywords",
        "keywords",
        "note_sources",
        "notes",
        "observations",
        "langmemcore_settings",
    ):
        op.drop_table(table)
