"""Reads of the retrieval graph's last step: the evidence packed for the best notes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from langmemcore._namespace import encode_namespace
from langmemcore.storage._session import SessionBound
from langmemcore.storage.models import decode_vector
from langmemcore.storage.search import evidence

__all__ = ["Evidence", "SearchAccess", "SourceRow"]


class SourceRow(NamedTuple):
    """A source observation of a note: its key, speaker, event time and text."""

    key: str
    speaker: str | None
    event_time: datetime | None
    text: str


class Evidence(NamedTuple):
    """What a search returns about one active note.

    Attributes:
        id: The note.
        context: Its text.
        keywords: Its cues.
        vector: Its embedding.
        sources: Its source observations, in event order.
        topic: The label of the topic sharing most keywords with it, if any.
    """

    id: int
    context: str
    keywords: tuple[str, ...]
    vector: npt.NDArray[np.float32]
    sources: tuple[SourceRow, ...]
    topic: str | None


class SearchAccess(SessionBound):
    """The retrieval graph's reads of evidence, namespace first."""

    async def note_evidence(
        self, namespace: Sequence[str], note_ids: Sequence[int]
    ) -> dict[int, Evidence]:
        """The active notes among ``note_ids`` with their sources and topic, by id (see
        :func:`~langmemcore.storage.search.evidence.evidence_rows`).
        """
        rows = await self._rows(evidence.evidence_rows(encode_namespace(namespace), note_ids))
        return {
            row.id: Evidence(
                row.id,
                row.context,
                tuple(row.keywords),
                decode_vector(row.vector),
                tuple(
                    SourceRow(key, speaker, datetime.fromisoformat(when) if when else None, text)
                    for key, speaker, when, text in row.sources or ()
                ),
                row.topic,
            )
            for row in rows
        }
