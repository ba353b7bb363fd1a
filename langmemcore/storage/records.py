"""What the storage layer hands back (an observation as stored, a scored id) and the
checks every write applies first (text that can be stored whole, one content per key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from langmemcore._errors import InvalidInputError, ObservationConflictError

__all__ = [
    "DEFAULT_MAX_OBSERVATION_CHARS",
    "ObservationRecord",
    "Scored",
    "checked_observation",
    "content_hash",
    "ensure_same_content",
    "validate_text",
]

DEFAULT_MAX_OBSERVATION_CHARS = 1_000_000
"""Longest observation text accepted by default (split longer documents before writing)."""


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
            :func:`validate_text`), or an empty key.
    """
    text = validate_text(content, max_chars=max_chars)
    if not isinstance(key, str) or not key:
        raise InvalidInputError("observation key must be a non-empty string")
    return content_hash(text)


def validate_text(text: object, *, max_chars: int, what: str = "observation") -> str:
    """Refuse text that cannot be stored whole.

    Raises:
        InvalidInputError: If ``text`` is not a string, is blank, contains NUL bytes
            (Postgres text cannot hold them) or is longer than ``max_chars``.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise InvalidInputError(f"{what} text is empty; nothing to remember")
    if "\x00" in text:
        raise InvalidInputError(f"{what} text contains NUL bytes, which Postgres cannot store")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{what} text has {len(text):,} characters; the limit is {max_chars:,} "
            "(max_observation_chars). Split it into smaller observations; nothing was stored."
        )
    return text
