"""Evaluate memory on LoCoMo: evidence recall@k by turn budget, next to raw-turn baselines.

Usage: ``python examples/locomo_eval.py [FILE] [--limit N] [--sessions N] [--questions N]``.
FILE defaults to ../shared/data/locomo-dev.json (next to the source tree); the limits keep
a run short (first N conversations, their first sessions, N questions each). Offline: the
local embedder, no LLM. The full run is ``langmemcore eval locomo FILE --ablations``.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from langmemcore import Memory
from langmemcore.eval.locomo import limit_conversations, load_locomo
from langmemcore.eval.locomo_eval import evaluate_locomo
from langmemcore.storage import Database, upgrade

DEFAULT_FILE = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "locomo-dev.json"


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
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--limit", type=int, default=None, help="conversations")
    parser.add_argument("--sessions", type=int, default=None, help="sessions per conversation")
    parser.add_argument("--questions", type=int, default=None, help="questions per conversation")
    args = parser.parse_args()
    upgrade(Database.connect())
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
