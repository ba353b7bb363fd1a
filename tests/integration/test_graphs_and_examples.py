"""graphs/ loads as LangGraph's CLI would and both graphs run against the test database; the
examples run."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langmemcore.config import ConstructionConfig, RetrievalConfig
from langmemcore.construction import ConstructionContext, ObservationIn
from langmemcore.construction.ingest import KeywordEmbedder
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.retrieval import RetrievalContext, RetrievedNote
from langmemcore.storage import Database, head_revision
from tests.conftest import LOCOMO_MINI, REPO_ROOT
from tests.stub_openai import openai_stub


def load_graph(name: str) -> Any:
    config = json.loads((REPO_ROOT / "graphs" / "langgraph.json").read_text())
    path, _, attribute = config["graphs"][name].partition(":")
    spec = importlib.util.spec_from_file_location(f"lmc_graph_{name}", REPO_ROOT / "graphs" / path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attribute)


def test_langgraph_json_lists_both_graphs() -> None:
    config = json.loads((REPO_ROOT / "graphs" / "langgraph.json").read_text())
    assert set(config["graphs"]) == {"construction", "retrieval"}
    construction = load_graph("construction")
    assert set(construction.nodes) == {"__start__", "ingest", "gate", "merge", "append"}
    retrieval = load_graph("retrieval")
    assert {"decompose", "channel", "fuse", "expand", "sufficiency", "refine", "pack"} <= set(
        retrieval.nodes
    )


async def test_both_graphs_run_with_real_contexts(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    construction, retrieval = load_graph("construction"), load_graph("retrieval")
    namespace = ("graphs", uuid.uuid4().hex[:12])
    context = ConstructionContext(
        database, embeddings, KeywordEmbedder(embeddings), ConstructionConfig()
    )
    when = datetime(2024, 3, 2, 18, 30, tzinfo=UTC)
    turns = [
        ("g1", "Maya", "I moved from Lisbon to Berlin for a product design job."),
        ("g2", "Jonas", "My beagle Pretzel loves chasing pigeons in the park."),
        ("g3", "Priya", "I started cello lessons with Mrs. Okafor last week."),
    ]
    operations = []
    for key, speaker, text in turns:
        state = await construction.ainvoke(
            {"namespace": namespace, "observation": ObservationIn(key, text, speaker, when)},
            context=context,
        )
        operations.append(state["result"].operation)
    assert operations == ["append", "append", "append"]

    found = await retrieval.ainvoke(
        {"namespace": namespace, "query": "What is the name of Jonas's dog?", "k": 2},
        context=RetrievalContext(database, embeddings, RetrievalConfig()),
    )
    results: list[RetrievedNote] = found["results"]
    assert 1 <= len(results) <= 2
    assert results[0].sources[0].key == "g2"
    assert results[0].sources[0].speaker == "Jonas"
    assert "Pretzel" in results[0].context


def run_example(name: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run an example with ``env`` on top of this environment (no OPENAI_* of its own)."""
    offline = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
        env={**offline, "PYTHONPATH": str(REPO_ROOT), **env},
    )


def test_quickstart_example_runs(database_url: str) -> None:
    result = run_example("quickstart.py", {"DATABASE_URL": database_url})
    assert result.returncode == 0, result.stderr
    assert "merge" in result.stdout
    assert "Caroline: Caroline went to an LGBTQ support group" in result.stdout


def test_agent_middleware_example_recalls_thread_one_in_thread_two(database_url: str) -> None:
    result = run_example("agent_middleware.py", {"DATABASE_URL": database_url})
    assert result.returncode == 0, result.stderr
    for mode in ("invoke", "ainvoke"):
        assert f"{mode}: thread 2's prompt holds the fact from thread 1: True" in result.stdout
        assert f"{mode}: agent: Your dog is called Biscuit." in result.stdout
    assert ": My dog Biscuit is a beagle who loves the beach." in result.stdout


def test_retriever_chain_example_offline(database_url: str) -> None:
    result = run_example("retriever_chain.py", {"DATABASE_URL": database_url})
    assert result.returncode == 0, result.stderr
    assert "answering with an offline fake chat model" in result.stdout
    notes = result.stdout.split("retrieved notes:\n", 1)[1].split("Q: ", 1)[0]
    assert "named Max" in notes
    assert "(Alice, 2024-05-20)" in notes
    assert "A: (offline fake model)" in result.stdout


def test_retriever_chain_example_with_chat_openai(database_url: str) -> None:
    answer = "Alice adopted Max, a golden retriever [note 1]."
    with openai_stub(lambda body: answer) as (base_url, received):
        result = run_example(
            "retriever_chain.py",
            {
                "DATABASE_URL": database_url,
                "OPENAI_BASE_URL": base_url,
                "OPENAI_API_KEY": "stub",
                "OPENAI_MODEL": "stub-model",
            },
        )
    assert result.returncode == 0, result.stderr
    assert f"answering with ChatOpenAI (stub-model at {base_url})" in result.stdout
    assert f"A: {answer}" in result.stdout
    assert len(received) == 1
    system = received[0]["messages"][0]["content"]
    assert "Answer from the memory notes only" in system
    assert "named Max" in system
    assert received[0]["messages"][1]["content"] == (
        "What kind of dog did Alice adopt, and what is it called?"
    )


def test_own_postgres_migrations_example(fresh_database_url: str) -> None:
    result = run_example("own_postgres_migrations.py", {"DATABASE_URL": fresh_database_url})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    step1 = next(line for line in lines if line.startswith("1. alembic upgrade"))
    assert f"(head {head_revision()})" in step1
    assert f"schema revision {head_revision()}" not in step1
    assert "raises MigrationRequiredError" in result.stdout
    assert f"2. langmemcore migrate: schema at revision {head_revision()}" in result.stdout
    step3 = next(line for line in lines if line.startswith("3. langmemcore.storage.upgrade"))
    assert f"schema revision {head_revision()}" in step3
    assert f"{head_revision()} (head)" in result.stdout
    assert f"memory opens: Memory on schema {head_revision()}" in result.stdout


def test_locomo_eval_example_on_the_fixture(database_url: str) -> None:
    result = run_example(
        "locomo_eval.py",
        {"DATABASE_URL": database_url},
        str(LOCOMO_MINI),
        "--limit",
        "1",
        "--sessions",
        "2",
        "--questions",
        "4",
    )
    assert result.returncode == 0, result.stderr
    # mini-a, sessions 1-2: 7 turns; 5 retrieval questions have their evidence there, 4 kept.
    assert result.stdout.splitlines()[0] == "1 conversations, 7 turns, 4 questions"
    assert "### langmemcore (full system)" in result.stdout
    assert "| baseline bm25 |" in result.stdout
    overall = next(line for line in result.stdout.splitlines() if line.startswith("| overall |"))
    recalls = [float(cell) for cell in overall.strip("|").split("|")[1:4]]
    assert all(0.0 <= r <= 100.0 for r in recalls)
    assert recalls == sorted(recalls)


def test_locomo_eval_example_says_which_file_is_missing(tmp_path: Path) -> None:
    missing = tmp_path / "locomo-dev.json"
    result = run_example("locomo_eval.py", {}, str(missing))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"locomo_eval.py: LoCoMo file not found: {missing}; pass the path of a LoCoMo JSON file, "
        "e.g. python examples/locomo_eval.py tests/fixtures/locomo-mini.json\n"
    )
