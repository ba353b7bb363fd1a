"""The propagation channel against a hand-built memory on real Postgres: the subgraph
statement, the ranking it leads to, and the channel inside the retrieval graph.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from sqlalchemy import update

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval.propagation import propagation_channel
from langmemcore.storage import Database, Repository, Scored
from langmemcore.storage.models import Note
from tests.integration.conftest import UNANALYSED

# the seed shares "campfire" with the bridge, "melanie" with everyone (a hub at a cap
# of 3 carriers) and "hiking trail" with no one; an edge joins it to the lake note
NOTES = {
    "hike": ("Melanie: We hiked the trail with the kids.", ["melanie", "hiking trail", "campfire"]),
    "bridge": ("Melanie: The kids roasted marshmallows at night.", ["melanie", "campfire"]),
    "lake": ("Melanie: We swam in the lake afterwards.", ["melanie", "lake"]),
    "gone": ("Melanie: An old note about the campfire.", ["campfire"]),
    "pottery": ("Melanie: I made a bowl in pottery class.", ["melanie", "pottery"]),
    "books": ("Melanie: I read two novels last week.", ["melanie", "novel"]),
}


@dataclass
class Built:
    ids: dict[str, int]
    namespace: tuple[str, ...]


@pytest.fixture()
async def built(database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]) -> Built:
    names = sorted({k for _c, kws in NOTES.values() for k in kws})
    vectors = embeddings.embed_documents(names)
    note_vectors = embeddings.embed_documents([c for c, _k in NOTES.values()])
    ids: dict[str, int] = {}
    async with Repository.open(database) as repo:
        kw = await repo.upsert_keywords(ns, list(zip(names, vectors, strict=True)))
        for (label, (context, kws)), vector in zip(NOTES.items(), note_vectors, strict=True):
            obs = await repo.insert_observation(
                ns, label, context, speaker="Melanie", analysis=UNANALYSED
            )
            ids[label] = await repo.insert_note(
                ns,
                context=context,
                embedding=vector,
                keywords=kws,
                source_ids=[obs.id],
                speakers=["Melanie"],
            )
            await repo.attach_keywords(ns, ids[label], [kw[k] for k in kws])
        edge = {"target_id": ids["lake"], "relation": "related_to", "strength": 0.8}
        await repo.add_edges(ns, ids["hike"], [{**edge, "tag": "trip", "reason": "test"}])
        await repo._session.execute(
            update(Note).where(Note.id == ids["gone"]).values(status="merged")
        )
    return Built(ids, ns)


async def test_subgraph_reads_carriers_up_to_the_cap_and_the_seeds_edges(
    built: Built, database: Database
) -> None:
    async with Repository.open(database, autocommit=True) as repo:
        subgraph = await repo.propagation_subgraph(built.namespace, [built.ids["hike"]], [], 3)
    carriers = sorted(sorted(c) for c in subgraph.carriers.values())
    ids = built.ids
    # campfire: the hike and the bridge (the merged note left out); hiking trail: the hike;
    # melanie: cap + 1 = 4 of its five active carriers
    assert [ids["hike"]] in carriers
    assert sorted([ids["hike"], ids["bridge"]]) in carriers
    assert any(len(c) == 4 for c in carriers)
    assert len(subgraph.carriers) == 3
    assert subgraph.query_similarity == dict.fromkeys(subgraph.carriers, 0.0)
    assert subgraph.edges == [(ids["hike"], ids["lake"], pytest.approx(0.8))]


async def test_channel_ranks_the_seed_then_its_bridges_and_skips_hubs(
    built: Built, database: Database
) -> None:
    config = replace(RetrievalConfig(), propagation_max_carriers=3)
    async with Repository.open(database, autocommit=True) as repo:
        ranked = await propagation_channel(
            repo, built.namespace, [Scored(built.ids["hike"], 1.0)], [], config
        )
    ids = built.ids
    assert ranked[0] == ids["hike"]
    assert set(ranked) == {ids["hike"], ids["bridge"], ids["lake"]}
    wide = replace(config, propagation_max_carriers=10)
    async with Repository.open(database, autocommit=True) as repo:
        crossing = await propagation_channel(
            repo, built.namespace, [Scored(ids["hike"], 1.0)], [], wide
        )
    assert {ids["pottery"], ids["books"]} <= set(crossing)
    assert ids["gone"] not in crossing
    assert crossing.index(ids["bridge"]) < crossing.index(ids["pottery"])


async def test_channel_without_seeds_reads_nothing(built: Built, database: Database) -> None:
    async with Repository.open(database, autocommit=True) as repo:
        assert await propagation_channel(repo, built.namespace, [], [], RetrievalConfig()) == []
        assert (await repo.propagation_subgraph(built.namespace, [], [], 3)).carriers == {}


async def test_channel_does_not_cross_the_questions_own_keywords(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    config = replace(RetrievalConfig(), propagation_max_carriers=3)
    seeds = [Scored(built.ids["hike"], 1.0)]
    named = embeddings.embed_documents(["campfire"])
    async with Repository.open(database, autocommit=True) as repo:
        subgraph = await repo.propagation_subgraph(built.namespace, [seeds[0].id], named, 3)
        ranked = await propagation_channel(repo, built.namespace, seeds, named, config)
    assert max(subgraph.query_similarity.values()) == pytest.approx(1.0, abs=1e-4)
    # the campfire keyword is the question's own: the bridge is no longer reached
    assert ranked == [built.ids["hike"], built.ids["lake"]]


async def test_graph_fuses_the_propagation_ranking(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    graph = build_retrieval_graph()
    query = {"namespace": built.namespace, "query": "Where did we hike on the trail?", "k": 5}
    base = RetrievalConfig(propagation_max_carriers=3, max_rounds=1, llm_only=())
    on = await graph.ainvoke(query, context=RetrievalContext(database, embeddings, base))
    channels = tuple(c for c in base.channels if c != "propagation")
    off_config = replace(base, channels=channels)
    off = await graph.ainvoke(query, context=RetrievalContext(database, embeddings, off_config))
    bridge = built.ids["bridge"]
    on_ranks = {f.note_id: f for f in on["fused"]}
    assert "propagation" in on_ranks[bridge].ranks
    assert all("propagation" not in f.ranks for f in off["fused"])
    assert on_ranks[built.ids["hike"]].ranks["propagation"] == 1
    assert on_ranks[bridge].score > {f.note_id: f for f in off["fused"]}[bridge].score


async def test_offline_search_skips_the_propagation_channel_by_default(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    assert "propagation" in RetrievalConfig().llm_only
    query = {"namespace": built.namespace, "query": "Where did we hike on the trail?", "k": 5}
    context = RetrievalContext(database, embeddings, RetrievalConfig())
    state = await build_retrieval_graph().ainvoke(query, context=context)
    assert state["fused"]
    assert all("propagation" not in f.ranks for f in state["fused"])
