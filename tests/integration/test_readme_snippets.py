"""The README's code runs as written: the "Writing memory" snippet on a fresh embedded home
(no DATABASE_URL, no `langmemcore migrate` first), and a URL-named database is never
migrated on open."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from langmemcore import MigrationRequiredError
from langmemcore.memory import Memory
from langmemcore.storage import Database
from tests.conftest import REPO_ROOT

CONFIG_VARIABLES = ("DATABASE_URL", "LANGMEMCORE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")


def readme_snippet(heading: str) -> str:
    """The first Python block after a README heading."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n## {heading}", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, f"no python block under {heading!r}"
    return match.group(1)


@pytest.mark.embedded_default
def test_writing_memory_snippet_runs_on_a_fresh_embedded_home(tmp_path: Path) -> None:
    code = readme_snippet("Writing memory")
    assert "Memory.open()" in code
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env["LANGMEMCORE_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    appended, merged, _links = (int(x) for x in done.stdout.split())
    assert appended + merged == 1  # turn-2 became a note of its own or merged into one
    assert (tmp_path / "home" / "pgdata" / "PG_VERSION").is_file()


async def test_a_database_named_by_url_is_never_migrated_on_open(fresh_database_url: str) -> None:
    with pytest.raises(MigrationRequiredError, match="langmemcore migrate"):
        await Memory.aopen(fresh_database_url)
    assert await Database(fresh_database_url).schema_revision() is None
