"""The store's construction queue: the items whose memory a batch must bring in line.

A batch commits its items with their ``item_tasks`` rows; :class:`ItemQueue` then works
them off, in claims of up to :data:`~langmemcore.store._tasks.CLAIM_LIMIT` items built
together (:func:`~langmemcore.store._tasks.process_tasks`): before the batch returns, or
with ``background`` by one worker task per event loop. It also resumes what an earlier
process left queued, and :meth:`ItemQueue.flush` waits for all of it, with progress when
asked.
"""

from __future__ import annotations

import asyncio
import logging

from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.memory import Memory
from langmemcore.storage.items import ItemRef
from langmemcore.storage.repository import Repository
from langmemcore.store._flush import PROGRESS_EVERY_S, FlushProgress
from langmemcore.store._index import IndexSpec
from langmemcore.store._tasks import CLAIM_LIMIT, process_tasks

__all__ = ["ItemQueue"]

_log = logging.getLogger("langmemcore.store")


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
        self._resumed = False

    async def construct(self, queued: list[ItemRef]) -> None:
        """Construct the queued items together (in the background with ``background``);
        a failure is logged and leaves its items queued.
        """
        if self.background:
            self._kick()
            return
        for start in range(0, len(queued), CLAIM_LIMIT):
            chunk = queued[start : start + CLAIM_LIMIT]
            try:
                await process_tasks(self.memory, self.spec, chunk, limit=len(chunk))
            except Exception:
                _log.exception("construction of %d items failed; they stay queued", len(chunk))

    async def resume(self) -> None:
        """Start working off tasks left queued in the database (by any process), once."""
        if self._resumed:
            return
        self._resumed = True
        if await self.pending():
            self._kick()

    async def pending(self) -> int:
        """How many item tasks are queued in the database."""
        async with Repository.open(self.memory.database) as repo:
            return await repo.pending_item_tasks()

    def _kick(self) -> None:
        loop = asyncio.get_running_loop()
        worker = self.workers.get(loop)
        if worker is None or worker.done():
            self.workers[loop] = loop.create_task(self._drain())

    async def _drain(self) -> None:
        while True:
            try:
                if not await process_tasks(self.memory, self.spec):
                    return
            except Exception:
                _log.exception("background construction failed; its items stay queued")
                return

    async def flush(self, progress: ProgressLike = None) -> None:
        """Wait until every queued item is reconciled with memory (this loop's worker,
        then whatever is still queued in the database), then for the memory's own
        background work.

        Args:
            progress: ``True`` for a progress bar on stderr, or a ``(done, total)``
                callback called as queued items are reconciled.
        """
        tracker = FlushProgress(progress_callback(progress, "flush"))
        if tracker.report is not None:
            tracker.update(await self.pending())
        worker = self.workers.get(asyncio.get_running_loop())
        if worker is not None:
            while tracker.report is not None and not worker.done():
                await asyncio.wait({worker}, timeout=PROGRESS_EVERY_S)
                tracker.update(await self.pending())
            await worker
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
