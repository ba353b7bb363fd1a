"""graphs/ loads as LangGraph's CLI would, and the examples run."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_langgraph_json_points_at_a_compiled_construction_graph() -> None:
    config = json.loads((REPO_ROOT / "graphs" / "langgraph.json").read_text())
    path, _, attribute = config["graphs"]["construction"].partition(":")
    spec = importlib.util.spec_from_file_location("lmc_graph", REPO_ROOT / "graphs" / path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    graph = getattr(module, attribute)
    assert {"ingest", "gate", "merge", "link", "append", "evolve_topics"} <= set(graph.nodes)


def test_quickstart_example_runs(database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DATABASE_URL": database_url},
    )
    assert result.returncode == 0, result.stderr
    assert "merge" in result.stdout
    assert "Caroline: Caroline went to an LGBTQ support group" in result.stdout
