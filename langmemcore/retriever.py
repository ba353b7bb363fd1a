"""``MemoryRetriever``: memory as a LangChain ``BaseRetriever`` returning note-level documents.

Each ``Document`` is one retrieved note: ``page_content`` is the note's context and
``metadata`` carries its provenance (source keys, speakers, times, texts), keywords, topic,
the channels that found it with its rank there, its score in the final ordering (never
increasing down the list) and the note id. Drops into any LCEL chain
(``retriever | format_docs | prompt | llm``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, ValidationError

from langmemcore._bridge import run_sync, sync_twin
from langmemcore._errors import InvalidInputError
from langmemcore._namespace import validate_namespace
from langmemcore._validate import LIMITS, check_as_of, check_k, check_score
from langmemcore.formal.layer import SearchResults
from langmemcore.memory import Memory
from langmemcore.profiles.profile import Profile
from langmemcore.retrieval import RetrievedNote
from langmemcore.retrieval.active import SearchMode

__all__ = ["MemoryRetriever", "note_document"]


def note_document(note: RetrievedNote, query_id: int | None = None) -> Document:
    """A retrieved note as a LangChain ``Document``.

    Args:
        note: The note, as :meth:`Memory.asearch` returns it.
        query_id: The search's id in the query log (for feedback), if logged.

    Returns:
        A document whose ``page_content`` is the note's context and whose metadata holds
        ``note_id``, ``score``, ``channels`` (channel -> rank), ``keywords``, ``topic``,
        ``source_keys``, ``speakers`` (distinct, in source order), ``times`` (ISO 8601,
        ``None`` where unknown), ``sources`` (one dict per source observation),
        ``valid_from`` and ``valid_to`` (ISO 8601 or ``None``: when what the note says
        became valid and, once a newer note superseded it, stopped) and ``query_id``.
    """
    speakers = list(dict.fromkeys(s.speaker for s in note.sources if s.speaker))
    times = [s.event_time.isoformat() if s.event_time else None for s in note.sources]
    return Document(
        page_content=note.context,
        id=str(note.note_id),
        metadata={
            "note_id": note.note_id,
            "query_id": query_id,
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
            "valid_from": note.valid_from.isoformat() if note.valid_from else None,
            "valid_to": note.valid_to.isoformat() if note.valid_to else None,
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
            chat = ChatOpenAI(model="gpt-4o-mini")  # any chat model with tool calling
            walker = MemoryRetriever(
                memory=Memory.open(llm=chat), namespace=("users", "alice"), mode="active"
            )
            traversed = walker.invoke("Where does Alice live?")
    """

    memory: Memory
    """The memory to search."""

    namespace: tuple[str, ...]
    """Where to search (validated as LangGraph namespaces are)."""

    k: int = Field(default=4, ge=1, le=LIMITS.k, strict=True)
    """Documents returned at most; ``invoke(query, k=...)`` overrides it per call."""

    min_score: float | None = Field(default=None, allow_inf_nan=False)
    """Drop notes whose score (as reported, in the final ordering) is below this (``None``:
    keep all)."""

    token_budget: int | None = Field(default=None, ge=1, strict=True)
    """Stop adding notes past this many (estimated) tokens of context."""

    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    """Leave out notes whose confidence ``tau`` is below this (``None``: keep all)."""

    mode: SearchMode = "passive"
    """``"passive"`` (the retrieval graph) or ``"active"`` (MRAgent's traversal agent, driven
    by the memory's tool-calling ``llm``; without one a search raises ``ConfigurationError``)."""

    as_of: datetime | None = None
    """Search memory as it stood at this time (timezone-aware; an ISO 8601 string is read
    as one): see ``as_of`` of :meth:`Memory.asearch`. ``None``: now."""

    def __init__(self, **data: Any) -> None:
        """Check the fields with langmemcore's errors (pydantic's, reworded, for the rest).

        Raises:
            InvalidNamespaceError: ``namespace`` breaks LangGraph's rules or a limit.
            InvalidInputError: Another field is missing or has the wrong type or range, or
                ``as_of`` is naive or not a time.
        """
        if "namespace" in data:
            data["namespace"] = validate_namespace(data["namespace"])
        if "as_of" in data:
            data["as_of"] = check_as_of(data["as_of"])
        try:
            super().__init__(**data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'retriever'}: {e['msg']}" for e in exc.errors()
            )
            raise InvalidInputError(f"MemoryRetriever: {problems}") from None

    def _documents(self, notes: SearchResults, min_score: float | None) -> list[Document]:
        floor = self.min_score if min_score is None else min_score
        return [
            note_document(n, notes.query_id) for n in notes if floor is None or n.score >= floor
        ]

    async def _search(self, query: str, k: int | None, min_score: float | None) -> list[Document]:
        if min_score is not None:
            check_score(min_score, "min_score")
        notes = await self.memory.asearch(
            self.namespace,
            query,
            k=self._limit(k),
            token_budget=self.token_budget,
            min_confidence=self.min_confidence,
            mode=self.mode,
            as_of=self.as_of,
        )
        return self._documents(notes, min_score)

    def _limit(self, k: int | None) -> int:
        return check_k(self.k if k is None else k)

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
            ConfigurationError: Active mode on a memory without a tool-calling model.
        """
        return await self._search(query, k, min_score)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        min_score: float | None = None,
    ) -> list[Document]:
        """Sync twin of :meth:`_aget_relevant_documents` (through the one loop bridge)."""
        return run_sync(self._search(query, k, min_score))

    async def afeedback(
        self, documents: Sequence[Document], outcome: float = 1.0
    ) -> dict[int, float]:
        """Settle the searches these documents came from: the answer used them and had
        ``outcome`` (1 right, 0 wrong, or a grade in between).

        Returns:
            The new confidence of each note.

        Raises:
            InvalidInputError: No documents, or a document without a logged search.
        """
        by_query: dict[int, list[int]] = {}
        for doc in documents:
            query_id = doc.metadata.get("query_id")
            if query_id is None:
                raise InvalidInputError("a document without a logged search cannot be settled")
            by_query.setdefault(int(query_id), []).append(int(doc.metadata["note_id"]))
        if not by_query:
            raise InvalidInputError("feedback needs at least one document")
        settled: dict[int, float] = {}
        for query_id, note_ids in by_query.items():
            settled.update(await self.memory.afeedback(self.namespace, query_id, note_ids, outcome))
        return settled

    def feedback(self, documents: Sequence[Document], outcome: float = 1.0) -> dict[int, float]:
        """Sync twin of :meth:`afeedback`."""
        return run_sync(self.afeedback(documents, outcome))

    async def aprofile(self, subject: str) -> Profile:
        """What memory knows about ``subject`` in the retriever's namespace (see
        :meth:`Memory.aprofile`).
        """
        return await self.memory.aprofile(self.namespace, subject)

    profile = sync_twin(aprofile)
