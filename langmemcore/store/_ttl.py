"""The TTL sweeper thread, with ``PostgresStore``'s interface and behaviour.

``start_ttl_sweeper()`` starts a daemon thread that calls ``sweep_ttl()`` every
``sweep_interval_minutes`` (argument, else the TTL config's, else 5) and returns a future
that resolves when the thread stops; cancelling the future stops it too.
``stop_ttl_sweeper(timeout)`` stops it and says whether it did in time.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from typing import Any

__all__ = ["TTLSweeper"]

_log = logging.getLogger("langmemcore.store")


class TTLSweeper:
    """Mixin: a background thread calling ``self.sweep_ttl()`` periodically.

    The host class provides ``ttl_config`` (LangGraph's ``TTLConfig`` or ``None``) and
    ``sweep_ttl() -> int``.
    """

    ttl_config: Any
    _ttl_sweeper_thread: threading.Thread | None = None
    _ttl_stop_event: threading.Event

    def sweep_ttl(self) -> int:  # pragma: no cover - provided by the host class
        """Delete expired items; returns how many."""
        raise NotImplementedError

    def start_ttl_sweeper(
        self, sweep_interval_minutes: int | None = None
    ) -> concurrent.futures.Future[None]:
        """Periodically delete expired items (and repair the memory built from them).

        Args:
            sweep_interval_minutes: Minutes between sweeps (default: the TTL config's
                ``sweep_interval_minutes``, else 5).

        Returns:
            A future that resolves when the sweeper stops; cancel it to stop the sweeper.
        """
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if not self.ttl_config:
            future.set_result(None)
            return future
        if self._ttl_sweeper_thread is not None and self._ttl_sweeper_thread.is_alive():
            _log.info("TTL sweeper thread is already running")
            future.add_done_callback(
                lambda f: self._ttl_stop_event.set() if f.cancelled() else None
            )
            return future
        self._ttl_stop_event = threading.Event()
        stop = self._ttl_stop_event
        interval = float(
            sweep_interval_minutes or self.ttl_config.get("sweep_interval_minutes") or 5
        )

        def _loop() -> None:
            try:
                while not stop.wait(interval * 60):
                    try:
                        swept = self.sweep_ttl()
                        if swept:
                            _log.info("store swept %d expired items", swept)
                    except Exception:
                        _log.exception("store TTL sweep failed")
                if not future.done():
                    future.set_result(None)
            except Exception as exc:  # pragma: no cover - defensive
                if not future.done():
                    future.set_exception(exc)

        thread = threading.Thread(target=_loop, daemon=True, name="langmemcore-ttl-sweeper")
        self._ttl_sweeper_thread = thread
        thread.start()
        future.add_done_callback(lambda f: stop.set() if f.cancelled() else None)
        return future

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread.

        Args:
            timeout: Seconds to wait for it (``None``: as long as it takes).

        Returns:
            ``True`` if it stopped (or was not running), ``False`` on timeout.
        """
        thread = self._ttl_sweeper_thread
        if thread is None or not thread.is_alive():
            return True
        self._ttl_stop_event.set()
        thread.join(timeout)
        if thread.is_alive():
            _log.warning("timed out waiting for the TTL sweeper thread to stop")
            return False
        self._ttl_sweeper_thread = None
        return True
