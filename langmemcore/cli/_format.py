"""Plain-text rendering of what the commands print (pure: values in, lines out)."""

from __future__ import annotations

from collections.abc import Sequence

from langmemcore.config import CHANNELS
from langmemcore.retrieval import RetrievedNote
from langmemcore.storage.stats import COUNTED, NamespaceStats, TopicInfo

__all__ = ["evidence_lines", "stats_lines", "topic_lines"]


def _shorten(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def evidence_lines(notes: Sequence[RetrievedNote], *, width: int = 100) -> list[str]:
    """Each note with its score, channels (with the note's rank there), topic and sources."""
    if not notes:
        return ["  (no evidence found)"]
    lines: list[str] = []
    for rank, note in enumerate(notes, 1):
        lines.append(f"  {rank}. {_shorten(note.context, width)}")
        order = sorted(note.channels, key=lambda c: (CHANNELS.index(c), c))
        channels = ", ".join(f"{c} #{note.channels[c]}" for c in order) or "-"
        lines.append(f"     score {note.score:.4f} | channels: {channels}")
        if note.topic:
            lines.append(f"     topic: {note.topic}")
        for source in note.sources:
            when = source.event_time.strftime("%Y-%m-%d %H:%M") if source.event_time else "-"
            who = source.speaker or "-"
            lines.append(
                f"     source {source.key} | {who} | {when} | {_shorten(source.text, width - 20)}"
            )
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
    topics: Sequence[TopicInfo], *, width: int = 100, limit: int | None = None
) -> list[str]:
    """Each topic's label, size and keywords (the first ``limit`` topics, then a count)."""
    if not topics:
        return ["  (no topics yet: they form once notes share keywords)"]
    shown = topics[:limit]
    lines = [
        f"  - {t.label} ({t.size} keywords): {_shorten(', '.join(t.keywords), width - 10)}"
        for t in shown
    ]
    if len(topics) > len(shown):
        lines.append(f"  ... and {len(topics) - len(shown)} more (langmemcore topics --namespace)")
    return lines
