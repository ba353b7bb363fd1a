"""What ``langmemcore doctor`` reports: the database, its versions, the schema, the embedder."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import make_url, text

from langmemcore.storage.database import Database
from langmemcore.storage.migrations import head_revision

__all__ = ["DatabaseReport", "inspect_database"]


@dataclass(frozen=True)
class DatabaseReport:
    """A snapshot of the database in use.

    Attributes:
        url: The URL with any password masked.
        embedded: Whether it is the embedded server.
        postgres_version: ``server_version`` of Postgres.
        pgvector_version: Installed (or available, if not yet installed) pgvector version.
        revision: The schema's alembic revision, ``None`` without a schema.
        head: The code's head revision.
        embedding_dims: The declared dimensions of the notes' vector column (``None``
            without a schema).
    """

    url: str
    embedded: bool
    postgres_version: str
    pgvector_version: str | None
    revision: str | None
    head: str
    embedding_dims: int | None


_VECTOR_DIMS = text(
    "SELECT NULLIF(atttypmod, -1) FROM pg_attribute "
    "WHERE attrelid = to_regclass('notes') AND attname = 'embedding' AND NOT attisdropped"
)
"""The dimensions declared by the type of ``notes.embedding`` (pgvector keeps them as the
column's type modifier, ``vector(384)`` -> 384)."""


async def inspect_database(database: Database) -> DatabaseReport:
    """Read versions and schema state from the database (no embedder is involved)."""
    revision = await database.schema_revision()
    async with database.session() as session:
        pg_version = await session.scalar(text("SHOW server_version"))
        vector = await session.scalar(
            text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        )
        if vector is None:
            vector = await session.scalar(
                text("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
            )
            vector = f"{vector} (available, not installed)" if vector else None
        dims = await session.scalar(_VECTOR_DIMS) if revision is not None else None
    return DatabaseReport(
        url=make_url(database.url).render_as_string(hide_password=True),
        embedded=database.embedded,
        postgres_version=str(pg_version),
        pgvector_version=vector,
        revision=revision,
        head=head_revision(),
        embedding_dims=dims,
    )
