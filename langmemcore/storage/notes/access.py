"""Data access to observations, notes and their sources (edges and lineage:
:mod:`~langmemcore.storage.notes.lineage_access`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langmemcore._namespace import encode_namespace
from langmemcore.storage.models import Note, Observation
from langmemcore.storage.notes import append_queries as aq
from langmemcore.storage.notes import lineage_queries as lq
from langmemcore.storage.notes import queries as nq
from langmemcore.storage.notes import removal_queries as rq
from langmemcore.storage.notes.lineage_access import LineageAccess
from langmemcore.storage.notes.records import Appended, NoteContent
from langmemcore.storage.notes.thread_access import ThreadAccess
from langmemcore.storage.notes.validity_access import ValidityAccess
from langmemcore.storage.records import (
    DEFAULT_MAX_OBSERVATION_CHARS,
    ObservationRecord,
    checked_observation,
    ensure_same_content,
)

__all__ = ["GateRow", "NoteAccess"]

GateRow = tuple[int, str, list[str], float, int, datetime | None, bool]
"""A gate candidate: id, context, keywords, similarity, source count, ``valid_from``, and
whether a source announces a change."""


class NoteAccess(LineageAccess, ThreadAccess, ValidityAccess):
    """Observations, notes, their sources, edges and lineage of a namespace, within one
    transaction.
    """

    async def lock_construction(self, namespace: Sequence[str]) -> None:
        """Serialise construction within the namespace until the transaction ends."""
        await self._run(nq.lock_construction(encode_namespace(namespace)))

    async def insert_observation(
        self,
        namespace: Sequence[str],
        key: str,
        content: str,
        *,
        speaker: str | None = None,
        event_time: datetime | None = None,
        metadata: dict[str, Any] | None = None,
        analysis: dict[str, Any],
        max_chars: int = DEFAULT_MAX_OBSERVATION_CHARS,
    ) -> ObservationRecord:
        """Insert an observation with its analysis (see :mod:`~langmemcore.analysis`, as
        stored), idempotently on (namespace, key).

        Raises:
            InvalidInputError: Empty, oversized or unstorable text, or an empty key.
            ObservationConflictError: The key exists with different content.
        """
        ns = encode_namespace(namespace)
        digest = checked_observation(key, content, max_chars=max_chars)
        new_id = await self._scalar(
            nq.insert_observation(
                ns,
                key,
                content,
                digest,
                speaker=speaker,
                event_time=event_time,
                metadata=metadata or {},
                analysis=analysis,
            )
        )
        if new_id is not None:
            return ObservationRecord(new_id, key, content, digest, speaker, event_time, True)
        existing = (await self._scalars(nq.observation_by_key(ns, key))).one()
        ensure_same_content(namespace, key, existing.content_hash, content)
        return ObservationRecord(
            existing.id,
            key,
            existing.content,
            digest,
            existing.speaker,
            existing.event_time,
            False,
        )

    async def append_observation(
        self,
        namespace: Sequence[str],
        *,
        observation: dict[str, Any],
        note: dict[str, Any],
        keywords: Sequence[tuple[str, Sequence[float]]],
        links: Sequence[dict[str, Any]],
        reason: str,
    ) -> Appended | None:
        """Store an observation and append its note with its keywords, edges and lineage
        in one statement; ``None`` when the key exists already (nothing is written).

        The arguments are those of
        :func:`~langmemcore.storage.notes.append_queries.append_observation`.
        """
        prepared = aq.append_observation(
            encode_namespace(namespace),
            observation=observation,
            note=note,
            keywords=keywords,
            links=links,
            reason=reason,
        )
        row = (await self._rows(prepared)).first()
        if row is None:
            return None
        return Appended(
            row.observation_id, row.note_id, tuple(row.edge_ids), tuple(row.lineage_ids)
        )

    async def observation(self, namespace: Sequence[str], key: str) -> Observation | None:
        """The observation stored under ``key``, or ``None``."""
        prepared = nq.observation_by_key(encode_namespace(namespace), key)
        return (await self._scalars(prepared)).one_or_none()

    async def observations(
        self, namespace: Sequence[str], keys: Sequence[str]
    ) -> dict[str, Observation]:
        """The observations stored under ``keys``, by key (missing keys left out)."""
        if not keys:
            return {}
        prepared = nq.observations_by_keys(encode_namespace(namespace), keys)
        return {o.key: o for o in await self._scalars(prepared)}

    async def observation_hashes(
        self, namespace: Sequence[str], keys: Sequence[str]
    ) -> dict[str, str]:
        """Content hashes of the observations stored under ``keys`` (missing keys left out)."""
        if not keys:
            return {}
        rows = await self._rows(nq.observation_hashes(encode_namespace(namespace), keys))
        return {k: h for k, h in rows}

    async def has_observation(self, namespace: Sequence[str], observation_id: int) -> bool:
        """Whether the namespace has the observation ``observation_id``."""
        prepared = rq.observation_by_id(encode_namespace(namespace), observation_id)
        return await self._scalar(prepared) is not None

    async def delete_observation(self, namespace: Sequence[str], observation_id: int) -> None:
        """Delete the observation (its note sources go with it)."""
        await self._run(rq.delete_observation(encode_namespace(namespace), observation_id))

    async def insert_note(
        self,
        namespace: Sequence[str],
        *,
        context: str,
        embedding: Sequence[float],
        keywords: Sequence[str],
        source_ids: Sequence[int],
        event_time: datetime | None = None,
        confidence: float = 0.5,
        origin: str = "offline",
        speakers: Sequence[str] = (),
        keyword_ids: Sequence[int] = (),
        thread_embedding: Sequence[float] | None = None,
    ) -> int:
        """Insert an active note with its sources and keywords (one statement); returns
        the note id.

        ``speakers`` are stored lower-cased (the speaker channel matches them that way);
        ``thread_embedding`` defaults to ``embedding``.
        """
        values = {
            "context": context,
            "embedding": embedding,
            "thread_embedding": thread_embedding,
            "keywords": list(keywords),
            "speakers": sorted({s.lower() for s in speakers}),
            "event_time": event_time,
            "confidence": confidence,
            "origin": origin,
        }
        ns = encode_namespace(namespace)
        prepared = nq.insert_note_with_links(ns, values, source_ids, keyword_ids)
        return int((await self._rows(prepared)).scalar_one())

    async def get_notes(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[Note]:
        """Note rows in the order of ``note_ids`` (missing ids are left out)."""
        if not note_ids:
            return []
        rows = await self._scalars(nq.notes_by_ids(encode_namespace(namespace), note_ids))
        by_id = {n.id: n for n in rows}
        return [by_id[i] for i in note_ids if i in by_id]

    async def has_note(self, namespace: Sequence[str], note_id: int) -> bool:
        """Whether the namespace has the note ``note_id``."""
        return await self._scalar(rq.note_exists(encode_namespace(namespace), note_id)) is not None

    async def lock_note(self, namespace: Sequence[str], note_id: int) -> Note | None:
        """The note row, locked until the transaction ends, or ``None`` when the namespace
        has no such note.
        """
        return await self._scalar(nq.note_for_update(encode_namespace(namespace), note_id))

    async def rewrite_note(
        self,
        namespace: Sequence[str],
        note_id: int,
        content: NoteContent,
        *,
        with_confidence: bool = False,
    ) -> None:
        """Rewrite the note's context, embedding, keyword names, speakers and event time
        (and, ``with_confidence``, its confidence) and mark it updated now.
        """
        values = {
            "context": content.context,
            "embedding": content.embedding,
            "thread_embedding": content.thread_embedding,
            "keywords": content.keywords,
            "speakers": content.speakers,
            "event_time": content.event_time,
        }
        confidence = content.confidence if with_confidence else None
        ns = encode_namespace(namespace)
        await self._run(nq.rewrite_note(ns, note_id, values, confidence=confidence))

    async def delete_notes(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
        """Delete the notes with every edge from or to them; returns the edges' ids."""
        ns = encode_namespace(namespace)
        edges = [int(e) for e in await self._scalars(lq.delete_edges_of_notes(ns, note_ids))]
        await self._run(rq.delete_notes(ns, note_ids))
        return edges

    async def source_ids_of(self, namespace: Sequence[str], note_id: int) -> list[int]:
        """The observation ids of the note's sources."""
        prepared = nq.source_ids_of_note(encode_namespace(namespace), note_id)
        return list(await self._scalars(prepared))

    async def sources_of(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, list[Observation]]:
        """Source observations of each note, in event order."""
        result: dict[int, list[Observation]] = {n: [] for n in note_ids}
        if not note_ids:
            return result
        rows = await self._rows(nq.sources_of_notes(encode_namespace(namespace), note_ids))
        for note_id, observation in rows:
            result[note_id].append(observation)
        return result

    async def add_note_source(
        self, namespace: Sequence[str], note_id: int, observation_id: int
    ) -> None:
        """Add the observation to the note's sources."""
        ns = encode_namespace(namespace)
        await self._run(nq.add_note_source(ns, note_id, observation_id))

    async def remove_note_source(
        self, namespace: Sequence[str], note_id: int, observation_id: int
    ) -> None:
        """Remove the observation from the note's sources."""
        ns = encode_namespace(namespace)
        await self._run(rq.remove_note_source(ns, note_id, observation_id))

    async def notes_of_observation(
        self, namespace: Sequence[str], observation_id: int
    ) -> list[int]:
        """The notes the observation is a source of."""
        prepared = rq.notes_of_observation(encode_namespace(namespace), observation_id)
        return list(await self._scalars(prepared))

    async def gate_candidates(
        self,
        namespace: Sequence[str],
        vector: Sequence[float],
        keywords: Sequence[str],
        *,
        k: int,
        keyword_k: int,
    ) -> list[GateRow]:
        """(id, context, keywords, similarity, source count, valid_from, whether it announces
        a change) of the gate's candidates.
        """
        prepared = nq.gate_candidates(
            encode_namespace(namespace), vector, keywords, k=k, keyword_k=keyword_k
        )
        return [
            (i, c, list(kw), float(s), int(n), said, bool(changes))
            for i, c, kw, s, n, said, changes in await self._rows(prepared)
        ]
