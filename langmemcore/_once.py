"""Values built once per process, on first use, from any thread: the models memory loads
(the local embedder, the English parse) and how long each took to load.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Once"]

T = TypeVar("T")


class Once(Generic[T]):
    """A value built by ``build`` the first time any thread asks for it, and shared after.

    Threads that ask while it is being built wait for that build instead of starting
    another. A build that raises is not kept: the next :meth:`get` tries again.

    Args:
        build: Builds the value.
    """

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._value: T | None = None
        self._done = False
        self.builds = 0
        """How many builds finished (1 once built)."""
        self.seconds: float | None = None
        """How long the build that finished took, in seconds (None before)."""

    @property
    def loaded(self) -> bool:
        """Whether the value is built."""
        return self._done

    def get(self) -> T:
        """The value, built now when no thread built it before."""
        if not self._done:
            with self._lock:
                if not self._done:
                    start = time.perf_counter()
                    self._value = self._build()
                    self.seconds = time.perf_counter() - start
                    self.builds += 1
                    self._done = True
        return self._value  # type: ignore[return-value]
