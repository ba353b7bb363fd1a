"""What memory knows about one subject, as the read API returns it.

A :class:`Profile` holds, per aspect (in the order of
:data:`~langmemcore.profiles.aspects.ASPECTS`), every value stated about it, oldest first:
the current ones and the history (what replaced or ended each), each value with the
observations it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["AspectValues", "Profile", "ProfileSource", "ProfileValue"]


@dataclass(frozen=True)
class ProfileSource:
    """An observation behind a value.

    Attributes:
        observation_id: The observation's id.
        key: Its key.
        text: Its text.
        time: The statement's time (the observation's event time, else when it was
            stored).
        role: ``"states"`` (it states the value) or ``"ends"`` (it ends it).
    """

    observation_id: int
    key: str
    text: str
    time: datetime
    role: str


@dataclass(frozen=True)
class ProfileValue:
    """One value of an aspect.

    Attributes:
        value: The value ("Hamburg", "pastry chef", "dog Max").
        current: Whether it holds now.
        first_time: When it was first stated.
        last_time: When it was last stated.
        ended_at: When it stopped holding (replaced or ended), else ``None``.
        end: ``"replaced"``, ``"ended"`` or ``None`` while current.
        replaced_by: The value that replaced it, else ``None``.
        sources: The observations stating (and ending) it, oldest first.
    """

    value: str
    current: bool
    first_time: datetime
    last_time: datetime
    ended_at: datetime | None
    end: str | None
    replaced_by: str | None
    sources: tuple[ProfileSource, ...]

    def to_dict(self) -> dict[str, Any]:
        """The value as JSON-able data (times in ISO 8601)."""
        return {
            "value": self.value,
            "current": self.current,
            "first_time": self.first_time.isoformat(),
            "last_time": self.last_time.isoformat(),
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "end": self.end,
            "replaced_by": self.replaced_by,
            "sources": [
                {
                    "observation_id": s.observation_id,
                    "key": s.key,
                    "text": s.text,
                    "time": s.time.isoformat(),
                    "role": s.role,
                }
                for s in self.sources
            ],
        }


@dataclass(frozen=True)
class AspectValues:
    """Every value of one aspect, oldest first.

    Attributes:
        aspect: The aspect.
        values: Its values in the order they were first stated.
    """

    aspect: str
    values: tuple[ProfileValue, ...]

    @property
    def current(self) -> tuple[ProfileValue, ...]:
        """The values that hold now."""
        return tuple(v for v in self.values if v.current)

    @property
    def history(self) -> tuple[ProfileValue, ...]:
        """The values that were replaced or ended."""
        return tuple(v for v in self.values if not v.current)


@dataclass(frozen=True)
class Profile:
    """What memory knows about one subject of a namespace.

    Attributes:
        subject: The subject, as first written in memory (as asked, when unknown).
        aspects: Its aspects with values, in the order of ``ASPECTS``; empty when memory
            knows nothing about the subject.
    """

    subject: str
    aspects: tuple[AspectValues, ...]

    def aspect(self, name: str) -> AspectValues | None:
        """The values of aspect ``name``, or ``None`` when none is known."""
        return next((a for a in self.aspects if a.aspect == name), None)

    def current(self) -> dict[str, tuple[str, ...]]:
        """Aspect -> its current values (aspects with none left out)."""
        return {a.aspect: tuple(v.value for v in a.current) for a in self.aspects if a.current}

    def to_dict(self) -> dict[str, Any]:
        """The profile as JSON-able data."""
        return {
            "subject": self.subject,
            "aspects": {a.aspect: [v.to_dict() for v in a.values] for a in self.aspects},
        }
