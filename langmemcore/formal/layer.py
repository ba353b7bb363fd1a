"""The formal layer as one object: query logging on search, confidence evidence and
compaction after a write, feedback (settlement), compaction on demand, archive search and
restore.

:class:`~langmemcore.memory.Memory` holds a :class:`FormalLayer` and calls it through
:class:`FormalOperations`; each operation opens its own transaction and delegates to
:mod:`langmemcore.formal.capacity`.

For other front ends (a ``BaseStore``, a retriever): search through ``Memory.asearch``
(it logs the query and returns :class:`SearchResults` carrying ``query_id``), then call
``Memory.afeedback(namespace, results.query_id, used_note_ids, outcome)`` once the answer
is judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from langchain_core.embeddings import Embeddings

from langmemcore._errors import InvalidInputError
from langmemcore._namespace import validate_namespace
from langmemcore._validate import check_count, check_fraction
from langmemcore.formal import capacity
from langmemcore.formal.capacity import CompactionReport, WriteOutcome
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.prompts import LLMUsage
from langmemcore.retrieval.pack import RetrievedNote, SourceRef
from langmemcore.storage.database import Database
from langmemcore.storage.repository import Repository

__all__ = ["FormalLayer", "FormalOperations", "SearchResults"]


class SearchResults(list[RetrievedNote]):
    """The notes a search returned (a plain list of :class:`RetrievedNote`), with the id
    of the search in the query log (``None`` when logging is off) and its diagnostics:
    ``llm``, the model calls it asked for and how many failed or were skipped (an open
    circuit breaker), each answered by the offline path instead.
    """

    query_id: int | None
    llm: LLMUsage

    def __init__(
        self,
        notes: Sequence[RetrievedNote] = (),
        query_id: int | None = None,
        llm: LLMUsage | None = None,
    ) -> None:
        super().__init__(notes)
        self.query_id = query_id
        self.llm = llm or LLMUsage()


class FormalOperations(Protocol):
    """What ``Memory`` calls on its formal layer (see :class:`FormalLayer`)."""

    async def after_write(
        self, namespace: tuple[str, ...], results: Sequence[WriteOutcome]
    ) -> None:
        """Take in what a write did (``namespace`` already validated)."""

    async def log_search(
        self,
        namespace: tuple[str, ...],
        query: str,
        results: list[RetrievedNote],
        llm: LLMUsage | None = None,
    ) -> SearchResults:
        """Log a search (``namespace`` already validated) and wrap its results."""

    async def feedback(
        self, namespace: Sequence[str], query_id: int, note_ids: Sequence[int], outcome: float
    ) -> dict[int, float]:
        """Settle a logged search; returns the new confidence of each note."""

    async def compact(
        self, namespace: Sequence[str], *, max_notes: int | None, max_tokens: int | None
    ) -> CompactionReport:
        """Compact the namespace to a budget now."""

    async def restore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Bring archived notes back; returns their ids."""

    async def search_archived(
        self, namespace: Sequence[str], query: str, *, k: int
    ) -> list[RetrievedNote]:
        """Search the namespace's archived notes only."""


class FormalLayer:
    """Capacity, coverage and confidence operations of a memory.

    Args:
        database: The memory's database.
        embeddings: The memory's embedder (archive search embeds the query).
        config: Budgets, expected-query model and confidence rule.
    """

    def __init__(self, database: Database, embeddings: Embeddings, config: FormalConfig) -> None:
        self._database = database
        self._embeddings = embeddings
        self._config = config

    async def after_write(
        self, namespace: tuple[str, ...], results: Sequence[WriteOutcome]
    ) -> None:
        """Confidence evidence of a write, then compaction if the namespace is over budget."""
        budget = self._config.budget_for(namespace)
        evidence = any(r.operation == "merge" or r.edge_ids for r in results)
        if not evidence and not budget.limited:
            return
        async with Repository.open(self._database) as repo:
            await capacity.apply_write_evidence(repo, namespace, results, self._config)
            if await capacity.over_budget(repo, namespace, budget):
                await capacity.compact(repo, namespace, budget, self._config)

    async def log_search(
        self,
        namespace: tuple[str, ...],
        query: str,
        results: list[RetrievedNote],
        llm: LLMUsage | None = None,
    ) -> SearchResults:
        """Write the search to the query log (unless logging is off)."""
        query_id = None
        if self._config.log_queries:
            async with Repository.open(self._database, autocommit=True) as repo:
                query_id = await repo.log_query(namespace, query, [r.note_id for r in results])
        return SearchResults(results, query_id, llm)

    async def feedback(
        self, namespace: Sequence[str], query_id: int, note_ids: Sequence[int], outcome: float
    ) -> dict[int, float]:
        """Settle a logged search (see ``Memory.afeedback``)."""
        ns = validate_namespace(namespace)
        check_count(query_id, "query_id", minimum=1)
        for note_id in note_ids:
            check_count(note_id, "note_id", minimum=1)
        check_fraction(outcome, "outcome")
        async with Repository.open(self._database) as repo:
            return await capacity.settle_feedback(
                repo, ns, query_id, note_ids, outcome, self._config
            )

    async def compact(
        self, namespace: Sequence[str], *, max_notes: int | None, max_tokens: int | None
    ) -> CompactionReport:
        """Compact the namespace to a budget now (see ``Memory.acompact``)."""
        ns = validate_namespace(namespace)
        budget = (
            Budget(max_notes, max_tokens)
            if max_notes is not None or max_tokens is not None
            else self._config.budget_for(ns)
        )
        async with Repository.open(self._database) as repo:
            return await capacity.compact(repo, ns, budget, self._config)

    async def restore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Bring archived notes back (see ``Memory.arestore``)."""
        ns = validate_namespace(namespace)
        async with Repository.open(self._database) as repo:
            return await capacity.restore(repo, ns, note_ids)

    async def search_archived(
        self, namespace: Sequence[str], query: str, *, k: int
    ) -> list[RetrievedNote]:
        """Search the archived notes by embedding (see ``Memory.asearch_archived``)."""
        ns = validate_namespace(namespace)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query text is empty")
        vector = await self._embeddings.aembed_query(query)
        async with Repository.open(self._database) as repo:
            nearest = await repo.nearest_archived_notes(ns, vector, k)
            ids = [s.id for s in nearest]
            notes = await repo.get_notes(ns, ids)
            sources = await repo.sources_of(ns, ids)
        scores = {s.id: s.score for s in nearest}
        return [
            RetrievedNote(
                note_id=n.id,
                context=n.context,
                score=scores[n.id],
                channels={"archive": rank},
                keywords=tuple(n.keywords),
                topic=None,
                sources=tuple(
                    SourceRef(o.key, o.speaker, o.event_time, o.content) for o in sources[n.id]
                ),
                valid_from=n.valid_from,
                valid_to=n.valid_to,
            )
            for rank, n in enumerate(notes, start=1)
        ]
