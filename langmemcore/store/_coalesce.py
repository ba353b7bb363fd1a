"""Concurrent store calls coalesced into combined batches (LangGraph's
``AsyncBatchedBaseStore`` pattern).

Every ``abatch`` (and so every ``aget`` / ``asearch`` / ``aput`` ...) of one event loop
joins a queue; one worker per loop takes what has gathered (whole calls, up to
``max_ops`` operations) and runs it as one batch: one transaction for the reads and
writes, one bulk construction for the puts. However many calls wait, the store uses a
bounded number of connections at a time. A call's result comes as soon as its part is
done: reads once the transaction commits, puts once their items are constructed.

Each call was checked before it joined the queue; if a combined batch fails on something
other than an unavailable database, each call in it runs again alone so that only the
call at fault gets the error.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from langgraph.store.base import Op, Result

from langmemcore._errors import DatabaseUnavailableError
from langmemcore.storage.items import ItemRef
from langmemcore.store._ops import PreparedPut

__all__ = ["Call", "Coalescer", "Construct", "Execute"]

Execute = Callable[
    [Sequence[Op], Sequence[PreparedPut]], Awaitable[tuple[list[Result], list[ItemRef]]]
]
"""Runs ops (with their checked puts) as one batch; returns the results in op order and
the items queued for construction."""

Construct = Callable[[list[ItemRef]], Awaitable[None]]
"""Constructs (or queues for the background) the items a batch queued."""


@dataclass
class Call:
    """One caller's batch: its ops, its checked puts and the future of its results."""

    ops: list[Op]
    puts: list[PreparedPut]
    future: asyncio.Future[list[Result]] = field(repr=False)

    @property
    def refs(self) -> set[ItemRef]:
        """The items this call puts or deletes."""
        return {(p.namespace, p.key) for p in self.puts}

    def resolve(self, results: list[Result]) -> None:
        """Hand the results over (unless the caller gave up waiting)."""
        if not self.future.done():
            self.future.set_result(results)

    def fail(self, exc: BaseException) -> None:
        """Hand the error over (unless the caller gave up waiting)."""
        if not self.future.done():
            self.future.set_exception(exc)


def _merged_puts(calls: Sequence[Call]) -> list[PreparedPut]:
    """The calls' puts in order; the last put of a key wins, as within one batch."""
    last: dict[ItemRef, PreparedPut] = {}
    for call in calls:
        for put in call.puts:
            last.pop((put.namespace, put.key), None)
            last[(put.namespace, put.key)] = put
    return list(last.values())


class Coalescer:
    """The queue and worker of one event loop.

    Args:
        execute: Runs a combined batch (see :data:`Execute`).
        construct: Constructs what a combined batch queued (see :data:`Construct`).
        max_ops: Operations per combined batch, at most (a single call larger than this
            runs alone).
    """

    def __init__(self, execute: Execute, construct: Construct, *, max_ops: int) -> None:
        self._execute = execute
        self._construct = construct
        self._max_ops = max_ops
        self._queue: deque[Call] = deque()
        self._worker: asyncio.Task[None] | None = None

    async def submit(self, ops: list[Op], puts: list[PreparedPut]) -> list[Result]:
        """Queue a checked call and wait for its results.

        Raises:
            Exception: What running the call raised.
        """
        loop = asyncio.get_running_loop()
        call = Call(ops, puts, loop.create_future())
        self._queue.append(call)
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._work())
        return await call.future

    def _take(self) -> list[Call]:
        """The calls gathered so far, whole, up to ``max_ops`` operations (at least one)."""
        calls: list[Call] = []
        size = 0
        while self._queue and (not calls or size + len(self._queue[0].ops) <= self._max_ops):
            call = self._queue.popleft()
            if not call.future.done():
                calls.append(call)
                size += len(call.ops)
        return calls

    async def _work(self) -> None:
        """Run combined batches until the queue is empty."""
        while self._queue:
            calls = self._take()
            try:
                await self._run(calls)
            except Exception as exc:
                for call in calls:
                    call.fail(exc)
            except BaseException:
                for call in [*calls, *self._queue]:
                    call.future.cancel()
                self._queue.clear()
                raise

    async def _run(self, calls: list[Call]) -> None:
        """Run calls as one batch; alone each, if together they fail on their input."""
        if not calls:
            return
        try:
            results, queued = await self._execute(
                [op for call in calls for op in call.ops], _merged_puts(calls)
            )
        except DatabaseUnavailableError:
            raise
        except Exception:
            if len(calls) == 1:
                raise
            for call in calls:
                try:
                    await self._run([call])
                except Exception as exc:
                    call.fail(exc)
            return
        await self._finish(calls, results, queued)

    async def _finish(
        self, calls: list[Call], results: list[Result], queued: list[ItemRef]
    ) -> None:
        """Hand the results over: at once to calls with nothing to construct, after the
        construction of ``queued`` to the others.
        """
        pending = set(queued)
        waiting: list[tuple[Call, list[Result]]] = []
        start = 0
        for call in calls:
            mine = results[start : start + len(call.ops)]
            start += len(call.ops)
            if pending & call.refs:
                waiting.append((call, mine))
            else:
                call.resolve(mine)
        if queued:
            await self._construct(queued)
        for call, mine in waiting:
            call.resolve(mine)
