"""Programmatic alembic: upgrade, downgrade, revisions. Nothing migrates on import.

The migration scripts live in the top-level ``alembic/`` folder of the source tree and
are shipped inside the wheel as ``langmemcore/_migrations``; where they are found and their
head revision come from :mod:`langmemcore.storage._scripts`, which the schema check of
:class:`~langmemcore.storage.database.Database` shares.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from alembic.util import CommandError
from sqlalchemy import Connection, create_engine, pool, text
from sqlalchemy.exc import OperationalError

from alembic import command
from langmemcore._errors import ConfigurationError, DatabaseUnavailableError, InvalidInputError
from langmemcore.storage._scripts import alembic_config, head_revision, script_location
from langmemcore.storage.database import Database

__all__ = [
    "alembic_config",
    "downgrade",
    "ensure_schema",
    "open_schema",
    "head_revision",
    "script_location",
    "upgrade",
]

MIGRATION_LOCK = 0x6C6D635F6D6967
"""Key of the advisory lock every schema change holds, so that processes migrating one
database at once run the migrations one after the other (the later finds them done)."""


@contextmanager
def _alembic_errors() -> Iterator[None]:
    """Raise alembic's refusals and an unreachable database as langmemcore errors."""
    try:
        yield
    except CommandError as exc:
        raise InvalidInputError(f"alembic: {exc}") from exc
    except OperationalError as exc:
        raise DatabaseUnavailableError(f"The database is unavailable: {exc.orig}") from exc


def upgrade(database: Database, *, revision: str = "head", dims: int | None = None) -> None:
    """Bring the schema to ``revision`` (``alembic upgrade``).

    Args:
        database: The target database.
        revision: Target revision, ``"head"`` by default.
        dims: Embedding dimensions for a fresh schema (default 384); ignored once the
            vector columns exist.

    Raises:
        InvalidInputError: If alembic does not know ``revision``.
        DatabaseUnavailableError: If the database cannot be reached.
    """
    with _alembic_errors(), _locked_connection(database) as connection:
        config = alembic_config(database.url, dims=dims)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        connection.commit()


def downgrade(database: Database, *, revision: str = "base") -> None:
    """Take the schema back to ``revision`` (``alembic downgrade``); ``"base"`` drops all.

    Raises:
        InvalidInputError: If alembic does not know ``revision``.
        DatabaseUnavailableError: If the database cannot be reached.
    """
    with _alembic_errors(), _locked_connection(database) as connection:
        config = alembic_config(database.url)
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
        connection.commit()


async def ensure_schema(database: Database, dims: Callable[[], int]) -> bool:
    """Create or upgrade the schema of the embedded default when it is behind head.

    Only the embedded server, which langmemcore owns, is migrated on open; a database
    named by a URL is left as it is (opening it raises ``MigrationRequiredError``).

    Args:
        database: The database being opened.
        dims: Gives the embedding dimensions for a new schema (called only when needed).

    Returns:
        Whether migrations ran.
    """
    if not database.embedded or await database.schema_revision() == head_revision():
        return False
    size = await asyncio.to_thread(dims)
    await asyncio.to_thread(upgrade, database, dims=size)
    return True


async def open_schema(url: str | None, dims: Callable[[], int]) -> Database:
    """Connect to ``url`` (else ``DATABASE_URL``, else the embedded server), with the
    embedded server's schema created or upgraded on first use (:func:`ensure_schema`), and
    check that its vectors have the embedder's ``dims()`` dimensions.

    Raises:
        MigrationRequiredError: A database named by a URL has a schema that is missing or
            behind head.
        ConfigurationError: The schema's dimensions differ from ``dims()``.
    """
    database = Database.connect(url)
    await ensure_schema(database, dims)
    stored = await database.check_schema()
    actual = await asyncio.to_thread(dims)
    if stored != actual:
        raise ConfigurationError(
            f"the schema stores {stored}-dimensional vectors but the embedder makes "
            f"{actual}; use a matching embedder or a database migrated with --dims {actual}"
        )
    return database


@contextmanager
def _locked_connection(database: Database) -> Iterator[Connection]:
    """A connection holding the migration lock (released when it closes)."""
    engine = create_engine(database.url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()
            yield connection
    finally:
        engine.dispose()
