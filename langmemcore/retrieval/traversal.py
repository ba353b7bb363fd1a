"""MRAgent's traversal operations over the cue-tag-content graph (active mode).

Cues are keywords, contents are notes, tags are the labels (and relations) of the edges
between notes. The operations are the paper's moves: forward cue -> tag
(:func:`keyword_tags`), forward (cue, tag) -> content (:func:`notes_for`), reverse
content -> (cue, tag) (:func:`note_cues`), plus the episodic timeline (:func:`timeline`),
the abstraction layer (:func:`topic_notes`) and the entry point (:func:`find_keywords`).

The ``*_stmt`` functions are pure SQLAlchemy statement builders (every ``WHERE`` filters by
namespace first); the async functions execute them on a :class:`Repository` and return
small frozen records. Every list is capped at ``limit`` rows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, NamedTuple

from sqlalchemy import Row, ScalarSelect, Select, and_, case, distinct, func, or_, select

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore._namespace import encode_namespace
from langmemcore.storage import queries as q
from langmemcore.storage.models import Edge, Keyword, Note, NoteKeyword, Topic, TopicKeyword
from langmemcore.storage.repository import Repository
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
    "keyword_tags_stmt",
    "nearest_keywords_stmt",
    "note_cues",
    "note_neighbours_stmt",
    "note_row_stmt",
    "note_topics_stmt",
    "notes_for",
    "notes_for_stmt",
    "timeline",
    "timeline_stmt",
    "topic_by_id_stmt",
    "topic_by_label_stmt",
    "topic_member_notes_stmt",
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


def _newest_generation(namespace: str) -> ScalarSelect[Any]:
    """The namespace's current topic generation."""
    return select(func.max(Topic.generation)).where(Topic.namespace == namespace).scalar_subquery()


def _active_notes_with(keyword_id: int, namespace: str) -> Select:
    """Active note ids carrying the keyword (namespace first)."""
    return (
        select(NoteKeyword.note_id)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id == keyword_id,
            Note.status == _ACTIVE,
        )
    )


def nearest_keywords_stmt(namespace: str, vector: Sequence[float], limit: int) -> Select:
    """Keywords by cosine distance (``name``, ``distance``, ``notes``), nearest first."""
    distance = Keyword.embedding.cosine_distance(list(vector)).label("distance")
    notes = (
        select(func.count())
        .select_from(NoteKeyword)
        .join(Note, Note.id == NoteKeyword.note_id)
        .where(
            NoteKeyword.namespace == namespace,
            Note.namespace == namespace,
            NoteKeyword.keyword_id == Keyword.id,
            Note.status == _ACTIVE,
        )
        .scalar_subquery()
        .label("notes")
    )
    return (
        select(Keyword.name, distance, notes)
        .where(Keyword.namespace == namespace)
        .order_by(distance, Keyword.id)
        .limit(limit)
    )


def keyword_tags_stmt(namespace: str, keyword_id: int, limit: int) -> Select:
    """Tags of edges touching active notes that carry the keyword: (``tag``, ``relation``,
    ``edges``), most edges first.
    """
    carriers = _active_notes_with(keyword_id, namespace)
    edges = func.count(distinct(Edge.id)).label("edges")
    return (
        select(Edge.tag, Edge.relation, edges)
        .where(
            Edge.namespace == namespace,
            or_(Edge.source_id.in_(carriers), Edge.target_id.in_(carriers)),
        )
        .group_by(Edge.tag, Edge.relation)
        .order_by(edges.desc(), Edge.tag, Edge.relation)
        .limit(limit)
    )


def notes_for_stmt(namespace: str, keyword_id: int, tag: str | None, limit: int) -> Select:
    """Active notes carrying the keyword (``id``, ``context``, ``event_time``, ``total``).

    With ``tag``, only notes with an edge whose tag (case-insensitively) or relation equals
    it, strongest such edge first; without, every carrier, oldest first.
    """
    total = func.count().over().label("total")
    base = select(Note.id, Note.context, Note.event_time, total).join(
        NoteKeyword, NoteKeyword.note_id == Note.id
    )
    where = (
        Note.namespace == namespace,
        NoteKeyword.namespace == namespace,
        NoteKeyword.keyword_id == keyword_id,
        Note.status == _ACTIVE,
    )
    if tag is None:
        return base.where(*where).order_by(Note.event_time.asc().nulls_last(), Note.id).limit(limit)
    strongest = func.max(Edge.strength)
    return (
        base.join(
            Edge,
            and_(
                Edge.namespace == namespace,
                or_(Edge.source_id == Note.id, Edge.target_id == Note.id),
            ),
        )
        .where(
            *where,
            or_(func.lower(Edge.tag) == tag.strip().lower(), Edge.relation == tag.strip().lower()),
        )
        .group_by(Note.id, Note.context, Note.event_time)
        .order_by(strongest.desc(), Note.id)
        .limit(limit)
    )


def note_row_stmt(namespace: str, note_id: int) -> Select:
    """One note (``id``, ``context``, ``event_time``, ``status``, ``keywords``)."""
    return select(Note.id, Note.context, Note.event_time, Note.status, Note.keywords).where(
        Note.namespace == namespace, Note.id == note_id
    )


def note_neighbours_stmt(namespace: str, note_id: int, limit: int) -> Select:
    """Edges from the note to active neighbours (``note_id``, ``relation``, ``tag``,
    ``strength``), strongest first.
    """
    other = case((Edge.source_id == note_id, Edge.target_id), else_=Edge.source_id)
    return (
        select(other.label("note_id"), Edge.relation, Edge.tag, Edge.strength)
        .join(Note, Note.id == other)
        .where(
            Edge.namespace == namespace,
            Note.namespace == namespace,
            or_(Edge.source_id == note_id, Edge.target_id == note_id),
            Note.status == _ACTIVE,
        )
        .order_by(Edge.strength.desc(), Edge.id)
        .limit(limit)
    )


def note_topics_stmt(namespace: str, note_id: int, limit: int) -> Select:
    """Topics of the newest generation sharing cues with the note (``id``, ``label``)."""
    shared = func.count(TopicKeyword.keyword_id)
    return (
        select(Topic.id, Topic.label)
        .join(TopicKeyword, TopicKeyword.topic_id == Topic.id)
        .join(NoteKeyword, NoteKeyword.keyword_id == TopicKeyword.keyword_id)
        .where(
            Topic.namespace == namespace,
            TopicKeyword.namespace == namespace,
            NoteKeyword.namespace == namespace,
            NoteKeyword.note_id == note_id,
            Topic.generation == _newest_generation(namespace),
        )
        .group_by(Topic.id, Topic.label)
        .order_by(shared.desc(), Topic.id)
        .limit(limit)
    )


def timeline_stmt(namespace: str, start: datetime, end: datetime, limit: int) -> Select:
    """Active notes with event time in ``[start, end)``, oldest first (``id``, ``context``,
    ``event_time``, ``total``).
    """
    return (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .where(
            Note.namespace == namespace,
            Note.status == _ACTIVE,
            Note.event_time >= start,
            Note.event_time < end,
        )
        .order_by(Note.event_time, Note.id)
        .limit(limit)
    )


def topic_by_id_stmt(namespace: str, topic_id: int) -> Select:
    """The topic with this id, if of the newest generation (``id``, ``label``)."""
    return select(Topic.id, Topic.label).where(
        Topic.namespace == namespace,
        Topic.id == topic_id,
        Topic.generation == _newest_generation(namespace),
    )


def topic_by_label_stmt(namespace: str, text: str) -> Select:
    """The newest-generation topic whose label contains ``text`` (case-insensitively),
    shortest label first (an exact label wins) (``id``, ``label``).
    """
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    return (
        select(Topic.id, Topic.label)
        .where(
            Topic.namespace == namespace,
            Topic.generation == _newest_generation(namespace),
            Topic.label.ilike(pattern, escape="\\"),
        )
        .order_by(func.length(Topic.label), Topic.id)
        .limit(1)
    )


def topic_member_notes_stmt(namespace: str, topic_id: int, limit: int) -> Select:
    """Active notes carrying the topic's keywords, most shared keywords first (``id``,
    ``context``, ``event_time``, ``total``).
    """
    shared = func.count(NoteKeyword.keyword_id)
    return (
        select(Note.id, Note.context, Note.event_time, func.count().over().label("total"))
        .join(NoteKeyword, NoteKeyword.note_id == Note.id)
        .join(TopicKeyword, TopicKeyword.keyword_id == NoteKeyword.keyword_id)
        .where(
            Note.namespace == namespace,
            NoteKeyword.namespace == namespace,
            TopicKeyword.namespace == namespace,
            TopicKeyword.topic_id == topic_id,
            Note.status == _ACTIVE,
        )
        .group_by(Note.id, Note.context, Note.event_time)
        .order_by(shared.desc(), Note.event_time.asc().nulls_last(), Note.id)
        .limit(limit)
    )


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
    carriers = select(func.count()).select_from(_active_notes_with(keyword_id, ns).subquery())
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
            row = (await repo.session.execute(q.nearest_topics(ns, vector, 1))).first()
        if row is None:
            raise NotFoundError("this memory has no topics yet")
    hit = TopicHit(int(row[0]), str(row[1]))
    stmt = topic_member_notes_stmt(ns, hit.id, limit)
    return hit, _note_list((await repo.session.execute(stmt)).all())
