"""Benchmark: LoCoMo evidence recall and search latency with and without the propagation
channel, per conversation, same run.

Run from the repository root: ``python benchmarks/propagation_recall.py
[../shared/data/locomo-dev.json] [--limit N] [--url URL]``

Each conversation is ingested once (``Memory.aingest_many``, default settings, no LLM,
local all-MiniLM-L6-v2) into a fresh namespace of one Postgres (a fresh embedded server in
a temporary folder unless ``--url`` / ``DATABASE_URL``). Every category 1-4 question is
then asked twice, back to back: with the default settings and the propagation channel
taken out of ``llm_only`` so that it runs offline ("on"), and the same without it
("off", what the defaults run offline); which runs first alternates from question to
question, so that load on the machine falls on both alike. Prints, per conversation and
overall, R@5 / R@20 and multi-hop R@5 / R@20 of both, the overall tables, and the median
search latency of both with the median and quartiles of the per-question ratio on / off.
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
from dataclasses import replace
from pathlib import Path

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.locomo_eval import ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS, RecallTable
from langmemcore.locomo import Conversation, limit_conversations, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]

DEFAULT_PATH = Path("../shared/data/locomo-dev.json")
"""The LoCoMo dev split, next to the repository."""

RUNS = ("on", "off")


def _configs(memory: Memory) -> dict[str, RetrievalConfig]:
    config = memory.retrieval
    on = replace(config, llm_only=tuple(m for m in config.llm_only if m != "propagation"))
    off = replace(on, channels=tuple(c for c in on.channels if c != "propagation"))
    return {"on": on, "off": off}


async def _ask(
    memory: Memory, conversations: Sequence[Conversation], prefix: str
) -> tuple[dict[str, dict[str, RecallTable]], dict[str, list[float]]]:
    configs = _configs(memory)
    tables: dict[str, dict[str, RecallTable]] = {run: {} for run in RUNS}
    seconds: dict[str, list[float]] = {run: [] for run in RUNS}
    asked = 0
    for conversation in conversations:
        for run in RUNS:
            tables[run][conversation.sample_id] = RecallTable(DEFAULT_KS)
        for question in conversation.retrieval_questions:
            for run in RUNS if asked % 2 == 0 else RUNS[::-1]:
                start = time.perf_counter()
                notes = await memory.asearch(
                    (prefix, conversation.sample_id),
                    question.question,
                    k=max(DEFAULT_KS),
                    config=configs[run],
                )
                seconds[run].append(time.perf_counter() - start)
                sources = [[s.key for s in n.sources] for n in notes]
                tables[run][conversation.sample_id].add(
                    question.category, sources, question.evidence
                )
                tables[run].setdefault("overall", RecallTable(DEFAULT_KS)).add(
                    question.category, sources, question.evidence
                )
            asked += 1
    return tables, seconds


def _report(tables: dict[str, dict[str, RecallTable]], seconds: dict[str, list[float]]) -> str:
    lines = [
        "| conversation | run | R@5 | R@20 | multi-hop R@5 | multi-hop R@20 |",
        "|---|---|---|---|---|---|",
    ]
    for name in [*(n for n in tables["on"] if n != "overall"), "overall"]:
        for run in RUNS:
            rows = tables[run][name].report()
            multi = rows.get("multi-hop")
            cells = [rows["overall"].recall[5], rows["overall"].recall[20]]
            cells += [multi.recall[5], multi.recall[20]] if multi else [float("nan")] * 2
            lines.append(f"| {name} | {run} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    for run in RUNS:
        lines += ["", f"### {run}", "", tables[run]["overall"].format_markdown()]
    ratios = [a / b for a, b in zip(seconds["on"], seconds["off"], strict=True)]
    q1, _median, q3 = statistics.quantiles(ratios, n=4)
    lines.append(
        f"search latency median: on {1000 * statistics.median(seconds['on']):.1f} ms, "
        f"off {1000 * statistics.median(seconds['off']):.1f} ms; per-question ratio on/off "
        f"median {statistics.median(ratios):.3f} (quartiles {q1:.3f} - {q3:.3f}, "
        f"{len(ratios)} questions)"
    )
    return "\n".join(lines)


async def _run(path: Path, limit: int | None, url: str) -> str:
    conversations = limit_conversations(load_locomo(path), conversations_limit=limit)
    database = Database(url)
    await asyncio.to_thread(upgrade, database)
    memory = Memory(database, LocalEmbeddings())
    prefix = f"propagation-{uuid.uuid4().hex[:8]}"
    try:
        await ingest_conversations(memory, conversations, prefix)
        await memory.aflush()
        tables, seconds = await _ask(memory, conversations, prefix)
    finally:
        await database.dispose()
    return _report(tables, seconds)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments, run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--limit", type=int, default=None, help="conversations evaluated")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args(argv)
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    print(asyncio.run(_run(args.path, args.limit, url)))


if __name__ == "__main__":
    main()
