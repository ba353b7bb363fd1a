"""Pure SQL builders of what undo and repair remove: a note's source, notes, an
observation, and the reads that find them. Each filters by namespace first.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select

from langmemcore.storage.models import Note, NoteSource, Observation
from langmemcore.storage.prepared import Prepared

__all__ = [
    "delete_notes",
    "delete_observation",
    "note_exists",
    "notes_of_observation",
    "observation_by_id",
    "remove_note_source",
]


def observation_by_id(namespace: str, observation_id: int) -> Prepared:
    """The id of the observation ``observation_id`` if the namespace has it."""
    return Prepared(
        select(Observation.id).where(
            Observation.namespace == namespace, Observation.id == observation_id
        ),
        {},
    )


def delete_observation(namespace: str, observation_id: int) -> Prepared:
    """Delete one observation (its note sources go with it, ``ON DELETE CASCADE``)."""
    return Prepared(
        delete(Observation).where(
            Observation.namespace == namespace, Observation.id == observation_id
        ),
        {},
    )


def note_exists(namespace: str, note_id: int) -> Prepared:
    """The id of the note ``note_id`` if the namespace has it."""
    return Prepared(select(Note.id).where(Note.namespace == namespace, Note.id == note_id), {})


def delete_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """Delete the notes (their sources and keyword associations go with them)."""
    return Prepared(
        delete(Note).where(Note.namespace == namespace, Note.id.in_(list(note_ids))), {}
    )


def remove_note_source(namespace: str, note_id: int, observation_id: int) -> Prepared:
    """Remove one observation from a note's sources."""
    return Prepared(
        delete(NoteSource).where(
            NoteSource.namespace == namespace,
            NoteSource.note_id == note_id,
            NoteSource.observation_id == observation_id,
        ),
        {},
    )


def notes_of_observation(namespace: str, observation_id: int) -> Prepared:
    """The ids of the notes the observation is a source of."""
    return Prepared(
        select(NoteSource.note_id).where(
            NoteSource.namespace == namespace, NoteSource.observation_id == observation_id
        ),
        {},
    )
