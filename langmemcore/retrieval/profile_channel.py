"""The profile channel: a question about a subject's aspect reaches the semantic layer.

When the query asks about an aspect of a subject memory has a profile of ("Where does
Tomas work now?", "Which band was Ines in during 2022?"), the channel speaks only if that
aspect has *history* for the subject: a value that stopped holding, replaced by a newer
one or ended ("I quit the bakery"), or a value whose first statement says that something
changed (supersession's change words: "We got a greyhound *instead*") beside values of
the aspect stated before it, which it is then taken to follow. It ranks the notes of the
values in that history relation, and only those: the replaced values and the values that
replaced them, the ended values and the observations that ended them. Values that simply
hold side by side (two pets, several hobbies, or every value of an aspect that never
changed) are left out, so their notes keep the fusion's order: nothing in the profile says
one of them answers better than another, and a value's first statement only says when it
was first said, not when it began to hold. Among the values in the relation:

- a **current** or unmarked question: the replacing values' notes first (newest statement
  first), then the endings, then the replaced or ended values' notes (most recently
  replaced first);
- a **past** question naming a period: the values that held during it first (the one that
  held longest within it first), then the other replaced values, the current ones last;
- a **past** question naming no period ("before ...", "used to"): the replaced values,
  most recently replaced first, the current ones last.

Its ranking joins the fusion like any channel's, with the weight the settings give it
(default 0: it brings no notes of its own); :func:`order_by_profile` then orders the packed
notes that state the aspect's history as the channel did, within the positions they hold
(so for a current-state question a replaced value's note never ranks above its
replacement's, and other notes keep their places).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta

from langmemcore.config import RetrievalConfig
from langmemcore.profiles.question import ProfileQuestion
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.database import Database
from langmemcore.storage.profiles.records import StoredValue
from langmemcore.storage.repository import Repository
from langmemcore.text import TimeMention

__all__ = [
    "AspectValue",
    "ProfileFocus",
    "aspect_values",
    "day_range",
    "held_within",
    "history_values",
    "order_by_profile",
    "profile_focus",
    "profile_ranking",
    "rank_profile_values",
    "said_changes",
    "search_subjects",
]

_FAR_FUTURE = datetime.max.replace(tzinfo=UTC)


@dataclass(frozen=True)
class ProfileFocus:
    """What the query asks of the semantic layer.

    Attributes:
        subject: Whose profile.
        aspects: The aspects asked about (empty: every aspect).
        period: ``"current"``, ``"past"`` or ``None`` (unmarked, read as current).
        start: First moment of the period the question names, if any.
        end: End of that period (excluded), if any.
    """

    subject: str
    aspects: tuple[str, ...]
    period: str | None
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class AspectValue:
    """A stored value of the subject's aspect, with the notes stating it.

    Attributes:
        first_time: When it was first stated.
        ended_at: When it stopped holding (``None`` while current).
        current: Whether it holds now.
        note_ids: The active notes built from its stating observations, newest first.
        ending_note_ids: The active notes of the observations that ended it without a
            replacement ("I quit my job"), newest first.
        value_id: The stored value's id (0 when not stored).
        replaced_by: The id of the value that replaced it, if one did.
        aspect: The aspect it is a value of.
        announced: Whether the statement that introduced it says that something changed.
    """

    first_time: datetime
    ended_at: datetime | None
    current: bool
    note_ids: tuple[int, ...]
    ending_note_ids: tuple[int, ...] = ()
    value_id: int = 0
    replaced_by: int | None = None
    aspect: str = ""
    announced: bool = False


def day_range(start: date, end: date) -> tuple[datetime, datetime]:
    """The moments of the inclusive day range ``start..end`` as ``[from, to)``."""
    first = datetime.combine(start, time.min, tzinfo=UTC)
    return first, datetime.combine(end, time.min, tzinfo=UTC) + timedelta(days=1)


def held_within(value: AspectValue, start: datetime, end: datetime) -> timedelta:
    """How long the value held within ``[start, end)`` (zero when it did not)."""
    until = value.ended_at or _FAR_FUTURE
    overlap = min(until, end) - max(value.first_time, start)
    return max(overlap, timedelta(0))


def _recent_end(value: AspectValue) -> datetime:
    return value.ended_at or _FAR_FUTURE


def said_changes(values: Sequence[AspectValue]) -> list[AspectValue]:
    """The values with each current value stated before an announced current value of its
    aspect (one whose first statement says that something changed) taken as replaced by
    it, from its first statement on (by the latest such value when several follow it).

    Args:
        values: The values of the asked aspects, any order.
    """
    announced = sorted((v for v in values if v.current and v.announced), key=lambda v: v.first_time)
    out = []
    for value in values:
        later = [
            a
            for a in announced
            if value.current and a.aspect == value.aspect and a.first_time > value.first_time
        ]
        if later:
            value = replace(value, current=False, ended_at=later[-1].first_time)
            value = replace(value, replaced_by=later[-1].value_id)
        out.append(value)
    return out


def history_values(values: Sequence[AspectValue]) -> list[AspectValue]:
    """The values in a history relation (with :func:`said_changes` applied): those that
    stopped holding (replaced or ended) and the values that replaced them; none when no
    value stopped holding.

    Args:
        values: The values of the asked aspects, any order.
    """
    values = said_changes(values)
    replacing = {v.replaced_by for v in values if not v.current and v.replaced_by is not None}
    return [v for v in values if not v.current or v.value_id in replacing]


def rank_profile_values(focus: ProfileFocus, values: Sequence[AspectValue]) -> list[int]:
    """Order the notes of the aspect's history for the question (see the module's rules).

    Args:
        focus: The question's subject, aspects and period.
        values: The values of the asked aspects, any order.

    Returns:
        Note ids, best first, each once; none when the aspects have no history.
    """
    values = history_values(values)
    current = sorted((v for v in values if v.current), key=lambda v: v.first_time, reverse=True)
    replaced = sorted((v for v in values if not v.current), key=_recent_end, reverse=True)
    if focus.period != "past":
        endings = [n for v in replaced for n in v.ending_note_ids]
        history = [n for v in replaced for n in v.note_ids]
        found = [n for v in current for n in v.note_ids] + endings + history
        return list(dict.fromkeys(found))
    if focus.start is not None and focus.end is not None:
        start, end = focus.start, focus.end
        held = [v for v in values if held_within(v, start, end) > timedelta(0)]
        held.sort(key=lambda v: (held_within(v, start, end), v.first_time), reverse=True)
        ordered = [*held, *replaced, *current]
    else:
        ordered = [*replaced, *current]
    return list(dict.fromkeys(n for v in ordered for n in v.note_ids))


def order_by_profile(
    results: Sequence[RetrievedNote], ranking: Sequence[int]
) -> list[RetrievedNote]:
    """Order the packed notes the profile channel ranked as it ranked them, within the
    positions they hold; every other note, and every position's score, stays.

    Args:
        results: The packed notes, best first.
        ranking: The profile channel's note ids, best first.
    """
    place = {note_id: n for n, note_id in enumerate(ranking)}
    slots = [n for n, note in enumerate(results) if note.note_id in place]
    ordered = sorted((results[n] for n in slots), key=lambda note: place[note.note_id])
    out = list(results)
    for slot, note in zip(slots, ordered, strict=True):
        out[slot] = replace(note, score=results[slot].score)
    return out


async def search_subjects(
    database: Database, namespace: tuple[str, ...], config: RetrievalConfig
) -> tuple[str, ...]:
    """The profile subjects a search's profile channel may be asked about: the namespace's,
    read once per search (none when the channel is off).
    """
    if "profile" not in config.channels:
        return ()
    async with Repository.open(database, autocommit=True) as repo:
        return tuple(subject for subject, _n, _c in await repo.profile_subjects(namespace))


def profile_focus(
    question: ProfileQuestion | None, times: Sequence[TimeMention]
) -> ProfileFocus | None:
    """The focus of what a query asks of a profile (``None``: it asks no such thing).

    The period's bounds are the question's own dates, else the first date or period the
    query names.
    """
    if question is None:
        return None
    days = (question.start, question.end)
    if (days[0] is None or days[1] is None) and times:
        days = (times[0].start, times[0].end)
    start, end = day_range(days[0], days[1]) if days[0] and days[1] else (None, None)
    return ProfileFocus(question.subject, tuple(question.aspects), question.period, start, end)


async def aspect_values(
    repo: Repository, namespace: tuple[str, ...], subject: str, aspects: Sequence[str]
) -> list[tuple[StoredValue, AspectValue]]:
    """The subject's stored values of ``aspects`` (none: all), each with its notes."""
    found = []
    for value in await repo.profile_of(namespace, subject, aspects):
        notes: dict[str, tuple[int, ...]] = {"states": (), "ends": ()}
        for role in ("states", "ends") if value.end == "ended" else ("states",):
            keys = [s.key for s in value.sources if s.role == role]
            ids = await repo.active_notes_of_observation_keys(namespace, keys) if keys else []
            notes[role] = tuple(sorted(ids, reverse=True))
        announced = next((s.changes for s in value.sources if s.role == "states"), False)
        held = AspectValue(value.first_time, value.ended_at, value.current, notes["states"])
        held = replace(held, ending_note_ids=notes["ends"], value_id=value.id)
        held = replace(held, replaced_by=value.replaced_by, aspect=value.aspect)
        found.append((value, replace(held, announced=announced)))
    return found


async def profile_ranking(
    repo: Repository,
    namespace: tuple[str, ...],
    question: ProfileQuestion | None,
    times: Sequence[TimeMention],
) -> list[int]:
    """The profile channel's ranking for a query asking ``question`` of a profile (empty,
    without reading the database, when it asks nothing of one).
    """
    focus = profile_focus(question, times)
    if focus is None:
        return []
    values = await aspect_values(repo, namespace, focus.subject, focus.aspects)
    return rank_profile_values(focus, [value for _stored, value in values])
