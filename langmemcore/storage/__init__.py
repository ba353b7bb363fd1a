"""Storage: Postgres + pgvector through SQLAlchemy 2, schema owned by alembic."""

from __future__ import annotations

from langmemcore.storage.database import Database, resolve_database_url
from langmemcore.storage.migrations import downgrade, head_revision, upgrade
from langmemcore.storage.records import ObservationRecord, Scored
from langmemcore.storage.repository import Repository

__all__ = [
    "Database",
    "ObservationRecord",
    "Repository",
    "Scored",
    "downgrade",
    "head_revision",
    "resolve_database_url",
    "upgrade",
]
