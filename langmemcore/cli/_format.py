"""Plain-text rendering of what the commands print (pure: values in, lines out)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from langmemcore.config import CHANNELS
from langmemcore.prompts import LLMUsage
from langmemcore.retrieval import RetrievedNote
from langmemcore.storage.stats import COUNTED, NamespaceStats, TopicInfo

__all__ = ["evidence_lines", "stats_lines", "topic_lines", "usage_lines"]


def _shorten(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _wrapped(first: str, text: str, indent: str, width: int) -> list[str]:
    """``first`` followed by the whole of ``text``, wrapped at ``width`` (continuation lines
    start with ``indent``); never cut short.
    """
    return textwrap.wrap(
        " ".join(text.split()),
        width,
        initial_indent=first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _channel_order(channel: str) -> tuple[int, str]:
    """The retrieval graph's channels in their reported order, others (``active``) after."""
    return (CHANNELS.index(channel) if channel in CHANNELS else len(CHANNELS), channel)


def evidence_lines(notes: Sequence[RetrievedNote], *, width: int = 100) -> list[str]:
    """Each note with its score, channels (with the note's rank there), topic, the time it
    stopped being valid (when a newer note superseded it) and sources.

    The note and the text of each source are printed whole, wrapped at ``width``.
    """
    if not notes:
        return ["  (no evidence found)"]
    lines: list[str] = []
    for rank, note in enumerate(notes, 1):
        lines.extend(_wrapped(f"  {rank}. ", note.context, "     ", width))
        order = sorted(note.channels, key=_channel_order)
        channels = ", ".join(f"{c} #{note.channels[c]}" for c in order) or "-"
        lines.append(f"     score {note.score:.4f} | channels: {channels}")
        if note.topic:
            lines.append(f"     topic: {note.topic}")
        if note.valid_to:
            lines.append(f"     superseded since {note.valid_to.strftime('%Y-%m-%d %H:%M')}")
        for source in note.sources:
            when = source.event_time.strftime("%Y-%m-%d %H:%M") if source.event_time else "-"
            who = source.speaker or "-"
            first = f"     source {source.key} | {who} | {when} | "
            lines.extend(_wrapped(first, source.text, "       ", width))
    return lines


def stats_lines(stats: Sequence[NamespaceStats]) -> list[str]:
    """A table with one row per namespace and one column per count."""
    if not stats:
        return ["(memory is empty)"]
    names = [".".join(s.namespace) for s in stats]
    first = max(len("namespace"), *(len(n) for n in names))
    widths = [max(len(c), 6) for c in COUNTED]
    header = (
        "namespace".ljust(first)
        + "  "
        + "  ".join(c.rjust(w) for c, w in zip(COUNTED, widths, strict=True))
    )
    rows = [
        name.ljust(first)
        + "  "
        + "  ".join(str(getattr(s, c)).rjust(w) for c, w in zip(COUNTED, widths, strict=True))
        for name, s in zip(names, stats, strict=True)
    ]
    return [header, *rows]


def topic_lines(
    topics: Sequence[TopicInfo],
    *,
    width: int = 100,
    limit: int | None = None,
    namespace: Sequence[str] = (),
) -> list[str]:
    """Each topic's label, size and keywords (the first ``limit`` topics, then how many
    more, with the command listing them all when ``namespace`` is given).
    """
    if not topics:
        return ["  (no topics yet: they form once notes share keywords)"]
    shown = topics[:limit]
    lines = [
        f"  - {t.label} ({t.size} keywords): {_shorten(', '.join(t.keywords), width - 10)}"
        for t in shown
    ]
    if len(topics) > len(shown):
        more = f"  ... and {len(topics) - len(shown)} more"
        if namespace:
            more += f" (langmemcore topics --namespace {'.'.join(namespace)})"
        lines.append(more)
    return lines


def usage_lines(usage: LLMUsage) -> list[str]:
    """What an operation asked of its chat model: the totals, then one line per step."""
    lines = [
        f"model: {usage.calls} calls, {usage.failed} failed, {usage.skipped} skipped (breaker "
        f"open), {usage.rejected} answer parts rejected (not in their input), "
        f"{usage.seconds:.1f} s"
    ]
    for name, step in usage.steps.items():
        lines.append(
            f"  {name}: {step.calls} calls, {step.failed} failed, {step.skipped} skipped, "
            f"{step.rejected} rejected, {step.seconds:.1f} s, "
            f"{step.input_tokens} + {step.output_tokens} tokens"
        )
    return lines
