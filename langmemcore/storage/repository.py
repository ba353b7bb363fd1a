"""The data access of one transaction, grouped by data: notes with their sources, edges
and lineage (:mod:`~langmemcore.storage.notes`), keywords and topics
(:mod:`~langmemcore.storage.topics`), the retrieval reads
(:mod:`~langmemcore.storage.search`), MRAgent's graph walk
(:mod:`~langmemcore.storage.traversal`), the store's items
(:mod:`~langmemcore.storage.items`), the formal layer's reads and writes
(:mod:`~langmemcore.storage.formal`), a large namespace's own vector indexes
(:mod:`~langmemcore.storage.namespace_indexes`), the semantic layer's profiles
(:mod:`~langmemcore.storage.profiles`) and the evaluation's reads
(:mod:`~langmemcore.storage.stats`).

A :class:`Repository` is bound to one ``AsyncSession`` (one transaction); open it with
:meth:`Repository.open`. Every method takes the namespace as a tuple, validates it and
filters by it first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langmemcore.storage.database import Database
from langmemcore.storage.formal.access import FormalAccess
from langmemcore.storage.items import ItemAccess
from langmemcore.storage.namespace_indexes import NamespaceIndexAccess
from langmemcore.storage.notes import NoteAccess
from langmemcore.storage.profiles import ProfileAccess
from langmemcore.storage.search import SearchAccess
from langmemcore.storage.stats import EvalReads
from langmemcore.storage.topics import TopicAccess
from langmemcore.storage.traversal import TraversalAccess

__all__ = ["Repository"]


class Repository(
    NoteAccess,
    TopicAccess,
    SearchAccess,
    TraversalAccess,
    ItemAccess,
    FormalAccess,
    ProfileAccess,
    EvalReads,
    NamespaceIndexAccess,
):
    """Namespace-scoped data access within one transaction.

    Args:
        session: The transaction's session.
    """

    @classmethod
    @asynccontextmanager
    async def open(
        cls, database: Database, *, autocommit: bool = False
    ) -> AsyncIterator[Repository]:
        """Open a transaction on ``database``: committed on exit, rolled back on error.

        Args:
            database: The database.
            autocommit: Run each statement on its own, outside a transaction block (see
                :meth:`Database.reader`): for reads that need no common snapshot, such as
                one retrieval channel, and single-statement writes, such as a search's
                log row.
        """
        opener = database.reader if autocommit else database.session
        async with opener() as session:
            yield cls(session)
