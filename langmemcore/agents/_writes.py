"""Writes that run in the background, on the loop bridge, so an agent's reply is not
delayed; nothing is dropped silently: a failed write is logged when it fails and raised by
the next :meth:`BackgroundWrites.flush` / :meth:`BackgroundWrites.aflush`.

Writes to one namespace run one after another, in the order they were submitted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable

from langmemcore._bridge import run_sync, submit

__all__ = ["BackgroundWrites"]

logger = logging.getLogger("langmemcore.agents")

Write = Callable[[], Awaitable[object]]


class BackgroundWrites:
    """Pending writes and the failures not yet reported."""

    def __init__(self) -> None:
        self._pending: set[concurrent.futures.Future[None]] = set()
        self._failures: list[BaseException] = []
        self._guard = threading.Lock()
        self._chains: dict[tuple[str, ...], asyncio.Lock] = {}

    async def _run(self, namespace: tuple[str, ...], write: Write) -> None:
        """Run one write after the namespace's earlier ones (on the loop bridge)."""
        chain = self._chains.setdefault(namespace, asyncio.Lock())
        async with chain:
            await write()

    def _done(self, future: concurrent.futures.Future[None]) -> None:
        with self._guard:
            self._pending.discard(future)
            if future.cancelled():
                return
            error = future.exception()
            if error is None:
                return
            self._failures.append(error)
        logger.error("memory write failed: %s: %s", type(error).__name__, error)

    def submit(self, namespace: tuple[str, ...], write: Write) -> None:
        """Start ``write`` in the background, after the namespace's pending writes."""
        future = submit(self._run(namespace, write))
        with self._guard:
            self._pending.add(future)
        future.add_done_callback(self._done)

    def _raise_failures(self) -> None:
        with self._guard:
            failures, self._failures = self._failures, []
        if failures:
            error = failures[0]
            if len(failures) > 1:
                error.add_note(f"{len(failures) - 1} more memory write(s) failed (see the log)")
            raise error

    async def aflush(self) -> None:
        """Wait until every write submitted so far is done.

        Raises:
            Exception: The first write that failed since the last flush (each failure is
                raised once).
        """
        while True:
            with self._guard:
                pending = list(self._pending)
            if not pending:
                break
            await asyncio.wait([asyncio.wrap_future(f) for f in pending])
        self._raise_failures()

    def flush(self) -> None:
        """Sync twin of :meth:`aflush`."""
        run_sync(self.aflush())
