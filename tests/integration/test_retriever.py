"""MemoryRetriever: LangChain's standard retriever tests and its own behaviour, on a real
Postgres with the real local embedder."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests

from langmemcore import InvalidInputError, InvalidNamespaceError, Memory, MemoryRetriever
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database

MAY_1 = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
JUNE_3 = datetime(2024, 6, 3, 18, 0, tzinfo=UTC)
TURNS = [
    ObservationIn("d1", "I adopted a puppy named Max last Saturday.", "Alice", MAY_1),
    ObservationIn("d2", "Max is a golden retriever and he is ten weeks old.", "Alice", MAY_1),
    ObservationIn("d3", "I'm training for the Lisbon marathon in October.", "Bob", MAY_1),
    ObservationIn("d4", "I moved to Porto for a new job at a bakery.", "Alice", JUNE_3),
    ObservationIn("d5", "My sister Carla plays the violin in an orchestra.", "Bob", JUNE_3),
    ObservationIn("d6", "I adopted a puppy named Max last Saturday!", "Alice", JUNE_3),
    ObservationIn("d7", "The bakery in Porto opens at six every morning.", "Alice", JUNE_3),
    ObservationIn("d8", "Bob ran twenty kilometres on Sunday.", "Bob", JUNE_3),
]
QUERY = "What is the name of Alice's puppy?"


@pytest.fixture(scope="module")
async def filled(database: Database, embeddings: LocalEmbeddings) -> tuple[Memory, tuple[str, ...]]:
    """A memory with a short two-person conversation (one repeated turn: a merge)."""
    memory = Memory(database, embeddings)
    namespace = ("retriever", uuid.uuid4().hex[:12])
    report = await memory.aingest_many(namespace, TURNS)
    assert report.count("merge") >= 1
    return memory, namespace


class TestMemoryRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _memory(self, filled: tuple[Memory, tuple[str, ...]]) -> None:
        self._params = {"memory": filled[0], "namespace": filled[1], "k": 4}

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return MemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, object]:
        return self._params

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_documents_carry_the_notes_and_their_provenance(
    filled: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = filled
    retriever = MemoryRetriever(memory=memory, namespace=namespace, k=4)
    docs = retriever.invoke(QUERY)
    notes = memory.search(namespace, QUERY, k=4)
    assert [d.page_content for d in docs] == [n.context for n in notes]
    assert [d.metadata["note_id"] for d in docs] == [n.note_id for n in notes]
    max_doc = next(d for d in docs if "d1" in d.metadata["source_keys"])
    assert "Max" in max_doc.page_content
    assert set(max_doc.metadata["source_keys"]) == {"d1", "d6"}
    assert max_doc.metadata["speakers"] == ["Alice"]
    assert sorted(max_doc.metadata["times"]) == [MAY_1.isoformat(), JUNE_3.isoformat()]
    assert {s["key"]: s["text"] for s in max_doc.metadata["sources"]} == {
        "d1": TURNS[0].text,
        "d6": TURNS[5].text,
    }
    assert "max" in [k.lower() for k in max_doc.metadata["keywords"]]
    for doc, note in zip(docs, notes, strict=True):
        assert doc.id == str(note.note_id)
        assert doc.metadata["score"] == pytest.approx(note.score)
        assert doc.metadata["channels"] == note.channels
        assert all(isinstance(rank, int) and rank >= 1 for rank in note.channels.values())
        assert doc.metadata["topic"] == note.topic
        assert len(doc.metadata["times"]) == len(doc.metadata["source_keys"])
        for time in doc.metadata["times"]:
            assert datetime.fromisoformat(time).tzinfo is not None


def test_k_per_call_overrides_the_constructor(filled: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = filled
    retriever = MemoryRetriever(memory=memory, namespace=namespace, k=5)
    assert len(retriever.invoke(QUERY)) == 5
    two = retriever.invoke(QUERY, k=2)
    assert len(two) == 2
    assert [d.metadata["note_id"] for d in two] == [
        n.note_id for n in memory.search(namespace, QUERY, k=2)
    ]
    with pytest.raises(InvalidInputError):
        retriever.invoke(QUERY, k=0)


async def test_async_returns_what_sync_returns(filled: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = filled
    retriever = MemoryRetriever(memory=memory, namespace=namespace, k=4)
    async_docs = await retriever.ainvoke(QUERY, k=3)
    sync_docs = retriever.invoke(QUERY, k=3)
    assert len(async_docs) == 3

    def without_query(docs: list[Document]) -> list[tuple[object, ...]]:
        return [
            (d.id, d.page_content, {k: v for k, v in d.metadata.items() if k != "query_id"})
            for d in docs
        ]

    assert without_query(async_docs) == without_query(sync_docs)
    assert async_docs[0].metadata["query_id"] != sync_docs[0].metadata["query_id"]


def test_min_score_drops_weaker_notes(filled: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = filled
    everything = MemoryRetriever(memory=memory, namespace=namespace, k=6).invoke(QUERY)
    floor = everything[2].metadata["score"]
    strict = MemoryRetriever(memory=memory, namespace=namespace, k=6, min_score=floor)
    kept = strict.invoke(QUERY)
    assert kept
    assert all(d.metadata["score"] >= floor for d in kept)
    assert {d.metadata["note_id"] for d in kept} == {
        d.metadata["note_id"] for d in everything if d.metadata["score"] >= floor
    }
    assert len(strict.invoke(QUERY, min_score=10.0)) == 0


async def test_empty_query_and_bad_namespace_are_refused(
    filled: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = filled
    retriever = MemoryRetriever(memory=memory, namespace=namespace)
    with pytest.raises(InvalidInputError):
        retriever.invoke("   ")
    with pytest.raises(InvalidInputError):
        await retriever.ainvoke("")
    with pytest.raises(InvalidNamespaceError):
        MemoryRetriever(memory=memory, namespace=("langgraph", "x"))
    with pytest.raises(InvalidInputError, match="k: Input should be greater than"):
        MemoryRetriever(memory=memory, namespace=namespace, k=0)


def test_an_unknown_namespace_returns_no_documents(
    filled: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, _namespace = filled
    retriever = MemoryRetriever(memory=memory, namespace=("retriever", "empty", uuid.uuid4().hex))
    docs = retriever.invoke(QUERY)
    assert docs == []
    assert all(isinstance(d, Document) for d in docs)


async def test_feedback_on_documents_moves_confidence_and_min_confidence_filters(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = Memory(database, embeddings)
    namespace = ("retriever", uuid.uuid4().hex[:12])
    await memory.aingest_many(namespace, TURNS)
    retriever = MemoryRetriever(memory=memory, namespace=namespace, k=4)
    docs = await retriever.ainvoke(QUERY)
    assert len(docs) >= 2
    assert all(isinstance(d.metadata["query_id"], int) for d in docs)
    good, bad = docs[0], docs[1]
    raised = await retriever.afeedback([good], 1.0)
    lowered = retriever.feedback([bad], 0.0)
    assert raised[good.metadata["note_id"]] > 0.5 > lowered[bad.metadata["note_id"]]
    strict = MemoryRetriever(memory=memory, namespace=namespace, k=4, min_confidence=0.5)
    kept = {d.metadata["note_id"] for d in await strict.ainvoke(QUERY)}
    assert good.metadata["note_id"] in kept
    assert bad.metadata["note_id"] not in kept
    with pytest.raises(InvalidInputError):
        await retriever.afeedback([Document(page_content="x", metadata={"note_id": 1})])
    with pytest.raises(InvalidInputError):
        await retriever.afeedback([])
