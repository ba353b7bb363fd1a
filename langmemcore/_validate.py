"""Input validation at the edges: every string, number and structure a caller hands to
``Memory``, ``MemoryStore``, ``MemoryRetriever`` or the CLI is checked here, before any
write or query, against limits derived from what Postgres accepts.

Pure functions; each raises :class:`~langmemcore.InvalidInputError` (a ``ValueError``)
naming the argument and the limit. Namespaces are checked in :mod:`langmemcore._namespace`
with the same limits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langmemcore._errors import InvalidInputError

__all__ = [
    "LIMITS",
    "Limits",
    "check_as_of",
    "check_count",
    "check_event_time",
    "check_filter",
    "check_fraction",
    "check_json",
    "check_k",
    "check_key",
    "check_mapping",
    "check_observation",
    "check_query",
    "check_search",
    "check_score",
    "check_speaker",
    "check_string",
    "check_ttl",
    "validate_text",
]

BIGINT_MAX = 2**63 - 1
"""Largest value of a Postgres ``bigint`` (limits, offsets and ids are bound as one)."""


@dataclass(frozen=True)
class Limits:
    """What one call may hand over. Sizes of strings in btree-indexed columns keep every
    index row under Postgres's 2,704-byte maximum (namespace + key + row overhead).
    """

    text_chars: int = 250_000
    """Longest observation (or indexed item) text: a note's full-text vector holds at most
    1 MB of distinct lexemes, and a character takes at most 4 bytes of UTF-8."""

    key_bytes: int = 1024
    """Longest observation or item key, in UTF-8 bytes (unique index on namespace + key)."""

    label_bytes: int = 512
    """Longest namespace label, in UTF-8 bytes."""

    namespace_bytes: int = 1024
    """Longest namespace, its labels joined by ``"."``, in UTF-8 bytes."""

    namespace_depth: int = 64
    """Most labels in a namespace."""

    speaker_bytes: int = 1024
    """Longest speaker name, in UTF-8 bytes (speakers are GIN-indexed)."""

    value_depth: int = 64
    """Deepest nesting of a store value, metadata or filter (dicts and lists)."""

    keyword_chars: int = 100
    """Longest keyword kept; longer extracted phrases (a 3,000-character "word") are
    dropped, since keywords are btree- and GIN-indexed."""

    query_chars: int = 10_000
    """Longest query text."""

    k: int = 1000
    """Most notes one search returns (``k`` of ``Memory.search`` and the retriever)."""

    count: int = BIGINT_MAX
    """Largest limit, offset or id (a Postgres ``bigint``)."""

    ttl_minutes: float = 1e9
    """Longest item time-to-live in minutes (about 1,900 years; Postgres timestamps end
    in the year 294276)."""


LIMITS = Limits()
"""The limits every entry point applies."""


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def check_string(
    value: object,
    what: str,
    *,
    max_bytes: int | None = None,
    max_chars: int | None = None,
    blank: bool = True,
) -> str:
    """Refuse a string Postgres cannot store, or one over a size limit.

    Args:
        value: The candidate.
        what: Its name in the error message.
        max_bytes: Longest accepted UTF-8 encoding, if limited.
        max_chars: Most characters accepted, if limited.
        blank: Whether an empty or whitespace-only string is accepted.

    Returns:
        The string.

    Raises:
        InvalidInputError: Not a string, NUL bytes, a lone surrogate (not encodable as
            UTF-8), blank when not allowed, or over a limit.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}")
    if not blank and not value.strip():
        raise InvalidInputError(f"{what} is empty")
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains NUL bytes, which Postgres cannot store")
    if max_chars is not None and len(value) > max_chars:
        raise InvalidInputError(f"{what} has {len(value):,} characters; the limit is {max_chars:,}")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} contains a lone surrogate at position {exc.start}, which is not UTF-8"
        ) from None
    if max_bytes is not None and size > max_bytes:
        raise InvalidInputError(f"{what} takes {size:,} bytes of UTF-8; the limit is {max_bytes:,}")
    return value


def validate_text(text: object, *, max_chars: int, what: str = "observation") -> str:
    """Refuse text that cannot be stored whole.

    Raises:
        InvalidInputError: If ``text`` is not a string, is blank, contains NUL bytes or a
            lone surrogate, or is longer than ``max_chars``.
    """
    if isinstance(text, str) and len(text) > max_chars:
        raise InvalidInputError(
            f"{what} text has {len(text):,} characters; the limit is {max_chars:,} "
            "(max_observation_chars). Split it into smaller observations; nothing was stored."
        )
    return check_string(text, f"{what} text", blank=False)


def check_key(key: object, what: str = "key") -> str:
    """A non-empty observation or item key of at most :attr:`Limits.key_bytes`."""
    return check_string(key, what, max_bytes=LIMITS.key_bytes, blank=False)


def check_speaker(speaker: object) -> str | None:
    """``None`` or a speaker name of at most :attr:`Limits.speaker_bytes`."""
    if speaker is None:
        return None
    return check_string(speaker, "speaker", max_bytes=LIMITS.speaker_bytes)


def check_event_time(value: object) -> datetime | None:
    """``None`` or a ``datetime`` (a string such as ``"yesterday"`` is refused)."""
    if value is None or isinstance(value, datetime):
        return value
    raise InvalidInputError(f"event_time must be a datetime or None, got {_describe(value)}")


def check_as_of(value: object) -> datetime | None:
    """``None`` or a timezone-aware time a search is asked at: a ``datetime`` or an ISO 8601
    string (``"2023-06-30T00:00:00+00:00"``); a naive time, another string or another type
    is refused.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value
        try:
            value = datetime.fromisoformat(text.strip())
        except ValueError:
            raise InvalidInputError(
                f"as_of must be an ISO 8601 time with a timezone, got {text[:40]!r}"
            ) from None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"as_of must be a datetime or None, got {_describe(value)}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInputError(
            f"as_of must carry a timezone (e.g. {value.isoformat()}+00:00), got a naive time"
        )
    return value


def check_query(query: object) -> str:
    """A non-blank query of at most :attr:`Limits.query_chars` characters."""
    return check_string(query, "query", max_chars=LIMITS.query_chars, blank=False)


def _integer(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{what} must be an integer, got {_describe(value)}")
    return value


def check_count(value: object, what: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    """An integer in ``[minimum, maximum]`` (default maximum: :attr:`Limits.count`)."""
    number = _integer(value, what)
    top = LIMITS.count if maximum is None else maximum
    if not minimum <= number <= top:
        raise InvalidInputError(f"{what} must be between {minimum:,} and {top:,}, got {number:,}")
    return number


def check_k(k: object, what: str = "k") -> int:
    """A positive number of results, at most :attr:`Limits.k`."""
    return check_count(k, what, minimum=1, maximum=LIMITS.k)


def _real(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{what} must be a number, got {_describe(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidInputError(f"{what} must be finite, got {number}")
    return number


def check_fraction(value: object, what: str) -> float:
    """A finite number in ``[0, 1]`` (an outcome, a confidence)."""
    number = _real(value, what)
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{what} must be between 0 and 1, got {number}")
    return number


def check_score(value: object, what: str) -> float:
    """A finite number (a score floor)."""
    return _real(value, what)


def check_ttl(ttl: object) -> float | None:
    """``None`` (no expiry) or minutes in ``(0, Limits.ttl_minutes]``."""
    if ttl is None:
        return None
    minutes = _real(ttl, "ttl")
    if not 0.0 < minutes <= LIMITS.ttl_minutes:
        raise InvalidInputError(
            f"ttl must be more than 0 and at most {LIMITS.ttl_minutes:g} minutes, got {minutes:g}"
        )
    return minutes


def _child(where: str, step: str) -> str:
    """Where a nested value sits (``value['a'][0]``), shortened past a few levels."""
    if len(where) > 60:
        return where if where.endswith("[...]") else f"{where}[...]"
    return f"{where}[{step}]"


def check_json(value: object, what: str, depth: int = 0) -> None:
    """Refuse data that JSON (and Postgres ``jsonb``) cannot hold exactly.

    Args:
        value: The candidate (dicts with string keys, lists, tuples, strings, numbers,
            booleans, ``None``).
        what: Where it sits, for the error message.
        depth: Nesting level of ``value`` (0 at the top).

    Raises:
        InvalidInputError: Nested deeper than :attr:`Limits.value_depth`, a non-string
            key, NaN or infinity, a string Postgres cannot store, or a non-JSON object.
    """
    if isinstance(value, str):
        check_string(value, what)
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInputError(f"{what} is {value}, which JSON cannot represent")
    if value is None or isinstance(value, bool | int | float):
        return
    if not isinstance(value, Mapping | list | tuple):
        raise InvalidInputError(f"{what} is a {type(value).__name__}, which is not JSON")
    if depth >= LIMITS.value_depth:
        raise InvalidInputError(f"{what} is nested deeper than {LIMITS.value_depth} levels")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInputError(f"{what} has a non-string key {_describe(k)}")
            check_string(k, f"{what} key")
            check_json(v, _child(what, _describe(k)), depth + 1)
        return
    for i, v in enumerate(value):
        check_json(v, _child(what, str(i)), depth + 1)


def check_mapping(value: object, what: str) -> dict[str, Any]:
    """A JSON dict (see :func:`check_json`), as a plain ``dict``."""
    if not isinstance(value, Mapping):
        raise InvalidInputError(
            f"{what} must be a dict (a mapping with string keys), got {type(value).__name__}"
        )
    check_json(value, what)
    return dict(value)


def check_filter(filter: object, operators: tuple[str, ...]) -> dict[str, Any] | None:
    """``None`` or a store filter: a JSON dict whose ``$`` keys are known operators."""
    if filter is None:
        return None
    checked = check_mapping(filter, "filter")
    pending: list[object] = [checked]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            for key, inner in node.items():
                if key.startswith("$") and key not in operators:
                    raise InvalidInputError(
                        f"Unsupported filter operator {key!r}; use one of {', '.join(operators)}"
                    )
                pending.append(inner)
        elif isinstance(node, list | tuple):
            pending.extend(node)
    return checked


def check_observation(
    key: object,
    text: object,
    speaker: object,
    event_time: object,
    metadata: object,
    *,
    max_chars: int,
) -> None:
    """Refuse an observation any of whose fields cannot be stored.

    Args:
        key: Its key (``None``: the text's hash is used).
        text: Its text (see :func:`validate_text`).
        speaker: Who said it, or ``None``.
        event_time: When it happened, or ``None``.
        metadata: JSON metadata, or ``None``.
        max_chars: Longest accepted text.

    Raises:
        InvalidInputError: The first field that cannot be stored.
    """
    validate_text(text, max_chars=max_chars)
    if key is not None:
        check_key(key, "observation key")
    check_speaker(speaker)
    check_event_time(event_time)
    if metadata is not None:
        check_mapping(metadata, "metadata")


def check_search(query: object, k: object, token_budget: object, min_confidence: object) -> None:
    """Refuse search arguments that cannot be run: the query (see :func:`check_query`),
    ``k`` (``None`` or see :func:`check_k`), a token budget (``None`` or a positive
    integer) and a confidence floor (``None`` or in ``[0, 1]``).

    Raises:
        InvalidInputError: The first argument that cannot be used.
    """
    check_query(query)
    if k is not None:
        check_k(k)
    if token_budget is not None:
        check_count(token_budget, "token_budget", minimum=1)
    if min_confidence is not None:
        check_fraction(min_confidence, "min_confidence")
