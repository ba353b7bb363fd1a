"""What the storage layer hands back (an observation as stored, a scored id) and the
checks every write applies first (text that can be stored whole, one content per key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from langmemcore._errors import ObservationConflictError
from langmemcore._validate import LIMITS, check_key, validate_text

__all__ = [
    "DEFAULT_MAX_OBSERVATION_CHARS",
    "ObservationRecord",
    "Scored",
    "checked_observation",
    "content_hash",
    "ensure_same_content",
    "validate_text",
]

DEFAULT_MAX_OBSERVATION_CHARS = LIMITS.text_chars
"""Longest observation text accepted by default (split longer documents before writing);
also the most a configuration may set (see :attr:`~langmemcore._validate.Limits.text_chars`)."""


@dataclass(frozen=True)
class ObservationRecord:
    """An observation as stored, and whether this call created it.

    Attributes:
        id: Database id.
        key: Key unique within the namespace.
        content: The raw text, exactly as given.
        content_hash: SHA-256 of the content.
        speaker: Who said it, if known.
        event_time: When it happened, if known.
        created: ``True`` if this call inserted it, ``False`` if it already existed.
    """

    id: int
    key: str
    content: str
    content_hash: str
    speaker: str | None
    event_time: datetime | None
    created: bool


@dataclass(frozen=True)
class Scored:
    """An id with a score (similarity, match count or rank; higher is better)."""

    id: int
    score: float


def content_hash(text: str) -> str:
    """SHA-256 hex digest of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def ensure_same_content(namespace: Sequence[str], key: str, stored_hash: str, text: str) -> None:
    """Refuse a second, different text under an existing observation key.

    Raises:
        ObservationConflictError: ``text`` differs from what is stored under ``key``.
    """
    if stored_hash != content_hash(text):
        raise ObservationConflictError(
            f"observation {key!r} already exists in {tuple(namespace)} with different "
            "content; observations are immutable"
        )


def checked_observation(key: object, content: object, *, max_chars: int) -> str:
    """Refuse an observation that cannot be stored; returns its content hash.

    Raises:
        InvalidInputError: Empty, oversized or unstorable text (see
            :func:`validate_text`), or a key that is empty or cannot be stored (see
            :func:`~langmemcore._validate.check_key`).
    """
    text = validate_text(content, max_chars=max_chars)
    check_key(key, "observation key")
    return content_hash(text)
