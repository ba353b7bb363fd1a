"""The sync twins are derived from their async methods in one place (``sync_twin``)."""

from __future__ import annotations

import inspect

import pytest

from langmemcore._bridge import sync_twin
from langmemcore.memory import Memory

TWINS = ["open", "ingest", "ingest_many", "evolve_topics", "undo", "unmerge", "forget"]
TWINS += ["search", "feedback", "compact", "restore", "search_archived", "flush"]
TWINS += ["warm_up"]


@pytest.mark.parametrize("name", TWINS)
def test_a_memory_twin_has_its_async_methods_signature_and_docstring(name: str) -> None:
    twin, method = getattr(Memory, name), getattr(Memory, f"a{name}")
    assert inspect.signature(twin) == inspect.signature(method)
    assert twin.__doc__ == method.__doc__ and twin.__doc__
    assert twin.__name__ == name and twin.__qualname__ == f"Memory.{name}"
    assert inspect.iscoroutinefunction(method) and not inspect.iscoroutinefunction(twin)


class Counter:
    def __init__(self, start: int) -> None:
        self.start = start

    async def aadd(self, step: int, *, times: int = 1) -> int:
        """Add ``step`` ``times`` times."""
        return self.start + step * times

    add = sync_twin(aadd)

    @classmethod
    async def amake(cls, start: int = 0) -> Counter:
        """Make a counter."""
        return cls(start)

    make = classmethod(sync_twin(amake))


class Doubled(Counter):
    async def aadd(self, step: int, *, times: int = 1) -> int:
        """Add twice as much."""
        return await super().aadd(2 * step, times=times)


def test_a_twin_runs_its_coroutine_and_returns_what_it_returned() -> None:
    assert Counter(1).add(2, times=3) == 7
    assert Counter.make(5).start == 5
    assert str(inspect.signature(Counter.make)) == "(start: 'int' = 0) -> 'Counter'"


def test_a_twin_runs_the_override_of_its_async_method() -> None:
    assert Doubled(0).add(1) == 2


def test_a_twin_re_raises_the_coroutines_exception() -> None:
    class Failing:
        async def afail(self) -> None:
            raise KeyError("boom")

        fail = sync_twin(afail)

    with pytest.raises(KeyError, match="boom"):
        Failing().fail()


def test_a_twin_needs_an_async_name_starting_with_a() -> None:
    async def ingest() -> None:
        """Not named as an async method."""

    with pytest.raises(ValueError, match="starts with 'a'"):
        sync_twin(ingest)
