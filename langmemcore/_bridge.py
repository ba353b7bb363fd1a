"""The one bridge from synchronous callers to the async core.

The core of langmemcore is async. Synchronous entry points (``MemoryStore.batch``, the
CLI, the sync retriever) run their coroutine on a single background event loop owned by
this module, so they work both from plain scripts and from threads that already run a loop.
:func:`sync_twin` derives a class's sync method (``ingest``) from its async one
(``aingest``) through that loop.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import functools
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

__all__ = ["run_sync", "submit", "sync_twin"]

T = TypeVar("T")
S = TypeVar("S")
P = ParamSpec("P")

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


def submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Start a coroutine on the bridge loop without waiting for it.

    Work submitted here outlives the caller's own event loop (a script's
    ``asyncio.run`` may return before it is done).

    Args:
        coro: The coroutine to run.

    Returns:
        A thread-safe future of its result (``asyncio.wrap_future`` awaits it).
    """
    return asyncio.run_coroutine_threadsafe(coro, _bridge_loop())


def sync_twin(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[S, P], T]:
    """The sync twin of an async method: same parameters and docstring, run by :func:`run_sync`.

    Use it in the class body, after the async method: ``ingest = sync_twin(aingest)``, or
    ``open = classmethod(sync_twin(aopen))`` for a class method. The twin is named after the
    method without its leading ``a`` and looks the async method up on the instance (or
    class) it is called on, so an override of the async method is what the twin runs.

    Args:
        method: The async method (a plain ``async def`` or a ``classmethod`` of one).

    Returns:
        A plain function with the method's signature, annotations and docstring.

    Raises:
        ValueError: If the method's name does not start with ``a``.
    """
    function = getattr(method, "__func__", method)
    name: str = function.__name__
    if not name.startswith("a") or len(name) < 2:
        raise ValueError(f"an async method's name starts with 'a' (aingest), got {name!r}")

    @functools.wraps(function)
    def twin(owner: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        coroutine: Coroutine[Any, Any, T] = getattr(owner, name)(*args, **kwargs)
        return run_sync(coroutine)

    twin.__name__ = name[1:]
    twin.__qualname__ = f"{function.__qualname__.removesuffix(name)}{name[1:]}"
    return twin
