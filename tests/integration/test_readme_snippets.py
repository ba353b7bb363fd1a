"""The README's code runs as written: every Python block of it, each in a fresh process on a
fresh embedded home (no DATABASE_URL, no `langmemcore migrate` first), prints what it
says; and a URL-named database is never migrated on open."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from langmemcore import MigrationRequiredError
from langmemcore.memory import Memory
from langmemcore.storage import Database
from tests.conftest import REPO_ROOT

CONFIG_VARIABLES = ("DATABASE_URL", "LANGMEMCORE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
HEADING = re.compile(r"^## (.+)$", re.M)


def readme_snippet(heading: str, document: str = "README.md") -> str:
    """The first Python block after a ``## `` heading of a Markdown file of the repository
    (the README unless ``document`` names another, e.g. ``docs/semantic-layer.md``)."""
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1]
    match = BLOCK.search(section)
    assert match is not None, f"no python block under {heading!r} in {document}"
    return match.group(1)


def python_blocks(document: str = "README.md") -> list[tuple[str, str]]:
    """Every Python block of a Markdown file with the ``## `` heading it is under, in order."""
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    blocks = []
    for match in BLOCK.finditer(text):
        headings = HEADING.findall(text, 0, match.start())
        blocks.append((headings[-1] if headings else "", match.group(1)))
    return blocks


def run_fresh(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter with no database configured and ``home`` as the
    embedded Postgres' home."""
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env["LANGMEMCORE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=home.parent,
        timeout=600,
    )


def says_noted(out: str) -> None:
    assert out.strip().splitlines()[-1] == "Noted."


def recalls_the_dog(out: str) -> None:
    assert out.strip() == "I remember: My dog is called Rex."


def finds_the_move_first(out: str) -> None:
    lines = out.strip().splitlines()
    assert lines[0].startswith("['t2']") and "Berlin" in lines[0]
    assert any(line.startswith("['t1']") and "Lisbon" in line for line in lines)


def counts_the_operations(out: str) -> None:
    appended, merged, _links = (int(x) for x in out.split())
    assert appended + merged == 1  # turn-2 became a note of its own or merged into one


EXPECTED: dict[str, Callable[[str], None]] = {
    "Route 1: memory for a LangChain agent (`MemoryMiddleware`)": says_noted,
    "Route 2: a LangGraph store (`MemoryStore`)": recalls_the_dog,
    "Route 3: a LangChain retriever (`MemoryRetriever`)": finds_the_move_first,
    "Underneath: `Memory`": counts_the_operations,
}


def test_every_readme_python_block_has_its_expected_output() -> None:
    assert [heading for heading, _code in python_blocks()] == list(EXPECTED)


@pytest.mark.embedded_default
@pytest.mark.parametrize("heading", list(EXPECTED))
def test_readme_block_runs_on_a_fresh_embedded_home(heading: str, tmp_path: Path) -> None:
    code = dict(python_blocks())[heading]
    done = run_fresh(code, tmp_path / "home")
    assert done.returncode == 0, done.stderr
    EXPECTED[heading](done.stdout)
    assert (tmp_path / "home" / "pgdata" / "PG_VERSION").is_file()


async def test_a_database_named_by_url_is_never_migrated_on_open(fresh_database_url: str) -> None:
    with pytest.raises(MigrationRequiredError, match="langmemcore migrate"):
        await Memory.aopen(fresh_database_url)
    assert await Database(fresh_database_url).schema_revision() is None
