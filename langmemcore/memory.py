"""``Memory``: the library's front door for writing (and, with retrieval, reading) memory.

Async-first: every operation is a coroutine (``aingest``, ``aingest_many``, ...); the sync
twins (``ingest``, ``ingest_many``, ...) run them through the one loop bridge.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._bridge import run_sync
from langmemcore._errors import ConfigurationError, InvalidInputError
from langmemcore._namespace import validate_namespace
from langmemcore._progress import Progress, ProgressLike, progress_callback
from langmemcore._validate import check_count, check_key, check_observation, check_search
from langmemcore.config import ConstructionConfig, LLMConfig, RetrievalConfig
from langmemcore.construction.apply import ApplyResult
from langmemcore.construction.gate import NoteDraft
from langmemcore.construction.graph import ConstructionContext, build_construction_graph
from langmemcore.construction.ingest import (
    KeywordEmbedder,
    ObservationIn,
    bulk_batches,
    make_drafts,
)
from langmemcore.construction.repair import RepairReport, forget_observation
from langmemcore.construction.topics import TopicSummary, evolve_topics
from langmemcore.construction.undo import undo_lineage, unmerge_note
from langmemcore.embeddings import EmbeddingsLike, embedding_dims, resolve_embeddings
from langmemcore.formal.capacity import CompactionReport
from langmemcore.formal.config import FormalConfig
from langmemcore.formal.layer import FormalLayer, FormalOperations, SearchResults
from langmemcore.prompts import LLMUsage, configure_model, track_usage
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval.active import SearchMode, active_notes, check_mode
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.database import Database
from langmemcore.storage.migrations import ensure_schema
from langmemcore.storage.records import content_hash, ensure_same_content
from langmemcore.storage.repository import Repository

__all__ = ["IngestReport", "Memory"]


T = TypeVar("T")


@dataclass(frozen=True)
class IngestReport:
    """Counts of what a bulk ingest did.

    Attributes:
        results: One result per observation, in input order.
        topics: Topic evolutions run during the ingest.
        llm: Model calls the ingest asked for, and how many failed or were skipped (an
            open circuit breaker); each of those was answered by the offline path.
    """

    results: tuple[ApplyResult, ...]
    topics: tuple[TopicSummary, ...]
    llm: LLMUsage = field(default_factory=LLMUsage)

    def count(self, operation: str) -> int:
        """How many observations ended in ``operation`` (append / merge / unchanged)."""
        return sum(1 for r in self.results if r.operation == operation)

    @property
    def links(self) -> int:
        """Edges created."""
        return sum(len(r.edge_ids) for r in self.results)


class Memory:
    """Long-term memory in a Postgres + pgvector database.

    Args:
        database: The database (schema at head).
        embeddings: The embedder (its dimensions must match the schema's).
        llm: Optional chat model for ingestion, the gate's ambiguous band, query
            decomposition and the sufficiency loop.
        config: Construction settings.
        retrieval: Retrieval settings.
        formal: Capacity budgets, expected-query model and confidence rule (see
            :mod:`langmemcore.formal`).
        llm_config: Time limit and circuit breaker of the model's calls (applied to the
            model object, whose breaker every memory using it shares).
    """

    def __init__(
        self,
        database: Database,
        embeddings: Embeddings,
        *,
        llm: BaseChatModel | None = None,
        config: ConstructionConfig | None = None,
        retrieval: RetrievalConfig | None = None,
        formal: FormalConfig | None = None,
        llm_config: LLMConfig | None = None,
    ) -> None:
        self.database = database
        self.embeddings = embeddings
        self.llm = llm
        if llm is not None:
            configure_model(llm, llm_config or LLMConfig())
        self.config = config or ConstructionConfig()
        self._context = ConstructionContext(
            database, embeddings, KeywordEmbedder(embeddings), self.config, llm
        )
        self.retrieval = retrieval or RetrievalConfig()
        self.formal = formal or FormalConfig()
        self._formal_layer: FormalOperations = FormalLayer(database, embeddings, self.formal)
        self._graph = build_construction_graph()
        self._retrieval_graph = build_retrieval_graph()
        self._background: set[asyncio.Task[Any]] = set()
        self._since_topics: dict[tuple[str, ...], int] = {}

    @classmethod
    async def aopen(
        cls,
        url: str | None = None,
        *,
        embeddings: EmbeddingsLike = None,
        llm: BaseChatModel | None = None,
        config: ConstructionConfig | None = None,
        retrieval: RetrievalConfig | None = None,
        formal: FormalConfig | None = None,
        llm_config: LLMConfig | None = None,
    ) -> Memory:
        """Open memory on ``url`` (else ``DATABASE_URL``, else the embedded server).

        The embedded server's schema is created (or upgraded) on first use, for the
        embedder's dimensions; a database named by a URL is never migrated on open.

        Raises:
            MigrationRequiredError: A database named by a URL has a schema that is
                missing or behind head.
            ConfigurationError: The embedder's dimensions differ from the schema's.
        """
        database = Database.connect(url)
        embedder = resolve_embeddings(embeddings)
        await ensure_schema(database, lambda: embedding_dims(embedder))
        dims = await database.check_schema()
        actual = await asyncio.to_thread(embedding_dims, embedder)
        if dims != actual:
            raise ConfigurationError(
                f"the schema stores {dims}-dimensional vectors but the embedder makes "
                f"{actual}; use a matching embedder or a database migrated with --dims {actual}"
            )
        return cls(
            database,
            embedder,
            llm=llm,
            config=config,
            retrieval=retrieval,
            formal=formal,
            llm_config=llm_config,
        )

    @classmethod
    def open(cls, url: str | None = None, **kwargs: Any) -> Memory:
        """Sync twin of :meth:`aopen`."""
        return run_sync(cls.aopen(url, **kwargs))

    def _observation(
        self,
        text: str,
        key: str | None,
        speaker: str | None,
        event_time: datetime | None,
        metadata: dict[str, Any] | None,
    ) -> ObservationIn:
        limit = self.config.max_observation_chars
        check_observation(key, text, speaker, event_time, metadata, max_chars=limit)
        return ObservationIn(key or content_hash(text), text, speaker, event_time, metadata or {})

    async def aingest(
        self,
        namespace: Sequence[str],
        text: str,
        *,
        key: str | None = None,
        speaker: str | None = None,
        event_time: datetime | None = None,
        metadata: dict[str, Any] | None = None,
        wait_for_topics: bool = False,
    ) -> ApplyResult:
        """Remember one observation: ingest -> gate -> merge / link / append.

        Args:
            namespace: Where to remember it.
            text: The raw text (kept whole).
            key: Unique key in the namespace (default: the text's hash); re-ingesting a
                key is a no-op.
            speaker: Who said it.
            event_time: When it happened.
            metadata: JSON-able metadata kept with the observation.
            wait_for_topics: Run a due topic evolution before returning instead of in
                the background.

        Returns:
            What happened to the observation.
        """
        ns = validate_namespace(namespace)
        observation = self._observation(text, key, speaker, event_time, metadata)
        state = await self._graph.ainvoke(
            {"namespace": ns, "observation": observation}, context=self._context
        )
        result: ApplyResult = state["result"]
        await self._formal_layer.after_write(ns, [result])
        if await self._topics_due(ns, result):
            if wait_for_topics:
                await self.aevolve_topics(ns)
            else:
                self._in_background(self.aevolve_topics(ns))
        return result

    def _in_background(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``work`` as a task that :meth:`aflush` waits for."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def aingest_many(
        self,
        namespace: Sequence[str],
        observations: Iterable[ObservationIn],
        *,
        batch_size: int = 64,
        progress: ProgressLike = None,
    ) -> IngestReport:
        """Remember many observations in order, batching embeddings.

        Gives the same memory as calling :meth:`aingest` for each observation in the same
        order. Topic evolution runs in the background whenever it is due (one run at a
        time, as for :meth:`aingest`), and once more at the end, after those runs. The
        next batch is drafted and embedded while the current one is applied.

        Args:
            namespace: Where to remember them.
            observations: The observations, in event order.
            batch_size: Observations drafted (and embedded) per batch; the first batches
                are smaller (8, 16, 32, ...) so that applying starts early.
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)`` callback.
        """
        ns = validate_namespace(namespace)
        check_count(batch_size, "batch_size", minimum=1)
        items = list(observations)
        for item in items:
            if not isinstance(item, ObservationIn):
                raise InvalidInputError(f"observations must be ObservationIn, got {item!r:.60}")
            self._observation(item.text, item.key, item.speaker, item.event_time, item.metadata)
        with track_usage() as usage:
            results, topics = await self._ingest_batches(
                ns, items, batch_size, progress_callback(progress, "ingest")
            )
        return IngestReport(tuple(results), tuple(topics), usage)

    async def _ingest_batches(
        self,
        ns: tuple[str, ...],
        items: list[ObservationIn],
        batch_size: int,
        report: Progress | None,
    ) -> tuple[list[ApplyResult], list[TopicSummary]]:
        """The work of :meth:`aingest_many`: draft ahead, apply in order, evolve topics."""
        batches = bulk_batches(len(items), batch_size)
        first_seen = {o.key: i for i, o in reversed(list(enumerate(items)))}
        results: list[ApplyResult] = []
        topics: list[TopicSummary] = []
        evolving: list[asyncio.Task[TopicSummary]] = []
        applied: dict[str, str] = {}
        ahead = self._draft_ahead(ns, items, batches, 0, first_seen)
        try:
            for index, batch in enumerate(batches):
                assert ahead is not None
                stored, drafts = await ahead
                ahead = self._draft_ahead(ns, items, batches, index + 1, first_seen)
                done = len(results)
                for observation in (items[i] for i in batch):
                    known = stored.get(observation.key) or applied.get(observation.key)
                    if known is not None:
                        results.append(self._unchanged(ns, observation, known))
                        applied.setdefault(observation.key, known)
                    else:
                        state = await self._graph.ainvoke(
                            {
                                "namespace": ns,
                                "observation": observation,
                                "draft": drafts[observation.key],
                                "known_new": True,
                            },
                            context=self._context,
                        )
                        results.append(state["result"])
                        applied[observation.key] = content_hash(observation.text)
                        due = await self._topics_due(ns, state["result"])
                        if due and (not evolving or evolving[-1].done()):
                            evolving.append(self._in_background(self.aevolve_topics(ns)))
                    if report:
                        report(len(results), len(items))
                await self._formal_layer.after_write(ns, results[done:])
        finally:
            if ahead is not None:
                ahead.cancel()
        topics.extend(await asyncio.gather(*evolving))
        if any(r.operation != "unchanged" for r in results):
            topics.append(await self.aevolve_topics(ns))
        return results, topics

    def _draft_ahead(
        self,
        namespace: tuple[str, ...],
        items: list[ObservationIn],
        batches: list[range],
        index: int,
        first_seen: dict[str, int],
    ) -> asyncio.Task[tuple[dict[str, str], dict[str, NoteDraft]]] | None:
        """Start preparing batch ``index`` while the caller applies the one before it, so
        embedding (in a worker thread) overlaps the database work. Keys seen earlier in
        the input are left to the duplicate check at apply time.
        """
        if index >= len(batches):
            return None
        batch = [items[i] for i in batches[index] if first_seen[items[i].key] == i]
        return asyncio.get_running_loop().create_task(self._prepare_batch(namespace, batch))

    async def _prepare_batch(
        self, namespace: tuple[str, ...], batch: list[ObservationIn]
    ) -> tuple[dict[str, str], dict[str, NoteDraft]]:
        """Stored hashes of the batch's keys and drafts of the new ones (embedded in one
        batch). Drafts depend only on the observations, never on memory, so drafting ahead
        changes nothing in what gets stored.
        """
        async with Repository.open(self.database, autocommit=True) as repo:
            stored = await repo.observation_hashes(namespace, [o.key for o in batch])
        fresh = [o for o in batch if o.key not in stored]
        made = await make_drafts(fresh, self.embeddings, self.config, self.llm)
        await self._context.keywords.vectors([k for d in made for k in d.keywords])
        return stored, dict(zip((o.key for o in fresh), made, strict=True))

    @staticmethod
    def _unchanged(
        namespace: tuple[str, ...], observation: ObservationIn, stored_hash: str
    ) -> ApplyResult:
        ensure_same_content(namespace, observation.key, stored_hash, observation.text)
        return ApplyResult("unchanged", 0, None, (), (), "already ingested")

    async def _topics_due(self, namespace: tuple[str, ...], result: ApplyResult) -> bool:
        """Count new notes per namespace (from the database once, then in process)."""
        every = self.config.topic_every
        if every <= 0 or result.operation == "unchanged":
            return False
        if namespace not in self._since_topics:
            async with Repository.open(self.database, autocommit=True) as repo:
                self._since_topics[namespace] = await repo.notes_since_topics(namespace)
        elif result.operation == "append":
            self._since_topics[namespace] += 1
        return self._since_topics[namespace] >= every

    async def aevolve_topics(self, namespace: Sequence[str]) -> TopicSummary:
        """Recompute the namespace's topic groups now."""
        ns = validate_namespace(namespace)
        self._since_topics[ns] = 0
        async with Repository.open(self.database) as repo:
            return await evolve_topics(
                repo,
                ns,
                min_size=self.config.topic_min_size,
                max_size=self.config.topic_max_size,
                seed=self.config.topic_seed,
            )

    async def aundo(self, namespace: Sequence[str], lineage_id: int) -> int:
        """Undo one lineage row (see :mod:`langmemcore.construction.undo`)."""
        ns = validate_namespace(namespace)
        check_count(lineage_id, "lineage_id", minimum=1)
        async with Repository.open(self.database) as repo:
            return await undo_lineage(repo, ns, lineage_id)

    async def aunmerge(self, namespace: Sequence[str], note_id: int) -> list[int]:
        """Split a merged note back into the notes it was built from."""
        ns = validate_namespace(namespace)
        check_count(note_id, "note_id", minimum=1)
        async with Repository.open(self.database) as repo:
            return await unmerge_note(repo, ns, note_id)

    async def aforget(self, namespace: Sequence[str], key: str) -> RepairReport | None:
        """Forget the observation stored under ``key`` and repair the notes built from it
        (see :mod:`langmemcore.construction.repair`).

        Returns:
            What changed, or ``None`` when no observation has that key.
        """
        ns = validate_namespace(namespace)
        check_key(key)
        async with Repository.open(self.database) as repo:
            observation = await repo.observation(ns, key)
            if observation is None:
                return None
            return await forget_observation(
                repo,
                ns,
                observation.id,
                embeddings=self.embeddings,
                keywords=self._context.keywords,
                config=self.config,
            )

    async def asearch(
        self,
        namespace: Sequence[str],
        query: str,
        *,
        k: int | None = None,
        token_budget: int | None = None,
        config: RetrievalConfig | None = None,
        min_confidence: float | None = None,
        mode: SearchMode = "passive",
    ) -> SearchResults:
        """Find the evidence for ``query``: decompose -> channels -> fuse -> refine -> pack,
        or with ``mode="active"`` MRAgent's traversal agent, driven by the memory's ``llm``
        (see :func:`~langmemcore.retrieval.active.active_notes`).

        The search is written to the query log (its id is ``SearchResults.query_id``; pass
        it to :meth:`afeedback` once the answer is judged).

        Args:
            namespace: Where to search.
            query: The question.
            k: Notes returned at most (default ``k_final``).
            token_budget: Stop packing notes past this many (estimated) tokens.
            config: Retrieval settings for this call (default: the memory's).
            min_confidence: Leave out notes whose confidence ``tau`` is below this, before
                the cut at ``k``.
            mode: ``"passive"`` (the retrieval graph) or ``"active"`` (the traversal agent).

        Returns:
            Notes in rank order with their sources, channels and scores (a list).

        Raises:
            ConfigurationError: ``mode="active"`` without a tool-calling ``llm``.
        """
        ns = validate_namespace(namespace)
        check_search(query, k, token_budget, min_confidence)
        settings = config or self.retrieval
        context = RetrievalContext(self.database, self.embeddings, settings, self.llm)
        if check_mode(mode) == "active":
            with track_usage() as usage:
                found = await active_notes(context, ns, query, k, token_budget, min_confidence)
            return await self._formal_layer.log_search(ns, query, found, usage)
        with track_usage() as usage:
            state = await self._retrieval_graph.ainvoke(
                {
                    "namespace": ns,
                    "query": query,
                    "k": k,
                    "token_budget": token_budget,
                    "min_confidence": min_confidence,
                },
                context=context,
            )
        return await self._formal_layer.log_search(ns, query, state["results"], usage)

    def search(self, namespace: Sequence[str], query: str, **kwargs: Any) -> SearchResults:
        """Sync twin of :meth:`asearch`."""
        return run_sync(self.asearch(namespace, query, **kwargs))

    async def afeedback(
        self,
        namespace: Sequence[str],
        query_id: int,
        note_ids: Sequence[int],
        outcome: float = 1.0,
    ) -> dict[int, float]:
        """Settle a logged search: the answer used ``note_ids`` and had ``outcome``.

        Each note's Beta belief gets ``alpha += w * outcome``, ``beta += w * (1 -
        outcome)`` (``w = formal.feedback_weight``; see :mod:`langmemcore.formal.confidence`)
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
        return await self._formal_layer.feedback(namespace, query_id, note_ids, outcome)

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
        return await self._formal_layer.compact(
            namespace, max_notes=max_notes, max_tokens=max_tokens
        )

    async def arestore(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Bring archived notes back into memory exactly as they were; returns their ids."""
        return await self._formal_layer.restore(namespace, note_ids)

    async def asearch_archived(
        self, namespace: Sequence[str], query: str, *, k: int = 10
    ) -> list[RetrievedNote]:
        """Search the namespace's archived notes only (by embedding similarity).

        Returns notes with their sources; ``channels`` is ``{"archive": rank}`` and
        ``score`` the cosine similarity.
        """
        return await self._formal_layer.search_archived(namespace, query, k=k)

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

    async def aflush(self) -> None:
        """Wait for background work (topic evolution) started by :meth:`aingest`."""
        while self._background:
            await asyncio.gather(*list(self._background))

    def ingest(self, namespace: Sequence[str], text: str, **kwargs: Any) -> ApplyResult:
        """Sync twin of :meth:`aingest`."""
        return run_sync(self.aingest(namespace, text, **kwargs))

    def ingest_many(
        self, namespace: Sequence[str], observations: Iterable[ObservationIn], **kwargs: Any
    ) -> IngestReport:
        """Sync twin of :meth:`aingest_many`."""
        return run_sync(self.aingest_many(namespace, observations, **kwargs))

    def evolve_topics(self, namespace: Sequence[str]) -> TopicSummary:
        """Sync twin of :meth:`aevolve_topics`."""
        return run_sync(self.aevolve_topics(namespace))

    def undo(self, namespace: Sequence[str], lineage_id: int) -> int:
        """Sync twin of :meth:`aundo`."""
        return run_sync(self.aundo(namespace, lineage_id))

    def unmerge(self, namespace: Sequence[str], note_id: int) -> list[int]:
        """Sync twin of :meth:`aunmerge`."""
        return run_sync(self.aunmerge(namespace, note_id))

    def forget(self, namespace: Sequence[str], key: str) -> RepairReport | None:
        """Sync twin of :meth:`aforget`."""
        return run_sync(self.aforget(namespace, key))

    def flush(self) -> None:
        """Sync twin of :meth:`aflush`."""
        run_sync(self.aflush())
