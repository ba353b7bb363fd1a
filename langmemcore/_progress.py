"""A minimal progress bar on stderr for long runs (ingest, eval): done of total, the rate
and the time left at that rate.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

__all__ = ["Progress", "ProgressLike", "progress_callback"]

Progress = Callable[[int, int], None]
"""Called with (done, total) after each unit of work."""

ProgressLike = Progress | bool | None


def progress_callback(progress: ProgressLike, label: str) -> Progress | None:
    """Resolve ``progress``: a callable as is, ``True`` for a stderr bar, else ``None``."""
    if progress is True:
        return _StderrBar(label)
    if callable(progress):
        return progress
    return None


class _StderrBar:
    def __init__(self, label: str) -> None:
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "-" * (width - filled)
        end = "\n" if done >= total else ""
        left = f", {_duration((total - done) / rate)} left" if 0 < done < total else ""
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total} ({rate:.1f}/s{left}){end}")
        sys.stderr.flush()


def _duration(seconds: float) -> str:
    """``"42 s"``, ``"7 min"`` or ``"2.5 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
