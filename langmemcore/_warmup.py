"""Loading the models a memory uses in the background, as soon as it is opened.

The local embedder and the English parse take seconds to load (most of a process's first
write); :func:`start_warm_up` loads them in a worker thread so that the cost overlaps with
whatever the caller does next, and :func:`wait_warm_up` waits for that load. Each model is
loaded once per process (:class:`~langmemcore._once.Once`): a call that needs a model
while the warm-up loads it waits for that load instead of starting another.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future

from langchain_core.embeddings import Embeddings

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.embeddings._local import LOCAL_MODEL
from langmemcore.text.parse import PIPELINE, parse_texts

__all__ = ["start_warm_up", "wait_warm_up"]

_PROBE = "I moved to Berlin last year."
"""A text parsed once so that the parse's derived tables are built too."""


_lock = threading.Lock()
_running: dict[tuple[bool, bool], Future[None]] = {}
"""The warm-ups in flight, by what they load (the local embedder, the parse)."""


def _load(embeddings: Embeddings, parser: bool, done: Future[None]) -> None:
    try:
        if parser:
            parse_texts([_PROBE])
        if isinstance(embeddings, LocalEmbeddings):
            embeddings.load()
    except BaseException as exc:  # handed to whoever waits for the warm-up
        done.set_exception(exc)
    else:
        done.set_result(None)


def start_warm_up(embeddings: Embeddings, *, parser: bool) -> Future[None]:
    """Start loading the models a memory uses in a background thread.

    Args:
        embeddings: The memory's embedder (only the local embedder has a model to load).
        parser: Whether to load the English parse too (the semantic layer reads it).

    Returns:
        A future that completes when both are loaded, with the error a load raised;
        already complete when there is nothing left to load, and the one in flight when
        another memory started the same load.
    """
    local = isinstance(embeddings, LocalEmbeddings)
    what = (local and not LOCAL_MODEL.loaded, parser and not PIPELINE.loaded)
    with _lock:
        running = _running.get(what)
        if running is not None and not running.done():
            return running
        done: Future[None] = Future()
        if not any(what):
            done.set_result(None)
            return done
        _running[what] = done
    worker = threading.Thread(
        target=_load, args=(embeddings, what[1], done), name="langmemcore-warm-up", daemon=True
    )
    worker.start()
    return done


async def wait_warm_up(started: Future[None]) -> None:
    """Wait for a warm-up :func:`start_warm_up` started, raising what its load raised."""
    await asyncio.wrap_future(started)
