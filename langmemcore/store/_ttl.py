"""The TTL sweeper: a thread the store holds, usable from sync and from async code.

``PostgresStore`` and ``AsyncPostgresStore`` differ in shape: the sync store's
``start_ttl_sweeper()`` returns a ``concurrent.futures.Future`` and ``stop_ttl_sweeper()``
a ``bool``; the async store's are coroutines (``await`` gives an ``asyncio.Task`` and a
``bool``). One :class:`~langmemcore.store.MemoryStore` serves both:

- ``start`` returns a :class:`SweeperFuture`, a ``concurrent.futures.Future`` that
  resolves when the sweeper stops (cancel it to stop the sweeper) and that can also be
  awaited: ``await store.start_ttl_sweeper()`` gives the same future back at once.
- ``stop`` returns a :class:`SweeperStop`. Called without a running event loop it waits
  for the thread (up to ``timeout``) before returning and is truthy when it stopped,
  like ``PostgresStore``'s ``bool``; called from async code it only asks the thread to
  stop, and ``await`` waits for it off the event loop and gives the ``bool``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Generator
from typing import Any

from langmemcore._errors import safe_error_text

__all__ = ["SweeperFuture", "SweeperStop", "TTLSweeper"]

_log = logging.getLogger("langmemcore.store")


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class SweeperFuture(concurrent.futures.Future[None]):
    """Resolves when the sweeper stops; ``await`` it to get it back without waiting."""

    def __await__(self) -> Generator[Any, None, SweeperFuture]:
        """Awaiting gives the future itself (as ``await AsyncPostgresStore.start_ttl_sweeper()``
        gives its task); wait for the sweeper's end with ``asyncio.wrap_future``.
        """

        async def itself() -> SweeperFuture:
            return self

        return itself().__await__()


class SweeperStop:
    """The outcome of stopping the sweeper: truthy (or, awaited, ``True``) once stopped.

    Args:
        thread: The sweeper thread (``None``: none was running).
        timeout: Seconds to wait for it (``None``: as long as it takes).
    """

    def __init__(self, thread: threading.Thread | None, timeout: float | None) -> None:
        self._thread = thread
        self._timeout = timeout
        self._stopped: bool | None = None

    def wait(self) -> bool:
        """Wait for the thread (once, up to the timeout); ``True`` if it stopped."""
        if self._stopped is None:
            thread = self._thread
            if thread is not None:
                thread.join(self._timeout)
            self._stopped = thread is None or not thread.is_alive()
            if not self._stopped:
                _log.warning("timed out waiting for the TTL sweeper thread to stop")
        return self._stopped

    def __bool__(self) -> bool:
        return self.wait()

    def __await__(self) -> Generator[Any, None, bool]:
        return asyncio.to_thread(self.wait).__await__()

    def __repr__(self) -> str:
        return f"SweeperStop(stopped={self._stopped!r})"


class TTLSweeper:
    """A daemon thread calling ``sweep`` every ``sweep_interval_minutes``.

    Args:
        sweep: Deletes expired items and returns how many (called from the thread).
    """

    def __init__(self, sweep: Callable[[], int]) -> None:
        self._sweep = sweep
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self, ttl_config: Any, sweep_interval_minutes: float | None) -> SweeperFuture:
        """Start the thread unless it runs (or there is no TTL config: nothing to sweep).

        Args:
            ttl_config: The store's ``TTLConfig`` or ``None``.
            sweep_interval_minutes: Minutes between sweeps (default: the TTL config's
                ``sweep_interval_minutes``, else 5).

        Returns:
            A future that resolves when the sweeper stops; cancel it to stop the sweeper.
        """
        future = SweeperFuture()
        if not ttl_config:
            future.set_result(None)
            return future
        if self._thread is not None and self._thread.is_alive():
            _log.info("TTL sweeper thread is already running")
        else:
            self._stop = threading.Event()
            interval = float(
                sweep_interval_minutes or ttl_config.get("sweep_interval_minutes") or 5
            )
            self._thread = threading.Thread(
                target=self._loop,
                args=(self._stop, interval, future),
                daemon=True,
                name="langmemcore-ttl-sweeper",
            )
            self._thread.start()
        stop = self._stop
        future.add_done_callback(lambda f: stop.set() if f.cancelled() else None)
        return future

    def _loop(self, stop: threading.Event, interval: float, future: SweeperFuture) -> None:
        while not stop.wait(interval * 60):
            try:
                swept = self._sweep()
                if swept:
                    _log.info("store swept %d expired items", swept)
            except Exception as exc:
                _log.warning("store TTL sweep failed (%s)", safe_error_text(exc))
        if not future.done():
            future.set_result(None)

    def stop(self, timeout: float | None = None) -> SweeperStop:
        """Ask the thread to stop; outside an event loop, also wait for it.

        Args:
            timeout: Seconds to wait for it (``None``: as long as it takes).

        Returns:
            Truthy (awaited: ``True``) if it stopped or was not running, falsy
            (``False``) on timeout.
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            thread = None
        else:
            self._stop.set()
        outcome = SweeperStop(thread, timeout)
        if not _in_event_loop():
            outcome.wait()
        return outcome
