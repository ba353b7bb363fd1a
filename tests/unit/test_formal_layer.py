"""Memory's formal methods go through its formal layer; the layer stands on its own."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from langchain_core.embeddings import FakeEmbeddings

import langmemcore.formal
from langmemcore.formal.capacity import CompactionReport
from langmemcore.formal.config import Budget
from langmemcore.formal.layer import FormalOperations, SearchResults
from langmemcore.memory import Memory
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.database import Database


class Recorder:
    """A formal layer that records what Memory asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    async def after_write(self, namespace: tuple[str, ...], results: Sequence[Any]) -> None:
        self.calls.append(("after_write", (namespace, results), {}))

    async def log_search(
        self, namespace: tuple[str, ...], query: str, results: list[RetrievedNote], llm: Any = None
    ) -> SearchResults:
        self.calls.append(("log_search", (namespace, query), {}))
        return SearchResults(results, 7)

    async def feedback(
        self, namespace: Sequence[str], query_id: int, note_ids: Sequence[int], outcome: float
    ) -> dict[int, float]:
        self.calls.append(("feedback", (namespace, query_id, note_ids, outcome), {}))
        return {1: 0.75}

    async def compact(
        self, namespace: Sequence[str], *, max_notes: int | None, max_tokens: int | None
    ) -> CompactionReport:
        self.calls.append(("compact", (namespace,), {"max_notes": max_notes}))
        return CompactionReport(Budget(max_notes, max_tokens), 0, (), (), 1.0)

    async def restore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        self.calls.append(("restore", (namespace, note_ids), {}))
        return list(note_ids)

    async def search_archived(
        self, namespace: Sequence[str], query: str, *, k: int
    ) -> list[RetrievedNote]:
        self.calls.append(("search_archived", (namespace, query), {"k": k}))
        return []


def test_memory_delegates_its_formal_methods_to_the_layer() -> None:
    memory = Memory(cast(Database, object()), FakeEmbeddings(size=4))
    recorder = Recorder()
    memory._formal_layer = cast(FormalOperations, recorder)
    assert memory.feedback(("a",), 3, [1], 0.5) == {1: 0.75}
    assert memory.compact(("a",), max_notes=2).budget == Budget(2, None)
    assert memory.restore(("a",), [4, 5]) == [4, 5]
    assert memory.search_archived(("a",), "where?") == []
    assert [c[0] for c in recorder.calls] == ["feedback", "compact", "restore", "search_archived"]
    assert recorder.calls[0][1] == (("a",), 3, [1], 0.5)
    assert recorder.calls[3][2] == {"k": 10}


def test_the_formal_layer_does_not_import_construction() -> None:
    package = Path(langmemcore.formal.__file__).parent
    for module in package.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("langmemcore.construction"), module
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("langmemcore.construction") for a in node.names)
