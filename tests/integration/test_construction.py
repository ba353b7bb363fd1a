"""The construction graph offline, against Postgres with the real embedder."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, text

from langmemcore import InvalidInputError, ObservationConflictError
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Lineage, Note
from langmemcore.storage.planner_statistics import analyze_written_tables
from tests.integration.memory_state import snapshot

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)

CONVERSATION = [
    ("Melanie", "I painted a sunrise over the lake last weekend."),
    ("Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "I painted a sunrise over the lake last weekend!"),
    ("Caroline", "I'm researching adoption agencies because I want to give a kid a home."),
    ("Melanie", "My painting of the lake sunrise now hangs in the living room."),
    ("Caroline", "The support group made me feel accepted and brave."),
    ("Melanie", "We took the kids camping in the mountains and roasted marshmallows."),
    ("Caroline", "Adoption agencies asked me for references and a home study."),
]


def observations(items: list[tuple[str, str]] = CONVERSATION) -> list[ObservationIn]:
    return [
        ObservationIn(f"D1:{i + 1}", text, speaker, T0 + timedelta(minutes=i))
        for i, (speaker, text) in enumerate(items)
    ]


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


async def test_merge_link_and_append_from_one_conversation(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    ops = [r.operation for r in report.results]
    assert ops[2] == "merge", report.results[2]
    assert report.results[2].note_id == report.results[0].note_id
    assert ops.count("append") >= 4
    assert report.links >= 1
    state = await snapshot(database, ns)
    sources = [keys for keys, _ctx, _kw, status, _o in state["notes"] if status == "active"]
    assert sorted(k for keys in sources for k in keys) == sorted(o.key for o in observations())
    merged = next(n for n in state["notes"] if {"D1:1", "D1:3"} <= set(n[0]))
    assert merged[1].count("painted a sunrise") == 1
    assert any(rel == "related_to" for *_ends, rel, _s in state["edges"])


async def test_reingesting_changes_nothing(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    before = await snapshot(database, ns)
    again = await memory.aingest_many(ns, observations())
    assert {r.operation for r in again.results} == {"unchanged"}
    after = await snapshot(database, ns)
    assert after == before


async def test_bulk_ingest_equals_one_by_one(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    one_by_one = (ns[0], ns[1] + "single")
    await memory.aingest_many(ns, observations(), batch_size=3)
    for obs in observations():
        await memory.aingest(
            one_by_one, obs.text, key=obs.key, speaker=obs.speaker, event_time=obs.event_time
        )
    await memory.aevolve_topics(one_by_one)
    bulk, single = await snapshot(database, ns), await snapshot(database, one_by_one)
    assert bulk["notes"] == single["notes"]
    assert bulk["edges"] == single["edges"]
    assert bulk["topics"] == single["topics"]


async def test_bulk_ingest_with_repeated_keys_across_batches(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    obs = observations()
    await memory.aingest_many(ns, obs[:2])
    repeated = [*obs, obs[1], obs[4], obs[0]]
    report = await memory.aingest_many(ns, repeated, batch_size=3)
    ops = [r.operation for r in report.results]
    assert ops[:2] == ["unchanged", "unchanged"]
    assert ops[-3:] == ["unchanged", "unchanged", "unchanged"]
    assert "unchanged" not in ops[2:-3]
    state = await snapshot(database, ns)
    keys = sorted(k for keys, *_rest in state["notes"] for k in keys)
    assert keys == sorted(o.key for o in obs)
    changed = ObservationIn(obs[4].key, "A different text under the same key.", "Melanie")
    with pytest.raises(ObservationConflictError) as info:
        await memory.aingest_many(ns, [obs[5], changed], batch_size=1)
    assert await snapshot(database, ns) == state
    assert info.value.report is not None  # how far it got: the first one, already stored
    assert [r.operation for r in info.value.report.results] == ["unchanged"]


async def test_unmerge_restores_the_previous_notes_exactly(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    first_two = observations()[:2]
    await memory.aingest_many(ns, first_two)
    async with Repository.open(database) as repo:
        before = {
            n.id: (n.context, list(n.keywords), list(n.embedding), n.event_time, n.speakers)
            for n in await repo._session.scalars(select(Note).where(Note.namespace == ".".join(ns)))
        }
    duplicate = observations()[2]
    result = await memory.aingest(
        ns,
        duplicate.text,
        key=duplicate.key,
        speaker=duplicate.speaker,
        event_time=duplicate.event_time,
    )
    assert result.operation == "merge"
    restored = await memory.aunmerge(ns, result.note_id or 0)

    assert len(restored) == 1
    async with Repository.open(database) as repo:
        notes = {
            n.id: n
            for n in await repo._session.scalars(select(Note).where(Note.namespace == ".".join(ns)))
        }
        sources = await repo.sources_of(ns, list(notes))
    for note_id, (context, keywords, embedding, when, speakers) in before.items():
        note = notes[note_id]
        assert list(note.speakers) == list(speakers) == [sources[note_id][0].speaker.lower()]
        assert (note.context, list(note.keywords), when) == (context, keywords, note.event_time)
        assert list(note.embedding) == pytest.approx(embedding)
    new = notes[restored[0]]
    assert [o.key for o in sources[new.id]] == [duplicate.key]
    assert list(new.speakers) == [duplicate.speaker.lower()]
    assert "painted a sunrise" in new.context
    with pytest.raises(InvalidInputError, match="already undone"):
        async with Repository.open(database) as repo:
            row = await repo._session.scalar(
                select(Lineage.id).where(
                    Lineage.namespace == ".".join(ns), Lineage.operation == "merge"
                )
            )
        await memory.aundo(ns, row or 0)


async def test_undo_everything_leaves_one_note_per_observation(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    report = await memory.aingest_many(ns, observations())
    drafts = {}
    async with Repository.open(database) as repo:
        rows = list(
            await repo._session.scalars(
                select(Lineage).where(Lineage.namespace == ".".join(ns)).order_by(Lineage.id.desc())
            )
        )
    for row in rows:
        await memory.aundo(ns, row.id)
        if row.operation == "merge":
            drafts[row.observation_id] = (row.after or {})["draft"]["context"]
    state = await snapshot(database, ns)
    assert state["edges"] == []
    active = [(keys, ctx) for keys, ctx, _kw, status, _o in state["notes"] if status == "active"]
    assert sorted(keys for keys, _ in active) == [(o.key,) for o in observations()]
    merged_obs = {r.observation_id for r in report.results if r.operation == "merge"}
    assert merged_obs and merged_obs <= set(drafts)


async def test_observation_conflict_and_bad_text_lose_nothing(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    await memory.aingest(ns, "Caroline likes pottery.", key="k1", speaker="Caroline")
    with pytest.raises(ObservationConflictError):
        await memory.aingest(ns, "Caroline hates pottery.", key="k1", speaker="Caroline")
    with pytest.raises(InvalidInputError):
        await memory.aingest(ns, "   ")
    with pytest.raises(InvalidInputError):
        await memory.aingest(ns, "x" * (memory.config.max_observation_chars + 1))
    state = await snapshot(database, ns)
    assert state["observations"] == ["k1"]
    assert [n[0] for n in state["notes"]] == [("k1",)]


async def test_topics_respect_size_bounds(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database,
        embeddings,
        config=ConstructionConfig(topic_every=0, topic_min_size=2, topic_max_size=4),
    )
    await memory.aingest_many(ns, observations())
    summary = await memory.aevolve_topics(ns)
    assert summary.topics
    assert all(2 <= len(t) <= 4 for t in summary.topics)
    state = await snapshot(database, ns)
    assert sorted(size for _label, size, _m in state["topics"]) == sorted(
        len(t) for t in summary.topics
    )


async def test_background_topic_evolution_and_flush(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database, embeddings, config=ConstructionConfig(topic_every=4, topic_min_size=2)
    )
    for obs in observations():
        await memory.aingest(
            ns, obs.text, key=obs.key, speaker=obs.speaker, event_time=obs.event_time
        )
    await memory.aflush()
    state = await snapshot(database, ns)
    assert ("topics", False) in state["lineage"]


async def test_notes_since_topics_counts_the_notes_newer_than_the_newest_topic(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    for obs in observations():
        await memory.aingest(ns, obs.text, key=obs.key, speaker=obs.speaker)
    active = select(func.count()).where(Note.namespace == ".".join(ns), Note.status == "active")
    async with Repository.open(database) as repo:
        assert await repo.notes_since_topics(ns) == await repo._session.scalar(active) > 0
    await memory.aevolve_topics(ns)
    await memory.aingest(ns, "Caroline adopted a grey cat named Oscar.", key="late")
    async with Repository.open(database) as repo:
        assert await repo.notes_since_topics(ns) == 1


async def test_appending_a_key_stored_meanwhile_changes_nothing(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    """The one-statement append writes nothing when the key was stored after the caller
    checked it (a concurrent writer), and still refuses different content.
    """
    from langmemcore.construction.apply import apply_observation
    from langmemcore.construction.ingest import make_drafts

    first = await memory.aingest(ns, "Melanie ran a charity race.", key="k1", speaker="Melanie")
    again = ObservationIn("k1", "Melanie ran a charity race.", "Melanie", None, {})
    other = ObservationIn("k1", "Melanie skipped the race.", "Melanie", None, {})
    before = await snapshot(database, ns)
    for observation in (again, other):
        (draft,) = await make_drafts([observation], memory.embeddings, memory.config, None)
        vectors = await memory._context.keywords.vectors(draft.keywords)
        async with Repository.open(database) as repo:
            apply = apply_observation(
                repo,
                ns,
                observation,
                draft,
                merge=None,
                links=[],
                keyword_vectors=vectors,
                max_sources=memory.config.max_sources_per_note,
                max_chars=memory.config.max_observation_chars,
                reason="test",
            )
            if observation is again:
                result = await apply
                assert (result.operation, result.observation_id) == (
                    "unchanged",
                    first.observation_id,
                )
            else:
                with pytest.raises(ObservationConflictError):
                    await apply
    assert await snapshot(database, ns) == before


async def test_a_merge_whose_target_changed_appends_instead(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    """Apply re-checks the merge target under the namespace lock: a plan built on an
    outdated context appends the observation as a note of its own; a plan that still
    holds merges.
    """
    from langmemcore.construction.apply import MergePlan, apply_observation
    from langmemcore.construction.ingest import make_drafts

    first = await memory.aingest(ns, "Melanie ran a charity race.", key="k1", speaker="Melanie")
    assert first.note_id is not None
    target = first.note_id
    results = []
    for key, expected in (("k2", "an older context"), ("k3", None)):
        observation = ObservationIn(key, "Melanie ran the race for charity.", "Melanie", None, {})
        (draft,) = await make_drafts([observation], memory.embeddings, memory.config, None)
        vectors = await memory._context.keywords.vectors(draft.keywords)
        async with Repository.open(database) as repo:
            note = await repo._session.scalar(select(Note).where(Note.id == target))
            assert note is not None
            context = f"{note.context} {draft.context}"
            plan = MergePlan(target, expected or note.context, context, draft.embedding)
            results.append(
                await apply_observation(
                    repo,
                    ns,
                    observation,
                    draft,
                    merge=plan,
                    links=[],
                    keyword_vectors=vectors,
                    max_sources=memory.config.max_sources_per_note,
                    max_chars=memory.config.max_observation_chars,
                    reason="test",
                )
            )
    appended, merged = results
    assert appended.operation == "append" and appended.note_id not in (None, target)
    assert (merged.operation, merged.note_id) == ("merge", target)
    state = await snapshot(database, ns)
    assert sorted(n[0] for n in state["notes"]) == [("k1", "k3"), ("k2",)]


async def _analyses(database: Database, past: dict[str, int] | None = None) -> dict[str, int]:
    """Each table's ``analyze_count``; with ``past``, read again until the notes table's
    count differs from it (Postgres publishes a backend's statistics when it next goes
    idle, at most once a second, so a fresh ``ANALYZE`` can show late), at most 10 s.
    """
    for _ in range(50):
        async with database.reader() as session:
            await session.execute(text("SELECT pg_stat_clear_snapshot()"))
            query = text("SELECT relname, analyze_count FROM pg_stat_user_tables")
            counts = {str(name): int(n) for name, n in await session.execute(query)}
        if past is None or counts.get("notes") != past.get("notes"):
            return counts
        await asyncio.sleep(0.2)
    return counts


async def test_a_large_bulk_ingest_analyses_the_tables_it_wrote(database: Database) -> None:
    before = await _analyses(database)
    # the notes table holds far fewer than 10 * (10**6 - 50) rows: autovacuum's thresholds
    # ask for a fresh analysis
    assert await analyze_written_tables(database, 10**6)
    after = await _analyses(database, before)
    for table in ("notes", "note_keywords", "observations", "profile_values"):
        assert after[table] == before.get(table, 0) + 1, table
    assert after["topics"] == before.get("topics", 0)
    # a small ingest leaves the statistics to autovacuum
    assert not await analyze_written_tables(database, 49)
    assert await _analyses(database) == after


@pytest.fixture()
async def no_autovacuum_of_notes(database: Database) -> AsyncIterator[None]:
    """Autovacuum off for the notes table while a test runs: an autoanalyze during a long
    ingest (a loaded CI machine) would raise the row estimate the ingest's own decision
    reads, and so decide against the test's expectation."""
    async with database.reader() as session:
        await session.execute(text("ALTER TABLE notes SET (autovacuum_enabled = false)"))
    try:
        yield
    finally:
        async with database.reader() as session:
            await session.execute(text("ALTER TABLE notes RESET (autovacuum_enabled)"))


@pytest.mark.usefixtures("no_autovacuum_of_notes")
async def test_bulk_ingest_analyses_once_it_wrote_as_much_as_autovacuum_waits_for(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    async with database.reader() as session:
        rows = await session.scalar(text("SELECT reltuples FROM pg_class WHERE relname = 'notes'"))
    count = 51 + int(0.1 * max(float(rows or 0), 0.0))
    start = datetime(2024, 3, 1, tzinfo=UTC)
    observations = [
        ObservationIn(
            f"walk-{i}",
            f"Day {i}: I walked {i} km along river number {i}.",
            speaker="Ana",
            event_time=start + timedelta(days=i),
        )
        for i in range(count)
    ]
    before = await _analyses(database)
    report = await memory.aingest_many(ns, observations, evolve_at_end=False)
    assert report.count("unchanged") == 0
    assert (await _analyses(database, before))["notes"] == before["notes"] + 1
