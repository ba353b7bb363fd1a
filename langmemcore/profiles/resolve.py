"""The pure replay that turns one chain's statements into its values.

A chain is every statement about one (namespace, subject, aspect). Replaying them in time
order (ties: observation id, then position) gives the values:

- a statement of a value already current adds a source to it (and moves its last time);
- a statement of a new value adds a current value; for a single-valued aspect
  (:func:`~langmemcore.profiles.aspects.is_single_valued`) it replaces the current one,
  which becomes history (``end = "replaced"``, ``replaced_by`` the new value);
- an ending statement ends the current values it names (its words are among theirs, or
  theirs among its; an ending that names no value ends every current value of the
  aspect), which become history (``end = "ended"``) with the ending observation as a
  source of role ``"ends"``; an ending that names a value matching nothing current
  ("I lived in Lisbon", "I used to hate Mondays") adds that value as history, ended
  there, with the ending as its source (nothing stated is lost); an ending that names
  no value and matches nothing changes nothing.

Because the values are a function of the statements alone, an older observation that
arrives later, and any undo, forget or repair, come out right by replaying the chains
whose statements changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from langmemcore.profiles.aspects import is_single_valued
from langmemcore.storage.profiles.records import (
    ChainValue,
    StoredStatement,
    ValueSource,
    profile_key,
)

__all__ = ["ends_value", "resolve_chain"]


@dataclass
class _Value:
    """A value being replayed."""

    value: str
    key: str
    first_time: datetime
    last_time: datetime
    sources: list[ValueSource] = field(default_factory=list)
    current: bool = True
    ended_at: datetime | None = None
    end: str | None = None
    replaced_by: int | None = None

    def close(self, when: datetime, end: str, replaced_by: int | None = None) -> None:
        """Make the value history from ``when``."""
        self.current, self.ended_at, self.end, self.replaced_by = False, when, end, replaced_by


def ends_value(ending: str, value: str) -> bool:
    """Tell whether an ending naming ``ending`` ends ``value`` (both compared by
    :func:`~langmemcore.storage.profiles.profile_key`): an empty ending ends any value,
    otherwise the words of one must all be among the other's ("dog" ends "dog Max").
    """
    end_words, value_words = set(profile_key(ending).split()), set(profile_key(value).split())
    if not end_words:
        return True
    return end_words <= value_words or value_words <= end_words


def _order(statement: StoredStatement) -> tuple[datetime, int, int]:
    return statement.stated_at, statement.observation_id, statement.position


def _state(values: list[_Value], statement: StoredStatement, single: bool) -> None:
    """Replay one statement of a value."""
    key, when = profile_key(statement.value), statement.stated_at
    source = ValueSource(statement.observation_id, "states", when)
    same = next((v for v in values if v.current and v.key == key), None)
    if same is not None:
        same.sources.append(source)
        same.last_time = max(same.last_time, when)
        return
    if single:
        for old in values:
            if old.current:
                old.close(when, "replaced", len(values))
    values.append(_Value(statement.value, key, when, when, [source]))


def _end(values: list[_Value], statement: StoredStatement) -> None:
    """Replay one ending statement."""
    when = statement.stated_at
    source = ValueSource(statement.observation_id, "ends", when)
    ended = [v for v in values if v.current and ends_value(statement.value, v.value)]
    for value in ended:
        value.close(when, "ended")
        value.sources.append(source)
    key = profile_key(statement.value)
    if ended or not key:
        return
    known = next((v for v in values if v.key == key), None)
    if known is not None:
        known.sources.append(source)
        return
    past = _Value(statement.value, key, when, when, [source])
    past.close(when, "ended")
    values.append(past)


def resolve_chain(aspect: str, statements: Sequence[StoredStatement]) -> list[ChainValue]:
    """Replay one chain's statements (any order) into its values, oldest first.

    Args:
        aspect: The chain's aspect (decides whether a new value replaces the current one).
        statements: Every statement of the chain.

    Returns:
        The values in the order they were first stated; ``replaced_by`` is a position in
        this list.
    """
    single = is_single_valued(aspect)
    values: list[_Value] = []
    for statement in sorted(statements, key=_order):
        if statement.ended:
            _end(values, statement)
        elif profile_key(statement.value):
            _state(values, statement, single)
    return [
        ChainValue(
            v.value,
            v.first_time,
            v.last_time,
            v.current,
            tuple(v.sources),
            v.ended_at,
            v.end,
            v.replaced_by,
        )
        for v in values
    ]
