"""The Agent Server's long-term store: :class:`~langmemcore.store.MemoryStore`.

``langgraph.json`` names :func:`generate_store` as the server's custom store
(``"store": {"path": "./store.py:generate_store"}``), so ``langgraph dev`` serves its
``/store/*`` API, and the graphs' runtime store, from memory: on ``DATABASE_URL`` (a
database migrated with ``langmemcore migrate``), else on the embedded server (created and
migrated on first use), with the bundled local embedder.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langmemcore.store import MemoryStore


@asynccontextmanager
async def generate_store() -> AsyncIterator[MemoryStore]:
    """Open MemoryStore for the server's lifetime; closing it waits for construction."""
    async with await MemoryStore.aopen() as store:
        yield store
