"""QueryVectorCache: the same vectors as the embedder, each text embedded once."""

from __future__ import annotations

from langchain_core.embeddings import DeterministicFakeEmbedding
from pydantic import Field

from langmemcore.retrieval.query_vectors import QueryVectorCache


class Counting(DeterministicFakeEmbedding):
    """LangChain's deterministic fake embedder, recording each batch it embeds."""

    batches: list[list[str]] = Field(default_factory=list)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return super().embed_documents(texts)


def embedder() -> Counting:
    return Counting(size=8)


async def test_texts_are_embedded_once_and_vectors_match_the_embedder() -> None:
    inner = embedder()
    cache = QueryVectorCache(inner)
    first = await cache.aembed_documents(["where is maya", "maya"])
    again = await cache.aembed_documents(["maya", "lisbon", "where is maya"])
    assert inner.batches == [["where is maya", "maya"], ["lisbon"]]
    assert again == [first[1], inner.embed_documents(["lisbon"])[0], first[0]]
    assert cache.embed_documents(["lisbon", "lisbon"]) == [again[1], again[1]]


def test_the_least_recently_used_text_goes_first() -> None:
    inner = embedder()
    cache = QueryVectorCache(inner, capacity=2)
    cache.embed_documents(["a", "b"])
    cache.embed_documents(["a"])
    cache.embed_documents(["c"])
    inner.batches.clear()
    cache.embed_documents(["a", "b", "c"])
    assert inner.batches == [["b"]]


def test_query_vectors_come_from_the_embedder() -> None:
    inner = embedder()
    cache = QueryVectorCache(inner)
    assert cache.embed_query("maya") == inner.embed_query("maya")
    assert inner.batches == []
