"""Your own Postgres: the schema is owned by alembic, and you decide when it changes.

Point DATABASE_URL at any Postgres with pgvector (``postgresql://user:pw@host/db``); with
none set this runs on the embedded server. Three equivalent ways to migrate, shown in turn:

1. alembic's own command with the shipped configuration (``alembic.ini`` at the root of the
   source tree, ``alembic upgrade head`` there; ``-x dims=N`` picks the embedding
   dimensions of a new schema);
2. the command line: ``langmemcore migrate [--dims N]``;
3. the library: ``langmemcore.storage.upgrade(Database.connect())``.

Nothing migrates on import: opening memory on a schema that is behind raises
MigrationRequiredError naming the command to run.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import make_url

from alembic import command
from langmemcore import Memory, MigrationRequiredError
from langmemcore.storage import Database, head_revision, upgrade
from langmemcore.storage.diagnostics import inspect_database
from langmemcore.storage.migrations import alembic_config

REPO_ROOT = Path(__file__).resolve().parent.parent


def shipped_config(database: Database) -> Config:
    """The source tree's alembic.ini, else the scripts installed inside the package."""
    ini = REPO_ROOT / "alembic.ini"
    if ini.is_file():
        config = Config(str(ini))
        config.set_main_option("sqlalchemy.url", database.url.replace("%", "%%"))
        return config
    return alembic_config(database.url)


async def show(database: Database, step: str) -> None:
    report = await inspect_database(database)
    print(f"{step}: schema revision {report.revision} (head {report.head})")
    await database.dispose()


def main() -> None:
    database = Database.connect()
    config = shipped_config(database)
    print(f"database: {make_url(database.url).render_as_string(hide_password=True)}")

    first = ScriptDirectory.from_config(config).get_base()
    command.upgrade(config, first or "head")
    asyncio.run(show(database, f"1. alembic upgrade {first}"))
    try:
        Memory.open(database.url)
        print("   memory opens: this database was already at head")
    except MigrationRequiredError as exc:
        print(f"   opening memory now raises MigrationRequiredError: {exc}")

    cli = [sys.executable, "-m", "langmemcore.cli", "--url", database.url, "migrate"]
    done = subprocess.run(cli, check=True, capture_output=True, text=True)
    print(f"2. langmemcore migrate: {done.stdout.strip()}")

    upgrade(database)
    asyncio.run(show(database, "3. langmemcore.storage.upgrade (already at head: a no-op)"))
    print("alembic current:")
    command.current(config)
    memory = Memory.open(database.url)
    print(f"memory opens: {type(memory).__name__} on schema {head_revision()}")


if __name__ == "__main__":
    main()
