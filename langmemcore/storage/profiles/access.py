"""The semantic layer's data access: statements, replayed values and their sources.

:class:`ProfileAccess` runs the builders of :mod:`~langmemcore.storage.profiles.queries`;
``Repository`` inherits it. Subjects are matched case-insensitively
(:func:`~langmemcore.storage.profiles.records.profile_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.profiles import queries as pq
from langmemcore.storage.profiles.records import (
    Chain,
    ChainValue,
    StatementLike,
    StoredStatement,
    StoredValue,
    ValueEvidence,
    ValueSource,
    profile_key,
)

__all__ = ["ProfileAccess"]


class ProfileAccess(SessionBound):
    """Profile statements and values of a namespace, within one transaction."""

    async def add_profile_statements(
        self, namespace: Sequence[str], observation_id: int, statements: Sequence[StatementLike]
    ) -> list[Chain]:
        """Store what one observation states (statements without a subject are dropped);
        returns the chains they belong to, sorted.
        """
        kept = [s for s in statements if profile_key(s.subject)]
        if not kept:
            return []
        prepared = pq.insert_statements(encode_namespace(namespace), observation_id, kept)
        return sorted({(k, a) for k, a in await self._rows(prepared)})

    async def profile_statements_of(
        self, namespace: Sequence[str], subject: str, aspect: str
    ) -> list[StoredStatement]:
        """Every statement of the subject's aspect, in time order."""
        ns = encode_namespace(namespace)
        rows = await self._rows(pq.chain_statements(ns, profile_key(subject), aspect))
        return [StoredStatement(*row) for row in rows]

    async def profile_chains_of_observations(
        self, namespace: Sequence[str], observation_ids: Sequence[int]
    ) -> list[Chain]:
        """The chains the observations state something in."""
        if not observation_ids:
            return []
        prepared = pq.chains_of_observations(encode_namespace(namespace), observation_ids)
        return [(k, a) for k, a in await self._rows(prepared)]

    async def profile_chains(self, namespace: Sequence[str]) -> list[Chain]:
        """Every chain of the namespace with a statement or a value."""
        rows = await self._rows(pq.chains_of_namespace(encode_namespace(namespace)))
        return [(k, a) for k, a in rows]

    async def forget_profile_statements_of_observations(
        self, namespace: Sequence[str], observation_ids: Sequence[int]
    ) -> list[Chain]:
        """Delete the observations' statements; returns the chains they were in (replay
        them with :meth:`replace_profile_chain`).
        """
        if not observation_ids:
            return []
        ns = encode_namespace(namespace)
        rows = await self._rows(pq.delete_statements_of_observations(ns, observation_ids))
        return sorted({(k, a) for k, a in rows})

    async def replace_profile_chain(
        self, namespace: Sequence[str], subject: str, aspect: str, chain: Sequence[ChainValue]
    ) -> list[int]:
        """Rewrite the values of the subject's aspect as ``chain`` (empty: remove them);
        returns the new value ids in chain order.
        """
        ns = encode_namespace(namespace)
        await self._run(pq.delete_chain_values(ns, profile_key(subject), aspect))
        if not chain:
            return []
        rows = await self._rows(pq.insert_chain_values(ns, subject, aspect, chain))
        ids = [int(i) for i, _p in sorted(rows, key=lambda r: int(r[1]))]
        sources = [
            (ids[n], s.observation_id, s.role, s.stated_at)
            for n, value in enumerate(chain)
            for s in value.sources
        ]
        if sources:
            await self._run(pq.insert_value_sources(ns, sources))
        pairs = [
            (ids[n], ids[v.replaced_by]) for n, v in enumerate(chain) if v.replaced_by is not None
        ]
        if pairs:
            await self._run(pq.link_replacements(ns, pairs))
        return ids

    async def profile_of(
        self, namespace: Sequence[str], subject: str, aspects: Sequence[str] = ()
    ) -> list[StoredValue]:
        """Every value of the subject (of ``aspects``; none: all) with its sources, by
        aspect and chain order.
        """
        prepared = pq.values_of_subject(encode_namespace(namespace), subject, aspects)
        return _values_with_sources(await self._rows(prepared))

    async def profile_subjects(self, namespace: Sequence[str]) -> list[tuple[str, int, int]]:
        """(subject, values, current values) of every subject with a profile, by name."""
        rows = await self._rows(pq.subjects(encode_namespace(namespace)))
        return [(str(s), int(n), int(c)) for s, n, c in rows]

    async def current_value_sources(
        self, namespace: Sequence[str], subject: str, aspects: Sequence[str] = ()
    ) -> list[ValueEvidence]:
        """Where the subject's current values of ``aspects`` (none: all) are stated: each
        stating observation with the active note built from it (``None`` when it has
        none), newest statement first.
        """
        prepared = pq.current_value_evidence(encode_namespace(namespace), subject, aspects)
        return [
            ValueEvidence(a, v, int(o), None if n is None else int(n), t)
            for a, v, o, n, t in await self._rows(prepared)
        ]

    async def values_in_period(
        self,
        namespace: Sequence[str],
        subject: str,
        aspects: Sequence[str],
        start: datetime,
        end: datetime,
    ) -> list[StoredValue]:
        """The subject's values of ``aspects`` (none: all) that held at some time in
        ``[start, end)``, with their sources.
        """
        ns = encode_namespace(namespace)
        return _values_with_sources(
            await self._rows(pq.values_in_period(ns, subject, aspects, start, end))
        )


def _values_with_sources(rows: Iterable[Sequence[Any]]) -> list[StoredValue]:
    """Values from the rows of one value-with-sources statement (a value's rows are
    consecutive; a value without sources has one row with NULL source columns).
    """
    values: dict[int, StoredValue] = {}
    sources: dict[int, list[ValueSource]] = {}
    for row in rows:
        value = values.setdefault(int(row[0]), StoredValue(*row[:11]))
        if row[11] is not None:
            sources.setdefault(value.id, []).append(ValueSource(*row[11:]))
    return [replace(v, sources=tuple(sources.get(v.id, ()))) for v in values.values()]
