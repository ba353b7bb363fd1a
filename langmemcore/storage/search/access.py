"""The retrieval graph's reads: the channels' rankings, full text and the evidence packed
for the best notes, namespace first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from langmemcore._namespace import Namespace, decode_namespace, encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.models import decode_vector
from langmemcore.storage.records import Scored
from langmemcore.storage.search import (
    across,
    channels,
    cues,
    evidence,
    fulltext,
    fulltext_ranking,
    neighbours,
    propagation,
    shared,
)
from langmemcore.storage.search.shared import SharedQuery
from langmemcore.storage.topics.queries import lock_topics

__all__ = ["Evidence", "SearchAccess", "SharedQuery", "SourceRow", "Subgraph"]


class SourceRow(NamedTuple):
    """A source observation of a note: its key, speaker, event time, text and stored
    analysis (see :mod:`~langmemcore.analysis`).
    """

    key: str
    speaker: str | None
    event_time: datetime | None
    text: str
    analysis: Mapping[str, Any]


class Evidence(NamedTuple):
    """What a search returns about one active note.

    Attributes:
        id: The note.
        context: Its text.
        keywords: Its cues.
        vector: Its embedding.
        sources: Its source observations, in event order.
        topic: The label of the topic sharing most keywords with it, if any.
        valid_from: When what it says became valid (the latest time its sources were
            said), if known.
        valid_to: When it stopped being valid (a note superseding it was said), if it has.
    """

    id: int
    context: str
    keywords: tuple[str, ...]
    vector: npt.NDArray[np.float32]
    sources: tuple[SourceRow, ...]
    topic: str | None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


class Subgraph(NamedTuple):
    """The note-keyword-edge neighbourhood of seed notes (see
    :func:`~langmemcore.storage.search.propagation.propagation_subgraph`).

    Attributes:
        carriers: Keyword id -> active notes carrying it (at most the cap asked for plus
            one, so a longer list marks a hub whose carriers were not all read).
        query_similarity: Keyword id -> its highest cosine similarity to the query's
            keywords (0 when the query has none).
        edges: ``(source, target, strength)`` association edges touching a seed, both
            ends active.
    """

    carriers: dict[int, list[int]]
    query_similarity: dict[int, float]
    edges: list[tuple[int, int, float]]


def _evidence(row: Any) -> Evidence:
    """A note's evidence from a row of the evidence statements."""
    return Evidence(
        row.id,
        row.context,
        tuple(row.keywords),
        decode_vector(row.vector),
        tuple(
            SourceRow(key, speaker, datetime.fromisoformat(when) if when else None, text, found)
            for key, speaker, when, text, found in row.sources or ()
        ),
        row.topic,
        row.valid_from,
        row.valid_to,
    )


class SearchAccess(SessionBound):
    """The reads of the retrieval channels (see :mod:`langmemcore.retrieval.channels`) and
    of packing (the evidence of the best notes), namespace first.
    """

    async def nearest_notes(
        self, namespace: Sequence[str], vector: Sequence[float], k: int, *, threaded: bool = False
    ) -> list[Scored]:
        """Active notes by cosine similarity to ``vector`` (of their thread vectors when
        ``threaded``), best first.
        """
        stmt = channels.nearest_notes(encode_namespace(namespace), vector, k, threaded=threaded)
        rows = await self._rows(stmt)
        return [Scored(i, 1.0 - d) for i, d in rows]

    async def nearest_notes_by_speakers(
        self, namespace: Sequence[str], vector: Sequence[float], speakers: Sequence[str], k: int
    ) -> list[Scored]:
        """Active notes said by one of ``speakers``, by cosine similarity, best first."""
        if not speakers:
            return []
        stmt = channels.nearest_notes_by_speakers(encode_namespace(namespace), vector, speakers, k)
        return [Scored(i, 1.0 - d) for i, d in await self._rows(stmt)]

    async def neighbourhood(
        self, namespace: Sequence[str], anchor_ids: Sequence[int], vector: Sequence[float]
    ) -> tuple[list[tuple[int, int, float]], dict[int, float]]:
        """In one statement, the edges touching any anchor as ``(source, target,
        strength)``, strongest first (ties by edge id), and the cosine similarity to
        ``vector`` of each active note at their other ends.
        """
        if not anchor_ids:
            return [], {}
        ns = encode_namespace(namespace)
        rows = list(await self._rows(neighbours.neighbourhood(ns, anchor_ids, vector)))
        edges = sorted(
            ((s, t, w, e) for kind, s, t, w, e in rows if kind == "edge"),
            key=lambda edge: (-edge[2], edge[3]),
        )
        similarity = {int(i): 1.0 - d for kind, i, _t, d, _e in rows if kind == "note"}
        return [(int(s), int(t), float(w)) for s, t, w, _e in edges], similarity

    async def keyword_ranking(
        self,
        namespace: Sequence[str],
        vectors: Sequence[Sequence[float]],
        k: int,
        min_similarity: float,
        limit: int,
    ) -> list[int]:
        """The keyword channel's ranking of active notes (see
        :func:`~langmemcore.storage.search.channels.keyword_ranking`), best first.
        """
        if not vectors:
            return []
        ns = encode_namespace(namespace)
        stmt = channels.keyword_ranking(ns, vectors, k, min_similarity, limit)
        return [int(i) for i, _score in await self._rows(stmt)]

    async def shared_rankings(
        self, namespace: Sequence[str], channels: Sequence[str], query: SharedQuery
    ) -> dict[str, list[int]]:
        """The rankings of the ``channels`` among the shared ones (see
        :mod:`~langmemcore.storage.search.shared`) in one statement, by channel, best first
        (the time channel's period after period, a note possibly twice); a channel with
        nothing to ask ranks nothing and sends nothing.
        """
        rankings: dict[str, list[int]] = {c: [] for c in channels if c in shared.SHARED_CHANNELS}
        asked = shared.asked_channels(channels, query)
        if not asked:
            return rankings
        cap, total_cap = fulltext.DOCUMENT_FREQUENCY_CAP, fulltext.NOTE_COUNT_CAP
        stmt = shared.shared_rankings(encode_namespace(namespace), asked, query, cap, total_cap)
        rows = await self._rows(stmt)
        for channel, _position, note_id in sorted(rows, key=lambda row: (row[0], row[1])):
            rankings[channel].append(int(note_id))
        return rankings

    async def topic_ranking(
        self, namespace: Sequence[str], vector: Sequence[float], k: int, limit: int
    ) -> list[int]:
        """The topic channel's ranking of active notes (see
        :func:`~langmemcore.storage.search.channels.topic_ranking`), best first.
        """
        stmt = channels.topic_ranking(encode_namespace(namespace), vector, k, limit)
        return [int(i) for i, _score in await self._rows(stmt)]

    async def notes_by_keywords(
        self, namespace: Sequence[str], names: Sequence[str]
    ) -> list[Scored]:
        """Active notes carrying any of the normalised keyword ``names``; score = matches."""
        if not names:
            return []
        rows = await self._rows(cues.notes_by_keywords(encode_namespace(namespace), names))
        return [Scored(i, float(m)) for i, m in rows]

    async def query_cues(
        self, namespace: Sequence[str], keywords: Sequence[str], names: Sequence[str]
    ) -> tuple[dict[str, list[float]], list[str]]:
        """The stored embeddings of the keyword names the namespace has, and the ``names``
        (as given) that an active note's speaker bears (case-insensitive), in one statement.
        """
        vectors: dict[str, list[float]] = {}
        speakers: list[str] = []
        if not keywords and not names:
            return vectors, speakers
        stmt = cues.query_cues(encode_namespace(namespace), keywords, names)
        for kind, name, vector in await self._rows(stmt):
            if kind == "keyword":
                vectors[name] = [float(x) for x in vector]
            else:
                speakers.append(str(name))
        return vectors, speakers

    async def nearest_keywords(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[tuple[int, str, float]]:
        """Keywords by cosine similarity: (id, name, similarity), best first."""
        rows = await self._rows(cues.nearest_keywords(encode_namespace(namespace), vector, k))
        return [(i, name, 1.0 - d) for i, name, d in rows]

    async def nearest_topics(
        self, namespace: Sequence[str], vector: Sequence[float], k: int
    ) -> list[Scored]:
        """Current-generation topics by centroid similarity, best first."""
        rows = await self._rows(cues.nearest_topics(encode_namespace(namespace), vector, k))
        return [Scored(i, 1.0 - d) for i, _label, d in rows]

    async def topic_notes(
        self, namespace: Sequence[str], topic_ids: Sequence[int]
    ) -> dict[int, list[Scored]]:
        """Notes of each topic (score = keywords shared with the topic)."""
        result: dict[int, list[Scored]] = {t: [] for t in topic_ids}
        if not topic_ids:
            return result
        rows = await self._rows(cues.topic_notes(encode_namespace(namespace), topic_ids))
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
        :mod:`~langmemcore.storage.search.fulltext_ranking`. One statement.
        """
        cap, total_cap = fulltext.DOCUMENT_FREQUENCY_CAP, fulltext.NOTE_COUNT_CAP
        ns = encode_namespace(namespace)
        stmt = fulltext_ranking.fulltext_ranking(ns, query, k, cap, total_cap)
        return [Scored(i, float(r)) for i, r in await self._rows(stmt)]

    async def refresh_fulltext_statistics(self, namespace: Sequence[str]) -> None:
        """Store the document frequency of every lexeme of the namespace's active notes
        and its count of active notes (see :mod:`~langmemcore.storage.search.fulltext`).

        Idempotent, and serialised with topic evolution by the namespace's topics lock
        (held until the transaction ends): concurrent refreshes leave one set of counts.
        """
        ns = encode_namespace(namespace)
        await self._run(lock_topics(ns))
        await self._run(fulltext.clear_lexeme_stats(ns))
        await self._run(fulltext.insert_lexeme_stats(ns))
        await self._run(fulltext.upsert_namespace_stats(ns))

    async def notes_in_time_range(
        self, namespace: Sequence[str], start: datetime, end: datetime, k: int
    ) -> list[int]:
        """Active notes with event time in ``[start, end)``, oldest first."""
        stmt = channels.notes_in_time_range(encode_namespace(namespace), start, end, k)
        return [i for i, _t in await self._rows(stmt)]

    async def note_summaries(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> list[tuple[int, str, list[str], datetime | None]]:
        """(id, context, keywords, event time) of the notes, in the order of ``note_ids``
        (missing ids are left out); lighter than :meth:`~langmemcore.storage.Repository.get_notes`.
        """
        if not note_ids:
            return []
        rows = await self._rows(channels.note_summaries(encode_namespace(namespace), note_ids))
        by_id = {int(i): (int(i), c, list(k), t) for i, c, k, t in rows}
        return [by_id[i] for i in note_ids if i in by_id]

    async def note_evidence(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, Evidence]:
        """The active notes among ``note_ids`` with their sources and topic, by id (see
        :func:`~langmemcore.storage.search.evidence.evidence_rows`).
        """
        rows = await self._rows(evidence.evidence_rows(encode_namespace(namespace), note_ids))
        return {row.id: _evidence(row) for row in rows}

    async def rankings_across(
        self,
        namespaces: Sequence[Sequence[str]],
        vector: Sequence[float],
        text: str,
        depth: int,
        *,
        threaded: bool,
    ) -> dict[str, list[int]]:
        """The vector and full-text rankings of the active notes of all ``namespaces``
        together (see :mod:`~langmemcore.storage.search.across`) in one statement, by
        channel, best first, at most ``depth`` notes each.
        """
        encoded = [encode_namespace(ns) for ns in namespaces]
        stmt = across.rankings_across(encoded, vector, text, depth, threaded=threaded)
        rankings: dict[str, list[int]] = {"vector": [], "fulltext": []}
        for channel, _position, note_id in sorted(await self._rows(stmt), key=lambda r: r[:2]):
            rankings[channel].append(int(note_id))
        return rankings

    async def note_evidence_across(
        self, namespaces: Sequence[Sequence[str]], note_ids: Sequence[int]
    ) -> dict[int, tuple[Namespace, Evidence]]:
        """The active notes among ``note_ids`` in any of ``namespaces``, by id, each with
        its namespace and what :meth:`note_evidence` reads of it.
        """
        if not note_ids:
            return {}
        encoded = [encode_namespace(ns) for ns in namespaces]
        rows = await self._rows(evidence.evidence_across(encoded, note_ids))
        return {row.id: (decode_namespace(row.namespace), _evidence(row)) for row in rows}

    async def observed_sources(
        self, namespace: Sequence[str], note_ids: Sequence[int], as_of: datetime
    ) -> dict[int, frozenset[str]]:
        """The keys of the source observations of ``note_ids`` observed at or before
        ``as_of`` (their event time, else when they were ingested), by note; a note with no
        such source is left out.
        """
        if not note_ids:
            return {}
        prepared = evidence.observed_sources(encode_namespace(namespace), note_ids, as_of)
        found: dict[int, set[str]] = {}
        for note_id, key in await self._rows(prepared):
            found.setdefault(int(note_id), set()).add(key)
        return {note_id: frozenset(keys) for note_id, keys in found.items()}

    async def note_vectors(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, npt.NDArray[np.float32]]:
        """The embeddings of the active notes among ``note_ids``, by id."""
        rows = await self._rows(evidence.vector_rows(encode_namespace(namespace), note_ids))
        return {row.id: decode_vector(row.vector) for row in rows}

    async def propagation_subgraph(
        self,
        namespace: Sequence[str],
        seeds: Sequence[int],
        query_vectors: Sequence[Sequence[float]],
        carriers: int,
    ) -> Subgraph:
        """The seeds' keywords (with their similarity to the query's keyword vectors) with
        up to ``carriers + 1`` active carriers each, and the edges touching the seeds, in
        one statement.
        """
        if not seeds:
            return Subgraph({}, {}, [])
        ns = encode_namespace(namespace)
        stmt = propagation.propagation_subgraph(ns, seeds, query_vectors, carriers)
        found: dict[int, list[int]] = {}
        similarity: dict[int, float] = {}
        edges: list[tuple[int, int, float]] = []
        for kind, keyword_id, note_id, other_id, weight in await self._rows(stmt):
            if kind == "keyword":
                found.setdefault(int(keyword_id), []).append(int(note_id))
                similarity[int(keyword_id)] = float(weight)
            else:
                edges.append((int(note_id), int(other_id), float(weight)))
        return Subgraph(found, similarity, edges)
