"""The data access of one transaction: notes with their sources, edges and lineage
(:mod:`~langmemcore.storage.notes`), keywords and topics
(:mod:`~langmemcore.storage.topics`), and the retrieval reads.

A :class:`Repository` is bound to one ``AsyncSession`` (one transaction); open it with
:meth:`Repository.open`. Every method takes the namespace as a tuple, validates it and
filters by it first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from langmemcore._namespace import encode_namespace
from langmemcore.storage import channel_queries as cq
from langmemcore.storage import fulltext_queries as fq
from langmemcore.storage import queries as q
from langmemcore.storage.database import Database
from langmemcore.storage.formal.access import FormalAccess
from langmemcore.storage.items import ItemAccess
from langmemcore.storage.notes import NoteAccess
from langmemcore.storage.records import Scored
from langmemcore.storage.search import SearchAccess
from langmemcore.storage.stats import EvalReads
from langmemcore.storage.topics import TopicAccess
from langmemcore.storage.traversal import TraversalAccess

__all__ = ["Repository"]


class Repository(
    NoteAccess, TopicAccess, SearchAccess, TraversalAccess, ItemAccess, FormalAccess, EvalReads
):
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
        await self.lock_topics(namespace)
        await self._session.execute(fq.clear_lexeme_stats(ns))
        await self._session.execute(fq.insert_lexeme_stats(ns))
        await self._session.execute(fq.upsert_namespace_stats(ns))

    async def notes_in_time_range(
        self, namespace: Sequence[str], start: datetime, end: datetime, k: int
    ) -> list[int]:
        """Active notes with event time in ``[start, end)``, oldest first."""
        stmt = cq.notes_in_time_range(encode_namespace(namespace), start, end, k)
        return [i for i, _t in await self._session.execute(*stmt)]

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
