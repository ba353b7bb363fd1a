"""What one offline search sends to the database: the channels that share one statement
rank exactly as each channel alone, and a default search sends a pinned number of
statements (so that a change adding round trips fails here)."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from langmemcore.config import ConstructionConfig, RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval.channels import CHANNEL_FUNCTIONS, shared_channels
from langmemcore.retrieval.decompose import plan_query
from langmemcore.storage import Database, Repository
from langmemcore.storage.diagnostics import statement_hooks
from langmemcore.storage.search.fulltext_ranking import fulltext_ranking
from langmemcore.storage.search.shared import SHARED_CHANNELS
from langmemcore.storage.stats import list_topics
from tests.integration.conftest import sql_statements
from tests.integration.test_profiles import observations
from tests.integration.test_retrieval import Built, RecordingEmbeddings, build

QUERIES = (
    "What did Melanie do in June 2023?",
    "Did Caroline go to a pride parade with friends in May or June 2023?",
    "Which agencies for adopting?",
    "Did Melanie paint the lake at sunrise after her pottery class?",
)


@pytest.fixture()
async def built(database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]) -> Built:
    return await build(database, embeddings, ns)


@pytest.mark.parametrize("depth", [60, 2])
@pytest.mark.parametrize("query", QUERIES)
async def test_shared_statement_ranks_as_each_channel_alone(
    built: Built, database: Database, embeddings: LocalEmbeddings, query: str, depth: int
) -> None:
    plan = await plan_query(query, embeddings)
    config = replace(RetrievalConfig(), depth=depth)
    async with Repository.open(database, autocommit=True) as repo:
        alone = {
            c: await CHANNEL_FUNCTIONS[c](repo, built.namespace, plan, config)
            for c in SHARED_CHANNELS
        }
        with sql_statements(database) as sent:
            together = await shared_channels(repo, built.namespace, SHARED_CHANNELS, plan, config)
    assert together == alone
    assert len(sent) == 1
    assert any(alone.values())


async def test_shared_channels_with_nothing_to_ask_send_nothing(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    plan = replace(await plan_query("Which agencies for adopting?", embeddings), entities=())
    async with Repository.open(database, autocommit=True) as repo:
        with sql_statements(database) as sent:
            found = await shared_channels(
                repo, built.namespace, ("speaker", "time"), plan, RetrievalConfig()
            )
    assert found == {"speaker": [], "time": []}
    assert sent == []


async def test_time_channel_in_the_shared_statement_finds_the_named_month(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    plan = await plan_query("What did Melanie do in June 2023?", embeddings)
    assert plan.times
    async with Repository.open(database, autocommit=True) as repo:
        found = await shared_channels(repo, built.namespace, ("time",), plan, RetrievalConfig())
    assert found == {"time": [built.ids["race"], built.ids["parade"]]}


async def test_an_offline_default_search_sends_six_statements_and_one_for_a_state(
    built: Built, database: Database
) -> None:
    # the query's cues (stored keyword vectors, which names are speakers), the text
    # channels (full text, time) while the query is embedded, the other shared channels
    # (vector, speaker; keyword with a chat model), the pool's embeddings for diversity,
    # the evidence of the notes returned, the query log (the neighbour channel runs with
    # a chat model only); a question about a state (here: in a named month) also reads
    # the returned notes' gate edges, for supersession
    recording = RecordingEmbeddings()
    memory = Memory(database, recording)
    query = "Did Melanie paint the lake at sunrise in May 2023?"
    with sql_statements(database) as sent:
        found = await memory.asearch(built.namespace, query)
    assert found[0].note_id == built.ids["sunrise"]
    assert len(sent) == 7
    # one batch: the query and the speaker channel's neutral query; offline the keyword
    # channel does not run, so no keyword is embedded
    neutral = "Did someone paint the lake at sunrise in May 2023?"
    assert recording.batches == [[query, neutral]]
    no_state = RetrievalConfig(supersession=False)
    with sql_statements(database) as sent:
        plain = await memory.asearch(built.namespace, query, config=no_state)
    assert plain[0].note_id == built.ids["sunrise"]
    assert len(sent) == 6
    # without diversity the evidence of the best notes is read with no embeddings first
    with sql_statements(database) as sent:
        await memory.asearch(built.namespace, query, config=RetrievalConfig(diversity=0.0))
    assert len(sent) == 6
    off = RetrievalConfig(speaker_query_neutral_names=False)
    # a fresh memory: the first one holds the query's vectors and embeds nothing again
    await Memory(database, recording).asearch(built.namespace, query, config=off)
    assert recording.batches[-1] == [query]
    # with the keyword channel running, the keywords memory lacks are embedded too
    odd = "Did Melanie paint the lake at sunrise near the zeppelin?"
    await memory.asearch(built.namespace, odd, config=RetrievalConfig(llm_only=()))
    assert recording.batches[-1][:2] == [odd, odd.replace("Melanie", "someone")]
    assert "zeppelin" in recording.batches[-1][2:] and "sunrise" not in recording.batches[-1]


async def test_full_text_in_one_statement_lets_only_rare_terms_select(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    texts = [f"note {i} about the weather" for i in range(20)]
    texts += ["the weather spoiled the pottery class", "a pottery wheel"]
    vectors = embeddings.embed_documents(texts)
    async with Repository.open(database) as repo:
        ids = [
            await repo.insert_note(ns, context=t, embedding=v, keywords=[], source_ids=[])
            for t, v in zip(texts, vectors, strict=True)
        ]
    async with Repository.open(database, autocommit=True) as repo:
        with sql_statements(database) as sent:
            found = await repo.fulltext_notes(ns, "weather pottery", 10)
        # "weather" is in 21 of 22 notes: it weighs in but selects no candidate
        assert [s.id for s in found] == [ids[-2], ids[-1]]
        assert found[0].score > found[1].score
        assert len(sent) == 1
        assert await repo.fulltext_notes(ns, "weather", 3) != []  # all common: the rarest
        assert await repo.fulltext_notes(ns, "O'Neil's back\\slash zeppelin", 5) == []


async def test_full_text_with_every_term_at_the_cap_ranks_the_notes_holding_all(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    # counted up to a cap of 3, "weather" (5 notes) and "pottery" (4) are both too common
    # to select candidates alone: the notes holding both are the candidates; with a cap
    # of 10 the rarer one, "pottery", selects, as below the cap
    texts = [f"weather note {i}" for i in range(3)] + ["pottery note"]
    texts += ["the weather spoiled the pottery class", "weather and pottery again", "pottery"]
    vector = embeddings.embed_query("weather")
    async with Repository.open(database) as repo:
        ids = [
            await repo.insert_note(ns, context=t, embedding=vector, keywords=[], source_ids=[])
            for t in texts
        ]
    namespace = ".".join(ns)
    async with database.session() as session:
        capped = fulltext_ranking(namespace, "weather pottery", 10, 3, 20_000)
        both = (await session.execute(capped.statement, capped.params)).all()
        loose = fulltext_ranking(namespace, "weather pottery", 10, 10, 20_000)
        rarer = (await session.execute(loose.statement, loose.params)).all()
    assert sorted(i for i, _score in both) == sorted(ids[4:6])
    assert sorted(i for i, _score in rarer) == sorted([ids[3], *ids[4:7]])


async def test_a_returned_note_carries_the_topic_sharing_most_of_its_keywords(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    config = ConstructionConfig(topic_every=0, topic_min_size=1)
    memory = Memory(database, embeddings, config=config)
    await memory.aingest_many(ns, observations())
    await memory.aevolve_topics(ns)
    topics = await list_topics(database, ns)
    assert topics
    notes = await memory.asearch(ns, "Nadia Lyon Hamburg dog nurse hospital")
    assert notes
    for note in notes:
        shared = [(-len(set(note.keywords) & set(t.keywords)), t.label) for t in topics]
        best = (
            min((c, label) for c, label in shared if c < 0)
            if any(c < 0 for c, _ in shared)
            else None
        )
        assert note.topic == (best[1] if best else None)


class WaitingEmbeddings(RecordingEmbeddings):
    """The real embedder, which embeds a batch only once a full-text statement was sent
    (or gives up after ``patience`` seconds and says so)."""

    def __init__(self, patience: float) -> None:
        super().__init__()
        self.fulltext_sent = threading.Event()
        self.patience = patience
        self.waited_in_vain = False

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.waited_in_vain = not self.fulltext_sent.wait(self.patience)
        return super().embed_documents(texts)


async def test_the_text_channels_rank_while_the_query_is_embedded(
    built: Built, database: Database
) -> None:
    # the embedder holds the query's batch until the full-text statement is sent: a
    # search that ranked full text only after the embedding would wait in vain
    embeddings = WaitingEmbeddings(patience=10.0)
    memory = Memory(database, embeddings)
    query = "Did Melanie paint the lake at sunrise in May 2023?"

    def seen(statement: str) -> None:
        if "to_tsvector" in statement:
            embeddings.fulltext_sent.set()

    with statement_hooks(database, seen):
        found = await memory.asearch(built.namespace, query)
    assert not embeddings.waited_in_vain
    assert found[0].note_id == built.ids["sunrise"]
    # and they rank as they do in the shared statement, after the embedding
    plan = await plan_query(query, LocalEmbeddings())
    async with Repository.open(database, autocommit=True) as repo:
        together = await shared_channels(
            repo, built.namespace, ("fulltext", "time"), plan, RetrievalConfig()
        )
    early = await build_retrieval_graph().ainvoke(
        {"namespace": built.namespace, "query": query, "k": 10},
        context=RetrievalContext(database, LocalEmbeddings(), RetrievalConfig()),
    )
    ranked = {r.channel: list(r.note_ids) for r in early["rankings"] if r.channel in together}
    assert ranked == together
    assert together["fulltext"] and together["time"]
