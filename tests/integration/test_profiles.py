"""Profiles built by construction (both paths) and kept consistent by undo, unmerge,
forget and repair, against Postgres with the real embedder and the offline extractor."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.messages import AIMessage

from langmemcore import InvalidInputError
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.profiles.resolve import resolve_chain
from langmemcore.storage import Database, Repository
from tests.integration.scripted_model import ScriptedChatModel

T0 = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)

NADIA = [
    ("n1", "Nadia", "I live in Lyon with my dog Max.", 0),
    ("n2", "Omar", "I work as a nurse at the city hospital.", 1),
    ("n3", "Nadia", "Big news: I moved to Hamburg last month!", 30),
    ("n4", "Nadia", "My dog Max died last week, I miss him.", 60),
]


MOVE_MERGED_INTO_A_VISIT = [
    ("a", "Nadia", "I live in Lyon.", 0),
    ("c", "Nadia", "We visited Hamburg last month and loved it.", 1),
    ("m", "Nadia", "We live in Hamburg since last month and love it.", 60),
]
"""The move ("m") is merged into the note of the visit ("c")."""


def observations(items: list[tuple[str, str, str, int]] = NADIA) -> list[ObservationIn]:
    return [ObservationIn(k, text, who, T0 + timedelta(days=d)) for k, who, text, d in items]


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


def shape(memory_profile: object) -> dict[str, list[tuple[str, bool, str | None, list[str]]]]:
    from langmemcore.profiles import Profile

    assert isinstance(memory_profile, Profile)
    return {
        a.aspect: [
            (v.value, v.current, v.replaced_by, [f"{s.role}:{s.key}" for s in v.sources])
            for v in a.values
        ]
        for a in memory_profile.aspects
    }


async def assert_consistent(database: Database, ns: tuple[str, ...]) -> None:
    """Every stored value is the replay of its chain's statements and every value is
    stated by a live observation."""
    async with Repository.open(database, autocommit=True) as repo:
        for subject_key, aspect in await repo.profile_chains(ns):
            statements = await repo.profile_statements_of(ns, subject_key, aspect)
            replayed = resolve_chain(aspect, statements)
            stored = await repo.profile_of(ns, subject_key, [aspect])
            assert [(v.value, v.current, v.end, v.first_time) for v in stored] == [
                (v.value, v.current, v.end, v.first_time) for v in replayed
            ]
            for value in stored:
                stating = [s for s in value.sources if s.role == "states"]
                assert stating, value
                for source in value.sources:
                    assert await repo.has_observation(ns, source.observation_id)


async def test_ingest_builds_profiles_with_history_sources_and_a_conflict_link(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    results = [
        await memory.aingest(ns, o.text, key=o.key, speaker=o.speaker, event_time=o.event_time)
        for o in observations()
    ]
    profile = await memory.aprofile(ns, "nadia")
    assert profile.subject == "Nadia"
    assert shape(profile) == {
        "home": [
            ("Lyon", False, "Hamburg", ["states:n1"]),
            ("Hamburg", True, None, ["states:n3"]),
        ],
        "pet": [("dog Max", False, None, ["states:n1", "ends:n4"])],
    }
    home = profile.aspect("home")
    assert home is not None and home.history[0].ended_at == T0 + timedelta(days=30)
    assert profile.current() == {"home": ("Hamburg",)}
    assert (await memory.aprofile(ns, "Omar")).current() == {"work": ("nurse",)}
    lyon_note, hamburg_note = results[0].note_id, results[2].note_id
    async with Repository.open(database, autocommit=True) as repo:
        edges = await repo.edges_of(ns, [hamburg_note])
    conflicts = [e for e in edges if e.relation == "conflicts" and e.tag == "home"]
    assert [(e.source_id, e.target_id) for e in conflicts] == [(hamburg_note, lyon_note)]
    assert conflicts[0].id in results[2].edge_ids
    assert [s.subject for s in await memory.asubjects(ns)] == ["Nadia", "Omar"]
    await assert_consistent(database, ns)


async def test_bulk_ingest_gives_the_same_profiles_as_one_by_one(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    other = (ns[0], ns[1] + "-bulk")
    for o in observations():
        await memory.aingest(ns, o.text, key=o.key, speaker=o.speaker, event_time=o.event_time)
    await memory.aingest_many(other, observations())
    for subject in ("Nadia", "Omar"):
        assert shape(await memory.aprofile(other, subject)) == shape(
            await memory.aprofile(ns, subject)
        )
    await assert_consistent(database, other)


async def test_an_older_observation_arriving_late_is_history(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    late = [NADIA[2], NADIA[0]]
    await memory.aingest_many(ns, observations(late))
    home = (await memory.aprofile(ns, "Nadia")).aspect("home")
    assert home is not None
    assert [(v.value, v.current) for v in home.values] == [("Lyon", False), ("Hamburg", True)]
    await assert_consistent(database, ns)


async def test_forget_keeps_profiles_consistent(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest_many(ns, observations())
    await memory.aforget(ns, "n3")
    profile = await memory.aprofile(ns, "Nadia")
    assert shape(profile)["home"] == [("Lyon", True, None, ["states:n1"])]
    await assert_consistent(database, ns)
    await memory.aforget(ns, "n4")
    assert shape(await memory.aprofile(ns, "Nadia"))["pet"] == [
        ("dog Max", True, None, ["states:n1"])
    ]
    await memory.aforget(ns, "n1")
    assert (await memory.aprofile(ns, "Nadia")).aspects == ()
    assert [s.subject for s in await memory.asubjects(ns)] == ["Omar"]
    await assert_consistent(database, ns)


async def test_unmerge_and_undo_leave_profiles_consistent(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    items = [
        ("a", "Nadia", "I live in Lyon.", 0),
        ("b", "Nadia", "I live in Lyon!", 1),
        ("c", "Nadia", "I moved to Hamburg in March.", 60),
    ]
    report = await memory.aingest_many(ns, observations(items))
    assert report.results[1].operation == "merge"
    before = shape(await memory.aprofile(ns, "Nadia"))
    assert before["home"][0] == ("Lyon", False, "Hamburg", ["states:a", "states:b"])
    restored = await memory.aunmerge(ns, report.results[0].note_id)
    assert len(restored) == 1
    assert shape(await memory.aprofile(ns, "Nadia")) == before
    async with Repository.open(database, autocommit=True) as repo:
        rows = [await repo.lineage(ns, i) for i in report.results[2].lineage_ids]
    (conflict_row,) = [r for r in rows if r and (r.after or {}).get("relation") == "conflicts"]
    await memory.aundo(ns, conflict_row.id)
    async with Repository.open(database, autocommit=True) as repo:
        edges = await repo.edges_of(ns, [report.results[2].note_id])
    assert not [e for e in edges if e.relation == "conflicts" and e.tag == "home"]
    assert shape(await memory.aprofile(ns, "Nadia")) == before
    await assert_consistent(database, ns)


async def conflicting(database: Database, ns: tuple[str, ...], note_id: int) -> set[int]:
    """The notes linked to ``note_id`` by a ``conflicts`` edge about Nadia's home."""
    async with Repository.open(database, autocommit=True) as repo:
        edges = await repo.edges_of(ns, [note_id])
    return {
        e.target_id if e.source_id == note_id else e.source_id
        for e in edges
        if e.relation == "conflicts" and e.tag == "home"
    }


async def test_unmerge_writes_again_the_conflict_edge_of_a_merged_replacement(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    """The merged observation's replacement linked the note it was merged into; once the
    merge is undone its own note gets the edge again, with a link row of its own (so undo
    removes it as any link)."""
    report = await memory.aingest_many(ns, observations(MOVE_MERGED_INTO_A_VISIT))
    lyon, visit = report.results[0].note_id, report.results[1].note_id
    assert (report.results[2].operation, report.results[2].note_id) == ("merge", visit)
    assert await conflicting(database, ns, visit) == {lyon}
    before = shape(await memory.aprofile(ns, "Nadia"))

    (moved,) = await memory.aunmerge(ns, visit)
    assert await conflicting(database, ns, visit) == set()
    assert await conflicting(database, ns, lyon) == {moved}
    assert shape(await memory.aprofile(ns, "Nadia")) == before
    await assert_consistent(database, ns)

    async with Repository.open(database, autocommit=True) as repo:
        observation = await repo.observation(ns, "m")
        assert observation is not None
        links = await repo.links_in_force(ns, moved, observation.id)
    (link,) = [r for r in links if r.after and r.after["relation"] == "conflicts"]
    await memory.aundo(ns, link.id)
    assert await conflicting(database, ns, lyon) == set()


async def test_rebuild_repairs_drifted_profiles(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest_many(ns, observations())
    expected = shape(await memory.aprofile(ns, "Nadia"))
    async with Repository.open(database) as repo:
        await repo.replace_profile_chain(ns, "Nadia", "home", [])
    assert "home" not in shape(await memory.aprofile(ns, "Nadia"))
    assert await memory.profiles.rebuild(ns) == 3
    assert shape(await memory.aprofile(ns, "Nadia")) == expected


async def test_profiles_switched_off_write_nothing(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0, profiles=False))
    report = await memory.aingest_many(ns, observations())
    assert report.count("append") + report.count("merge") == len(NADIA)
    assert (await memory.aprofile(ns, "Nadia")).aspects == ()
    async with Repository.open(database, autocommit=True) as repo:
        assert await repo.profile_chains(ns) == []


async def test_unknown_and_bad_subjects(memory: Memory, ns: tuple[str, ...]) -> None:
    empty = await memory.aprofile(ns, "Nobody")
    assert (empty.subject, empty.aspects) == ("Nobody", ())
    with pytest.raises(InvalidInputError, match="subject"):
        await memory.aprofile(ns, "   ")
    with pytest.raises(InvalidInputError, match="subject"):
        await memory.aprofile(ns, 42)  # type: ignore[arg-type]


async def test_store_and_retriever_expose_profiles(memory: Memory, ns: tuple[str, ...]) -> None:
    from langmemcore import MemoryRetriever, MemoryStore

    store = MemoryStore(memory)
    for key, who, text, days in NADIA:
        when = (T0 + timedelta(days=days)).isoformat()
        await store.aput(ns, key, {"text": text, "speaker": who, "time": when})
    await store.aflush()
    retriever = MemoryRetriever(memory=memory, namespace=ns)
    from_store = shape(await store.aprofile(ns, "Nadia"))
    assert from_store["home"] == [
        ("Lyon", False, "Hamburg", ["states:item:n1"]),
        ("Hamburg", True, None, ["states:item:n3"]),
    ]
    assert shape(await retriever.aprofile("NADIA")) == from_store
    assert shape(store.profile(ns, "Nadia")) == from_store


def test_sync_twins_read_profiles(memory: Memory, ns: tuple[str, ...]) -> None:
    memory.ingest(ns, "I live in Lyon.", key="k", speaker="Nadia", event_time=T0)
    assert memory.profile(ns, "Nadia").current() == {"home": ("Lyon",)}
    assert [(s.subject, s.values, s.current) for s in memory.subjects(ns)] == [("Nadia", 1, 1)]


def test_documented_profiles_snippet_runs(
    memory: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.integration.test_readme_snippets import readme_snippet

    exec(readme_snippet("Profiles", "docs/semantic-layer.md"), {"memory": memory})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "{'home': ('Hamburg',)}"
    assert lines[1].startswith("Lyon False Hamburg ['") and lines[2].startswith("Hamburg True None")


def profile_prompt_answers(messages: list[object]) -> AIMessage:
    """The scripted model: the profile prompt of message "b" gets a good statement and a
    hostile one, that of "a" malformed output; every other prompt malformed output
    (the offline path answers those)."""
    prompt = str(getattr(messages[-1], "content", ""))
    if "profile facts" not in prompt:
        return AIMessage(content="no json here")
    if "Message: Guess what, Hamburg now!" in prompt:
        good = {"subject": "Nadia", "aspect": "home", "value": "Hamburg", "change": True}
        hostile = {"subject": "Mallory", "aspect": "home", "value": "'; DROP TABLE notes; --"}
        odd = {"subject": "Nadia", "aspect": "password", "value": "hunter2"}
        return AIMessage(content=json.dumps({"statements": [good, hostile, odd]}))
    return AIMessage(content='{"statements": [{"subject": 3}')


async def test_the_profile_prompt_path_with_a_scripted_model(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    llm = ScriptedChatModel(messages=itertools.repeat(profile_prompt_answers))
    config = ConstructionConfig(topic_every=0, profile_llm=True)
    memory = Memory(database, embeddings, llm=llm, config=config)
    items = [("a", "Nadia", "I live in Lyon.", 0), ("b", "Nadia", "Guess what, Hamburg now!", 9)]
    await memory.aingest_many(ns, observations(items))
    profile = await memory.aprofile(ns, "Nadia")
    assert shape(profile) == {
        "home": [
            ("Lyon", False, "Hamburg", ["states:a"]),
            ("Hamburg", True, None, ["states:b"]),
        ]
    }
    assert [s.subject for s in await memory.asubjects(ns)] == ["Nadia"]
    await assert_consistent(database, ns)
