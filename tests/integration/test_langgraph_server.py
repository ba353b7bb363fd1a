"""``langgraph dev`` on graphs/langgraph.json: MemoryStore is the Agent Server's store and
both graphs publish their input, output and context schemas.

The server runs LangGraph's in-memory runtime on a free local port against the test
database, with analytics, tracing and model downloads off (it needs no network). It runs
in a copy of graphs/ (the runtime keeps its state in ``.langgraph_api/`` under the working
directory), with langmemcore on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database
from langmemcore.store import MemoryStore
from tests.conftest import REPO_ROOT

READY_WAIT_S = 300.0
"""Upper bound on the server's start-up (imports, the store's open, both graphs)."""
REQUEST_TIMEOUT_S = 300.0
"""Upper bound on one request (the first put loads the embedder in the server)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One JSON request to the server: its status and decoded body (None when empty)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
        raw = response.read()
        return response.status, json.loads(raw) if raw else None


def log_tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:]


def wait_ready(process: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Poll ``/ok`` until it answers, the server exits, or the bound passes."""
    deadline = time.monotonic() + READY_WAIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited with {process.returncode}:\n{log_tail(log)}")
        try:
            if call(base, "GET", "/ok")[0] == 200:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(1.0)
    pytest.fail(f"langgraph dev did not answer /ok within {READY_WAIT_S:.0f} s:\n{log_tail(log)}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Interrupt the server's process group (it closes the store), then kill it if needed."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(
    database: Database, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``langgraph dev`` on the test database; yields its base URL, stops it on every exit."""
    port = free_port()
    home = tmp_path_factory.mktemp("langgraph-dev")
    skip = shutil.ignore_patterns("__pycache__", ".langgraph_api")
    graphs = shutil.copytree(REPO_ROOT / "graphs", home / "graphs", ignore=skip)
    log = home / "server.log"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LANGSMITH_"))},
        "PYTHONPATH": str(REPO_ROOT),
        "DATABASE_URL": database_url,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port), "--config", "langgraph.json"],
            cwd=graphs,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_ready(process, base, log)
        yield base
    finally:
        stop(process)


def test_server_store_is_memory_store(
    server: str, database_url: str, embeddings: LocalEmbeddings
) -> None:
    namespace = ["server", uuid.uuid4().hex[:12]]
    value = {"text": "Maya moved from Lisbon to Berlin for a product design job."}
    status, _ = call(
        server, "PUT", "/store/items", {"namespace": namespace, "key": "m1", "value": value}
    )
    assert status == 204
    status, found = call(
        server,
        "POST",
        "/store/items/search",
        {"namespace_prefix": namespace, "query": "Which city does Maya live in?", "limit": 3},
    )
    assert status == 200
    assert [item["key"] for item in found["items"]] == ["m1"]
    assert found["items"][0]["value"] == value
    assert found["items"][0]["score"] > 0

    store = MemoryStore.open(database_url, embeddings=embeddings)
    try:
        item = store.get(tuple(namespace), "m1")
        assert item is not None and item.value == value
        ranked = store.search(tuple(namespace), query="Which city does Maya live in?", limit=3)
        assert [(r.key, r.score) for r in ranked] == [
            (i["key"], pytest.approx(i["score"])) for i in found["items"]
        ]
    finally:
        store.close()


def test_both_graphs_publish_their_schemas(server: str) -> None:
    _, assistants = call(server, "POST", "/assistants/search", {"limit": 10})
    by_graph = {a["graph_id"]: a["assistant_id"] for a in assistants}
    assert set(by_graph) == {"construction", "retrieval"}
    schemas = {g: call(server, "GET", f"/assistants/{a}/schemas")[1] for g, a in by_graph.items()}
    for graph, schema in schemas.items():
        for part in ("input_schema", "output_schema", "context_schema"):
            assert schema[part] is not None, (graph, part)
            assert schema[part]["properties"], (graph, part)
    construction, retrieval = schemas["construction"], schemas["retrieval"]
    assert construction["input_schema"]["required"] == ["namespace", "observation"]
    assert set(construction["output_schema"]["properties"]) == {"result"}
    assert retrieval["input_schema"]["required"] == ["namespace", "query"]
    assert {"k", "token_budget", "min_confidence"} <= set(retrieval["input_schema"]["properties"])
    assert "results" in retrieval["output_schema"]["properties"]
    for schema in schemas.values():
        assert set(schema["context_schema"]["properties"]) == {"config"}
