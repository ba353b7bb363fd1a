"""The shapes profile data is read and written in (no database types).

A *chain* is every statement and value of one (namespace, subject, aspect); its values are
always rewritten whole from its statements (see :mod:`langmemcore.profiles.resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = [
    "Chain",
    "ChainValue",
    "StatementLike",
    "StoredStatement",
    "StoredValue",
    "ValueEvidence",
    "ValueSource",
    "profile_key",
]


Chain = tuple[str, str]
"""A chain: (subject key, aspect)."""


def profile_key(text: str) -> str:
    """The form subjects and values are compared in: case-folded, spaces collapsed."""
    return " ".join(text.casefold().split())


class StatementLike(Protocol):
    """What a statement to store carries (``AspectStatement`` has it)."""

    @property
    def subject(self) -> str:
        """Who it is about."""

    @property
    def aspect(self) -> str:
        """The aspect."""

    @property
    def value(self) -> str:
        """The value (empty for an ending that names no value)."""

    @property
    def ended(self) -> bool:
        """Whether it ends a value."""

    @property
    def change(self) -> bool:
        """Whether the wording marks a change."""


@dataclass(frozen=True)
class StoredStatement:
    """A stored statement of a chain, as the replay reads it.

    Attributes:
        observation_id: The observation that states it.
        position: Its place among that observation's statements.
        subject: The subject as written.
        aspect: The aspect.
        value: The value as written (empty for an ending that names no value).
        ended: Whether it ends a value rather than stating one.
        change: Whether its wording marks a change.
        stated_at: Its time (the observation's event time, else when it was stored).
    """

    observation_id: int
    position: int
    subject: str
    aspect: str
    value: str
    ended: bool
    change: bool
    stated_at: datetime


@dataclass(frozen=True)
class ValueSource:
    """An observation behind a value.

    Attributes:
        observation_id: The observation.
        role: ``"states"`` (it states the value) or ``"ends"`` (it ends it).
        stated_at: The statement's time.
        key: The observation's key (filled on reads).
        text: The observation's text (filled on reads).
        changes: Whether the observation announces a change (its stored analysis, see
            :attr:`~langmemcore.analysis.Analysis.changes`; filled on reads).
    """

    observation_id: int
    role: str
    stated_at: datetime
    key: str = ""
    text: str = ""
    changes: bool = False


@dataclass(frozen=True)
class ChainValue:
    """One value of a replayed chain, to be written.

    Attributes:
        value: The value as first written.
        first_time: When it was first stated.
        last_time: When it was last stated.
        current: Whether it holds now.
        sources: The observations that state or end it.
        ended_at: When it stopped holding (replaced or ended), else ``None``.
        end: ``"replaced"``, ``"ended"`` or ``None`` while current.
        replaced_by: Position in the chain of the value that replaced it.
    """

    value: str
    first_time: datetime
    last_time: datetime
    current: bool
    sources: tuple[ValueSource, ...]
    ended_at: datetime | None = None
    end: str | None = None
    replaced_by: int | None = None


@dataclass(frozen=True)
class StoredValue:
    """A stored profile value with its sources.

    Attributes:
        id: The value's row id (rewritten whenever its chain is replayed).
        subject: The subject as first written in the chain.
        aspect: The aspect.
        position: Its place in the chain (oldest first).
        value: The value.
        first_time: When it was first stated.
        last_time: When it was last stated.
        current: Whether it holds now.
        ended_at: When it stopped holding, else ``None``.
        end: ``"replaced"``, ``"ended"`` or ``None``.
        replaced_by: Id of the value that replaced it.
        sources: Its observations, oldest first, with keys and texts.
    """

    id: int
    subject: str
    aspect: str
    position: int
    value: str
    first_time: datetime
    last_time: datetime
    current: bool
    ended_at: datetime | None
    end: str | None
    replaced_by: int | None
    sources: tuple[ValueSource, ...] = ()


@dataclass(frozen=True)
class ValueEvidence:
    """Where a current value is stated: an observation and the active note holding it.

    Attributes:
        aspect: The aspect.
        value: The value.
        observation_id: An observation stating it.
        note_id: The active note built from that observation, or ``None``.
        stated_at: The statement's time.
    """

    aspect: str
    value: str
    observation_id: int
    note_id: int | None
    stated_at: datetime
