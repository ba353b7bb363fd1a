"""The semantic layer's read side as one object: a subject's profile, the subjects memory
knows, and the rebuild of stored profiles from their statements.

:class:`~langmemcore.memory.Memory`, ``MemoryStore`` and ``MemoryRetriever`` hold or reach
a :class:`ProfileLayer`; each operation opens its own transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langmemcore._namespace import validate_namespace
from langmemcore._validate import LIMITS, check_string
from langmemcore.profiles.aspects import ASPECTS
from langmemcore.profiles.profile import AspectValues, Profile, ProfileSource, ProfileValue
from langmemcore.profiles.replay import rebuild_profiles
from langmemcore.storage.database import Database
from langmemcore.storage.profiles.records import StoredValue
from langmemcore.storage.repository import Repository

__all__ = ["ProfileLayer", "SubjectSummary", "build_profile"]


@dataclass(frozen=True)
class SubjectSummary:
    """A subject with a profile.

    Attributes:
        subject: The subject, as first written in memory.
        values: Values known about it (current and history).
        current: Its current values.
    """

    subject: str
    values: int
    current: int


def _aspect_order(aspect: str) -> tuple[int, str]:
    return (ASPECTS.index(aspect) if aspect in ASPECTS else len(ASPECTS), aspect)


def _value(stored: StoredValue, by_id: dict[int, StoredValue]) -> ProfileValue:
    replacement = by_id.get(stored.replaced_by) if stored.replaced_by is not None else None
    return ProfileValue(
        value=stored.value,
        current=stored.current,
        first_time=stored.first_time,
        last_time=stored.last_time,
        ended_at=stored.ended_at,
        end=stored.end,
        replaced_by=replacement.value if replacement else None,
        sources=tuple(
            ProfileSource(s.observation_id, s.key, s.text, s.stated_at, s.role)
            for s in stored.sources
        ),
    )


def build_profile(subject: str, stored: Sequence[StoredValue]) -> Profile:
    """A :class:`Profile` from the subject's stored values (any order).

    Args:
        subject: The subject as asked (used when no value is stored).
        stored: Its stored values with their sources.
    """
    by_id = {v.id: v for v in stored}
    aspects = sorted({v.aspect for v in stored}, key=_aspect_order)
    grouped = tuple(
        AspectValues(
            aspect,
            tuple(
                _value(v, by_id)
                for v in sorted(stored, key=lambda v: v.position)
                if v.aspect == aspect
            ),
        )
        for aspect in aspects
    )
    return Profile(stored[0].subject if stored else subject, grouped)


def check_subject(subject: object) -> str:
    """A non-blank subject name (a speaker's length at most), stripped.

    Raises:
        InvalidInputError: Not a string, blank or too long.
    """
    return check_string(subject, "subject", max_bytes=LIMITS.speaker_bytes, blank=False).strip()


class ProfileLayer:
    """Profiles of one database.

    Args:
        database: Where memory lives.
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    async def profile(self, namespace: Sequence[str], subject: str) -> Profile:
        """What memory knows about ``subject`` (matched case-insensitively); an unknown
        subject gets an empty profile (no aspects).

        Raises:
            InvalidNamespaceError: A malformed namespace.
            InvalidInputError: A blank or oversized subject.
        """
        ns, name = validate_namespace(namespace), check_subject(subject)
        async with Repository.open(self.database, autocommit=True) as repo:
            return build_profile(name, await repo.profile_of(ns, name))

    async def subjects(self, namespace: Sequence[str]) -> list[SubjectSummary]:
        """Every subject with a profile in the namespace, by name."""
        ns = validate_namespace(namespace)
        async with Repository.open(self.database, autocommit=True) as repo:
            return [SubjectSummary(*row) for row in await repo.profile_subjects(ns)]

    async def rebuild(self, namespace: Sequence[str]) -> int:
        """Replay every profile chain of the namespace from its statements (repairs
        stored values that drifted); returns how many chains were replayed.
        """
        ns = validate_namespace(namespace)
        async with Repository.open(self.database) as repo:
            await repo.lock_construction(ns)
            return await rebuild_profiles(repo, ns)
