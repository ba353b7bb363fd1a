"""``MemoryStore``: a LangGraph ``BaseStore`` whose searches go through memory.

``get`` returns exactly what was put. ``put`` stores the item and queues its indexed text
for the construction graph in the same transaction; construction runs before ``put``
returns, or in the background with ``background=True`` (``flush()`` waits for it).
Deleting, replacing or expiring an item repairs the memory built from it.
``search(query=...)`` ranks items by their notes (one namespace through the retrieval
graph, several at once by the vector and full-text channels, see :class:`MemoryStore`):
each result's ``score`` is its best note's retrieval score and results come in descending
score order (ties: most recently updated first); ``limit`` counts items, and each result
is a :class:`~langmemcore.store.MemorySearchItem` whose ``notes`` (and ``sources``) are
the evidence that ranked it. A search without query (``query=None``) has ``score``
``None`` and lists the most recently updated items first, as ``PostgresStore`` does; an
empty or blank query raises ``InvalidInputError``, as ``Memory.asearch`` does.

One view of a namespace: the store also sees, as items, the observations that
:meth:`Memory.aingest <langmemcore.Memory.aingest>` / ``aingest_many`` wrote in it (value
``{"text", "speaker", "event_time"}``, keyed by the observation key) in ``get``,
``search`` and ``list_namespaces``. A put or delete of such a key replaces the
observation: a put's item shadows it at once, and the construction that follows (before
the call returns, unless ``background=True``) forgets it. ``Memory`` searches find what
the store put (observation key ``"item:" + key``). A put whose indexed fields hold only
empty or blank strings raises ``InvalidInputError``, as ``Memory`` does for empty text
(``index=False`` stores such a value without memory).

A construction that fails (the connection dropped after the put committed) is retried in
the background until it succeeds; meanwhile ``pending()`` counts the items waiting, and a
``search(query=...)`` returns an :class:`~langmemcore.store._queue.ItemSearchResults`
(a list) whose ``incomplete`` / ``pending`` say that items of the searched namespaces are
still being built (and logs a warning).

Memory as of a time: ``store.as_of(t)`` is a read-only view of the same store whose
``search(query=...)`` ranks items by memory as it stood at ``t`` (see ``as_of`` of
:meth:`Memory.asearch <langmemcore.Memory.asearch>`): an item whose observations were all
made after ``t`` is not found, and a result's notes keep only the sources observed by
then. ``BaseStore.search`` has no such argument, so the time belongs to the view; its
``get``, plain ``search`` and ``list_namespaces`` read the items as they are, and its
``put`` / ``delete`` raise ``InvalidInputError``.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from langmemcore._bridge import run_sync, sync_twin
from langmemcore._errors import ConfigurationError, InvalidInputError
from langmemcore._progress import ProgressLike
from langmemcore._validate import check_as_of
from langmemcore.config import ConstructionConfig, LLMConfig, RetrievalConfig
from langmemcore.embeddings import EmbeddingsLike, embedding_dims
from langmemcore.formal.config import FormalConfig
from langmemcore.memory import Memory
from langmemcore.profiles.profile import Profile
from langmemcore.storage.items import ItemRef
from langmemcore.storage.repository import Repository
from langmemcore.store._checked import CheckedNamespaces, running_loop
from langmemcore.store._coalesce import Coalescer
from langmemcore.store._feedback import settle_items
from langmemcore.store._index import IndexSpec, index_spec
from langmemcore.store._ops import (
    PreparedPut,
    apply_puts,
    check_op,
    list_namespaces,
    prepare_puts,
    run_gets,
    search_plain,
)
from langmemcore.store._queue import ItemQueue
from langmemcore.store._search import search_by_query
from langmemcore.store._ttl import SweeperFuture, SweeperStop, TTLSweeper

__all__ = ["MemoryStore"]

IndexArg = Mapping[str, Any] | Literal[False] | None

MAX_BATCH_OPS = 10_000
"""Operations of concurrent calls run together in one batch, at most."""


class MemoryStore(CheckedNamespaces, BaseStore):
    """LangGraph store backed by langmemcore's memory (Postgres + pgvector).

    Args:
        memory: The memory items are written to and searched through.
        index: ``None`` (index every string in a value), ``False`` (plain key-value
            store: ``query`` is ignored) or an ``IndexConfig``-style mapping whose
            ``fields`` name the paths to index (``"text"``, ``"a.b"``, ``"items[*].t"``)
            and whose ``speaker`` / ``time`` name the fields holding a put's speaker and
            event time (a dotted path, or ``False`` for none). By default the speaker
            comes from a ``"speaker"`` field, a LangChain message's ``name`` or role, and
            the time from ``"time"`` / ``"event_time"`` / ``"timestamp"`` (ISO 8601 or
            POSIX seconds; naive times are UTC), else it is the put's time.
        ttl: LangGraph ``TTLConfig``: ``default_ttl`` (minutes), ``refresh_on_read``,
            ``omit_expired``, ``sweep_interval_minutes``.
        background: Run construction after ``put`` returns (``flush()`` waits for it);
            the item and its pending task are committed by ``put`` either way.

    A query search over a prefix covering several namespaces with indexed items ranks
    all their notes in one pass by the dense vector and full-text channels (fused by
    reciprocal rank fusion, so scores compare across namespaces); the per-namespace
    channels (topics, keywords, neighbours, the refinement loop, ordering by validity)
    run when the prefix covers one namespace.

    Sync calls (``get``, ``put``, ``search``, ``batch``, ...) from the event loop the
    store was created on raise ``asyncio.InvalidStateError``, as with LangGraph's
    ``AsyncPostgresStore``: use the ``a``-prefixed twins there.
    """

    supports_ttl: bool = True

    def __init__(
        self,
        memory: Memory,
        *,
        index: IndexArg = None,
        ttl: TTLConfig | None = None,
        background: bool = False,
    ) -> None:
        if ttl is not None and not isinstance(ttl, Mapping):
            raise ConfigurationError(f"ttl must be a TTLConfig mapping, got {ttl!r}")
        self.memory = memory
        self.index: IndexSpec = index_spec(index)
        self._index_arg = index
        self.ttl_config = TTLConfig(**ttl) if ttl else None
        self._queue = ItemQueue(memory, self.index, background=background)
        self._sweeper = TTLSweeper(self.sweep_ttl)
        self._loop = running_loop()
        self._coalescers: dict[asyncio.AbstractEventLoop, Coalescer] = {}
        self._as_of: datetime | None = None

    @functools.cached_property
    def index_config(self) -> IndexConfig | None:
        """LangGraph's ``index_config``: the settings of semantic search, ``None`` for a
        store without it (``index=False``). ``dims`` and ``embed`` are the memory's
        embedder; ``fields`` default to ``["$"]``.
        """
        if not self.index.enabled:
            return None
        config: dict[str, Any] = dict(self._index_arg or {})
        config["dims"] = embedding_dims(self.memory.embeddings)
        config["embed"] = self.memory.embeddings
        config["fields"] = list(self.index.fields)
        return cast(IndexConfig, config)

    @classmethod
    async def aopen(
        cls,
        url: str | None = None,
        *,
        embeddings: EmbeddingsLike = None,
        llm: BaseChatModel | None = None,
        index: IndexArg = None,
        ttl: TTLConfig | None = None,
        background: bool = False,
        construction: ConstructionConfig | None = None,
        retrieval: RetrievalConfig | None = None,
        formal: FormalConfig | None = None,
        llm_config: LLMConfig | None = None,
    ) -> MemoryStore:
        """Open a store on ``url`` (else ``DATABASE_URL``, else the embedded server) and
        resume construction that an earlier process left pending.

        ``embeddings``, ``llm``, ``retrieval``, ``formal`` and ``llm_config`` are those of
        :meth:`Memory.aopen <langmemcore.Memory.aopen>`, ``construction`` its ``config``;
        they go to the memory the store builds.

        Raises:
            MigrationRequiredError: The schema is missing or behind head.
            ConfigurationError: The embedder's dimensions differ from the schema's.
        """
        memory = await Memory.aopen(
            url,
            embeddings=embeddings,
            llm=llm,
            config=construction,
            retrieval=retrieval,
            formal=formal,
            llm_config=llm_config,
        )
        store = cls(memory, index=index, ttl=ttl, background=background)
        await store._queue.resume()
        return store

    open = classmethod(sync_twin(aopen))

    def as_of(self, when: datetime | str) -> MemoryStore:
        """A read-only view of this store whose searches by query see memory as it stood
        at ``when`` (a timezone-aware ``datetime`` or ISO 8601 string); see the module
        docstring. The view shares the store's memory and queue: close the store, not
        the view.

        Raises:
            InvalidInputError: ``when`` is naive, malformed or ``None``.
        """
        reference = check_as_of(when)
        if reference is None:
            raise InvalidInputError("as_of needs a time, got None")
        view = copy.copy(self)
        view._as_of = reference
        view._coalescers = {}
        return view

    @property
    def reference_time(self) -> datetime | None:
        """The time this view searches at (``None``: now, a store that is not a view)."""
        return self._as_of

    @property
    def _omit_expired(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired"))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations (through the loop bridge); see :meth:`abatch`."""
        self._check_loop("batch")
        return run_sync(self.abatch(list(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations: reads first (on the state before the batch), then the puts
        in one transaction, then construction for the items whose text changed.

        Batches that arrive together (from concurrent tasks) run as one (see
        :mod:`langmemcore.store._coalesce`): their puts are written in one transaction
        and constructed together, each item with its own speaker and time.

        Raises:
            InvalidNamespaceError: A namespace breaks LangGraph's rules.
            InvalidInputError: A value that cannot be stored (not a dict, not JSON, NUL
                bytes, indexed fields holding only blank strings, indexed text over
                ``max_observation_chars``), an empty or blank query, an unknown op.
            DatabaseUnavailableError: The database cannot be reached, or no connection
                came free within ``Database.pool_timeout``; nothing was written.
        """
        ops = list(ops)
        for op in ops:
            check_op(op)
        if self._as_of is not None and any(isinstance(op, PutOp) for op in ops):
            raise InvalidInputError("a store view as of a time is read-only: put on the store")
        puts = prepare_puts(
            [op for op in ops if isinstance(op, PutOp)],
            self.index,
            self.memory.config.max_observation_chars,
        )
        loop = asyncio.get_running_loop()
        coalescer = self._coalescers.get(loop)
        if coalescer is None:
            coalescer = Coalescer(self._execute, self._queue.construct, max_ops=MAX_BATCH_OPS)
            self._coalescers[loop] = coalescer
        return await coalescer.submit(ops, puts)

    async def _execute(
        self, ops: Sequence[Op], puts: Sequence[PreparedPut]
    ) -> tuple[list[Result], list[ItemRef]]:
        """Run checked ops: searches by query, then one transaction for the other reads
        and the puts.

        Returns:
            The results in op order, and the items queued for construction.
        """
        await self._queue.resume()
        results: list[Result] = [None] * len(ops)
        omit = self._omit_expired
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp) and op.query and self.index.enabled:
                found = await search_by_query(self.memory, op, omit_expired=omit, as_of=self._as_of)
                results[i] = await self._queue.annotate(op.namespace_prefix, found)
        async with Repository.open(self.memory.database) as repo:
            gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
            if gets:
                for i, item in (await run_gets(repo, gets, omit_expired=omit)).items():
                    results[i] = item
            plain = [
                (i, op)
                for i, op in enumerate(ops)
                if isinstance(op, SearchOp) and not (op.query and self.index.enabled)
            ]
            if plain:
                for i, found in (await search_plain(repo, plain, omit_expired=omit)).items():
                    results[i] = found
            for i, op in enumerate(ops):
                if isinstance(op, ListNamespacesOp):
                    results[i] = await list_namespaces(repo, op, omit_expired=omit)
            queued = await apply_puts(repo, puts)
        return results, queued

    @property
    def background(self) -> bool:
        """Whether construction runs after ``put`` returns (``flush()`` waits for it)."""
        return self._queue.background

    async def apending(self, namespace_prefix: tuple[str, ...] = ()) -> int:
        """How many items are queued for construction (put, replaced, deleted or expired
        but not yet reconciled with memory), in the namespaces at or below
        ``namespace_prefix`` (all by default), counted over every process using the
        database.
        """
        return await self._queue.pending(tuple(namespace_prefix) or None)

    pending = sync_twin(apending)

    async def aflush(self, *, progress: ProgressLike = None) -> None:
        """Wait until every queued item is reconciled with memory (this process's
        background work, then whatever is still queued in the database).

        Args:
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)``
                callback called as queued items are reconciled.
        """
        await self._queue.flush(progress)

    def flush(self, *, progress: ProgressLike = None) -> None:
        """Sync twin of :meth:`aflush`."""
        run_sync(self.aflush(progress=progress))

    async def awarm_up(self) -> None:
        """Wait until the models the store's memory uses are loaded (see
        :meth:`Memory.awarm_up <langmemcore.Memory.awarm_up>`; opening the store started
        loading them in the background).
        """
        await self.memory.awarm_up()

    async def asweep_ttl(self) -> int:
        """Delete expired items now and queue the repair of their memory.

        Returns:
            How many items were deleted.
        """
        async with Repository.open(self.memory.database) as repo:
            gone = await repo.sweep_expired_items()
            indexed = [ref for ref, text in gone if text is not None]
            if indexed:
                await repo.queue_item_tasks(indexed)
        if indexed:
            await self._queue.construct(indexed)
        return len(gone)

    def sweep_ttl(self) -> int:
        """Sync twin of :meth:`asweep_ttl`."""
        return run_sync(self.asweep_ttl())

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> SweeperFuture:
        """Periodically delete expired items (and repair the memory built from them) in a
        daemon thread; ``await store.start_ttl_sweeper()`` works too (see
        :class:`~langmemcore.store._ttl.SweeperFuture`).

        Args:
            sweep_interval_minutes: Minutes between sweeps (default: the TTL config's
                ``sweep_interval_minutes``, else 5).

        Returns:
            A future that resolves when the sweeper stops; cancel it to stop the sweeper.
        """
        return self._sweeper.start(self.ttl_config, sweep_interval_minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> SweeperStop:
        """Stop the sweeper thread: from sync code this waits for it, from async code
        ``await store.stop_ttl_sweeper()`` does (see
        :class:`~langmemcore.store._ttl.SweeperStop`).

        Args:
            timeout: Seconds to wait for it (``None``: as long as it takes).

        Returns:
            Truthy (awaited: ``True``) if it stopped or was not running, else falsy.
        """
        return self._sweeper.stop(timeout)

    async def afeedback(
        self, items: Sequence[Item], outcome: float = 1.0, *, query: str
    ) -> dict[int, float]:
        """Settle a query search: the answer used ``items`` and had ``outcome``.

        Updates the confidence of the items' notes (the memory's Beta rule) and records
        them as used by the newest logged search of ``query`` in each item's namespace,
        which capacity compaction then keeps.

        Args:
            items: Items from ``search(query=...)`` that the answer used.
            outcome: 1 for a right answer, 0 for a wrong one, or a grade in between.
            query: The query of that search.

        Returns:
            The new confidence of each settled note.
        """
        return await settle_items(self.memory, items, query, outcome)

    def feedback(
        self, items: Sequence[Item], outcome: float = 1.0, *, query: str
    ) -> dict[int, float]:
        """Sync twin of :meth:`afeedback`."""
        return run_sync(self.afeedback(items, outcome, query=query))

    async def aprofile(self, namespace: tuple[str, ...], subject: str) -> Profile:
        """What memory knows about ``subject`` from the items of ``namespace`` (see
        :meth:`Memory.aprofile`; an unknown subject gets an empty profile).
        """
        return await self.memory.aprofile(namespace, subject)

    profile = sync_twin(aprofile)
    warm_up = sync_twin(awarm_up)

    def close(self) -> None:
        """Stop the TTL sweeper and wait for background construction (a view as of a
        time leaves both to its store).
        """
        if self._as_of is not None:
            return
        self.stop_ttl_sweeper()
        self.flush()

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        if self._as_of is not None:
            return
        await self.stop_ttl_sweeper()
        await self.aflush()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> MemoryStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
