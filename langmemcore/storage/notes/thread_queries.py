"""Pure SQL builders of the reads and writes of threads: an observation's predecessor in
its thread, a note's lead and reply, and the notes whose thread vector is still their own
embedding (see :attr:`langmemcore.config.ConstructionConfig.thread_gap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Interval,
    Select,
    Update,
    and_,
    any_,
    bindparam,
    exists,
    func,
    select,
    true,
    update,
)
from sqlalchemy.orm import aliased

from langmemcore.storage.models import ACTIVE, Note, NoteSource, Observation, vector_param
from langmemcore.storage.prepared import (
    Prepared,
    id_array,
    number,
    text_param,
    time_param,
    vector_bind,
)

__all__ = [
    "exchanges_of",
    "observation_before",
    "set_thread_vector",
    "unthreaded_count",
    "unthreaded_notes",
]


def _gap() -> BindParameter[Any]:
    return bindparam("gap", type_=Interval)


@cache
def _observation_before() -> Select:
    moment = time_param("event_time")
    return (
        select(Observation.content, Observation.speaker)
        .where(
            Observation.namespace == text_param("namespace"),
            Observation.event_time <= moment,
            Observation.event_time >= moment - _gap(),
        )
        .order_by(Observation.event_time.desc(), Observation.id.desc())
        .limit(1)
    )


def observation_before(namespace: str, event_time: datetime, gap: timedelta) -> Prepared:
    """(``content``, ``speaker``) of the namespace's latest observation at or before
    ``event_time`` and at most ``gap`` before it (among equal times, the last stored).
    """
    values = {"namespace": namespace, "event_time": event_time, "gap": gap}
    return Prepared(_observation_before(), values)


def _unthreaded(namespace: str = "namespace") -> tuple[ColumnElement[bool], ...]:
    """Active notes of the namespace (bind parameter ``namespace``) whose thread vector
    is their own embedding.
    """
    return (
        Note.namespace == text_param(namespace),
        Note.status == ACTIVE,
        Note.thread_embedding == Note.embedding,
    )


@cache
def _unthreaded_count() -> Select:
    return select(func.count()).select_from(Note).where(*_unthreaded())


def unthreaded_count(namespace: str) -> Prepared:
    """How many active notes of the namespace have their own embedding as thread vector."""
    return Prepared(_unthreaded_count(), {"namespace": namespace})


def _latest_source() -> Any:
    """The latest source of the outer query's note, as a lateral subquery."""
    return (
        select(Observation.id, Observation.speaker, Observation.event_time)
        .join(NoteSource, NoteSource.observation_id == Observation.id)
        .where(NoteSource.note_id == Note.id)
        .order_by(Observation.id.desc())
        .limit(1)
        .lateral("latest_source")
    )


def _lead(latest: Any, gap: bool) -> Any:
    """The observation stored before ``latest`` at or before its time (at most the bound
    ``gap`` earlier when ``gap``), as a lateral subquery.
    """
    before = aliased(Observation, name="before")
    within = [before.event_time >= latest.c.event_time - _gap()] if gap else []
    return (
        select(before.content, before.speaker, before.event_time, before.analysis)
        .where(
            before.namespace == Note.namespace,
            before.id < latest.c.id,
            before.event_time <= latest.c.event_time,
            *within,
        )
        .order_by(before.event_time.desc(), before.id.desc())
        .limit(1)
        .lateral("lead")
    )


@cache
def _unthreaded_notes() -> Select:
    latest = _latest_source()
    lead = _lead(latest, gap=True)
    return (
        select(
            Note.id,
            Note.context,
            latest.c.speaker,
            latest.c.event_time,
            lead.c.content,
            lead.c.speaker,
            lead.c.event_time,
        )
        .select_from(Note)
        .join(latest, true())
        .outerjoin(lead, true())
        .where(*_unthreaded(), Note.id > number("after"))
        .order_by(Note.id)
        .limit(number("batch"))
    )


def unthreaded_notes(namespace: str, after: int, batch: int, gap: timedelta) -> Prepared:
    """Up to ``batch`` of the namespace's unthreaded notes (see :func:`unthreaded_count`)
    with ids above ``after``, by id: (``id``, ``context``, the latest source's ``speaker``
    and ``event_time``, then ``content``, ``speaker`` and ``event_time`` of the observation
    stored before that source at or before its time and at most ``gap`` earlier, the one
    a one-at-a-time ingest in stored order reads as its lead; ``NULL`` when there is none).
    """
    values = {"namespace": namespace, "after": after, "batch": batch, "gap": gap}
    return Prepared(_unthreaded_notes(), values)


@cache
def _set_thread_vector() -> Update:
    return (
        update(Note)
        .where(
            *_unthreaded("in_namespace"),
            Note.id == number("note_id"),
            Note.context == text_param("read_context"),
        )
        .values(thread_embedding=vector_bind("thread_vector"))
        .returning(Note.id)
    )


def set_thread_vector(
    namespace: str, note_id: int, context: str, thread_embedding: Sequence[float]
) -> Prepared:
    """Give an unthreaded note its thread vector, if its context is still ``context`` and
    its thread vector still its own embedding (returns its id; no row: it changed since).
    """
    values = {
        "in_namespace": namespace,
        "note_id": note_id,
        "read_context": context,
        "thread_vector": vector_param(thread_embedding),
    }
    return Prepared(_set_thread_vector(), values)


def _reply(latest: Any) -> Any:
    """The observation stored after ``latest`` at or after its time, as a lateral
    subquery.
    """
    after = aliased(Observation, name="after")
    return (
        select(after.id, after.content, after.speaker, after.analysis)
        .where(
            after.namespace == Note.namespace,
            after.id > latest.c.id,
            after.event_time >= latest.c.event_time,
        )
        .order_by(after.event_time, after.id)
        .limit(1)
        .lateral("reply")
    )


@cache
def _exchanges_of() -> Select:
    latest = _latest_source()
    lead, reply = _lead(latest, gap=False), _reply(latest)
    replier = aliased(Note, name="replier")
    threaded_reply = exists(
        select(NoteSource.note_id)
        .join(
            replier,
            and_(replier.namespace == NoteSource.namespace, replier.id == NoteSource.note_id),
        )
        .where(
            NoteSource.namespace == Note.namespace,
            NoteSource.observation_id == reply.c.id,
            replier.thread_embedding != replier.embedding,
        )
    )
    return (
        select(
            Note.id,
            lead.c.content,
            lead.c.speaker,
            lead.c.analysis,
            reply.c.content,
            reply.c.speaker,
            reply.c.analysis,
        )
        .select_from(Note)
        .join(latest, true())
        .outerjoin(lead, Note.thread_embedding != Note.embedding)
        .outerjoin(reply, threaded_reply)
        .where(Note.namespace == text_param("namespace"), Note.id == any_(id_array("note_ids")))
    )


def exchanges_of(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """(``id``, lead ``content``, ``speaker`` and ``analysis``, reply ``content``,
    ``speaker`` and ``analysis``) of each of ``note_ids``. Its lead is the observation its
    thread vector embeds before its context (stored before its latest source, at or before
    that source's time; ``NULL`` for a note whose thread vector is its own embedding). Its
    reply is the observation stored next after its latest source, at or after that
    source's time, when a note of that observation is threaded (its thread vector embeds
    the latest source as its lead).
    """
    return Prepared(_exchanges_of(), {"namespace": namespace, "note_ids": list(note_ids)})
