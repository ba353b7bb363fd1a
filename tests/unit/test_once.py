"""Values built once per process from any thread (the models memory loads)."""

from __future__ import annotations

import threading

import pytest

from langmemcore._once import Once


def test_threads_asking_at_once_share_one_build() -> None:
    release = threading.Event()
    calls: list[int] = []

    def build() -> object:
        calls.append(1)
        release.wait()
        return object()

    once: Once[object] = Once(build)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(once.get())) for _ in range(8)]
    for thread in threads:
        thread.start()
    release.set()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and once.builds == 1 and once.loaded
    assert len(got) == 8 and all(value is got[0] for value in got)
    assert once.get() is got[0] and once.seconds is not None and once.seconds >= 0


def test_a_build_that_raises_is_tried_again() -> None:
    attempts: list[int] = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ValueError("not installed")
        return "model"

    once: Once[str] = Once(build)
    with pytest.raises(ValueError):
        once.get()
    assert not once.loaded and once.builds == 0 and once.seconds is None
    assert once.get() == "model" and once.builds == 1 and len(attempts) == 2
