"""Read a namespace's whole memory back from Postgres as comparable plain data."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from langmemcore.storage import Database, Repository
from langmemcore.storage.models import (
    Edge,
    Keyword,
    Lineage,
    Note,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
)


async def snapshot(database: Database, namespace: tuple[str, ...]) -> dict[str, Any]:
    """Notes (by their source keys), edges, topics and observations of a namespace,
    independent of database ids."""
    ns = ".".join(namespace)
    async with Repository.open(database) as repo:
        s = repo._session
        keys = dict(
            (
                await s.execute(
                    select(Observation.id, Observation.key).where(Observation.namespace == ns)
                )
            ).all()
        )
        sources: dict[int, list[str]] = {}
        for note_id, obs_id in await s.execute(
            select(NoteSource.note_id, NoteSource.observation_id).where(NoteSource.namespace == ns)
        ):
            sources.setdefault(note_id, []).append(keys[obs_id])
        notes = {}
        for note in await s.scalars(select(Note).where(Note.namespace == ns)):
            ident = tuple(sorted(sources.get(note.id, [])))
            notes[note.id] = (
                ident,
                note.context,
                tuple(sorted(note.keywords)),
                note.status,
                note.origin,
            )
        edges = sorted(
            (notes[e.source_id][0], notes[e.target_id][0], e.relation, round(e.strength, 4))
            for e in await s.scalars(select(Edge).where(Edge.namespace == ns))
        )
        names = dict(
            (await s.execute(select(Keyword.id, Keyword.name).where(Keyword.namespace == ns))).all()
        )
        members: dict[int, list[str]] = {}
        for topic_id, kw in await s.execute(
            select(TopicKeyword.topic_id, TopicKeyword.keyword_id).where(
                TopicKeyword.namespace == ns
            )
        ):
            members.setdefault(topic_id, []).append(names[kw])
        topics = sorted(
            (t.label, t.size, tuple(sorted(members.get(t.id, []))))
            for t in await s.scalars(select(Topic).where(Topic.namespace == ns))
        )
        lineage = [
            (row.operation, row.undone_at is not None)
            for row in await s.scalars(
                select(Lineage).where(Lineage.namespace == ns).order_by(Lineage.id)
            )
        ]
    return {
        "observations": sorted(keys.values()),
        "notes": sorted(notes.values()),
        "edges": edges,
        "topics": topics,
        "lineage": lineage,
    }
