"""The retrieval channels and graph against a hand-built memory with known answers."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from sqlalchemy import select, update

from langmemcore import InvalidInputError
from langmemcore.config import CHANNELS, RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval.channels import CHANNEL_FUNCTIONS, neighbour_channel
from langmemcore.retrieval.cost import track_search_cost
from langmemcore.retrieval.decompose import plan_query
from langmemcore.storage import Database, Repository, Scored
from langmemcore.storage.models import Keyword, Note, NoteKeyword, Topic, TopicKeyword
from tests.integration.conftest import UNANALYSED

NOTES = {
    "adoption": (
        "Caroline",
        "Caroline: Caroline is researching adoption agencies.",
        ["adoption agency"],
        datetime(2023, 5, 20, tzinfo=UTC),
    ),
    "sunrise": (
        "Melanie",
        "Melanie: Melanie painted a sunrise over the lake.",
        ["sunrise", "lake", "painting"],
        datetime(2023, 5, 8, tzinfo=UTC),
    ),
    "pottery": (
        "Melanie",
        "Melanie: Melanie signed up for a pottery class.",
        ["pottery class"],
        datetime(2023, 7, 2, tzinfo=UTC),
    ),
    "race": (
        "Melanie",
        "Melanie: Melanie ran a charity race for mental health.",
        ["charity race", "mental health"],
        datetime(2023, 6, 10, tzinfo=UTC),
    ),
    "parade": (
        "Caroline",
        "Caroline: Caroline went to a pride parade with friends.",
        ["pride parade", "friend"],
        datetime(2023, 6, 25, tzinfo=UTC),
    ),
    "counsel": (
        "Caroline",
        "Caroline: Caroline wants to study counseling and psychology.",
        ["counseling", "psychology"],
        datetime(2023, 5, 25, tzinfo=UTC),
    ),
}


@dataclass
class Built:
    ids: dict[str, int]
    namespace: tuple[str, ...]


async def build(
    database: Database, embeddings: LocalEmbeddings, namespace: tuple[str, ...]
) -> Built:
    names = sorted({k for _s, _c, kws, _t in NOTES.values() for k in kws})
    keyword_vectors = embeddings.embed_documents(names)
    note_vectors = embeddings.embed_documents([c for _s, c, _k, _t in NOTES.values()])
    ids: dict[str, int] = {}
    async with Repository.open(database) as repo:
        kw = await repo.upsert_keywords(namespace, list(zip(names, keyword_vectors, strict=True)))
        for (label, (speaker, context, kws, when)), vector in zip(
            NOTES.items(), note_vectors, strict=True
        ):
            obs = await repo.insert_observation(
                namespace,
                label,
                context.split(": ", 1)[1],
                speaker=speaker,
                event_time=when,
                analysis=UNANALYSED,
            )
            ids[label] = await repo.insert_note(
                namespace,
                context=context,
                embedding=vector,
                keywords=kws,
                source_ids=[obs.id],
                event_time=when,
                speakers=[speaker],
            )
            await repo.attach_keywords(namespace, ids[label], [kw[k] for k in kws])
        await repo.add_edges(
            namespace,
            ids["adoption"],
            [
                {
                    "target_id": ids["counsel"],
                    "relation": "related_to",
                    "strength": 0.9,
                    "tag": "career",
                    "reason": "test",
                },
            ],
        )
        ns = ".".join(namespace)
        art = Topic(
            namespace=ns,
            label="art",
            generation=1,
            size=3,
            centroid=embeddings.embed_query("art, painting and crafts"),
        )
        repo._session.add(art)
        await repo._session.flush()
        repo._session.add_all(
            TopicKeyword(namespace=ns, topic_id=art.id, keyword_id=kw[k])
            for k in ("sunrise", "painting", "pottery class")
        )
    return Built(ids, namespace)


async def run(
    channel: str,
    built: Built,
    database: Database,
    embeddings: LocalEmbeddings,
    query: str,
    **overrides: Any,
) -> list[int]:
    plan = await plan_query(query, embeddings)
    config = replace(RetrievalConfig(), **overrides)
    async with Repository.open(database) as repo:
        return await CHANNEL_FUNCTIONS[channel](repo, built.namespace, plan, config)


async def _keyword_ids(repo: Repository, namespace: tuple[str, ...], note_id: int) -> list[int]:
    rows = await repo._session.scalars(
        select(NoteKeyword.keyword_id).where(
            NoteKeyword.namespace == ".".join(namespace), NoteKeyword.note_id == note_id
        )
    )
    return list(rows)


@pytest.fixture()
async def built(database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]) -> Built:
    return await build(database, embeddings, ns)


async def test_vector_channel(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    found = await run("vector", built, database, embeddings, "Which agencies for adopting?")
    assert found[0] == built.ids["adoption"]
    assert sorted(found) == sorted(built.ids.values())


async def test_keyword_channel(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    found = await run("keyword", built, database, embeddings, "Did Melanie take a pottery class?")
    assert found[0] == built.ids["pottery"]
    assert built.ids["adoption"] not in found


async def test_keyword_ranking_sums_the_best_match_of_each_query_keyword(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    query = "Did Melanie paint the lake at sunrise after her pottery class?"
    plan = await plan_query(query, embeddings)
    config = RetrievalConfig()
    async with Repository.open(database) as repo:
        matches = [
            {i: s for i, _n, s in await repo.nearest_keywords(built.namespace, v, config.k_key)}
            for v in plan.keyword_vectors
        ]
        carried = {
            note_id: set(await _keyword_ids(repo, built.namespace, note_id))
            for note_id in built.ids.values()
        }
        found = await CHANNEL_FUNCTIONS["keyword"](repo, built.namespace, plan, config)
    expected: dict[int, float] = {}
    for entity in matches:
        usable = {k: s for k, s in entity.items() if s >= config.keyword_min_similarity}
        for note_id, kids in carried.items():
            best = max((usable[k] for k in kids if k in usable), default=0.0)
            if best > 0:
                expected[note_id] = expected.get(note_id, 0.0) + best
    order = sorted(expected, key=lambda n: (-expected[n], -n))
    assert found == order
    assert found[0] == built.ids["sunrise"]


async def test_keyword_and_topic_channels_skip_inactive_notes(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    async with Repository.open(database) as repo:
        await repo._session.execute(
            update(Note).where(Note.id == built.ids["pottery"]).values(status="merged")
        )
    keyword = await run("keyword", built, database, embeddings, "Did Melanie take a pottery class?")
    topic = await run("topic", built, database, embeddings, "What art does Melanie make?")
    assert built.ids["pottery"] not in keyword
    assert topic == [built.ids["sunrise"]]


async def test_topic_channel(built: Built, database: Database, embeddings: LocalEmbeddings) -> None:
    found = await run("topic", built, database, embeddings, "What art does Melanie make?")
    assert set(found) == {built.ids["sunrise"], built.ids["pottery"]}


async def test_topic_ranking_weights_topic_similarity_by_keyword_share(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    ns = ".".join(built.namespace)
    async with Repository.open(database) as repo:
        ids = {
            name: kid
            for kid, name in await repo._session.execute(
                select(Keyword.id, Keyword.name).where(Keyword.namespace == ns)
            )
        }
        causes = Topic(
            namespace=ns,
            label="causes",
            generation=1,
            size=3,
            centroid=embeddings.embed_query("charity, mental health and pride"),
        )
        repo._session.add(causes)
        await repo._session.flush()
        repo._session.add_all(
            TopicKeyword(namespace=ns, topic_id=causes.id, keyword_id=ids[k])
            for k in ("charity race", "mental health", "pride parade")
        )
    plan = await plan_query("charity race for mental health", embeddings)
    async with Repository.open(database) as repo:
        topics = await repo.nearest_topics(built.namespace, plan.topic_vector, 2)
        members = await repo.topic_notes(built.namespace, [t.id for t in topics])
        found = await CHANNEL_FUNCTIONS["topic"](repo, built.namespace, plan, RetrievalConfig())
    score: dict[int, float] = {}
    for topic in topics:
        most = max(m.score for m in members[topic.id])
        for m in members[topic.id]:
            score[m.id] = max(score.get(m.id, 0.0), topic.score * m.score / most)
    assert topics[0].id == causes.id
    assert found == sorted(score, key=lambda n: (-score[n], -n))
    # race carries two of the causes' keywords, parade one: race first, at full share
    assert found[:2] == [built.ids["race"], built.ids["parade"]]


async def test_neighbour_channel_follows_edges_from_the_anchors(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    plan = await plan_query("What is Caroline researching about adoption?", embeddings)
    anchors = [Scored(built.ids["adoption"], 1.0)]
    async with Repository.open(database) as repo:
        found = await neighbour_channel(repo, built.namespace, anchors, plan, RetrievalConfig())
    assert found == [built.ids["counsel"]]


async def test_speaker_channel_keeps_the_named_speaker(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    found = await run("speaker", built, database, embeddings, "What did Melanie do?")
    assert set(found) == {built.ids[k] for k in ("sunrise", "pottery", "race")}


async def test_fulltext_channel_weights_rare_terms(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    found = await run("fulltext", built, database, embeddings, "Melanie charity race")
    assert found == [built.ids["race"]]
    only_common = await run("fulltext", built, database, embeddings, "Melanie")
    assert set(only_common) == {built.ids[k] for k in ("sunrise", "pottery", "race")}


async def test_time_channel_matches_the_named_period(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    found = await run("time", built, database, embeddings, "What happened in June 2023?")
    assert found == [built.ids["race"], built.ids["parade"]]


def context(
    database: Database, embeddings: LocalEmbeddings, llm: Any = None, **overrides: Any
) -> RetrievalContext:
    settings = replace(RetrievalConfig(llm_only=()), **overrides)
    return RetrievalContext(database, embeddings, settings, llm)


async def test_loop_stops_when_the_evidence_covers_the_query(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    state = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": "Melanie pottery class"},
        context=context(database, embeddings),
    )
    assert state["asked"] == ["Melanie pottery class"]
    assert state["sufficient"] is True
    assert state["results"][0].note_id == built.ids["pottery"]


class CountingEmbeddings(LocalEmbeddings):
    """The real embedder, counting its batches."""

    batches: int = 0

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches += 1
        return await super().aembed_documents(texts)


async def test_subquery_rounds_run_refine_channels_on_the_judges_keywords(
    built: Built, database: Database
) -> None:
    embedder = CountingEmbeddings()
    # the best note covers one of the two; the other is a stored keyword it lacks
    query = "Did Melanie take a pottery class before her charity race?"
    with track_search_cost() as cost:
        state = await build_retrieval_graph().ainvoke(
            {"namespace": built.namespace, "query": query},
            context=context(database, embedder, sufficiency_top=1),
        )
    assert state["missing"] in {"charity race", "pottery class"}
    assert state["asked"][1].startswith(state["missing"])
    assert cost.searches == 1 and cost.refined == 1
    assert cost.subquery_rounds == len(state["asked"]) - 1
    assert cost.channel_calls == len(state["rankings"])
    later = [r for r in state["rankings"] if r.round > 0]
    assert len(state["asked"]) >= 2
    assert later and {r.channel for r in later} == {"keyword"}
    # the judge's keywords, not re-extracted from the joined text
    assert " ".join(state["current"].keywords) == state["asked"][-1]
    # only keyword vectors, all from the first round or the stored keywords: one batch
    assert state["current"].vector == () and state["current"].topic_vector == ()
    assert len(state["current"].keyword_vectors) == len(state["current"].keywords)
    assert embedder.batches == 1
    every = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": query},
        context=context(database, embedder, refine_channels=CHANNELS, sufficiency_top=1),
    )
    assert {r.channel for r in every["rankings"] if r.round > 0} >= {"keyword", "vector"}
    assert len(every["current"].vector) == 384


class NeverSatisfied(FakeListChatModel):
    """Answers the sufficiency prompt with 'insufficient' and the sub-query prompt with a new
    sub-question each time; anything else (the query-intent prompt) gets malformed output."""

    asked: int = 0

    def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> str:
        prompt = messages[-1].content
        if "reflector agent" in prompt:
            return '{"sufficient": false, "missing_info": "more", "confidence": 0.1}'
        if "Query Evolution Agent" in prompt:
            self.asked += 1
            return f"Sub-question: what else happened, take {self.asked}?"
        return "not json"


async def test_offline_no_round_for_what_memory_does_not_hold(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    query = "Did Melanie visit the volcano observatory in Iceland?"
    with track_search_cost() as cost:
        state = await build_retrieval_graph().ainvoke(
            {"namespace": built.namespace, "query": query},
            context=context(database, embeddings),
        )
    assert "volcano" in state["missing"] and state["subquery"] is None
    assert state["asked"] == [query]
    assert (cost.searches, cost.refined, cost.subquery_rounds) == (1, 0, 0)


async def test_mechanisms_kept_for_the_llm_path_are_skipped_offline(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    only_keyword = tuple(c for c in CHANNELS if c != "keyword")
    settings = context(database, embeddings, llm_only=(*only_keyword, "loop"))
    assert settings.config.channels == ("keyword",) and settings.config.max_rounds == 1
    with track_search_cost() as cost:
        state = await build_retrieval_graph().ainvoke(
            {"namespace": built.namespace, "query": "Melanie charity race"}, context=settings
        )
    assert {r.channel for r in state["rankings"]} == {"keyword"}
    assert state["results"][0].note_id == built.ids["race"]
    assert cost.channel_calls == 1
    with_llm = context(database, embeddings, NeverSatisfied(responses=[""]), llm_only=("topic",))
    assert "topic" in with_llm.config.channels


async def test_steps_a_search_does_not_run_are_not_visited(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    async def visited(settings: RetrievalContext) -> list[str]:
        steps = build_retrieval_graph().astream(
            {"namespace": built.namespace, "query": "Melanie charity race"},
            context=settings,
            stream_mode="updates",
        )
        return [node for update in [u async for u in steps] for node in update]

    lean = RetrievalConfig(llm_only=("topic", "neighbour", "loop", "propagation"))
    offline = RetrievalContext(database, embeddings, lean)
    nodes = await visited(offline)
    assert "expand" not in nodes and "sufficiency" not in nodes
    assert nodes[0] == "decompose" and nodes[-1] == "pack"
    # the keyword, vector, speaker, full-text and time channels share one task (one
    # statement), the profile channel is the other
    assert nodes.count("channel") == len(offline.config.channels) - 4 == 2
    everything = await visited(context(database, embeddings))
    assert "propagate" in everything and "expand" in everything and "sufficiency" in everything
    assert "channel_fuse_pack" not in everything
    # the offline default runs straight through: its channels in one task, then fusion and
    # packing, as one node
    defaults = await visited(RetrievalContext(database, embeddings, RetrievalConfig()))
    assert defaults == ["decompose", "channel_fuse_pack"]
    # without the propagation channel, fuse runs the neighbour channel itself
    with_neighbour = RetrievalConfig(llm_only=("topic", "loop", "propagation", "profile"))
    neighbour = RetrievalContext(database, embeddings, with_neighbour)
    assert "neighbour" in neighbour.config.channels
    assert await visited(neighbour) == ["decompose", "channel", "fuse", "pack"]
    state = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": "Melanie charity race"}, context=neighbour
    )
    assert [r.channel for r in state["rankings"]].count("neighbour") == 1


async def test_loop_stops_at_max_rounds(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    query = "Did Melanie visit the volcano observatory in Iceland?"
    for rounds in (1, 2, 3):
        llm = NeverSatisfied(responses=[""])
        state = await build_retrieval_graph().ainvoke(
            {"namespace": built.namespace, "query": query},
            context=context(database, embeddings, llm, max_rounds=rounds),
        )
        assert len(state["asked"]) == rounds
        assert llm.asked == rounds - 1
        assert {r.round for r in state["rankings"]} == set(range(rounds))
        first_round = {n for r in state["rankings"] if r.round == 0 for n in r.note_ids}
        assert first_round <= {f.note_id for f in state["fused"]}


async def test_llm_decomposition_sufficiency_and_subquery(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    llm = FakeListChatModel(
        responses=[
            '{"topic_desc": "Adoption research", "keywords": ["adoption agencies"]}',
            '{"sufficient": false, "missing_info": "her study plans", "confidence": 0.4}',
            "Sub-question: What does Caroline want to study?",
            '{"topic_desc": "Study plans", "keywords": ["counseling"]}',
            '{"sufficient": true, "missing_info": "", "confidence": 0.9}',
        ]
    )
    state = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": "What is Caroline working towards?"},
        context=context(database, embeddings, llm),
    )
    assert state["plan"].keywords == ("adoption agency",)
    assert state["asked"] == [
        "What is Caroline working towards?",
        "What does Caroline want to study?",
    ]
    assert state["current"].keywords == ("counseling",)
    top = [r.note_id for r in state["results"][:3]]
    assert built.ids["adoption"] in top and built.ids["counsel"] in top


async def test_malformed_llm_output_falls_back_offline(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    llm = FakeListChatModel(responses=["no json", "still no json"] * 4)
    offline = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": "Melanie pottery class"},
        context=context(database, embeddings),
    )
    fallback = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": "Melanie pottery class"},
        context=context(database, embeddings, llm),
    )
    assert fallback["plan"] == offline["plan"]
    assert [r.note_id for r in fallback["results"]] == [r.note_id for r in offline["results"]]


async def test_memory_search_packs_sources_channels_and_budget(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = Memory(database, embeddings, retrieval=RetrievalConfig(diversity=0.0))
    results = await memory.asearch(built.namespace, "Who ran a charity race?", k=3)
    assert len(results) == 3
    best = results[0]
    assert best.note_id == built.ids["race"]
    assert [s.key for s in best.sources] == ["race"]
    assert best.sources[0].speaker == "Melanie"
    assert {"vector", "fulltext"} <= set(best.channels)
    assert "keyword" not in best.channels  # offline, the keyword channel is llm_only
    assert results[0].score >= results[1].score >= results[2].score
    tight = await memory.asearch(built.namespace, "Who ran a charity race?", token_budget=1)
    assert [r.note_id for r in tight] == [best.note_id]
    with pytest.raises(InvalidInputError):
        await memory.asearch(built.namespace, "  ")


async def test_other_namespaces_never_leak(
    built: Built, database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    other = await build(database, embeddings, (ns[0], ns[1] + "x"))
    memory = Memory(database, embeddings)
    results = await memory.asearch(built.namespace, "Melanie painting sunrise lake")
    assert {r.note_id for r in results} <= set(built.ids.values())
    assert not {r.note_id for r in results} & set(other.ids.values())


async def test_terms_counted_up_to_the_cap_no_longer_select_candidates(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langmemcore.storage.search import fulltext

    texts = [f"note number {i} about the weather" for i in range(20)]
    texts += ["a falcon landed", "the marmot and the falcon slept"]
    vectors = embeddings.embed_documents(texts)
    async with Repository.open(database) as repo:
        ids = [
            await repo.insert_note(ns, context=t, embedding=v, keywords=[], source_ids=[])
            for t, v in zip(texts, vectors, strict=True)
        ]
        uncapped = await repo.fulltext_notes(ns, "falcon marmot", 10)
        monkeypatch.setattr(fulltext, "DOCUMENT_FREQUENCY_CAP", 2)
        monkeypatch.setattr(fulltext, "NOTE_COUNT_CAP", 10)
        capped = await repo.fulltext_notes(ns, "falcon marmot", 10)
    # 2 of 22 notes: below a tenth, so "falcon" selects candidates without the cap ...
    assert {s.id for s in uncapped} == set(ids[-2:])
    # ... and only weighs in once its count reaches the cap
    assert [s.id for s in capped] == [ids[-1]]


async def test_when_every_term_is_past_the_cap_the_rarest_stored_one_selects_candidates(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langmemcore.storage.search import fulltext

    texts = [f"the weather on day {i} was mild" for i in range(9)]
    texts += [f"a zebra crossed on day {i} in fine weather" for i in range(3)]
    async with Repository.open(database) as repo:
        ids = [
            await repo.insert_note(ns, context=t, embedding=v, keywords=[], source_ids=[])
            for t, v in zip(texts, embeddings.embed_documents(texts), strict=True)
        ]
        await repo.refresh_fulltext_statistics(ns)
        monkeypatch.setattr(fulltext, "DOCUMENT_FREQUENCY_CAP", 2)
        found = await repo.fulltext_notes(ns, "weather zebra", 20)
    # both terms count 2 (capped) and weigh alike; the stored counts (12 and 3) tell that
    # "zebra" is rarer, so only its notes are candidates, not every note about the weather
    assert {s.id for s in found} == set(ids[-3:])


async def test_stored_statistics_weigh_like_live_ones_and_newer_terms_count_live(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    texts = [f"the weather on day {i} was mild" for i in range(12)]
    texts += ["a falcon landed on the weather vane", "the marmot watched the falcon"]
    query = "falcon marmot weather zeppelin"
    async with Repository.open(database) as repo:
        for t, v in zip(texts, embeddings.embed_documents(texts), strict=True):
            await repo.insert_note(ns, context=t, embedding=v, keywords=[], source_ids=[])
        live_ranking = await repo.fulltext_notes(ns, query, 10)
        await repo.refresh_fulltext_statistics(ns)
        stored_ranking = await repo.fulltext_notes(ns, query, 10)
        text = "a zeppelin drifted over"
        newer = await repo.insert_note(
            ns, context=text, embedding=embeddings.embed_query(text), keywords=[], source_ids=[]
        )
        found = await repo.fulltext_notes(ns, "zeppelin", 5)
    assert stored_ranking == live_ranking  # the stored counts weigh as the live ones did
    assert [s.id for s in found] == [newer]  # a term newer than the refresh is counted live


async def test_topic_evolution_refreshes_the_fulltext_statistics(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    from langmemcore.storage.models import FulltextStatistics, LexemeStats

    memory = Memory(database, embeddings)
    await memory.aingest(ns, "Caroline went hiking with her dog on Sunday.", key="a")
    await memory.aingest(ns, "Melanie painted a sunrise over the lake.", key="b")
    await memory.aevolve_topics(ns)
    async with Repository.open(database) as repo:
        total = await repo._session.scalar(
            select(FulltextStatistics.active_notes).where(
                FulltextStatistics.namespace == ".".join(ns)
            )
        )
        rows = await repo._session.execute(
            select(LexemeStats.lexeme, LexemeStats.df).where(LexemeStats.namespace == ".".join(ns))
        )
        df = {lexeme: count for lexeme, count in rows}
    assert total == 2
    assert df["hike"] == 1 and df["sunris"] == 1


class RecordingEmbeddings(LocalEmbeddings):
    """The real embedder, recording each batch it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return super().embed_documents(texts)


async def test_a_query_embeds_its_text_and_only_the_keywords_memory_lacks(
    built: Built, database: Database
) -> None:
    from langmemcore.retrieval.decompose import stored_cues

    embeddings = RecordingEmbeddings()
    query = "Did the pottery class go on a zeppelin?"
    lookup = stored_cues(database, built.namespace)
    plan = await plan_query(query, embeddings, lookup=lookup)
    stored = (await lookup(list(plan.keywords), [])).vectors
    assert "pottery class" in stored and "zeppelin" not in stored
    # one batch: the text (which stands for the offline topic) and the unknown keyword
    assert embeddings.batches == [[query, "zeppelin"]]
    assert plan.topic_vector == plan.vector
    known = plan.keyword_vectors[plan.keywords.index("pottery class")]
    assert known == tuple(stored["pottery class"])


async def test_an_llm_topic_description_is_embedded_on_its_own() -> None:
    embeddings = RecordingEmbeddings()
    llm = FakeListChatModel(
        responses=['{"topic_desc": "volunteering and charity", "keywords": ["charity"]}']
    )
    plan = await plan_query("Where does Melanie volunteer?", embeddings, llm=llm)
    assert embeddings.batches == [
        ["Where does Melanie volunteer?", "volunteering and charity", "charity"]
    ]
    assert plan.topic_vector != plan.vector
