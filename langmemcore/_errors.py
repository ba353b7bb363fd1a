"""The exception tree of langmemcore.

Every error the library raises derives from :class:`LangMemCoreError` and, where one
fits, from the matching builtin, so callers can catch either::

    LangMemCoreError
    ├── InvalidNamespaceError      (ValueError, LangGraph's InvalidNamespaceError)
    ├── InvalidInputError          (ValueError)  empty / oversized / malformed input
    │   └── IngestRefusedError                      ... during ``ingest_many`` (``.report``)
    ├── ObservationConflictError   (ValueError)  same key, different content
    │   └── IngestConflictError                     ... during ``ingest_many`` (``.report``)
    ├── ConfigurationError         (ValueError)  bad settings, dimension mismatch
    ├── NotFoundError              (KeyError)    a note / lineage row does not exist
    ├── MigrationRequiredError     (RuntimeError) schema behind head: run `langmemcore migrate`
    ├── DatabaseUnavailableError   (ConnectionError) the database cannot be reached
    │   └── IngestInterruptedError                  ... during ``ingest_many`` (``.report``)
    ├── LLMOutputError             (ValueError)  the model answered something unusable
    └── LLMUnavailableError        (ConnectionError) the model endpoint failed
        └── LLMSkippedError                         not called: its circuit breaker is open

The three ``Ingest...Error`` classes also derive from :class:`IngestError`, which carries
the report of what a failed ``ingest_many`` stored before it stopped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph.store.base import InvalidNamespaceError as _LangGraphInvalidNamespaceError

if TYPE_CHECKING:
    from langmemcore.construction.bulk import IngestReport

__all__ = [
    "ConfigurationError",
    "DatabaseUnavailableError",
    "IngestConflictError",
    "IngestError",
    "IngestInterruptedError",
    "IngestRefusedError",
    "InvalidInputError",
    "InvalidNamespaceError",
    "LLMOutputError",
    "LLMSkippedError",
    "LLMUnavailableError",
    "LangMemCoreError",
    "MigrationRequiredError",
    "NotFoundError",
    "ObservationConflictError",
    "ingest_error",
    "safe_error_text",
]


class LangMemCoreError(Exception):
    """Root of every error raised by langmemcore."""


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


class IngestError(LangMemCoreError):
    """A bulk ingest (``Memory.ingest_many``) stopped part way.

    The observations before the failing one are stored (each in its own transaction) and
    listed in :attr:`report`; the rest are not (when the topic evolution at the end
    failed, all are stored and listed). Re-sending the whole call is safe:
    observations are idempotent on (namespace, key), so the stored ones come back as
    ``unchanged`` and nothing is duplicated. The error that stopped the ingest is the
    ``__cause__``.

    Args:
        message: What went wrong.
        report: What was stored before the failure.

    Attributes:
        report: The :class:`~langmemcore.construction.bulk.IngestReport` of the
            observations stored before the failure, in input order.
    """

    def __init__(self, message: str, report: IngestReport) -> None:
        super().__init__(message)
        self.report = report


class IngestInterruptedError(IngestError, DatabaseUnavailableError):
    """The database went away during a bulk ingest (see :class:`IngestError`)."""


class IngestRefusedError(IngestError, InvalidInputError):
    """The database refused an observation's value during a bulk ingest (see
    :class:`IngestError`).
    """


class IngestConflictError(IngestError, ObservationConflictError):
    """A bulk ingest met a stored key with different content (see :class:`IngestError`)."""


def safe_error_text(error: BaseException) -> str:
    """A description of ``error`` that is safe to log: its class and, for the library's
    own errors (whose messages never carry SQL text or parameters), its message.

    Other errors (driver errors among them, whose text holds the SQL statement and its
    parameters) are described by their class alone.
    """
    name = type(error).__name__
    if isinstance(error, LangMemCoreError) and str(error):
        return f"{name}: {str(error).strip().splitlines()[0]}"
    return name


def ingest_error(cause: Exception, report: IngestReport) -> Exception:
    """The error a bulk ingest raises when ``cause`` stopped it with ``report`` stored:
    an :class:`IngestError` of the cause's kind (``cause`` itself for a kind without
    one, e.g. a programming error).
    """
    kinds: tuple[tuple[type[Exception], type[IngestError]], ...] = (
        (DatabaseUnavailableError, IngestInterruptedError),
        (ObservationConflictError, IngestConflictError),
        (InvalidInputError, IngestRefusedError),
    )
    stored = sum(1 for r in report.results if r.operation != "unchanged")
    for kind, error in kinds:
        if isinstance(cause, kind):
            return error(
                f"{cause} (the ingest stopped after {len(report.results)} observations, "
                f"{stored} of them newly stored; re-sending the call is safe)",
                report,
            )
    return cause
