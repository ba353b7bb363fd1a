"""``Memory``: the library's front door for writing (and, with retrieval, reading) memory.

Async-first: every operation is a coroutine (``aingest``, ``aingest_many``, ...); the sync
twins (``ingest``, ``ingest_many``, ...), derived by :func:`~langmemcore._bridge.sync_twin`,
run them through the one loop bridge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import aclosing
from dataclasses import replace
from datetime import datetime
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._bridge import sync_twin
from langmemcore._errors import InvalidInputError, LangMemCoreError
from langmemcore._namespace import validate_namespace
from langmemcore._progress import ProgressLike
from langmemcore._validate import LIMITS, check_as_of, check_count, check_search
from langmemcore._warmup import start_warm_up, wait_warm_up
from langmemcore.config import ConstructionConfig, LLMConfig, RetrievalConfig
from langmemcore.construction.apply import ApplyResult
from langmemcore.construction.bulk import BulkIngest, IngestReport
from langmemcore.construction.graph import ConstructionContext, build_construction_graph
from langmemcore.construction.ingest import KeywordEmbedder, ObservationIn, checked_observation
from langmemcore.construction.maintenance import Maintenance
from langmemcore.construction.repair import RepairReport
from langmemcore.construction.rethread import RethreadReport
from langmemcore.construction.topic_schedule import TopicSchedule
from langmemcore.construction.topics import TopicSummary
from langmemcore.embeddings import EmbeddingsLike, embedding_dims, resolve_embeddings
from langmemcore.formal.capacity import CompactionReport
from langmemcore.formal.config import FormalConfig
from langmemcore.formal.layer import FormalLayer, FormalOperations, SearchResults
from langmemcore.profiles.layer import ProfileLayer, SubjectSummary
from langmemcore.profiles.profile import Profile
from langmemcore.prompts import configure_model, track_usage
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval.active import SearchMode, active_notes, check_mode
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.retrieval.query_vectors import QueryVectorCache
from langmemcore.retrieval.state import RetrievalInput
from langmemcore.storage.database import Database
from langmemcore.storage.migrations import open_schema

__all__ = ["Memory"]


def _deeper_search(
    search: RetrievalInput, state: dict[str, Any], config: RetrievalConfig
) -> RetrievalConfig | None:
    """Settings for a search ``as_of`` a time to run again with channels ranking four times
    as deep, when it found fewer than ``k`` notes observed by then, no token budget cut it
    short and some channel stopped at its depth (more notes could be eligible); else
    ``None``.
    """
    results, depth = state["results"], config.depth
    if search.get("as_of") is None or search.get("token_budget") is not None:
        return None
    if len(results) >= search["k"] or depth >= LIMITS.k:
        return None
    if not any(len(r.note_ids) >= depth for r in state.get("rankings", ())):
        return None
    return replace(config, depth=min(LIMITS.k, 4 * depth))


class Memory:
    """Long-term memory in a Postgres + pgvector database.

    Creating or opening a memory starts loading the models it uses (the local embedder,
    and the English parse when profiles are on) in a background thread, once per
    process; :meth:`awarm_up` / :meth:`warm_up` wait for them.

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
        self.query_vectors = QueryVectorCache(embeddings)
        self.formal = formal or FormalConfig()
        self._formal_layer: FormalOperations = FormalLayer(database, embeddings, self.formal)
        self._graph = build_construction_graph()
        self._retrieval_graph = build_retrieval_graph()
        self._topics = TopicSchedule(database, self.config)
        self.profiles = ProfileLayer(database)
        self.maintenance = Maintenance(self._context)
        self._warm_up = start_warm_up(embeddings, parser=self.config.profiles)

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
        embedder = resolve_embeddings(embeddings)
        start_warm_up(embedder, parser=(config or ConstructionConfig()).profiles)
        database = await open_schema(url, lambda: embedding_dims(embedder))
        return cls(
            database,
            embedder,
            llm=llm,
            config=config,
            retrieval=retrieval,
            formal=formal,
            llm_config=llm_config,
        )

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
        """Remember one observation: ingest -> gate -> merge / append (with links).

        Args:
            namespace: Where to remember it.
            text: The raw text (kept whole; empty or blank text raises
                ``InvalidInputError``).
            key: Unique key in the namespace (default: the text's hash); re-ingesting a
                key is a no-op. ``MemoryStore`` sees the observation as the item ``key``.
            speaker: Who said it.
            event_time: When it happened.
            metadata: JSON-able metadata kept with the observation.
            wait_for_topics: Run a due topic evolution before returning instead of in
                the background.

        Returns:
            What happened to the observation.
        """
        ns = validate_namespace(namespace)
        limit = self.config.max_observation_chars
        observation = checked_observation(text, key, speaker, event_time, metadata, limit)
        state = await self._graph.ainvoke(
            {"namespace": ns, "observation": observation}, context=self._context
        )
        result: ApplyResult = state["result"]
        await self._formal_layer.after_write(ns, [result])
        await self._topics.after_write(ns, result, wait=wait_for_topics)
        return result

    async def aingest_many(
        self,
        namespace: Sequence[str],
        observations: Iterable[ObservationIn],
        *,
        batch_size: int = 64,
        progress: ProgressLike = None,
        evolve_at_end: bool = True,
    ) -> IngestReport:
        """Remember many observations in order, batching embeddings.

        Gives the same memory as calling :meth:`aingest` for each observation in the same
        order. Topic evolution runs in the background whenever it is due (one run at a
        time, as for :meth:`aingest`), and once more at the end, after those runs. The
        next batch is drafted and embedded while the current one is applied.

        Args:
            namespace: Where to remember them.
            observations: The observations, in event order.
            batch_size: Observations drafted (and embedded) per batch (smaller at first).
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)`` callback.
            evolve_at_end: ``False``: topics evolve only as due, as :meth:`aingest` does.

        Returns:
            What happened to each observation, and the topic evolutions run.

        Raises:
            DatabaseUnavailableError: The database went away part way.
            ObservationConflictError: A stored key has different content.
            InvalidInputError: An observation is malformed or its value was refused.

        An error that stops it part way carries ``.report``, what was stored before it;
        re-sending the call is safe (observations are idempotent on namespace and key).
        """
        ns = validate_namespace(namespace)
        check_count(batch_size, "batch_size", minimum=1)
        items = _checked_observations(observations, self.config.max_observation_chars)
        bulk = BulkIngest(
            self._graph,
            self._context,
            self._topics,
            ns,
            items,
            batch_size=batch_size,
            progress=progress,
        )
        with track_usage() as usage:
            try:
                async with aclosing(bulk.batches()) as batches:
                    async for results in batches:
                        await self._formal_layer.after_write(ns, results)
                topics = await bulk.finish() if evolve_at_end else []
            except LangMemCoreError as exc:
                exc.report = IngestReport(tuple(bulk.results), (), usage)
                exc.add_note(
                    f"ingest_many stopped after {len(bulk.results)} of {len(items)} "
                    "observations (the error's report lists them); re-sending is safe"
                )
                raise
        return IngestReport(tuple(bulk.results), tuple(topics), usage)

    async def aevolve_topics(self, namespace: Sequence[str]) -> TopicSummary:
        """Recompute the namespace's topic groups now."""
        return await self._topics.evolve(validate_namespace(namespace))

    async def aundo(self, namespace: Sequence[str], lineage_id: int) -> int:
        """Undo one lineage row (see :mod:`langmemcore.construction.undo`)."""
        return await self.maintenance.undo(namespace, lineage_id)

    async def aunmerge(self, namespace: Sequence[str], note_id: int) -> list[int]:
        """Split a merged note back into the notes it was built from."""
        return await self.maintenance.unmerge(namespace, note_id)

    async def aforget(self, namespace: Sequence[str], key: str) -> RepairReport | None:
        """Forget the observation stored under ``key`` and repair the notes built from it
        (see :mod:`langmemcore.construction.repair`; ``None``: no observation has it).
        """
        return await self.maintenance.forget(namespace, key)

    async def arethread(
        self, namespace: Sequence[str], *, batch_size: int = 64, progress: ProgressLike = None
    ) -> RethreadReport:
        """Give the notes whose thread vector is still their own embedding (stored before
        schema 0010, or rewritten by undo and repair) the one an ingest gives today; notes
        without a lead keep theirs (see :mod:`langmemcore.construction.rethread`).

        Args:
            namespace: The namespace.
            batch_size: Notes read, and thread texts embedded, per batch.
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)`` callback.
        """
        return await self.maintenance.rethread(namespace, batch_size=batch_size, progress=progress)

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
        as_of: datetime | None = None,
    ) -> SearchResults:
        """Find the evidence for ``query``: decompose -> channels -> fuse -> refine -> pack,
        or with ``mode="active"`` MRAgent's traversal agent, driven by the memory's ``llm``
        (see :func:`~langmemcore.retrieval.active.active_notes`).

        The search is logged (``SearchResults.query_id``, for :meth:`afeedback`).

        Args:
            namespace: Where to search.
            query: The question (an empty or blank query raises ``InvalidInputError``).
            k: Notes returned at most (default ``k_final``), each with its ``sources``.
            token_budget: Stop packing notes past this many (estimated) tokens.
            config: Retrieval settings for this call (default: the memory's).
            min_confidence: Leave out notes of lower confidence ``tau``, before the cut.
            mode: ``"passive"`` (the retrieval graph) or ``"active"`` (the traversal agent).
            as_of: The time to search at (timezone-aware; ``None``: now): only sources
                observed by then are returned, and "now" and relative dates are read
                against it.

        Returns:
            Notes in rank order with their sources, channels and scores (a list).

        Raises:
            ConfigurationError: ``mode="active"`` without a tool-calling ``llm``.
            InvalidInputError: ``as_of`` is naive or not a time, or is given with
                ``mode="active"``.
        """
        ns = validate_namespace(namespace)
        check_search(query, k, token_budget, min_confidence)
        when = check_as_of(as_of)
        settings = config or self.retrieval
        context = RetrievalContext(self.database, self.query_vectors, settings, self.llm)
        if check_mode(mode) == "active":
            if when is not None:
                raise InvalidInputError("as_of applies to passive search only")
            with track_usage() as usage:
                found = await active_notes(context, ns, query, k, token_budget, min_confidence)
            return await self._formal_layer.log_search(ns, query, found, usage)
        search: RetrievalInput = {
            "namespace": ns,
            "query": query,
            "k": k or settings.k_final,
            "token_budget": token_budget,
            "min_confidence": min_confidence,
            "as_of": when,
        }
        with track_usage() as usage:
            results = await self._passive(search, context)
        return await self._formal_layer.log_search(ns, query, results, usage)

    async def _passive(self, search: RetrievalInput, context: RetrievalContext) -> list[Any]:
        """The retrieval graph's results for ``search``, run again with deeper channels
        while an ``as_of`` search found fewer than k notes observed by then.
        """
        state = await self._retrieval_graph.ainvoke(search, context=context)
        while deeper := _deeper_search(search, state, context.config):
            context = RetrievalContext(self.database, self.query_vectors, deeper, self.llm)
            state = await self._retrieval_graph.ainvoke(search, context=context)
        return list(state["results"])

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

    async def aprofile(self, namespace: Sequence[str], subject: str) -> Profile:
        """What memory knows about ``subject``: per aspect its current values and history
        with their sources (see :meth:`ProfileLayer.profile`; unknown: an empty profile).
        """
        return await self.profiles.profile(namespace, subject)

    async def asubjects(self, namespace: Sequence[str]) -> list[SubjectSummary]:
        """Every subject with a profile in the namespace, by name."""
        return await self.profiles.subjects(namespace)

    async def awarm_up(self) -> None:
        """Wait until the models memory uses are loaded: the local embedder and, with
        profiles on, the English parse.

        Opening a memory starts loading them in a background thread (once per process),
        so that the first write or search does not wait for them; this waits for that
        load, e.g. at an application's start, and returns at once when it is done.

        Raises:
            ConfigurationError: A model's package is not installed.
        """
        if self._warm_up.done() and self._warm_up.exception() is not None:
            self._warm_up = start_warm_up(self.embeddings, parser=self.config.profiles)
        await wait_warm_up(self._warm_up)

    async def aflush(self) -> None:
        """Wait for background work (topic evolution) started by :meth:`aingest`."""
        await self._topics.flush()

    open = classmethod(sync_twin(aopen))
    ingest = sync_twin(aingest)
    ingest_many = sync_twin(aingest_many)
    evolve_topics = sync_twin(aevolve_topics)
    undo = sync_twin(aundo)
    unmerge = sync_twin(aunmerge)
    forget = sync_twin(aforget)
    rethread = sync_twin(arethread)
    search = sync_twin(asearch)
    feedback = sync_twin(afeedback)
    compact = sync_twin(acompact)
    restore = sync_twin(arestore)
    search_archived = sync_twin(asearch_archived)
    profile = sync_twin(aprofile)
    subjects = sync_twin(asubjects)
    flush = sync_twin(aflush)
    warm_up = sync_twin(awarm_up)


def _checked_observations(observations: Iterable[ObservationIn], limit: int) -> list[ObservationIn]:
    """The observations as a list, each checked before anything is written.

    Raises:
        InvalidInputError: One is not an ``ObservationIn`` or is malformed.
    """
    items = list(observations)
    for item in items:
        if not isinstance(item, ObservationIn):
            raise InvalidInputError(f"observations must be ObservationIn, got {item!r:.60}")
        checked_observation(
            item.text, item.key, item.speaker, item.event_time, item.metadata, limit
        )
    return items
