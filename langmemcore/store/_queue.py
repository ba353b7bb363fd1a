"""The store's construction queue: the items whose memory a batch must bring in line.

A batch commits its items with their ``item_tasks`` rows; :class:`ItemQueue` then works
them off, in claims of up to :data:`~langmemcore.store._tasks.CLAIM_LIMIT` items built
together (:func:`~langmemcore.store._tasks.process_tasks`): before the batch returns, or
with ``background`` by one worker task per event loop. A construction that fails (the
connection dropped, the server restarted) leaves its items queued, and the loop's worker
retries them with exponential back-off (:data:`RETRY_FIRST_S` doubling up to
:data:`RETRY_MAX_S`) until the queue is empty, so no item waits for an explicit
:meth:`ItemQueue.flush` or a new store. The worker also resumes what an earlier process
left queued, and :meth:`ItemQueue.flush` waits for all of it, with progress when asked.

Log lines of failed construction name the error's class, with a message only where it
holds no values (:func:`~langmemcore._errors.safe_error_text`), never a driver's text
with SQL and parameters.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from langgraph.store.base import SearchItem

from langmemcore._errors import safe_error_text
from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.memory import Memory
from langmemcore.storage.items import ItemRef
from langmemcore.storage.repository import Repository
from langmemcore.store._flush import PROGRESS_EVERY_S, FlushProgress
from langmemcore.store._index import IndexSpec
from langmemcore.store._tasks import CLAIM_LIMIT, process_tasks

__all__ = ["RETRY_FIRST_S", "RETRY_MAX_S", "ItemQueue", "ItemSearchResults"]

_log = logging.getLogger("langmemcore.store")

RETRY_FIRST_S = 0.1
"""Seconds the worker waits before its first retry of a failed construction."""

RETRY_MAX_S = 30.0
"""The longest wait between two retries (each wait doubles the one before, up to this)."""


class ItemSearchResults(list[SearchItem]):
    """The items a ``search(query=...)`` found, and whether some may be missing.

    A plain ``list`` of ``SearchItem`` (what ``BaseStore.search`` returns), with the
    count of items of the searched namespaces still queued for construction: those
    have no notes yet, so the search cannot find them.

    Args:
        items: The items found, best first.
        pending: Items under the searched prefix still being built.

    Attributes:
        pending: Items under the searched prefix still being built when the search ran.
    """

    def __init__(self, items: Iterable[SearchItem], pending: int) -> None:
        super().__init__(items)
        self.pending = pending

    @property
    def incomplete(self) -> bool:
        """Whether items of the searched namespaces were still being built (the results
        may miss them).
        """
        return self.pending > 0


class ItemQueue:
    """Construction of a store's queued items.

    Args:
        memory: The memory the items are built into.
        spec: The store's index settings (the fields of speaker and time).
        background: Construct after the batch returns, in a worker task per event loop.

    Attributes:
        workers: The background worker of each event loop (done ones are replaced).
    """

    def __init__(self, memory: Memory, spec: IndexSpec, *, background: bool) -> None:
        self.memory = memory
        self.spec = spec
        self.background = background
        self.workers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self.failures = 0
        self._resumed = False

    @property
    def retrying(self) -> bool:
        """Whether the worker is waiting to retry a failed construction."""
        return self.failures > 0

    async def construct(self, queued: list[ItemRef]) -> None:
        """Construct the queued items together (in the background with ``background``);
        a failure is logged and leaves its items queued for the worker to retry.
        """
        if self.background:
            self._kick()
            return
        for start in range(0, len(queued), CLAIM_LIMIT):
            chunk = queued[start : start + CLAIM_LIMIT]
            try:
                await process_tasks(self.memory, self.spec, chunk, limit=len(chunk))
            except Exception as exc:
                _log.warning(
                    "construction of %d items failed (%s); they stay queued and are retried "
                    "in the background",
                    len(chunk),
                    safe_error_text(exc),
                )
                self._kick()

    async def resume(self) -> None:
        """Start working off tasks left queued in the database (by any process), once."""
        if self._resumed:
            return
        self._resumed = True
        if await self.pending():
            self._kick()

    async def pending(self, prefix: tuple[str, ...] | None = None) -> int:
        """How many item tasks are queued in the database (of namespaces at or below
        ``prefix`` when given).
        """
        async with Repository.open(self.memory.database) as repo:
            return await repo.pending_item_tasks(prefix)

    async def annotate(self, prefix: tuple[str, ...], found: list[SearchItem]) -> ItemSearchResults:
        """The results of a search under ``prefix`` with the count of items there still
        being built; a warning is logged when there are any (it names no namespace).
        """
        pending = await self.pending(prefix)
        if pending:
            _log.warning(
                "search results may be incomplete: %d items of the searched namespaces are "
                "still being built",
                pending,
            )
        return ItemSearchResults(found, pending)

    def _kick(self) -> None:
        loop = asyncio.get_running_loop()
        worker = self.workers.get(loop)
        if worker is None or worker.done():
            self.workers[loop] = loop.create_task(self._drain())

    async def _drain(self) -> None:
        """Work off the queue until it is empty; after a failure wait and retry, each wait
        twice the one before (from :data:`RETRY_FIRST_S` up to :data:`RETRY_MAX_S`).

        Tasks that another worker holds count as queued: the queue is empty only when
        none is left, so a worker that crashed elsewhere cannot strand its items.
        """
        while True:
            try:
                if await process_tasks(self.memory, self.spec):
                    self.failures = 0
                    continue
                if not await self.pending():
                    self.failures = 0
                    return
            except Exception as exc:
                self.failures += 1
                delay = min(RETRY_FIRST_S * 2 ** (self.failures - 1), RETRY_MAX_S)
                _log.warning(
                    "background construction failed (%s); its items stay queued, retry %d "
                    "in %.1f s",
                    safe_error_text(exc),
                    self.failures,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            await asyncio.sleep(RETRY_FIRST_S)  # the rest is held by other workers

    async def flush(self, progress: ProgressLike = None) -> None:
        """Wait until every queued item is reconciled with memory (this loop's worker,
        then whatever is still queued in the database), then for the memory's own
        background work. A worker waiting to retry a failed construction is not waited
        for: the flush constructs the items itself and raises the error if it fails
        again (the items stay queued and the worker keeps retrying).

        Args:
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)``
                callback called as queued items are reconciled.
        """
        tracker = FlushProgress(progress_callback(progress, "flush"))
        if tracker.report is not None:
            tracker.update(await self.pending())
        worker = self.workers.get(asyncio.get_running_loop())
        while worker is not None and not worker.done() and not self.retrying:
            await asyncio.wait({worker}, timeout=PROGRESS_EVERY_S)
            if tracker.report is not None:
                tracker.update(await self.pending())
        for _attempt in range(10_000):
            claimed = await process_tasks(self.memory, self.spec)
            if claimed and tracker.report is None:
                continue
            pending = await self.pending()
            tracker.update(pending)
            if not claimed:
                if not pending:
                    break
                await asyncio.sleep(0.05)
        tracker.update(0)
        await self.memory.aflush()
