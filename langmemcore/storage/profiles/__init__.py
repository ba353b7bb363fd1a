"""The semantic layer's data: profile statements, the values replayed from them and their
sources.

:mod:`~langmemcore.storage.profiles.queries` builds the statements,
:class:`~langmemcore.storage.profiles.access.ProfileAccess` runs them (and ``Repository``
inherits it); :mod:`~langmemcore.storage.profiles.records` holds the shapes.
"""

from __future__ import annotations

from langmemcore.storage.profiles.access import Chain, ProfileAccess
from langmemcore.storage.profiles.records import (
    ChainValue,
    StatementLike,
    StoredStatement,
    StoredValue,
    ValueEvidence,
    ValueSource,
    profile_key,
)

__all__ = [
    "Chain",
    "ChainValue",
    "ProfileAccess",
    "StatementLike",
    "StoredStatement",
    "StoredValue",
    "ValueEvidence",
    "ValueSource",
    "profile_key",
]
