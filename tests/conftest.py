"""Shared fixtures: a real Postgres with pgvector (DATABASE_URL, else the embedded server),
migrated once per session, the real local embedder, and the LoCoMo dev split.

Tests marked ``locomo_data`` need the LoCoMo dev split (``LOCOMO_PATH``, else
``../shared/data/locomo-dev.json`` beside the repository). Without it they are deselected and the
summary says how many were left out; with ``LANGMEMCORE_REQUIRE_LOCOMO=1`` (CI) the run fails
instead. Every other LoCoMo test reads the small hand-written ``tests/fixtures/locomo-mini.json``.

Tests marked ``local_model`` need a real chat model behind an OpenAI-compatible server
(``LANGMEMCORE_TEST_LLM_URL``, its model's name in ``LANGMEMCORE_TEST_LLM``; the reference
model: ``python benchmarks/local_model.py serve``). Without it they are deselected and the
summary says so; no test suite can run a model, so CI runs them only where one is served.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import make_url

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.storage import Database, upgrade
from langmemcore.storage.database import sync_url
from langmemcore.storage.embedded import embedded_database_url

REPO_ROOT = Path(__file__).resolve().parent.parent
LOCOMO_MINI = REPO_ROOT / "tests" / "fixtures" / "locomo-mini.json"
"""The committed LoCoMo-format fixture: two invented conversations."""
LOCOMO_MARKER = "locomo_data"
LOCAL_MODEL_MARKER = "local_model"
_LEFT_OUT = pytest.StashKey[int]()
_NO_MODEL = pytest.StashKey[int]()


def locomo_dev_file() -> Path:
    """Where the LoCoMo dev split is looked for: ``LOCOMO_PATH``, else ``../shared/data``."""
    default = REPO_ROOT.parent / "shared" / "data" / "locomo-dev.json"
    return Path(os.environ.get("LOCOMO_PATH") or default)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``locomo_data`` tests when the dev split is absent (fail the run in CI)
    and the ``local_model`` tests when no model is served.
    """
    if not os.environ.get("LANGMEMCORE_TEST_LLM_URL"):
        _deselect(config, items, LOCAL_MODEL_MARKER, _NO_MODEL)
    unmarked = [
        item.nodeid
        for item in items
        if "locomo_dev_path" in getattr(item, "fixturenames", ())
        and item.get_closest_marker(LOCOMO_MARKER) is None
    ]
    if unmarked:
        raise pytest.UsageError(
            f"tests using locomo_dev_path need @pytest.mark.{LOCOMO_MARKER}: " + ", ".join(unmarked)
        )
    needing = [item for item in items if item.get_closest_marker(LOCOMO_MARKER) is not None]
    if not needing or locomo_dev_file().is_file():
        return
    if os.environ.get("LANGMEMCORE_REQUIRE_LOCOMO") == "1":
        raise pytest.UsageError(
            f"LANGMEMCORE_REQUIRE_LOCOMO=1 but the LoCoMo dev split is not at {locomo_dev_file()}:"
            f" {len(needing)} tests need it"
        )
    _deselect(config, items, LOCOMO_MARKER, _LEFT_OUT)


def _deselect(
    config: pytest.Config, items: list[pytest.Item], marker: str, count: pytest.StashKey[int]
) -> None:
    """Deselect the items marked ``marker``, their number kept in ``count``."""
    needing = [item for item in items if item.get_closest_marker(marker) is not None]
    config.stash[count] = len(needing)
    config.hook.pytest_deselected(items=needing)
    items[:] = [item for item in items if item.get_closest_marker(marker) is None]


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """Say how many ``locomo_data`` and ``local_model`` tests were left out, and how to
    include them.
    """
    no_model = config.stash.get(_NO_MODEL, 0)
    if no_model:
        terminalreporter.write_line(
            f"{no_model} tests need a served chat model and were left out: set "
            "LANGMEMCORE_TEST_LLM_URL (and LANGMEMCORE_TEST_LLM) to an OpenAI-compatible server"
        )
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests need the LoCoMo dev split and were left out (not at "
            f"{locomo_dev_file()}): set LOCOMO_PATH=/path/to/locomo-dev.json"
        )


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


@pytest.fixture(scope="session")
def locomo_dev_path() -> Path:
    """The LoCoMo dev split (present: ``locomo_data`` tests are deselected without it)."""
    return locomo_dev_file()


@pytest.fixture(scope="session")
def locomo_dev(locomo_dev_path: Path) -> list[Conversation]:
    """The LoCoMo dev split's conversations, loaded once per run."""
    return load_locomo(locomo_dev_path)
