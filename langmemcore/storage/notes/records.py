"""Small records the note accessors take and hand back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from langmemcore.storage.models import Note

__all__ = ["Appended", "NoteContent"]


@dataclass(frozen=True)
class NoteContent:
    """What a merge, its undo and a repair rewrite in a note.

    Attributes:
        context: The note's text.
        embedding: Embedding of the context.
        keywords: Keyword names, in order.
        speakers: Lower-cased speakers.
        event_time: When the earliest source happened, if known.
        confidence: The note's confidence.
        thread_embedding: Embedding of the context with the observation before its latest
            source in its thread (``None``: the note's own embedding).
    """

    context: str
    embedding: list[float]
    keywords: list[str]
    speakers: list[str]
    event_time: datetime | None
    confidence: float
    thread_embedding: list[float] | None = None

    @classmethod
    def of(cls, note: Note) -> NoteContent:
        """The content of a note row."""
        return cls(
            note.context,
            [float(x) for x in note.embedding],
            list(note.keywords),
            list(note.speakers),
            note.event_time,
            note.confidence,
        )


@dataclass(frozen=True)
class Appended:
    """An observation stored with its appended note in one statement.

    Attributes:
        observation_id: The observation.
        note_id: Its note.
        edge_ids: Edges written, in creation order.
        lineage_ids: Lineage rows written, in creation order.
    """

    observation_id: int
    note_id: int
    edge_ids: tuple[int, ...]
    lineage_ids: tuple[int, ...]
