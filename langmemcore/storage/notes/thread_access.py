"""Data access to threads (see :mod:`~langmemcore.storage.notes.thread_queries`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.notes import thread_queries as tq

__all__ = ["Exchange", "Said", "ThreadAccess", "Unthreaded"]


@dataclass(frozen=True)
class Said:
    """An observation as a thread reads it.

    Attributes:
        text: Its raw text.
        speaker: Who said it, if known.
        event_time: When it happened, if known.
        analysis: Its stored analysis (see :mod:`~langmemcore.analysis`), where read.
    """

    text: str
    speaker: str | None
    event_time: datetime | None
    analysis: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Exchange:
    """The turns around a note in its thread.

    Attributes:
        lead: The turn before its latest source, which its thread vector embeds, if any.
        reply: The turn after its latest source, if its thread goes on.
    """

    lead: Said | None
    reply: Said | None


@dataclass(frozen=True)
class Unthreaded:
    """A note whose thread vector is still its own embedding.

    Attributes:
        note_id: The note.
        context: Its context.
        source: Its latest source (text left empty).
        before: The observation a one-at-a-time ingest would have read as the latest
            source's lead (at or before its time, at most the thread gap earlier), if any.
    """

    note_id: int
    context: str
    source: Said
    before: Said | None


class ThreadAccess(SessionBound):
    """Threads of a namespace's observations and its notes' thread vectors, within one
    transaction.
    """

    async def observation_before(
        self, namespace: Sequence[str], event_time: datetime, gap: timedelta
    ) -> str | None:
        """The text of the namespace's latest observation at or before ``event_time`` and
        at most ``gap`` before it, if it has a speaker (the thread's predecessor of a turn
        about to be stored at ``event_time``); ``None`` otherwise.
        """
        prepared = tq.observation_before(encode_namespace(namespace), event_time, gap)
        row = (await self._rows(prepared)).first()
        return None if row is None or not row[1] else str(row[0])

    async def exchanges_of(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, Exchange]:
        """The lead and the reply of each of ``note_ids`` that has either: the turn before
        its latest source in its thread, which its thread vector embeds, and the turn after
        it (see :func:`~langmemcore.storage.notes.thread_queries.exchanges_of`).
        """
        rows = await self._rows(tq.exchanges_of(encode_namespace(namespace), note_ids))
        exchanges = {}
        for note_id, lead, lead_speaker, lead_found, reply, reply_speaker, reply_found in rows:
            if lead is not None or reply is not None:
                exchanges[int(note_id)] = Exchange(
                    None if lead is None else Said(str(lead), lead_speaker, None, lead_found),
                    None if reply is None else Said(str(reply), reply_speaker, None, reply_found),
                )
        return exchanges

    async def unthreaded_count(self, namespace: Sequence[str]) -> int:
        """How many active notes have their own embedding as thread vector."""
        return int(await self._scalar(tq.unthreaded_count(encode_namespace(namespace))))

    async def unthreaded_notes(
        self, namespace: Sequence[str], after: int, batch: int, gap: timedelta
    ) -> list[Unthreaded]:
        """Up to ``batch`` unthreaded notes with ids above ``after``, by id, each with its
        latest source and the observation before it (see
        :func:`~langmemcore.storage.notes.thread_queries.unthreaded_notes`).
        """
        prepared = tq.unthreaded_notes(encode_namespace(namespace), after, batch, gap)
        found = []
        for note_id, context, speaker, time, text, before_speaker, before_time in await self._rows(
            prepared
        ):
            before = None if text is None else Said(str(text), before_speaker, before_time)
            found.append(Unthreaded(int(note_id), str(context), Said("", speaker, time), before))
        return found

    async def set_thread_vector(
        self, namespace: Sequence[str], note_id: int, context: str, vector: Sequence[float]
    ) -> bool:
        """Give an unthreaded note its thread vector; ``False`` (nothing written) when its
        context or thread vector changed since it was read.
        """
        prepared = tq.set_thread_vector(encode_namespace(namespace), note_id, context, vector)
        return await self._scalar(prepared) is not None
