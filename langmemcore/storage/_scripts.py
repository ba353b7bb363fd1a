"""The migration scripts: where they are, alembic's config for them, their head revision.

Both :mod:`~langmemcore.storage.database` (the schema check) and
:mod:`~langmemcore.storage.migrations` (running the scripts) import this module, which
imports neither of them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory

from langmemcore._errors import ConfigurationError

__all__ = ["alembic_config", "head_revision", "script_location"]


def script_location() -> Path:
    """The folder holding ``env.py`` and ``versions/``."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "_migrations", package.parent / "alembic"):
        if (candidate / "env.py").is_file():
            return candidate
    raise ConfigurationError(f"langmemcore's migration scripts are missing near {package}")


def alembic_config(url: str, *, dims: int | None = None) -> Config:
    """An alembic ``Config`` for ``url`` (and the embedding dimensions of a new schema)."""
    config = Config()
    config.set_main_option("script_location", str(script_location()))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if dims is not None:
        config.attributes["embedding_dims"] = dims
    return config


@cache
def head_revision() -> str:
    """The newest revision the code knows."""
    head = ScriptDirectory.from_config(alembic_config("postgresql+psycopg://")).get_current_head()
    if head is None:
        raise ConfigurationError("langmemcore's migration scripts define no revision")
    return head
