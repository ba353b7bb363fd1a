"""The speaker channel ranks the named speakers' notes by the query with their names made
neutral: which names are speakers is read with the stored keyword vectors (one statement),
the neutral text is embedded in the query's batch, and the channel ranks by its vector
(``tests/integration/test_search_statements.py`` pins what a default search sends and
embeds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest
from sqlalchemy import update

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.retrieval.channels import CHANNEL_FUNCTIONS, QueryPlan
from langmemcore.retrieval.decompose import plan_query, speaker_query_text, stored_cues
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Note
from tests.integration.conftest import sql_statements
from tests.integration.test_retrieval import NOTES, Built, RecordingEmbeddings, build


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    u, v = np.asarray(a), np.asarray(b)
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


async def neutral_plan(
    database: Database, built: Built, embeddings: LocalEmbeddings, query: str
) -> QueryPlan:
    """The plan of ``query`` with the namespace's cues, asking which names are speakers."""
    lookup = stored_cues(database, built.namespace)
    return await plan_query(query, embeddings, lookup=lookup, speakers=True)


@pytest.fixture()
async def built(database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]) -> Built:
    return await build(database, embeddings, ns)


async def test_one_statement_reads_stored_keywords_and_which_names_are_speakers(
    built: Built, database: Database
) -> None:
    lookup = stored_cues(database, built.namespace)
    with sql_statements(database) as sent:
        cues = await lookup(["pottery class", "zeppelin"], ["MELANIE", "Sweden", "caroline"])
    assert len(sent) == 1
    assert set(cues.vectors) == {"pottery class"}
    assert sorted(cues.speakers) == ["MELANIE", "caroline"]
    assert (await lookup([], ["Sweden"])).speakers == []
    assert (await lookup([], [])).speakers == []


async def test_only_speakers_with_an_active_note_count(built: Built, database: Database) -> None:
    caroline = [built.ids[label] for label in ("adoption", "parade", "counsel")]
    async with Repository.open(database) as repo:
        await repo._session.execute(
            update(Note).where(Note.id.in_(caroline)).values(status="merged")
        )
    cues = await stored_cues(database, built.namespace)([], ["Caroline", "Melanie"])
    assert cues.speakers == ["Melanie"]


async def test_the_plan_embeds_the_neutral_text_in_the_same_batch(
    built: Built, database: Database
) -> None:
    embeddings = RecordingEmbeddings()
    query = "What did Melanie paint at the lake in Sweden?"
    plan = await neutral_plan(database, built, embeddings, query)
    assert "Sweden" in plan.entities and "Melanie" in plan.entities
    neutral = "What did someone paint at the lake in Sweden?"
    assert embeddings.batches[0][:2] == [query, neutral]
    assert len(embeddings.batches) == 1
    assert cosine(plan.speaker_vector, embeddings.embed_query(neutral)) > 0.999
    assert cosine(plan.speaker_vector, embeddings.embed_query(query)) < 0.99
    assert plan.speaker_query == plan.speaker_vector != plan.vector
    plain = await plan_query(query, embeddings, lookup=stored_cues(database, built.namespace))
    assert plain.speaker_vector == () and plain.speaker_query == plain.vector


async def test_a_query_naming_no_speaker_embeds_nothing_more(
    built: Built, database: Database
) -> None:
    embeddings = RecordingEmbeddings()
    plan = await plan_query(
        "What happened in Sweden?",
        embeddings,
        lookup=stored_cues(database, built.namespace),
        speakers=True,
    )
    assert plan.speaker_vector == ()
    assert "someone" not in " ".join(embeddings.batches[0])


async def test_the_speaker_channel_ranks_by_the_neutral_query(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    query = "What did Melanie do for her health?"
    plan = await neutral_plan(database, built, embeddings, query)
    async with Repository.open(database) as repo:
        found = await CHANNEL_FUNCTIONS["speaker"](repo, built.namespace, plan, RetrievalConfig())
    melanie = [label for label, (speaker, *_rest) in NOTES.items() if speaker == "Melanie"]
    contexts = [context for _speaker, context, _kws, _when in NOTES.values()]
    stored = dict(zip(NOTES, embeddings.embed_documents(contexts), strict=True))
    similarity = {label: cosine(stored[label], plan.speaker_vector) for label in melanie}
    assert found == [built.ids[label] for label in sorted(melanie, key=lambda x: -similarity[x])]
    assert speaker_query_text(query, ["Melanie"]) == "What did someone do for her health?"
    assert found[0] == built.ids["race"]


async def test_the_channel_in_the_shared_statement_ranks_as_alone(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    from langmemcore.retrieval.channels import shared_channels

    plan = await neutral_plan(database, built, embeddings, "What did Melanie do for her health?")
    config = replace(RetrievalConfig(), depth=2)
    async with Repository.open(database, autocommit=True) as repo:
        alone = await CHANNEL_FUNCTIONS["speaker"](repo, built.namespace, plan, config)
        together = await shared_channels(repo, built.namespace, ("speaker",), plan, config)
    assert together == {"speaker": alone}
    assert len(alone) == 2


async def test_the_speaker_channel_keeps_to_the_names_memory_has_as_speakers(
    built: Built, database: Database, embeddings: LocalEmbeddings
) -> None:
    from langmemcore.retrieval.channels import shared_channels

    # "Mel" said nothing here: asking the speaker filter for her would send the vector
    # scan through the whole index for nothing, so the channel keeps to Melanie alone
    both = await neutral_plan(database, built, embeddings, "What did Mel and Melanie paint?")
    assert both.entities == ("Mel", "Melanie") and both.speakers == ("Melanie",)
    assert both.speaker_names == ("Melanie",)
    nobody = await neutral_plan(database, built, embeddings, "What did Mel paint?")
    assert nobody.speakers == () and nobody.speaker_names == ()
    unasked = await plan_query("What did Mel paint?", embeddings)
    assert unasked.speakers is None and unasked.speaker_names == ("Mel",)
    async with Repository.open(database, autocommit=True) as repo:
        with sql_statements(database) as sent:
            found = await shared_channels(
                repo, built.namespace, ("speaker",), nobody, RetrievalConfig()
            )
        assert found == {"speaker": []} and sent == []
        melanie = await CHANNEL_FUNCTIONS["speaker"](repo, built.namespace, both, RetrievalConfig())
    assert melanie and melanie[0] in {built.ids[label] for label in NOTES}
