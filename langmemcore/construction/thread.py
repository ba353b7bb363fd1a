"""Threads (pure): which observation comes just before another in its conversation, and
the text a note's thread vector embeds.

Two observations of a namespace, one stored right after the other, are in one thread
when both are said by someone (turns of a conversation, not standalone facts) and both
have event times at most ``gap`` apart
(:attr:`~langmemcore.config.ConstructionConfig.thread_gap`). A note's *thread vector*
embeds its context after the text of the observation before its latest source (its
*lead*), so that a reply is found through what it answers
(:attr:`~langmemcore.config.RetrievalConfig.thread_vectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

__all__ = ["Said", "in_thread", "lead_of", "thread_text"]


class Said(Protocol):
    """What threads read of an observation (an ``ObservationIn`` is one)."""

    @property
    def text(self) -> str:
        """The raw text."""
        ...

    @property
    def speaker(self) -> str | None:
        """Who said it, if known."""
        ...

    @property
    def event_time(self) -> datetime | None:
        """When it happened, if known."""
        ...


def in_thread(before: Said, after: Said, gap: timedelta) -> bool:
    """Whether ``after`` continues the thread of ``before``: both said by someone, both
    times known and at most ``gap`` apart.
    """
    if not (before.speaker and after.speaker):
        return False
    return _close(before.event_time, after.event_time, gap)


def _close(before: datetime | None, after: datetime | None, gap: timedelta) -> bool:
    return before is not None and after is not None and abs(after - before) <= gap


def lead_of(
    observations: Sequence[Said], index: int, first_lead: str | None, gap: timedelta
) -> str | None:
    """The lead of ``observations[index]`` in a batch stored in order: the text of the
    one just before it when the two are in one thread; ``first_lead`` (found in memory by
    the caller) for the first.
    """
    if index == 0:
        return first_lead
    before, after = observations[index - 1], observations[index]
    return before.text if in_thread(before, after, gap) else None


def thread_text(lead: str, context: str) -> str:
    """What a thread vector embeds: the lead's text, then the note's context."""
    return f"{lead}\n{context}"
