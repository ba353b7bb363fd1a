"""``MemoryStore``: a LangGraph ``BaseStore`` whose searches go through memory.

``get`` returns exactly what was put. ``put`` stores the item and queues its indexed text
for the construction graph in the same transaction; construction runs before ``put``
returns, or in the background with ``background=True`` (``flush()`` waits for it).
Deleting, replacing or expiring an item repairs the memory built from it.
``search(query=...)`` ranks items by their notes through the retrieval graph.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from langmemcore._bridge import run_sync
from langmemcore._errors import ConfigurationError
from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.embeddings import EmbeddingsLike
from langmemcore.memory import Memory
from langmemcore.storage.items import ItemRef
from langmemcore.storage.repository import Repository
from langmemcore.store._checked import CheckedNamespaces
from langmemcore.store._coalesce import Coalescer
from langmemcore.store._feedback import settle_items
from langmemcore.store._flush import PROGRESS_EVERY_S, FlushProgress
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
from langmemcore.store._tasks import CLAIM_LIMIT, process_tasks, search_by_query
from langmemcore.store._ttl import TTLSweeper

__all__ = ["MemoryStore"]

_log = logging.getLogger("langmemcore.store")

IndexArg = Mapping[str, Any] | Literal[False] | None

MAX_BATCH_OPS = 10_000
"""Operations of concurrent calls run together in one batch, at most."""


class MemoryStore(TTLSweeper, CheckedNamespaces, BaseStore):
    """LangGraph store backed by langmemcore's memory (Postgres + pgvector).

    Args:
        memory: The memory items are written to and searched through.
        index: ``None`` (index every string in a value), ``False`` (plain key-value
            store: ``query`` is ignored) or an ``IndexConfig``-style mapping whose
            ``fields`` name the paths to index (``"text"``, ``"a.b"``, ``"items[*].t"``).
        ttl: LangGraph ``TTLConfig``: ``default_ttl`` (minutes), ``refresh_on_read``,
            ``omit_expired``, ``sweep_interval_minutes``.
        background: Run construction after ``put`` returns (``flush()`` waits for it);
            the item and its pending task are committed by ``put`` either way.
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
        self.ttl_config = TTLConfig(**ttl) if ttl else None
        self.background = background
        self._ttl_stop_event = threading.Event()
        self._ttl_sweeper_thread = None
        self._workers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self._coalescers: dict[asyncio.AbstractEventLoop, Coalescer] = {}
        self._resumed = False

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
    ) -> MemoryStore:
        """Open a store on ``url`` (else ``DATABASE_URL``, else the embedded server) and
        resume construction that an earlier process left pending.

        Raises:
            MigrationRequiredError: The schema is missing or behind head.
            ConfigurationError: The embedder's dimensions differ from the schema's.
        """
        memory = await Memory.aopen(url, embeddings=embeddings, llm=llm)
        store = cls(memory, index=index, ttl=ttl, background=background)
        await store._resume()
        return store

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        embeddings: EmbeddingsLike | Embeddings = None,
        llm: BaseChatModel | None = None,
        index: IndexArg = None,
        ttl: TTLConfig | None = None,
        background: bool = False,
    ) -> MemoryStore:
        """Sync twin of :meth:`aopen`."""
        return run_sync(
            cls.aopen(
                url, embeddings=embeddings, llm=llm, index=index, ttl=ttl, background=background
            )
        )

    @property
    def _omit_expired(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired"))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations (through the loop bridge); see :meth:`abatch`."""
        return run_sync(self.abatch(list(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations: reads first (on the state before the batch), then the puts
        in one transaction, then construction for the items whose text changed.

        Batches that arrive together (from concurrent tasks) run as one (see
        :mod:`langmemcore.store._coalesce`): their puts are written in one transaction
        and constructed together.

        Raises:
            InvalidNamespaceError: A namespace breaks LangGraph's rules.
            InvalidInputError: A value that cannot be stored (not a dict, not JSON, NUL
                bytes, indexed text over ``max_observation_chars``), an unknown op.
            DatabaseUnavailableError: The database cannot be reached; nothing was written.
        """
        ops = list(ops)
        for op in ops:
            check_op(op)
        puts = prepare_puts(
            [op for op in ops if isinstance(op, PutOp)],
            self.index,
            self.memory.config.max_observation_chars,
        )
        loop = asyncio.get_running_loop()
        coalescer = self._coalescers.get(loop)
        if coalescer is None:
            coalescer = Coalescer(self._execute, self._construct, max_ops=MAX_BATCH_OPS)
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
        if not self._resumed:
            await self._resume()
        results: list[Result] = [None] * len(ops)
        omit = self._omit_expired
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp) and op.query and self.index.enabled:
                results[i] = await search_by_query(self.memory, op, omit_expired=omit)
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

    async def _construct(self, queued: list[ItemRef]) -> None:
        """Construct the queued items together (in the background with ``background``);
        a failure is logged and leaves its items queued.
        """
        if self.background:
            self._kick()
            return
        for start in range(0, len(queued), CLAIM_LIMIT):
            chunk = queued[start : start + CLAIM_LIMIT]
            try:
                await process_tasks(self.memory, chunk, limit=len(chunk))
            except Exception:
                _log.exception("construction of %d items failed; they stay queued", len(chunk))

    async def _resume(self) -> None:
        """Start working off tasks left queued in the database (by any process)."""
        self._resumed = True
        async with Repository.open(self.memory.database) as repo:
            pending = await repo.pending_item_tasks()
        if pending:
            self._kick()

    def _kick(self) -> None:
        loop = asyncio.get_running_loop()
        worker = self._workers.get(loop)
        if worker is None or worker.done():
            self._workers[loop] = loop.create_task(self._drain())

    async def _drain(self) -> None:
        while True:
            try:
                if not await process_tasks(self.memory):
                    return
            except Exception:
                _log.exception("background construction failed; its items stay queued")
                return

    async def _pending(self) -> int:
        async with Repository.open(self.memory.database) as repo:
            return await repo.pending_item_tasks()

    async def aflush(self, *, progress: ProgressLike = None) -> None:
        """Wait until every queued item is reconciled with memory (this process's
        background work, then whatever is still queued in the database).

        Args:
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)``
                callback called as queued items are reconciled.
        """
        tracker = FlushProgress(progress_callback(progress, "flush"))
        if tracker.report is not None:
            tracker.update(await self._pending())
        loop = asyncio.get_running_loop()
        worker = self._workers.get(loop)
        if worker is not None:
            while tracker.report is not None and not worker.done():
                await asyncio.wait({worker}, timeout=PROGRESS_EVERY_S)
                tracker.update(await self._pending())
            await worker
        for _attempt in range(10_000):
            claimed = await process_tasks(self.memory)
            if claimed and tracker.report is None:
                continue
            pending = await self._pending()
            tracker.update(pending)
            if not claimed:
                if not pending:
                    break
                await asyncio.sleep(0.05)
        tracker.update(0)
        await self.memory.aflush()

    def flush(self, *, progress: ProgressLike = None) -> None:
        """Sync twin of :meth:`aflush`."""
        run_sync(self.aflush(progress=progress))

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
            await self._construct(indexed)
        return len(gone)

    def sweep_ttl(self) -> int:
        """Sync twin of :meth:`asweep_ttl`."""
        return run_sync(self.asweep_ttl())

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

    def close(self) -> None:
        """Stop the TTL sweeper and wait for background construction."""
        self.stop_ttl_sweeper()
        self.flush()

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await asyncio.to_thread(self.stop_ttl_sweeper)
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
