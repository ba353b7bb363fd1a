"""LoCoMo evidence recall with and without supersession, on one memory.

The dev split is ingested once into ``(PREFIX, sample_id)`` (``--ingest``), then every
category 1-4 question is asked with the default settings and with ``supersession`` off
(the configuration of the ``no supersession`` row of ``langmemcore eval locomo
--ablations``), without the other ablation runs. Prints the per-conversation tables, the
gain table and how many searches supersession re-ordered.

With ``--timing ROUNDS`` it only times the questions supersession reads, with and without
it, alternating the order per round.

Run from the repository root (same ``LANGMEMCORE_HOME`` for both steps):
``python benchmarks/supersession_locomo.py ../shared/data/locomo-dev.json --prefix P --ingest``
then the same without ``--ingest`` (or both at once with ``--ingest``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import replace

from langmemcore import Memory
from langmemcore.eval.locomo_eval import _ask_all, ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS
from langmemcore.eval.report import FULL, EvalReport
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.retrieval.state_question import state_question
from langmemcore.text import analyze_query


async def _timing(
    memory: Memory, conversations: list[Conversation], prefix: str, rounds: int
) -> str:
    """Search time of the questions supersession reads (present, or before a change), with
    it and without it, alternating the two per round: the median of the per-round ratio.
    """
    full = memory.retrieval
    off = replace(full, supersession=False)
    asked = []
    for conversation in conversations:
        for question in conversation.retrieval_questions:
            query = analyze_query(question.question)
            if state_question(question.question, query.times, query.entities, full):
                asked.append(((prefix, conversation.sample_id), question.question))
    ratios = []
    for round_ in range(rounds):
        spent = {}
        for config in (full, off) if round_ % 2 == 0 else (off, full):
            start = time.perf_counter()
            for namespace, question in asked:
                await memory.asearch(namespace, question, k=20, config=config)
            spent[config.supersession] = time.perf_counter() - start
        ratios.append(spent[True] / spent[False])
    ratios.sort()
    return (
        f"{len(asked)} questions read by supersession, {rounds} rounds alternating: search time "
        f"with / without, median {statistics.median(ratios):.3f} (min {ratios[0]:.3f}, "
        f"max {ratios[-1]:.3f})"
    )


async def _run(path: str, prefix: str, ingest: bool, ask: bool, rounds: int) -> None:
    """Ingest and / or ask, then print the report (or only the timing, with ``rounds``)."""
    conversations = load_locomo(path)
    memory = await Memory.aopen(None, embeddings=None)
    try:
        if ingest:
            await ingest_conversations(memory, conversations, prefix)
            await memory.aflush()
            print(f"ingested into {prefix}", flush=True)
        if rounds:
            print(await _timing(memory, conversations, prefix, rounds))
            return
        if not ask:
            return
        full = memory.retrieval
        runs = {FULL: await _ask_all(memory, conversations, prefix, full, DEFAULT_KS, None)}
        off = replace(full, supersession=False)
        runs["no supersession"] = await _ask_all(
            memory, conversations, prefix, off, DEFAULT_KS, None
        )
        tables = {name: run.table for name, run in runs.items() if name != FULL}
        report = EvalReport(runs[FULL].table, {}, tables, runs[FULL].seconds, runs)
        print(report.format_markdown())
        print(f"\nsearches re-ordered by supersession: {runs[FULL].cost.superseded}")
    finally:
        await memory.database.dispose()


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("path", help="LoCoMo JSON file")
    parser.add_argument("--prefix", required=True, help="namespace prefix of the memory")
    parser.add_argument("--ingest", action="store_true", help="ingest the conversations first")
    parser.add_argument("--no-ask", action="store_true", help="only ingest")
    parser.add_argument(
        "--timing", type=int, default=0, metavar="ROUNDS", help="only time the searches it reads"
    )
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.prefix, args.ingest, not args.no_ask, args.timing))


if __name__ == "__main__":
    main()
