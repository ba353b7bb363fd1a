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
"""

from __future__ import annotations

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
