"""Re-threading: notes stored before thread vectors (schema 0010 gave them their own
embedding) get the thread vectors an ingest gives today, through the library and the
command line, batch by batch; a note that changed meanwhile is left alone."""

from __future__ import annotations

import pytest

from langmemcore import InvalidNamespaceError
from langmemcore._bridge import run_sync
from langmemcore.config import ConstructionConfig
from langmemcore.construction.rethread import RethreadReport
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, downgrade, upgrade
from langmemcore.storage.repository import Repository
from tests.integration.conftest import Cli
from tests.integration.test_thread_vectors import TURNS, assert_threads, vectors_by_key

NS = ("rethread", "ana-ben")
LEADS = 5
"""Notes of TURNS with a lead (see ``assert_threads``)."""


@pytest.fixture()
def stored_before_0010(fresh_database_url: str, embeddings: LocalEmbeddings) -> str:
    """A database whose notes of TURNS were stored, then taken through migration 0010
    (downgraded to 0009 and upgraded again): every thread vector is the note's own.
    """
    setup = Database(fresh_database_url)
    upgrade(setup)
    Memory(setup, embeddings).ingest_many(NS, TURNS)
    run_sync(setup.dispose())
    downgrade(setup, revision="0009")
    upgrade(setup)
    return fresh_database_url


def test_rethreading_gives_old_notes_the_thread_vectors_of_an_ingest(
    stored_before_0010: str, embeddings: LocalEmbeddings
) -> None:
    database = Database(stored_before_0010)
    memory = Memory(database, embeddings)
    old = run_sync(vectors_by_key(database, NS))
    assert all(thread == pytest.approx(own) for _, own, thread in old.values())
    seen: list[tuple[int, int]] = []
    report = memory.rethread(NS, batch_size=3, progress=lambda *done: seen.append(done))
    notes = len({context for context, _, _ in old.values()})
    assert report == RethreadReport(notes, LEADS, notes - LEADS, 0)
    assert_threads(run_sync(vectors_by_key(database, NS)), embeddings)
    assert seen[-1] == (notes, notes) and len(seen) == -(-notes // 3)
    again = memory.rethread(NS)
    assert again == RethreadReport(notes - LEADS, 0, notes - LEADS, 0)
    assert memory.rethread(("rethread", "nobody")) == RethreadReport(0, 0, 0, 0)
    with pytest.raises(InvalidNamespaceError):
        memory.rethread(("rethread", ""))
    run_sync(database.dispose())


def test_a_note_that_changed_meanwhile_is_left_alone(
    stored_before_0010: str, embeddings: LocalEmbeddings
) -> None:
    database = Database(stored_before_0010)

    async def write_for_a_stale_context() -> bool:
        async with Repository.open(database) as repo:
            (note, *_) = await repo.unthreaded_notes(NS, 0, 1, ConstructionConfig().thread_gap)
            return await repo.set_thread_vector(NS, note.note_id, "an older context", [0.5] * 384)

    assert run_sync(write_for_a_stale_context()) is False
    run_sync(database.dispose())


def test_the_command_rethreads_every_namespace_below_a_prefix(
    stored_before_0010: str, cli: Cli
) -> None:
    code, out, err = cli("--url", stored_before_0010, "rethread", "--namespace", "rethread")
    assert code == 0, err
    assert out.startswith(f"rethread.ana-ben: {LEADS} of ") and "without a lead" in out
    assert "rethread [" in err
    code, out, _ = cli("--url", stored_before_0010, "rethread", "--namespace", "nobody")
    assert (code, out) == (0, "no notes to re-thread\n")
