"""Pure SQL builder of the channels that share one statement: the keyword, vector, speaker,
full-text and time channels of one (sub-)query, each a ``UNION ALL`` branch, in one round
trip.

Each branch is the channel's own ranking (the same statement a channel sends alone, see
:mod:`~langmemcore.storage.search.channels`) numbered in its order, so the rows
``(channel, position, note_id)`` give back every channel's ranking exactly. A branch is
built only when its channel runs and has something to ask (the speaker channel only for
named people, the time channel only for named dates), so each combination of branches is
a statement shape of its own, built once.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    CompoundSelect,
    DateTime,
    Select,
    bindparam,
    func,
    literal_column,
    select,
    union_all,
)
from sqlalchemy.dialects.postgresql import ARRAY

from langmemcore.storage.models import ACTIVE, Note, vector_param
from langmemcore.storage.prepared import (
    Prepared,
    number,
    text_array,
    text_param,
    vector_array,
    vector_bind,
    vector_texts,
)
from langmemcore.storage.search.channels import (
    keyword_ranking_select,
    nearest_by_speakers_select,
)
from langmemcore.storage.search.fulltext import DOCUMENT_FREQUENCY_CAP, NOTE_COUNT_CAP
from langmemcore.storage.search.fulltext_ranking import fulltext_ranking_select

__all__ = ["SHARED_CHANNELS", "SharedQuery", "asked_channels", "numbered", "shared_rankings"]

SHARED_CHANNELS = ("keyword", "vector", "speaker", "fulltext", "time")
"""The channels whose rankings one statement can return together, in branch order."""


def numbered(channel: str, note_id: Any, *order: ColumnElement[Any]) -> Select:
    """``(channel, position, note_id)`` of a ranking subquery, numbered in ``order``."""
    return select(
        literal_column(f"'{channel}'").label("channel"),
        func.row_number().over(order_by=order).label("position"),
        note_id.label("note_id"),
    )


def _vector(namespace: Any, depth: Any, threaded: bool) -> Select:
    column = Note.thread_embedding if threaded else Note.embedding
    distance = column.cosine_distance(vector_bind()).label("distance")
    nearest = (
        select(Note.id.label("note_id"), distance)
        .where(Note.namespace == namespace, Note.status == ACTIVE)
        .order_by(distance, Note.id)
        .limit(depth)
        .subquery("vector_ranking")
    )
    return numbered("vector", nearest.c.note_id, nearest.c.distance, nearest.c.note_id)


def _speaker(namespace: Any, depth: Any) -> Select:
    nearest = nearest_by_speakers_select(
        namespace, vector_bind("speaker_vector"), text_array("speakers"), depth
    ).subquery("speaker_ranking")
    return numbered("speaker", nearest.c.id, nearest.c.distance, nearest.c.id)


def _keyword(namespace: Any, depth: Any) -> Select:
    vectors, k = vector_array("keyword_vectors"), number("k_key")
    ranked = keyword_ranking_select(
        namespace, vectors, k, number("min_similarity", float), depth
    ).subquery("keyword_ranking")
    return numbered("keyword", ranked.c.note_id, ranked.c.score.desc(), ranked.c.note_id.desc())


def _times(name: str) -> BindParameter[Any]:
    """A ``timestamptz[]`` bind parameter."""
    return bindparam(name, type_=ARRAY(DateTime(timezone=True)))


def _fulltext(namespace: Any, depth: Any) -> Select:
    ranked = fulltext_ranking_select(namespace, depth).subquery("fulltext_ranking")
    return numbered("fulltext", ranked.c.id, ranked.c.score.desc(), ranked.c.id)


def _time(namespace: Any, depth: Any) -> Select:
    periods = (
        func.unnest(_times("starts"), _times("ends"))
        .table_valued("start", "end", with_ordinality="mention")
        .render_derived(name="periods")
    )
    within = (
        select(Note.id.label("note_id"), Note.event_time)
        .where(
            Note.namespace == namespace,
            Note.status == ACTIVE,
            Note.event_time >= periods.c.start,
            Note.event_time < periods.c.end,
        )
        .order_by(Note.event_time, Note.id)
        .limit(depth)
        .lateral("within")
    )
    found = (
        select(periods.c.mention, within.c.note_id, within.c.event_time)
        .select_from(periods)
        .join(within, literal_column("true"))
        .subquery("time_ranking")
    )
    order = (found.c.mention, found.c.event_time, found.c.note_id)
    return numbered("time", found.c.note_id, *order)


_BRANCHES = {
    "keyword": _keyword,
    "speaker": _speaker,
    "fulltext": _fulltext,
    "time": _time,
}


@cache
def _shared_rankings(channels: tuple[str, ...], threaded: bool) -> CompoundSelect:
    namespace, depth = text_param("namespace"), number("depth")
    return union_all(
        *(
            _vector(namespace, depth, threaded)
            if channel == "vector"
            else _BRANCHES[channel](namespace, depth)
            for channel in channels
        )
    )


class SharedQuery(NamedTuple):
    """What the shared channels ask of memory for one (sub-)query.

    Attributes:
        text: The query's text (full-text channel).
        vector: The query's embedding (vector channel).
        keyword_vectors: One vector per query keyword (keyword channel).
        speakers: People the query names (speaker channel, case-insensitive).
        periods: ``[start, end)`` of each date or period the query names (time channel).
        k_key: Nearest keywords per query keyword.
        min_similarity: Least similarity of a matched keyword.
        depth: Notes per channel at most.
        speaker_vector: The speaker channel's query embedding (see
            :attr:`~langmemcore.retrieval.channels.QueryPlan.speaker_query`).
        threaded: Whether the vector channel ranks notes by their thread vectors
            (``notes.thread_embedding``) rather than their own embeddings.
    """

    text: str
    vector: Sequence[float]
    keyword_vectors: Sequence[Sequence[float]]
    speakers: Sequence[str]
    periods: Sequence[tuple[datetime, datetime]]
    k_key: int
    min_similarity: float
    depth: int
    speaker_vector: Sequence[float]
    threaded: bool = True


def asked_channels(channels: Collection[str], query: SharedQuery) -> tuple[str, ...]:
    """The ``channels`` among :data:`SHARED_CHANNELS` with something to ask (keyword
    vectors; the query's vector; named people and their vector; text; named periods), in branch
    order: the others rank nothing and send nothing.
    """
    asked = {
        "keyword": bool(query.keyword_vectors),
        "vector": bool(query.vector),
        "speaker": bool(query.speakers) and bool(query.speaker_vector),
        "fulltext": bool(query.text),
        "time": bool(query.periods),
    }
    return tuple(c for c in SHARED_CHANNELS if c in channels and asked[c])


def shared_rankings(
    namespace: str,
    channels: tuple[str, ...],
    query: SharedQuery,
    cap: int = DOCUMENT_FREQUENCY_CAP,
    total_cap: int = NOTE_COUNT_CAP,
) -> Prepared:
    """The rankings of ``channels`` (a non-empty result of :func:`asked_channels`) in one
    statement: rows ``(channel, position, note_id)``, each channel's notes numbered from 1
    in its order (the time channel's over every period in turn, so a note can come twice).
    Full text counts document frequencies up to ``cap`` and notes up to ``total_cap`` (see
    :mod:`~langmemcore.storage.search.fulltext_ranking`).
    """
    values = {
        "namespace": namespace,
        "depth": query.depth,
        "vector": vector_param(query.vector) if query.vector else None,
        "speaker_vector": vector_param(query.speaker_vector) if query.speaker_vector else None,
        "keyword_vectors": vector_texts(query.keyword_vectors),
        "k_key": query.k_key,
        "min_similarity": query.min_similarity,
        "speakers": [s.lower() for s in query.speakers],
        "starts": [start for start, _end in query.periods],
        "ends": [end for _start, end in query.periods],
        "q": query.text,
        "cap": cap,
        "total_cap": total_cap,
    }
    return Prepared(_shared_rankings(channels, query.threaded), values)
