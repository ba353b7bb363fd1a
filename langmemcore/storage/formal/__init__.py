"""The formal layer's data: the query log, note confidence, capacity usage and the archive.

:mod:`~langmemcore.storage.formal.queries` builds the statements,
:class:`~langmemcore.storage.formal.access.FormalAccess` runs them (and ``Repository``
inherits it).
"""

from __future__ import annotations

from langmemcore.storage.formal.access import FormalAccess, StoredBelief
from langmemcore.storage.formal.queries import ARCHIVED

__all__ = ["ARCHIVED", "FormalAccess", "StoredBelief"]
