"""The one bridge from synchronous callers to the async core.

The core of langmemcore is async. Synchronous entry points (``MemoryStore.batch``, the
CLI, the sync retriever) run their coroutine on a single background event loop owned by
this module, so they work both from plain scripts and from threads that already run a loop.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _bridge_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="langmemcore-bridge", daemon=True
            )
            thread.start()
            atexit.register(_shutdown, loop, thread)
            _loop = loop
        return _loop


def _shutdown(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on the bridge loop and return its result.

    Args:
        coro: The coroutine to run.

    Returns:
        What the coroutine returned; its exception is re-raised in the caller.

    Raises:
        RuntimeError: If called from the bridge loop itself (that would deadlock).
    """
    loop = _bridge_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("run_sync() called from the langmemcore bridge loop; await instead.")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
