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
from langmemcore.storage import channel_queries as cq
from langmemcore.storage import construction_queries as cw
from langmemcore.storage import fulltext_queries as fq
from langmemcore.storage import queries as q
from langmemcore.storage._session import SessionBound
from langmemcore.storage.database import Database
from langmemcore.storage.items import ItemAccess
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
    Scored,
    checked_observation,
    ensure_same_content,
)
from langmemcore.storage.search import SearchAccess
from langmemcore.storage.traversal import TraversalAccess

__all__ = ["Repository"]


class Repository(ItemAccess, SearchAccess, TraversalAccess, SessionBound):
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

    async def nearest_notes(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[Scored]:
        """Active notes by cosine similarity to ``vector``, best first."""
        rows = await self._session.execute(
            *cq.nearest_notes(encode_namespace(namespace), vector, k)
        )
        return [Scored(i, 1.0 - d) for i, d in rows]

    async def nearest_notes_by_speakers(
        self, namespace: Sequence[str], vector: Sequence[float], speakers: Sequence[str], k: int
    ) -> list[Scored]:
        """Active notes said by one of ``speakers``, by cosine similarity, best first."""
        if not speakers:
            return []
        stmt = cq.nearest_notes_by_speakers(encode_namespace(namespace), vector, speakers, k)
        return [Scored(i, 1.0 - d) for i, d in await self._session.execute(*stmt)]

    async def similarities(
        self, namespace: Sequence[str], note_ids: Sequence[int], vector: Sequence[float]
    ) -> dict[int, float]:
        """Cosine similarity of each active note in ``note_ids`` to ``vector``."""
        if not note_ids:
            return {}
        stmt = cq.note_similarities(encode_namespace(namespace), note_ids, vector)
        return {i: 1.0 - d for i, d in await self._session.execute(*stmt)}

    async def keyword_ranking(
        self,
        namespace: Sequence[str],
        vectors: Sequence[Sequence[float]],
        k: int,
        min_similarity: float,
        limit: int,
    ) -> list[int]:
        """The keyword channel's ranking of active notes (see
        :func:`~langmemcore.storage.queries.keyword_ranking`), best first.
        """
        if not vectors:
            return []
        stmt = cq.keyword_ranking(encode_namespace(namespace), vectors, k, min_similarity, limit)
        return [int(i) for i, _score in await self._session.execute(*stmt)]

    async def keyword_vectors(
        self, namespace: Sequence[str], names: Sequence[str]
    ) -> dict[str, list[float]]:
        """Stored embeddings of the keyword ``names`` the namespace has (others left out)."""
        if not names:
            return {}
        stmt = cq.keyword_vectors_by_name(encode_namespace(namespace), names)
        return {
            name: [float(x) for x in vector] for name, vector in await self._session.execute(*stmt)
        }

    async def topic_ranking(
        self, namespace: Sequence[str], vector: Sequence[float], k: int, limit: int
    ) -> list[int]:
        """The topic channel's ranking of active notes (see
        :func:`~langmemcore.storage.queries.topic_ranking`), best first.
        """
        stmt = cq.topic_ranking(encode_namespace(namespace), vector, k, limit)
        return [int(i) for i, _score in await self._session.execute(*stmt)]

    async def notes_by_keywords(
        self, namespace: Sequence[str], names: Sequence[str]
    ) -> list[Scored]:
        """Active notes carrying any of the normalised keyword ``names``; score = matches."""
        if not names:
            return []
        rows = await self._session.execute(q.notes_by_keywords(encode_namespace(namespace), names))
        return [Scored(i, float(m)) for i, m in rows]

    async def nearest_keywords(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[tuple[int, str, float]]:
        """Keywords by cosine similarity: (id, name, similarity), best first."""
        rows = await self._session.execute(
            q.nearest_keywords(encode_namespace(namespace), vector, k)
        )
        return [(i, name, 1.0 - d) for i, name, d in rows]

    async def edges_of(self, namespace: Sequence[str], note_ids: Sequence[int]) -> list[Edge]:
        """Edges touching any of ``note_ids``, strongest first."""
        if not note_ids:
            return []
        stmt = cq.edges_of_notes(encode_namespace(namespace), note_ids)
        return list(await self._session.scalars(*stmt))

    async def nearest_topics(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[Scored]:
        """Current-generation topics by centroid similarity, best first."""
        rows = await self._session.execute(q.nearest_topics(encode_namespace(namespace), vector, k))
        return [Scored(i, 1.0 - d) for i, _label, d in rows]

    async def topic_notes(
        self, namespace: Sequence[str], topic_ids: Sequence[int]
    ) -> dict[int, list[Scored]]:
        """Notes of each topic (score = keywords shared with the topic)."""
        result: dict[int, list[Scored]] = {t: [] for t in topic_ids}
        if not topic_ids:
            return result
        rows = await self._session.execute(q.topic_notes(encode_namespace(namespace), topic_ids))
        for topic_id, note_id, matches in rows:
            result[topic_id].append(Scored(note_id, float(matches)))
        return result

    async def fulltext_notes(self, namespace: Sequence[str], query: str, k: int) -> list[Scored]:
        """Active notes matching a term of ``query`` by Postgres full text, scored by the
        inverse document frequency of the terms they match (BM25's IDF, without length
        normalisation: notes are short).

        Document frequencies come from the statistics stored at the last topic evolution
        (terms they do not know are counted live), or are all counted live when the
        namespace has none yet. Which terms select candidates:
        :func:`~langmemcore.storage.fulltext_queries.weigh_terms`.
        """
        ns = encode_namespace(namespace)
        cap, total_cap = fq.DOCUMENT_FREQUENCY_CAP, fq.NOTE_COUNT_CAP
        stats = list(
            await self._session.execute(*fq.stored_lexeme_statistics(ns, query, cap, total_cap))
        )
        if not stats:
            stats = list(
                await self._session.execute(*fq.lexeme_statistics(ns, query, cap, total_cap))
            )
        weighted, candidates = fq.weigh_terms([tuple(row) for row in stats], cap)
        if not weighted:
            return []
        rows = await self._session.execute(*fq.fulltext_notes(ns, weighted, k, candidates))
        return [Scored(i, float(r)) for i, r in rows]

    async def refresh_fulltext_statistics(self, namespace: Sequence[str]) -> None:
        """Store the document frequency of every lexeme of the namespace's active notes
        and its count of active notes (see :mod:`~langmemcore.storage.fulltext_queries`).

        Idempotent, and serialised with topic evolution by the namespace's topics lock
        (held until the transaction ends): concurrent refreshes leave one set of counts.
        """
        ns = encode_namespace(namespace)
        await self._session.execute(q.LOCK_TOPICS, {"ns": ns})
        await self._session.execute(fq.clear_lexeme_stats(ns))
        await self._session.execute(fq.insert_lexeme_stats(ns))
        await self._session.execute(fq.upsert_namespace_stats(ns))

    async def notes_in_time_range(
        self, namespace: Sequence[str], start: datetime, end: datetime, k: int
    ) -> list[int]:
        """Active notes with event time in ``[start, end)``, oldest first."""
        stmt = cq.notes_in_time_range(encode_namespace(namespace), start, end, k)
        return [i for i, _t in await self._session.execute(*stmt)]

    async def notes_since_topics(self, namespace: Sequence[str]) -> int:
        """Active notes written after the namespace's newest topic group."""
        stmt = q.notes_since_topics(encode_namespace(namespace))
        return int(await self._session.scalar(stmt) or 0)

    async def note_summaries(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> list[tuple[int, str, list[str], datetime | None]]:
        """(id, context, keywords, event time) of the notes, in the order of ``note_ids``
        (missing ids are left out); lighter than :meth:`get_notes`.
        """
        if not note_ids:
            return []
        rows = await self._session.execute(
            *cq.note_summaries(encode_namespace(namespace), note_ids)
        )
        by_id = {int(i): (int(i), c, list(k), t) for i, c, k, t in rows}
        return [by_id[i] for i in note_ids if i in by_id]

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
