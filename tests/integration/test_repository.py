"""The repository against a real Postgres with pgvector and the real embedder."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from sqlalchemy import func, select

from langmemcore import InvalidInputError, ObservationConflictError
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Edge, Note, NoteKeyword, Observation
from langmemcore.storage.notes.queries import gate_candidates
from tests.integration.conftest import UNANALYSED
from tests.integration.plans import add_filler_notes, analysed_plan, rows_read

TEXTS = [
    "Caroline went to an LGBTQ support group meeting yesterday.",
    "Melanie painted a sunrise over the lake last year.",
    "Caroline is researching adoption agencies.",
    "Melanie ran a charity race for mental health.",
    "The pottery class on Friday was relaxing.",
    "Caroline wants to become a counselor.",
]


async def count_observations(db: Database, ns: tuple[str, ...]) -> int:
    async with Repository.open(db) as repo:
        return int(
            await repo._session.scalar(
                select(func.count()).where(Observation.namespace == ".".join(ns))
            )
            or 0
        )


async def test_same_observation_key_twice_gives_one_row(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        first = await repo.insert_observation(
            ns, "D1:1", "Hello there", speaker="Caroline", analysis=UNANALYSED
        )
    async with Repository.open(database) as repo:
        second = await repo.insert_observation(
            ns, "D1:1", "Hello there", speaker="Caroline", analysis=UNANALYSED
        )
    assert first.created and not second.created
    assert first.id == second.id
    assert await count_observations(database, ns) == 1


async def test_same_key_with_other_content_is_a_conflict(
    database: Database, ns: tuple[str, ...]
) -> None:
    async with Repository.open(database) as repo:
        await repo.insert_observation(ns, "k", "original", analysis=UNANALYSED)
    with pytest.raises(ObservationConflictError):
        async with Repository.open(database) as repo:
            await repo.insert_observation(ns, "k", "changed", analysis=UNANALYSED)
    assert await count_observations(database, ns) == 1


async def test_nearest_note_order_matches_python_cosine(
    database: Database, ns: tuple[str, ...], embeddings: LocalEmbeddings
) -> None:
    vectors = embeddings.embed_documents(TEXTS)
    async with Repository.open(database) as repo:
        ids = []
        for i, (text, vector) in enumerate(zip(TEXTS, vectors, strict=True)):
            obs = await repo.insert_observation(ns, f"k{i}", text, analysis=UNANALYSED)
            ids.append(
                await repo.insert_note(
                    ns, context=text, embedding=vector, keywords=[], source_ids=[obs.id]
                )
            )
    query = embeddings.embed_query("What did Caroline do about adoption?")
    async with Repository.open(database) as repo:
        got = await repo.nearest_notes(ns, query, k=len(TEXTS))
    matrix = np.asarray(vectors)
    q = np.asarray(query)
    cosine = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q))
    expected = [ids[i] for i in np.argsort(-cosine, kind="stable")]
    assert [s.id for s in got] == expected
    for scored in got:
        assert scored.score == pytest.approx(cosine[ids.index(scored.id)], abs=1e-5)


async def test_ten_megabyte_text_gets_a_clear_error_and_nothing_is_stored(
    database: Database, ns: tuple[str, ...]
) -> None:
    huge = "memory " * (10 * 1024 * 1024 // 7)
    with pytest.raises(InvalidInputError, match="limit is 250,000"):
        async with Repository.open(database) as repo:
            await repo.insert_observation(ns, "huge", huge, analysis=UNANALYSED)
    assert await count_observations(database, ns) == 0


async def test_text_within_the_limit_is_stored_whole(
    database: Database, ns: tuple[str, ...]
) -> None:
    big = "".join(f"line {i}: something worth remembering\n" for i in range(6000))
    assert len(big) > 200_000
    async with Repository.open(database) as repo:
        await repo.insert_observation(ns, "big", big, analysis=UNANALYSED)
    async with Repository.open(database) as repo:
        stored = await repo._session.scalar(
            select(Observation.content).where(Observation.namespace == ".".join(ns))
        )
    assert stored == big


async def test_empty_text_gets_a_clear_error(database: Database, ns: tuple[str, ...]) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        async with Repository.open(database) as repo:
            await repo.insert_observation(ns, "empty", "   ", analysis=UNANALYSED)
    assert await count_observations(database, ns) == 0


async def test_keywords_edges_topics_lineage(
    database: Database, ns: tuple[str, ...], embeddings: LocalEmbeddings
) -> None:
    names = ["adoption agency", "support group", "sunrise painting"]
    kw_vectors = embeddings.embed_documents(names)
    note_vectors = embeddings.embed_documents(TEXTS[:3])
    async with Repository.open(database) as repo:
        kw = await repo.upsert_keywords(ns, list(zip(names, kw_vectors, strict=True)))
        again = await repo.upsert_keywords(ns, [(names[0], kw_vectors[0])])
        assert again == {names[0]: kw[names[0]]}
        notes = []
        for i in range(3):
            obs = await repo.insert_observation(ns, f"o{i}", TEXTS[i], analysis=UNANALYSED)
            notes.append(
                await repo.insert_note(
                    ns,
                    context=TEXTS[i],
                    embedding=note_vectors[i],
                    keywords=[],
                    source_ids=[obs.id],
                    event_time=datetime(2023, 5, i + 1, tzinfo=UTC),
                )
            )
        await repo.attach_keywords(ns, notes[0], [kw["support group"]])
        await repo.attach_keywords(ns, notes[2], [kw["adoption agency"], kw["support group"]])
        await repo.attach_keywords(ns, notes[1], [kw["sunrise painting"]])
        [(edge, _target)] = await repo.add_edges(
            ns,
            notes[0],
            [
                {
                    "target_id": notes[2],
                    "relation": "related_to",
                    "strength": 0.6,
                    "tag": None,
                    "reason": None,
                }
            ],
        )
        lineage = await repo.append_lineage(ns, "link", note_id=notes[0], after={"edge": edge})
    async with Repository.open(database) as repo:
        by_kw = await repo.notes_by_keywords(ns, ["support group", "adoption agency"])
        assert [(s.id, s.score) for s in by_kw] == [(notes[2], 2.0), (notes[0], 1.0)]
        nearest = await repo.nearest_keywords(ns, embeddings.embed_query("adopting a child"), 1)
        assert nearest[0][1] == "adoption agency"
        edges = await repo.edges_of(ns, [notes[2]])
        assert [(e.source_id, e.target_id, e.relation) for e in edges] == [
            (notes[0], notes[2], "related_to")
        ]
        assert await repo.edges_of(ns, [notes[1]]) == []
        fulltext = await repo.fulltext_notes(ns, "sunrise lake", 5)
        assert [s.id for s in fulltext] == [notes[1]]
        in_range = await repo.notes_in_time_range(
            ns, datetime(2023, 5, 2, tzinfo=UTC), datetime(2023, 5, 4, tzinfo=UTC), 10
        )
        assert in_range == [notes[1], notes[2]]
        sources = await repo.sources_of(ns, [notes[0]])
        assert [o.key for o in sources[notes[0]]] == ["o0"]
        assert lineage > 0


async def test_topics_and_their_notes(
    database: Database, ns: tuple[str, ...], embeddings: LocalEmbeddings
) -> None:
    from langmemcore.storage.models import Topic, TopicKeyword

    names = ["painting", "pottery", "adoption"]
    vectors = embeddings.embed_documents(names)
    async with Repository.open(database) as repo:
        kw = await repo.upsert_keywords(ns, list(zip(names, vectors, strict=True)))
        obs = await repo.insert_observation(ns, "o", TEXTS[1], analysis=UNANALYSED)
        note = await repo.insert_note(
            ns, context=TEXTS[1], embedding=vectors[0], keywords=["painting"], source_ids=[obs.id]
        )
        await repo.attach_keywords(ns, note, [kw["painting"]])
        art = Topic(
            namespace=".".join(ns),
            label="art",
            centroid=embeddings.embed_query("art"),
            generation=1,
            size=2,
        )
        family = Topic(
            namespace=".".join(ns),
            label="family",
            centroid=embeddings.embed_query("family and children"),
            generation=1,
            size=1,
        )
        repo._session.add_all([art, family])
        await repo._session.flush()
        repo._session.add_all(
            [
                TopicKeyword(namespace=".".join(ns), topic_id=art.id, keyword_id=kw["painting"]),
                TopicKeyword(namespace=".".join(ns), topic_id=art.id, keyword_id=kw["pottery"]),
                TopicKeyword(namespace=".".join(ns), topic_id=family.id, keyword_id=kw["adoption"]),
            ]
        )
    async with Repository.open(database) as repo:
        top = await repo.nearest_topics(ns, embeddings.embed_query("drawing and sculpture"), 1)
        assert [t.id for t in top] == [art.id]
        members = await repo.topic_notes(ns, [art.id, family.id])
        assert [s.id for s in members[art.id]] == [note]
        assert members[family.id] == []


async def test_insert_note_links_sources_and_keywords_and_edges_reach_only_active_notes(
    database: Database, ns: tuple[str, ...], embeddings: LocalEmbeddings
) -> None:
    other = (ns[0], ns[1] + "x")
    vectors = embeddings.embed_documents(TEXTS[:4])
    async with Repository.open(database) as repo:
        kw = await repo.upsert_keywords(ns, [("lake", vectors[0]), ("sunrise", vectors[1])])
        first = await repo.insert_observation(ns, "a", TEXTS[0], analysis=UNANALYSED)
        second = await repo.insert_observation(ns, "b", TEXTS[1], analysis=UNANALYSED)
        note = await repo.insert_note(
            ns,
            context=TEXTS[0],
            embedding=vectors[0],
            keywords=["lake", "sunrise"],
            source_ids=[first.id, second.id],
            keyword_ids=[kw["lake"], kw["sunrise"], kw["lake"]],
        )
        targets = []
        for i, where in enumerate([ns, ns, ns, other]):
            obs = await repo.insert_observation(where, f"t{i}", TEXTS[i], analysis=UNANALYSED)
            targets.append(
                await repo.insert_note(
                    where, context=TEXTS[i], embedding=vectors[i], keywords=[], source_ids=[obs.id]
                )
            )
        archived = await repo._session.scalar(select(Note).where(Note.id == targets[1]))
        assert archived is not None
        archived.status = "archived"
        await repo._session.flush()
        link = {"relation": "related_to", "strength": 0.5, "tag": "t", "reason": "r"}
        created = await repo.add_edges(
            ns,
            note,
            [
                {**link, "target_id": targets[2], "strength": 0.7},
                {**link, "target_id": targets[1]},
                {**link, "target_id": note},
                {**link, "target_id": targets[3]},
                {**link, "target_id": targets[0], "tag": None},
            ],
        )
        assert [t for _e, t in created] == [targets[2], targets[0]]
        sources = await repo.sources_of(ns, [note])
        assert [o.key for o in sources[note]] == ["a", "b"]
        kw_rows = await repo._session.scalars(
            select(NoteKeyword.keyword_id).where(NoteKeyword.note_id == note)
        )
        assert sorted(kw_rows) == sorted([kw["lake"], kw["sunrise"]])
        edges = {e.target_id: e for e in await repo.edges_of(ns, [note])}
        assert (edges[targets[2]].strength, edges[targets[2]].tag) == (0.7, "t")
        assert (edges[targets[0]].relation, edges[targets[0]].tag) == ("related_to", None)
        again = await repo.add_edges(
            ns,
            note,
            [
                {**link, "target_id": targets[2], "strength": 0.9, "tag": "other"},
                {**link, "target_id": targets[2], "relation": "supports"},
            ],
        )
        assert again[0] == created[0] and again[1][0] > created[-1][0]
        rows = await repo._session.execute(
            select(Edge.target_id, Edge.relation, Edge.strength, Edge.tag).where(
                Edge.source_id == note
            )
        )
        assert sorted(tuple(r) for r in rows) == sorted(
            [
                (targets[0], "related_to", 0.5, None),
                (targets[2], "related_to", 0.7, "t"),
                (targets[2], "supports", 0.5, "t"),
            ]
        )


async def test_gate_candidates_sharing_a_keyword_are_the_newest_active_ones(
    database: Database, database_url: str, ns: tuple[str, ...], embeddings: LocalEmbeddings
) -> None:
    vectors = embeddings.embed_documents(TEXTS)
    held = [["lake"], ["lake", "race"], ["race"], ["lake"], ["pottery"]]
    async with Repository.open(database) as repo:
        names = ["lake", "race", "pottery"]
        kw = await repo.upsert_keywords(ns, [(n, vectors[0]) for n in names])
        ids = []
        for i, words in enumerate(held):
            obs = await repo.insert_observation(ns, f"k{i}", TEXTS[i], analysis=UNANALYSED)
            ids.append(
                await repo.insert_note(
                    ns,
                    context=TEXTS[i],
                    embedding=vectors[i],
                    keywords=words,
                    source_ids=[obs.id],
                    keyword_ids=[kw[w] for w in words],
                )
            )
        archived = await repo._session.scalar(select(Note).where(Note.id == ids[3]))
        assert archived is not None
        archived.status = "archived"
    other = (ns[0], ns[1] + "x")
    async with Repository.open(database) as repo:
        lake = await repo.upsert_keywords(other, [("lake", vectors[0])])
        obs = await repo.insert_observation(other, "o", TEXTS[5], analysis=UNANALYSED)
        in_other = await repo.insert_note(
            other,
            context=TEXTS[5],
            embedding=vectors[5],
            keywords=["lake"],
            source_ids=[obs.id],
            keyword_ids=[lake["lake"]],
        )
    add_filler_notes(database_url, ".".join(other), in_other, 2000, keywords=["lake"])
    add_filler_notes(database_url, ".".join(ns), ids[4], 1000)

    async def sharing(keywords: list[str], keyword_k: int) -> set[int]:
        async with Repository.open(database, autocommit=True) as repo:
            rows = await repo.gate_candidates(ns, vectors[0], keywords, k=0, keyword_k=keyword_k)
        return {row[0] for row in rows}

    assert await sharing(["lake", "race"], 2) == {ids[2], ids[1]}
    assert await sharing(["lake", "race"], 5) == {ids[2], ids[1], ids[0]}
    assert await sharing(["pottery"], 5) == {ids[4]}
    assert await sharing(["no such keyword"], 5) == set()
    prepared = gate_candidates(".".join(ns), vectors[0], ["lake"], k=0, keyword_k=2)
    assert rows_read(analysed_plan(database_url, prepared), "notes") <= 20
