"""Bulk ingest: many observations through the construction graph, pipelined.

The next batch is drafted and embedded while the current one is applied; drafts depend
only on the observations, never on memory, so drafting ahead changes nothing in what gets
stored: the memory is the one that ingesting each observation in turn would give. Topic
evolution that falls due runs in the background, one run at a time
(:class:`~langmemcore.construction.topic_schedule.TopicSchedule`), and once more at the
end, after those runs. An ingest that wrote as many observations as autovacuum's
thresholds ask for analyses the tables it wrote when its last batch is applied
(:mod:`~langmemcore.storage.planner_statistics`), so that the searches after it are
planned for the data it stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.construction.apply import ApplyResult
from langmemcore.construction.gate import NoteDraft
from langmemcore.construction.graph import ConstructionContext
from langmemcore.construction.ingest import ObservationIn, make_drafts
from langmemcore.construction.thread import lead_of
from langmemcore.construction.topic_schedule import TopicSchedule
from langmemcore.construction.topics import TopicSummary
from langmemcore.prompts import LLMUsage
from langmemcore.storage.planner_statistics import analyze_written_tables
from langmemcore.storage.records import content_hash, ensure_same_content
from langmemcore.storage.repository import Repository

__all__ = ["BulkIngest", "IngestReport", "bulk_batches"]

DraftedBatch = tuple[dict[str, str], dict[str, NoteDraft]]
"""A drafted batch: the stored content hashes of its keys, and drafts of the new ones."""


@dataclass(frozen=True)
class IngestReport:
    """Counts of what a bulk ingest did.

    Attributes:
        results: One result per observation, in input order.
        topics: Topic evolutions run during the ingest.
        llm: Model calls the ingest asked for, and how many failed or were skipped (an
            open circuit breaker); each of those was answered by the offline path.
    """

    results: tuple[ApplyResult, ...]
    topics: tuple[TopicSummary, ...]
    llm: LLMUsage = field(default_factory=LLMUsage)

    def count(self, operation: str) -> int:
        """How many observations ended in ``operation`` (append / merge / unchanged)."""
        return sum(1 for r in self.results if r.operation == operation)

    @property
    def links(self) -> int:
        """Edges created."""
        return sum(len(r.edge_ids) for r in self.results)


def bulk_batches(count: int, batch_size: int, first: int = 8) -> list[range]:
    """Split ``count`` observations into drafting batches that double from ``first`` up
    to ``batch_size`` (8, 16, 32, 64, 64, ...).

    Bulk ingest drafts (and embeds) the next batch while it applies the current one; a
    small first batch lets applying start after a few embeddings instead of a full batch.
    """
    batches: list[range] = []
    start, size = 0, max(1, min(first, batch_size))
    while start < count:
        batches.append(range(start, min(start + size, count)))
        start += size
        size = min(size * 2, batch_size)
    return batches


class BulkIngest:
    """One bulk ingest of validated observations into one namespace.

    Iterate :meth:`batches` (each batch's results come once it is applied), then call
    :meth:`finish` for the topic evolutions.

    Args:
        graph: The compiled construction graph.
        context: The graph's runtime context.
        topics: The memory's topic schedule.
        namespace: Where to remember the observations.
        observations: The observations, in event order.
        batch_size: Observations drafted (and embedded) per batch, at most.
        progress: ``True`` for a progress bar on stderr, or a ``(done, total)`` callback.
    """

    def __init__(
        self,
        graph: CompiledStateGraph[Any, Any, Any, Any],
        context: ConstructionContext,
        topics: TopicSchedule,
        namespace: tuple[str, ...],
        observations: Sequence[ObservationIn],
        *,
        batch_size: int,
        progress: ProgressLike = None,
    ) -> None:
        self.graph, self.context, self.topics = graph, context, topics
        self.namespace = namespace
        self.observations = list(observations)
        self.batch_size = batch_size
        self.results: list[ApplyResult] = []
        self._report = progress_callback(progress, "ingest")
        self._first_seen = {o.key: i for i, o in reversed(list(enumerate(self.observations)))}
        self._applied: dict[str, str] = {}
        self._evolving: list[asyncio.Task[TopicSummary]] = []

    async def batches(self) -> AsyncGenerator[list[ApplyResult], None]:
        """Apply the observations in order; yield each batch's results once applied.

        The next batch is being drafted while the consumer handles the yielded one.
        """
        batches = bulk_batches(len(self.observations), self.batch_size)
        ahead = self._draft_ahead(batches, 0)
        try:
            for index, batch in enumerate(batches):
                assert ahead is not None
                stored, drafts = await ahead
                ahead = self._draft_ahead(batches, index + 1)
                done = len(self.results)
                for observation in (self.observations[i] for i in batch):
                    self.results.append(await self._apply(observation, stored, drafts))
                    if self._report:
                        self._report(len(self.results), len(self.observations))
                yield self.results[done:]
            written = sum(1 for r in self.results if r.operation != "unchanged")
            await analyze_written_tables(self.context.database, written)
        finally:
            if ahead is not None:
                ahead.cancel()

    async def finish(self) -> list[TopicSummary]:
        """Wait for the background topic evolutions, then evolve once more if anything
        was written.
        """
        topics = list(await asyncio.gather(*self._evolving))
        if any(r.operation != "unchanged" for r in self.results):
            topics.append(await self.topics.evolve(self.namespace))
        return topics

    async def _apply(
        self, observation: ObservationIn, stored: dict[str, str], drafts: dict[str, NoteDraft]
    ) -> ApplyResult:
        """One observation: unchanged if its key is known, else through the graph's gate."""
        known = stored.get(observation.key) or self._applied.get(observation.key)
        if known is not None:
            ensure_same_content(self.namespace, observation.key, known, observation.text)
            self._applied.setdefault(observation.key, known)
            return ApplyResult("unchanged", 0, None, (), (), "already ingested")
        state = await self.graph.ainvoke(
            {
                "namespace": self.namespace,
                "observation": observation,
                "draft": drafts[observation.key],
                "known_new": True,
            },
            context=self.context,
        )
        result: ApplyResult = state["result"]
        self._applied[observation.key] = content_hash(observation.text)
        due = await self.topics.due(self.namespace, result)
        if due and (not self._evolving or self._evolving[-1].done()):
            self._evolving.append(self.topics.in_background(self.namespace))
        return result

    def _draft_ahead(self, batches: list[range], index: int) -> asyncio.Task[DraftedBatch] | None:
        """Start preparing batch ``index`` while the caller applies the one before it, so
        embedding (in a worker thread) overlaps the database work. Keys seen earlier in
        the input are left to the duplicate check at apply time.
        """
        if index >= len(batches):
            return None
        items = self.observations
        batch = [i for i in batches[index] if self._first_seen[items[i].key] == i]
        return asyncio.get_running_loop().create_task(self._prepare(batch))

    async def _prepare(self, batch: list[int]) -> DraftedBatch:
        """Stored hashes of the batch's keys and drafts of the new ones (embedded in one
        batch), each with its lead: the observation before it in the input when the two
        are in one thread, for the very first the one before it in memory.
        """
        items, ctx = self.observations, self.context
        async with Repository.open(ctx.database, autocommit=True) as repo:
            stored = await repo.observation_hashes(self.namespace, [items[i].key for i in batch])
            first = items[0]
            before = None
            if batch and batch[0] == 0 and first.event_time is not None and first.speaker:
                gap = ctx.config.thread_gap
                before = await repo.observation_before(self.namespace, first.event_time, gap)
        fresh = [i for i in batch if items[i].key not in stored]
        made = await make_drafts(
            [items[i] for i in fresh],
            ctx.embeddings,
            ctx.config,
            ctx.llm,
            leads=[lead_of(items, i, before, ctx.config.thread_gap) for i in fresh],
        )
        await ctx.keywords.vectors([k for d in made for k in d.keywords])
        return stored, dict(zip((items[i].key for i in fresh), made, strict=True))
