"""Thin async execution layer over :mod:`langmemcore.storage.queries`.

A :class:`Repository` is bound to one ``AsyncSession`` (one transaction); open it with
:meth:`Repository.open`. Every method takes the namespace as a tuple, validates it and
filters by it first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from langmemcore._namespace import encode_namespace
from langmemcore.storage import construction_queries as cw
from langmemcore.storage import queries as q
from langmemcore.storage._session import SessionBound
from langmemcore.storage.database import Database
from langmemcore.storage.models import (
    Edge,
    Note,
    NoteKeyword,
    Observation,
    vector_param,
)
from langmemcore.storage.records import (
    DEFAULT_MAX_OBSERVATION_CHARS,
    ObservationRecord,
    checked_observation,
    ensure_same_content,
)
from langmemcore.storage.search import channels
from langmemcore.storage.search.access import SearchAccess

__all__ = ["Repository"]


class Repository(SearchAccess, SessionBound):
    """Namespace-scoped data access within one transaction.

    Args:
        session: The transaction's session.
    """

    @property
    def session(self) -> AsyncSession:
        """The transaction's session (being retired: domain code calls methods)."""
        return self._session

    @classmethod
    @asynccontextmanager
    async def open(
        cls, database: Database, *, autocommit: bool = False
    ) -> AsyncIterator[Repository]:
        """Open a transaction on ``database``: committed on exit, rolled back on error.

        Args:
            database: The database.
            autocommit: Run each statement on its own, outside a transaction block (see
                :meth:`Database.reader`): for reads that need no common snapshot, such as
                one retrieval channel, and single-statement writes, such as a search's
                log row.
        """
        opener = database.reader if autocommit else database.session
        async with opener() as session:
            yield cls(session)

    async def insert_observation(
        self,
        namespace: Sequence[str],
        key: str,
        content: str,
        *,
        speaker: str | None = None,
        event_time: datetime | None = None,
        metadata: dict[str, Any] | None = None,
        max_chars: int = DEFAULT_MAX_OBSERVATION_CHARS,
    ) -> ObservationRecord:
        """Insert an observation, idempotently on (namespace, key).

        Raises:
            InvalidInputError: Empty, oversized or unstorable text, or an empty key.
            ObservationConflictError: The key exists with different content.
        """
        ns = encode_namespace(namespace)
        digest = checked_observation(key, content, max_chars=max_chars)
        new_id = await self._session.scalar(
            *cw.insert_observation(
                ns,
                key,
                content,
                digest,
                speaker=speaker,
                event_time=event_time,
                metadata=metadata or {},
            )
        )
        if new_id is not None:
            return ObservationRecord(new_id, key, content, digest, speaker, event_time, True)
        existing = (await self._session.scalars(q.observation_by_key(ns, key))).one()
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
    ) -> int:
        """Insert an active note with its sources and keywords (one statement); returns
        the note id.

        ``speakers`` are stored lower-cased (the speaker channel matches them that way).
        """
        ns = encode_namespace(namespace)
        values = {
            "context": context,
            "embedding": vector_param(embedding),
            "keywords": list(keywords),
            "speakers": sorted({s.lower() for s in speakers}),
            "event_time": event_time,
            "confidence": confidence,
            "origin": origin,
        }
        stmt = cw.insert_note_with_links(ns, values, source_ids, keyword_ids)
        return int((await self._session.execute(*stmt)).scalar_one())

    async def upsert_keywords(
        self, namespace: Sequence[str], rows: Sequence[tuple[str, Sequence[float]]]
    ) -> dict[str, int]:
        """Ensure keywords exist; returns name -> id for every name in ``rows``."""
        if not rows:
            return {}
        stmt = cw.upsert_keywords(encode_namespace(namespace), rows)
        return {name: kid for kid, name in await self._session.execute(*stmt)}

    async def attach_keywords(
        self, namespace: Sequence[str], note_id: int, keyword_ids: Sequence[int]
    ) -> None:
        """Associate keywords with a note (existing associations are kept)."""
        if not keyword_ids:
            return
        ns = encode_namespace(namespace)
        await self._session.execute(
            pg_insert(NoteKeyword)
            .values(
                [
                    {"namespace": ns, "note_id": note_id, "keyword_id": k}
                    for k in dict.fromkeys(keyword_ids)
                ]
            )
            .on_conflict_do_nothing()
        )

    async def keyword_vectors(
        self, namespace: Sequence[str], names: Sequence[str]
    ) -> dict[str, list[float]]:
        """Stored embeddings of the keyword ``names`` the namespace has (others left out)."""
        if not names:
            return {}
        stmt = channels.keyword_vectors_by_name(encode_namespace(namespace), names)
        return {
            name: [float(x) for x in vector] for name, vector in await self._session.execute(*stmt)
        }

    async def edges_of(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[Edge]:
        """Edges touching any of ``note_ids``, strongest first."""
        if not note_ids:
            return []
        stmt = channels.edges_of_notes(encode_namespace(namespace), note_ids)
        return list(await self._session.scalars(*stmt))

    async def notes_since_topics(self, namespace: Sequence[str]) -> int:
        """Active notes written after the namespace's newest topic group."""
        stmt = q.notes_since_topics(encode_namespace(namespace))
        return int(await self._session.scalar(stmt) or 0)

    async def get_notes(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[Note]:
        """Note rows in the order of ``note_ids`` (missing ids are left out)."""
        if not note_ids:
            return []
        rows = await self._session.scalars(q.notes_by_ids(encode_namespace(namespace), note_ids))
        by_id = {n.id: n for n in rows}
        return [by_id[i] for i in note_ids if i in by_id]

    async def sources_of(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, list[Observation]]:
        """Source observations of each note, in event order."""
        result: dict[int, list[Observation]] = {n: [] for n in note_ids}
        if not note_ids:
            return result
        rows = await self._session.execute(
            q.sources_of_notes(encode_namespace(namespace), note_ids)
        )
        for note_id, observation in rows:
            result[note_id].append(observation)
        return result

    async def append_lineage(
        self,
        namespace: Sequence[str],
        operation: str,
        *,
        observation_id: int | None = None,
        note_id: int | None = None,
        before: dict[str, Any] | None = None,
        after: dict[str, Any] | None = None,
        reason: str | None = None,
    ) -> int:
        """Append one lineage row; returns its id."""
        row = {
            "operation": operation,
            "observation_id": observation_id,
            "note_id": note_id,
            "before": before,
            "after": after,
            "reason": reason,
        }
        return (await self.append_lineages(namespace, [row]))[0]

    async def gate_candidates(
        self,
        namespace: Sequence[str],
        vector: Sequence[float],
        keywords: Sequence[str],
        *,
        k: int,
        keyword_k: int,
    ) -> list[tuple[int, str, list[str], float, int]]:
        """(id, context, keywords, similarity, source count) of the gate's candidates."""
        stmt = cw.gate_candidates(
            encode_namespace(namespace), vector, keywords, k=k, keyword_k=keyword_k
        )
        return [
            (i, c, list(kw), float(s), int(n))
            for i, c, kw, s, n in await self._session.execute(*stmt)
        ]

    async def observation(self, namespace: Sequence[str], key: str) -> Observation | None:
        """The observation stored under ``key``, or ``None``."""
        stmt = q.observation_by_key(encode_namespace(namespace), key)
        return (await self._session.scalars(stmt)).one_or_none()

    async def add_edges(
        self, namespace: Sequence[str], source_id: int, links: Sequence[dict[str, Any]]
    ) -> list[tuple[int, int]]:
        """Upsert edges from ``source_id`` to each link's ``target_id`` that is still an
        active note; returns (edge id, target id) of the edges written, by edge id (an
        edge that existed already keeps its id, see
        :func:`~langmemcore.storage.construction_queries.insert_active_edges`).

        Each link dict carries ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``.
        """
        if not links:
            return []
        stmt = cw.insert_active_edges(encode_namespace(namespace), source_id, links)
        return [(int(i), int(t)) for i, t in await self._session.execute(*stmt)]

    async def append_lineages(
        self, namespace: Sequence[str], rows: Sequence[dict[str, Any]]
    ) -> list[int]:
        """Append several lineage rows in one statement; returns their ids in order.

        Each dict carries ``operation`` and optionally ``observation_id``, ``note_id``,
        ``before``, ``after``, ``reason``.
        """
        if not rows:
            return []
        stmt = cw.insert_lineages(encode_namespace(namespace), rows)
        return sorted(int(i) for i in (await self._session.execute(*stmt)).scalars())

    async def observation_hashes(
        self, namespace: Sequence[str], keys: Sequence[str]
    ) -> dict[str, str]:
        """Content hashes of the observations stored under ``keys`` (missing keys left out)."""
        if not keys:
            return {}
        rows = await self._session.execute(
            select(Observation.key, Observation.content_hash).where(
                Observation.namespace == encode_namespace(namespace),
                Observation.key.in_(list(keys)),
            )
        )
        return {k: h for k, h in rows}
