"""Bad arguments on the command line (in process): exit code 2 with an error line on
stderr, no traceback, no SQL, and nothing stored."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langmemcore.cli import main
from langmemcore.storage import Database
from langmemcore.storage.stats import memory_stats
from tests.integration.test_bad_input import FORBIDDEN


@pytest.fixture(scope="module")
def bad_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("bad-input") / "nul.json"
    path.write_text('[{"text": "fine"}, {"text": "bad\\u0000text"}]')
    yield path


CLI_CASES = {
    "namespace-dot": ["search", "x", "--namespace", "a..b"],
    "empty-query": ["search", " ", "--namespace", "a.b"],
    "k-zero": ["search", "x", "--namespace", "a.b", "--k", "0"],
    "nul-query": ["search", "x\x00y", "--namespace", "a.b"],
}


@pytest.mark.parametrize("argv", list(CLI_CASES.values()), ids=list(CLI_CASES))
def test_cli_refuses_bad_arguments(
    argv: list[str], database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--url", database.url]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()
    assert not any(word in err for word in FORBIDDEN), err


def test_cli_ingest_of_a_file_with_a_nul_stores_nothing(
    bad_file: Path, database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace = f"bad-cli.{uuid.uuid4().hex[:8]}"
    assert main(["ingest", str(bad_file), "--namespace", namespace, "--url", database.url]) == 2
    assert "Traceback" not in capsys.readouterr().err

    async def counts() -> list[Any]:
        try:
            return await memory_stats(database, namespace.split("."))
        finally:
            await database.dispose()

    assert asyncio.run(counts()) == []
