"""Every mistake of the user is one line on stderr and exit code 2, never a traceback; the
commands that do not embed never load the embedding model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from langmemcore.cli import main
from langmemcore.storage import Database
from tests.conftest import REPO_ROOT

UNREACHABLE = "postgresql://u:p@127.0.0.1:1/x?connect_timeout=5"

FILES = {
    "binary.json": b"\xff\xfe\x00not text",
    "broken.json": b'{"observations": [',
    "notlocomo.json": b'{"a": 1}',
    "nolocomofield.json": b'[{"sample_id": "x"}]',
    "badrecord.jsonl": b'{"text": "fine"}\n{"speaker": "Maya"}\n',
}

# (arguments, a fragment of the one stderr line); {url} is the test database, {dir} a
# folder holding FILES.
CASES = [
    (["ingest", "{dir}/missing.jsonl", "--namespace", "x.y"], "missing.jsonl: No such file"),
    (["eval", "locomo", "{dir}/missing.json"], "missing.json: No such file"),
    (["eval", "frontier", "{dir}/missing.json"], "missing.json: No such file"),
    (["ingest", "{dir}", "--namespace", "x.y"], "Is a directory"),
    (["ingest", "{dir}/binary.json", "--namespace", "x.y"], "binary.json: not UTF-8 text"),
    (["eval", "locomo", "{dir}/broken.json"], "broken.json: not JSON"),
    (["eval", "locomo", "{dir}/notlocomo.json"], "notlocomo.json: not a LoCoMo file"),
    (["eval", "locomo", "{dir}/nolocomofield.json"], "no field 'conversation'"),
    (["ingest", "{dir}/badrecord.jsonl", "--namespace", "x.y"], "record 2: 'text' is missing"),
    (["--url", UNREACHABLE, "stats"], "The database is unavailable"),
    (["--url", UNREACHABLE, "migrate"], "The database is unavailable"),
    (["--url", UNREACHABLE, "doctor"], "The database is unavailable"),
    (["--url", "not a url", "stats"], "not a database URL"),
    (["migrate", "--revision", "nosuchrevision"], "Can't locate revision"),
    (["stats", "--namespace", "a..b"], "cannot be empty"),
    (["search", "q", "--namespace", "langgraph.x"], "langgraph"),
    (["search", "q", "--namespace", "x.y", "--k", "0"], "--k: must be at least 1, got 0"),
    (["search", "q", "--namespace", "x.y", "--k", "abc"], "--k: expected a whole number"),
    (["eval", "locomo", "f.json", "--limit", "-1"], "--limit: must be at least 1"),
    (["search", "q"], "the following arguments are required: --namespace"),
    (["nosuchcommand"], "invalid choice: 'nosuchcommand'"),
]


@pytest.mark.parametrize(("argv", "fragment"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_a_user_error_is_one_line_and_exit_code_2(
    argv: list[str],
    fragment: str,
    database: Database,
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, content in FILES.items():
        (tmp_path / name).write_bytes(content)
    args = [a.format(dir=tmp_path) for a in argv]
    if "--url" not in args:
        args = ["--url", database_url, *args]
    code = main(args)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].strip(), captured.err
    assert "error: " in lines[0] and fragment in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


PROBE = """
import sys
from langmemcore.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in ("sentence_transformers", "torch", "transformers") if m in sys.modules)
print("exit", code, "loaded", ",".join(loaded) or "-")
"""


@pytest.mark.parametrize(
    "argv",
    [["doctor", "--no-load"], ["stats"], ["topics", "--namespace", "nobody.here"]],
    ids=" ".join,
)
def test_commands_that_do_not_embed_never_load_the_model(
    argv: list[str], database: Database, database_url: str
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "--url", database_url, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "exit 0 loaded -", done.stdout
    assert done.stderr == ""
