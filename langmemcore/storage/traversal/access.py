"""Reads of MRAgent's graph walk: cues (keywords), their tags, notes and topics.

Cues are keywords, contents are notes, tags are the labels (and relations) of the edges
between notes; :mod:`langmemcore.retrieval.traversal` turns what these methods return
into the agent's records. Every list is capped at ``limit`` rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.prepared import Prepared
from langmemcore.storage.traversal import queries as tq

__all__ = ["NoteRows", "TraversalAccess"]

NoteRows = tuple[list[tuple[int, str, datetime | None]], int]
"""(id, context, event time) of capped notes, and how many matched before the cap."""


class TraversalAccess(SessionBound):
    """The traversal moves' reads, namespace first."""

    async def _note_rows(self, prepared: Prepared) -> NoteRows:
        """Rows of (``id``, ``context``, ``event_time``, ``total``) as :data:`NoteRows`."""
        rows = (await self._rows(prepared)).all()
        notes = [(int(r.id), str(r.context), r.event_time) for r in rows]
        return notes, int(rows[0].total) if rows else 0

    async def _pair(self, prepared: Prepared) -> tuple[int, str] | None:
        """The first row's (id, name or label), or None."""
        row = (await self._rows(prepared)).first()
        if row is None:
            return None
        values = tuple(row)
        return int(values[0]), str(values[1])

    async def cue_named(self, namespace: Sequence[str], name: str) -> tuple[int, str] | None:
        """(id, name) of the keyword with the normalised ``name``, or None."""
        return await self._pair(tq.keyword_by_name(encode_namespace(namespace), name))

    async def cues_near(
        self, namespace: Sequence[str], vector: Sequence[float], limit: int
    ) -> list[tuple[str, float, int]]:
        """Keywords nearest to ``vector``: (name, cosine similarity, active notes carrying
        it), nearest first.
        """
        stmt = tq.nearest_keywords(encode_namespace(namespace), vector, limit)
        return [(r.name, 1.0 - float(r.distance), int(r.notes)) for r in await self._rows(stmt)]

    async def cue_note_count(self, namespace: Sequence[str], keyword_id: int) -> int:
        """How many active notes carry the keyword."""
        stmt = tq.carrier_count(encode_namespace(namespace), keyword_id)
        return int(await self._scalar(stmt) or 0)

    async def cue_tags(
        self, namespace: Sequence[str], keyword_id: int, limit: int
    ) -> list[tuple[str | None, str, int]]:
        """(tag, relation, edges) of the edges touching the keyword's active notes, most
        edges first.
        """
        stmt = tq.keyword_tags(encode_namespace(namespace), keyword_id, limit)
        return [(r.tag, r.relation, int(r.edges)) for r in await self._rows(stmt)]

    async def cue_notes(
        self, namespace: Sequence[str], keyword_id: int, tag: str | None, limit: int
    ) -> NoteRows:
        """Active notes carrying the keyword; with ``tag``, only those with an edge of
        that tag or relation (see :func:`~langmemcore.storage.traversal.queries.notes_for`).
        """
        return await self._note_rows(
            tq.notes_for(encode_namespace(namespace), keyword_id, tag, limit)
        )

    async def note_and_cues(
        self, namespace: Sequence[str], note_id: int
    ) -> tuple[int, str, datetime | None, str, list[str]] | None:
        """(id, context, event time, status, keywords) of the note, whatever its status,
        or None.
        """
        row = (await self._rows(tq.note_row(encode_namespace(namespace), note_id))).first()
        if row is None:
            return None
        return int(row.id), row.context, row.event_time, row.status, list(row.keywords)

    async def note_neighbours(
        self, namespace: Sequence[str], note_id: int, limit: int
    ) -> list[tuple[int, str, str | None, float]]:
        """(note id, relation, tag, strength) of the edges from the note to active notes,
        strongest first.
        """
        stmt = tq.note_neighbours(encode_namespace(namespace), note_id, limit)
        return [
            (int(r.note_id), r.relation, r.tag, float(r.strength)) for r in await self._rows(stmt)
        ]

    async def topics_of_note(
        self, namespace: Sequence[str], note_id: int, limit: int
    ) -> list[tuple[int, str]]:
        """(id, label) of current topics sharing keywords with the note, most shared first."""
        stmt = tq.note_topics(encode_namespace(namespace), note_id, limit)
        return [(int(r.id), r.label) for r in await self._rows(stmt)]

    async def timeline_notes(
        self, namespace: Sequence[str], start: datetime, end: datetime, limit: int
    ) -> NoteRows:
        """Active notes with event time in ``[start, end)``, oldest first."""
        return await self._note_rows(tq.timeline(encode_namespace(namespace), start, end, limit))

    async def current_topic(
        self, namespace: Sequence[str], topic_id: int
    ) -> tuple[int, str] | None:
        """(id, label) of the topic, if it is of the current generation."""
        return await self._pair(tq.topic_by_id(encode_namespace(namespace), topic_id))

    async def topic_with_label(self, namespace: Sequence[str], text: str) -> tuple[int, str] | None:
        """(id, label) of the current topic whose label contains ``text``, shortest first."""
        return await self._pair(tq.topic_by_label(encode_namespace(namespace), text))

    async def topic_nearest(
        self, namespace: Sequence[str], vector: Sequence[float]
    ) -> tuple[int, str] | None:
        """(id, label) of the current topic whose centroid is nearest to ``vector``."""
        return await self._pair(tq.nearest_topic(encode_namespace(namespace), vector))

    async def topic_member_notes(
        self, namespace: Sequence[str], topic_id: int, limit: int
    ) -> NoteRows:
        """Active notes carrying the topic's keywords, most shared keywords first."""
        return await self._note_rows(
            tq.topic_member_notes(encode_namespace(namespace), topic_id, limit)
        )
