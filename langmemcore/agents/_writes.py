"""Writes that run in the background, on the loop bridge, so an agent's reply is not
delayed; nothing is dropped silently: a failed write is logged when it fails and raised by
the next :meth:`BackgroundWrites.flush` / :meth:`BackgroundWrites.aflush`.

Writes to one namespace run one after another, in the order they were submitted. At
interpreter exit, writes still pending are waited for (up to :data:`EXIT_WAIT_S`) before the
loop bridge stops; any left after that are logged as abandoned.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable

from langmemcore._bridge import run_sync, submit

__all__ = ["EXIT_WAIT_S", "BackgroundWrites"]

logger = logging.getLogger("langmemcore.agents")

Write = Callable[[], Awaitable[object]]

EXIT_WAIT_S = 120.0
"""Seconds the interpreter's exit waits for pending memory writes."""

_live: weakref.WeakSet[BackgroundWrites] = weakref.WeakSet()
_exit_hook = threading.Lock()
_exit_hook_set = False


def _drain_at_exit() -> None:
    """Wait for every pending write."""
    for writes in list(_live):
        writes.wait_at_exit(EXIT_WAIT_S)


def _hook_exit() -> None:
    global _exit_hook_set
    with _exit_hook:
        if not _exit_hook_set:
            # A write needs the thread pools (the embedder runs in one), which refuse new
            # work once the interpreter's thread shutdown begins, before atexit handlers:
            # register with the threading module's exit hooks, which run first and in
            # reverse order, so this one runs before the pools close.
            register = getattr(threading, "_register_atexit", atexit.register)
            register(_drain_at_exit)
            _exit_hook_set = True


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
        _hook_exit()
        _live.add(self)
        with self._guard:
            self._pending.add(future)
        future.add_done_callback(self._done)

    def wait_at_exit(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the pending writes; log those left."""
        with self._guard:
            pending = list(self._pending)
        _done, left = concurrent.futures.wait(pending, timeout=timeout)
        if left:
            logger.error("%d memory write(s) still pending at exit were abandoned", len(left))

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
