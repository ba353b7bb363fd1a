"""Evaluate memory on LoCoMo: evidence recall@k by turn budget, next to raw-turn baselines.

Usage: ``python examples/locomo_eval.py FILE [--limit N] [--sessions N] [--questions N]``.
FILE is a LoCoMo JSON file: the dev split (e.g. ../shared/data/locomo-dev.json) or the tests'
small tests/fixtures/locomo-mini.json. The limits keep a run short (first N conversations, their
first sessions, N questions each). Offline: the local embedder, no LLM. The full run is
``langmemcore eval locomo FILE --ablations``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from langmemcore import Memory
from langmemcore.eval.locomo_eval import evaluate_locomo
from langmemcore.locomo import limit_conversations, load_locomo
from langmemcore.storage import Database, upgrade


async def run(args: argparse.Namespace) -> None:
    conversations = limit_conversations(
        load_locomo(args.file),
        conversations_limit=args.limit,
        sessions_limit=args.sessions,
        questions_limit=args.questions,
    )
    turns = sum(len(c.turns) for c in conversations)
    questions = sum(len(c.retrieval_questions) for c in conversations)
    print(f"{len(conversations)} conversations, {turns} turns, {questions} questions")
    memory = await Memory.aopen()
    report = await evaluate_locomo(memory, conversations, progress=True)
    print(report.format_markdown())
    print(f"\nmean search latency: {report.query_seconds * 1000:.1f} ms")
    await memory.database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--limit", type=int, default=None, help="conversations")
    parser.add_argument("--sessions", type=int, default=None, help="sessions per conversation")
    parser.add_argument("--questions", type=int, default=None, help="questions per conversation")
    args = parser.parse_args()
    if not args.file.is_file():
        print(
            f"locomo_eval.py: LoCoMo file not found: {args.file}; pass the path of a LoCoMo JSON "
            "file, e.g. python examples/locomo_eval.py tests/fixtures/locomo-mini.json",
            file=sys.stderr,
        )
        sys.exit(2)
    upgrade(Database.connect())
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
