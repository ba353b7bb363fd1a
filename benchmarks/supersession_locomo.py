"""LoCoMo evidence recall with and without supersession, on one memory.

The dev split is ingested once into ``(PREFIX, sample_id)`` (``--ingest``), then every
category 1-4 question is asked with the default settings and with ``supersession`` off
(the configuration of the ``no supersession`` row of ``langmemcore eval locomo
--ablations``), without the other ablation runs. Prints the per-conversation tables, the
gain table and how many searches supersession re-ordered.

Run from the repository root (same ``LANGMEMCORE_HOME`` for both steps):
``python benchmarks/supersession_locomo.py ../shared/data/locomo-dev.json --prefix P --ingest``
then the same without ``--ingest`` (or both at once with ``--ingest``).
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace

from langmemcore import Memory
from langmemcore.eval.locomo_eval import _ask_all, ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS
from langmemcore.eval.report import FULL, EvalReport
from langmemcore.locomo import load_locomo


async def _run(path: str, prefix: str, ingest: bool, ask: bool) -> None:
    """Ingest and / or ask, then print the report."""
    conversations = load_locomo(path)
    memory = await Memory.aopen(None, embeddings=None)
    try:
        if ingest:
            await ingest_conversations(memory, conversations, prefix)
            await memory.aflush()
            print(f"ingested into {prefix}", flush=True)
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
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.prefix, args.ingest, not args.no_ask))


if __name__ == "__main__":
    main()
