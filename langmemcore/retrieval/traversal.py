"""MRAgent's traversal operations over the cue-tag-content graph (active mode).

Cues are keywords, contents are notes, tags are the labels (and relations) of the edges
between notes. The operations are the paper's moves: forward cue -> tag
(:func:`keyword_tags`), forward (cue, tag) -> content (:func:`notes_for`), reverse
content -> (cue, tag) (:func:`note_cues`), plus the episodic timeline (:func:`timeline`),
the abstraction layer (:func:`topic_notes`) and the entry point (:func:`find_keywords`).

The statements come from the pure builders of :mod:`langmemcore.storage.traversal_queries`;
the async functions here execute them on a :class:`Repository` and return small frozen
records. Every list is capped at ``limit`` rows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, NamedTuple

from sqlalchemy import Row, func, select

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore._namespace import encode_namespace
from langmemcore.storage import queries as q
from langmemcore.storage.repository import Repository
from langmemcore.storage.search import cues
from langmemcore.storage.traversal_queries import (
    active_notes_with,
    keyword_tags_stmt,
    nearest_keywords_stmt,
    note_neighbours_stmt,
    note_row_stmt,
    note_topics_stmt,
    notes_for_stmt,
    timeline_stmt,
    topic_by_id_stmt,
    topic_by_label_stmt,
    topic_member_notes_stmt,
)
from langmemcore.text import normalize_keyword
from langmemcore.text.dates import parse_event_time

__all__ = [
    "DEFAULT_LIMIT",
    "KeywordHit",
    "Neighbour",
    "NoteCues",
    "NoteHit",
    "NoteList",
    "TagCount",
    "TopicHit",
    "date_range",
    "find_keywords",
    "keyword_tags",
    "note_cues",
    "notes_for",
    "timeline",
    "topic_notes",
]

DEFAULT_LIMIT = 10
"""Rows per traversal result (keeps the agent's context small)."""

_ACTIVE = q.ACTIVE
_MAX_ID = 2**63 - 1


class KeywordHit(NamedTuple):
    """A cue near the searched text (``notes``: how many active notes carry it)."""

    keyword: str
    similarity: float
    notes: int


class TagCount(NamedTuple):
    """A tag (``None``: untagged) and relation of ``edges`` touching the cue's notes."""

    tag: str | None
    relation: str
    edges: int


class NoteHit(NamedTuple):
    """A note's content (``context``) and when it happened."""

    id: int
    context: str
    event_time: datetime | None


class NoteList(NamedTuple):
    """A capped list of notes and how many matched before the cap."""

    notes: tuple[NoteHit, ...]
    total: int


class Neighbour(NamedTuple):
    """An edge from a note to the active note ``note_id``."""

    note_id: int
    relation: str
    tag: str | None
    strength: float


class TopicHit(NamedTuple):
    """A topic group and its label (its most connected keywords)."""

    id: int
    label: str


@dataclass(frozen=True)
class NoteCues:
    """What a note leads to (reverse move content -> (cue, tag)).

    Attributes:
        note: The note itself.
        status: ``active``, or ``merged`` etc. for a note folded into another.
        keywords: Its cues.
        neighbours: Edges to active notes, strongest first.
        topics: Topics its cues belong to, most shared cues first.
    """

    note: NoteHit
    status: str
    keywords: tuple[str, ...]
    neighbours: tuple[Neighbour, ...]
    topics: tuple[TopicHit, ...]


def date_range(start: str, end: str | None = None) -> tuple[datetime, datetime]:
    """Parse a timeline range into ``[start, end)`` in UTC.

    Dates like ``"2023-05-08"`` or ``"8 May, 2023"`` (and ISO date-times) are accepted; an
    end at midnight means the whole of that day is included; a missing end means the rest
    of the start's day.

    Raises:
        InvalidInputError: A date cannot be parsed or the end is before the start.
    """
    begin = _parse_when(start, "start_date")
    finish = _parse_when(end, "end_date") if end else begin.replace(hour=0, minute=0, second=0)
    if finish.time() == time(0):
        finish += timedelta(days=1)
    if finish <= begin:
        raise InvalidInputError(f"end_date {end!r} is before start_date {start!r}")
    return begin, finish


def _parse_when(text: str, what: str) -> datetime:
    parsed = parse_event_time(text) if text.strip() else None
    if parsed is None:
        raise InvalidInputError(f"{what} {text!r} is not a date; use YYYY-MM-DD")
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _note_list(rows: Sequence[Row[Any]]) -> NoteList:
    """Rows of (``id``, ``context``, ``event_time``, ``total``) as a :class:`NoteList`."""
    notes = tuple(NoteHit(int(r.id), str(r.context), r.event_time) for r in rows)
    return NoteList(notes, int(rows[0].total) if rows else 0)


async def _keyword_id(repo: Repository, namespace: str, keyword: str) -> tuple[int, str]:
    name = normalize_keyword(keyword)
    row = (await repo.session.execute(q.keyword_ids_by_name(namespace, [name]))).first()
    if row is None:
        raise NotFoundError(
            f"no keyword {keyword!r} in this memory; use a name returned by find_keywords"
        )
    return int(row[0]), str(row[1])


async def find_keywords(
    repo: Repository, namespace: Sequence[str], vector: Sequence[float], limit: int = DEFAULT_LIMIT
) -> list[KeywordHit]:
    """The cues nearest to an embedded text, nearest first."""
    stmt = nearest_keywords_stmt(encode_namespace(namespace), vector, limit)
    return [
        KeywordHit(n, round(1.0 - float(d), 4), int(c))
        for n, d, c in await repo.session.execute(stmt)
    ]


async def keyword_tags(
    repo: Repository, namespace: Sequence[str], keyword: str, limit: int = DEFAULT_LIMIT
) -> tuple[str, int, list[TagCount]]:
    """Forward move cue -> tag: the keyword's name, its active note count and its tags.

    Raises:
        NotFoundError: The keyword does not exist in the namespace.
    """
    ns = encode_namespace(namespace)
    keyword_id, name = await _keyword_id(repo, ns, keyword)
    carriers = select(func.count()).select_from(active_notes_with(keyword_id, ns).subquery())
    count = int(await repo.session.scalar(carriers) or 0)
    rows = await repo.session.execute(keyword_tags_stmt(ns, keyword_id, limit))
    return name, count, [TagCount(t, r, int(n)) for t, r, n in rows]


async def notes_for(
    repo: Repository,
    namespace: Sequence[str],
    keyword: str,
    tag: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> NoteList:
    """Forward move (cue, tag) -> content (``tag=None``: every note with the cue).

    Raises:
        NotFoundError: The keyword does not exist in the namespace.
    """
    ns = encode_namespace(namespace)
    keyword_id, _name = await _keyword_id(repo, ns, keyword)
    wanted = tag if tag and tag.strip() else None
    return _note_list(
        (await repo.session.execute(notes_for_stmt(ns, keyword_id, wanted, limit))).all()
    )


async def note_cues(
    repo: Repository, namespace: Sequence[str], note_id: int, limit: int = DEFAULT_LIMIT
) -> NoteCues:
    """Reverse move content -> (cue, tag): the note's cues, edges and topics.

    Raises:
        NotFoundError: No such note in the namespace.
    """
    ns = encode_namespace(namespace)
    row = (
        (await repo.session.execute(note_row_stmt(ns, note_id))).first()
        if 0 < note_id <= _MAX_ID
        else None
    )
    if row is None:
        raise NotFoundError(f"no note {note_id} in this memory")
    ident, context, when, status, keywords = row
    neighbours = await repo.session.execute(note_neighbours_stmt(ns, note_id, limit))
    topics = await repo.session.execute(note_topics_stmt(ns, note_id, limit))
    return NoteCues(
        NoteHit(int(ident), context, when),
        status,
        tuple(keywords)[:limit],
        tuple(Neighbour(int(i), r, t, round(float(s), 4)) for i, r, t, s in neighbours),
        tuple(TopicHit(int(i), label) for i, label in topics),
    )


async def timeline(
    repo: Repository,
    namespace: Sequence[str],
    start: datetime,
    end: datetime,
    limit: int = DEFAULT_LIMIT,
) -> NoteList:
    """Active notes that happened in ``[start, end)``, oldest first."""
    stmt = timeline_stmt(encode_namespace(namespace), start, end, limit)
    return _note_list((await repo.session.execute(stmt)).all())


async def topic_notes(
    repo: Repository,
    namespace: Sequence[str],
    topic: str,
    embed: Callable[[str], Awaitable[Sequence[float]]],
    limit: int = DEFAULT_LIMIT,
) -> tuple[TopicHit, NoteList]:
    """The abstraction layer: the notes of one topic.

    ``topic`` is a topic id, text contained in a label, or a description (then the topic
    whose centroid is nearest to its embedding, computed with ``embed``).

    Raises:
        NotFoundError: The namespace has no such topic (or no topics at all).
    """
    ns = encode_namespace(namespace)
    text = topic.strip()
    if not text:
        raise InvalidInputError("topic is empty; give a topic id, label or description")
    if text.isdigit():
        row = (
            (await repo.session.execute(topic_by_id_stmt(ns, int(text)))).first()
            if int(text) <= _MAX_ID
            else None
        )
        if row is None:
            raise NotFoundError(f"no topic {text} in this memory")
    else:
        row = (await repo.session.execute(topic_by_label_stmt(ns, text))).first()
        if row is None:
            vector = await embed(text)
            row = (await repo.session.execute(*cues.nearest_topics(ns, vector, 1))).first()
        if row is None:
            raise NotFoundError("this memory has no topics yet")
    hit = TopicHit(int(row[0]), str(row[1]))
    stmt = topic_member_notes_stmt(ns, hit.id, limit)
    return hit, _note_list((await repo.session.execute(stmt)).all())
