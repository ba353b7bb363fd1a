"""Shared fixtures: a real Postgres with pgvector (DATABASE_URL, else the embedded server),
migrated once per session, and the real local embedder."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import make_url

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database, upgrade
from langmemcore.storage.database import sync_url
from langmemcore.storage.embedded import embedded_database_url

REPO_ROOT = Path(__file__).resolve().parent.parent


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The server under test: DATABASE_URL if set, else a fresh embedded Postgres."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return sync_url(url)
    return embedded_database_url(tmp_path_factory.mktemp("langmemcore-home"))


@pytest.fixture(scope="session")
def database(database_url: str) -> Database:
    """The server's database, migrated to head."""
    db = Database(database_url)
    upgrade(db)
    return db


@pytest.fixture()
def fresh_database_url(database_url: str) -> Iterator[str]:
    """A brand-new empty database on the same server, dropped afterwards."""
    name = f"lmc_{uuid.uuid4().hex[:12]}"
    admin = libpq_url(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield make_url(database_url).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture()
def ns() -> tuple[str, ...]:
    """A namespace no other test uses."""
    return ("test", uuid.uuid4().hex[:12])


@pytest.fixture(scope="session")
def embeddings() -> LocalEmbeddings:
    """The real local all-MiniLM-L6-v2 embedder."""
    return LocalEmbeddings()
