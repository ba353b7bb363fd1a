"""The stderr progress bar: done of total, the rate and the time left."""

from __future__ import annotations

import pytest

from langmemcore._progress import progress_callback


def test_the_bar_says_how_much_is_left_and_how_long_it_will_take(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([0.0, 30.0, 120.0])
    monkeypatch.setattr("langmemcore._progress.time.monotonic", lambda: next(clock))
    bar = progress_callback(True, "ingest")
    assert bar is not None
    bar(10, 40)  # 10 in 30 s: 30 left at 1/3 per second take 90 s
    bar(40, 40)
    err = capsys.readouterr().err
    assert "10/40 (0.3/s, 2 min left)" in err
    assert err.endswith("40/40 (0.3/s)\n")
