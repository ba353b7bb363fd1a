"""The memory an agent's middleware and tools use: given, or opened on first use.

``None`` opens the default memory (``DATABASE_URL``, else the embedded server) once, on
the loop bridge, the first time a hook or tool needs it; every caller after that gets the
same :class:`~langmemcore.memory.Memory`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import TypeAlias

from langmemcore._bridge import submit
from langmemcore._errors import ConfigurationError
from langmemcore.memory import Memory
from langmemcore.store import MemoryStore

__all__ = ["MemoryLike", "MemorySource"]


class MemorySource:
    """A memory, or the promise to open the default one when first needed.

    Args:
        memory: A ``Memory``, a ``MemoryStore`` (its memory is used), another source
            (shared as is), or ``None`` for the default memory opened lazily.

    Raises:
        ConfigurationError: ``memory`` is none of these.
    """

    def __init__(self, memory: Memory | MemoryStore | None = None) -> None:
        if isinstance(memory, MemoryStore):
            memory = memory.memory
        if memory is not None and not isinstance(memory, Memory):
            raise ConfigurationError(
                f"memory must be a Memory, a MemoryStore or None, got {type(memory).__name__}"
            )
        self._memory: Memory | None = memory
        self._opening: concurrent.futures.Future[Memory] | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, memory: Memory | MemoryStore | MemorySource | None) -> MemorySource:
        """``memory`` as a source (a source is returned unchanged, so it is shared)."""
        return memory if isinstance(memory, MemorySource) else cls(memory)

    def _open(self) -> concurrent.futures.Future[Memory]:
        with self._lock:
            if self._opening is None or (
                self._opening.done() and self._opening.exception() is not None
            ):
                self._opening = submit(Memory.aopen())
            return self._opening

    def _keep(self, opened: Memory) -> Memory:
        with self._lock:
            if self._memory is None:
                self._memory = opened
            return self._memory

    async def aget(self) -> Memory:
        """The memory, opened first if it was not given (once, shared by every caller)."""
        if self._memory is not None:
            return self._memory
        return self._keep(await asyncio.wrap_future(self._open()))


MemoryLike: TypeAlias = Memory | MemoryStore | MemorySource | None
"""What the middleware and the tool factories accept as their memory."""
