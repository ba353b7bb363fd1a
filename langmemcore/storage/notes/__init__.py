"""Notes with their sources, edges and lineage: pure builders and their data access."""

from __future__ import annotations

from langmemcore.storage.notes.access import NoteAccess
from langmemcore.storage.notes.records import Appended, NoteContent

__all__ = ["Appended", "NoteAccess", "NoteContent"]
