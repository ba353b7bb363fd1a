"""The wheel ships the product only: no benchmark script, no synthetic data generator, while
``langmemcore eval`` keeps its documented commands.

The wheel is built offline with the installed hatchling (``pip wheel --no-build-isolation
--no-index``; the ``test`` extra installs hatchling, so a missing hatchling fails the test).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from langmemcore.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_EVAL = {
    "__init__.py",
    "baselines.py",
    "frontier.py",
    "knowledge_updates.py",
    "locomo_eval.py",
    "metrics.py",
    "report.py",
}
"""What ``langmemcore eval locomo`` and ``langmemcore eval frontier`` run, and the
knowledge-update scoring (``benchmarks/knowledge_updates.py`` and its test)."""


def _is_benchmark(name: str) -> bool:
    parts = Path(name).parts
    return parts[0] == "benchmarks" or any(
        part.startswith(("bench_", "synthetic")) for part in parts
    )


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*command, "--no-index", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("langmemcore-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheel_holds_no_benchmark_module(wheel_names: list[str]) -> None:
    modules = [n for n in wheel_names if n.endswith(".py")]
    assert "langmemcore/memory.py" in modules
    assert [n for n in modules if _is_benchmark(n)] == []
    assert not any(n.startswith("benchmarks/") for n in wheel_names)


def test_the_wheel_keeps_the_eval_commands(wheel_names: list[str]) -> None:
    shipped = {Path(n).name for n in wheel_names if n.startswith("langmemcore/eval/")}
    assert shipped >= PRODUCT_EVAL
    assert "langmemcore/locomo.py" in wheel_names


def test_package_discovery_takes_no_benchmark() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["langmemcore"]
    assert not any(_is_benchmark(path) for path in wheel.get("force-include", {}).values())
    packaged = [p.relative_to(ROOT).as_posix() for p in (ROOT / "langmemcore").rglob("*.py")]
    assert [p for p in packaged if _is_benchmark(p)] == []
    eval_modules = {p.name for p in (ROOT / "langmemcore" / "eval").glob("*.py")}
    assert eval_modules == PRODUCT_EVAL


def test_io_does_not_import_evaluation_code() -> None:
    tree = ast.parse((ROOT / "langmemcore" / "io.py").read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
        elif isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
    assert "langmemcore.locomo" in imported
    assert [name for name in imported if name.startswith("langmemcore.eval")] == []


@pytest.mark.parametrize("command", ["locomo", "frontier"])
def test_the_documented_eval_commands_remain(command: str) -> None:
    args = build_parser().parse_args(["eval", command, "data.json"])
    assert args.benchmark == command
    assert callable(args.func)


@pytest.mark.parametrize("script", ["bench_ingest.py", "bench_search.py", "bench_scale.py"])
def test_the_benchmarks_run_from_the_repository_root(script: str) -> None:
    # This checkout's langmemcore first, as an editable install of it would give.
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, f"benchmarks/{script}", "--help"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
