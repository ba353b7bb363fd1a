"""The ``langmemcore`` command line: a thin layer over the library."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from langmemcore._errors import LangMemCoreError
from langmemcore.embeddings import resolve_embeddings
from langmemcore.storage.database import Database
from langmemcore.storage.diagnostics import inspect_database
from langmemcore.storage.migrations import downgrade, upgrade

__all__ = ["main"]


def _cmd_migrate(args: argparse.Namespace) -> int:
    database = Database.connect(args.url)
    upgrade(database, revision=args.revision, dims=args.dims)
    report = asyncio.run(inspect_database(database))
    print(
        f"schema at revision {report.revision} (head {report.head}), "
        f"embedding dims {report.embedding_dims}"
    )
    return 0


def _cmd_downgrade(args: argparse.Namespace) -> int:
    database = Database.connect(args.url)
    downgrade(database, revision=args.revision)
    print(f"schema downgraded to {args.revision}")
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    database = Database.connect(args.url)
    report = asyncio.run(inspect_database(database))
    embeddings = resolve_embeddings(args.embeddings)
    name = getattr(embeddings, "model_name", None) or getattr(embeddings, "model", None)
    dims = len(embeddings.embed_query("doctor probe"))
    where = "embedded (no DATABASE_URL set)" if report.embedded else "DATABASE_URL / --url"
    schema = report.revision or "none (run `langmemcore migrate`)"
    state = "up to date" if report.revision == report.head else f"head is {report.head}"
    print(f"database:   {report.url}  [{where}]")
    print(f"postgres:   {report.postgres_version}")
    print(f"pgvector:   {report.pgvector_version or 'NOT AVAILABLE'}")
    print(f"schema:     {schema} ({state})")
    print(f"embedder:   {type(embeddings).__name__} {name or ''} ({dims} dims)")
    if report.embedding_dims is not None and report.embedding_dims != dims:
        print(
            f"WARNING: the schema stores {report.embedding_dims}-dim vectors; "
            f"this embedder makes {dims}."
        )
        return 1
    return 0


def _cmd_eval_locomo(args: argparse.Namespace) -> int:
    from langmemcore.eval.locomo import load_locomo
    from langmemcore.eval.locomo_eval import evaluate_locomo
    from langmemcore.memory import Memory

    async def run() -> str:
        memory = await Memory.aopen(args.url)
        report = await evaluate_locomo(
            memory, load_locomo(args.path), ablations=args.ablations, progress=True
        )
        return report.format_markdown() + (
            f"\n\nmean search latency: {report.query_seconds * 1000:.1f} ms\n"
        )

    print(asyncio.run(run()))
    return 0


def _cmd_eval_frontier(args: argparse.Namespace) -> int:
    import uuid
    from pathlib import Path

    from langmemcore.eval.frontier import frontier_locomo
    from langmemcore.eval.locomo import load_locomo
    from langmemcore.memory import Memory

    async def run() -> str:
        memory = await Memory.aopen(args.url)
        report = await frontier_locomo(
            memory,
            load_locomo(args.path),
            prefix=f"frontier-{uuid.uuid4().hex[:8]}",
            seed=args.seed,
            progress=True,
        )
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        report.write_csv(out / "frontier.csv")
        report.plot(out / "frontier.png")
        return f"{report.format_markdown()}\n\nwrote {out / 'frontier.csv'}, {out / 'frontier.png'}"

    print(asyncio.run(run()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``langmemcore`` command."""
    parser = argparse.ArgumentParser(prog="langmemcore", description=__doc__)
    parser.add_argument("--url", help="database URL (default: DATABASE_URL, else embedded)")
    sub = parser.add_subparsers(dest="command", required=True)

    migrate = sub.add_parser("migrate", help="create or upgrade the schema (alembic)")
    migrate.add_argument("--revision", default="head")
    migrate.add_argument(
        "--dims", type=int, default=None, help="embedding dimensions of a new schema (default 384)"
    )
    migrate.set_defaults(func=_cmd_migrate)

    down = sub.add_parser("downgrade", help="take the schema back (alembic downgrade)")
    down.add_argument("revision", help="target revision, e.g. 'base' to drop everything")
    down.set_defaults(func=_cmd_downgrade)

    doctor = sub.add_parser("doctor", help="show the database, versions, schema and embedder")
    doctor.add_argument(
        "--embeddings", default=None, help="'provider:model' (default: local all-MiniLM-L6-v2)"
    )
    doctor.set_defaults(func=_cmd_doctor)
    evaluation = sub.add_parser("eval", help="evaluate memory on a benchmark")
    benchmarks = evaluation.add_subparsers(dest="benchmark", required=True)
    locomo = benchmarks.add_parser("locomo", help="LoCoMo evidence recall@k by turn budget")
    locomo.add_argument("path", help="LoCoMo JSON file (e.g. ../shared/data/locomo-dev.json)")
    locomo.add_argument(
        "--ablations",
        action="store_true",
        help="also run each channel off, the loop off, append-only memory",
    )
    locomo.set_defaults(func=_cmd_eval_locomo)
    front = benchmarks.add_parser(
        "frontier", help="utility-capacity frontier: compaction vs recency, random, oracle"
    )
    front.add_argument("path", help="LoCoMo JSON file (e.g. ../shared/data/locomo-dev.json)")
    front.add_argument("--seed", type=int, default=0, help="seed of the question split")
    front.add_argument("--out", default="frontier-results", help="folder for the CSV and PNG")
    front.set_defaults(func=_cmd_eval_frontier)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except LangMemCoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
