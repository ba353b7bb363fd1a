"""`langmemcore doctor` and `migrate` on the embedded default with no configuration."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from langmemcore import DatabaseUnavailableError
from langmemcore.storage import Database, head_revision
from tests.conftest import REPO_ROOT

CONFIG_VARIABLES = ("DATABASE_URL", "LANGMEMCORE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")


def run_cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "langmemcore.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=300,
    )


@pytest.mark.embedded_default
def test_doctor_and_migrate_on_the_embedded_default(tmp_path: Path) -> None:
    before = run_cli(["doctor"], tmp_path)
    assert before.returncode == 0, before.stderr
    assert before.stderr == ""
    assert "embedded (no DATABASE_URL set)" in before.stdout
    assert "postgres:   18." in before.stdout
    assert "pgvector:   0." in before.stdout
    assert "schema:     none (run `langmemcore migrate`)" in before.stdout
    assert "all-MiniLM-L6-v2 (384 dims)" in before.stdout
    assert (tmp_path / ".local" / "share" / "langmemcore" / "pgdata" / "PG_VERSION").is_file()

    migrated = run_cli(["migrate"], tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    after = run_cli(["doctor"], tmp_path)
    assert after.returncode == 0, after.stderr
    assert f"schema:     {head_revision()} (up to date)" in after.stdout


@pytest.mark.embedded_default
def test_doctor_prints_nothing_on_stderr(tmp_path: Path) -> None:
    """No RuntimeDirWarning even where both runtime folders on offer are mode 0755: the
    given XDG_RUNTIME_DIR, and the temporary one as the embedded server leaves it after
    opening it to its own system user; no progress bar while doctor loads the embedder and
    the parser to time them.
    """
    temp = tmp_path / "tmp"
    stale = temp / f"langmemcore-{os.geteuid()}"
    stale.mkdir(parents=True)
    stale.chmod(0o755)
    given = tmp_path / "run"
    given.mkdir()
    given.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env.update(LANGMEMCORE_HOME=str(tmp_path / "h"), TMPDIR=str(temp), XDG_RUNTIME_DIR=str(given))
    done = subprocess.run(
        [sys.executable, "-m", "langmemcore.cli", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "embedded (no DATABASE_URL set)" in done.stdout
    assert done.stderr == ""
    assert stat.S_IMODE(stale.stat().st_mode) == 0o700


@pytest.mark.embedded_default
def test_embedded_default_under_a_home_too_long_for_a_unix_socket(tmp_path: Path) -> None:
    home = tmp_path / ("h" * 60) / ("o" * 40)
    home.mkdir(parents=True)
    socket = home / ".local" / "share" / "langmemcore" / "pgdata" / ".s.PGSQL.5432"
    assert len(str(socket).encode()) > 107
    migrated = run_cli(["migrate"], home)
    assert migrated.returncode == 0, migrated.stderr
    assert f"schema at revision {head_revision()}" in migrated.stdout


async def test_unreachable_database_raises_database_unavailable() -> None:
    db = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere?connect_timeout=2")
    with pytest.raises(DatabaseUnavailableError) as info:
        await db.schema_revision()
    assert isinstance(info.value, ConnectionError)
