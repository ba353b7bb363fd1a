"""Set-ups the integration tests share: the command line run in process against the migrated
test database, a namespace filled through the construction graph, active mode's tools, and
a log of the SQL statements sent."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

import pytest

from langmemcore.analysis import Analysis
from langmemcore.cli import main
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.diagnostics import statement_hooks

UNANALYSED = Analysis().to_json()
"""The analysis of an observation that states nothing later steps read (for tests that
write observations through the storage layer directly)."""


class CliRun(NamedTuple):
    """What one in-process run of ``langmemcore`` gave back."""

    code: int
    out: str
    err: str


Cli = Callable[..., CliRun]
Ingested = Callable[[str, Sequence[ObservationIn]], Awaitable[tuple[str, ...]]]


@pytest.fixture()
def url(database: Database, database_url: str) -> str:
    """The migrated test database's URL (for ``--url``)."""
    return database_url


@pytest.fixture()
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``langmemcore ARGS...`` run in process: its exit code, stdout and stderr."""

    def run(*args: str) -> CliRun:
        code = main(list(args))
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


@pytest.fixture(scope="session")
def ingested(database: Database, embeddings: LocalEmbeddings) -> Ingested:
    """Ingest turns through the construction graph into a fresh namespace ``(label, <hex>)``."""

    async def fill(label: str, turns: Sequence[ObservationIn]) -> tuple[str, ...]:
        namespace = (label, uuid.uuid4().hex[:12])
        await Memory(database, embeddings).aingest_many(namespace, turns)
        return namespace

    return fill


@pytest.fixture(scope="session")
def active_tools() -> list[str]:
    """The traversal tools active mode binds to the model, in their order."""
    return [
        "find_keywords",
        "keyword_tags",
        "notes_for",
        "note_cues",
        "timeline",
        "topic_notes",
        "person_profile",
        "person_aspect",
    ]


@contextmanager
def sql_statements(database: Database) -> Iterator[list[str]]:
    """Every SQL statement sent through the database's engines of the running event loop
    while the block runs (:func:`langmemcore.storage.diagnostics.statement_hooks`)."""
    sent: list[str] = []
    with statement_hooks(database, sent.append):
        yield sent
