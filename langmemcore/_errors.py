"""The exception tree of langmemcore.

Every error the library raises derives from :class:`LangMemCoreError` and, where one
fits, from the matching builtin, so callers can catch either::

    LangMemCoreError
    ├── InvalidNamespaceError      (ValueError, LangGraph's InvalidNamespaceError)
    ├── InvalidInputError          (ValueError)  empty / oversized / malformed input
    ├── ObservationConflictError   (ValueError)  same key, different content
    ├── ConfigurationError         (ValueError)  bad settings, dimension mismatch
    ├── NotFoundError              (KeyError)    a note / lineage row does not exist
    ├── MigrationRequiredError     (RuntimeError) schema behind head: run `langmemcore migrate`
    ├── DatabaseUnavailableError   (ConnectionError) the database cannot be reached
    ├── LLMOutputError             (ValueError)  the model answered something unusable
    └── LLMUnavailableError        (ConnectionError) the model endpoint failed
        └── LLMSkippedError                         not called: its circuit breaker is open

An error that stopped a bulk ingest (``Memory.ingest_many``) part way carries the report
of what was stored before it (:attr:`LangMemCoreError.report`).
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import InvalidNamespaceError as _LangGraphInvalidNamespaceError

__all__ = [
    "ConfigurationError",
    "DatabaseUnavailableError",
    "InvalidInputError",
    "InvalidNamespaceError",
    "LLMOutputError",
    "LLMSkippedError",
    "LLMUnavailableError",
    "LangMemCoreError",
    "MigrationRequiredError",
    "NotFoundError",
    "ObservationConflictError",
    "safe_error_text",
]


class LangMemCoreError(Exception):
    """Root of every error raised by langmemcore.

    Attributes:
        report: For an error that stopped ``Memory.ingest_many`` part way, the
            :class:`~langmemcore.construction.bulk.IngestReport` of the observations
            stored before it (each in a transaction of its own, so none is half stored);
            ``None`` otherwise. Re-sending the whole call is safe: observations are
            idempotent on (namespace, key), so the stored ones come back ``unchanged``.
    """

    report: Any = None


class InvalidNamespaceError(LangMemCoreError, _LangGraphInvalidNamespaceError):
    """A namespace is not a non-empty tuple of non-empty, dot-free strings (or starts with
    the reserved label ``"langgraph"``).

    Also a LangGraph ``InvalidNamespaceError`` (itself a ``ValueError``), so code written
    against LangGraph's stores catches it unchanged.
    """


class InvalidInputError(LangMemCoreError, ValueError):
    """Input text or arguments cannot be stored as given (empty, oversized, wrong type)."""


class ObservationConflictError(LangMemCoreError, ValueError):
    """An observation key already exists in the namespace with different content.

    Observations are immutable; write under a new key or delete the old one first.
    """


class ConfigurationError(LangMemCoreError, ValueError):
    """Settings are inconsistent, e.g. the embedder's dimensions differ from the schema's."""


class NotFoundError(LangMemCoreError, KeyError):
    """A referenced note, observation or lineage row does not exist in the namespace."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class MigrationRequiredError(LangMemCoreError, RuntimeError):
    """The database schema is missing or behind the code's head revision."""


class DatabaseUnavailableError(LangMemCoreError, ConnectionError):
    """The database could not be reached or went away during an operation."""


class LLMOutputError(LangMemCoreError, ValueError):
    """A language model returned output that does not fit the expected schema."""


class LLMUnavailableError(LangMemCoreError, ConnectionError):
    """A language model endpoint failed (timeout, connection refused, server error)."""


class LLMSkippedError(LLMUnavailableError):
    """A language model was not called: its circuit breaker is open after consecutive
    failures (see :class:`langmemcore.config.LLMConfig`).
    """


def safe_error_text(error: BaseException) -> str:
    """A description of ``error`` that is safe to log: its class and, for the library's
    errors about reaching the database or the model endpoint and about the schema (whose
    messages carry no SQL text, parameters or stored values), the first line of its
    message.

    Other errors are described by their class alone: driver errors (whose text holds the
    SQL statement and its parameters), errors about input (whose messages may quote the
    value refused) and about settings (which may quote a URL).
    """
    name = type(error).__name__
    safe = (
        DatabaseUnavailableError,
        MigrationRequiredError,
        LLMUnavailableError,
    )
    if isinstance(error, safe) and str(error).strip():
        return f"{name}: {str(error).strip().splitlines()[0]}"
    return name
