"""``MemoryRetriever``: memory as a LangChain ``BaseRetriever`` returning note-level documents.

Each ``Document`` is one retrieved note: ``page_content`` is the note's context and
``metadata`` carries its provenance (source keys, speakers, times, texts), keywords, topic,
the channels that found it with its rank there, the fused score and the note id. Drops
into any LCEL chain (``retriever | format_docs | prompt | llm``).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, field_validator

from langmemcore._bridge import run_sync
from langmemcore._errors import InvalidInputError
from langmemcore._namespace import validate_namespace
from langmemcore.memory import Memory
from langmemcore.retrieval import RetrievedNote

__all__ = ["MemoryRetriever", "note_document"]


def note_document(note: RetrievedNote) -> Document:
    """A retrieved note as a LangChain ``Document``.

    Args:
        note: The note, as :meth:`Memory.asearch` returns it.

    Returns:
        A document whose ``page_content`` is the note's context and whose metadata holds
        ``note_id``, ``score``, ``channels`` (channel -> rank), ``keywords``, ``topic``,
        ``source_keys``, ``speakers`` (distinct, in source order), ``times`` (ISO 8601,
        ``None`` where unknown) and ``sources`` (one dict per source observation).
    """
    speakers = list(dict.fromkeys(s.speaker for s in note.sources if s.speaker))
    times = [s.event_time.isoformat() if s.event_time else None for s in note.sources]
    return Document(
        page_content=note.context,
        id=str(note.note_id),
        metadata={
            "note_id": note.note_id,
            "score": note.score,
            "channels": dict(note.channels),
            "keywords": list(note.keywords),
            "topic": note.topic,
            "source_keys": [s.key for s in note.sources],
            "speakers": speakers,
            "times": times,
            "sources": [
                {"key": s.key, "speaker": s.speaker, "time": t, "text": s.text}
                for s, t in zip(note.sources, times, strict=True)
            ],
        },
    )


class MemoryRetriever(BaseRetriever):
    """Retrieve notes from a :class:`~langmemcore.memory.Memory` namespace.

    Example:
        .. code-block:: python

            memory = Memory.open()
            retriever = MemoryRetriever(memory=memory, namespace=("users", "alice"), k=5)
            docs = retriever.invoke("Where does Alice live?")
            fewer = retriever.invoke("Where does Alice live?", k=2)
    """

    memory: Memory
    """The memory to search."""

    namespace: tuple[str, ...]
    """Where to search (validated as LangGraph namespaces are)."""

    k: int = Field(default=4, ge=1)
    """Documents returned at most; ``invoke(query, k=...)`` overrides it per call."""

    min_score: float | None = None
    """Drop notes whose fused score is below this (``None``: keep all)."""

    token_budget: int | None = None
    """Stop adding notes past this many (estimated) tokens of context."""

    @field_validator("namespace", mode="before")
    @classmethod
    def _check_namespace(cls, value: Sequence[str]) -> tuple[str, ...]:
        return validate_namespace(value)

    def _documents(self, notes: Sequence[RetrievedNote], min_score: float | None) -> list[Document]:
        floor = self.min_score if min_score is None else min_score
        return [note_document(n) for n in notes if floor is None or n.score >= floor]

    def _limit(self, k: int | None) -> int:
        limit = self.k if k is None else k
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInputError(f"k must be a positive integer, got {limit!r}")
        return limit

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        min_score: float | None = None,
    ) -> list[Document]:
        """Search the namespace (natively async).

        Args:
            query: The question (must not be empty).
            run_manager: LangChain's callback manager.
            k: Documents returned at most for this call (default: :attr:`k`).
            min_score: Score floor for this call (default: :attr:`min_score`).

        Raises:
            InvalidInputError: If the query is empty or ``k`` is not a positive integer.
        """
        notes = await self.memory.asearch(
            self.namespace, query, k=self._limit(k), token_budget=self.token_budget
        )
        return self._documents(notes, min_score)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        min_score: float | None = None,
    ) -> list[Document]:
        """Sync twin of :meth:`_aget_relevant_documents` (through the one loop bridge)."""
        notes = run_sync(
            self.memory.asearch(
                self.namespace, query, k=self._limit(k), token_budget=self.token_budget
            )
        )
        return self._documents(notes, min_score)
