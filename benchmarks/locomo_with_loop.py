"""LoCoMo evidence recall with the offline refinement loop switched on, alone.

The configuration of the ``with refinement loop`` row of ``langmemcore eval locomo
--ablations`` (the default settings with ``"loop"`` taken out of ``llm_only``), without the
other ablation runs: the one offline setting in which `langmemcore.text.tokens.stem` is
read (by the sufficiency test). Prints the evaluation's markdown report.

Run from the repository root:
``python benchmarks/locomo_with_loop.py ../shared/data/locomo-dev.json``
"""

from __future__ import annotations

import argparse
import asyncio

from langmemcore import Memory
from langmemcore.config import RetrievalConfig
from langmemcore.eval.locomo_eval import evaluate_locomo
from langmemcore.locomo import load_locomo


async def _run(path: str) -> None:
    """Ingest the conversations, ask every question, print the report."""
    conversations = load_locomo(path)
    defaults = RetrievalConfig()
    retrieval = RetrievalConfig(llm_only=tuple(m for m in defaults.llm_only if m != "loop"))
    memory = await Memory.aopen(None, embeddings=None, retrieval=retrieval)
    try:
        report = await evaluate_locomo(memory, conversations)
        print(report.format_markdown())
        print(f"\nmean search latency: {report.query_seconds * 1000:.1f} ms")
    finally:
        await memory.aflush()
        await memory.database.dispose()


def main() -> None:
    """Parse the path and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("path", help="LoCoMo JSON file")
    asyncio.run(_run(parser.parse_args().path))


if __name__ == "__main__":
    main()
