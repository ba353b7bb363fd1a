"""Progress of ``MemoryStore.flush``: queued items reconciled out of those seen queued."""

from __future__ import annotations

from langmemcore._progress import Progress

__all__ = ["PROGRESS_EVERY_S", "FlushProgress"]

PROGRESS_EVERY_S = 0.5
"""How often a flush that reports progress counts the queued items while it waits."""


class FlushProgress:
    """Turns counts of queued items into ``(done, total)`` reports.

    ``total`` is the most items seen queued, grown by items queued while the flush runs;
    ``done`` never goes back.

    Args:
        report: The callback (``None``: nothing is reported or counted).
    """

    def __init__(self, report: Progress | None) -> None:
        self.report = report
        self.done = 0
        self.total = 0

    def update(self, pending: int) -> None:
        """Report with ``pending`` items still queued."""
        if self.report is None:
            return
        self.total = max(self.total, self.done + pending)
        self.done = max(self.done, self.total - pending)
        self.report(self.done, self.total)
