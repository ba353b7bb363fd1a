"""Query vectors kept for reuse: the texts a search embeds (the query, its topic, its
keywords) recur across the namespaces of one store search and across repeated searches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from langchain_core.embeddings import Embeddings

__all__ = ["QueryVectorCache"]


class QueryVectorCache(Embeddings):
    """An embedder that remembers the document vectors of the texts it embedded
    (bounded, least recently used out), embedding only the texts it has not seen, in one
    batch; query vectors (``embed_query``) go to the embedder each time.

    Args:
        embeddings: The embedder.
        capacity: Texts kept.
    """

    def __init__(self, embeddings: Embeddings, capacity: int = 4_096) -> None:
        self.embeddings = embeddings
        self.capacity = capacity
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _known(self, texts: list[str]) -> tuple[dict[str, list[float]], list[str]]:
        with self._lock:
            known = {t: self._vectors[t] for t in texts if t in self._vectors}
            for text in known:
                self._vectors.move_to_end(text)
        return known, [t for t in dict.fromkeys(texts) if t not in known]

    def _keep(self, texts: list[str], vectors: list[list[float]]) -> dict[str, list[float]]:
        fresh = dict(zip(texts, vectors, strict=True))
        with self._lock:
            self._vectors.update(fresh)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)
        return fresh

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts`` (embedding those not remembered)."""
        known, missing = self._known(texts)
        if missing:
            known.update(self._keep(missing, self.embeddings.embed_documents(missing)))
        return [known[t] for t in texts]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async twin of :meth:`embed_documents`."""
        known, missing = self._known(texts)
        if missing:
            vectors = await self.embeddings.aembed_documents(missing)
            known.update(self._keep(missing, vectors))
        return [known[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The embedder's query vector of ``text`` (not remembered)."""
        return self.embeddings.embed_query(text)

    async def aembed_query(self, text: str) -> list[float]:
        """Async twin of :meth:`embed_query`."""
        return await self.embeddings.aembed_query(text)
