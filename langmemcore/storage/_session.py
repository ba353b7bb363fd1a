"""The base of every data-access class: one transaction's session, private.

Every statement reaches the database through the four executors here, and every builder
returns a :class:`~langmemcore.storage.prepared.Prepared` (statement and values), so a
caller never chooses between ``execute(stmt)`` and ``execute(*stmt)``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Result, ScalarResult
from sqlalchemy.ext.asyncio import AsyncSession

from langmemcore.storage.prepared import Prepared

__all__ = ["SessionBound"]


class SessionBound:
    """Data access bound to one transaction.

    Args:
        session: The transaction's session (private to storage).
    """

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def _rows(self, prepared: Prepared) -> Result[*tuple[Any, ...]]:
        """Execute ``prepared`` and return its result rows."""
        return await self._session.execute(prepared.statement, prepared.params)

    async def _scalars(self, prepared: Prepared) -> ScalarResult[Any]:
        """Execute ``prepared`` and return the first column of each row."""
        return await self._session.scalars(prepared.statement, prepared.params)

    async def _scalar(self, prepared: Prepared) -> Any:
        """Execute ``prepared`` and return the first column of the first row, or None."""
        return await self._session.scalar(prepared.statement, prepared.params)

    async def _run(self, prepared: Prepared) -> None:
        """Execute ``prepared`` for its effect."""
        await self._session.execute(prepared.statement, prepared.params)
