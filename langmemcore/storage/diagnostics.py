"""What ``langmemcore doctor`` reports: the database, its versions, the schema, the embedder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import event, make_url, text

from langmemcore.storage.database import Database
from langmemcore.storage.migrations import head_revision

__all__ = ["DatabaseReport", "inspect_database", "statement_hooks"]


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


@contextmanager
def statement_hooks(
    database: Database,
    before: Callable[[str], None],
    after: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Call ``before`` (and ``after``) with the SQL text of every statement sent through
    the database's engines of the running event loop while the block runs (SQLAlchemy's
    cursor-execute events): what tests and benchmarks count and time.

    Args:
        database: The database whose engines (plain and autocommit) are watched.
        before: Called with each statement's SQL just before it is sent.
        after: Called with each statement's SQL once its result is fetched, if given.
    """
    hooks: list[tuple[str, Callable[..., None]]] = [
        ("before_cursor_execute", lambda _conn, _cursor, sql, *_rest: before(sql))
    ]
    if after is not None:
        hooks.append(("after_cursor_execute", lambda _conn, _cursor, sql, *_rest: after(sql)))
    engines = [database.engine().sync_engine, database.engine(autocommit=True).sync_engine]
    for engine in engines:
        for name, hook in hooks:
            event.listen(engine, name, hook)
    try:
        yield
    finally:
        for engine in engines:
            for name, hook in hooks:
                event.remove(engine, name, hook)
