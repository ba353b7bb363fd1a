"""``migrate``, ``downgrade`` and ``doctor``: the schema and the set-up."""

from __future__ import annotations

import argparse
import asyncio

from langmemcore.embeddings import embedding_dims, resolve_embeddings
from langmemcore.storage.database import Database
from langmemcore.storage.diagnostics import inspect_database
from langmemcore.storage.migrations import downgrade, upgrade

__all__ = ["cmd_doctor", "cmd_downgrade", "cmd_migrate"]


def cmd_migrate(args: argparse.Namespace) -> int:
    """Create or upgrade the schema, then print where it stands."""
    database = Database.connect(args.url)
    upgrade(database, revision=args.revision, dims=args.dims)
    report = asyncio.run(inspect_database(database))
    print(
        f"schema at revision {report.revision} (head {report.head}), "
        f"embedding dims {report.embedding_dims}"
    )
    return 0


def cmd_downgrade(args: argparse.Namespace) -> int:
    """Take the schema back to a revision."""
    database = Database.connect(args.url)
    downgrade(database, revision=args.revision)
    print(f"schema downgraded to {args.revision}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print the database, versions, schema and embedder; 1 on a dimension mismatch.

    The schema's dimensions come from its vector column; the local embedder's are known
    without loading the model (another embedder is asked for one probe vector).
    """
    database = Database.connect(args.url)
    report = asyncio.run(inspect_database(database))
    embeddings = resolve_embeddings(args.embeddings)
    name = getattr(embeddings, "model_name", None) or getattr(embeddings, "model", None)
    dims = embedding_dims(embeddings)
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
