"""Profile statements and values in a real Postgres: storage reads, the replay, the
migration."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg

from langmemcore.profiles import AspectStatement
from langmemcore.profiles.replay import forget_statements, rebuild_profiles, record_statements
from langmemcore.storage import Database, Repository, downgrade, upgrade
from tests.conftest import libpq_url
from tests.integration.conftest import UNANALYSED, sql_statements

PROFILE_TABLES = {"profile_statements", "profile_values", "profile_value_sources"}


def day(n: int, month: int = 1, year: int = 2024) -> datetime:
    return datetime(year, month, n, tzinfo=UTC)


async def observe(
    repo: Repository,
    ns: tuple[str, ...],
    key: str,
    when: datetime | None,
    *statements: AspectStatement,
) -> int:
    record = await repo.insert_observation(
        ns, key, f"text of {key}", event_time=when, analysis=UNANALYSED
    )
    await record_statements(repo, ns, record.id, statements)
    return record.id


def home(value: str, *, subject: str = "Nadia", ended: bool = False) -> AspectStatement:
    return AspectStatement(subject, "home", value, ended=ended)


def pet(value: str, *, ended: bool = False) -> AspectStatement:
    return AspectStatement("Nadia", "pet", value, ended=ended)


async def test_single_valued_aspect_keeps_history_with_sources(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        lyon = await observe(repo, ns, "a", day(1), home("Lyon"))
        again = await observe(repo, ns, "b", day(5), home("lyon"))
        hamburg = await observe(repo, ns, "c", day(9), home("Hamburg"))
    async with Repository.open(database, autocommit=True) as repo:
        with sql_statements(database) as sent:
            values = await repo.profile_of(ns, "NADIA")
        subjects = await repo.profile_subjects(ns)
    assert len(sent) == 1, "values and their sources are read in one statement"
    assert [(v.value, v.current, v.end) for v in values] == [
        ("Lyon", False, "replaced"),
        ("Hamburg", True, None),
    ]
    old, new = values
    assert old.replaced_by == new.id and new.replaced_by is None
    assert (old.first_time, old.last_time, old.ended_at) == (day(1), day(5), day(9))
    assert [(s.observation_id, s.key, s.text) for s in old.sources] == [
        (lyon, "a", "text of a"),
        (again, "b", "text of b"),
    ]
    assert [s.observation_id for s in new.sources] == [hamburg]
    assert subjects == [("Nadia", 2, 1)]


async def test_older_observation_arriving_later_becomes_history(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        await observe(repo, ns, "new", day(9), home("Hamburg"))
        await observe(repo, ns, "old", day(1), home("Lyon"))
        values = await repo.profile_of(ns, "nadia")
    assert [(v.value, v.current, v.ended_at) for v in values] == [
        ("Lyon", False, day(9)),
        ("Hamburg", True, None),
    ]


async def test_multi_valued_aspect_accumulates_and_endings_end_matching_values(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        await observe(repo, ns, "a", day(1), pet("dog Max"))
        await observe(repo, ns, "b", day(2), pet("cat Luna"))
        died = await observe(repo, ns, "c", day(3), pet("Max", ended=True))
        await observe(repo, ns, "d", day(4), pet("parrot", ended=True))
        values = await repo.profile_of(ns, "Nadia", ["pet"])
    assert [(v.value, v.current, v.end) for v in values] == [
        ("dog Max", False, "ended"),
        ("cat Luna", True, None),
        ("parrot", False, "ended"),
    ]
    assert [(s.observation_id, s.role) for s in values[0].sources][-1] == (died, "ends")
    assert [s.role for s in values[2].sources] == ["ends"]


async def test_forgetting_statements_replays_their_chains(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        await observe(repo, ns, "a", day(1), home("Lyon"))
        hamburg = await observe(repo, ns, "b", day(9), home("Hamburg"))
        assert await forget_statements(repo, ns, [hamburg]) == [("nadia", "home")]
        values = await repo.profile_of(ns, "Nadia")
    assert [(v.value, v.current, v.replaced_by) for v in values] == [("Lyon", True, None)]


async def test_reads_for_the_channel(database: Database, ns: tuple[str, ...]) -> None:
    async with Repository.open(database) as repo:
        lyon = await repo.insert_observation(
            ns, "a", "I live in Lyon", event_time=day(1), analysis=UNANALYSED
        )
        note = await repo.insert_note(
            ns,
            context="Nadia lives in Lyon",
            embedding=[0.1] * 384,
            keywords=[],
            source_ids=[lyon.id],
        )
        await record_statements(repo, ns, lyon.id, [home("Lyon")])
        berlin = await observe(repo, ns, "b", day(1, 6), home("Berlin"))
        await observe(repo, ns, "c", day(1, 3), AspectStatement("Nadia", "pet", "dog"))
    async with Repository.open(database, autocommit=True) as repo:
        current = await repo.current_value_sources(ns, "nadia", ["home"])
        everything = await repo.current_value_sources(ns, "nadia")
        spring = await repo.values_in_period(ns, "Nadia", ["home"], day(1, 2), day(1, 4))
        with sql_statements(database) as sent:
            summer = await repo.values_in_period(ns, "Nadia", ["home"], day(1, 5), day(1, 7))
        lyon_evidence = await repo.profile_of(ns, "nadia", ["home"])
    assert [(e.value, e.observation_id, e.note_id) for e in current] == [("Berlin", berlin, None)]
    assert {e.aspect for e in everything} == {"home", "pet"}
    assert [v.value for v in spring] == ["Lyon"]
    assert [v.value for v in summer] == ["Lyon", "Berlin"]
    assert len(sent) == 1
    assert [[s.observation_id for s in v.sources] for v in summer] == [[lyon.id], [berlin]]
    assert summer[1].sources[0].key == "b"
    assert lyon_evidence[0].sources[0].observation_id == lyon.id and note > 0


async def test_statements_without_subject_are_dropped(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        await observe(repo, ns, "a", day(1), home("Lyon", subject="  "))
        assert await repo.profile_chains(ns) == []
        assert await repo.profile_subjects(ns) == []


async def test_rebuild_repairs_drifted_values(database: Database, ns: tuple[str, ...]) -> None:
    async with Repository.open(database) as repo:
        await observe(repo, ns, "a", day(1), home("Lyon"))
        await observe(repo, ns, "b", day(9), home("Hamburg"))
        expected = await repo.profile_of(ns, "Nadia")
        await repo.replace_profile_chain(ns, "Nadia", "home", [])
        assert await repo.profile_of(ns, "Nadia") == []
        assert await rebuild_profiles(repo, ns) == 1
        rebuilt = await repo.profile_of(ns, "Nadia")
    strip = [(v.value, v.current, v.first_time, v.ended_at, len(v.sources)) for v in rebuilt]
    assert strip == [(v.value, v.current, v.first_time, v.ended_at, 1) for v in expected]


def profile_tables(url: str) -> set[str]:
    with psycopg.connect(libpq_url(url)) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {r[0] for r in rows} & PROFILE_TABLES


def test_profile_migration_up_down_up(fresh_database_url: str) -> None:
    db = Database(fresh_database_url)
    upgrade(db)
    assert profile_tables(fresh_database_url) == PROFILE_TABLES
    downgrade(db, revision="0008")
    assert profile_tables(fresh_database_url) == set()
    upgrade(db)
    assert profile_tables(fresh_database_url) == PROFILE_TABLES
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        conn.execute(
            "INSERT INTO observations (namespace, key, content, content_hash, analysis) "
            "VALUES ('n', 'k', 't', 'h', '{}')"
        )
        conn.execute(
            "INSERT INTO profile_statements (namespace, observation_id, position, subject, "
            "subject_key, aspect, value, value_key, ended, change, stated_at) "
            "SELECT 'n', id, 0, 'A', 'a', 'home', 'X', 'x', false, false, now() "
            "FROM observations"
        )
        conn.execute("DELETE FROM observations")
        assert conn.execute("SELECT count(*) FROM profile_statements").fetchone() == (0,)
