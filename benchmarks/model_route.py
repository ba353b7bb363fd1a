"""Benchmark: the model route against offline, on the same slice of a conversation and on
knowledge-update sets.

Run from the repository root (a model served first, e.g. ``python
benchmarks/local_model.py serve``)::

    python benchmarks/model_route.py ../shared/data/locomo-dev.json --llm NAME \\
        --llm-url http://127.0.0.1:8080/v1 [--conversation conv-26] [--turns 300] \\
        [--questions 40] [--active 10] [--updates tests/data/knowledge_updates_heldout4.json] \\
        [--concurrency 2] [--call-timeout 120]

Each route (``offline``: no model; ``model``: the model for everything it serves —
ingestion, the gate's ambiguous band, profile statements, query intent, sufficiency and
sub-queries — and the offline path wherever a call fails) remembers the first ``--turns``
turns of the conversation in a namespace of its own (one fresh embedded Postgres unless
``--url``) and reports:

- per step: calls, failures, skipped calls, rejected answer parts, seconds and tokens;
- observations lost (not a source of any note) and exceptions;
- LoCoMo recall at 5 and 20 (turn budget, as ``langmemcore eval locomo``) over the first
  ``--questions`` questions whose evidence lies within the slice, and the mean seconds per
  search (the refinement loop on where a model is);
- with the model, the share of the first ``--active`` of those questions on which the
  active agent returns notes;
- for each ``--updates`` set, its knowledge-update summary lines.

``--concurrency`` is the number of calls in flight (``LLMConfig.concurrency``): the server's
slots, so that no call waits in the server's queue on its clock.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from langmemcore.cli._format import usage_lines
from langmemcore.cli._llm import chat_model
from langmemcore.config import ConstructionConfig, LLMConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.knowledge_updates import (
    evaluate_updates,
    ingest_update_set,
    load_update_set,
)
from langmemcore.eval.metrics import RecallTable
from langmemcore.io import conversation_observations
from langmemcore.locomo import Question, load_locomo
from langmemcore.memory import Memory
from langmemcore.prompts import LLMUsage
from langmemcore.storage import Database, Repository, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]

KS = (5, 20)


@dataclass
class RouteReport:
    """What one route did and scored."""

    name: str
    ingest_seconds: float = 0.0
    ingest: LLMUsage = field(default_factory=LLMUsage)
    search: LLMUsage = field(default_factory=LLMUsage)
    lost: int = 0
    exceptions: list[str] = field(default_factory=list)
    recall: RecallTable = field(default_factory=lambda: RecallTable(KS))
    search_seconds: list[float] = field(default_factory=list)
    active_found: list[bool] = field(default_factory=list)
    updates: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report's lines."""
        seconds = self.search_seconds or [0.0]
        overall = self.recall.report()["overall"]
        out = [
            f"## {self.name}",
            f"ingest: {self.ingest_seconds:.0f} s, {self.lost} observations lost, "
            f"{len(self.exceptions)} exceptions",
            *(f"  {line}" for line in usage_lines(self.ingest)),
            f"recall ({overall.n} questions): "
            + ", ".join(f"R@{k} {overall.recall.get(k, 0.0):.1f}" for k in KS),
            f"search: {statistics.mean(seconds):.2f} s mean, {statistics.median(seconds):.2f} "
            f"s median, {max(seconds):.2f} s max",
            *(f"  {line}" for line in usage_lines(self.search)),
        ]
        if self.active_found:
            found = sum(self.active_found)
            out.append(f"active agent returned notes on {found}/{len(self.active_found)}")
        out.extend(self.updates)
        out.extend(f"exception: {e}" for e in self.exceptions)
        return out


def _add(into: LLMUsage, usage: LLMUsage) -> None:
    for name, step in usage.steps.items():
        total = into.step(name)
        for attribute, value in vars(step).items():
            setattr(total, attribute, getattr(total, attribute) + value)


async def _lost(database: Database, ns: tuple[str, ...], turns: Sequence[ObservationIn]) -> int:
    """Observations of ``turns`` not stored, or stored and a source of no note of ``ns``."""
    async with Repository.open(database) as repo:
        stored = await repo.observations(ns, [turn.key for turn in turns])
        held = [await repo.notes_of_observation(ns, o.id) for o in stored.values()]
    return len(turns) - sum(1 for notes in held if notes)


async def _questions(
    memory: Memory,
    report: RouteReport,
    ns: tuple[str, ...],
    questions: Sequence[Question],
    active: int,
) -> None:
    for question in questions:
        started = time.perf_counter()
        results = await memory.asearch(ns, question.question, k=max(KS))
        report.search_seconds.append(time.perf_counter() - started)
        _add(report.search, results.llm)
        ranked = [[s.key for s in n.sources] for n in results]
        report.recall.add(question.category, ranked, question.evidence)
    for question in questions[:active]:
        found = await memory.asearch(ns, question.question, k=10, mode="active")
        report.active_found.append(len(found) > 0)


async def run_route(
    name: str,
    memory: Memory,
    turns: Sequence[ObservationIn],
    questions: Sequence[Question],
    active: int,
    updates: Sequence[Path],
) -> RouteReport:
    """Remember ``turns`` with ``memory``, ask ``questions`` and the update sets."""
    report, ns = RouteReport(name), ("route", name, uuid.uuid4().hex[:8])
    started = time.perf_counter()
    try:
        ingested = await memory.aingest_many(ns, turns, progress=True)
        await memory.aflush()
    except Exception as exc:  # counted and shown: the figure is how many there were
        report.exceptions.append(f"ingest: {type(exc).__name__}: {exc}")
        return report
    report.ingest_seconds = time.perf_counter() - started
    report.ingest = ingested.llm
    report.lost = await _lost(memory.database, ns, turns)
    await _questions(memory, report, ns, questions, active if memory.llm else 0)
    for path in updates:
        prefix = f"updates-{name}-{uuid.uuid4().hex[:8]}"
        update_set = load_update_set(path)
        await ingest_update_set(memory, update_set, prefix)
        summary = (await evaluate_updates(memory, update_set, prefix)).summary()
        report.updates.extend(f"{path.name}: {line}" for line in summary)
    return report


def _slice(
    path: Path, conversation: str, turns: int, questions: int
) -> tuple[list[ObservationIn], list[Question]]:
    chosen = next(c for c in load_locomo(path) if c.sample_id == conversation)
    observations = conversation_observations(chosen)[:turns]
    keys = {o.key for o in observations}
    asked = [q for q in chosen.retrieval_questions if set(q.evidence) <= keys]
    return observations, asked[:questions]


async def _run(args: argparse.Namespace, llm: BaseChatModel | None) -> None:
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-route-")))
    database = Database(url)
    upgrade(database)
    embeddings = LocalEmbeddings()
    turns, questions = _slice(args.locomo, args.conversation, args.turns, args.questions)
    print(f"{args.conversation}: {len(turns)} turns, {len(questions)} questions")
    for route in args.routes:
        model = llm if route == "model" else None
        config = ConstructionConfig(profile_llm=model is not None)
        calls = LLMConfig(concurrency=args.concurrency, call_timeout=args.call_timeout)
        memory = Memory(database, embeddings, llm=model, config=config, llm_config=calls)
        report = await run_route(route, memory, turns, questions, args.active, args.updates)
        print("\n".join(report.lines()), flush=True)
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", type=Path, help="a LoCoMo JSON file")
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--active", type=int, default=10, help="questions for the agent")
    parser.add_argument("--updates", type=Path, nargs="*", default=[], help="update sets")
    parser.add_argument("--routes", nargs="+", default=["offline", "model"])
    parser.add_argument("--llm", default=os.environ.get("LANGMEMCORE_LLM"))
    parser.add_argument("--llm-url", default=os.environ.get("LANGMEMCORE_LLM_URL"))
    parser.add_argument(
        "--concurrency", type=int, default=2, help="calls in flight: the server's slots"
    )
    parser.add_argument("--call-timeout", type=float, default=120.0, help="seconds per call")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    llm = chat_model(args.llm, args.llm_url) if args.llm else None
    if "model" in args.routes and llm is None:
        parser.error("the model route needs --llm (and --llm-url for a local server)")
    asyncio.run(_run(args, llm))


if __name__ == "__main__":
    main()
