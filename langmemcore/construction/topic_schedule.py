"""When topic evolution is due, and the background runs it starts.

Topics are a namespace-wide job, not a step of one observation: after every
``topic_every`` new notes in a namespace (:class:`~langmemcore.config.ConstructionConfig`)
the next write starts a run of :func:`~langmemcore.construction.topics.evolve_topics`,
in the background unless the caller waits for it, followed by the namespace's own vector
indexes once it is large enough (:mod:`~langmemcore.construction.namespace_indexes`). The
count starts from the database (the notes newer than the newest topic) and is kept in
process from then on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langmemcore.config import ConstructionConfig
from langmemcore.construction.apply import ApplyResult
from langmemcore.construction.namespace_indexes import ensure_namespace_indexes
from langmemcore.construction.topics import TopicSummary, evolve_topics
from langmemcore.storage.database import Database
from langmemcore.storage.repository import Repository

__all__ = ["TopicSchedule"]


class TopicSchedule:
    """Counts new notes per namespace and runs topic evolution when it falls due.

    Args:
        database: Where memory lives.
        config: Construction settings (``topic_every`` and the topics' size bounds).
    """

    def __init__(self, database: Database, config: ConstructionConfig) -> None:
        self.database = database
        self.config = config
        self._since_topics: dict[tuple[str, ...], int] = {}
        self._background: set[asyncio.Task[Any]] = set()

    async def due(self, namespace: tuple[str, ...], result: ApplyResult) -> bool:
        """Count the write's new note; whether the namespace's topics are due.

        Counts new notes per namespace (from the database once, then in process).
        """
        every = self.config.topic_every
        if every <= 0 or result.operation == "unchanged":
            return False
        if namespace not in self._since_topics:
            async with Repository.open(self.database, autocommit=True) as repo:
                self._since_topics[namespace] = await repo.notes_since_topics(namespace)
        elif result.operation == "append":
            self._since_topics[namespace] += 1
        return self._since_topics[namespace] >= every

    async def after_write(
        self, namespace: tuple[str, ...], result: ApplyResult, *, wait: bool
    ) -> None:
        """Evolve the namespace's topics if the write made them due.

        Args:
            namespace: The namespace written.
            result: What the write did.
            wait: Run a due evolution before returning instead of in the background.
        """
        if await self.due(namespace, result):
            if wait:
                await self.evolve(namespace)
            else:
                self.in_background(namespace)

    async def evolve(self, namespace: tuple[str, ...]) -> TopicSummary:
        """Recompute the namespace's topic groups now (and restart its count); then give
        the namespace the vector indexes of its own that its size asks for
        (:func:`~langmemcore.construction.namespace_indexes.ensure_namespace_indexes`).
        """
        self._since_topics[namespace] = 0
        async with Repository.open(self.database) as repo:
            summary = await evolve_topics(
                repo,
                namespace,
                min_size=self.config.topic_min_size,
                max_size=self.config.topic_max_size,
                seed=self.config.topic_seed,
            )
        await ensure_namespace_indexes(self.database, namespace, self.config.namespace_index_notes)
        return summary

    def in_background(self, namespace: tuple[str, ...]) -> asyncio.Task[TopicSummary]:
        """Start :meth:`evolve` as a task that :meth:`flush` waits for."""
        task = asyncio.get_running_loop().create_task(self.evolve(namespace))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def flush(self) -> None:
        """Wait for the background runs (and any they were waiting behind)."""
        while self._background:
            await asyncio.gather(*list(self._background))
