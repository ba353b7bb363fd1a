"""The formal layer's face on :class:`~langmemcore.memory.Memory`: query logging and
minimum confidence on search, feedback (settlement), compaction, archive search and
restore. ``Memory`` inherits :class:`FormalMemory`; each method delegates to
:mod:`langmemcore.formal.capacity`.

For other front ends (a ``BaseStore``, a retriever): search through ``Memory.asearch``
(it logs the query and returns :class:`SearchResults` carrying ``query_id``), then call
``Memory.afeedback(namespace, results.query_id, used_note_ids, outcome)`` once the answer
is judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings
from sqlalchemy import select

from langmemcore._bridge import run_sync
from langmemcore._errors import InvalidInputError
from langmemcore._namespace import encode_namespace, validate_namespace
from langmemcore._validate import check_count, check_fraction
from langmemcore.config import RetrievalConfig
from langmemcore.construction.apply import ApplyResult
from langmemcore.formal import capacity
from langmemcore.formal.capacity import CompactionReport
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.prompts import LLMUsage
from langmemcore.retrieval.pack import RetrievedNote, SourceRef
from langmemcore.storage.database import Database
from langmemcore.storage.models import Note
from langmemcore.storage.repository import Repository

__all__ = ["FormalMemory", "SearchResults"]


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


class FormalMemory:
    """Capacity, coverage and precision operations of a memory (mixed into ``Memory``)."""

    database: Database
    embeddings: Embeddings
    formal: FormalConfig
    retrieval: RetrievalConfig

    async def _after_write(
        self, namespace: tuple[str, ...], results: Sequence[ApplyResult]
    ) -> None:
        """Confidence evidence of a write, then compaction if the namespace is over budget."""
        budget = self.formal.budget_for(namespace)
        evidence = any(r.operation == "merge" or r.edge_ids for r in results)
        if not evidence and not budget.limited:
            return
        async with Repository.open(self.database) as repo:
            await capacity.apply_write_evidence(repo, namespace, results, self.formal)
            if await capacity.over_budget(repo, namespace, budget):
                await capacity.compact(repo, namespace, budget, self.formal)

    async def _log_search(
        self,
        namespace: tuple[str, ...],
        query: str,
        results: list[RetrievedNote],
        llm: LLMUsage | None = None,
    ) -> SearchResults:
        """Write the search to the query log (unless logging is off)."""
        query_id = None
        if self.formal.log_queries:
            async with Repository.open(self.database, autocommit=True) as repo:
                query_id = await capacity.record_query(
                    repo, namespace, query, [r.note_id for r in results]
                )
        return SearchResults(results, query_id, llm)

    async def afeedback(
        self,
        namespace: Sequence[str],
        query_id: int,
        note_ids: Sequence[int],
        outcome: float = 1.0,
    ) -> dict[int, float]:
        """Settle a logged search: the answer used ``note_ids`` and had ``outcome``.

        Each note's Beta belief gets ``alpha += w * outcome``, ``beta += w * (1 -
        outcome)`` (``w = formal.feedback_weight``; see :mod:`langmemcore.formal.precision`)
        and the notes join the query's used notes, which compaction then keeps together.

        Args:
            namespace: Where the search ran.
            query_id: ``SearchResults.query_id`` of the search.
            note_ids: Notes the answer used (need not be among those returned).
            outcome: 1 for a right answer, 0 for a wrong one, or a grade in between.

        Returns:
            The new confidence ``tau`` of each note.

        Raises:
            NotFoundError: Unknown query or note in the namespace.
            InvalidInputError: ``outcome`` outside ``[0, 1]``, or ids that are not
                positive integers.
        """
        ns = validate_namespace(namespace)
        check_count(query_id, "query_id", minimum=1)
        for note_id in note_ids:
            check_count(note_id, "note_id", minimum=1)
        check_fraction(outcome, "outcome")
        async with Repository.open(self.database) as repo:
            return await capacity.settle_feedback(
                repo, ns, query_id, note_ids, outcome, self.formal
            )

    async def acompact(
        self,
        namespace: Sequence[str],
        *,
        max_notes: int | None = None,
        max_tokens: int | None = None,
    ) -> CompactionReport:
        """Compact the namespace to a budget now (default: its configured budget).

        Keeps the notes of greatest marginal coverage of the expected queries (greedy
        weighted max coverage) and archives the others; nothing is deleted.
        """
        ns = validate_namespace(namespace)
        budget = (
            Budget(max_notes, max_tokens)
            if max_notes is not None or max_tokens is not None
            else self.formal.budget_for(ns)
        )
        async with Repository.open(self.database) as repo:
            return await capacity.compact(repo, ns, budget, self.formal)

    async def arestore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Bring archived notes back into memory exactly as they were; returns their ids."""
        ns = validate_namespace(namespace)
        async with Repository.open(self.database) as repo:
            return await capacity.restore(repo, ns, note_ids)

    async def asearch_archived(
        self, namespace: Sequence[str], query: str, *, k: int = 10
    ) -> list[RetrievedNote]:
        """Search the namespace's archived notes only (by embedding similarity).

        Returns notes with their sources; ``channels`` is ``{"archive": rank}`` and
        ``score`` the cosine similarity.
        """
        ns = validate_namespace(namespace)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query text is empty")
        vector = await self.embeddings.aembed_query(query)
        async with Repository.open(self.database) as repo:
            ids = await capacity.archived_note_ids(repo, ns, vector, k)
            similarity = await repo.session.execute(
                select(Note.id, 1.0 - Note.embedding.cosine_distance(vector)).where(
                    Note.namespace == encode_namespace(ns), Note.id.in_(ids)
                )
            )
            scores = {int(i): float(s) for i, s in similarity}
            notes = await repo.get_notes(ns, ids)
            sources = await repo.sources_of(ns, ids)
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
            )
            for rank, n in enumerate(notes, start=1)
        ]

    def feedback(
        self,
        namespace: Sequence[str],
        query_id: int,
        note_ids: Sequence[int],
        outcome: float = 1.0,
    ) -> dict[int, float]:
        """Sync twin of :meth:`afeedback`."""
        return run_sync(self.afeedback(namespace, query_id, note_ids, outcome))

    def compact(self, namespace: Sequence[str], **kwargs: Any) -> CompactionReport:
        """Sync twin of :meth:`acompact`."""
        return run_sync(self.acompact(namespace, **kwargs))

    def restore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Sync twin of :meth:`arestore`."""
        return run_sync(self.arestore(namespace, note_ids))

    def search_archived(
        self, namespace: Sequence[str], query: str, **kwargs: Any
    ) -> list[RetrievedNote]:
        """Sync twin of :meth:`asearch_archived`."""
        return run_sync(self.asearch_archived(namespace, query, **kwargs))
