"""The first round's text channels run beside the query's embedding: both results come
back, and a failed embedding leaves nothing running behind it."""

from __future__ import annotations

import asyncio

import pytest

from langmemcore.retrieval.graph import _beside


async def test_both_results_come_back_and_the_two_overlap() -> None:
    started = asyncio.Event()

    async def main() -> str:
        await asyncio.wait_for(started.wait(), 5)  # only once the side work has begun
        return "plan"

    async def side() -> list[int]:
        started.set()
        return [1, 2]

    assert await _beside(main(), side()) == ("plan", [1, 2])


async def test_a_failed_main_cancels_the_side_work_before_its_error_goes_on() -> None:
    finished = asyncio.Event()
    cancelled = []

    async def main() -> str:
        await asyncio.sleep(0)
        raise ValueError("the embedder failed")

    async def side() -> list[int]:
        try:
            await finished.wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return []

    with pytest.raises(ValueError, match="embedder failed"):
        await _beside(main(), side())
    assert cancelled == [True]
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_a_failed_side_work_raises_once_the_main_is_done() -> None:
    done = []

    async def main() -> str:
        await asyncio.sleep(0.01)
        done.append(True)
        return "plan"

    async def side() -> list[int]:
        raise LookupError("the channel failed")

    with pytest.raises(LookupError, match="channel failed"):
        await _beside(main(), side())
    assert done == [True]
