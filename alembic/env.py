"""Alembic environment of langmemcore.

The target database is, in order: a connection handed over by ``langmemcore migrate``
(``config.attributes["connection"]``), ``sqlalchemy.url`` in the config, or
``DATABASE_URL`` / the embedded default, resolved exactly as the library does.
"""

from __future__ import annotations

from sqlalchemy import create_engine, pool

from alembic import context
from langmemcore.storage.database import resolve_database_url, sync_url
from langmemcore.storage.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: object) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations against a live connection."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or resolve_database_url()
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("langmemcore's migrations need a live database; run them online.")
run_migrations_online()
