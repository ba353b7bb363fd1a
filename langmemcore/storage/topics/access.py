"""Data access to keywords, their notes and topics (see
:mod:`~langmemcore.storage.topics.queries` and
:mod:`~langmemcore.storage.topics.evolution_queries`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
import numpy.typing as npt

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.models import decode_vector
from langmemcore.storage.topics import evolution_queries as eq
from langmemcore.storage.topics import queries as tq

__all__ = ["TopicAccess"]


class TopicAccess(SessionBound):
    """Keywords and topics of a namespace, within one transaction."""

    async def lock_topics(self, namespace: Sequence[str]) -> None:
        """Serialise topic evolution (and the full-text statistics refresh) within the
        namespace until the transaction ends.
        """
        await self._run(tq.lock_topics(encode_namespace(namespace)))

    async def upsert_keywords(
        self, namespace: Sequence[str], rows: Sequence[tuple[str, Sequence[float]]]
    ) -> dict[str, int]:
        """Ensure keywords exist; returns name -> id for every name in ``rows``."""
        if not rows:
            return {}
        prepared = tq.upsert_keywords(encode_namespace(namespace), rows)
        return {name: kid for kid, name in await self._rows(prepared)}

    async def attach_keywords(
        self, namespace: Sequence[str], note_id: int, keyword_ids: Sequence[int]
    ) -> None:
        """Associate keywords with a note (existing associations are kept)."""
        if not keyword_ids:
            return
        await self._run(tq.attach_keywords(encode_namespace(namespace), note_id, keyword_ids))

    async def detach_keywords(self, namespace: Sequence[str], note_id: int) -> None:
        """Remove every keyword association of the note."""
        await self._run(tq.detach_keywords(encode_namespace(namespace), note_id))

    async def set_note_keywords(
        self, namespace: Sequence[str], note_id: int, names: Sequence[str]
    ) -> None:
        """Associate the note with exactly the namespace's keywords named ``names``."""
        ns = encode_namespace(namespace)
        await self._run(tq.detach_keywords(ns, note_id))
        if names:
            await self._run(tq.attach_keywords_by_name(ns, note_id, names))

    async def keywords_of_notes(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> set[int]:
        """The keyword ids associated with any of the notes."""
        prepared = tq.keywords_of_notes(encode_namespace(namespace), note_ids)
        return set(await self._scalars(prepared))

    async def delete_orphan_keywords(
        self, namespace: Sequence[str], keyword_ids: Collection[int]
    ) -> list[int]:
        """Delete those of the keywords no note carries any more; returns their ids."""
        prepared = tq.delete_orphan_keywords(encode_namespace(namespace), keyword_ids)
        return list(await self._scalars(prepared))

    async def keyword_embeddings(
        self, namespace: Sequence[str], keyword_ids: Collection[int]
    ) -> dict[int, tuple[str, npt.NDArray[np.float32]]]:
        """Name and embedding of each of the keywords (read in binary form)."""
        rows = await self._rows(tq.keyword_embeddings(encode_namespace(namespace), keyword_ids))
        return {int(i): (name, decode_vector(packed)) for i, name, packed in rows}

    async def keyword_cooccurrence(self, namespace: Sequence[str]) -> list[tuple[int, int, float]]:
        """(a, b, weight) of every pair of keywords active notes carry together, ``a < b``;
        the weight is the number of such notes.
        """
        rows = await self._rows(eq.keyword_cooccurrence(encode_namespace(namespace)))
        return [(int(a), int(b), float(w)) for a, b, w in rows]

    async def active_keywords(self, namespace: Sequence[str]) -> list[int]:
        """The keywords active notes carry, by id."""
        rows = await self._scalars(eq.active_keywords(encode_namespace(namespace)))
        return sorted(int(k) for k in rows)

    async def oldest_note_contexts(
        self, namespace: Sequence[str], keyword_ids: Sequence[int]
    ) -> dict[int, str]:
        """The context of the oldest active note carrying each keyword."""
        if not keyword_ids:
            return {}
        rows = await self._rows(eq.oldest_note_contexts(encode_namespace(namespace), keyword_ids))
        return {int(k): str(context) for k, context in rows}

    async def newest_topic_generation(self, namespace: Sequence[str]) -> int:
        """The namespace's newest topic generation, 0 when it has none."""
        return int(await self._scalar(eq.newest_generation(encode_namespace(namespace))) or 0)

    async def delete_topics(self, namespace: Sequence[str]) -> None:
        """Delete every topic of the namespace."""
        await self._run(eq.delete_topics(encode_namespace(namespace)))

    async def delete_topics_without_keywords(self, namespace: Sequence[str]) -> None:
        """Delete the namespace's topics left without keywords."""
        await self._run(eq.delete_topics_without_keywords(encode_namespace(namespace)))

    async def insert_topics(
        self,
        namespace: Sequence[str],
        generation: int,
        topics: Sequence[tuple[str, Sequence[float], Sequence[int]]],
    ) -> list[int]:
        """Insert topics of one generation with their keywords, in two statements;
        returns their ids in order.

        Args:
            namespace: The namespace.
            generation: The generation they belong to.
            topics: (label, centroid, keyword ids) of each topic.
        """
        if not topics:
            return []
        ns = encode_namespace(namespace)
        prepared = eq.insert_topics(
            ns,
            generation,
            [label for label, _c, _k in topics],
            [centroid for _l, centroid, _k in topics],
            [len(members) for _l, _c, members in topics],
        )
        ids = sorted(int(i) for i in await self._scalars(prepared))
        memberships = [
            (topic_id, k)
            for topic_id, (_l, _c, members) in zip(ids, topics, strict=True)
            for k in members
        ]
        await self._run(eq.insert_topic_keywords(ns, memberships))
        return ids

    async def notes_since_topics(self, namespace: Sequence[str]) -> int:
        """Active notes written after the namespace's newest topic group."""
        return int(await self._scalar(eq.notes_since_topics(encode_namespace(namespace))) or 0)
