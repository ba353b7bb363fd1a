"""Validity stored on the notes, decided when written, against real Postgres: when Nadia
says she moved to Hamburg, the note of the move supersedes the note of her life in Lyon (a
``supersedes`` edge), which stopped being valid when the move was said; undo, forget and
unmerge leave validity as the remaining notes and edges say, and revision 0014 decides an
existing database as the writes did.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import psycopg
import pytest

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.retriever import MemoryRetriever
from langmemcore.storage import Database, Repository, downgrade, upgrade
from langmemcore.storage.notes.validity_queries import refresh_valid_to
from tests.conftest import libpq_url

from .plans import add_filler_notes, analysed_plan, rows_read
from .test_profiles import MOVE_MERGED_INTO_A_VISIT, NADIA, T0, observations

Validity = tuple[datetime | None, datetime | None]


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


async def validity(database: Database, ns: tuple[str, ...], note_id: int) -> Validity:
    """(valid_from, valid_to) of one note."""
    async with Repository.open(database, autocommit=True) as repo:
        (note,) = await repo.get_notes(ns, [note_id])
    return note.valid_from, note.valid_to


async def superseded(database: Database, ns: tuple[str, ...]) -> set[tuple[int, int]]:
    """(newer, older) of every ``supersedes`` edge of the namespace."""
    async with Repository.open(database, autocommit=True) as repo:
        edges = await repo.edges_of(ns, await repo.active_note_ids(ns))
    return {(e.source_id, e.target_id) for e in edges if e.relation == "supersedes"}


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


async def test_a_change_supersedes_what_it_changes_when_written(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    lyon, nurse, hamburg, max_died = (r.note_id for r in report.results)
    assert await superseded(database, ns) == {(hamburg, lyon), (max_died, lyon)}
    assert await validity(database, ns, lyon) == (day(0), day(30))
    assert await validity(database, ns, hamburg) == (day(30), None)
    assert await validity(database, ns, nurse) == (day(1), None)


CHANGES = [
    *NADIA,
    ("p1", "Pia", "I work as a pastry chef at a bakery in Porto.", 0),
    ("p2", "Pia", "We went hiking in the Alps, gorgeous views.", 10),
    ("p3", "Pia", "I quit the bakery, now I roast coffee at a roastery in Lisbon.", 400),
    ("k1", "Koen", "My car is an old Fiat Panda.", 0),
    ("k2", "Koen", "Finally sold the Panda and bought a Toyota Yaris.", 200),
]
"""Changes naming what their speaker said before them, and one ending it ("Max died"):
arriving first, a change must not take the older statement in as a merge."""


async def superseded_keys(database: Database, ns: tuple[str, ...]) -> set[tuple[str, ...]]:
    """(newer's keys, older's keys) of every ``supersedes`` edge of the namespace."""
    async with Repository.open(database, autocommit=True) as repo:
        notes = await repo.note_evidence(ns, await repo.active_note_ids(ns))
    keys = {n: ",".join(sorted(s.key for s in note.sources)) for n, note in notes.items()}
    return {(keys[newer], keys[older]) for newer, older in await superseded(database, ns)}


async def test_an_observation_arriving_late_is_decided_as_if_in_order(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest_many(ns, observations(CHANGES))
    in_order = await superseded_keys(database, ns)
    assert in_order == {("n3", "n1"), ("n4", "n1"), ("p3", "p1"), ("k2", "k1")}
    late = (*ns, "late")
    for item in reversed(observations(CHANGES)):
        await memory.aingest(
            late, item.text, key=item.key, speaker=item.speaker, event_time=item.event_time
        )
    assert await superseded_keys(database, late) == in_order
    async with Repository.open(database, autocommit=True) as repo:
        (porto,) = await repo.active_notes_of_observation_keys(late, ["p1"])
    assert await validity(database, late, porto) == (day(0), day(400))


async def test_forget_and_undo_derive_validity_again(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    lyon, _, hamburg, max_died = (r.note_id for r in report.results)
    await memory.aforget(ns, "n3")
    assert await superseded(database, ns) == {(max_died, lyon)}
    assert await validity(database, ns, lyon) == (day(0), day(60))
    async with Repository.open(database, autocommit=True) as repo:
        assert hamburg not in await repo.active_note_ids(ns)
        observation = await repo.observation(ns, "n4")
        assert observation is not None
        links = await repo.links_in_force(ns, max_died, observation.id)
    (link,) = [r for r in links if r.after and r.after["relation"] == "supersedes"]
    await memory.aundo(ns, link.id)
    assert await superseded(database, ns) == set()
    assert await validity(database, ns, lyon) == (day(0), None)


async def test_unmerge_decides_again_for_the_restored_note(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations(MOVE_MERGED_INTO_A_VISIT))
    lyon, visit = report.results[0].note_id, report.results[1].note_id
    assert (report.results[2].operation, report.results[2].note_id) == ("merge", visit)
    assert await superseded(database, ns) == {(visit, lyon)}
    assert await validity(database, ns, visit) == (day(60), None)
    assert await validity(database, ns, lyon) == (day(0), day(60))

    (moved,) = await memory.aunmerge(ns, visit)
    assert await superseded(database, ns) == {(moved, lyon)}
    assert await validity(database, ns, visit) == (day(1), None)
    assert await validity(database, ns, moved) == (day(60), None)
    assert await validity(database, ns, lyon) == (day(0), day(60))


async def test_revision_0014_decides_an_existing_database_as_the_writes_did(
    fresh_database_url: str, embeddings: LocalEmbeddings
) -> None:
    database = Database(fresh_database_url)
    upgrade(database)
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    ns = ("validity", "migrated")
    items = [*NADIA, ("n5", "Nadia", "I moved again, to a flat in Bremen.", 90)]
    await memory.aingest_many(ns, observations(items))
    written = await superseded(database, ns)
    ids = sorted({n for pair in written for n in pair})
    states = [await validity(database, ns, n) for n in ids]
    assert len(written) >= 3
    count = "SELECT count(*) FROM lineage WHERE after ->> 'relation' = 'supersedes'"
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        links = conn.execute(count).fetchone()

    downgrade(database, revision="0013")
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        left = conn.execute(
            "SELECT (SELECT count(*) FROM edges WHERE relation = 'supersedes'), "
            "(SELECT count(*) FROM notes WHERE valid_from IS NOT NULL OR valid_to IS NOT NULL)"
        ).fetchone()
    assert left == (0, 0)

    upgrade(database)
    assert await superseded(database, ns) == written
    assert [await validity(database, ns, n) for n in ids] == states
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        assert conn.execute(count).fetchone() == links
    await database.dispose()


async def test_a_search_returns_validity_as_it_stood_at_its_reference_time(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    lyon, hamburg = report.results[0].note_id, report.results[2].note_id
    question = "Where does Nadia live?"
    now = {n.note_id: n for n in await memory.asearch(ns, question, k=10)}
    assert (now[lyon].valid_from, now[lyon].valid_to) == (day(0), day(30))
    assert (now[hamburg].valid_from, now[hamburg].valid_to) == (day(30), None)
    then = {n.note_id: n for n in await memory.asearch(ns, question, k=10, as_of=day(20))}
    assert (then[lyon].valid_from, then[lyon].valid_to) == (day(0), None)
    assert hamburg not in then
    documents = await MemoryRetriever(memory=memory, namespace=ns, k=10).ainvoke(question)
    (document,) = [d for d in documents if d.metadata["note_id"] == lyon]
    assert document.metadata["valid_to"] == day(30).isoformat()


async def test_deriving_validity_again_reads_the_notes_it_names_not_the_namespace(
    memory: Memory, database_url: str, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    lyon, _nurse, hamburg, _max_died = (r.note_id for r in report.results)
    name = ".".join(ns)
    add_filler_notes(database_url, name, lyon, 1000)
    plan = analysed_plan(database_url, refresh_valid_to(name, [hamburg]))
    assert 0 < rows_read(plan, "notes") <= 20
