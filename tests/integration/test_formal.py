"""The formal layer on a real database: query log, feedback, minimum confidence,
compaction to a budget, archive search and exact restore."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy import text as sql
from sqlalchemy.orm import undefer

from langmemcore import InvalidInputError, NotFoundError
from langmemcore.config import ConstructionConfig, RetrievalConfig
from langmemcore.construction.apply import ApplyResult
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.frontier import GoldQuery, namespace_curve
from langmemcore.formal.capacity import apply_write_evidence
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.formal.layer import SearchResults
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import (
    Edge,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    QueryLog,
)

FACTS = [
    "Caroline went to an LGBTQ support group on Monday.",
    "Melanie painted a sunrise over the lake last week.",
    "Caroline is researching adoption agencies for her family.",
    "Melanie ran a charity race for mental health.",
    "Caroline wants to study counseling and psychology.",
    "Melanie signed up for a pottery class in July.",
    "Caroline moved from Sweden four years ago.",
    "Melanie camped at the beach with her kids.",
    "Caroline gave a speech at a school about her transition.",
    "Melanie reads Charlotte's Web to her children.",
    "Caroline bought new running shoes for the marathon.",
    "Melanie plays the clarinet in a community band.",
]
FLAT = ConstructionConfig(mode="append_only", topic_every=0)
PLAIN = RetrievalConfig(diversity=0.0, max_rounds=1)


async def remember(memory: Memory, ns: tuple[str, ...]) -> dict[str, int]:
    """Ingest every fact (one note each); returns key -> note id."""
    ids = {}
    for index, text in enumerate(FACTS):
        speaker = text.split()[0]
        result = await memory.aingest(ns, text, key=f"t{index}", speaker=speaker)
        assert result.note_id is not None
        ids[f"t{index}"] = result.note_id
    return ids


def make(database: Database, embeddings: LocalEmbeddings, **formal: Any) -> Memory:
    return Memory(database, embeddings, config=FLAT, retrieval=PLAIN, formal=FormalConfig(**formal))


async def note_row(database: Database, note_id: int) -> dict[str, Any]:
    async with Repository.open(database) as repo:
        note = await repo._session.scalar(
            select(Note).where(Note.id == note_id).options(undefer(Note.tsv))
        )
        assert note is not None
        row = {c.name: getattr(note, c.key) for c in Note.__table__.columns if c.key != "embedding"}
        row["embedding"] = [float(x) for x in note.embedding]
        row["sources"] = sorted(
            await repo._session.scalars(
                select(NoteSource.observation_id).where(NoteSource.note_id == note_id)
            )
        )
        row["keyword_ids"] = sorted(
            await repo._session.scalars(
                select(NoteKeyword.keyword_id).where(NoteKeyword.note_id == note_id)
            )
        )
        row["edges"] = sorted(
            await repo._session.scalars(
                select(Edge.id).where((Edge.source_id == note_id) | (Edge.target_id == note_id))
            )
        )
    return row


async def test_search_writes_the_query_log(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    await remember(memory, ns)
    results = await memory.asearch(ns, "Where did Caroline move from?", k=5)
    assert isinstance(results, SearchResults) and isinstance(results, list)
    assert results.query_id is not None
    async with Repository.open(database) as repo:
        row = await repo._session.scalar(select(QueryLog).where(QueryLog.id == results.query_id))
    assert row is not None
    assert row.namespace == ".".join(ns)
    assert row.query == "Where did Caroline move from?"
    assert row.returned == [r.note_id for r in results]
    assert row.used == [] and row.outcome is None
    quiet = Memory(database, embeddings, formal=FormalConfig(log_queries=False))
    assert (await quiet.asearch(ns, "pottery", k=3)).query_id is None


async def test_the_log_row_alone_commits_without_waiting_for_the_flush(
    database: Database, ns: tuple[str, ...]
) -> None:
    async def setting(repo: Repository) -> str:
        return str(await repo._session.scalar(sql("SHOW synchronous_commit")))

    # durable commits asked for explicitly: a server may run with them off by default
    async with Repository.open(database) as repo:
        await repo._session.execute(sql("SET LOCAL synchronous_commit = on"))
        logged = await repo.log_query(ns, "Where did Caroline move from?", [1, 2])
        # the log statement turns the flush wait off for its own transaction
        assert await setting(repo) == "off"
    async with Repository.open(database, autocommit=True) as repo:
        await repo._session.execute(sql("SET synchronous_commit = on"))
        try:
            later = await repo.log_query(ns, "What did Melanie paint?", [3])
            # outside a transaction block the statement is the transaction: the
            # connection's next statement commits durably again
            assert await setting(repo) == "on"
        finally:
            await repo._session.execute(sql("RESET synchronous_commit"))
        rows = await repo._session.execute(
            select(QueryLog.id, QueryLog.returned).where(QueryLog.namespace == ".".join(ns))
        )
        assert sorted(tuple(row) for row in rows) == [(logged, [1, 2]), (later, [3])]


async def test_feedback_moves_confidence_by_the_beta_rule(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings, feedback_weight=1.0, prior_strength=2.0)
    ids = await remember(memory, ns)
    results = await memory.asearch(ns, "What did Melanie paint?", k=3)
    assert results.query_id is not None
    good, bad = ids["t1"], ids["t3"]
    taus = await memory.afeedback(ns, results.query_id, [good], 1.0)
    assert taus == {good: pytest.approx(2 / 3)}
    taus = await memory.afeedback(ns, results.query_id, [bad], 0.0)
    assert taus == {bad: pytest.approx(1 / 3)}
    taus = await memory.afeedback(ns, results.query_id, [good], 0.5)
    assert taus == {good: pytest.approx(2.5 / 4)}
    async with Repository.open(database) as repo:
        note = await repo._session.scalar(select(Note).where(Note.id == good))
        log = await repo._session.scalar(select(QueryLog).where(QueryLog.id == results.query_id))
    assert note is not None and log is not None
    assert (note.alpha, note.beta) == (pytest.approx(2.5), pytest.approx(1.5))
    assert note.confidence == pytest.approx(2.5 / 4)
    assert log.used == [good, bad] and log.outcome == 0.5
    with pytest.raises(NotFoundError):
        await memory.afeedback(ns, results.query_id + 10_000, [good], 1.0)
    with pytest.raises(NotFoundError):
        await memory.afeedback(ns, results.query_id, [10**12], 1.0)
    with pytest.raises(InvalidInputError):
        await memory.afeedback(ns, results.query_id, [good], 1.5)


async def test_min_confidence_filters_before_the_cut(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    await remember(memory, ns)
    query = "What does Melanie do with her kids and children?"
    plain = await memory.asearch(ns, query, k=3)
    top = plain[0].note_id
    assert plain.query_id is not None
    await memory.afeedback(ns, plain.query_id, [top], 0.0)
    filtered = await memory.asearch(ns, query, k=3, min_confidence=0.4)
    assert top not in [r.note_id for r in filtered]
    assert len(filtered) == 3
    assert [r.note_id for r in filtered][:2] == [r.note_id for r in plain][1:3]
    async with Repository.open(database) as repo:
        confidences = await repo._session.scalars(
            select(Note.confidence).where(Note.id.in_([r.note_id for r in filtered]))
        )
        assert all(c >= 0.4 for c in confidences)
    unfiltered = await memory.asearch(ns, query, k=3)
    assert top in [r.note_id for r in unfiltered]


async def observation_holders(database: Database, ns: tuple[str, ...]) -> dict[int, str]:
    async with Repository.open(database) as repo:
        rows = await repo._session.execute(
            select(Observation.id, Note.status)
            .join(NoteSource, NoteSource.observation_id == Observation.id)
            .join(Note, Note.id == NoteSource.note_id)
            .where(Observation.namespace == ".".join(ns))
        )
        return {int(i): s for i, s in rows}


async def test_compaction_archives_and_never_drops_an_observation(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    ids = await remember(memory, ns)
    asked = await memory.asearch(ns, "Which instrument does Melanie play?", k=3)
    assert asked.query_id is not None
    await memory.afeedback(ns, asked.query_id, [ids["t11"], ids["t9"]], 1.0)
    report = await memory.acompact(ns, max_notes=4)
    assert len(report.kept) == 4 and len(report.archived) == len(FACTS) - 4
    assert {ids["t11"], ids["t9"]} <= set(report.kept)
    holders = await observation_holders(database, ns)
    assert len(holders) == len(FACTS)
    assert sorted(holders.values()).count("active") == 4
    assert set(holders.values()) == {"active", "archived"}
    async with Repository.open(database) as repo:
        observations = await repo._session.scalar(
            select(func.count()).where(Observation.namespace == ".".join(ns))
        )
    assert observations == len(FACTS)
    for query in ("Caroline", "Melanie pottery class", "adoption agencies"):
        found = await memory.asearch(ns, query, k=20)
        assert {r.note_id for r in found} <= set(report.kept)
    archived = await memory.asearch_archived(ns, "adoption agencies", k=3)
    assert archived and {r.note_id for r in archived} <= set(report.archived)
    assert all(r.channels == {"archive": rank} for rank, r in enumerate(archived, 1))
    assert archived[0].sources[0].key in {f"t{i}" for i in range(len(FACTS))}


async def test_restored_note_is_identical_to_the_archived_one(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    ids = await remember(memory, ns)
    asked = await memory.asearch(ns, "adoption", k=2)
    assert asked.query_id is not None
    await memory.afeedback(ns, asked.query_id, [ids["t2"]], 0.0)
    before = {i: await note_row(database, i) for i in ids.values()}
    report = await memory.acompact(ns, max_notes=3)
    for note_id in report.archived:
        row = await note_row(database, note_id)
        assert row["status"] == "archived" and row["archived_at"] is not None
    restored = await memory.arestore(ns, report.archived)
    assert restored == sorted(report.archived)
    after = {i: await note_row(database, i) for i in ids.values()}
    assert after == before
    assert await memory.arestore(ns, report.archived) == []
    with pytest.raises(NotFoundError):
        await memory.arestore(ns, [10**12])


async def test_a_write_over_budget_compacts(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    other = (*ns, "other")
    memory = make(database, embeddings, budget=Budget(max_notes=5), budgets=((other, Budget()),))
    await remember(memory, ns)
    await remember(memory, other)
    holders = await observation_holders(database, ns)
    assert list(holders.values()).count("active") == 5
    assert len(holders) == len(FACTS)
    assert set((await observation_holders(database, other)).values()) == {"active"}
    tokens = make(database, embeddings, budget=Budget(max_tokens=40))
    third = (*ns, "tokens")
    await remember(tokens, third)
    async with Repository.open(database) as repo:
        contexts = await repo._session.scalars(
            select(Note.context).where(Note.namespace == ".".join(third), Note.status == "active")
        )
        assert 0 < sum(max(1, len(c) // 4) for c in contexts) <= 40


async def test_edges_and_merges_are_confidence_evidence(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    ids = await remember(memory, ns)
    a, b, c = ids["t0"], ids["t4"], ids["t6"]
    async with Repository.open(database) as repo:
        links = [
            {"target_id": b, "relation": "supports", "strength": 0.8, "tag": None, "reason": "t"},
            {"target_id": c, "relation": "conflicts", "strength": 0.6, "tag": None, "reason": "t"},
        ]
        edges = await repo.add_edges(ns, a, links)
        results = [
            ApplyResult("append", 0, a, tuple(e for e, _t in edges), (), "t"),
            ApplyResult("merge", 0, c, (), (), "t"),
        ]
        await apply_write_evidence(repo, ns, results, FormalConfig(edge_weight=0.5))
    rows = {i: await note_row(database, i) for i in (a, b, c)}
    assert (rows[a]["alpha"], rows[a]["beta"]) == (pytest.approx(1.4), pytest.approx(1.3))
    assert (rows[b]["alpha"], rows[b]["beta"]) == (pytest.approx(1.4), pytest.approx(1.0))
    assert (rows[c]["alpha"], rows[c]["beta"]) == (pytest.approx(1.5), pytest.approx(1.3))
    assert rows[b]["confidence"] == pytest.approx(1.4 / 2.4)


async def test_namespace_curve_discloses_settles_and_restores(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = make(database, embeddings)
    ids = await remember(memory, ns)
    disclosed = [
        GoldQuery("Which instrument does Melanie play?", ("t11",)),
        GoldQuery("What book does Melanie read to her kids?", ("t9",)),
    ]
    scoring = [
        GoldQuery("What does Melanie play in a band?", ("t11",)),
        GoldQuery("Where did Caroline move from, and what does she want to study?", ("t6", "t4")),
    ]
    true = set(ids.values()) - {ids["t11"]}
    curve = await namespace_curve(
        memory, ns, disclosed, scoring, shares=(0.25, 1.0), true_notes=true
    )
    assert (curve.notes, curve.scoring, curve.full) == (len(FACTS), 2, 2.0)
    small, full = curve.points
    assert small.capacity == 3 and small.method == "exact"
    assert small.covered["policy"] == 1.0
    assert small.precision["policy"] == 0.0
    assert small.covered["oracle"] == 2.0 == full.covered["recency"]
    assert set((await observation_holders(database, ns)).values()) == {"active"}
    async with Repository.open(database) as repo:
        logged = list(
            await repo._session.execute(
                select(QueryLog.query, QueryLog.used).where(QueryLog.namespace == ".".join(ns))
            )
        )
    assert sorted(logged) == sorted(
        [(disclosed[0].text, [ids["t11"]]), (disclosed[1].text, [ids["t9"]])]
    )
