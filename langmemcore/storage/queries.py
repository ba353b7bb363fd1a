"""Pure SQL-building functions: each returns a SQLAlchemy statement, executes nothing.

Every statement filters by namespace first. They are tested by compiling them, without a
database; :mod:`langmemcore.storage.repository` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    DateTime,
    Select,
    TextClause,
    func,
    literal,
    or_,
    select,
    text,
)

from langmemcore._namespace import like_prefix_pattern
from langmemcore.storage.models import (
    ACTIVE,
    Keyword,
    Note,
    NoteSource,
    Observation,
    Topic,
)

__all__ = [
    "ACTIVE",
    "LOCK_TOPICS",
    "keyword_ids_by_name",
    "namespace_prefix_filter",
    "notes_by_ids",
    "notes_since_topics",
    "observation_by_key",
    "sources_of_notes",
]

LOCK_TOPICS: TextClause = text("SELECT pg_advisory_xact_lock(hashtextextended(:ns, 1))")
"""Serialises topic evolution and the full-text statistics refresh in the namespace
``:ns`` until the transaction ends (a key of its own, apart from the construction lock's
``hashtextextended(:ns, 0)``, so that ingestion goes on while topics evolve).
"""


def namespace_prefix_filter(column: Any, prefix_text: str) -> ColumnElement[bool]:
    """Match ``column`` equal to ``prefix_text`` or strictly below it (``'a'``, ``'a.*'``).

    ``('a',)`` never matches ``('ab',)``: the prefix must be followed by a ``"."``.
    """
    return or_(column == prefix_text, column.like(like_prefix_pattern(prefix_text), escape="\\"))


def observation_by_key(namespace: str, key: str) -> Select:
    """The observation stored under (namespace, key)."""
    return select(Observation).where(Observation.namespace == namespace, Observation.key == key)


def keyword_ids_by_name(namespace: str, names: Sequence[str]) -> Select:
    """(``id``, ``name``) of the given normalised keyword names."""
    return select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name.in_(list(names))
    )


def notes_by_ids(namespace: str, note_ids: Sequence[int]) -> Select:
    """Full note rows for ``note_ids``."""
    return select(Note).where(Note.namespace == namespace, Note.id.in_(list(note_ids)))


def sources_of_notes(namespace: str, note_ids: Sequence[int]) -> Select:
    """(``note_id``, observation) pairs of the notes' sources, in event order."""
    return (
        select(NoteSource.note_id, Observation)
        .join(Observation, Observation.id == NoteSource.observation_id)
        .where(
            NoteSource.namespace == namespace,
            Observation.namespace == namespace,
            NoteSource.note_id.in_(list(note_ids)),
        )
        .order_by(NoteSource.note_id, Observation.event_time, Observation.id)
    )


def notes_since_topics(namespace: str) -> Select:
    """How many active notes were written after the newest topic group (all of them
    when the namespace has no topics yet).
    """
    newest = select(func.max(Topic.created_at)).where(Topic.namespace == namespace)
    after = func.coalesce(newest.scalar_subquery(), literal("-infinity", DateTime(True)))
    return select(func.count()).where(
        Note.namespace == namespace, Note.status == ACTIVE, Note.created_at > after
    )
